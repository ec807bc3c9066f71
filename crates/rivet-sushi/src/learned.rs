//! The learned invariants of one symbolic strategy's run: the snapshots it asks the workers
//! for, what the learner makes of them, which invariants each exploration assumed and used,
//! and which were retracted, either because later snapshots contradicted them or because a
//! path-condition goal was reached by a test whose objects contradict them (the test is run
//! again with snapshots at every call). The report lists them; the artifacts keep them as an
//! invariants file that `rivet explore --invariants` reads.

use rivet_report::{LearnedInvariantRow, LearnedInvariantsReport};
use std::collections::BTreeMap;
use std::time::Instant;

use rivet_api::CallableKind;
use rivet_search::{Arena, Goals, SnapshotSampling};
use rivet_symbolic::{Invariant, Invariants};
use rivet_testcase::{GoalId, HeapSnapshot, ObservationSpec, SnapshotSpec, TestCase};
use tracing::{debug, info};

use crate::learn::{LearnConfig, Learner};
use rivet_strategy::ClassPlan;

/// Most snapshots absorbed in a run: after that the workers stop taking them (checks of
/// reached goals still do).
const MAX_SNAPSHOTS: u64 = 20_000;
/// Most calls snapshotted per test while learning, and when checking a goal's test.
const PER_TEST: u32 = 2;
/// While learning, the search's first 20 batches of tests are snapshotted, then one batch in
/// eight (see [`SnapshotSampling`]).
const SAMPLING: SnapshotSampling = SnapshotSampling { full: 20, every: 8 };
const PER_CHECKED_TEST: u32 = 32;

#[derive(Debug, Clone)]
struct Entry {
    support: u64,
    learned_at_s: f64,
    explorations: u32,
    uses: u64,
    retracted: Option<String>,
}

/// The symbolic strategy's learned invariants.
pub struct LearnedInvariants {
    learner: Learner,
    spec: SnapshotSpec,
    entries: BTreeMap<Invariant, Entry>,
    /// In the order learned.
    order: Vec<Invariant>,
    /// Tests of reached goals to check.
    pending: Vec<(GoalId, TestCase)>,
    goal_checks: u64,
    snapshots_on: bool,
    started: Instant,
}

/// Snapshots at calls of the class's methods, reading the objects of its package.
pub fn snapshot_spec(plan: &ClassPlan) -> SnapshotSpec {
    let class = &plan.class;
    let members = plan
        .model
        .targets
        .iter()
        .filter(|t| t.kind == CallableKind::Method && t.member.owner == *class)
        .map(|t| t.member.clone())
        .collect();
    let binary = class.binary();
    let package = binary.rsplit_once('.').map_or("", |(p, _)| p).to_string();
    SnapshotSpec {
        members,
        packages: vec![package],
        max_objects: 64,
        max_depth: 40,
        max_per_test: PER_TEST,
    }
}

impl LearnedInvariants {
    /// Learning from snapshots as `spec` asks for them (see [`snapshot_spec`]).
    pub fn new(spec: SnapshotSpec) -> LearnedInvariants {
        LearnedInvariants {
            learner: Learner::new(LearnConfig::default(), spec.packages.clone()),
            spec,
            entries: BTreeMap::new(),
            order: Vec::new(),
            pending: Vec::new(),
            goal_checks: 0,
            snapshots_on: false,
            started: Instant::now(),
        }
    }

    /// Asks the workers for snapshots while the strategy is `active` and the learner wants
    /// more.
    pub fn update_goals(&mut self, goals: &mut Goals, active: bool) {
        let want =
            active && self.learner.snapshots() < MAX_SNAPSHOTS && !self.spec.members.is_empty();
        if want != self.snapshots_on {
            self.snapshots_on = want;
            goals.set_snapshot(want.then(|| self.spec.clone()));
            goals.set_snapshot_sampling(SAMPLING);
        }
    }

    /// Takes the snapshots the executions brought, and checks the tests of reached goals.
    pub fn step(&mut self, arena: &mut Arena<'_>) {
        let snapshots = std::mem::take(&mut arena.archive.snapshots);
        self.absorb(&snapshots);
        if self.pending.is_empty() {
            return;
        }
        let spec = ObservationSpec {
            snapshot: Some(SnapshotSpec {
                max_per_test: PER_CHECKED_TEST,
                ..self.spec.clone()
            }),
            ..ObservationSpec::default()
        };
        let pending = std::mem::take(&mut self.pending);
        let tests: Vec<TestCase> = pending.iter().map(|(_, t)| t.clone()).collect();
        arena.executor.set_observation(&spec);
        let runs = arena.executor.execute(&tests);
        arena.archive.executions += runs.len() as u64;
        for ((goal, _), run) in pending.iter().zip(runs) {
            self.goal_checks += 1;
            self.check(*goal, &run.snapshots);
            // Then they are observations like any other.
            for s in &run.snapshots {
                self.learner.absorb(s);
            }
        }
    }

