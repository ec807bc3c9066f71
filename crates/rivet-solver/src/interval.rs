//! An exact decision procedure for the most common queries, before the backend: every
//! clause compares `x`, `x + c` or `x - c` with a constant, for one and the same symbol
//! `x`. Under Java's wrapping arithmetic the values of `x` satisfying such a clause form
//! at most two intervals; intersecting them decides the query exactly. Other queries go to
//! the inner solver.

use crate::solver::{SolveResult, Solver, SolverStats};
use rivet_pc::Model;
use rivet_pc::{BinaryOp, CmpOp, Sort, SymbolId, SymbolSort, Term, TermKind};

/// Sets of signed values as sorted, disjoint, inclusive intervals.
type Set = Vec<(i128, i128)>;

fn intersect(a: &Set, b: &Set) -> Set {
    let mut out = Vec::new();
    for &(l1, h1) in a {
        for &(l2, h2) in b {
            let (l, h) = (l1.max(l2), h1.min(h2));
            if l <= h {
                out.push((l, h));
            }
        }
    }
    out.sort_unstable();
    out
}

/// `x + offset` compared by `op` with `k`, for `x` of term width `bits`.
struct Atom {
    symbol: SymbolId,
    sort: SymbolSort,
    offset: i128,
    op: CmpOp,
    k: i128,
}

fn parse(clause: &Term) -> Option<Atom> {
    let TermKind::Compare(op, l, r) = clause.kind() else {
        return None;
    };
    let (op, side, k) = match (l.as_const(), r.as_const()) {
        (None, Some(k)) => (*op, l, k),
        (Some(k), None) => (op.swap(), r, k),
        _ => return None,
    };
    let (symbol, sort, offset) = match side.kind() {
        TermKind::Var(s, sort) => (*s, *sort, 0i128),
        TermKind::Binary(bop @ (BinaryOp::Add | BinaryOp::Sub), a, c) => {
            let TermKind::Var(s, sort) = a.kind() else {
                return None;
            };
            let c = i128::from(c.as_const()?);
            (*s, *sort, if *bop == BinaryOp::Add { c } else { -c })
        }
        _ => return None,
    };
    if matches!(
        sort,
        SymbolSort::Ref | SymbolSort::Float | SymbolSort::Double
    ) {
        return None;
    }
    Some(Atom {
        symbol,
        sort,
        offset,
        op,
        k: i128::from(k),
    })
}

fn width(sort: SymbolSort) -> u32 {
    if sort.term_sort() == Sort::Long {
        64
    } else {
        32
    }
}

fn domain(sort: SymbolSort) -> Set {
    let (lo, hi): (i128, i128) = match sort {
        SymbolSort::Boolean => (0, 1),
        SymbolSort::Byte => (i128::from(i8::MIN), i128::from(i8::MAX)),
        SymbolSort::Char => (0, i128::from(u16::MAX)),
        SymbolSort::Short => (i128::from(i16::MIN), i128::from(i16::MAX)),
        SymbolSort::Int | SymbolSort::Ref => (i128::from(i32::MIN), i128::from(i32::MAX)),
        SymbolSort::Long => (i128::from(i64::MIN), i128::from(i64::MAX)),
        // `parse` never makes atoms of float symbols; their bits, were it to.
        SymbolSort::Float => (0, i128::from(u32::MAX)),
        SymbolSort::Double => (i128::from(i64::MIN), i128::from(i64::MAX)),
        // Never an atom: strings are not numbers.
        SymbolSort::Str => (0, 0),
    };
    vec![(lo, hi)]
}

