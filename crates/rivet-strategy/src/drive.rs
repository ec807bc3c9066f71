//! The driver: gives the strategies turns on the run's shared goals and archive within a
//! budget, stops one that panics or overruns, and credits each technique with what it took
//! and brought.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use rivet_api::ApiModel;
use rivet_clock::RunClock;
use rivet_search::{Archive, Arena, Goals};
use rivet_testcase::{Execution, Executor, ObservationSpec, TestCase, TypedTest};

use crate::schedule::{Cost, Schedule};
use crate::strategy::{StepOutcome, Strategy};
use crate::watch::Watch;

/// When the strategies stop, and the clock their time is read on.
#[derive(Debug, Clone)]
pub struct Budget {
    pub time: Duration,
    pub max_executions: Option<u64>,
    /// The run's clock, shared with the strategies (virtual under an execution cap). The
    /// strategies' time also ends on the wall clock, whichever comes first.
    pub clock: RunClock,
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

impl Budget {
    /// A budget with its own clock: virtual under an execution cap, else the wall clock.
    pub fn new(time: Duration, max_executions: Option<u64>) -> Budget {
        Budget {
            time,
            max_executions,
            clock: RunClock::for_budget(time, max_executions),
        }
    }

    /// How the schedule measures a turn: its time on the run's clock.
    pub fn cost(&self) -> Cost {
        Cost {
            whole: self.time.as_secs_f64(),
        }
    }
}

/// What a drive may use besides its strategies, goals and workers.
#[derive(Default, Clone, Copy)]
pub struct DriveOptions<'a> {
    /// The watchdog's view of the drive (what to keep if the strategies' thread must be
    /// abandoned).
    pub watch: Option<&'a Watch>,
    /// The class's API, to refuse runs whose results break a cast the written test makes
    /// (see `Arena::api`).
    pub api: Option<&'a ApiModel>,
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
    /// Tests run in its turns.
    pub executions: u64,
    /// Of those, tests that ran out of time (each cost the workers its time limit).
    pub timed_out: u64,
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
    /// Of those, tests that ran out of time.
    timed_out: u64,
    stop: Instant,
    /// Recent wall-clock time per test (zero before the first chunk).
    per_test: Duration,
    /// The run's clock, which the tests run advance.
    clock: RunClock,
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
            let runs = self.inner.execute(&tests[i..i + n]);
            self.timed_out += runs
                .iter()
                .filter(|e| e.status == rivet_testcase::ExecutionStatus::TimedOut)
                .count() as u64;
            out.extend(runs);
            let per = now.elapsed() / n as u32;
            self.per_test = if self.per_test.is_zero() {
                per
            } else {
                (self.per_test * 3 + per) / 4
            };
            self.count += n as u64;
            self.clock.ran(n as u64);
            i += n;
        }
        out
    }

    fn set_observation(&mut self, spec: &ObservationSpec) {
        self.inner.set_observation(spec);
    }
}

/// What a turn of strategy `turn` brought each of the `n` strategies: the goals credited to
/// it since `before` (a technique that is not a strategy, the adaptive DSE, counts for the
/// strategy whose turn it was).
fn rewards(values: &[StrategyValue], before: &[usize], turn: usize, n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    for (j, v) in values.iter().enumerate() {
        let gained = v.first_covered - before.get(j).copied().unwrap_or(0);
        let k = if j < n { j } else { turn };
        if let Some(r) = out.get_mut(k) {
            *r += gained as f64;
        }
    }
    out
}

