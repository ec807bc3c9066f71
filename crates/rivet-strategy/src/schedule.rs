//! The adaptive portfolio: which strategy takes the next turn. Each strategy's share of the
//! strategies' time follows its recent reward (goals it covered first per unit of cost) times
//! its prior weight (today's fixed split: the search twice the others), above a floor for
//! each, so that a technique that starts paying late is noticed and one that has returned
//! nothing for a while is asked less often, never not at all. Turns go to the strategy
//! furthest behind its share (stride scheduling on virtual time). The cost of a turn is its
//! time on the run's clock (`rivet_clock`): under an execution cap, virtual time that only
//! the work done advances, so that a capped run schedules the same way every time.
//!
//! A technique's reward can come late (SUSHI pays only after its exploration), so each
//! strategy keeps at least its prior share until it has spent its prior share of the first
//! quarter of the whole: the initial pulls of a bandit arm whose reward is delayed. A strategy
//! whose work must come before any reward (SUSHI's exploration) says so, and gets half the
//! time at least while it does; in a portfolio of more than it and the search, only within that
//! same protection: past it, the work goes on at the share the strategy's reward earns, so
//! that an exploration that leads nowhere (on most real classes SUSHI's path conditions are
//! never reached) does not hold half the time.

/// Each active strategy's least share of the time.
pub const FLOOR: f64 = 0.06;

/// The least share of a strategy past its prior protection whose recent turns brought
/// nothing (less than [`IDLE_REWARD`]) and that is not warming up: asked less often, not
/// never. On real library classes the search is still climbing when SUSHI's and the concolic
/// strategy's turns return nothing, and two floors of [`FLOOR`] cost it an eighth of its time.
pub const IDLE_FLOOR: f64 = FLOOR / 4.0;

/// A strategy's recent reward (goals covered first, faded) below which it counts as idle.
pub const IDLE_REWARD: f64 = 0.5;

/// The least share of a strategy warming up.
pub const WARM_UP: f64 = 0.5;

/// How a turn's cost is measured: in seconds on the run's clock (the wall clock, or under an
/// execution cap the virtual one that only the work done advances, so that a capped run
/// schedules alike every time). The whole is the strategies' time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    pub whole: f64,
}

impl Cost {
    /// The cost of one turn that took `seconds`: even a turn that does nothing costs a
    /// little, so no strategy can take turns for free.
    pub fn of_turn(self, seconds: f64) -> f64 {
        seconds.max(0.002)
    }

    fn whole(self) -> f64 {
        self.whole.max(f64::MIN_POSITIVE)
    }
}

/// One strategy's standing.
#[derive(Debug, Clone, Default, PartialEq)]
struct Standing {
    prior: f64,
    /// Recent goals covered first and recent cost, decayed with the run's progress.
    reward: f64,
    cost: f64,
    /// Cost over share so far: the next turn goes to the lowest.
    virtual_time: f64,
    /// All the cost so far, undecayed.
    spent: f64,
}

/// The portfolio's state over one drive.
#[derive(Debug, Clone)]
pub struct Schedule {
    measure: Cost,
    standings: Vec<Standing>,
    /// Which strategies are warming up now.
    warming: Vec<bool>,
}

impl Schedule {
    /// A schedule over strategies with these prior weights (positive; today's split).
    pub fn new(measure: Cost, priors: &[f64]) -> Schedule {
        Schedule {
            measure,
            standings: priors
                .iter()
                .map(|p| Standing {
                    prior: p.max(f64::MIN_POSITIVE),
                    ..Standing::default()
                })
                .collect(),
            warming: vec![false; priors.len()],
        }
    }

    /// Says which strategies are warming up (work that must come before any reward).
    pub fn set_warming(&mut self, warming: &[bool]) {
        self.warming = warming.to_vec();
        self.warming.resize(self.standings.len(), false);
    }

    pub fn measure(&self) -> Cost {
        self.measure
    }

    /// The strategy to take the next turn among those not `done`: the one furthest behind its
    /// share (the first on a tie); None when all are done.
    pub fn next(&self, done: &[bool]) -> Option<usize> {
        self.standings
            .iter()
            .enumerate()
            .filter(|(i, _)| !done.get(*i).copied().unwrap_or(true))
            .min_by(|(_, a), (_, b)| a.virtual_time.total_cmp(&b.virtual_time))
            .map(|(i, _)| i)
    }

