//! Strings used only through their length and characters at constant indices (`s.length()`,
//! `s.charAt(4)`, equality with a literal, a literal prefix), the way parsers read them, are
//! solved as numbers: a length symbol and one char symbol per index read, which Z3 decides in
//! milliseconds where its sequence theory takes a second (a date parser's conditions). The
//! model's numbers are turned back into the strings (characters no clause reads are filled).
//! Any other use of a string symbol leaves the query to the sequence theory.

use std::collections::BTreeMap;

use rivet_pc::{
    BinaryOp, CmpOp, JavaString, Model, Sort, StrOp, SymbolId, SymbolSort, Term, TermKind,
};

use crate::z3_string::MAX_LENGTH;

/// The first id of the symbols the rewriting makes (above any an exploration hands out).
const FIRST_ID: u32 = 0xC000_0000;

/// The unit given to characters no clause reads.
const FILL: u16 = b'a' as u16;

/// A string symbol as numbers.
#[derive(Debug, Clone, PartialEq)]
struct StringVars {
    length: SymbolId,
    chars: BTreeMap<i32, SymbolId>,
}

/// A query with its string symbols as numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct CharLevel {
    /// The rewritten clauses (no string term left).
    pub clauses: Vec<Term>,
    strings: BTreeMap<SymbolId, StringVars>,
    next: u32,
}

impl CharLevel {
    /// The symbols standing for string `s` (made on first use).
    fn vars(&mut self, s: SymbolId) -> &mut StringVars {
        let next = &mut self.next;
        self.strings.entry(s).or_insert_with(|| {
            *next += 1;
            StringVars {
                length: SymbolId(FIRST_ID + *next),
                chars: BTreeMap::new(),
            }
        })
    }

    fn length(&mut self, s: SymbolId) -> Term {
        Term::var(self.vars(s).length, SymbolSort::Int)
    }

    fn char_at(&mut self, s: SymbolId, k: i32) -> Term {
        self.vars(s);
        let next = &mut self.next;
        let id = match self.strings.get_mut(&s) {
            Some(vars) => *vars.chars.entry(k).or_insert_with(|| {
                *next += 1;
                SymbolId(FIRST_ID + *next)
            }),
            None => SymbolId(FIRST_ID),
        };
        Term::var(id, SymbolSort::Char)
    }

    /// `s` holds `text` as a prefix (`whole`: exactly).
    fn matches(&mut self, s: SymbolId, text: &JavaString, whole: bool) -> Option<Term> {
        let op = if whole { CmpOp::Eq } else { CmpOp::Ge };
        let n = i32::try_from(text.len()).ok()?;
        let mut out = Term::compare(op, self.length(s), Term::int(n)).ok()?;
        for (i, u) in text.units().iter().enumerate() {
            let c = self.char_at(s, i32::try_from(i).ok()?);
            let eq = Term::compare(CmpOp::Eq, c, Term::int(i32::from(*u))).ok()?;
            out = Term::binary(BinaryOp::And, out, eq).ok()?;
        }
        Some(out)
    }

    fn rewrite(&mut self, t: &Term) -> Option<Term> {
        Some(match t.kind() {
            TermKind::Var(_, SymbolSort::Str) | TermKind::Str(_) => return None,
            TermKind::StrOp(StrOp::Length, args) => match args.first()?.kind() {
                TermKind::Var(s, SymbolSort::Str) => self.length(*s),
                _ => return None,
            },
            TermKind::StrOp(StrOp::CharAt, args) => {
                let (TermKind::Var(s, SymbolSort::Str), Some(k)) =
                    (args.first()?.kind(), args.get(1)?.as_int())
                else {
                    return None;
                };
                if k < 0 {
                    return Some(Term::int(-1));
                }
                let inside = Term::compare(CmpOp::Lt, Term::int(k), self.length(*s)).ok()?;
                let c = self.char_at(*s, k);
                Term::ite(inside, c, Term::int(-1)).ok()?
            }
            TermKind::StrOp(StrOp::StartsWith, args) => {
                let (TermKind::Var(s, SymbolSort::Str), Some(text)) =
                    (args.first()?.kind(), args.get(1)?.as_string())
                else {
                    return None;
                };
                self.matches(*s, text, false)?
            }
            TermKind::StrOp(..) => return None,
            TermKind::Compare(op, a, b) if a.sort() == Sort::Str => {
                let (s, text) = match (a.kind(), b.as_string(), b.kind(), a.as_string()) {
                    (TermKind::Var(s, SymbolSort::Str), Some(text), _, _)
                    | (_, _, TermKind::Var(s, SymbolSort::Str), Some(text)) => (*s, text),
                    _ => return None,
                };
                let same = self.matches(s, text, true)?;
                if *op == CmpOp::Eq {
                    same
                } else {
                    Term::negation(same).ok()?
                }
            }
            TermKind::Unary(op, a) => Term::unary(*op, self.rewrite(a)?).ok()?,
            TermKind::Binary(op, a, b) => {
                Term::binary(*op, self.rewrite(a)?, self.rewrite(b)?).ok()?
            }
            TermKind::Compare(op, a, b) => {
                Term::compare(*op, self.rewrite(a)?, self.rewrite(b)?).ok()?
            }
            TermKind::Ite(c, a, b) => {
                Term::ite(self.rewrite(c)?, self.rewrite(a)?, self.rewrite(b)?).ok()?
            }
            _ => t.clone(),
        })
    }

