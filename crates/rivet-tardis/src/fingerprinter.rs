//! Fingerprinting many path conditions at once: the PCs of one exploration share most of
//! their clauses (every path of a method starts with the same few), so a [`Fingerprinter`]
//! remembers, per clause, its slicing keys (interned as numbers) and the bits its forms set,
//! and renders and hashes each clause once. Its fingerprints equal [`Fingerprint::of`]'s.

use std::collections::HashMap;

use rivet_pc::{Clause, PathCondition, SymbolInfo};

use crate::fingerprint::Fingerprint;
use crate::forms::clause_forms;
use crate::slice::{clause_keys, slice_by_keys, Key};

/// Clauses remembered before the memory is cleared (a bound on its size, not a tuning knob).
const MAX_CLAUSES: usize = 200_000;

/// What a clause's forms and keys depend on: the clause, and what its symbols stand for.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ClauseContext {
    clause: Clause,
    symbols: Vec<Option<SymbolInfo>>,
}

/// A clause's interned keys and the bits of its forms.
#[derive(Debug, Clone)]
struct ClauseFacts {
    keys: Box<[u32]>,
    bits: Fingerprint,
}

/// A memo of clauses' keys and bits: each clause's facts in `facts`, found by its context.
#[derive(Debug, Clone, Default)]
pub struct Fingerprinter {
    clauses: HashMap<ClauseContext, usize>,
    facts: Vec<ClauseFacts>,
    keys: HashMap<Key, u32>,
}

impl Fingerprinter {
    pub fn new() -> Fingerprinter {
        Fingerprinter::default()
    }

    /// The fingerprint of `pc` sliced from its last clause (as [`Fingerprint::of`]).
    pub fn of(&mut self, pc: &PathCondition) -> Fingerprint {
        if self.clauses.len() > MAX_CLAUSES {
            self.clauses.clear();
            self.facts.clear();
            self.keys.clear();
        }
        let known: Vec<usize> = pc.clauses.iter().map(|c| self.facts(pc, c)).collect();
        let keys: Vec<&[u32]> = known.iter().map(|f| &*self.facts[*f].keys).collect();
        let mut print = Fingerprint::default();
        for i in slice_by_keys(&keys) {
            print.merge(&self.facts[known[i]].bits);
        }
        print
    }

    /// The index in `facts` of `clause`'s facts, computed when it is first met.
    fn facts(&mut self, pc: &PathCondition, clause: &Clause) -> usize {
        let context = ClauseContext {
            clause: clause.clone(),
            symbols: clause
                .term()
                .symbols()
                .iter()
                .map(|s| pc.symbols.get(s).cloned())
                .collect(),
        };
        if let Some(&f) = self.clauses.get(&context) {
            return f;
        }
        let mut keys: Vec<u32> = clause_keys(pc, clause)
            .into_iter()
            .map(|k| {
                let next = self.keys.len() as u32;
                *self.keys.entry(k).or_insert(next)
            })
            .collect();
        keys.sort_unstable();
        self.facts.push(ClauseFacts {
            keys: keys.into(),
            bits: Fingerprint::of_forms([&clause_forms(pc, clause)]),
        });
        let f = self.facts.len() - 1;
        self.clauses.insert(context, f);
        f
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use rivet_pc::{AccessPath, CmpOp, SymbolId, SymbolSort, Term};

    use super::*;

    /// A PC over `{this}.f0` … `{this}.f3` and `{arg1}`: each clause compares two of them, or
    /// one with a constant.
    fn pc_of(clauses: &[(u32, u32, i32)]) -> PathCondition {
        let paths: Vec<AccessPath> = (0..4)
            .map(|i| AccessPath::root("this").field(&format!("f{i}")))
            .chain([AccessPath::root("arg1")])
            .collect();
        let var = |i: u32| Term::var(SymbolId(i), SymbolSort::Int);
        let symbols: BTreeMap<SymbolId, SymbolInfo> = paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let info = SymbolInfo {
                    path: p.clone(),
                    sort: SymbolSort::Int,
                };
                (SymbolId(i as u32), info)
            })
            .collect();
        let clauses = clauses
            .iter()
            .filter_map(|&(a, b, c)| {
                let right = if b == a { Term::int(c) } else { var(b) };
                Term::compare(CmpOp::Lt, var(a), right)
                    .ok()
                    .map(Clause::Numeric)
            })
            .collect();
        PathCondition { clauses, symbols }
    }

    fn arb_pc() -> impl Strategy<Value = PathCondition> {
        prop::collection::vec((0u32..5, 0u32..5, -3i32..3), 0..7).prop_map(|c| pc_of(&c))
    }

    proptest! {
        #[test]
        fn remembered_clauses_give_the_fingerprint_of_the_pc(pcs in prop::collection::vec(arb_pc(), 1..6)) {
            let mut f = Fingerprinter::new();
            for pc in pcs.iter().chain(&pcs) {
                prop_assert_eq!(f.of(pc), Fingerprint::of(pc));
            }
        }
    }

    #[test]
    fn a_clause_met_again_is_not_rendered_again() {
        let mut f = Fingerprinter::new();
        let a = pc_of(&[(0, 1, 0), (2, 2, 1)]);
        let b = pc_of(&[(0, 1, 0), (2, 2, 1), (1, 3, 0)]);
        f.of(&a);
        assert_eq!(f.clauses.len(), 2);
        f.of(&b);
        assert_eq!(f.clauses.len(), 3, "the shared prefix is remembered");
        assert_eq!(f.of(&b), Fingerprint::of(&b));
    }
}