/// Credits each goal covered for the first time in a turn (`newly`) to the technique its test
/// is credited to (a row is added for a technique that is not a strategy); returns how many
/// of them are branch goals.
fn credit_first_covered(
    values: &mut Vec<StrategyValue>,
    newly: &[rivet_testcase::GoalId],
    archive: &Archive,
    goals: &Goals,
) -> usize {
    let mut branches = 0;
    for g in newly {
        if !archive.is_covered(*g) {
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
        let branch = goals.get(*g).is_some_and(|g| g.is_branch());
        values[k].first_covered += 1;
        values[k].first_covered_branches += usize::from(branch);
        branches += usize::from(branch);
    }
    branches
}

/// The failure of a turn from `start` to `end` (since the drive began) that ended past its
/// limit: the later of its start and the strategies' `time`, plus the grace.
fn overran(
    name: &'static str,
    (start, end): (Duration, Duration),
    time: Duration,
    phase: Option<String>,
) -> Option<StrategyFailure> {
    let limit = start.max(time) + overrun_grace(time);
    (end > limit).then(|| {
        let phase = phase.unwrap_or_else(|| "searching".into());
        StrategyFailure::overran(
            name,
            end.saturating_sub(start),
            end.saturating_sub(time),
            &phase,
        )
    })
}

/// What the first strategy still running that says is doing (`searching` when none does).
fn current_phase(strategies: &[&mut dyn Strategy], failed: &[bool]) -> String {
    strategies
        .iter()
        .zip(failed)
        .find_map(|(s, f)| if *f { None } else { s.phase() })
        .unwrap_or_else(|| "searching".into())
}

/// A strategy's turn: its goals updated, then one step; a panic is caught and returned.
fn take_turn(
    strategy: &mut dyn Strategy,
    (goals, archive): (&mut Goals, &mut Archive),
    executor: &mut dyn Executor,
    api: Option<&ApiModel>,
) -> Result<StepOutcome, Box<dyn std::any::Any + Send>> {
    catch_unwind(AssertUnwindSafe(|| strategy.update_goals(goals, archive)))?;
    let mut arena = Arena {
        goals,
        archive,
        executor,
        api,
    };
    catch_unwind(AssertUnwindSafe(|| strategy.step(&mut arena)))
}

/// The goals `name` added in its turn (those from `goals_before` on) that are not branches
/// guide the tests that cover them (SUSHI's PC goals).
fn register_guides(goals: &Goals, archive: &mut Archive, goals_before: usize, name: &'static str) {
    for g in goals_before..goals.len() {
        let id = rivet_testcase::GoalId(g as u32);
        if !goals.get(id).is_some_and(|g| g.is_branch()) {
            archive.guides.insert(id, name);
        }
    }
}

/// What strategy `from` covered first or offers goes to the others (the search builds on it).
fn hand_out(strategies: &mut [&mut dyn Strategy], from: usize, arrivals: &[TypedTest]) {
    if arrivals.is_empty() {
        return;
    }
    for (j, other) in strategies.iter_mut().enumerate() {
        if j != from {
            other.seed(arrivals);
        }
    }
}

/// Closes every strategy that did not fail; a panic in a close is reported, not passed on.
fn close_all(
    strategies: &mut [&mut dyn Strategy],
    failed: &[bool],
    (goals, archive): (&mut Goals, &mut Archive),
    watch: Option<&Watch>,
    failures: &mut Vec<StrategyFailure>,
) {
    for (s, failed) in strategies.iter_mut().zip(failed) {
        if *failed {
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
    options: DriveOptions<'_>,
) -> DriveResult {
    let DriveOptions { watch, api } = options;
    let start = Instant::now();
    let mut counted = Counted {
        inner: executor,
        count: 0,
        timed_out: 0,
        stop: start + budget.time + overrun_grace(budget.time),
        per_test: Duration::ZERO,
        clock: budget.clock.clone(),
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
    // Covered branch goals, counted once here and then by what each turn covers first (no
    // goal is forgotten during a drive).
    let mut branches_covered = goals
        .iter()
        .filter(|g| g.is_branch() && archive.is_covered(g.id))
        .count();
    let mut failures = Vec::new();
    let mut steps = 0u64;
    let measure = budget.cost();
    let priors: Vec<f64> = strategies.iter().map(|s| s.prior_weight()).collect();
    let mut schedule = Schedule::new(measure, &priors);
    loop {
        let warming: Vec<bool> = strategies.iter().map(|s| s.warming_up()).collect();
        schedule.set_warming(&warming);
        // A strategy whose work goes on elsewhere takes no turn until it ends.
        let resting: Vec<bool> = strategies
            .iter()
            .zip(&done)
            .map(|(s, d)| *d || s.busy_elsewhere())
            .collect();
        let Some(i) = schedule.next(&resting) else {
            if done.iter().all(|d| *d) || start.elapsed() >= budget.time {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        };
        let strategy = &mut *strategies[i];
        let first_before: Vec<usize> = values.iter().map(|v| v.first_covered).collect();
        let name = strategy.name();
        strategy.allow_turn(schedule.allowance(i, &done, budget.time));
        let (turn_start, phase_before) = (start.elapsed(), strategy.phase());
        let turn_clock = budget.clock.now();
        if let Some(w) = watch {
            w.begin(
                name,
                phase_before.clone().unwrap_or_else(|| "searching".into()),
            );
        }
        let (executions_before, timed_out_before) = (counted.count, counted.timed_out);
        archive.newly_covered.clear();
        let goals_before = goals.len();
        archive.origin = name;
        let stepped = take_turn(strategy, (goals, archive), &mut counted, api);
        values[i].executions += counted.count - executions_before;
        values[i].timed_out += counted.timed_out - timed_out_before;
        let arena = Arena {
            goals,
            archive,
            executor: &mut counted,
            api,
        };
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
        register_guides(arena.goals, arena.archive, goals_before, name);
        let newly = std::mem::take(&mut arena.archive.newly_covered);
        branches_covered += credit_first_covered(&mut values, &newly, arena.archive, arena.goals);
        // A turn may not run far past the strategies' time: a strategy whose turn did is
        // stopped (its tests so far are kept), so that a second overrun cannot follow.
        if !failed[i] {
            let turn = (turn_start, start.elapsed());
            if let Some(f) = overran(name, turn, budget.time, phase_before) {
                failures.push(f);
                done[i] = true;
                failed[i] = true;
            }
        }
        // What this strategy covered first, and what it offers, goes to the others (the
        // search builds on it).
        let mut arrivals = std::mem::take(&mut arena.archive.arrivals);
        if let Some(w) = watch {
            let executions = arena.archive.executions;
            w.end(arena.archive, &newly, (executions, steps));
        }
        if !failed[i] {
            arrivals.extend(strategy.offers());
        }
        hand_out(strategies, i, &arrivals);
        let all_covered = arena.all_covered()
            && strategies
                .iter()
                .zip(&done)
                .all(|(s, d)| *d || !s.pending());
        progress(DriveProgress {
            strategy: name,
            phase: current_phase(strategies, &failed),
            branches_covered,
            executions: counted.count,
            elapsed: start.elapsed(),
        });
        let cost = measure.of_turn(budget.clock.since(turn_clock).as_secs_f64());
        let brought = rewards(&values, &first_before, i, strategies.len());
        schedule.record(i, cost, &brought, &done);
        let capped = budget.max_executions.is_some_and(|m| counted.count >= m);
        if start.elapsed() >= budget.time || capped || all_covered {
            break;
        }
    }
    close_all(strategies, &failed, (goals, archive), watch, &mut failures);
    if let Some(w) = watch {
        let newly = std::mem::take(&mut archive.newly_covered);
        w.end(archive, &newly, (counted.count, steps));
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
#[path = "drive_tests.rs"]
mod tests;
