//! The driver on fake strategies and a fake executor: turns, credit, failures, the schedule.
use std::sync::Arc;

use rivet_search::{BranchObjective, Goal};
use rivet_testcase::{ExecutionStatus, GoalId, ProbeId, TypedTest};

use super::*;

/// Covers every probe a test names as an int statement; a test naming a negative one runs out
/// of time.
struct FakeExecutor;

impl Executor for FakeExecutor {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
        tests
            .iter()
            .map(|t| {
                let mut covered: Vec<ProbeId> = t
                    .statements
                    .iter()
                    .filter_map(|s| match s {
                        rivet_testcase::Statement::Primitive(
                            rivet_testcase::PrimitiveValue::Int(p),
                        ) => Some(ProbeId(*p as u32)),
                        _ => None,
                    })
                    .collect();
                covered.sort();
                let loops = t.statements.iter().any(|s| {
                    matches!(
                        s,
                        rivet_testcase::Statement::Primitive(rivet_testcase::PrimitiveValue::Int(
                            p
                        )) if *p < 0
                    )
                });
                if loops {
                    return Execution::without_result(
                        ExecutionStatus::TimedOut,
                        t.statements.len(),
                        Duration::ZERO,
                        None,
                    );
                }
                Execution {
                    status: ExecutionStatus::Completed,
                    outcomes: vec![rivet_testcase::StatementOutcome::NotRun; t.statements.len()],
                    distances: covered.iter().map(|p| (*p, 0.0)).collect(),
                    hits: Vec::new(),
                    seeds: Vec::new(),
                    covered,
                    duration: Duration::ZERO,
                    worker: None,
                    stray_threads: 0,
                    observations: Vec::new(),
                    snapshots: Vec::new(),
                }
            })
            .collect()
    }
}

/// Covers probe `next` and then `next + 1`… one per step, `runs` tests per step, until
/// `last`.
struct Counter {
    name: &'static str,
    next: i32,
    last: i32,
    runs: usize,
    log: Vec<&'static str>,
    /// Offers a test after each step.
    offering: bool,
    offered: Vec<TypedTest>,
    /// Tests handed in by the others.
    received: usize,
    /// Panics at the step that would cover this probe.
    panics_at: Option<i32>,
    /// Sleeps this long in every step (a strategy that does not yield).
    stalls: Duration,
}

impl Strategy for Counter {
    fn name(&self) -> &'static str {
        self.name
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        self.log.push(self.name);
        if self.panics_at == Some(self.next) {
            panic!("boom at probe {}", self.next);
        }
        std::thread::sleep(self.stalls);
        let mut t = TypedTest::new();
        t.push(
            rivet_testcase::Statement::Primitive(rivet_testcase::PrimitiveValue::Int(self.next)),
            None,
        );
        arena.evaluate(&vec![t.clone(); self.runs]);
        if self.offering {
            self.offered.push(t);
        }
        self.next += 1;
        if self.next > self.last {
            StepOutcome::Done
        } else {
            StepOutcome::Worked
        }
    }

    fn offers(&mut self) -> Vec<TypedTest> {
        std::mem::take(&mut self.offered)
    }

    fn seed(&mut self, tests: &[TypedTest]) {
        self.received += tests.len();
    }
}

fn goals(n: u32) -> Goals {
    Goals::new(
        (0..n)
            .map(|i| Goal {
                id: GoalId(i),
                objective: Arc::new(BranchObjective::new(ProbeId(i))),
                controlling: Vec::new(),
                method: "C.m".into(),
                line: None,
                what: "true".into(),
            })
            .collect(),
    )
}

fn counter(name: &'static str, next: i32, last: i32) -> Counter {
    Counter {
        name,
        next,
        last,
        runs: 2,
        log: Vec::new(),
        offering: false,
        offered: Vec::new(),
        received: 0,
        panics_at: None,
        stalls: Duration::ZERO,
    }
}

fn budget() -> Budget {
    Budget::new(Duration::from_secs(30), None)
}

/// Drives `strategies` within the default budget, ignoring progress.
fn run(
    strategies: &mut [&mut dyn Strategy],
    goals: &mut Goals,
    archive: &mut Archive,
) -> DriveResult {
    drive(
        strategies,
        goals,
        archive,
        &mut FakeExecutor,
        budget(),
        &mut |_| {},
        DriveOptions::default(),
    )
}

