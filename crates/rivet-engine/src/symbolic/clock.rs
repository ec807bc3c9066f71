//! When a path-condition goal is given up: its slice is spent, or its best distance has not
//! improved for the stall time (a goal still getting closer keeps its whole slice).

use std::time::{Duration, Instant};

/// The share of a goal's slice it may go without getting closer.
pub(crate) const STALL_SHARE: f64 = 0.6;

/// Why a goal was given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GiveUp {
    /// Its slice was spent.
    SliceSpent,
    /// It had stopped getting closer before its slice was spent.
    Stalled,
}

/// A goal's time: when it started, its best distance so far, and when that last improved.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GoalClock {
    since: Instant,
    best: Option<f64>,
    improved: Instant,
}

impl GoalClock {
    pub(crate) fn start(now: Instant) -> GoalClock {
        GoalClock {
            since: now,
            best: None,
            improved: now,
        }
    }

    /// Time since the goal started.
    pub(crate) fn spent(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.since)
    }

    /// Records the goal's best distance at `now` (None: no test has called its method yet).
    pub(crate) fn observe(&mut self, best: Option<f64>, now: Instant) {
        if let Some(d) = best {
            if self.best.is_none_or(|b| d < b) {
                self.best = Some(d);
                self.improved = now;
            }
        }
    }

    /// Whether the goal is given up at `now`, and why, for `slice` and `stall`.
    pub(crate) fn given_up(
        &self,
        now: Instant,
        slice: Duration,
        stall: Duration,
    ) -> Option<GiveUp> {
        if self.spent(now) >= slice {
            Some(GiveUp::SliceSpent)
        } else if now.saturating_duration_since(self.improved) >= stall {
            Some(GiveUp::Stalled)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLICE: Duration = Duration::from_secs(5);
    const STALL: Duration = Duration::from_secs(3);

    fn at(t0: Instant, ms: u64) -> Instant {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn a_goal_that_never_gets_closer_stalls_before_its_slice() {
        let t0 = Instant::now();
        let mut c = GoalClock::start(t0);
        c.observe(Some(0.5), at(t0, 100));
        c.observe(Some(0.5), at(t0, 2_000));
        assert_eq!(c.given_up(at(t0, 3_000), SLICE, STALL), None);
        assert_eq!(
            c.given_up(at(t0, 3_100), SLICE, STALL),
            Some(GiveUp::Stalled)
        );
    }

    #[test]
    fn a_goal_still_getting_closer_keeps_its_whole_slice() {
        let t0 = Instant::now();
        let mut c = GoalClock::start(t0);
        for (ms, d) in [(0, 0.9), (2_000, 0.8), (4_000, 0.7)] {
            c.observe(Some(d), at(t0, ms));
        }
        assert_eq!(c.given_up(at(t0, 4_900), SLICE, STALL), None);
        assert_eq!(
            c.given_up(at(t0, 5_000), SLICE, STALL),
            Some(GiveUp::SliceSpent)
        );
    }

    #[test]
    fn a_worse_distance_or_none_is_no_improvement() {
        let t0 = Instant::now();
        let mut c = GoalClock::start(t0);
        c.observe(Some(0.5), at(t0, 0));
        c.observe(Some(0.6), at(t0, 1_000));
        c.observe(None, at(t0, 2_000));
        assert_eq!(
            c.given_up(at(t0, 3_000), SLICE, STALL),
            Some(GiveUp::Stalled)
        );
    }

    #[test]
    fn the_first_distance_counts_as_getting_closer() {
        let t0 = Instant::now();
        let mut c = GoalClock::start(t0);
        c.observe(None, at(t0, 1_000));
        c.observe(Some(2.0), at(t0, 2_500));
        assert_eq!(
            c.given_up(at(t0, 5_000), SLICE, STALL),
            Some(GiveUp::SliceSpent)
        );
        assert_eq!(c.given_up(at(t0, 4_900), SLICE, STALL), None);
    }
}
