//! How long a test may run: the configured time limit, a limit adapted to the tests a JVM ran,
//! or a count of branch probes, which ends a looping test at the same point on every run.

use std::time::Duration;

/// How the tests sent from now on are limited. Every mode keeps the configured time limit as
/// the bound the Rust side waits for; the harness's probes end a test in a loop of instrumented
/// code before it, so that the JVM need not be replaced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TestLimit {
    /// The configured time limit (minimizing, verifying, the final run).
    #[default]
    Configured,
    /// Four times the slowest recent test (see [`time_limit`]): a search that keeps producing
    /// loops loses less time to them.
    Adaptive,
    /// At most this many branch probes (counted in steps of the harness's clock checks, 1,024
    /// probes) within the configured time: a test in a loop ends at the same probe on every
    /// run, which a run under an execution cap needs to come out the same; a time limit ends
    /// it at whatever point the machine's load of the moment allows.
    Probes(u64),
}

impl TestLimit {
    /// Whether the time limit follows the tests ([`TestLimit::Adaptive`]).
    pub(crate) fn adapts(self) -> bool {
        self == TestLimit::Adaptive
    }

    /// The probe budget the harness arms (0: none).
    pub(crate) fn probes(self) -> u64 {
        match self {
            TestLimit::Probes(n) => n.max(1),
            _ => 0,
        }
    }
}

/// The probe budget of a strategies' test under an execution cap. A branch probe costs the
/// code under test some nanoseconds once compiled (a few hundred while interpreted): four
/// million of them take tens of milliseconds, far below the configured second and cheaper
/// than the adaptive limit's floor, and far above what a unit test's calls on small inputs
/// execute.
pub const CAPPED_PROBE_BUDGET: u64 = 4 << 20;

/// The shortest time limit the adaptive mode sets.
const ADAPTIVE_FLOOR: Duration = Duration::from_millis(250);
/// How many times the slowest recent test the adaptive mode allows. Every test in a loop costs
/// the limit: on guava's LinkedListMultimap (search, 60 s) 26 of 32k tests looped, while of
/// those that completed 78 took more than 20 ms, the slowest 208 ms; at twenty times that, the
/// loops took a third of the workers' time.
const ADAPTIVE_FACTOR: u32 = 4;

/// How many tests one window of [`RecentSlowest`] counts.
const SLOWEST_WINDOW: u64 = 2_000;

/// The slowest test among a JVM's recent ones: the larger of the slowest of the current window
/// of [`SLOWEST_WINDOW`] tests and of the window before it. One slow test (a collection, a
/// compilation) then raises the adaptive limit for a few thousand tests, not for the JVM's
/// life, while every test in a loop costs that limit. The harness keeps the same (`Deadline`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RecentSlowest {
    current: Option<Duration>,
    previous: Option<Duration>,
    counted: u64,
}

impl RecentSlowest {
    /// A test that completed in `took` (not the JVM's first, not one that overran).
    pub(crate) fn record(&mut self, took: Duration) {
        if self.counted > 0 && self.counted.is_multiple_of(SLOWEST_WINDOW) {
            self.previous = self.current.take();
        }
        self.counted += 1;
        self.current = Some(self.current.map_or(took, |s| s.max(took)));
    }

    /// The slowest of the current window and the one before (None before any test).
    pub(crate) fn get(&self) -> Option<Duration> {
        self.current.max(self.previous)
    }
}

/// The time limit of the next test: `limit`, or in adaptive mode four times the slowest
/// recent test this JVM completed after its first ([`RecentSlowest`]), at least
/// [`ADAPTIVE_FLOOR`], at most `limit`.
pub(crate) fn time_limit(limit: Duration, adaptive: bool, slowest: Option<Duration>) -> Duration {
    match (adaptive, slowest) {
        (true, Some(s)) => (s * ADAPTIVE_FACTOR).clamp(ADAPTIVE_FLOOR.min(limit), limit),
        _ => limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adaptive_limits_follow_the_slowest_test_within_bounds() {
        let limit = Duration::from_secs(1);
        let ms = Duration::from_millis;
        assert_eq!(time_limit(limit, false, Some(ms(1))), limit);
        assert_eq!(time_limit(limit, true, None), limit);
        assert_eq!(time_limit(limit, true, Some(ms(1))), ms(250));
        assert_eq!(time_limit(limit, true, Some(ms(100))), ms(400));
        assert_eq!(time_limit(limit, true, Some(ms(300))), limit);
        // A configured limit below the floor stays the limit.
        assert_eq!(time_limit(ms(100), true, Some(ms(1))), ms(100));
    }

    #[test]
    fn a_slow_test_counts_for_its_window_and_the_next_only() {
        let ms = Duration::from_millis;
        let mut s = RecentSlowest::default();
        assert_eq!(s.get(), None);
        s.record(ms(40));
        for _ in 1..SLOWEST_WINDOW {
            s.record(ms(1));
        }
        assert_eq!(s.get(), Some(ms(40)), "still the current window");
        for _ in 0..SLOWEST_WINDOW {
            s.record(ms(1));
        }
        assert_eq!(s.get(), Some(ms(40)), "the window before");
        s.record(ms(2));
        assert_eq!(s.get(), Some(ms(2)), "two windows later it is forgotten");
        s.record(ms(30));
        assert_eq!(s.get(), Some(ms(30)), "a slower one counts at once");
    }
}
