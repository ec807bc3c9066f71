//! Exploration strategies behind one `Searcher` trait (select a pending state; update with
//! the states a step added and removed; empty): depth-first, breadth-first, seeded random
//! and new-coverage-first.

pub use rivet_rng::SplitMix;
use std::collections::VecDeque;

use crate::config::SearcherKind;

/// Id of a pending state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u64);

/// What a searcher may know of a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateMeta {
    pub id: StateId,
    pub depth: u32,
    /// The state covered a target-class branch that no reported path covers.
    pub new_coverage: bool,
}

/// Picks the next state to run. `select` does not remove it: the explorer runs it, then
/// calls `update` with its successors as `added` and itself in `removed`.
pub trait Searcher {
    fn select(&mut self) -> Option<StateId>;
    fn update(&mut self, added: &[StateMeta], removed: &[StateId]);
    fn is_empty(&self) -> bool;
}

/// Depth-first: the first successor of the latest fork runs next.
#[derive(Debug, Default)]
pub struct DepthFirst {
    stack: Vec<StateId>,
}

impl Searcher for DepthFirst {
    fn select(&mut self) -> Option<StateId> {
        self.stack.last().copied()
    }

    fn update(&mut self, added: &[StateMeta], removed: &[StateId]) {
        for r in removed {
            if let Some(i) = self.stack.iter().rposition(|s| s == r) {
                self.stack.remove(i);
            }
        }
        self.stack.extend(added.iter().rev().map(|m| m.id));
    }

    fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }
}

/// Breadth-first: states run in the order they were created.
#[derive(Debug, Default)]
pub struct BreadthFirst {
    queue: VecDeque<StateId>,
}

impl Searcher for BreadthFirst {
    fn select(&mut self) -> Option<StateId> {
        self.queue.front().copied()
    }

    fn update(&mut self, added: &[StateMeta], removed: &[StateId]) {
        for r in removed {
            if let Some(i) = self.queue.iter().position(|s| s == r) {
                self.queue.remove(i);
            }
        }
        self.queue.extend(added.iter().map(|m| m.id));
    }

    fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

/// Uniformly random among pending states, seeded.
#[derive(Debug)]
pub struct RandomPath {
    pending: Vec<StateId>,
    chosen: Option<StateId>,
    rng: SplitMix,
}

impl RandomPath {
    pub fn new(seed: u64) -> RandomPath {
        RandomPath {
            pending: Vec::new(),
            chosen: None,
            rng: SplitMix::new(seed),
        }
    }
}

impl Searcher for RandomPath {
    fn select(&mut self) -> Option<StateId> {
        if self.chosen.is_none() && !self.pending.is_empty() {
            self.chosen = Some(self.pending[self.rng.below(self.pending.len())]);
        }
        self.chosen
    }

    fn update(&mut self, added: &[StateMeta], removed: &[StateId]) {
        for r in removed {
            if let Some(i) = self.pending.iter().position(|s| s == r) {
                self.pending.swap_remove(i);
            }
            if self.chosen == Some(*r) {
                self.chosen = None;
            }
        }
        self.pending.extend(added.iter().map(|m| m.id));
    }

    fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

/// States that reached a branch no reported path covers run first (depth-first among
/// them), then the others depth-first.
#[derive(Debug, Default)]
pub struct NewCoverageFirst {
    fresh: DepthFirst,
    rest: DepthFirst,
}

impl Searcher for NewCoverageFirst {
    fn select(&mut self) -> Option<StateId> {
        self.fresh.select().or_else(|| self.rest.select())
    }

    fn update(&mut self, added: &[StateMeta], removed: &[StateId]) {
        let (new, old): (Vec<StateMeta>, Vec<StateMeta>) =
            added.iter().partition(|m| m.new_coverage);
        self.fresh.update(&new, removed);
        self.rest.update(&old, removed);
    }

    fn is_empty(&self) -> bool {
        self.fresh.is_empty() && self.rest.is_empty()
    }
}

/// The searcher of a kind.
pub fn searcher_for(kind: SearcherKind, seed: u64) -> Box<dyn Searcher> {
    match kind {
        SearcherKind::DepthFirst => Box::new(DepthFirst::default()),
        SearcherKind::BreadthFirst => Box::new(BreadthFirst::default()),
        SearcherKind::Random => Box::new(RandomPath::new(seed)),
        SearcherKind::NewCoverageFirst => Box::new(NewCoverageFirst::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(i: u64, new: bool) -> StateMeta {
        StateMeta {
            id: StateId(i),
            depth: 0,
            new_coverage: new,
        }
    }

    #[test]
    fn depth_first_runs_first_successor_next() {
        let mut s = DepthFirst::default();
        s.update(&[meta(0, false)], &[]);
        assert_eq!(s.select(), Some(StateId(0)));
        s.update(&[meta(1, false), meta(2, false)], &[StateId(0)]);
        assert_eq!(s.select(), Some(StateId(1)));
        s.update(&[], &[StateId(1)]);
        assert_eq!(s.select(), Some(StateId(2)));
        s.update(&[], &[StateId(2)]);
        assert!(s.is_empty());
    }

    #[test]
    fn breadth_first_runs_in_creation_order() {
        let mut s = BreadthFirst::default();
        s.update(&[meta(1, false), meta(2, false)], &[]);
        s.update(&[meta(3, false)], &[StateId(1)]);
        assert_eq!(s.select(), Some(StateId(2)));
    }

    #[test]
    fn random_is_seeded() {
        let run = |seed| {
            let mut s = RandomPath::new(seed);
            s.update(&(0..10).map(|i| meta(i, false)).collect::<Vec<_>>(), &[]);
            let mut order = Vec::new();
            while let Some(id) = s.select() {
                order.push(id.0);
                s.update(&[], &[id]);
            }
            order
        };
        assert_eq!(run(7), run(7));
        assert_eq!(run(7).len(), 10);
    }

    #[test]
    fn new_coverage_goes_first() {
        let mut s = NewCoverageFirst::default();
        s.update(&[meta(1, false), meta(2, true)], &[]);
        assert_eq!(s.select(), Some(StateId(2)));
    }
}
