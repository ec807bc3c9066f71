//! Solver decorators: the fast unsatisfiability check, constraint independence and a result
//! cache, each wrapping an inner `Solver`.

use std::collections::HashMap;

use crate::solver::{SolveResult, Solver, SolverStats};
use rivet_pc::{SymbolId, Term};

/// Answers `Unsat` without asking the inner solver when the newest clause is `false` or the
/// syntactic negation of an earlier clause (LCT's fast unsatisfiability check).
#[derive(Debug)]
pub struct FastUnsat<S> {
    inner: S,
    hits: u64,
    queries: u64,
}

impl<S: Solver> FastUnsat<S> {
    pub fn new(inner: S) -> FastUnsat<S> {
        FastUnsat {
            inner,
            hits: 0,
            queries: 0,
        }
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }
}

/// True if `last` is `false` or the negation of one of `earlier`.
pub fn trivially_unsat(earlier: &[Term], last: &Term) -> bool {
    if last.as_bool() == Some(false) {
        return true;
    }
    match Term::negation(last.clone()) {
        Ok(negated) => earlier.contains(&negated),
        Err(_) => false,
    }
}

impl<S: Solver> Solver for FastUnsat<S> {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        self.queries += 1;
        if let Some((last, earlier)) = clauses.split_last() {
            if trivially_unsat(earlier, last) {
                self.hits += 1;
                return SolveResult::Unsat;
            }
        }
        self.inner.check(clauses)
    }

    fn stats(&self) -> SolverStats {
        let mut s = self.inner.stats();
        s.queries = self.queries;
        s.fast_unsat += self.hits;
        s
    }
}

/// Solves only the clauses that share symbols, transitively, with the newest clause (plus
/// clauses without symbols). The model it returns covers those clauses' symbols only: the
/// other clauses were satisfiable before, and their symbols keep the values they had.
#[derive(Debug)]
pub struct Independence<S> {
    inner: S,
    sliced_away: u64,
    queries: u64,
}

impl<S: Solver> Independence<S> {
    pub fn new(inner: S) -> Independence<S> {
        Independence {
            inner,
            sliced_away: 0,
            queries: 0,
        }
    }
}

/// The clauses of `clauses` that share symbols, transitively, with the last one, in their
/// original order; clauses without symbols are kept.
pub fn dependent_slice(clauses: &[Term]) -> Vec<Term> {
    let Some(last) = clauses.last() else {
        return Vec::new();
    };
    // Union-find over symbols.
    let mut parent: HashMap<SymbolId, SymbolId> = HashMap::new();
    fn find(parent: &mut HashMap<SymbolId, SymbolId>, s: SymbolId) -> SymbolId {
        let mut root = s;
        while let Some(&p) = parent.get(&root) {
            if p == root {
                break;
            }
            root = p;
        }
        let mut cur = s;
        while cur != root {
            let next = parent.get(&cur).copied().unwrap_or(root);
            parent.insert(cur, root);
            cur = next;
        }
        root
    }
    for c in clauses {
        let syms = c.symbols();
        if let Some((&first, rest)) = syms.split_first() {
            let r0 = find(&mut parent, first);
            parent.entry(r0).or_insert(r0);
            for &s in rest {
                let r = find(&mut parent, s);
                if r != r0 {
                    parent.insert(r, r0);
                }
            }
        }
    }
    let target: Vec<SymbolId> = {
        let syms = last.symbols().to_vec();
        syms.into_iter().map(|s| find(&mut parent, s)).collect()
    };
    clauses
        .iter()
        .filter(|c| match c.symbols().first() {
            None => true,
            Some(&s) => {
                let r = find(&mut parent, s);
                target.contains(&r)
            }
        })
        .cloned()
        .collect()
}

impl<S: Solver> Solver for Independence<S> {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        self.queries += 1;
        let slice = dependent_slice(clauses);
        self.sliced_away += (clauses.len() - slice.len()) as u64;
        self.inner.check(&slice)
    }

    fn stats(&self) -> SolverStats {
        let mut s = self.inner.stats();
        s.queries = self.queries;
        s.sliced_away += self.sliced_away;
        s
    }
}

/// Remembers the result of each distinct clause list (in order) up to renaming of symbols
/// (queries that differ only in symbol ids, as the same shape met on two paths, share an
/// entry), up to `capacity` entries (then it starts over).
#[derive(Debug)]
pub struct Cache<S> {
    inner: S,
    entries: HashMap<Vec<Term>, SolveResult>,
    capacity: usize,
    hits: u64,
    queries: u64,
}

impl<S: Solver> Cache<S> {
    pub fn new(inner: S, capacity: usize) -> Cache<S> {
        Cache {
            inner,
            entries: HashMap::new(),
            capacity,
            hits: 0,
            queries: 0,
        }
    }
}

