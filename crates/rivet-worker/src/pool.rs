//! The pool of worker JVMs: starts them, splits each run's tests over them in batches (every
//! worker busy, results in input order) and keeps going whatever the code under test does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rivet_testcase::{ObservationSpec, TestCase};
use tracing::{debug, info_span};

use crate::config::WorkerConfig;
use crate::error::{Step, WorkerError};
use crate::harness::harness_classes;
use crate::limit::TestLimit;
use crate::worker::{Worker, WorkerInfo};
use rivet_testcase::{
    Execution, ExecutionStatus, WorkerId, EXIT_REQUESTED_CLASS, SANDBOX_REFUSED_CLASS,
};

/// Long-lived worker JVMs that run test cases.
pub struct WorkerPool {
    config: Arc<WorkerConfig>,
    workers: Vec<Worker>,
    observation: Arc<ObservationSpec>,
    events: PoolEvents,
    /// Chunks are dealt to the workers in turn instead of to whichever is free.
    fixed_assignment: bool,
    /// The recent completed tests' mean duration (zero before the first), for the chunk size.
    mean_test: Duration,
}

/// The least time a chunk of tests should take in its worker when the tests are fast: each
/// chunk is a round trip to the JVM and back through the writer and reader threads, which on
/// two cores costs about a millisecond and a half (TreeBidiMap's 100,000 tests took 30 % less
/// time in chunks of half a generation than in eighths).
const MIN_CHUNK_TIME: Duration = Duration::from_millis(15);

/// How many tests go in one chunk: a quarter of a worker's share, so that free workers take
/// the chunks slow tests leave (balance); more when the tests are so fast that a quarter would
/// take less than [`MIN_CHUNK_TIME`], up to the whole share. Dealt in turn (`fixed`), a
/// worker's whole share in one chunk: the split must not follow the clock there.
fn chunk_size(
    runnable: usize,
    workers: usize,
    max_batch: usize,
    mean_test: Duration,
    fixed: bool,
) -> usize {
    let max_batch = max_batch.max(1);
    if workers <= 1 {
        return max_batch;
    }
    let share = runnable.div_ceil(workers);
    let balanced = runnable.div_ceil(workers * 4);
    let chunk = if fixed {
        share
    } else if mean_test.is_zero() {
        balanced
    } else {
        let fast = (MIN_CHUNK_TIME.as_secs_f64() / mean_test.as_secs_f64()).ceil();
        // Saturating: a huge `fast` (a test of a few nanoseconds) becomes usize::MAX.
        (fast as usize).clamp(balanced, share)
    };
    chunk.clamp(1, max_batch)
}

/// What happened to the tests a pool ran, counted, so that a run reports each kind once
/// (the single events are logged at debug level).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolEvents {
    pub timed_out: u64,
    pub crashed: u64,
    pub rejected: u64,
    /// Tests stopped by an exit request of the code under test.
    pub exit_requests: u64,
    /// Tests in which the sandbox refused a file, network, process or signal call.
    pub sandbox_refusals: u64,
}

impl WorkerPool {
    /// How far this kernel confines the workers; warns once per process when not fully.
    pub fn confinement() -> rivet_sandbox::Enforcement {
        static WARNED: std::sync::Once = std::sync::Once::new();
        let e = rivet_sandbox::Enforcement::available();
        if let Some(w) = e.warning() {
            WARNED.call_once(|| tracing::warn!("{w}"));
        }
        e
    }

    /// Starts `config.workers` JVMs (in parallel) and waits until each is ready.
    pub fn new(config: &WorkerConfig) -> Result<Self, WorkerError> {
        if harness_classes().is_empty() {
            return Err(WorkerError::HarnessMissing);
        }
        if config.workers == 0 {
            return Err(WorkerError::NoWorkers);
        }
        let config = Arc::new(config.clone());
        let mut workers: Vec<Worker> = (0..config.workers)
            .map(|i| Worker::new(WorkerId(i as u32), Arc::clone(&config)))
            .collect();
        let _span = info_span!("start_pool", workers = workers.len()).entered();
        let started: Vec<Result<(), WorkerError>> = std::thread::scope(|s| {
            let handles: Vec<_> = workers
                .iter_mut()
                .map(|w| {
                    let id = w.info().id;
                    (id, s.spawn(move || w.start()))
                })
                .collect();
            handles
                .into_iter()
                .map(|(id, h)| {
                    h.join().unwrap_or_else(|_| {
                        Err(WorkerError::Failed {
                            worker: id,
                            step: Step::Spawn,
                            reason: "the starting thread panicked".into(),
                        })
                    })
                })
                .collect()
        });
        for r in started {
            r?;
        }
        Ok(WorkerPool {
            config,
            workers,
            observation: Arc::new(ObservationSpec::default()),
            events: PoolEvents::default(),
            fixed_assignment: false,
            mean_test: Duration::ZERO,
        })
    }

