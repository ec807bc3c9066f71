//! The symbolic strategy's exploration pass: one method at its next depth and searcher,
//! its precise, observable, ended paths kept for selection.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use rivet_search::Archive;
use rivet_symbolic::{ExploreConfig, SearcherKind};
use rivet_testcase::GoalId;
use tracing::{debug, info};

use super::pass::{Pass, PassOutcome};
use super::{
    next_searcher, searcher_name, KeptPath, Phase, SymbolicStrategy, FIRST_DEPTH, MAX_DEPTH,
};
use crate::learned::LearnedInvariants;

impl SymbolicStrategy {
    /// When an invariant that pruned an exploration has been retracted since the last check,
    /// queues every method again from its first pass (while exploration time is left): the
    /// paths the invariant wrongly ruled out are missing from the pool. Only methods with an
    /// uncovered branch, unless the strategy goes on until the budget is spent.
    pub(super) fn reexplore_if_stale(&mut self, archive: &Archive) {
        let Some(stale) = self.learned.as_ref().map(LearnedInvariants::retracted_used) else {
            return;
        };
        if stale <= self.reexplored_for || self.explore_budget_left() < Duration::from_millis(500) {
            return;
        }
        self.reexplored_for = stale;
        self.last_prospect = self.stats.explore_time;
        let until_budget = self.schedule.until_budget;
        for (i, m) in self.methods.iter_mut().enumerate() {
            let wanted = until_budget || m.branches.iter().any(|g| !archive.is_covered(*g));
            if m.depth > 0 && wanted && !self.queue.contains(&i) {
                m.depth = 0;
                m.searcher = SearcherKind::DepthFirst;
                m.done = false;
                self.queue.push_back(i);
            }
        }
        info!(
            methods = self.queue.len(),
            retracted = stale,
            "exploring again: a learned invariant that pruned paths was retracted"
        );
    }

    /// One pass of the exploration again while path-condition goals are searched.
    pub(super) fn explore_again(&mut self, archive: &Archive) {
        self.explore_next(archive);
        if self.phase == Phase::Select {
            // The queue ran out or the exploration time did; the goals go on.
            self.queue.clear();
            self.phase = Phase::Searching;
        }
    }

    /// Explores one method at its next depth within its share of the exploration time: here,
    /// or beside the search on the solving thread (`SymbolicSchedule::beside_search`), where
    /// a turn takes the outcome of the pass in flight once it has ended and starts the next.
    pub(super) fn explore_next(&mut self, archive: &Archive) {
        if let Some(b) = self.background.take() {
            if b.running() {
                self.background = Some(b);
                return;
            }
            let method = b.method;
            match b.finish() {
                Some(outcome) => self.apply_pass(outcome, archive),
                None => {
                    // The pass panicked (a bug in the explorer): no more passes of it.
                    debug!(method = %self.methods[method].spec.display(), "exploration pass lost");
                    self.methods[method].done = true;
                    self.after_pass(method, archive);
                }
            }
            if self.phase == Phase::Select {
                return;
            }
        }
        let Some(pass) = self.next_pass() else {
            return;
        };
        if self.beside_search() {
            self.background = Some(pass.start());
        } else {
            let outcome = pass.run();
            self.apply_pass(outcome, archive);
        }
    }

    /// Do passes run beside the search? Not on a virtual clock: a capped run explores in its
    /// turns, so that it decides alike every time.
    pub(super) fn beside_search(&self) -> bool {
        self.schedule.beside_search && !self.explorer.clock().is_virtual()
    }

    /// The next method's next pass, within its share of the exploration time left (and, in
    /// turns, the portfolio's allowance); None, and selection next, when none is left.
    fn next_pass(&mut self) -> Option<Pass> {
        let Some(i) = self.queue.pop_front() else {
            self.phase = Phase::Select;
            return None;
        };
        let left = self.explore_budget_left();
        if left < Duration::from_millis(50) {
            self.queue.clear();
            self.phase = Phase::Select;
            return None;
        }
        // Its share of the exploration time, within the portfolio's allowance for a turn (a
        // method not finished goes on at its next pass).
        let mut share = left / (self.queue.len() as u32 + 1);
        if !self.beside_search() {
            share = share.min(self.allowance.unwrap_or(left));
        }
        let m = &mut self.methods[i];
        m.depth = match (m.searcher, m.depth) {
            (_, 0) => FIRST_DEPTH,
            (SearcherKind::DepthFirst, d) => d * 2,
            _ => MAX_DEPTH,
        };
        let config = ExploreConfig {
            depth: m.depth,
            searcher: m.searcher,
            max_paths: 5_000,
            time_budget: Some(share.max(Duration::from_millis(100))),
            seed: self.schedule.seed,
            solver_timeout: Duration::from_millis(500),
            invariants: self
                .learned
                .as_mut()
                .map(LearnedInvariants::current)
                .unwrap_or_default(),
            cover: self.cover.clone(),
            ..ExploreConfig::default()
        };
        Some(Pass {
            method: i,
            searcher: m.searcher,
            depth: m.depth,
            share,
            explorer: self.explorer.with_config(config),
            spec: m.spec.clone(),
            branch_goals: self.branch_goals.clone(),
            recording: self.artifacts.is_some(),
        })
    }

