//! The watchdog of the strategies: they run on a thread of their own, and when a turn does
//! not end within the strategies' time plus the grace (a strategy stuck inside one call, out
//! of reach of every clock check), the class stops waiting for it and finishes with the tests
//! found up to its last turn.

use std::collections::BTreeMap;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rivet_search::Archive;
use rivet_testcase::{GoalId, TypedTest};

use crate::drive::{overrun_grace, DriveProgress, StrategyFailure};

/// How long past the driver's own limit of a turn (its start or the strategies' time, plus
/// the grace) the watchdog waits before it stops waiting: the driver's cooperative check
/// comes first whenever the turn returns at all.
const MARGIN: Duration = Duration::from_secs(2);

/// How often all the covered goals' tests are copied for the watchdog, at most (the tests of
/// goals a turn covered first are copied after it).
const COPY_EVERY: Duration = Duration::from_secs(1);

/// What the strategies' thread shares with the class that waits for it: the turn in
/// progress and the tests found so far.
#[derive(Clone, Default)]
pub struct Watch {
    state: Arc<Mutex<WatchState>>,
}

#[derive(Default)]
struct WatchState {
    turn: Option<Turn>,
    /// The archive's tests at the latest copy.
    found: BTreeMap<GoalId, TypedTest>,
    copied_at: Option<Instant>,
    /// Tests run and turns taken, at the end of the latest turn.
    executions: u64,
    steps: u64,
}

/// The turn in progress: which strategy, doing what, since when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub strategy: &'static str,
    pub phase: String,
    pub started: Instant,
}

/// What the watchdog keeps of strategies it stopped waiting for.
#[derive(Debug)]
pub struct Abandoned {
    /// The archive as of the latest copy (only its tests).
    pub archive: Archive,
    pub executions: u64,
    pub steps: u64,
    /// Why, naming the strategy and where it was.
    pub failure: StrategyFailure,
}

impl Watch {
    fn state(&self) -> std::sync::MutexGuard<'_, WatchState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A turn of `strategy` begins, doing `phase`.
    pub fn begin(&self, strategy: &'static str, phase: String) {
        self.state().turn = Some(Turn {
            strategy,
            phase,
            started: Instant::now(),
        });
    }

    /// The turn ended, having covered `newly` for the first time: their tests are copied,
    /// and all the archive's when the latest whole copy is older than a second (a shorter
    /// test that replaced one in the archive reaches the copy then).
    pub fn end(&self, archive: &Archive, newly: &[GoalId], (executions, steps): (u64, u64)) {
        let mut state = self.state();
        state.turn = None;
        state.executions = executions;
        state.steps = steps;
        for g in newly {
            if let Some(test) = archive.entries.get(g) {
                state.found.insert(*g, test.clone());
            }
        }
        let stale = state.copied_at.is_none_or(|t| t.elapsed() >= COPY_EVERY);
        if stale || state.found.len() != archive.entries.len() {
            state.found = archive.entries.clone();
            state.copied_at = Some(Instant::now());
        }
    }

    /// The turn in progress, if it has gone on past its limit: the later of its start and the
    /// end of the strategies' time (`start + time`), plus the grace and the margin. Before the
    /// first turn, the strategies' construction counts as a turn begun at `start`.
    fn overdue(&self, start: Instant, time: Duration) -> Option<Turn> {
        let state = self.state();
        let turn = state.turn.clone().unwrap_or(Turn {
            strategy: "strategies",
            phase: "starting".into(),
            started: start,
        });
        if state.turn.is_none() && state.steps > 0 {
            return None;
        }
        let limit = turn.started.max(start + time) + overrun_grace(time) + MARGIN;
        (Instant::now() > limit).then_some(turn)
    }

    /// What is left for the class when the strategies are abandoned.
    fn abandon(&self, start: Instant, time: Duration, why: Option<Turn>) -> Abandoned {
        let state = self.state();
        let archive = Archive {
            entries: state.found.clone(),
            ..Archive::default()
        };
        let failure = match why {
            Some(turn) => StrategyFailure {
                strategy: turn.strategy,
                message: format!(
                    "did not yield: a turn begun at {:.1} s (while {}) had not ended {:.1} s after the strategies' time of {:.1} s; the run stopped waiting for it and finished with the tests found before it",
                    turn.started.saturating_duration_since(start).as_secs_f64(),
                    turn.phase,
                    start.elapsed().saturating_sub(time).as_secs_f64(),
                    time.as_secs_f64(),
                ),
            },
            None => StrategyFailure {
                strategy: state.turn.as_ref().map_or("strategies", |t| t.strategy),
                message: "the strategies' thread ended without a result (a panic outside a turn); the run finished with the tests found before it".into(),
            },
        };
        tracing::warn!(
            strategy = failure.strategy,
            message = failure.message,
            "stopped waiting for a strategy"
        );
        Abandoned {
            archive,
            executions: state.executions,
            steps: state.steps,
            failure,
        }
    }
}

/// What the strategies' thread sends while it works.
pub enum Message<T> {
    Progress(DriveProgress),
    Done(Box<T>),
}

/// The strategies' thread's stack (address space; only what is used is mapped), as large as
/// the CLI's work thread's: the symbolic interpreter and Z3 recurse over terms and values whose
/// depth the code under test decides (explorations of commons-lang3's `StringUtils` on a
/// default 2 MiB stack ended the process).
const STRATEGIES_STACK: usize = 256 << 20;

