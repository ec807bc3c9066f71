//! The two forms of a clause the fingerprint maps (TARDIS §4.2): the *concrete* form, the
//! clause's readable text with its symbols named by access path (`{this}.a[2] > 2000`), and
//! the *abstract* form, the same with numbers and array indices removed (`{this}.a[.] > .`),
//! so that clauses that differ only in constants look alike.
//!
//! Both are built from the clause's own readable text, so every term shape `rivet-pc` can
//! print has a form without this crate knowing it.

use rivet_pc::{AccessPath, Clause, PathCondition, Step, SymbolId};

/// A clause's concrete and abstract forms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClauseForms {
    pub abstract_form: String,
    pub concrete: String,
}

/// Marks a symbol's place in a clause's text while numbers are removed.
const OPEN: char = '\u{1}';
const CLOSE: char = '\u{2}';

/// The forms of `clause`, a clause of `pc`.
pub fn clause_forms(pc: &PathCondition, clause: &Clause) -> ClauseForms {
    let concrete = clause.text_with(&|s| pc.name(s));
    let marked = clause.text_with(&|s| format!("{OPEN}{}{CLOSE}", s.0));
    let stripped = strip_numbers(&marked);
    let abstract_form = name_symbols(&stripped, &|s| match pc.path_of(s) {
        Some(p) => abstract_path(p),
        None => "{?}".to_string(),
    });
    ClauseForms {
        abstract_form,
        concrete,
    }
}

/// An access path with its array indices removed: `{this}.a[.].next`.
pub fn abstract_path(path: &AccessPath) -> String {
    let mut out = String::new();
    for step in path.steps() {
        match step {
            Step::Root(r) => {
                out.push('{');
                out.push_str(&r);
                out.push('}');
            }
            Step::Field(f) => {
                out.push('.');
                out.push_str(&f);
            }
            Step::Index(_) => out.push_str("[.]"),
            Step::Length => out.push_str(".length"),
        }
    }
    out
}

fn identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `text` with every numeric literal (`7`, `-3`, `10L`, `1.5E-3f`, an index `[2]`) replaced by
/// `.`; digits inside identifiers (`arg1`, `a0`) and inside symbol marks stay.
fn strip_numbers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_mark = false;
    while i < chars.len() {
        let c = chars[i];
        if in_mark {
            in_mark = c != CLOSE;
            out.push(c);
            i += 1;
            continue;
        }
        if c == OPEN {
            in_mark = true;
            out.push(c);
            i += 1;
            continue;
        }
        let starts_literal = c.is_ascii_digit() && (i == 0 || !identifier_char(chars[i - 1]));
        if !starts_literal {
            out.push(c);
            i += 1;
            continue;
        }
        // The literal: digits, letters (suffixes, exponents, hex), points, and a sign right
        // after an exponent.
        i += 1;
        while i < chars.len() {
            let d = chars[i];
            let exponent_sign = (d == '-' || d == '+') && matches!(chars[i - 1], 'e' | 'E');
            if identifier_char(d) || d == '.' || exponent_sign {
                i += 1;
            } else {
                break;
            }
        }
        // A minus written as the literal's sign (not a subtraction) goes with it.
        if out.ends_with('-') {
            let before = out[..out.len() - 1].chars().last();
            if matches!(before, None | Some(' ' | '(' | '[' | ',')) {
                out.pop();
            }
        }
        out.push('.');
    }
    out
}

/// `text` with each symbol mark replaced by `name` of its symbol.
fn name_symbols(text: &str, name: &dyn Fn(SymbolId) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len_utf8()..];
        let Some(end) = after.find(CLOSE) else {
            out.push_str(after);
            return out;
        };
        match after[..end].parse::<u32>() {
            Ok(id) => out.push_str(&name(SymbolId(id))),
            Err(_) => out.push_str(&after[..end]),
        }
        rest = &after[end + CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use rivet_pc::{BinaryOp, CmpOp, SymbolInfo, SymbolSort, Term, UnaryOp};

    use super::*;

    fn pc_with(paths: &[AccessPath]) -> PathCondition {
        let symbols: BTreeMap<SymbolId, SymbolInfo> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    SymbolId(i as u32),
                    SymbolInfo {
                        path: p.clone(),
                        sort: SymbolSort::Int,
                    },
                )
            })
            .collect();
        PathCondition {
            clauses: Vec::new(),
            symbols,
        }
    }

    fn v(i: u32) -> Term {
        Term::var(SymbolId(i), SymbolSort::Int)
    }

    fn ok<T>(r: Result<T, rivet_pc::SortError>) -> T {
        r.unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn numbers_and_indices_go_from_the_abstract_form_only() {
        let a = AccessPath::root("this").field("a");
        let pc = pc_with(&[a.index("0"), a.index("5"), AccessPath::root("arg1")]);
        // a[0] > 6 and a[5] > 6 look alike abstractly (the paper's example), not concretely.
        let c0 = Clause::Numeric(ok(Term::compare(CmpOp::Gt, v(0), Term::int(6))));
        let c5 = Clause::Numeric(ok(Term::compare(CmpOp::Gt, v(1), Term::int(6))));
        let f0 = clause_forms(&pc, &c0);
        let f5 = clause_forms(&pc, &c5);
        assert_eq!(f0.concrete, "{this}.a[0] > 6");
        assert_eq!(f0.abstract_form, "{this}.a[.] > .");
        assert_eq!(f0.abstract_form, f5.abstract_form);
        assert_ne!(f0.concrete, f5.concrete);
        // Identifiers keep their digits; negative literals and long suffixes go whole.
        let sum = ok(Term::binary(BinaryOp::Sub, v(2), Term::int(3)));
        let c = Clause::Numeric(ok(Term::compare(CmpOp::Le, sum, Term::int(-40))));
        assert_eq!(clause_forms(&pc, &c).abstract_form, "{arg1} - . <= .");
        let wide = ok(Term::unary(UnaryOp::I2L, v(2)));
        let c = Clause::Numeric(ok(Term::compare(CmpOp::Ne, wide, Term::long(10))));
        assert_eq!(clause_forms(&pc, &c).abstract_form, "(long) {arg1} != .");
    }

    #[test]
    fn float_literals_with_exponents_become_one_mark() {
        assert_eq!(strip_numbers("x < 1.0E-5 && y > 2.5f"), "x < . && y > .");
        assert_eq!(strip_numbers("a - -3 == (-7)"), "a - . == (.)");
        assert_eq!(strip_numbers("{arg12}.f2[13]"), "{arg12}.f2[.]");
    }

    #[test]
    fn reference_clauses_lose_their_indices() {
        let a = AccessPath::root("this").field("a");
        let pc = pc_with(&[]);
        let term = ok(Term::compare(CmpOp::Eq, v(9), Term::int(0)));
        let null = Clause::Null {
            path: a.index("3").field("next"),
            term: term.clone(),
        };
        let forms = clause_forms(&pc, &null);
        assert_eq!(forms.concrete, "{this}.a[3].next == null");
        assert_eq!(forms.abstract_form, "{this}.a[.].next == null");
        let fresh = Clause::Fresh {
            path: a.index("2"),
            class: Arc::from("p/Node2"),
            term,
        };
        assert_eq!(
            clause_forms(&pc, &fresh).abstract_form,
            "fresh({this}.a[.]) : p.Node2"
        );
    }
}
