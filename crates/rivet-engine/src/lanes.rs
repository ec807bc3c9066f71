//! Classes of a project run side by side: `L` lanes, each a thread with its own pool of worker
//! JVMs over the run's one instrumentation, taking the next class from a shared queue; the
//! lanes' events go to the caller one at a time, in the order they happen, and the classes'
//! entries come back in the classes' order. A class's budget is its own, within its share of
//! what is left of the total budget.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rivet_classfile::ClassName;

use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::generate::{api_model, run_class, Event};
use crate::project::{entry, no_tests_reason, relative, ProjectEvent};
use crate::session::{Session, Workers};
use rivet_report::seconds;
use rivet_report::{ClassEntry, ClassStatus};

/// Each lane's stack (address space; only what is used is mapped), as large as the CLI's work
/// thread's: a lane explores and solves, recursing over terms and values whose depth the code
/// under test decides.
const LANE_STACK: usize = 256 << 20;

/// Classes at a time when the run does not say: one per four cores (a class keeps its workers,
/// javac and the JUnit runs of verification busy, a few cores' worth), at least one.
pub fn default_lanes() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / 4).max(1)
}

/// How many lanes a run of `classes` classes gets: `asked` (None: [`default_lanes`]), at most
/// one per class and one per worker JVM (`workers`, None: one per core), at least one.
pub fn lane_count(asked: Option<usize>, classes: usize, workers: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jvms = workers.unwrap_or(cores).max(1);
    asked
        .unwrap_or_else(default_lanes)
        .min(classes)
        .min(jvms)
        .max(1)
}

/// Each lane's worker JVMs: `workers` (None: one per core) dealt as evenly as can be, the
/// first lanes taking the rest; one lane keeps `workers` as given (the pool's own default).
pub fn lane_workers(lanes: usize, workers: Option<usize>) -> Vec<Option<usize>> {
    if lanes <= 1 {
        return vec![workers];
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let total = workers.unwrap_or(cores).max(lanes);
    (0..lanes)
        .map(|k| Some(total / lanes + usize::from(k < total % lanes)))
        .collect()
}

/// How long classes ran past their budget (minimizing, verifying, the final run), on average:
/// what each class's share of a total budget leaves for it.
#[derive(Debug, Default)]
pub(crate) struct Overrun {
    sum: Duration,
    classes: u32,
}

impl Overrun {
    fn add(&mut self, took: Duration, budget: Duration) {
        self.sum += took.saturating_sub(budget);
        self.classes += 1;
    }

    fn mean(&self) -> Duration {
        self.sum.checked_div(self.classes).unwrap_or_default()
    }
}

/// A class's budget, in whole seconds, out of `left` of the total budget: the classes not yet
/// started (`remaining`, this one included) share it `lanes` at a time, so each gets `left`
/// times `lanes` over `remaining` (at most `left`), less the `overrun` each is expected to run
/// past its budget; None when not even one second is left for it.
pub(crate) fn total_share(
    left: Duration,
    remaining: usize,
    lanes: usize,
    overrun: Duration,
) -> Option<u64> {
    let remaining = u32::try_from(remaining.max(1)).unwrap_or(u32::MAX);
    let lanes = u32::try_from(lanes.max(1)).unwrap_or(u32::MAX);
    let per_class = left
        .checked_mul(lanes)
        .map_or(left, |l| l / remaining)
        .min(left);
    let share = per_class.saturating_sub(overrun).as_secs();
    if share > 0 {
        Some(share)
    } else if left >= overrun + Duration::from_secs(1) {
        // Less than a second each: the next class still gets one.
        Some(1)
    } else {
        None
    }
}

/// What every lane shares: the classes, the next one to take, the time.
struct Queue<'a> {
    session: &'a Session,
    base: &'a GenerateConfig,
    classes: &'a [ClassName],
    next: AtomicUsize,
    lanes: usize,
    started: Instant,
    total: Option<Duration>,
    overrun: Mutex<Overrun>,
    report_dir: &'a Path,
}

