//! The concolic strategy's patience beside the other strategies: nodes that keep giving
//! nothing (no test that covers more, no path-condition goal) make it wait longer and longer
//! before asking the next, so that its solving stops taking the cores the search's tests run
//! on. It is asked less often, never not at all: one fruitful node restores it.

use std::time::Duration;

/// When the next node may be asked, from what the last ones gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patience {
    /// Solving time of the current run of fruitless nodes.
    fruitless: Duration,
    /// Solving time without fruit after which the strategy pauses.
    limit: Duration,
    /// The next pause; it doubles after each fruitless node asked after a pause, up to `most`.
    pause: Duration,
    first_pause: Duration,
    most: Duration,
    /// The clock time before which no node is asked.
    resume_at: Option<Duration>,
    /// Pauses taken, for the report.
    pauses: usize,
}

impl Patience {
    /// Pauses once `limit` of solving gave nothing: first for `first_pause`, then twice as
    /// long after each fruitless node, at most `most`.
    pub fn new(limit: Duration, first_pause: Duration, most: Duration) -> Patience {
        Patience {
            fruitless: Duration::ZERO,
            limit,
            pause: first_pause,
            first_pause,
            most,
            resume_at: None,
            pauses: 0,
        }
    }

    /// May a node be asked at clock time `now`?
    pub fn ready(&self, now: Duration) -> bool {
        self.resume_at.is_none_or(|t| now >= t)
    }

    /// A node's answer at clock time `now`, after `took` of solving: `fruitful` when its test
    /// covered more or it became a goal.
    pub fn record(&mut self, fruitful: bool, took: Duration, now: Duration) {
        if fruitful {
            self.fruitless = Duration::ZERO;
            self.pause = self.first_pause;
            self.resume_at = None;
            return;
        }
        self.fruitless += took;
        if self.fruitless >= self.limit {
            self.resume_at = Some(now + self.pause);
            self.pause = (self.pause * 2).min(self.most);
            self.pauses += 1;
        }
    }

    pub fn pauses(&self) -> usize {
        self.pauses
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn fruitless_solving_pauses_for_longer_each_time_up_to_the_most() {
        let mut p = Patience::new(ms(1000), ms(2000), ms(5000));
        p.record(false, ms(600), ms(600));
        assert!(p.ready(ms(600)), "below the limit no pause");
        p.record(false, ms(600), ms(1200));
        assert!(!p.ready(ms(3199)));
        assert!(p.ready(ms(3200)));
        // One more fruitless node: twice as long.
        p.record(false, ms(10), ms(3210));
        assert!(!p.ready(ms(7209)));
        assert!(p.ready(ms(7210)));
        // Then at most `most`.
        p.record(false, ms(10), ms(7220));
        assert!(p.ready(ms(12220)) && !p.ready(ms(12219)));
        p.record(false, ms(10), ms(12230));
        assert!(p.ready(ms(17230)) && !p.ready(ms(17229)));
        assert_eq!(p.pauses(), 4);
    }

    #[test]
    fn a_fruitful_node_restores_patience() {
        let mut p = Patience::new(ms(100), ms(2000), ms(8000));
        p.record(false, ms(100), ms(100));
        p.record(false, ms(1), ms(2100));
        assert!(!p.ready(ms(2200)));
        p.record(true, ms(1), ms(2200));
        assert!(p.ready(ms(2200)));
        // The limit and the first pause count again from the start.
        p.record(false, ms(99), ms(2300));
        assert!(p.ready(ms(2300)));
        p.record(false, ms(1), ms(2301));
        assert!(!p.ready(ms(4300)) && p.ready(ms(4301)));
    }
}
