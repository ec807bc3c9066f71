//! The driver: gives the strategies turns on the run's shared goals and archive within a
//! budget, stops one that panics or overruns, and credits each technique with what it took
//! and brought.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use rivet_search::{Archive, Arena, Goals};
use rivet_testcase::{Execution, Executor, ObservationSpec, TestCase};

use crate::strategy::{StepOutcome, Strategy};
use crate::watch::Watch;

/// When the strategies stop.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub time: Duration,
    pub max_executions: Option<u64>,
}

/// How far the strategies have come, reported after every step.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveProgress {
    /// The strategy that just stepped.
    pub strategy: &'static str,
    /// What the run is doing (`searching`, `exploring Sample.sample`, `PC goals 2/5`).
    pub phase: String,
    /// Covered branch goals.
    pub branches_covered: usize,
    pub executions: u64,
    pub elapsed: Duration,
}

/// What the strategies did.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveResult {
    pub executions: u64,
    pub steps: u64,
    pub elapsed: Duration,
    /// Strategies stopped by a panic (a bug in Rivet): the others went on, and the tests
    /// found so far are kept.
    pub failures: Vec<StrategyFailure>,
    /// What each strategy took and brought, in turn order.
    pub values: Vec<StrategyValue>,
}

/// What one technique took and brought in a drive. A technique is a strategy, or a part of
/// one that labels its tests apart (the concolic strategy's adaptive DSE steps, whose turns
/// and time stay the strategy's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrategyValue {
    pub strategy: &'static str,
    pub turns: u64,
    /// The wall-clock time of its turns (the workers' time running its tests included).
    pub time: Duration,
    /// Goals whose first test is credited to it (`Archive::origins`: the technique whose goal
    /// guided the test, else the one whose turn ran it): no other had covered them then.
    pub first_covered: usize,
    /// Of those, branch goals.
    pub first_covered_branches: usize,
}

/// A strategy that panicked, or overran the strategies' time, and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyFailure {
    pub strategy: &'static str,
    pub message: String,
}

/// How long a turn may run past the strategies' time (or past its own start, when it starts
/// later) before the driver stops giving its strategy turns: a twentieth of the time, at
/// least a second.
pub fn overrun_grace(budget: Duration) -> Duration {
    (budget / 20).max(Duration::from_secs(1))
}

impl StrategyFailure {
    /// A turn that ended `past` after the strategies' time (plus grace) ran out, doing
    /// `phase` when it began.
    fn overran(strategy: &'static str, took: Duration, past: Duration, phase: &str) -> Self {
        let message = format!(
            "did not yield in time: a turn took {:.1} s and ended {:.1} s after the strategies' time (while {phase}); stopped",
            took.as_secs_f64(),
            past.as_secs_f64()
        );
        tracing::warn!(
            strategy,
            message,
            "a strategy overran its turn and was stopped"
        );
        StrategyFailure { strategy, message }
    }

    fn new(strategy: &'static str, payload: &(dyn std::any::Any + Send)) -> StrategyFailure {
        let message = payload
            .downcast_ref::<&str>()
            .map(|m| m.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        tracing::warn!(strategy, message, "a strategy panicked and was stopped");
        StrategyFailure { strategy, message }
    }
}

/// The fewest tests run between two looks at the clock.
const CHUNK: usize = 4;

/// An executor that counts the tests it runs and runs none past `stop` (the strategies' time
/// plus the overrun grace): a batch of tests that all run into their time limit (a class whose
/// every call loops) cannot hold a turn far past it. A batch runs in chunks sized so that a
/// chunk takes at most half the time left at the recent time per test (so fast tests still
/// run in large batches); tests not run are `Rejected`.
struct Counted<'a> {
    inner: &'a mut dyn Executor,
    count: u64,
    stop: Instant,
    /// Recent wall-clock time per test (zero before the first chunk).
    per_test: Duration,
}

impl Counted<'_> {
    /// How many of `left_tests` to run next.
    fn chunk(&self, now: Instant, left_tests: usize) -> usize {
        if self.per_test.is_zero() {
            return CHUNK.min(left_tests);
        }
        let left = self.stop.saturating_duration_since(now).as_secs_f64();
        let fit = (left / self.per_test.as_secs_f64() / 2.0) as usize;
        fit.clamp(CHUNK.min(left_tests), left_tests)
    }
}