    /// A pool of the same configuration whose JVMs start on demand (none runs until its first
    /// test): the stand-in for a pool lent to a thread that may not give it back.
    pub fn standby(&self) -> WorkerPool {
        WorkerPool {
            config: Arc::clone(&self.config),
            workers: (0..self.workers.len())
                .map(|i| Worker::new(WorkerId(i as u32), Arc::clone(&self.config)))
                .collect(),
            observation: Arc::new(ObservationSpec::default()),
            events: PoolEvents::default(),
            fixed_assignment: false,
            mean_test: Duration::ZERO,
        }
    }

    /// Number of workers.
    pub fn size(&self) -> usize {
        self.workers.len()
    }

    pub fn config(&self) -> &WorkerConfig {
        &self.config
    }

    /// The workers' current state (pids change when a JVM is replaced).
    pub fn workers(&self) -> Vec<WorkerInfo> {
        self.workers.iter().map(Worker::info).collect()
    }

    /// What happened to the tests run so far.
    pub fn events(&self) -> PoolEvents {
        self.events
    }

    /// How many JVMs were started to replace dead, hung or stray-thread-laden ones.
    pub fn workers_replaced(&self) -> u64 {
        self.workers
            .iter()
            .map(|w| u64::from(w.info().spawns.saturating_sub(1)))
            .sum()
    }

    fn count(&mut self, executions: &[Execution]) {
        let (n, total) = executions
            .iter()
            .filter(|e| e.is_completed())
            .fold((0u32, Duration::ZERO), |(n, t), e| {
                (n.saturating_add(1), t.saturating_add(e.duration))
            });
        if n > 0 {
            let mean = total / n;
            self.mean_test = if self.mean_test.is_zero() {
                mean
            } else {
                (self.mean_test * 3 + mean) / 4
            };
        }
        for e in executions {
            match &e.status {
                ExecutionStatus::TimedOut => self.events.timed_out += 1,
                ExecutionStatus::WorkerCrashed { .. } => self.events.crashed += 1,
                ExecutionStatus::Rejected { .. } => self.events.rejected += 1,
                ExecutionStatus::Completed => match e.exception() {
                    Some((_, c, _)) if c.is(EXIT_REQUESTED_CLASS) => self.events.exit_requests += 1,
                    Some((_, c, _)) if c.is(SANDBOX_REFUSED_CLASS) => {
                        self.events.sandbox_refusals += 1
                    }
                    _ => {}
                },
            }
        }
    }

    /// Ends the JVMs in which tests left threads running (a spinning thread keeps a core busy
    /// until its JVM ends); their slots start fresh JVMs on demand. Returns how many ended.
    pub fn recycle_stray(&mut self) -> usize {
        self.workers
            .iter_mut()
            .map(Worker::recycle_if_stray)
            .filter(|r| *r)
            .count()
    }

    /// Pings every worker; round-trip time per worker.
    pub fn ping(&mut self) -> Result<Vec<Duration>, WorkerError> {
        self.workers
            .iter_mut()
            .enumerate()
            .map(|(i, w)| w.ping(i as u64))
            .collect()
    }

    /// How the tests sent from now on are limited ([`TestLimit`]): in adaptive mode each
    /// JVM's time limit follows the tests it ran (four times the slowest of its recent tests,
    /// this window of 2,000 and the one before, not counting its first, between 250 ms and the
    /// configured limit); with a probe budget a looping test ends at the same probe on every
    /// run; otherwise the configured limit.
    pub fn set_test_limit(&mut self, limit: TestLimit) {
        for w in &mut self.workers {
            w.set_test_limit(limit);
        }
    }

    /// With `on`, the chunks of a batch are dealt to the workers in turn (chunk i to worker i
    /// mod n), so the same tests meet the same JVM state on every run (identity hash codes,
    /// static fields): what a run under an execution cap needs to come out the same. Off,
    /// chunks go to whichever worker is free, which balances better.
    pub fn set_fixed_assignment(&mut self, on: bool) {
        self.fixed_assignment = on;
    }

