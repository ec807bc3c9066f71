//! The archive shared by every strategy of a run: per covered goal, the shortest test that
//! covered it.

use std::collections::{BTreeMap, BTreeSet};

use rivet_testcase::{GoalId, HeapSnapshot, TypedTest};

/// Per covered goal, the shortest test that covered it.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    pub entries: BTreeMap<GoalId, TypedTest>,
    /// The best fitness seen so far of goals that are watched (path-condition goals), for
    /// their search logs.
    pub best: BTreeMap<GoalId, f64>,
    /// Test executions evaluated through the archive.
    pub executions: u64,
    /// Tests the search asks a concolic step to explore (EvoSuite's adaptive DSE, ISSRE'13
    /// §III: a mutation of one of their primitive values changed their fitness), newest last,
    /// at most [`MAX_DSE_REQUESTS`].
    pub dse_requests: Vec<TypedTest>,
    /// Tests that covered a goal no test had covered, newest last, at most
    /// [`MAX_ARRIVALS`]: the driver hands those another strategy found to the search, whose
    /// population can then build on them (a concolic test with a valid date, a SUSHI test
    /// that built a deep structure).
    pub arrivals: Vec<TypedTest>,
    /// Snapshots the executions brought (when `Goals::set_snapshot` asked for them), oldest
    /// first, until a strategy takes them; at most [`MAX_PENDING_SNAPSHOTS`] (later ones are
    /// dropped).
    pub snapshots: Vec<HeapSnapshot>,
    /// Batches of tests evaluated through `Arena::evaluate` (which of them carry a snapshot
    /// request follows `Goals::observation_for`).
    pub batches: u64,
    /// The strategy whose turn it is (set by the driver; empty outside a drive): the origin
    /// of the tests stored from now on.
    pub origin: &'static str,
    /// Per goal, the technique its test is credited to: the one that guided the test (see
    /// `guides`) or else the one in whose turn it was stored.
    pub origins: BTreeMap<GoalId, &'static str>,
    /// Goals a technique added to guide the tests (SUSHI's path-condition goals), by
    /// technique (set by the driver). A test that covers one is credited to that technique,
    /// in whichever strategy's turn it ran: the search runs SUSHI's goals' tests, but the
    /// path condition made them.
    pub guides: BTreeMap<GoalId, &'static str>,
    /// Goals covered for the first time, in the order they were, since the driver last took
    /// them (after every turn): what a turn brought, without comparing the whole archive.
    pub newly_covered: Vec<GoalId>,
    /// Runs refused because a result breaks a cast the written test makes (see `Arena::api`).
    pub cast_refusals: u64,
}

/// Most tests waiting for a concolic step.
pub const MAX_DSE_REQUESTS: usize = 4;

/// Most arrivals kept between two turns of the driver.
pub const MAX_ARRIVALS: usize = 16;
/// Most snapshots waiting for a strategy.
pub const MAX_PENDING_SNAPSHOTS: usize = 4_000;

impl Archive {
    /// Takes `test` for every goal it covers if it is new or shorter. True if anything changed.
    pub fn update(&mut self, test: &TypedTest, covered: &BTreeSet<GoalId>) -> bool {
        let mut changed = false;
        let mut new_goal = false;
        let origin = covered
            .iter()
            .find_map(|g| self.guides.get(g).copied())
            .unwrap_or(self.origin);
        for g in covered {
            let better = match self.entries.get(g) {
                Some(old) => test.len() < old.len(),
                None => {
                    new_goal = true;
                    self.newly_covered.push(*g);
                    true
                }
            };
            if better {
                self.entries.insert(*g, test.clone());
                self.origins.insert(*g, origin);
                changed = true;
            }
        }
        if new_goal {
            if self.arrivals.len() >= MAX_ARRIVALS {
                self.arrivals.remove(0);
            }
            self.arrivals.push(test.clone());
        }
        changed
    }

    /// Forgets the test of a goal (its test was dropped later, e.g. at verification), so the
    /// goal becomes a target again.
    pub fn forget(&mut self, goal: GoalId) -> Option<TypedTest> {
        self.origins.remove(&goal);
        self.entries.remove(&goal)
    }

    /// Records a fitness of a watched goal; keeps the best.
    pub fn note_fitness(&mut self, goal: GoalId, fitness: f64) {
        let best = self.best.entry(goal).or_insert(f64::INFINITY);
        if fitness < *best {
            *best = fitness;
        }
    }

    /// Keeps snapshots for a strategy, within [`MAX_PENDING_SNAPSHOTS`].
    pub fn keep_snapshots(&mut self, snapshots: Vec<HeapSnapshot>) {
        let room = MAX_PENDING_SNAPSHOTS.saturating_sub(self.snapshots.len());
        self.snapshots.extend(snapshots.into_iter().take(room));
    }

    pub fn is_covered(&self, goal: GoalId) -> bool {
        self.entries.contains_key(&goal)
    }

    /// Asks for a concolic step on `test` (the oldest request goes when too many wait).
    pub fn request_dse(&mut self, test: TypedTest) {
        if self.dse_requests.len() >= MAX_DSE_REQUESTS {
            self.dse_requests.remove(0);
        }
        self.dse_requests.push(test);
    }

    pub fn covered(&self) -> BTreeSet<GoalId> {
        self.entries.keys().copied().collect()
    }
}
