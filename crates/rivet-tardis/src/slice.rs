//! Path-condition slicing (TARDIS §4.1): the clauses of a PC that share, directly or
//! transitively, a variable or an object with its last clause. The prefix of an alternative PC
//! is satisfiable by construction, so its feasibility turns on the last clause and on what
//! depends on it; the rest only adds noise to the classifier.
//!
//! A clause's *keys* are what it predicates on: the variables its symbols stand for (by
//! access path), the object each of them belongs to (the owner of a field, an array element or
//! a length: `{this}.head` for `{this}.head.value`, `{this}.a` for `{this}.a[2]`), and for a
//! reference clause (`null`, alias, `fresh`) the reference itself, its owner, and the objects
//! it names. Two clauses depend on each other when their keys meet.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use rivet_pc::{AccessPath, Clause, PathCondition, SymbolId};

/// What a clause predicates on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// An input value, named by its access path.
    Variable(AccessPath),
    /// An object, named by the access path that reaches it.
    Object(AccessPath),
    /// A symbol the path condition does not name (it depends only on itself).
    Symbol(SymbolId),
}

/// The keys of `clause`, a clause of `pc` (whose symbols name the clause's variables).
pub fn clause_keys(pc: &PathCondition, clause: &Clause) -> HashSet<Key> {
    let mut keys = HashSet::new();
    let variable = |keys: &mut HashSet<Key>, path: &AccessPath| {
        if let Some(owner) = path.parent() {
            keys.insert(Key::Object(owner.clone()));
        }
        keys.insert(Key::Variable(path.clone()));
    };
    for s in clause.term().symbols() {
        match pc.path_of(*s) {
            Some(path) => variable(&mut keys, path),
            None => {
                keys.insert(Key::Symbol(*s));
            }
        }
    }
    match clause {
        Clause::Numeric(_) => {}
        Clause::Null { path, .. } | Clause::Fresh { path, .. } => {
            variable(&mut keys, path);
            keys.insert(Key::Object(path.clone()));
        }
        Clause::Alias { path, target, .. } => {
            variable(&mut keys, path);
            keys.insert(Key::Object(path.clone()));
            keys.insert(Key::Object(target.clone()));
        }
    }
    keys
}

/// The indices (ascending) of the clauses of `pc` that share, transitively, a key with its
/// last clause; the last clause is always among them. Empty for an empty PC.
pub fn slice(pc: &PathCondition) -> Vec<usize> {
    let keys: Vec<Vec<Key>> = pc
        .clauses
        .iter()
        .map(|c| clause_keys(pc, c).into_iter().collect())
        .collect();
    slice_by_keys(&keys)
}

/// The slice of clauses whose keys are `keys[i]`, from the last one: the indices (ascending)
/// of the clauses that share, transitively, a key with the last; empty for no clause.
pub fn slice_by_keys<K: Eq + Hash>(keys: &[impl AsRef<[K]>]) -> Vec<usize> {
    let n = keys.len();
    let Some(last) = n.checked_sub(1) else {
        return Vec::new();
    };
    // Which clauses each key occurs in; then a walk from the last clause over shared keys.
    let mut clauses_of: HashMap<&K, Vec<usize>> = HashMap::new();
    for (i, ks) in keys.iter().enumerate() {
        for k in ks.as_ref() {
            clauses_of.entry(k).or_default().push(i);
        }
    }
    let mut kept = vec![false; n];
    kept[last] = true;
    let mut frontier = vec![last];
    let mut walked: HashSet<&K> = HashSet::new();
    while let Some(i) = frontier.pop() {
        for k in keys[i].as_ref() {
            if !walked.insert(k) {
                continue;
            }
            for &j in clauses_of.get(k).map(Vec::as_slice).unwrap_or_default() {
                if !kept[j] {
                    kept[j] = true;
                    frontier.push(j);
                }
            }
        }
    }
    (0..n).filter(|i| kept[*i]).collect()
}