/// The values of `x` (in the term width's signed range) satisfying the atom.
fn solutions(a: &Atom) -> Set {
    let w = width(a.sort);
    let min = -(1i128 << (w - 1));
    let max = (1i128 << (w - 1)) - 1;
    // Values y = x + offset (wrapped) may take.
    let ys: Set = match a.op {
        CmpOp::Eq => vec![(a.k, a.k)],
        CmpOp::Ne => vec![(min, a.k - 1), (a.k + 1, max)],
        CmpOp::Lt => vec![(min, a.k - 1)],
        CmpOp::Le => vec![(min, a.k)],
        CmpOp::Gt => vec![(a.k + 1, max)],
        CmpOp::Ge => vec![(a.k, max)],
    };
    let modulus = 1i128 << w;
    let mut out = Vec::new();
    for (lo, hi) in ys {
        if lo > hi {
            continue;
        }
        // x = y - offset, wrapped into [min, max]: the shifted interval may cross a bound.
        let (l, h) = (lo - a.offset, hi - a.offset);
        for shift in [-2 * modulus, -modulus, 0, modulus, 2 * modulus] {
            let (sl, sh) = ((l + shift).max(min), (h + shift).min(max));
            if sl <= sh {
                out.push((sl, sh));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Up to `n` values of a set: the one nearest zero, then interval ends and their neighbours.
fn sample(set: &Set, n: usize) -> Vec<i128> {
    let mut out: Vec<i128> = Vec::new();
    let near_zero = set
        .iter()
        .map(|&(l, h)| {
            if l <= 0 && 0 <= h {
                0
            } else if l > 0 {
                l
            } else {
                h
            }
        })
        .min_by_key(|v| v.abs());
    out.extend(near_zero);
    for &(l, h) in set {
        for v in [l, h, l + 1, h - 1] {
            if l <= v && v <= h && !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out.truncate(n);
    out
}

/// Decides `clauses` when the single-symbol atoms among them settle it: `Unsat` if one
/// symbol's atoms contradict; `Sat` if there are no other clauses, or a few values drawn
/// from the atoms' solutions satisfy the others too. None otherwise.
pub fn decide(clauses: &[Term]) -> Option<SolveResult> {
    let mut sets: Vec<(SymbolId, SymbolSort, Set)> = Vec::new();
    let mut others: Vec<&Term> = Vec::new();
    for c in clauses {
        match c.as_bool() {
            Some(true) => continue,
            Some(false) => return Some(SolveResult::Unsat),
            None => {}
        }
        let Some(a) = parse(c) else {
            others.push(c);
            continue;
        };
        let entry = match sets
            .iter_mut()
            .find(|(s, sort, _)| *s == a.symbol && *sort == a.sort)
        {
            Some(e) => e,
            None => {
                sets.push((a.symbol, a.sort, domain(a.sort)));
                let last = sets.len() - 1;
                &mut sets[last]
            }
        };
        entry.2 = intersect(&entry.2, &solutions(&a));
        if entry.2.is_empty() {
            return Some(SolveResult::Unsat);
        }
    }
    if sets.is_empty() {
        return None;
    }
    let mut model = Model::new();
    for (s, _, set) in &sets {
        model.set(*s, i64::try_from(*sample(set, 1).first()?).ok()?);
    }
    if others.is_empty() {
        return Some(SolveResult::Sat(model));
    }
    // Symbols only the other clauses mention read as 0: say so in the model, since callers
    // merge it into models where they may have other values.
    for o in &others {
        for s in o.symbols() {
            if model.get(*s).is_none() {
                model.set(*s, 0);
            }
        }
    }
    // A small search over the atoms' solutions for the other clauses.
    let choices: Vec<(SymbolId, Vec<i128>)> = sets
        .iter()
        .filter(|(s, _, _)| others.iter().any(|o| o.symbols().contains(s)))
        .map(|(s, _, set)| (*s, sample(set, 5)))
        .collect();
    let total: usize = choices.iter().map(|(_, v)| v.len()).product();
    if total > 625 {
        return None;
    }
    let owned: Vec<Term> = others.iter().map(|t| (*t).clone()).collect();
    for mut k in 0..total {
        for (s, values) in &choices {
            let v = values[k % values.len()];
            k /= values.len();
            model.set(*s, i64::try_from(v).ok()?);
        }
        if model.satisfies(&owned) {
            return Some(SolveResult::Sat(model));
        }
    }
    None
}

/// Decides single-symbol interval queries itself; passes the others on.
#[derive(Debug)]
pub struct Intervals<S> {
    inner: S,
    decided: u64,
    queries: u64,
}

impl<S: Solver> Intervals<S> {
    pub fn new(inner: S) -> Intervals<S> {
        Intervals {
            inner,
            decided: 0,
            queries: 0,
        }
    }
}

impl<S: Solver> Solver for Intervals<S> {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        self.queries += 1;
        if let Some(r) = decide(clauses) {
            self.decided += 1;
            return r;
        }
        self.inner.check(clauses)
    }

    fn stats(&self) -> SolverStats {
        let mut s = self.inner.stats();
        s.queries = self.queries;
        s.interval_decided += self.decided;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x() -> Term {
        Term::var(SymbolId(0), SymbolSort::Int)
    }

    fn c(op: CmpOp, t: Term, k: i32) -> Term {
        Term::compare(op, t, Term::int(k)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn contradictory_bounds_are_unsat() {
        let r = decide(&[
            c(CmpOp::Ge, x(), 1),
            c(CmpOp::Le, x(), 1),
            c(CmpOp::Lt, x(), -1),
        ]);
        assert_eq!(r, Some(SolveResult::Unsat));
    }

    #[test]
    fn wrapping_offsets_are_exact() {
        // x > 10 and x + 1 < 5: only x = MAX (x + 1 wraps).
        let plus = Term::binary(BinaryOp::Add, x(), Term::int(1)).unwrap_or_else(|e| panic!("{e}"));
        match decide(&[c(CmpOp::Gt, x(), 10), c(CmpOp::Lt, plus, 5)]) {
            Some(SolveResult::Sat(m)) => assert_eq!(m.get(SymbolId(0)), Some(i64::from(i32::MAX))),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn one_contradicting_symbol_makes_the_query_unsat() {
        let y = Term::var(SymbolId(1), SymbolSort::Int);
        let xy = Term::compare(CmpOp::Lt, x(), y).unwrap_or_else(|e| panic!("{e}"));
        let r = decide(&[c(CmpOp::Lt, x(), 1), xy, c(CmpOp::Gt, x(), 5)]);
        assert_eq!(r, Some(SolveResult::Unsat));
    }

    #[test]
    fn other_clauses_are_checked_before_claiming_sat() {
        let y = Term::var(SymbolId(1), SymbolSort::Int);
        let xy = Term::compare(CmpOp::Gt, x(), y.clone()).unwrap_or_else(|e| panic!("{e}"));
        let clauses = [c(CmpOp::Ge, x(), 0), c(CmpOp::Le, y, 0), xy];
        match decide(&clauses) {
            Some(SolveResult::Sat(m)) => assert!(m.satisfies(&clauses)),
            other => panic!("{other:?}"),
        }
    }
}
