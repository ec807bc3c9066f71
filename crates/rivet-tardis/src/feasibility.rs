//! The run's learned feasibility of path conditions: one TARDIS classifier
//! (`rivet_tardis::Classifier`) that every strategy of a class's run shares. The symbolic
//! strategy teaches it its path-condition goals' outcomes and asks it about the paths it may
//! select; the concolic strategy teaches it its goals' outcomes and the negated outcomes the
//! solver proved unsatisfiable. Strategies run on one thread, taking turns, so the handle is
//! a shared cell: cloning it shares the classifier.

use std::cell::RefCell;
use std::rc::Rc;

use crate::{Classifier, ClassifierStats, Label, Source};
use rivet_pc::PathCondition;
use tracing::debug;

/// A shared handle on the run's classifier.
#[derive(Debug, Clone, Default)]
pub struct Feasibility(Rc<RefCell<Classifier>>);

impl Feasibility {
    pub fn new() -> Feasibility {
        Feasibility::default()
    }

    /// Learns `pc` with `label`.
    pub fn learn(&self, pc: &PathCondition, label: Label, source: Source) {
        debug!(?label, ?source, clauses = pc.len(), "feasibility example");
        self.0.borrow_mut().learn(pc, label, source);
    }

    /// Runs `f` on the classifier (to classify or pick against it).
    pub fn with<R>(&self, f: impl FnOnce(&Classifier) -> R) -> R {
        f(&self.0.borrow())
    }

    pub fn stats(&self) -> ClassifierStats {
        self.0.borrow().stats().clone()
    }

    /// Examples learned.
    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_classifier() {
        let a = Feasibility::new();
        let b = a.clone();
        b.learn(
            &PathCondition::default(),
            Label::Feasible,
            Source::GoalReached,
        );
        a.learn(
            &PathCondition::default(),
            Label::Infeasible,
            Source::SolverUnsat,
        );
        assert_eq!(a.len(), 2);
        assert_eq!(b.stats().feasible, 1);
        assert_eq!(b.with(|c| c.stats().infeasible), 1);
    }
}