    /// The shares of the time the strategies not `done` get now (0 for the done ones).
    pub fn shares(&self, done: &[bool]) -> Vec<f64> {
        let active: Vec<bool> = (0..self.standings.len())
            .map(|i| !done.get(i).copied().unwrap_or(true))
            .collect();
        let n = active.iter().filter(|a| **a).count();
        if n == 0 {
            return vec![0.0; self.standings.len()];
        }
        // The recent rate (goals per unit of cost, the cost counted from a twentieth of the
        // whole so that one lucky cheap turn is no rate), plus one goal over the whole run:
        // without rewards the time follows the priors.
        let whole = self.measure.whole();
        let weights: Vec<f64> = self
            .standings
            .iter()
            .zip(&active)
            .map(|(s, a)| {
                if *a {
                    s.prior * (s.reward / (s.cost + whole / 20.0) + 1.0 / whole)
                } else {
                    0.0
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let floors = self.floors(&active, n);
        let free = 1.0 - floors.iter().sum::<f64>();
        let adaptive: Vec<f64> = weights
            .iter()
            .zip(&active)
            .zip(&floors)
            .map(|((w, a), f)| if *a { f + free * w / total } else { 0.0 })
            .collect();
        self.protect_priors(adaptive, &active)
    }

    /// Each active strategy's least share: [`FLOOR`] (at most an equal split of the `n`
    /// active), or [`IDLE_FLOOR`] for an idle one past its protection.
    fn floors(&self, active: &[bool], n: usize) -> Vec<f64> {
        let floor = FLOOR.min(1.0 / n as f64);
        self.standings
            .iter()
            .zip(active)
            .zip(self.prior_shares(active))
            .enumerate()
            .map(|(i, ((s, a), (_, protected)))| {
                let warming = self.warming.get(i).copied().unwrap_or(false);
                match (*a, !warming && !protected && s.reward < IDLE_REWARD) {
                    (false, _) => 0.0,
                    (true, true) => floor * IDLE_FLOOR / FLOOR,
                    (true, false) => floor,
                }
            })
            .collect()
    }

    /// Raises each strategy that has spent less than its prior share of a quarter of the
    /// whole to its prior share, and one that warms up to half the time: within that same
    /// protection when three or more strategies are active, for as long as it warms up when
    /// only one other is; the others give up the difference in proportion.
    fn protect_priors(&self, mut shares: Vec<f64>, active: &[bool]) -> Vec<f64> {
        let n_active = active.iter().filter(|a| **a).count();
        let mut raised = vec![false; shares.len()];
        let mut extra = 0.0;
        for (i, (prior_share, protected)) in self.prior_shares(active).into_iter().enumerate() {
            let mut least: f64 = 0.0;
            if protected {
                least = prior_share;
            }
            // Beside the search alone (the technique the user asked for), the warm-up keeps
            // half the time while it lasts; in a wider portfolio only within the protection.
            let warming = self.warming.get(i).copied().unwrap_or(false);
            if warming && (protected || n_active <= 2) {
                least = least.max(WARM_UP);
            }
            if active[i] && shares[i] < least {
                extra += least - shares[i];
                shares[i] = least;
                raised[i] = true;
            }
        }
        let rest: f64 = (0..shares.len())
            .filter(|i| active[*i] && !raised[*i])
            .map(|i| shares[i])
            .sum();
        if extra > 0.0 && rest > 0.0 {
            let keep = ((rest - extra) / rest).max(0.0);
            for i in 0..shares.len() {
                if active[i] && !raised[i] {
                    shares[i] *= keep;
                }
            }
        }
        shares
    }

    /// Each strategy's prior share among the `active` ones, and whether it is still
    /// protected: it has spent less than that share of a quarter of the whole.
    fn prior_shares(&self, active: &[bool]) -> Vec<(f64, bool)> {
        let prior_total: f64 = self
            .standings
            .iter()
            .zip(active)
            .filter(|(_, a)| **a)
            .map(|(s, _)| s.prior)
            .sum();
        let initial = self.measure.whole() / 4.0;
        self.standings
            .iter()
            .map(|s| {
                let share = s.prior / prior_total;
                (share, s.spent < share * initial)
            })
            .collect()
    }

    /// How long a turn of strategy `i` should take at most: its share of a quarter of the
    /// strategies' `time`, at least a twentieth of a second.
    pub fn allowance(
        &self,
        i: usize,
        done: &[bool],
        time: std::time::Duration,
    ) -> std::time::Duration {
        let share = self.shares(done).get(i).copied().unwrap_or(FLOOR);
        time.mul_f64(share / 4.0)
            .max(std::time::Duration::from_millis(50))
    }

    /// Records a turn of strategy `turn` that cost `cost` and brought `rewards[j]` goals
    /// covered first to each strategy `j` (a test a strategy's goal guided is that
    /// strategy's, whoever ran it). Older rewards and costs fade: by half over a quarter of
    /// the whole.
    pub fn record(&mut self, turn: usize, cost: f64, rewards: &[f64], done: &[bool]) {
        let shares = self.shares(done);
        let fade = 0.5f64.powf(cost / (self.measure.whole() / 4.0));
        for s in &mut self.standings {
            s.reward *= fade;
            s.cost *= fade;
        }
        if let Some(s) = self.standings.get_mut(turn) {
            s.cost += cost;
            s.spent += cost;
            let share = shares
                .get(turn)
                .copied()
                .unwrap_or(FLOOR)
                .max(IDLE_FLOOR / 2.0);
            s.virtual_time += cost / share;
        }
        for (s, r) in self.standings.iter_mut().zip(rewards) {
            s.reward += r;
        }
        // A strategy that was behind by more than a whole share catches up from the front of
        // the pack, not from where it was (it does not get a burst of turns).
        let front = self
            .standings
            .iter()
            .zip(done)
            .filter(|(_, d)| !**d)
            .map(|(s, _)| s.virtual_time)
            .fold(f64::NEG_INFINITY, f64::max);
        let window = self.measure.whole() / 10.0;
        for (s, d) in self.standings.iter_mut().zip(done) {
            if !*d && s.virtual_time < front - window {
                s.virtual_time = front - window;
            }
        }
    }
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