/// Runs `job` (the strategies of a class, with `time` for them) on a thread of its own and
/// waits for its result, passing its progress to `progress` as it comes. When a turn is
/// overdue (see [`Watch::overdue`]) or the thread dies without a result, it stops waiting:
/// the thread is left to end on its own, and what the watch kept is returned instead.
pub fn watched<T: Send + 'static>(
    time: Duration,
    job: impl FnOnce(&Watch, &mpsc::Sender<Message<T>>) + Send + 'static,
    progress: &mut dyn FnMut(DriveProgress),
) -> Result<T, Box<Abandoned>> {
    let start = Instant::now();
    let watch = Watch::default();
    let (tx, rx) = mpsc::channel();
    let theirs = watch.clone();
    let span = tracing::Span::current();
    let spawned = std::thread::Builder::new()
        .name("strategies".into())
        .stack_size(STRATEGIES_STACK)
        .spawn(move || {
            let _entered = span.entered();
            job(&theirs, &tx);
        });
    if spawned.is_err() {
        return Err(Box::new(watch.abandon(start, time, None)));
    }
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(Message::Progress(p)) => progress(p),
            Ok(Message::Done(result)) => return Ok(*result),
            Err(RecvTimeoutError::Timeout) => {
                if let Some(turn) = watch.overdue(start, time) {
                    return Err(Box::new(watch.abandon(start, time, Some(turn))));
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Box::new(watch.abandon(start, time, None)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_with(value: i32) -> TypedTest {
        let mut t = TypedTest::new();
        t.push(
            rivet_testcase::Statement::Primitive(rivet_testcase::PrimitiveValue::Int(value)),
            None,
        );
        t
    }

    #[test]
    fn a_result_in_time_is_returned_with_its_progress() {
        let mut seen = 0;
        let result = watched(
            Duration::from_secs(5),
            |_, tx| {
                let _ = tx.send(Message::Progress(DriveProgress {
                    strategy: "a",
                    phase: "searching".into(),
                    branches_covered: 1,
                    executions: 1,
                    elapsed: Duration::ZERO,
                }));
                let _ = tx.send(Message::Done(Box::new(7)));
            },
            &mut |_| seen += 1,
        );
        assert_eq!(result.unwrap(), 7);
        assert_eq!(seen, 1);
    }

    #[test]
    fn a_turn_that_never_ends_is_abandoned_with_the_tests_found_before_it() {
        let result: Result<(), _> = watched(
            Duration::from_millis(50),
            |watch, _tx| {
                let mut archive = Archive::default();
                archive.entries.insert(GoalId(3), test_with(3));
                watch.begin("a", "searching".into());
                watch.end(&archive, &[GoalId(3)], (12, 1));
                watch.begin("stuck", "exploring C.m".into());
                // Never yields (the test binary ends it).
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            },
            &mut |_| {},
        );
        let abandoned = result.unwrap_err();
        assert_eq!(abandoned.failure.strategy, "stuck");
        assert!(
            abandoned.failure.message.contains("while exploring C.m"),
            "{}",
            abandoned.failure.message
        );
        assert_eq!(
            abandoned
                .archive
                .entries
                .keys()
                .copied()
                .collect::<Vec<_>>(),
            vec![GoalId(3)]
        );
        assert_eq!((abandoned.executions, abandoned.steps), (12, 1));
    }

    #[test]
    fn a_thread_that_dies_without_a_result_is_reported() {
        let result: Result<(), _> = watched(
            Duration::from_secs(30),
            |watch, _tx| {
                watch.begin("a", "searching".into());
            },
            &mut |_| {},
        );
        let abandoned = result.unwrap_err();
        assert_eq!(abandoned.failure.strategy, "a");
        assert!(abandoned.failure.message.contains("without a result"));
    }

    #[test]
    fn between_whole_copies_a_turn_adds_the_tests_of_the_goals_it_covered_first() {
        let watch = Watch::default();
        let mut archive = Archive::default();
        archive.entries.insert(GoalId(1), test_with(1));
        watch.end(&archive, &[GoalId(1)], (1, 1));
        // Within the second: goal 2 is copied, goal 1's shorter test is not yet.
        archive.entries.insert(GoalId(2), test_with(2));
        archive.entries.insert(GoalId(1), TypedTest::new());
        watch.end(&archive, &[GoalId(2)], (2, 2));
        let found = watch.state().found.clone();
        assert_eq!(
            found.keys().copied().collect::<Vec<_>>(),
            [GoalId(1), GoalId(2)]
        );
        assert_eq!(found.get(&GoalId(2)), Some(&test_with(2)));
        assert_eq!(found.get(&GoalId(1)).map(TypedTest::len), Some(1));
        // A goal the turn did not name makes the counts differ: all is copied.
        archive.entries.insert(GoalId(3), test_with(3));
        watch.end(&archive, &[], (3, 3));
        let found = watch.state().found.clone();
        assert_eq!(found.len(), 3);
        assert_eq!(found.get(&GoalId(1)).map(TypedTest::len), Some(0));
    }

    #[test]
    fn a_turn_within_its_limit_is_not_overdue() {
        let watch = Watch::default();
        let start = Instant::now();
        watch.begin("a", "searching".into());
        assert_eq!(watch.overdue(start, Duration::from_secs(30)), None);
        // A turn begun late gets its grace from its own start, not from the strategies' time.
        let long_ago = Instant::now() - Duration::from_secs(10);
        assert_eq!(watch.overdue(long_ago, Duration::from_millis(1)), None);
        // Before any turn, the strategies' construction counts as one begun at the start.
        let fresh = Watch::default();
        let turn = fresh.overdue(long_ago, Duration::from_millis(1));
        assert_eq!(turn.map(|t| t.strategy), Some("strategies"));
        // Between turns nothing is overdue.
        fresh.end(&Archive::default(), &[], (0, 1));
        assert_eq!(fresh.overdue(long_ago, Duration::from_millis(1)), None);
    }
}