#[test]
fn strategies_take_turns_and_share_one_archive_until_all_is_covered() {
    let mut goals = goals(4);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 1);
    let mut b = counter("b", 2, 3);
    let mut seen = Vec::new();
    let result = drive(
        &mut [&mut a, &mut b],
        &mut goals,
        &mut archive,
        &mut FakeExecutor,
        budget(),
        &mut |p| seen.push((p.strategy, p.branches_covered)),
        DriveOptions::default(),
    );
    assert_eq!(seen, vec![("a", 1), ("b", 2), ("a", 3), ("b", 4)]);
    assert_eq!(archive.covered().len(), 4);
    assert_eq!(result.steps, 4);
    assert_eq!(result.executions, 8);
}

#[test]
fn each_strategy_is_credited_with_the_goals_it_covered_first_and_their_tests() {
    let mut goals = goals(5);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 2);
    // b covers what a covers in the same turn order, one behind: nothing first but 4.
    let mut b = counter("b", 0, 4);
    b.runs = 1;
    let result = run(&mut [&mut a, &mut b], &mut goals, &mut archive);
    let value = |name| result.values.iter().find(|v| v.strategy == name).cloned();
    let a = value("a").expect("a's value");
    let b = value("b").expect("b's value");
    assert_eq!(
        (a.turns, a.first_covered, a.first_covered_branches),
        (3, 3, 3)
    );
    assert_eq!((b.turns, b.first_covered), (5, 2));
    assert_eq!(archive.origins.get(&GoalId(0)), Some(&"a"));
    assert_eq!(archive.origins.get(&GoalId(4)), Some(&"b"));
    assert_eq!(archive.origin, "", "no strategy's turn after the drive");
}

#[test]
fn each_strategy_is_charged_with_the_tests_of_its_turns_that_ran_out_of_time() {
    let mut goals = goals(3);
    let mut archive = Archive::default();
    // Turns: a, slow, a, slow, a (every goal covered).
    let mut a = counter("a", 0, 2);
    let mut slow = counter("slow", -2, -1);
    let result = run(&mut [&mut a, &mut slow], &mut goals, &mut archive);
    let value = |name| result.values.iter().find(|v| v.strategy == name).cloned();
    let (a, slow) = (value("a").expect("a"), value("slow").expect("slow"));
    assert_eq!((a.executions, a.timed_out), (6, 0));
    assert_eq!((slow.executions, slow.timed_out), (4, 4));
    assert_eq!(
        slow.first_covered, 0,
        "a test that timed out covers nothing"
    );
}

/// Met when probe `0` fires, without being a branch (a stand-in for a PC goal).
#[derive(Debug)]
struct Needs(ProbeId);

impl rivet_search::Objective for Needs {
    fn fitness(&self, _test: &TestCase, execution: &Execution) -> f64 {
        if execution.covered.contains(&self.0) {
            0.0
        } else {
            1.0
        }
    }
}

/// Adds one `Needs` goal in its first turn and is then done.
struct Guide;

impl Strategy for Guide {
    fn name(&self) -> &'static str {
        "guide"
    }

    fn update_goals(&mut self, goals: &mut Goals, _archive: &Archive) {
        goals.add(
            Arc::new(Needs(ProbeId(2))),
            "C.m".into(),
            None,
            "a path".into(),
        );
    }

    fn step(&mut self, _arena: &mut Arena<'_>) -> StepOutcome {
        StepOutcome::Done
    }
}

#[test]
fn a_test_that_meets_a_goal_a_strategy_added_is_credited_to_that_strategy() {
    let mut goals = goals(4);
    let mut archive = Archive::default();
    let mut guide = Guide;
    let mut a = counter("a", 0, 3);
    let result = run(&mut [&mut guide, &mut a], &mut goals, &mut archive);
    let value = |name| result.values.iter().find(|v| v.strategy == name).cloned();
    let guide = value("guide").expect("the guide's value");
    let a = value("a").expect("a's value");
    // a's test of probe 2 meets the guide's goal (4): it and branch 2 are the guide's.
    assert_eq!((guide.first_covered, guide.first_covered_branches), (2, 1));
    assert_eq!((a.first_covered, a.first_covered_branches), (3, 3));
    assert_eq!(archive.origins.get(&GoalId(2)), Some(&"guide"));
    assert_eq!(archive.origins.get(&GoalId(4)), Some(&"guide"));
    assert_eq!(archive.origins.get(&GoalId(3)), Some(&"a"));
}