impl Executor for Counted<'_> {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
        let mut out = Vec::with_capacity(tests.len());
        let mut i = 0;
        while i < tests.len() {
            let now = Instant::now();
            if now >= self.stop {
                out.extend(tests[i..].iter().map(|t| {
                    Execution::without_result(
                        rivet_testcase::ExecutionStatus::Rejected {
                            reason: "the strategies' time is up".into(),
                        },
                        t.len(),
                        Duration::ZERO,
                        None,
                    )
                }));
                break;
            }
            let n = self.chunk(now, tests.len() - i);
            out.extend(self.inner.execute(&tests[i..i + n]));
            let per = now.elapsed() / n as u32;
            self.per_test = if self.per_test.is_zero() {
                per
            } else {
                (self.per_test * 3 + per) / 4
            };
            self.count += n as u64;
            i += n;
        }
        out
    }

    fn set_observation(&mut self, spec: &ObservationSpec) {
        self.inner.set_observation(spec);
    }
}

/// Credits each goal covered for the first time in a turn to the technique its test is
/// credited to (a row is added for a technique that is not a strategy).
fn credit_first_covered(
    values: &mut Vec<StrategyValue>,
    covered_before: &std::collections::BTreeSet<rivet_testcase::GoalId>,
    archive: &Archive,
    branch_goals: &std::collections::BTreeSet<rivet_testcase::GoalId>,
) {
    for g in archive.entries.keys() {
        if covered_before.contains(g) {
            continue;
        }
        let origin = archive.origins.get(g).copied().unwrap_or(archive.origin);
        let k = match values.iter().position(|v| v.strategy == origin) {
            Some(k) => k,
            None => {
                values.push(StrategyValue {
                    strategy: origin,
                    ..StrategyValue::default()
                });
                values.len() - 1
            }
        };
        values[k].first_covered += 1;
        values[k].first_covered_branches += usize::from(branch_goals.contains(g));
    }
}

