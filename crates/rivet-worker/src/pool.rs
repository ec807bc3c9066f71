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

    /// In adaptive mode each JVM's time limit follows the tests it ran: four times the
    /// slowest of its recent tests (this window of 2,000 and the one before), not counting its
    /// first, between 250 ms and the configured limit (a search that keeps producing loops
    /// loses less time to them). Off: the configured limit.
    pub fn set_adaptive_time_limit(&mut self, on: bool) {
        for w in &mut self.workers {
            w.set_adaptive(on);
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
        let max_batch = self.config.max_batch.max(1);
        let workers = self.workers.len();
        let chunk = if workers == 1 {
            max_batch
        } else {
            runnable.len().div_ceil(workers * 4).clamp(1, max_batch)
        };
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