#[test]
fn the_strategy_that_covers_goals_gets_more_turns_and_the_other_keeps_some() {
    let mut goals = goals(300);
    let mut archive = Archive::default();
    // a covers a new goal every turn; b's probes are no goal's.
    let mut a = counter("a", 0, 299);
    let mut b = counter("b", 1_000, 5_000);
    (a.runs, b.runs) = (1, 1);
    let result = drive(
        &mut [&mut a, &mut b],
        &mut goals,
        &mut archive,
        &mut FakeExecutor,
        Budget::new(Duration::from_secs(30), Some(200)),
        &mut |_| {},
        DriveOptions::default(),
    );
    let turns = |name| {
        result
            .values
            .iter()
            .find(|v| v.strategy == name)
            .map_or(0, |v| v.turns)
    };
    // b keeps its prior half until it has spent a quarter of the whole, then its floor.
    assert!(turns("a") > 2 * turns("b"), "{:?}", result.values);
    assert!(
        turns("b") >= 5,
        "asked less often, not never: {:?}",
        result.values
    );
}

#[test]
fn a_done_strategy_gets_no_more_turns() {
    let mut goals = goals(6);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 0);
    let mut b = counter("b", 1, 5);
    run(&mut [&mut a, &mut b], &mut goals, &mut archive);
    assert_eq!(a.log.len(), 1);
    assert_eq!(b.log.len(), 5);
    assert_eq!(archive.covered().len(), 6);
}

#[test]
fn the_execution_cap_stops_the_run() {
    let mut goals = goals(10);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 9);
    let result = drive(
        &mut [&mut a],
        &mut goals,
        &mut archive,
        &mut FakeExecutor,
        Budget::new(Duration::from_secs(30), Some(5)),
        &mut |_| {},
        DriveOptions::default(),
    );
    assert_eq!(
        result.executions, 6,
        "stops after the step that reaches the cap"
    );
    assert_eq!(archive.covered().len(), 3);
}

#[test]
fn retired_goals_need_no_cover() {
    let mut goals = goals(3);
    goals.retire(GoalId(2));
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 9);
    run(&mut [&mut a], &mut goals, &mut archive);
    assert_eq!(a.log.len(), 2);
}

#[test]
fn what_a_strategy_offers_goes_to_the_others() {
    let mut goals = goals(8);
    let mut archive = Archive::default();
    // a covers nothing new after its first step but offers a test each step.
    let mut a = counter("a", 0, 2);
    a.offering = true;
    a.runs = 1;
    let mut b = counter("b", 0, 2);
    b.runs = 1;
    run(&mut [&mut a, &mut b], &mut goals, &mut archive);
    // b gets a's three offers and a's first arrivals (probes 0, 1, 2); a gets none of
    // its own, and none from b, which only covers what a covered first.
    assert_eq!(b.received, 6);
    assert_eq!(a.received, 0);
}

#[test]
fn a_strategy_that_panics_is_stopped_and_the_others_keep_their_tests() {
    let mut goals = goals(6);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 5);
    a.panics_at = Some(1);
    let mut b = counter("b", 3, 5);
    let result = run(&mut [&mut a, &mut b], &mut goals, &mut archive);
    assert_eq!(a.log.len(), 2, "no turn after the panic");
    assert_eq!(b.log.len(), 3);
    let covered: Vec<GoalId> = archive.covered().into_iter().collect();
    assert_eq!(covered, [0, 3, 4, 5].map(GoalId));
    assert_eq!(
        result.failures,
        vec![StrategyFailure {
            strategy: "a",
            message: "boom at probe 1".into()
        }]
    );
}