    /// Runs the tests on the workers and returns one execution per test, in input order.
    ///
    /// Malformed tests are `Rejected`; a test over the time limit is `TimedOut` and a test
    /// whose JVM died is `WorkerCrashed` (the JVM is replaced and the other tests go on).
    /// Tests are handed out in contiguous chunks as workers become free, so which worker runs a
    /// test (and what static state it finds there) depends on timing, unless the assignment
    /// is fixed (`set_fixed_assignment`).
    pub fn run(&mut self, tests: &[TestCase]) -> Vec<Execution> {
        let _span = info_span!("run", tests = tests.len(), workers = self.workers.len()).entered();
        let mut results: Vec<Option<Execution>> = (0..tests.len()).map(|_| None).collect();
        let mut runnable = Vec::with_capacity(tests.len());
        for (i, t) in tests.iter().enumerate() {
            match t.validate() {
                Ok(()) => runnable.push(i),
                Err(e) => {
                    results[i] = Some(Execution::without_result(
                        ExecutionStatus::Rejected {
                            reason: e.to_string(),
                        },
                        t.len(),
                        Duration::ZERO,
                        None,
                    ))
                }
            }
        }
        let workers = self.workers.len();
        let chunk = chunk_size(
            runnable.len(),
            workers,
            self.config.max_batch,
            self.mean_test,
            self.fixed_assignment,
        );
        debug!(runnable = runnable.len(), chunk, "scheduling");

        if runnable.len() <= chunk || workers == 1 {
            for ids in runnable.chunks(chunk) {
                let batch: Vec<&TestCase> = ids.iter().map(|&i| &tests[i]).collect();
                for (&i, e) in ids.iter().zip(self.workers[0].run(&batch)) {
                    results[i] = Some(e);
                }
            }
        } else {
            let next = AtomicUsize::new(0);
            let runnable = &runnable;
            let fixed = self.fixed_assignment;
            let done: Vec<Vec<(usize, Execution)>> = std::thread::scope(|s| {
                let handles: Vec<_> = self
                    .workers
                    .iter_mut()
                    .enumerate()
                    .map(|(k, w)| {
                        let next = &next;
                        s.spawn(move || {
                            let mut done = Vec::new();
                            let mut turn = 0;
                            loop {
                                let start = if fixed {
                                    (k + turn * workers) * chunk
                                } else {
                                    next.fetch_add(chunk, Ordering::Relaxed)
                                };
                                turn += 1;
                                if start >= runnable.len() {
                                    break;
                                }
                                let ids = &runnable[start..(start + chunk).min(runnable.len())];
                                let batch: Vec<&TestCase> =
                                    ids.iter().map(|&i| &tests[i]).collect();
                                done.extend(ids.iter().copied().zip(w.run(&batch)));
                            }
                            done
                        })
                    })
                    .collect();
                handles.into_iter().filter_map(|h| h.join().ok()).collect()
            });
            for (i, e) in done.into_iter().flatten() {
                results[i] = Some(e);
            }
        }

        let executions: Vec<Execution> = results
            .into_iter()
            .zip(tests)
            .map(|(r, t)| {
                r.unwrap_or_else(|| {
                    Execution::without_result(
                        ExecutionStatus::WorkerCrashed {
                            reason: "internal error: the worker's thread panicked".into(),
                        },
                        t.len(),
                        Duration::ZERO,
                        None,
                    )
                })
            })
            .collect();
        self.count(&executions);
        executions
    }
}

impl rivet_testcase::Executor for WorkerPool {
    fn execute(&mut self, tests: &[rivet_testcase::TestCase]) -> Vec<Execution> {
        self.run(tests)
    }

    /// Batches sent from now on carry `spec`, and their executions the observed calls.
    fn set_observation(&mut self, spec: &ObservationSpec) {
        if *self.observation != *spec {
            self.observation = Arc::new(spec.clone());
            for w in &mut self.workers {
                w.set_observation(Arc::clone(&self.observation));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_tests_go_in_a_workers_whole_share_and_slow_ones_in_quarters() {
        let us = Duration::from_micros;
        // Fifty tests on two workers: 25 each, quarters of 7.
        assert_eq!(chunk_size(50, 2, 1000, us(50), false), 25);
        assert_eq!(chunk_size(50, 2, 1000, us(20_000), false), 7);
        // In between, a chunk takes about the least chunk time.
        assert_eq!(chunk_size(50, 2, 1000, us(1_000), false), 15);
        // Before any test has run: quarters.
        assert_eq!(chunk_size(50, 2, 1000, Duration::ZERO, false), 7);
        // Dealt in turn: whole shares, whatever the clock says.
        assert_eq!(chunk_size(50, 2, 1000, us(20_000), true), 25);
        assert_eq!(chunk_size(51, 2, 1000, Duration::ZERO, true), 26);
        // The batch limit and a single worker.
        assert_eq!(chunk_size(50, 2, 10, us(50), false), 10);
        assert_eq!(chunk_size(50, 1, 64, us(50), false), 64);
        assert_eq!(chunk_size(1, 2, 64, us(50), false), 1);
    }
}