    fn absorb(&mut self, snapshots: &[HeapSnapshot]) {
        for s in snapshots {
            self.learner.absorb(s);
        }
        if snapshots.is_empty() {
            return;
        }
        // What later snapshots contradict is retracted.
        for (inv, e) in self.entries.iter_mut() {
            if e.retracted.is_none() && self.learner.contradicts(inv) {
                info!(invariant = %inv, "learned invariant retracted: a later snapshot contradicts it");
                e.retracted = Some("a later snapshot contradicts it".into());
            }
        }
    }

    /// A path-condition goal was reached by `test`: its objects are checked at the next step.
    pub fn goal_reached(&mut self, goal: GoalId, test: &TestCase) {
        self.pending.push((goal, test.clone()));
    }

    /// Retracts the invariants the snapshots of goal `goal`'s test contradict.
    fn check(&mut self, goal: GoalId, snapshots: &[HeapSnapshot]) {
        let active: Vec<Invariant> = self
            .entries
            .iter()
            .filter(|(_, e)| e.retracted.is_none())
            .map(|(i, _)| i.clone())
            .collect();
        for s in snapshots {
            for n in self.learner.contradicted(&active, s) {
                if let Some(e) = self.entries.get_mut(&active[n]) {
                    if e.retracted.is_none() {
                        info!(invariant = %active[n], goal = goal.0, "learned invariant retracted: the test that reached a path-condition goal contradicts it");
                        e.retracted = Some(format!(
                            "the test that reached path-condition goal {} contradicts it",
                            goal.0
                        ));
                    }
                }
            }
        }
    }

    /// The invariants an exploration starting now assumes: those learned and not retracted.
    pub fn current(&mut self) -> Invariants {
        let at = self.started.elapsed().as_secs_f64();
        let mut out = Invariants::default();
        for (inv, support) in self.learner.infer() {
            if !self.entries.contains_key(&inv) {
                self.order.push(inv.clone());
            }
            let e = self.entries.entry(inv.clone()).or_insert(Entry {
                support,
                learned_at_s: at,
                explorations: 0,
                uses: 0,
                retracted: None,
            });
            e.support = support;
            if e.retracted.is_none() {
                e.explorations += 1;
                out.push(inv);
            }
        }
        debug!(
            invariants = out.len(),
            snapshots = self.learner.snapshots(),
            "learned invariants for an exploration"
        );
        out
    }

    /// The invariants the explorations assume now, without starting one: those learned and
    /// not retracted.
    pub fn assumed(&self) -> Invariants {
        Invariants::from_items(
            self.order
                .iter()
                .filter(|inv| {
                    self.entries
                        .get(*inv)
                        .is_some_and(|e| e.retracted.is_none())
                })
                .cloned(),
        )
    }

    /// How many retracted invariants pruned an exploration (were used by one): the paths of
    /// those explorations are missing what the invariant wrongly ruled out.
    pub fn retracted_used(&self) -> usize {
        self.entries
            .values()
            .filter(|e| e.retracted.is_some() && e.uses > 0)
            .count()
    }

    /// Counts the uses an exploration reported (invariants as the file spells them).
    pub fn note_uses(&mut self, uses: &[(String, u64)]) {
        for (text, n) in uses {
            let Ok(inv) = Invariant::parse(text) else {
                continue;
            };
            if let Some(e) = self.entries.get_mut(&inv) {
                e.uses += n;
            }
        }
    }

    /// Every invariant learned: those explorations assumed, in the order learned, then those
    /// learned since the last exploration.
    pub fn report(&self) -> LearnedInvariantsReport {
        let mut invariants: Vec<LearnedInvariantRow> = self
            .order
            .iter()
            .filter_map(|inv| {
                let e = self.entries.get(inv)?;
                Some(LearnedInvariantRow {
                    invariant: inv.to_string(),
                    support: e.support,
                    learned_at_s: e.learned_at_s,
                    explorations: e.explorations,
                    uses: e.uses,
                    retracted: e.retracted.clone(),
                })
            })
            .collect();
        let now = self.started.elapsed().as_secs_f64();
        for (inv, support) in self.learner.infer() {
            if !self.entries.contains_key(&inv) {
                invariants.push(LearnedInvariantRow {
                    invariant: inv.to_string(),
                    support,
                    learned_at_s: now,
                    explorations: 0,
                    uses: 0,
                    retracted: None,
                });
            }
        }
        LearnedInvariantsReport {
            snapshots: self.learner.snapshots(),
            goal_checks: self.goal_checks,
            learned: invariants.len(),
            used: invariants.iter().filter(|r| r.uses > 0).count(),
            retracted: invariants.iter().filter(|r| r.retracted.is_some()).count(),
            invariants,
        }
    }