#[test]
fn a_strategy_whose_turn_overruns_the_time_is_stopped_and_reported() {
    let mut goals = goals(6);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 5);
    let mut b = counter("b", 3, 5);
    b.stalls = Duration::from_millis(1_300);
    let short = Budget::new(Duration::from_millis(100), None);
    let result = drive(
        &mut [&mut a, &mut b],
        &mut goals,
        &mut archive,
        &mut FakeExecutor,
        short,
        &mut |_| {},
        DriveOptions::default(),
    );
    assert_eq!(b.log.len(), 1, "no turn after the overrun");
    let covered: Vec<GoalId> = archive.covered().into_iter().collect();
    // What `a` found is kept; the test `b` asked to run after the strategies' time (and
    // grace) was not run.
    assert_eq!(covered, [GoalId(0)]);
    assert_eq!(result.failures.len(), 1, "{:?}", result.failures);
    assert_eq!(result.failures[0].strategy, "b");
    assert!(
        result.failures[0]
            .message
            .starts_with("did not yield in time: a turn took 1."),
        "{}",
        result.failures[0].message
    );
}

#[test]
fn a_strategy_stuck_in_one_call_is_left_behind_with_the_tests_found_before_it() {
    use crate::watch::{watched, Message};
    let result = watched(
        Duration::from_millis(100),
        |watch, tx| {
            let mut goals = goals(6);
            let mut archive = Archive::default();
            let mut a = counter("a", 0, 5);
            let mut b = counter("b", 3, 5);
            // b never yields: the driver's own check never gets its turn back.
            b.stalls = Duration::from_secs(3600);
            let driven = drive(
                &mut [&mut a, &mut b],
                &mut goals,
                &mut archive,
                &mut FakeExecutor,
                Budget::new(Duration::from_millis(100), None),
                &mut |_| {},
                DriveOptions {
                    watch: Some(watch),
                    api: None,
                },
            );
            let _ = tx.send(Message::Done(Box::new(driven)));
        },
        &mut |_| {},
    );
    let abandoned = result.expect_err("the stuck turn is not waited for");
    assert_eq!(abandoned.failure.strategy, "b");
    assert!(
        abandoned.failure.message.starts_with("did not yield"),
        "{}",
        abandoned.failure.message
    );
    // What `a` covered in its turn before is kept.
    let kept: Vec<GoalId> = abandoned.archive.entries.keys().copied().collect();
    assert_eq!(kept, [GoalId(0)]);
    assert_eq!(abandoned.steps, 1);
}

/// A counter whose work is elsewhere (busy) for its first `busy` looks.
struct Away {
    inner: Counter,
    busy: std::cell::Cell<u32>,
}

impl Strategy for Away {
    fn name(&self) -> &'static str {
        self.inner.name
    }

    fn busy_elsewhere(&self) -> bool {
        let left = self.busy.get();
        self.busy.set(left.saturating_sub(1));
        left > 0
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        self.inner.step(arena)
    }
}

#[test]
fn a_strategy_busy_elsewhere_takes_no_turn_until_it_is_back() {
    let mut goals = goals(8);
    let mut archive = Archive::default();
    let mut a = counter("a", 0, 5);
    let mut b = Away {
        inner: counter("b", 6, 7),
        busy: std::cell::Cell::new(3),
    };
    let mut seen = Vec::new();
    drive(
        &mut [&mut b, &mut a],
        &mut goals,
        &mut archive,
        &mut FakeExecutor,
        budget(),
        &mut |p| seen.push(p.strategy),
        DriveOptions::default(),
    );
    // `b` comes first on a tie, but is away for the first three turns.
    assert_eq!(&seen[..3], &["a", "a", "a"], "{seen:?}");
    assert_eq!(seen[3], "b", "{seen:?}");
    assert_eq!(b.inner.log.len(), 2);
    assert_eq!(archive.covered().len(), 8);
}

#[test]
fn when_every_strategy_is_busy_elsewhere_the_driver_waits_for_one() {
    let mut goals = goals(2);
    let mut archive = Archive::default();
    let mut b = Away {
        inner: counter("b", 0, 1),
        busy: std::cell::Cell::new(4),
    };
    let result = run(&mut [&mut b], &mut goals, &mut archive);
    assert_eq!(result.steps, 2, "no step while away, then its two");
    assert_eq!(archive.covered().len(), 2);
}
