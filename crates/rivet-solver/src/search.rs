//! A cheap model search before the backend: starting from a model of the earlier clauses,
//! try values for the newest clause's symbols (constants of the clauses, their neighbours,
//! the values of other symbols; for float and double symbols, values derived from the
//! constants: their squares, square roots, halves, doubles, neighbours, and the special
//! values) and check them with the Rust evaluator. It only ever answers `Sat` with a model
//! it has checked; otherwise the backend decides (Z3's floating-point procedure can take
//! long where a derived value is a model at once, e.g. `Math.sqrt(x) > 10.0`).

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
            TermKind::Str(_) => {}
            TermKind::StrOp(_, args) => args.iter().for_each(|a| walk(a, base, out)),
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

/// Candidate values of float and double symbols: the special values, and for each constant
/// of the clauses (floats, doubles and integers) and each value of a symbol in `base`, the
/// value, its negation, square, square root, half, double, ±1 and its neighbours.
fn fp_candidates(clauses: &[Term], base: &Model) -> Vec<f64> {
    let mut seeds: Vec<f64> = Vec::new();
    fn walk(t: &Term, base: &Model, seeds: &mut Vec<f64>) {
        match t.kind() {
            TermKind::Int(v) => seeds.push(f64::from(*v)),
            TermKind::Long(v) => seeds.push(*v as f64),
            TermKind::Float(_) | TermKind::Double(_) => {
                seeds.extend(t.as_concrete().and_then(|c| c.as_f64()))
            }
            TermKind::Var(s, sort) => {
                if let Some(v) = base.get(*s) {
                    let mut m = Model::new();
                    m.set(*s, v);
                    seeds.extend(m.eval(&Term::var(*s, *sort)).as_f64());
                }
            }
            TermKind::Bool(_) => {}
            TermKind::Unary(_, a) => walk(a, base, seeds),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                walk(a, base, seeds);
                walk(b, base, seeds);
            }
            TermKind::Ite(c, a, b) => {
                walk(c, base, seeds);
                walk(a, base, seeds);
                walk(b, base, seeds);
            }
            TermKind::Str(_) => {}
            TermKind::StrOp(_, args) => args.iter().for_each(|a| walk(a, base, seeds)),
        }
    }
    for c in clauses {
        walk(c, base, &mut seeds);
        if seeds.len() > 12 {
            break;
        }
    }
    let mut out: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN_POSITIVE,
    ];
    for &c in &seeds {
        if !c.is_finite() {
            continue;
        }
        let up = f64::from_bits(c.to_bits().wrapping_add(1));
        let down = f64::from_bits(c.to_bits().wrapping_sub(1));
        for v in [
            c,
            -c,
            c * c,
            c.abs().sqrt(),
            c / 2.0,
            c * 2.0,
            c + 1.0,
            c - 1.0,
            up,
            down,
            c * c + 1.0,
            -(c * c),
        ] {
            if !out.iter().any(|o| o.to_bits() == v.to_bits()) {
                out.push(v);
            }
        }
    }
    out.truncate(96);
    out
}

/// A candidate value as a symbol of `sort` holds it in a model: float and double symbols
/// take `fp` values as their bits (a float rounded), the others `int` values.
fn candidate_bits(sort: rivet_pc::SymbolSort, int: i64, fp: f64) -> i64 {
    match sort {
        rivet_pc::SymbolSort::Float => i64::from((fp as f32).to_bits()),
        rivet_pc::SymbolSort::Double => fp.to_bits() as i64,
        _ => sort.normalize(int),
    }
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
    let fp_values = fp_candidates(&slice, base);
    // The candidates for one symbol, as its model values.
    let for_sort = |sort: rivet_pc::SymbolSort| -> Vec<i64> {
        if matches!(
            sort,
            rivet_pc::SymbolSort::Float | rivet_pc::SymbolSort::Double
        ) {
            fp_values
                .iter()
                .map(|v| candidate_bits(sort, 0, *v))
                .collect()
        } else {
            values
                .iter()
                .map(|v| candidate_bits(sort, *v, 0.0))
                .collect()
        }
    };
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
        for v in for_sort(sort) {
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
    if symbols.len() == 2 {
        let (a, b) = (symbols[0], symbols[1]);
        let (xs, ys) = (for_sort(sort_of(a)?), for_sort(sort_of(b)?));
        if xs.len() * ys.len() > 1600 {
            return None;
        }
        for &x in &xs {
            trial.set(a, x);
            for &y in &ys {
                trial.set(b, y);
                if trial.satisfies(&slice) {
                    let mut changed = Model::new();
                    changed.set(a, x);
                    changed.set(b, y);
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
    fn finds_float_models_from_derived_values() {
        // sqrt(x + 1.0) > 10.0 needs x > 99: the square of 10 is a candidate.
        let x = Term::var(SymbolId(0), SymbolSort::Double);
        let sum =
            Term::binary(BinaryOp::Add, x, Term::double(1.0)).unwrap_or_else(|e| panic!("{e}"));
        let root = Term::unary(rivet_pc::UnaryOp::Sqrt, sum).unwrap_or_else(|e| panic!("{e}"));
        let c =
            Term::compare(CmpOp::Gt, root, Term::double(10.0)).unwrap_or_else(|e| panic!("{e}"));
        let found = search_model(&Model::new(), std::slice::from_ref(&c))
            .unwrap_or_else(|| panic!("no model"));
        assert!(found.satisfies(&[c]));
        // A float symbol that must be NaN.
        let f = Term::var(SymbolId(1), SymbolSort::Float);
        let nan = Term::compare(CmpOp::Ne, f.clone(), f).unwrap_or_else(|e| panic!("{e}"));
        let found = search_model(&Model::new(), std::slice::from_ref(&nan))
            .unwrap_or_else(|| panic!("no model"));
        assert!(found.satisfies(&[nan]));
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