    /// The invariants file of what holds at the end of the run (learned from every snapshot
    /// seen, none retracted), each line with its support as a comment.
    pub fn file_text(&self) -> String {
        let mut out = format!(
            "# Heap invariants learned by rivet generate from {} snapshots of real objects;\n\
             # hypotheses, for rivet explore --invariants.\n",
            self.learner.snapshots()
        );
        for (inv, support) in self.learner.infer() {
            let retracted = self
                .entries
                .get(&inv)
                .is_some_and(|e| e.retracted.is_some());
            if !retracted {
                out.push_str(&format!("{inv}  # {support} observations\n"));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rivet_search::Archive;
    use rivet_testcase::{Execution, ExecutionStatus, Executor, MemberRef, ObservedValue};

    use super::*;
    use crate::learn::tests::{list, lists};

    /// Returns the same snapshots for every test, and remembers what it was asked to observe.
    struct Replay {
        snapshots: Vec<HeapSnapshot>,
        specs: Vec<ObservationSpec>,
    }

    impl Executor for Replay {
        fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
            tests
                .iter()
                .map(|_| {
                    let mut e = Execution::without_result(
                        ExecutionStatus::Completed,
                        0,
                        Duration::ZERO,
                        None,
                    );
                    e.snapshots = self.snapshots.clone();
                    e
                })
                .collect()
        }

        fn set_observation(&mut self, spec: &ObservationSpec) {
            self.specs.push(spec.clone());
        }
    }

    fn spec() -> SnapshotSpec {
        SnapshotSpec {
            members: vec![MemberRef::new(
                "structures/NodeCachingList",
                "removeAt",
                "(I)I",
            )],
            packages: vec!["structures".into()],
            max_objects: 64,
            max_depth: 40,
            max_per_test: PER_TEST,
        }
    }

    const COUNT: &str = "count structures.NodeCachingList.size header next* -1";

    #[test]
    fn learned_invariants_are_assumed_until_a_reached_goal_contradicts_them() {
        let mut l = LearnedInvariants::new(spec());
        let mut goals = Goals::default();
        l.update_goals(&mut goals, true);
        assert_eq!(goals.observation().snapshot, Some(spec()));
        let mut archive = Archive {
            snapshots: lists(),
            ..Archive::default()
        };
        // A list whose size is not its node count.
        let mut wrong = list(&[4, 5], 0);
        let rid = wrong
            .receiver
            .as_ref()
            .and_then(|r| wrong.object(r))
            .map(|(id, _)| id)
            .unwrap_or_default();
        if let Some(vs) = wrong.objects.get_mut(&rid).and_then(|o| o.values.as_mut()) {
            vs[1] = ObservedValue::Int(9);
        }
        let mut executor = Replay {
            snapshots: vec![wrong],
            specs: Vec::new(),
        };
        {
            let mut arena = Arena {
                goals: &goals,
                archive: &mut archive,
                executor: &mut executor,
                api: None,
            };
            l.step(&mut arena);
        }
        assert!(archive.snapshots.is_empty(), "the snapshots were taken");
        let assumed = l.current();
        let count = Invariant::parse(COUNT).unwrap_or_else(|e| panic!("{e}"));
        assert!(assumed.items().contains(&count), "{}", assumed.to_text());
        l.note_uses(&[(COUNT.to_string(), 5)]);
        assert_eq!(l.retracted_used(), 0);

        l.goal_reached(GoalId(7), &TestCase::new());
        {
            let mut arena = Arena {
                goals: &goals,
                archive: &mut archive,
                executor: &mut executor,
                api: None,
            };
            l.step(&mut arena);
        }
        // The goal's test ran once more with a snapshot at many of its calls.
        let checked = executor.specs.last().and_then(|s| s.snapshot.clone());
        assert_eq!(checked.map(|s| s.max_per_test), Some(PER_CHECKED_TEST));
        assert!(!l.current().items().contains(&count));
        // It had pruned an exploration: the strategy explores again.
        assert_eq!(l.retracted_used(), 1);
        let report = l.report();
        let row = report
            .invariants
            .iter()
            .find(|r| r.invariant == COUNT)
            .unwrap_or_else(|| panic!("{report:?}"));
        assert_eq!(row.uses, 5);
        assert_eq!(row.explorations, 1);
        assert!(row
            .retracted
            .as_deref()
            .is_some_and(|r| r.contains("goal 7")));
        assert_eq!(report.goal_checks, 1);
        assert_eq!(report.used, 1);
        assert!(report.retracted >= 1);
        // The artifacts' file parses, without what was retracted.
        let file = Invariants::parse(&l.file_text()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!file.items().contains(&count));
        assert!(file.items().contains(
            &Invariant::parse("range structures.NodeCachingList.size 0..")
                .unwrap_or_else(|e| panic!("{e}"))
        ));
        l.update_goals(&mut goals, false);
        assert_eq!(goals.observation().snapshot, None);
    }
}