    /// The clauses every model must satisfy: lengths within `[0, MAX_LENGTH]`, characters
    /// of the basic plane other than surrogates, or (`printable`) printable ASCII.
    pub fn ranges(&self, printable: bool) -> Vec<Term> {
        let mut out = Vec::new();
        let mut surrogate_free = Vec::new();
        let mut push = |op, t: Term, k| {
            if let Ok(c) = Term::compare(op, t, Term::int(k)) {
                out.push(c);
            }
        };
        for v in self.strings.values() {
            let len = Term::var(v.length, SymbolSort::Int);
            push(CmpOp::Ge, len.clone(), 0);
            push(CmpOp::Le, len, MAX_LENGTH as i32);
            for c in v.chars.values() {
                let c = Term::var(*c, SymbolSort::Char);
                if printable {
                    push(CmpOp::Ge, c.clone(), 0x20);
                    push(CmpOp::Le, c, 0x7e);
                } else {
                    let low = Term::compare(CmpOp::Lt, c.clone(), Term::int(0xd800));
                    let high = Term::compare(CmpOp::Gt, c, Term::int(0xdfff));
                    if let (Ok(l), Ok(h)) = (low, high) {
                        if let Ok(either) = Term::binary(BinaryOp::Or, l, h) {
                            surrogate_free.push(either);
                        }
                    }
                }
            }
        }
        out.extend(surrogate_free);
        out
    }

    /// `model` (of the rewritten clauses) with each string symbol's value: its length, each
    /// character read from its symbol, the others filled.
    pub fn model(&self, model: &Model) -> Model {
        let mut out = Model::new();
        for (s, v) in model.iter() {
            if s.0 < FIRST_ID {
                out.set(s, v);
            }
        }
        for (s, vars) in &self.strings {
            let len = model.get(vars.length).unwrap_or(0).clamp(0, MAX_LENGTH) as i32;
            let units: Vec<u16> = (0..len)
                .map(|i| {
                    vars.chars
                        .get(&i)
                        .and_then(|c| model.get(*c))
                        .map_or(FILL, |u| u as u16)
                })
                .collect();
            out.set_string(*s, JavaString::from_units(&units));
        }
        out
    }
}

/// The query with its string symbols as numbers, if it uses them only as this module says
/// (and uses one at all).
pub fn rewrite(clauses: &[Term]) -> Option<CharLevel> {
    fn has_strings(t: &Term) -> bool {
        match t.kind() {
            TermKind::Var(_, SymbolSort::Str) | TermKind::StrOp(..) => true,
            TermKind::Unary(_, a) => has_strings(a),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                has_strings(a) || has_strings(b)
            }
            TermKind::Ite(c, a, b) => has_strings(c) || has_strings(a) || has_strings(b),
            _ => false,
        }
    }
    let mentions_strings = clauses.iter().any(has_strings);
    if !mentions_strings {
        return None;
    }
    let mut out = CharLevel {
        clauses: Vec::with_capacity(clauses.len()),
        strings: BTreeMap::new(),
        next: 0,
    };
    for c in clauses {
        let r = out.rewrite(c)?;
        out.clauses.push(r);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s() -> Term {
        Term::var(SymbolId(0), SymbolSort::Str)
    }

    fn op(o: StrOp, args: Vec<Term>) -> Term {
        Term::string_op(o, args).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn lengths_and_constant_indices_become_numbers_and_come_back_as_strings() {
        let len = op(StrOp::Length, vec![s()]);
        let dash = op(StrOp::CharAt, vec![s(), Term::int(2)]);
        let clauses = vec![
            Term::compare(CmpOp::Eq, len, Term::int(4)).unwrap_or_else(|e| panic!("{e}")),
            Term::compare(CmpOp::Eq, dash, Term::int(45)).unwrap_or_else(|e| panic!("{e}")),
            op(StrOp::StartsWith, vec![s(), Term::str_const("x")]),
        ];
        let cl = rewrite(&clauses).unwrap_or_else(|| panic!("char-level"));
        assert!(cl.clauses.iter().all(|c| c.sort() == Sort::Bool));
        let mut m = Model::new();
        let vars = &cl.strings[&SymbolId(0)];
        m.set(vars.length, 4);
        m.set(vars.chars[&2], 45);
        m.set(vars.chars[&0], i64::from(b'x'));
        let back = cl.model(&m);
        assert_eq!(
            back.get_string(SymbolId(0)),
            Some(&JavaString::from("xa-a"))
        );
        assert!(back.satisfies(&clauses));
    }

    #[test]
    fn other_uses_of_a_string_stay_with_the_sequence_theory() {
        let other = op(
            StrOp::IndexOf,
            vec![s(), Term::str_const("-"), Term::int(0)],
        );
        let c = Term::compare(CmpOp::Eq, other, Term::int(3)).unwrap_or_else(|e| panic!("{e}"));
        assert!(rewrite(&[c]).is_none());
        let symbolic_index = op(
            StrOp::CharAt,
            vec![s(), Term::var(SymbolId(1), SymbolSort::Int)],
        );
        let c = Term::compare(CmpOp::Eq, symbolic_index, Term::int(3))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(rewrite(&[c]).is_none());
        let numbers = Term::compare(
            CmpOp::Eq,
            Term::var(SymbolId(1), SymbolSort::Int),
            Term::int(3),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(rewrite(&[numbers]).is_none());
    }
}
