//! A cheap model search before the backend: starting from a model of the earlier clauses,
//! try values for the newest clause's symbols (constants of the clauses, their neighbours,
//! the values of other symbols) and check them with the Rust evaluator. It only ever
//! answers `Sat` with a model it has checked; otherwise the backend decides.

use std::collections::BTreeSet;

use crate::decorators::dependent_slice;
use rivet_pc::Model;
use rivet_pc::{SymbolId, Term, TermKind};

/// Candidate values: the constants of `clauses`, each ±1, and a few usual values.
fn candidates(clauses: &[Term], base: &Model) -> Vec<i64> {
    let mut out = BTreeSet::new();
    for v in [0i64, 1, -1, 2, i64::from(i32::MAX), i64::from(i32::MIN)] {
        out.insert(v);
    }
    fn walk(t: &Term, base: &Model, out: &mut BTreeSet<i64>) {
        match t.kind() {
            TermKind::Int(v) => {
                for d in [-1i64, 0, 1] {
                    out.insert(i64::from(*v) + d);
                }
            }
            TermKind::Long(v) => {
                for d in [-1i64, 0, 1] {
                    out.insert(v.wrapping_add(d));
                }
            }
            TermKind::Var(s, _) => {
                if let Some(v) = base.get(*s) {
                    for d in [-1i64, 0, 1] {
                        out.insert(v.wrapping_add(d));
                    }
                }
            }
            // Float constants' neighbours: the bits of the value and of the floats next to it
            // (model values of float symbols are their bits).
            TermKind::Float(bits) => {
                for d in [-1i64, 0, 1] {
                    out.insert(i64::from(*bits).wrapping_add(d));
                }
            }
            TermKind::Double(bits) => {
                for d in [-1i64, 0, 1] {
                    out.insert((*bits as i64).wrapping_add(d));
                }
            }
            TermKind::Bool(_) => {}
            TermKind::Unary(_, a) => walk(a, base, out),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                walk(a, base, out);
                walk(b, base, out);
            }
            TermKind::Ite(c, a, b) => {
                walk(c, base, out);
                walk(a, base, out);
                walk(b, base, out);
            }
        }
    }
    for c in clauses {
        walk(c, base, &mut out);
        if out.len() > 64 {
            break;
        }
    }
    out.into_iter().collect()
}

/// Looks for values of the newest clause's symbols that, with `base` for the rest,
/// satisfy every clause sharing symbols with it. Returns the changed values only.
pub fn search_model(base: &Model, clauses: &[Term]) -> Option<Model> {
    let last = clauses.last()?;
    let slice = dependent_slice(clauses);
    let symbols: Vec<SymbolId> = last.symbols().to_vec();
    if symbols.is_empty() || symbols.len() > 3 {
        return None;
    }
    let values = candidates(&slice, base);
    let sort_of = |s: SymbolId| -> Option<rivet_pc::SymbolSort> {
        fn find(t: &Term, s: SymbolId) -> Option<rivet_pc::SymbolSort> {
            match t.kind() {
                TermKind::Var(v, sort) if *v == s => Some(*sort),
                TermKind::Unary(_, a) => find(a, s),
                TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                    find(a, s).or_else(|| find(b, s))
                }
                TermKind::Ite(c, a, b) => find(c, s).or_else(|| find(a, s)).or_else(|| find(b, s)),
                _ => None,
            }
        }
        find(last, s)
    };
    let mut trial = base.clone();
    // `s == e` (or `s op e`): try s = e's value, and its neighbours.
    if let TermKind::Compare(_, l, r) = last.kind() {
        for (var, other) in [(l, r), (r, l)] {
            if let TermKind::Var(s, sort) = var.kind() {
                let v = trial.eval(other).as_i64();
                for d in [0i64, 1, -1] {
                    let value = sort.normalize(v.wrapping_add(d));
                    let before = trial.get(*s);
                    trial.set(*s, value);
                    if trial.satisfies(&slice) {
                        let mut changed = Model::new();
                        changed.set(*s, value);
                        return Some(changed);
                    }
                    trial.set(*s, before.unwrap_or(0));
                }
            }
        }
    }
    // One symbol at a time.
    for &s in &symbols {
        let sort = sort_of(s)?;
        let original = base.get(s);
        for &v in &values {
            let v = sort.normalize(v);
            trial.set(s, v);
            if trial.satisfies(&slice) {
                let mut changed = Model::new();
                changed.set(s, v);
                return Some(changed);
            }
        }
        match original {
            Some(o) => trial.set(s, o),
            None => trial.set(s, 0),
        }
    }
    // Two symbols together.
    if symbols.len() == 2 && values.len() <= 40 {
        let (a, b) = (symbols[0], symbols[1]);
        let (sa, sb) = (sort_of(a)?, sort_of(b)?);
        for &x in &values {
            trial.set(a, sa.normalize(x));
            for &y in &values {
                trial.set(b, sb.normalize(y));
                if trial.satisfies(&slice) {
                    let mut changed = Model::new();
                    changed.set(a, sa.normalize(x));
                    changed.set(b, sb.normalize(y));
                    return Some(changed);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_pc::{BinaryOp, CmpOp, SymbolSort};

    #[test]
    fn finds_a_neighbour_value() {
        let x = Term::var(SymbolId(0), SymbolSort::Int);
        let y = Term::var(SymbolId(1), SymbolSort::Int);
        let c1 =
            Term::compare(CmpOp::Gt, x.clone(), Term::int(10)).unwrap_or_else(|e| panic!("{e}"));
        let sum =
            Term::binary(BinaryOp::Add, x.clone(), Term::int(5)).unwrap_or_else(|e| panic!("{e}"));
        let c2 = Term::compare(CmpOp::Eq, sum, y).unwrap_or_else(|e| panic!("{e}"));
        let mut base = Model::new();
        base.set(SymbolId(0), 11);
        let found =
            search_model(&base, &[c1.clone(), c2.clone()]).unwrap_or_else(|| panic!("no model"));
        let mut m = base.clone();
        m.merge(&found);
        assert!(m.satisfies(&[c1, c2]));
    }

    #[test]
    fn never_claims_an_unsatisfiable_query() {
        let x = Term::var(SymbolId(0), SymbolSort::Int);
        let c1 =
            Term::compare(CmpOp::Gt, x.clone(), Term::int(10)).unwrap_or_else(|e| panic!("{e}"));
        let c2 = Term::compare(CmpOp::Lt, x, Term::int(5)).unwrap_or_else(|e| panic!("{e}"));
        assert!(search_model(&Model::new(), &[c1, c2]).is_none());
    }
}