impl Queue<'_> {
    /// Class `index`'s budget; None when the total budget leaves it nothing.
    fn budget(&self, index: usize) -> Option<u64> {
        let Some(total) = self.total else {
            return Some(self.base.budget_s);
        };
        let left = total.saturating_sub(self.started.elapsed());
        let overrun = self
            .overrun
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .mean();
        total_share(left, self.classes.len() - index, self.lanes, overrun)
            .map(|share| self.base.budget_s.min(share))
    }

    /// One lane: classes from the queue until it is empty, each on `workers`.
    fn lane(&self, workers: &mut Workers, events: &Sender<ProjectEvent>) {
        let send = |e: ProjectEvent| {
            // The receiver outlives the lanes; a failed send only loses a progress event.
            let _ = events.send(e);
        };
        loop {
            let index = self.next.fetch_add(1, Ordering::SeqCst);
            let Some(class) = self.classes.get(index) else {
                return;
            };
            send(ProjectEvent::Class {
                class: class.clone(),
                index,
                of: self.classes.len(),
            });
            let done = match self.budget(index) {
                None => {
                    let mut e = entry(
                        class,
                        ClassStatus::Skipped,
                        Some("the total budget was spent".into()),
                        0,
                    );
                    e.started_s = seconds(self.started.elapsed());
                    e
                }
                Some(budget_s) => self.run(workers, class, index, budget_s, &send),
            };
            send(ProjectEvent::Done { index, entry: done });
        }
    }

    /// Class `index` within `budget_s` on `workers`: its entry, whatever happened.
    fn run(
        &self,
        workers: &mut Workers,
        class: &ClassName,
        index: usize,
        budget_s: u64,
        send: &dyn Fn(ProjectEvent),
    ) -> ClassEntry {
        let class_started = Instant::now();
        let started_s = seconds(class_started.duration_since(self.started));
        let class_config = GenerateConfig {
            class: class.clone(),
            budget_s,
            keep_artifacts: self
                .base
                .keep_artifacts
                .as_ref()
                .map(|d| d.join(class.binary())),
            ..self.base.clone()
        };
        let report_file = self
            .report_dir
            .join("rivet-reports")
            .join(format!("{class}.json"));
        // A panic inside one class's run (a bug of Rivet's) fails that class, not the run.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            api_model(self.session, &class_config).and_then(|model| {
                if model.targets.is_empty() {
                    return Err(EngineError::BadInput(
                        "no usable API: no constructor or method a test can call".into(),
                    ));
                }
                run_class(
                    self.session,
                    workers,
                    &class_config,
                    model,
                    (class_started, &report_file),
                    &mut |event: Event| send(ProjectEvent::Inner { index, event }),
                )
            })
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            Err(EngineError::Internal {
                class: class.clone(),
                reason: format!("internal error: {what}"),
            })
        });
        let done = match result {
            Ok(outcome) => ClassEntry {
                class: class.clone(),
                status: ClassStatus::Generated,
                reason: no_tests_reason(&outcome.report),
                tests: outcome.report.tests,
                branches_covered: outcome.report.branches_covered,
                branches_total: outcome.report.branches_total,
                verified: outcome.report.verified,
                budget_s,
                started_s,
                elapsed_s: seconds(class_started.elapsed()),
                test_file: outcome
                    .test_file
                    .as_deref()
                    .map(|f| relative(self.report_dir, f)),
                report_file: Some(relative(self.report_dir, &outcome.report_file)),
            },
            Err(e) => {
                // Untestable classes are skipped; anything else failed. The run goes on.
                let status = if e.is_bad_input() {
                    ClassStatus::Skipped
                } else {
                    ClassStatus::Failed
                };
                tracing::warn!(%class, error = %e, "class not generated");
                let mut e = entry(class, status, Some(e.to_string()), budget_s);
                e.started_s = started_s;
                e.elapsed_s = seconds(class_started.elapsed());
                e
            }
        };
        self.overrun
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .add(class_started.elapsed(), Duration::from_secs(budget_s));
        done
    }
}

/// What [`run_lanes`] needs besides the classes.
pub(crate) struct LaneRun<'a> {
    pub session: &'a Session,
    pub base: &'a GenerateConfig,
    /// The classes to run, in order.
    pub classes: &'a [ClassName],
    /// Classes at a time (None: [`default_lanes`]).
    pub lanes: Option<usize>,
    pub cache_root: &'a Path,
    pub started: Instant,
    pub total: Option<Duration>,
    pub report_dir: &'a Path,
}