/// Gives the strategies turns in order, a step each, until the budget is spent, every active
/// goal is covered, or every strategy is done. A strategy that panics is stopped (and not
/// closed) and the others go on: one strategy's bug must not cost the run the tests it has.
pub fn drive(
    strategies: &mut [&mut dyn Strategy],
    goals: &mut Goals,
    archive: &mut Archive,
    executor: &mut dyn Executor,
    budget: Budget,
    progress: &mut dyn FnMut(DriveProgress),
    watch: Option<&Watch>,
) -> DriveResult {
    let start = Instant::now();
    let mut counted = Counted {
        inner: executor,
        count: 0,
        stop: start + budget.time + overrun_grace(budget.time),
        per_test: Duration::ZERO,
    };
    let mut done = vec![false; strategies.len()];
    let mut failed = vec![false; strategies.len()];
    let mut values: Vec<StrategyValue> = strategies
        .iter()
        .map(|s| StrategyValue {
            strategy: s.name(),
            ..StrategyValue::default()
        })
        .collect();
    let branch_goals: std::collections::BTreeSet<rivet_testcase::GoalId> = goals
        .iter()
        .filter(|g| g.is_branch())
        .map(|g| g.id)
        .collect();
    let mut failures = Vec::new();
    let mut steps = 0u64;
    let mut turn = 0usize;
    while !done.iter().all(|d| *d) {
        let i = turn % strategies.len();
        turn += 1;
        if done[i] {
            continue;
        }
        let strategy = &mut *strategies[i];
        let name = strategy.name();
        let (turn_start, phase_before) = (start.elapsed(), strategy.phase());
        if let Some(w) = watch {
            w.begin(
                name,
                phase_before.clone().unwrap_or_else(|| "searching".into()),
            );
        }
        let covered_before: std::collections::BTreeSet<rivet_testcase::GoalId> =
            archive.entries.keys().copied().collect();
        let goals_before = goals.len();
        archive.origin = name;
        let updated = catch_unwind(AssertUnwindSafe(|| strategy.update_goals(goals, archive)));
        let mut arena = Arena {
            goals,
            archive,
            executor: &mut counted,
        };
        let stepped =
            updated.and_then(|()| catch_unwind(AssertUnwindSafe(|| strategy.step(&mut arena))));
        match stepped {
            Ok(StepOutcome::Done) => done[i] = true,
            Ok(StepOutcome::Worked) => {}
            Err(payload) => {
                failures.push(StrategyFailure::new(name, payload.as_ref()));
                done[i] = true;
                failed[i] = true;
            }
        }
        steps += 1;
        values[i].turns += 1;
        values[i].time += start.elapsed().saturating_sub(turn_start);
        // Goals the strategy added guide the tests that cover them (SUSHI's PC goals).
        for g in goals_before..arena.goals.len() {
            let id = rivet_testcase::GoalId(g as u32);
            if !arena.goals.get(id).is_some_and(|g| g.is_branch()) {
                arena.archive.guides.insert(id, name);
            }
        }
        credit_first_covered(&mut values, &covered_before, arena.archive, &branch_goals);
        // A turn may not run far past the strategies' time: a strategy whose turn did is
        // stopped (its tests so far are kept), so that a second overrun cannot follow.
        let limit = turn_start.max(budget.time) + overrun_grace(budget.time);
        let turn_end = start.elapsed();
        if !failed[i] && turn_end > limit {
            let phase = phase_before.unwrap_or_else(|| "searching".into());
            let past = turn_end.saturating_sub(budget.time);
            let took = turn_end.saturating_sub(turn_start);
            failures.push(StrategyFailure::overran(name, took, past, &phase));
            done[i] = true;
            failed[i] = true;
        }
        // What this strategy covered first, and what it offers, goes to the others (the
        // search builds on it).
        let mut arrivals = std::mem::take(&mut arena.archive.arrivals);
        if let Some(w) = watch {
            let executions = arena.archive.executions;
            w.end(arena.archive, !arrivals.is_empty(), (executions, steps));
        }
        if !failed[i] {
            arrivals.extend(strategy.offers());
        }
        if !arrivals.is_empty() {
            for (j, other) in strategies.iter_mut().enumerate() {
                if j != i {
                    other.seed(&arrivals);
                }
            }
        }
        let all_covered = arena.all_covered()
            && strategies
                .iter()
                .zip(&done)
                .all(|(s, d)| *d || !s.pending());
        let phase = strategies
            .iter()
            .zip(&failed)
            .find_map(|(s, f)| if *f { None } else { s.phase() })
            .unwrap_or_else(|| "searching".into());
        progress(DriveProgress {
            strategy: name,
            phase,
            branches_covered: goals
                .iter()
                .filter(|g| g.is_branch() && archive.is_covered(g.id))
                .count(),
            executions: counted.count,
            elapsed: start.elapsed(),
        });
        let capped = budget.max_executions.is_some_and(|m| counted.count >= m);
        if start.elapsed() >= budget.time || capped || all_covered {
            break;
        }
    }
    for (s, failed) in strategies.iter_mut().zip(failed) {
        if failed {
            continue;
        }
        let name = s.name();
        if let Some(w) = watch {
            w.begin(name, "closing".into());
        }
        archive.origin = name;
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| s.close(goals, archive))) {
            failures.push(StrategyFailure::new(name, payload.as_ref()));
        }
    }
    if let Some(w) = watch {
        w.end(archive, true, (counted.count, steps));
    }
    archive.origin = "";
    DriveResult {
        executions: counted.count,
        steps,
        elapsed: start.elapsed(),
        failures,
        values,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rivet_search::{BranchObjective, Goal};
    use rivet_testcase::{ExecutionStatus, GoalId, ProbeId, TypedTest};

    use super::*;

    /// Covers every probe a test names as an int statement.
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
                    Execution {
                        status: ExecutionStatus::Completed,
                        outcomes: vec![
                            rivet_testcase::StatementOutcome::NotRun;
                            t.statements.len()
                        ],
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
                rivet_testcase::Statement::Primitive(rivet_testcase::PrimitiveValue::Int(
                    self.next,
                )),
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
        Budget {
            time: Duration::from_secs(30),
            max_executions: None,
        }
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
            None,
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
            None,
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
            Budget {
                time: Duration::from_secs(30),
                max_executions: Some(5),
            },
            &mut |_| {},
            None,
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
        let short = Budget {
            time: Duration::from_millis(100),
            max_executions: None,
        };
        let result = drive(
            &mut [&mut a, &mut b],
            &mut goals,
            &mut archive,
            &mut FakeExecutor,
            short,
            &mut |_| {},
            None,
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
                    Budget {
                        time: Duration::from_millis(100),
                        max_executions: None,
                    },
                    &mut |_| {},
                    Some(watch),
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
}