/// The clauses with symbols renamed `0, 1, ...` in order of first occurrence, and the
/// original symbol of each new id.
pub fn canonical(clauses: &[Term]) -> (Vec<Term>, Vec<SymbolId>) {
    let mut order: Vec<SymbolId> = Vec::new();
    fn visit(t: &Term, order: &mut Vec<SymbolId>) {
        match t.kind() {
            rivet_pc::TermKind::Var(s, _) if !order.contains(s) => order.push(*s),
            rivet_pc::TermKind::Unary(_, a) => visit(a, order),
            rivet_pc::TermKind::Binary(_, a, b) | rivet_pc::TermKind::Compare(_, a, b) => {
                visit(a, order);
                visit(b, order);
            }
            rivet_pc::TermKind::Ite(c, a, b) => {
                visit(c, order);
                visit(a, order);
                visit(b, order);
            }
            rivet_pc::TermKind::StrOp(_, args) => args.iter().for_each(|a| visit(a, order)),
            _ => {}
        }
    }
    for c in clauses {
        visit(c, &mut order);
    }
    let index: HashMap<SymbolId, SymbolId> = order
        .iter()
        .enumerate()
        .map(|(i, s)| (*s, SymbolId(i as u32)))
        .collect();
    let renamed = clauses
        .iter()
        .map(|c| c.rename(&|s| index.get(&s).copied()))
        .collect();
    (renamed, order)
}

impl<S: Solver> Solver for Cache<S> {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        self.queries += 1;
        let (key, order) = canonical(clauses);
        let back = |r: &SolveResult| match r {
            SolveResult::Sat(m) => {
                SolveResult::Sat(m.renamed(&|canon| order.get(canon.0 as usize).copied()))
            }
            other => other.clone(),
        };
        if let Some(r) = self.entries.get(&key) {
            self.hits += 1;
            return back(r);
        }
        let r = self.inner.check(&key);
        if self.entries.len() >= self.capacity {
            self.entries.clear();
        }
        self.entries.insert(key, r.clone());
        back(&r)
    }

    fn stats(&self) -> SolverStats {
        let mut s = self.inner.stats();
        s.queries = self.queries;
        s.cache_hits += self.hits;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_pc::{BinaryOp, CmpOp, SymbolSort};

    fn v(i: u32) -> Term {
        Term::var(SymbolId(i), SymbolSort::Int)
    }

    fn gt(a: Term, k: i32) -> Term {
        Term::compare(CmpOp::Gt, a, Term::int(k)).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Counts calls and answers Sat with an empty model.
    struct Counting(u64, Vec<usize>);

    impl Solver for Counting {
        fn check(&mut self, clauses: &[Term]) -> SolveResult {
            self.0 += 1;
            self.1.push(clauses.len());
            SolveResult::Sat(rivet_pc::Model::new())
        }
        fn stats(&self) -> SolverStats {
            SolverStats {
                backend_calls: self.0,
                ..SolverStats::default()
            }
        }
    }

    #[test]
    fn fast_unsat_spots_negation_of_earlier_clause() {
        let c = gt(v(0), 3);
        let n = Term::negation(c.clone()).unwrap_or_else(|e| panic!("{e}"));
        let mut s = FastUnsat::new(Counting(0, vec![]));
        assert_eq!(s.check(&[c.clone(), gt(v(1), 0), n]), SolveResult::Unsat);
        assert!(s.check(&[c, gt(v(1), 0)]).is_sat());
        assert_eq!(s.stats().fast_unsat, 1);
        assert_eq!(s.stats().backend_calls, 1);
    }

    #[test]
    fn independence_keeps_transitively_dependent_clauses() {
        let sum = Term::binary(BinaryOp::Add, v(1), v(2)).unwrap_or_else(|e| panic!("{e}"));
        let clauses = [
            gt(v(0), 1),
            gt(v(2), 0),
            gt(v(3), 0),
            gt(sum, 5),
            gt(v(1), 2),
        ];
        let slice = dependent_slice(&clauses);
        assert_eq!(slice.len(), 3);
        assert_eq!(slice[0], clauses[1]);
        let mut s = Independence::new(Counting(0, vec![]));
        s.check(&clauses);
        assert_eq!(s.inner.1, vec![3]);
        assert_eq!(s.stats().sliced_away, 2);
    }

    #[test]
    fn cache_shares_queries_equal_up_to_renaming() {
        let mut s = Cache::new(Counting(0, vec![]), 16);
        s.check(&[gt(v(3), 1), gt(v(5), 2)]);
        s.check(&[gt(v(7), 1), gt(v(2), 2)]);
        s.check(&[gt(v(7), 1), gt(v(7), 2)]);
        assert_eq!(s.stats().backend_calls, 2);
    }

    #[test]
    fn cache_answers_repeated_queries() {
        let mut s = Cache::new(Counting(0, vec![]), 16);
        let q = [gt(v(0), 1)];
        s.check(&q);
        s.check(&q);
        assert_eq!(s.stats().backend_calls, 1);
        assert_eq!(s.stats().cache_hits, 1);
    }
}