/// The sliced PC itself: the kept clauses in order, with the symbols they mention.
pub fn sliced(pc: &PathCondition) -> PathCondition {
    let clauses: Vec<Clause> = slice(pc)
        .into_iter()
        .map(|i| pc.clauses[i].clone())
        .collect();
    let mentioned: HashSet<SymbolId> = clauses
        .iter()
        .flat_map(|c| c.term().symbols().iter().copied())
        .collect();
    let symbols = pc
        .symbols
        .iter()
        .filter(|(s, _)| mentioned.contains(s))
        .map(|(s, i)| (*s, i.clone()))
        .collect();
    PathCondition { clauses, symbols }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use proptest::prelude::*;
    use rivet_pc::{BinaryOp, CmpOp, SymbolInfo, SymbolSort, Term};

    use super::*;

    /// A PC builder: symbols by access path, numeric clauses over them.
    #[derive(Default)]
    struct Pc {
        symbols: BTreeMap<SymbolId, SymbolInfo>,
        clauses: Vec<Clause>,
    }

    impl Pc {
        fn var(&mut self, path: &AccessPath) -> Term {
            let existing = self
                .symbols
                .iter()
                .find(|(_, i)| i.path == *path)
                .map(|(s, _)| *s);
            let id = existing.unwrap_or_else(|| {
                let id = SymbolId(self.symbols.len() as u32);
                self.symbols.insert(
                    id,
                    SymbolInfo {
                        path: path.clone(),
                        sort: SymbolSort::Int,
                    },
                );
                id
            });
            Term::var(id, SymbolSort::Int)
        }

        /// `sum of paths > k`.
        fn gt(&mut self, paths: &[AccessPath], k: i32) {
            let mut sum = self.var(&paths[0]);
            for p in &paths[1..] {
                let v = self.var(p);
                sum = Term::binary(BinaryOp::Add, sum, v).unwrap_or_else(|e| panic!("{e}"));
            }
            let c = Term::compare(CmpOp::Gt, sum, Term::int(k)).unwrap_or_else(|e| panic!("{e}"));
            self.clauses.push(Clause::Numeric(c));
        }

        fn fresh(&mut self, path: &AccessPath) {
            let sym = SymbolId(1000 + self.clauses.len() as u32);
            self.symbols.insert(
                sym,
                SymbolInfo {
                    path: path.clone(),
                    sort: SymbolSort::Ref,
                },
            );
            let term = Term::compare(CmpOp::Gt, Term::var(sym, SymbolSort::Ref), Term::int(0))
                .unwrap_or_else(|e| panic!("{e}"));
            self.clauses.push(Clause::Fresh {
                path: path.clone(),
                class: Arc::from("a/Node"),
                term,
            });
        }

        fn pc(&self) -> PathCondition {
            PathCondition {
                clauses: self.clauses.clone(),
                symbols: self.symbols.clone(),
            }
        }
    }

    fn arg(name: &str) -> AccessPath {
        AccessPath::root(name)
    }

    #[test]
    fn the_papers_variable_example_keeps_the_transitive_dependency() {
        // b > 1000 ∧ a > 0 ∧ c + b > 0 ∧ c > 0 ∧ b <= 500: `a > 0` goes, `c > 0` stays
        // through `c + b > 0` (Figure 3).
        let (a, b, c) = (arg("a"), arg("b"), arg("c"));
        let mut pc = Pc::default();
        pc.gt(std::slice::from_ref(&b), 1000);
        pc.gt(std::slice::from_ref(&a), 0);
        pc.gt(&[c.clone(), b.clone()], 0);
        pc.gt(std::slice::from_ref(&c), 0);
        pc.gt(std::slice::from_ref(&b), 500);
        assert_eq!(slice(&pc.pc()), vec![0, 2, 3, 4]);
    }

    #[test]
    fn the_papers_object_example_links_fields_of_one_object() {
        // O2.c < 0 ∧ O1.b > 0 ∧ O1.a > 0: the last clause and O1.b share object O1.
        let this = arg("this");
        let (o1, o2) = (this.field("o1"), this.field("o2"));
        let mut pc = Pc::default();
        pc.gt(&[o2.field("c")], 0);
        pc.gt(&[o1.field("b")], 0);
        pc.gt(&[o1.field("a")], 0);
        assert_eq!(slice(&pc.pc()), vec![1, 2]);
        let s = sliced(&pc.pc());
        assert_eq!(s.clauses.len(), 2);
        assert_eq!(
            s.symbols.len(),
            2,
            "only the symbols the kept clauses mention"
        );
    }

    #[test]
    fn array_elements_and_lengths_belong_to_their_array_and_fresh_links_its_fields() {
        let a = arg("this").field("a");
        let mut pc = Pc::default();
        pc.gt(&[arg("arg1")], 0);
        pc.fresh(&a);
        pc.gt(&[a.length()], 0);
        pc.gt(&[a.index("0")], 7);
        assert_eq!(slice(&pc.pc()), vec![1, 2, 3]);
        assert!(slice(&PathCondition::default()).is_empty());
    }

    /// A small universe of paths: roots, their fields, elements of an array.
    fn paths() -> Vec<AccessPath> {
        let this = arg("this");
        let arr = this.field("arr");
        vec![
            arg("arg1"),
            arg("arg2"),
            this.field("x"),
            this.field("y"),
            this.field("next").field("x"),
            this.field("next").field("next").field("x"),
            arr.index("0"),
            arr.index("1"),
            arr.length(),
            arg("arg3").field("z"),
        ]
    }

    proptest! {
        /// The slice is exactly the connected component of the last clause: connected (each
        /// kept clause reaches the last through kept clauses sharing keys) and closed (no
        /// dropped clause shares a key with a kept one).
        #[test]
        fn slicing_keeps_exactly_the_transitive_closure(
            clauses in prop::collection::vec(prop::collection::vec(0usize..10, 1..3), 1..12)
        ) {
            let universe = paths();
            let mut pc = Pc::default();
            for c in &clauses {
                let ps: Vec<AccessPath> = c.iter().map(|i| universe[*i].clone()).collect();
                pc.gt(&ps, 1);
            }
            let pc = pc.pc();
            let kept = slice(&pc);
            let last = pc.clauses.len() - 1;
            prop_assert!(kept.contains(&last));
            let keys: Vec<HashSet<Key>> = pc.clauses.iter().map(|c| clause_keys(&pc, c)).collect();
            let meet = |i: usize, j: usize| keys[i].iter().any(|k| keys[j].contains(k));
            // Closed.
            for i in 0..pc.clauses.len() {
                if !kept.contains(&i) {
                    for &j in &kept {
                        prop_assert!(!meet(i, j), "dropped clause {i} shares a key with kept {j}");
                    }
                }
            }
            // Connected.
            let mut seen = vec![last];
            let mut frontier = vec![last];
            while let Some(j) = frontier.pop() {
                for &i in &kept {
                    if !seen.contains(&i) && meet(i, j) {
                        seen.push(i);
                        frontier.push(i);
                    }
                }
            }
            prop_assert_eq!(seen.len(), kept.len());
        }
    }
}
