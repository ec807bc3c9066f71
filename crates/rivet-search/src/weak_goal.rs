//! Weak-mutation goals for the boundary mutants: PIT's conditionals-boundary mutator turns
//! `a < b` into `a <= b` (and so on), which changes the outcome only where the operands are
//! equal. A goal per relational jump is reached when a test evaluates it with equal operands
//! (the instrumentation's equality probe is hit); its distance is the smallest |a - b| seen, so
//! the search is led towards the boundary as branch distance leads it to a branch. A test
//! that reaches it infects the mutant; the assertions then decide whether it is killed.

use rivet_testcase::{Execution, ProbeId, TestCase};

use crate::goal::{normalize, Objective};

/// The probe id that records |a - b| at the relational jump whose taken branch has probe
/// `taken`, when equality probes start at `base` (the instrumented classes' probe count).
pub fn equality_probe(base: u32, taken: ProbeId) -> ProbeId {
    ProbeId(base + taken.0)
}

/// Covered when the jump is evaluated with equal operands.
#[derive(Debug, Clone)]
pub struct BoundaryObjective {
    /// The jump's equality probe.
    pub equality: ProbeId,
}

impl Objective for BoundaryObjective {
    fn fitness(&self, _test: &TestCase, e: &Execution) -> f64 {
        match e
            .distances
            .binary_search_by_key(&self.equality, |(p, _)| *p)
        {
            Ok(i) => {
                let d = e.distances[i].1;
                if d == 0.0 {
                    0.0
                } else if d.is_finite() {
                    // Evaluated, operands apart: closer than not evaluated at all.
                    0.5 * normalize(d).max(f64::MIN_POSITIVE)
                } else {
                    0.75
                }
            }
            Err(_) => 1.0,
        }
    }

    // Not a branch: the report counts branches only, and the probe lies outside every class's
    // range (see `equality_probe`).
    fn is_branch(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(distances: Vec<(ProbeId, f64)>) -> Execution {
        let mut e = Execution::without_result(
            rivet_testcase::ExecutionStatus::Completed,
            0,
            std::time::Duration::ZERO,
            None,
        );
        e.distances = distances;
        e
    }

    #[test]
    fn reached_at_equal_operands_and_guided_by_their_difference() {
        let goal = BoundaryObjective {
            equality: equality_probe(100, ProbeId(7)),
        };
        let t = TestCase::default();
        assert_eq!(goal.fitness(&t, &run(vec![(ProbeId(107), 0.0)])), 0.0);
        let near = goal.fitness(&t, &run(vec![(ProbeId(107), 1.0)]));
        let far = goal.fitness(&t, &run(vec![(ProbeId(107), 50.0)]));
        let never = goal.fitness(&t, &run(vec![(ProbeId(7), 0.0)]));
        assert!(
            0.0 < near && near < far && far < never,
            "{near} {far} {never}"
        );
        assert_eq!(never, 1.0);
        assert!(!goal.is_branch());
    }
}