    /// Takes in what a pass found: its kept paths, the method's next pass.
    pub(super) fn apply_pass(&mut self, o: PassOutcome, archive: &Archive) {
        let i = o.method;
        let member_label = o.spec.display();
        self.stats.explore_time += o.took;
        self.stats.methods_explored += 1;
        self.stats.paths += o.total;
        self.stats.precise_paths += o.precise;
        if let (Some(l), Ok(summary)) = (self.learned.as_mut(), &o.result) {
            l.note_uses(&summary.invariant_uses);
        }
        let m = &mut self.methods[i];
        match &o.result {
            Ok(summary) => {
                info!(method = %member_label, paths = o.total, kept = o.kept.len(), searcher = ?o.searcher, took = ?o.took, share = ?o.share, "explored");
                // Grow the depth while paths are cheap and some ended at a bound.
                let cheap = !summary.truncated && o.took < o.share / 2;
                if o.searcher == SearcherKind::DepthFirst
                    && cheap
                    && o.bounded > 0
                    && m.depth < MAX_DEPTH
                {
                    self.queue.push_back(i);
                } else {
                    match next_searcher(o.searcher) {
                        Some(next) => m.searcher = next,
                        None => m.done = true,
                    }
                }
            }
            Err(e) => {
                debug!(method = %member_label, error = %e, "exploration failed");
                m.done = true;
            }
        }
        for (pc, branches) in o.kept {
            if self.explored.insert(Arc::clone(&pc)) {
                if branches.iter().any(|g| !archive.is_covered(*g)) {
                    self.last_prospect = self.stats.explore_time;
                }
                if let Some(a) = self.alternatives.as_mut() {
                    a.know(&pc);
                }
                if self.policy.learns() {
                    self.selector.insert(self.paths.len(), &pc);
                }
                self.paths.push(KeptPath {
                    method: i,
                    pc,
                    branches,
                    tried: false,
                    alternative: None,
                });
            }
        }
        if let Some(a) = &mut self.artifacts {
            a.explored(
                &member_label,
                searcher_name(o.searcher),
                o.depth,
                &o.records,
            );
        }
        self.after_pass(i, archive);
    }

    /// After a pass of method `i`: another while some uncovered branch it reaches has no
    /// kept path (any branch under --pc-until-budget, where paths are wanted whether
    /// covered or not); selection next when no pass is left or the exploration is stale.
    fn after_pass(&mut self, i: usize, archive: &Archive) {
        let m = &self.methods[i];
        if !m.done && !self.queue.contains(&i) {
            let with_path: BTreeSet<GoalId> = self
                .paths
                .iter()
                .filter(|p| p.method == i)
                .flat_map(|p| p.branches.iter().copied())
                .collect();
            let until_budget = self.schedule.until_budget;
            let wanted = |g: &GoalId| until_budget || !archive.is_covered(*g);
            if m.branches
                .iter()
                .any(|g| wanted(g) && !with_path.contains(g))
            {
                self.queue.push_back(i);
            }
        }
        if self.queue.is_empty() || self.exploration_stale() {
            self.queue.clear();
            self.phase = Phase::Select;
        }
    }

    /// Has every method had its depth-first and breadth-first passes, and the passes kept no
    /// new path to a branch still uncovered for a quarter of the exploration time? On real
    /// library classes the later passes mostly meet the branches the tests already cover,
    /// and their time is the search's: `AbstractPatriciaTrie`'s 96,000 paths in 39 passes
    /// reached one uncovered branch. (The breadth-first pass is kept: a rule that stopped
    /// after the depth-first passes missed `sushi.Scheduler`'s deferral branch at seeds 0
    /// and 4.)
    fn exploration_stale(&mut self) -> bool {
        let first_passes_done = self
            .queue
            .iter()
            .all(|i| self.methods[*i].searcher == SearcherKind::Random);
        let since = self.stats.explore_time.saturating_sub(self.last_prospect);
        // Under --pc-until-budget the paths are wanted whether their branches are covered.
        let stale = !self.schedule.until_budget
            && stale_after(first_passes_done, since, self.schedule.explore);
        if stale {
            self.stats.explore_stale = true;
            info!(
                paths = self.stats.paths,
                ?since,
                "exploration stops: no new path to an uncovered branch"
            );
        }
        stale
    }
}

/// The exploration stops once this part of its time has passed without a new path to an
/// uncovered branch.
const STALE_SHARE: u32 = 4;

/// Is an exploration stale: its first passes done, and `since` its last new path to an
/// uncovered branch at least a [`STALE_SHARE`]th of its time `explore`?
fn stale_after(first_passes_done: bool, since: Duration, explore: Duration) -> bool {
    first_passes_done && since >= explore / STALE_SHARE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exploration_is_stale_only_after_its_first_passes_and_a_quarter_without_prospects() {
        let explore = Duration::from_secs(12);
        assert!(!stale_after(false, Duration::from_secs(12), explore));
        assert!(!stale_after(true, Duration::from_millis(2_999), explore));
        assert!(stale_after(true, Duration::from_secs(3), explore));
    }
}
