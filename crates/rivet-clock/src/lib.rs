//! The run's clock: every budget, slice and deadline of the strategies is read from it.
//!
//! Without an execution cap it is the wall clock. Under a cap (`--max-executions`) it is
//! virtual: it advances only with the work done, the tests run, the symbolic interpreter's
//! steps and the solver queries that took their whole time limit, at the rate that makes the
//! cap the whole budget. Every time-based decision of a capped run (when a phase ends, when a
//! goal is given up, how long an exploration may take, whose turn it is) then comes out the
//! same on every run with the same seed. The solvers' own time limits stay wall-clock: a query that reaches one can still
//! differ between runs.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many interpreter steps count as much work as running one test.
pub const STEPS_PER_EXECUTION: u64 = 1_000;

/// A clock shared by everything one run's strategies do (cheap to clone: the clones read and
/// advance the same time).
#[derive(Debug, Clone)]
pub struct RunClock {
    kind: Kind,
    /// Set by [`ClockStop::stop`]: every deadline of this clock (and its clones) has passed.
    stop: Option<Arc<AtomicBool>>,
}

/// Ends the work that reads a [`RunClock::stoppable`] clone: from [`ClockStop::stop`] on,
/// its deadlines have all passed (the run's own clock goes on).
#[derive(Debug)]
pub struct ClockStop(Arc<AtomicBool>);

impl ClockStop {
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Wall(Instant),
    Virtual(Arc<Meter>),
}

/// The work done so far, in steps (a test run is `STEPS_PER_EXECUTION` of them).
#[derive(Debug)]
struct Meter {
    steps: AtomicU64,
    /// Steps per virtual second.
    rate: f64,
}

impl Default for RunClock {
    fn default() -> Self {
        RunClock::wall()
    }
}

impl RunClock {
    /// The wall clock, from now.
    pub fn wall() -> RunClock {
        RunClock {
            kind: Kind::Wall(Instant::now()),
            stop: None,
        }
    }

    /// The clock of a run with this much time and, perhaps, an execution cap: virtual under a
    /// cap (the cap's executions take the whole time), else the wall clock.
    pub fn for_budget(time: Duration, max_executions: Option<u64>) -> RunClock {
        match max_executions {
            Some(cap) => {
                let seconds = time.as_secs_f64().max(0.001);
                RunClock {
                    kind: Kind::Virtual(Arc::new(Meter {
                        steps: AtomicU64::new(0),
                        rate: (cap.max(1) * STEPS_PER_EXECUTION) as f64 / seconds,
                    })),
                    stop: None,
                }
            }
            None => RunClock::wall(),
        }
    }

    /// Is it virtual (counted from the work done)?
    pub fn is_virtual(&self) -> bool {
        matches!(self.kind, Kind::Virtual(_))
    }

    /// The time since the clock started.
    pub fn now(&self) -> Duration {
        match &self.kind {
            Kind::Wall(start) => start.elapsed(),
            Kind::Virtual(m) => {
                Duration::from_secs_f64(m.steps.load(Ordering::Relaxed) as f64 / m.rate)
            }
        }
    }

    /// The time since `since` (a reading of `now`).
    pub fn since(&self, since: Duration) -> Duration {
        self.now().saturating_sub(since)
    }

    /// The moment `after` from now, for `passed`.
    pub fn deadline(&self, after: Duration) -> Duration {
        self.now().saturating_add(after)
    }

    /// Has `deadline` (a reading of `now`, or of `deadline`) passed? Always, once a
    /// stoppable clone's stop was called.
    pub fn passed(&self, deadline: Duration) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
            || self.now() >= deadline
    }

    /// A clone reading the same time whose deadlines can be ended early with the returned
    /// handle: work on another thread (an exploration beside the search) that must end when
    /// the run's strategies stop.
    pub fn stoppable(&self) -> (RunClock, ClockStop) {
        let flag = Arc::new(AtomicBool::new(false));
        let clock = RunClock {
            kind: self.kind.clone(),
            stop: Some(Arc::clone(&flag)),
        };
        (clock, ClockStop(flag))
    }

    /// Counts `n` tests run (nothing on the wall clock).
    pub fn ran(&self, n: u64) {
        self.stepped(n.saturating_mul(STEPS_PER_EXECUTION));
    }

    /// Counts `n` interpreter steps (nothing on the wall clock).
    pub fn stepped(&self, n: u64) {
        if let Kind::Virtual(m) = &self.kind {
            m.steps.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Counts work that neither runs tests nor steps the interpreter, known to take `time` on
    /// the wall clock (a solver query that gave up after its time limit): on a virtual clock,
    /// that much virtual time; nothing on the wall clock, where it passed by itself.
    pub fn spent(&self, time: Duration) {
        if let Kind::Virtual(m) = &self.kind {
            // Saturating: a time past what the counter holds is all of it.
            let steps = (time.as_secs_f64() * m.rate).round() as u64;
            m.steps.fetch_add(steps, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_clock_moves_with_the_work_only() {
        let c = RunClock::for_budget(Duration::from_secs(10), Some(1_000));
        assert!(c.is_virtual());
        assert_eq!(c.now(), Duration::ZERO);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(c.now(), Duration::ZERO, "waiting is no work");
        // The cap's executions take the whole time.
        c.ran(100);
        assert_eq!(c.now(), Duration::from_secs(1));
        c.stepped(STEPS_PER_EXECUTION * 50);
        assert_eq!(c.now(), Duration::from_millis(1_500));
        c.spent(Duration::from_millis(250));
        assert_eq!(
            c.now(),
            Duration::from_millis(1_750),
            "a query that gave up"
        );
        let clone = c.clone();
        clone.ran(825);
        assert_eq!(c.now(), Duration::from_secs(10), "clones share the time");
        let wall = RunClock::wall();
        let before = wall.now();
        wall.spent(Duration::from_secs(3600));
        assert!(
            wall.now() - before < Duration::from_secs(60),
            "the wall clock"
        );
    }

    #[test]
    fn deadlines_pass_with_the_work_on_a_virtual_clock() {
        let c = RunClock::for_budget(Duration::from_secs(1), Some(100));
        let d = c.deadline(Duration::from_millis(100));
        assert!(!c.passed(d));
        c.ran(9);
        assert!(!c.passed(d));
        c.ran(1);
        assert!(c.passed(d));
        assert_eq!(
            c.since(Duration::from_millis(40)),
            Duration::from_millis(60)
        );
    }

    #[test]
    fn a_stopped_clone_has_passed_every_deadline_and_the_clock_goes_on() {
        let c = RunClock::wall();
        let (clone, stop) = c.stoppable();
        let d = clone.deadline(Duration::from_secs(3600));
        assert!(!clone.passed(d));
        stop.stop();
        assert!(clone.passed(d), "stopped");
        assert!(!c.passed(d), "the run's clock is not stopped");
        assert!(
            clone.now() < Duration::from_secs(3600),
            "it reads the same time"
        );
    }

    #[test]
    fn without_a_cap_it_is_the_wall_clock() {
        let c = RunClock::for_budget(Duration::from_secs(1), None);
        assert!(!c.is_virtual());
        let d = c.deadline(Duration::from_millis(2));
        c.ran(1_000_000);
        assert!(c.now() < Duration::from_secs(1), "work does not move it");
        std::thread::sleep(Duration::from_millis(3));
        assert!(c.passed(d));
    }
}