/// Runs `run.classes` in lanes and returns their entries in the classes' order; `observe`
/// gets every event, one at a time, on the calling thread.
pub(crate) fn run_lanes(
    run: &LaneRun<'_>,
    observe: &mut dyn FnMut(ProjectEvent),
) -> Result<Vec<ClassEntry>, EngineError> {
    if run.classes.is_empty() {
        return Ok(Vec::new());
    }
    let lanes = lane_count(run.lanes, run.classes.len(), run.base.workers);
    // One instrumentation of all the classes (cached: the second pool reuses the first's),
    // a pool of workers per lane, started before any class runs.
    let mut names: Vec<ClassName> = run.classes.to_vec();
    // And the classes `--cover` names, whose branches are goals of every class's run.
    let mut base = run.base.clone();
    base.class = names[0].clone();
    for c in crate::generate::cover_classes(run.session, &base)? {
        if !names.contains(&c) {
            names.push(c);
        }
    }
    let mut pools = Vec::with_capacity(lanes);
    for workers in lane_workers(lanes, run.base.workers) {
        pools.push(run.session.start_workers(&names, run.cache_root, workers)?);
    }
    tracing::info!(lanes, classes = run.classes.len(), "classes run in lanes");
    let queue = Queue {
        session: run.session,
        base: run.base,
        classes: run.classes,
        next: AtomicUsize::new(0),
        lanes,
        started: run.started,
        total: run.total,
        overrun: Mutex::new(Overrun::default()),
        report_dir: run.report_dir,
    };
    let mut entries: Vec<Option<ClassEntry>> = vec![None; run.classes.len()];
    // Scoped threads rather than rayon: each lane owns a pool of JVMs for the whole run and
    // takes classes as it frees up (an atomic index), which is a thread per lane, not a data-
    // parallel map; the lanes borrow the session and the configuration for the scope.
    std::thread::scope(|scope| {
        let (sender, events) = channel();
        for mut workers in pools {
            let sender = sender.clone();
            let queue = &queue;
            let lane = std::thread::Builder::new()
                .name("rivet-lane".into())
                .stack_size(LANE_STACK)
                .spawn_scoped(scope, move || queue.lane(&mut workers, &sender));
            if let Err(e) = lane {
                // Its classes go to the other lanes (the queue is shared); with none, to
                // no one: say so.
                tracing::warn!(error = %e, "a lane could not be started");
            }
        }
        drop(sender);
        // Until every lane has finished and dropped its sender.
        for event in events {
            if let ProjectEvent::Done { index, entry } = &event {
                if let Some(slot) = entries.get_mut(*index) {
                    *slot = Some(entry.clone());
                }
            }
            observe(event);
        }
    });
    // A lane that died outside a class's run (it cannot panic inside one) left its class
    // without an entry: it failed.
    Ok(entries
        .into_iter()
        .zip(run.classes)
        .map(|(e, class)| {
            e.unwrap_or_else(|| {
                entry(
                    class,
                    ClassStatus::Failed,
                    Some("internal error: the class's lane stopped".into()),
                    0,
                )
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_budget_is_shared_net_of_what_classes_run_past_their_budgets() {
        let s = Duration::from_secs;
        assert_eq!(total_share(s(60), 13, 1, s(0)), Some(4));
        // Three seconds past each budget: the rest is shared.
        assert_eq!(total_share(s(60), 12, 1, s(3)), Some(2));
        assert_eq!(total_share(s(20), 10, 1, s(3)), Some(1));
        assert_eq!(total_share(s(4), 1, 1, s(3)), Some(1));
        assert_eq!(total_share(Duration::from_millis(3500), 1, 1, s(3)), None);
        assert_eq!(total_share(s(0), 1, 1, s(0)), None);
    }

    #[test]
    fn lanes_multiply_the_share_of_a_total_budget_but_never_past_what_is_left() {
        let s = Duration::from_secs;
        // Two lanes: 13 classes run in about 7 rounds.
        assert_eq!(total_share(s(60), 13, 2, s(0)), Some(9));
        assert_eq!(total_share(s(60), 13, 2, s(3)), Some(6));
        // Fewer classes left than lanes: each may take all that is left.
        assert_eq!(total_share(s(60), 1, 4, s(0)), Some(60));
        assert_eq!(total_share(s(60), 3, 4, s(10)), Some(50));
    }

    #[test]
    fn lanes_are_capped_by_the_classes_and_the_workers_and_share_the_workers() {
        assert_eq!(lane_count(Some(2), 4, Some(2)), 2);
        assert_eq!(lane_count(Some(4), 2, Some(8)), 2);
        assert_eq!(lane_count(Some(4), 9, Some(3)), 3);
        assert_eq!(lane_count(Some(3), 0, Some(3)), 1);
        assert!(lane_count(None, 100, Some(100)) >= 1);
        assert_eq!(lane_workers(1, None), vec![None]);
        assert_eq!(lane_workers(1, Some(3)), vec![Some(3)]);
        assert_eq!(lane_workers(2, Some(2)), vec![Some(1), Some(1)]);
        assert_eq!(lane_workers(2, Some(5)), vec![Some(3), Some(2)]);
        // Never a lane without a JVM.
        assert_eq!(lane_workers(3, Some(1)), vec![Some(1); 3]);
    }
}
