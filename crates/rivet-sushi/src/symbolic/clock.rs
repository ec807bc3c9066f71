//! When a path-condition goal is given up: its slice is spent, or its best distance has not
//! improved for the stall time (a goal still getting closer keeps its whole slice). A goal
//! may get only a share of both (`PcPolicy::slice_share`). Moments are readings of the run's
//! clock (virtual under an execution cap).

use std::time::Duration;

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

/// A goal's time: when it started, its share of a slice, its best distance so far, and when
/// that last improved.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GoalClock {
    since: Duration,
    share: f64,
    best: Option<f64>,
    improved: Duration,
}

impl GoalClock {
    /// A goal started at `now` that gets `share` (in (0, 1]) of the slice and of the stall.
    pub(crate) fn start(now: Duration, share: f64) -> GoalClock {
        GoalClock {
            since: now,
            share: share.clamp(0.01, 1.0),
            best: None,
            improved: now,
        }
    }

    /// Time since the goal started.
    pub(crate) fn spent(&self, now: Duration) -> Duration {
        now.saturating_sub(self.since)
    }

    /// Records the goal's best distance at `now` (None: no test has called its method yet).
    pub(crate) fn observe(&mut self, best: Option<f64>, now: Duration) {
        if let Some(d) = best {
            if self.best.is_none_or(|b| d < b) {
                self.best = Some(d);
                self.improved = now;
            }
        }
    }

    /// Whether the goal is given up at `now`, and why, for its share of `slice` and `stall`.
    pub(crate) fn given_up(
        &self,
        now: Duration,
        slice: Duration,
        stall: Duration,
    ) -> Option<GiveUp> {
        if self.spent(now) >= slice.mul_f64(self.share) {
            Some(GiveUp::SliceSpent)
        } else if now.saturating_sub(self.improved) >= stall.mul_f64(self.share) {
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

    fn at(t0: Duration, ms: u64) -> Duration {
        t0 + Duration::from_millis(ms)
    }

    #[test]
    fn a_goal_that_never_gets_closer_stalls_before_its_slice() {
        let t0 = Duration::from_secs(7);
        let mut c = GoalClock::start(t0, 1.0);
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
        let t0 = Duration::from_secs(7);
        let mut c = GoalClock::start(t0, 1.0);
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
        let t0 = Duration::from_secs(7);
        let mut c = GoalClock::start(t0, 1.0);
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
        let t0 = Duration::from_secs(7);
        let mut c = GoalClock::start(t0, 1.0);
        c.observe(None, at(t0, 1_000));
        c.observe(Some(2.0), at(t0, 2_500));
        assert_eq!(
            c.given_up(at(t0, 5_000), SLICE, STALL),
            Some(GiveUp::SliceSpent)
        );
        assert_eq!(c.given_up(at(t0, 4_900), SLICE, STALL), None);
    }

    #[test]
    fn a_goal_with_a_quarter_share_stalls_and_runs_out_four_times_sooner() {
        let t0 = Duration::from_secs(7);
        let stalled = GoalClock::start(t0, 0.25);
        assert_eq!(stalled.given_up(at(t0, 700), SLICE, STALL), None);
        assert_eq!(
            stalled.given_up(at(t0, 750), SLICE, STALL),
            Some(GiveUp::Stalled)
        );
        let mut closer = GoalClock::start(t0, 0.25);
        for (ms, d) in [(0, 0.9), (500, 0.8), (1_000, 0.7)] {
            closer.observe(Some(d), at(t0, ms));
        }
        assert_eq!(closer.given_up(at(t0, 1_200), SLICE, STALL), None);
        assert_eq!(
            closer.given_up(at(t0, 1_250), SLICE, STALL),
            Some(GiveUp::SliceSpent)
        );
    }
}
