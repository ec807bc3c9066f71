//! What running one test case produced (its status, each statement's outcome, the probes it
//! covered and how many times, its minimum branch distances, its duration) and the [`Executor`] trait that runs
//! test cases: the worker pool, or a fake in unit tests.

use std::fmt;
use std::time::Duration;

use crate::{CallObservation, ClassName, ObservationSpec, StatementOutcome, TestCase};

/// The exception class reported for statements the harness could not run as written (unknown or
/// non-public member, wrong argument types): never an exception of the code under test.
pub const UNRUNNABLE_CLASS: &str = "rivet.worker.Unrunnable";

/// The exception class reported when the code under test asked to exit (instrumented
/// `System.exit`, `Runtime.exit`, `Runtime.halt`).
pub const EXIT_REQUESTED_CLASS: &str = "rivet.runtime.ExitRequested";

/// The exception class reported when the code under test tried to reach outside the sandbox
/// (a file changed outside the temp dir, a socket, a process, a signal). A statement that
/// did is never emitted.
pub const SANDBOX_REFUSED_CLASS: &str = "rivet.runtime.SandboxRefused";

/// Runs test cases: the worker pool, or a fake in tests.
pub trait Executor {
    /// One execution per test, in order.
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution>;

    /// What to observe at calls of target methods in the tests run from now on (path-condition
    /// goals); an executor that cannot observe ignores it, and its executions carry none.
    fn set_observation(&mut self, _spec: &ObservationSpec) {}
}

/// A worker slot of a pool (its JVM may be replaced; the id stays).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkerId(pub u32);

impl fmt::Display for WorkerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "worker {}", self.0)
    }
}

/// A global branch-probe id, as the instrumenter assigns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProbeId(pub u32);

impl fmt::Display for ProbeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}", self.0)
    }
}

/// How a test's execution ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecutionStatus {
    /// The worker ran every statement it could (statements after an exception are not run).
    Completed,
    /// The test exceeded the time limit; its worker was killed and replaced.
    TimedOut,
    /// The worker died while running the test (exit, halt, crash, SIGKILL, protocol corruption)
    /// and was replaced; also when no worker could be started to run it.
    WorkerCrashed { reason: String },
    /// The test was not run: it is malformed (references that are not earlier values) or cannot
    /// be sent (larger than a frame).
    Rejected { reason: String },
}

/// The result of running one test case.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    pub status: ExecutionStatus,
    /// One outcome per statement. All `NotRun` unless the status is `Completed`: the worker
    /// reports a test only when it finishes.
    pub outcomes: Vec<StatementOutcome>,
    /// Probes whose branch was taken, ascending.
    pub covered: Vec<ProbeId>,
    /// Minimum branch distance of every probe the test evaluated (0 for covered ones), by
    /// ascending probe id.
    pub distances: Vec<(ProbeId, f64)>,
    /// How many times each covered probe's branch was taken, by ascending probe id (JaCoCo's
    /// points count once). Empty when the executor does not count: read it through
    /// [`Execution::hits`].
    pub hits: Vec<(ProbeId, u32)>,
    /// Time spent in the test's statements as the worker measured it; for a time-out or a
    /// crash, the time Rivet waited.
    pub duration: Duration,
    /// The worker that ran it (None when rejected).
    pub worker: Option<WorkerId>,
    /// Threads the code under test left running in the worker (an estimate).
    pub stray_threads: u32,
    /// Values read at each call of an observed method, in call order (see
    /// [`Executor::set_observation`]).
    pub observations: Vec<CallObservation>,
    /// Snapshots of the objects at calls of snapshotted methods, in call order (see
    /// `ObservationSpec::snapshot`).
    pub snapshots: Vec<crate::HeapSnapshot>,
    /// Strings the code under test compared, searched for or parsed while the test ran
    /// (dynamic seeding), in order of first sight.
    pub seeds: Vec<String>,
}

impl Execution {
    /// An execution that produced no result (time-out, crash, rejection).
    pub fn without_result(
        status: ExecutionStatus,
        statements: usize,
        duration: Duration,
        worker: Option<WorkerId>,
    ) -> Self {
        Execution {
            status,
            outcomes: vec![StatementOutcome::NotRun; statements],
            covered: Vec::new(),
            distances: Vec::new(),
            hits: Vec::new(),
            duration,
            worker,
            stray_threads: 0,
            observations: Vec::new(),
            snapshots: Vec::new(),
            seeds: Vec::new(),
        }
    }

    pub fn is_completed(&self) -> bool {
        self.status == ExecutionStatus::Completed
    }

    /// The minimum distance recorded for a probe, if the test evaluated its branch.
    pub fn distance(&self, probe: ProbeId) -> Option<f64> {
        self.distances
            .binary_search_by_key(&probe, |(p, _)| *p)
            .ok()
            .map(|i| self.distances[i].1)
    }

    /// How many times the test took a probe's branch: the worker's count, else 1 for a
    /// covered probe when the executor did not count (`hits` empty), else 0.
    pub fn hits(&self, probe: ProbeId) -> u32 {
        if self.hits.is_empty() {
            return u32::from(self.covered.binary_search(&probe).is_ok());
        }
        self.hits
            .binary_search_by_key(&probe, |(p, _)| *p)
            .map_or(0, |i| self.hits[i].1)
    }

    /// The first statement that threw: its index, exception class and message.
    pub fn exception(&self) -> Option<(usize, &ClassName, Option<&str>)> {
        self.outcomes.iter().enumerate().find_map(|(i, o)| match o {
            StatementOutcome::Threw { class, message } => Some((i, class, message.as_deref())),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_the_counts_or_one_per_covered_probe_when_not_counted() {
        let mut e = Execution::without_result(ExecutionStatus::Completed, 0, Duration::ZERO, None);
        e.covered = vec![ProbeId(2), ProbeId(5)];
        assert_eq!(
            [1, 2, 5].map(|p| e.hits(ProbeId(p))),
            [0, 1, 1],
            "not counted: covered is 1"
        );
        e.hits = vec![(ProbeId(2), 7), (ProbeId(5), 1)];
        assert_eq!([1, 2, 5].map(|p| e.hits(ProbeId(p))), [0, 7, 1]);
    }
}
