//! The last resort behind the engine's own time checks: a run that is still going well after
//! its time bound (a bug in Rivet, not in the code under test, which the workers already
//! bound) is ended with a clear message instead of hanging a CI job.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long past its bound a run may go before the guard ends it: the engine's own checks
/// get a moment to finish what they are writing.
const MARGIN: Duration = Duration::from_secs(10);

/// When the running command must have ended, once it says (`arm`).
#[derive(Clone, Default)]
pub struct TimeGuard(Arc<Mutex<Option<Armed>>>);

#[derive(Clone, Copy)]
struct Armed {
    at: Instant,
    bound: Duration,
}

impl TimeGuard {
    /// From now on the run must end within `bound` (plus a margin).
    pub fn arm(&self, bound: Duration) {
        let armed = Armed {
            at: Instant::now(),
            bound,
        };
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(armed);
    }

    /// The bound, if the run is past it and the margin.
    pub fn overrun(&self) -> Option<Duration> {
        let armed = (*self.0.lock().unwrap_or_else(PoisonError::into_inner))?;
        (armed.at.elapsed() > armed.bound + MARGIN).then_some(armed.bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unarmed_guard_never_fires_and_an_armed_one_only_past_its_margin() {
        let guard = TimeGuard::default();
        assert_eq!(guard.overrun(), None);
        guard.arm(Duration::from_secs(1));
        assert_eq!(guard.overrun(), None, "within the bound");
        let past = TimeGuard::default();
        *past.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(Armed {
            at: Instant::now() - Duration::from_secs(12),
            bound: Duration::from_secs(1),
        });
        assert_eq!(past.overrun(), Some(Duration::from_secs(1)));
    }
}
