//! The symbolic strategy's goal lifecycle: selecting kept paths (a cover round, or the
//! pipelined policy's next picks), making them path-condition goals for the search, and
//! settling them as reached, given up or cut short.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use rivet_search::{Archive, Goals, PathConditionObjective};
use rivet_tardis::{Bucket, Label, Prediction, Source};
use rivet_testcase::{GoalId, TypedTest};
use tracing::debug;

use super::clock::{GiveUp, GoalClock};
use super::{ActiveGoal, Phase, SymbolicStrategy, ALTERNATIVES_PER_BRANCH, MAX_ALTERNATIVES};
use crate::artifacts::{GoalLog, RoundLog};
use crate::policy::{cover_round, cover_tardis_round, PcPolicy, RoundLimits, PIPELINE_SLOTS};
use crate::select::Candidate;
use rivet_report::{seconds, PcAttempt, PcOutcome};

impl SymbolicStrategy {
    /// Selects paths for the uncovered branches and adds their goals.
    ///
    /// The first round targets every branch of the explored methods, covered or not, as
    /// SUSHI alone would (the search may have covered some before exploring): their path
    /// conditions lead the search into the deep, legal states those methods need, which
    /// are the stepping stones to the branches left (in `sushi.Scheduler` the deferral branch
    /// is reached from the states built for the nine-element primary list). Later rounds
    /// target only the branches still uncovered.
    pub(super) fn select_round(&mut self, goals: &mut Goals, archive: &Archive) {
        if self.policy.pipelined() {
            self.refill(goals, archive);
            self.phase = if self.active.is_empty() && self.alternatives.is_none() {
                Phase::Done
            } else {
                Phase::Searching
            };
            return;
        }
        let started = self.explorer.clock().now();
        let first = self.stats.rounds == 0;
        let uncovered: BTreeSet<GoalId> = if first {
            self.methods
                .iter()
                .filter(|m| m.depth > 0)
                .flat_map(|m| m.branches.iter().copied())
                .collect()
        } else {
            self.branch_goals
                .values()
                .copied()
                .filter(|g| !archive.is_covered(*g))
                .collect()
        };
        let open: Vec<usize> = (0..self.paths.len())
            .filter(|i| !self.paths[*i].tried)
            .collect();
        let candidates: Vec<Candidate> = open
            .iter()
            .map(|i| Candidate {
                branches: self.paths[*i].branches.clone(),
                cost: self.paths[*i].pc.len(),
            })
            .collect();
        let limits = RoundLimits {
            per_branch: ALTERNATIVES_PER_BRANCH,
            alternatives: MAX_ALTERNATIVES,
            ilp: Duration::from_millis(100),
        };
        let choice = if self.policy == PcPolicy::CoverTardis {
            let selector = &mut self.selector;
            self.feasibility.with(|c| selector.refresh(c));
            let predictions: Vec<Option<Prediction>> =
                open.iter().map(|i| self.selector.prediction(i)).collect();
            cover_tardis_round(&candidates, &predictions, &uncovered, limits)
        } else {
            cover_round(&candidates, &uncovered, limits)
        };
        self.stats.select_time += self.explorer.clock().since(started);
        if choice.chosen.is_empty() {
            self.phase = Phase::Done;
            return;
        }
        self.stats.rounds += 1;
        self.round_log = Some(RoundLog {
            round: self.stats.rounds,
            method: choice.method,
            uncovered: uncovered.iter().map(|g| g.0).collect(),
            selected: Vec::new(),
        });
        for c in &choice.chosen {
            let p = open[*c];
            let prediction = self.selector.prediction(&p);
            self.selector.remove(&p);
            // Staged, not tried again by a later round.
            self.paths[p].tried = true;
            self.staged.push_back((p, prediction));
        }
        self.start_staged(goals, archive);
        self.phase = Phase::Searching;
    }

    /// Starts staged paths while fewer than [`MAX_ACTIVE_GOALS`] goals are active; true when
    /// none is left to start.
    pub(super) fn start_staged(&mut self, goals: &mut Goals, archive: &Archive) -> bool {
        let mut started = false;
        while self.active.len() < MAX_ACTIVE_GOALS {
            let Some((p, prediction)) = self.staged.pop_front() else {
                break;
            };
            let log = self.start_goal(p, prediction, goals, archive);
            if let Some(round) = &mut self.round_log {
                round.selected.push(log);
            }
            started = true;
        }
        if let (true, Some(a), Some(round)) = (started, &mut self.artifacts, &self.round_log) {
            a.round(round);
        }
        self.staged.is_empty() && self.active.is_empty()
    }

    /// Under a pipelined policy, fills the free slots with the policy's next picks.
    pub(super) fn refill(&mut self, goals: &mut Goals, archive: &Archive) {
        while self.active.len() < PIPELINE_SLOTS && self.uncovered_left {
            let started = self.explorer.clock().now();
            let next = match self.policy {
                PcPolicy::Tardis => {
                    let selector = &mut self.selector;
                    self.feasibility
                        .with(|c| selector.pick(c))
                        .map(|pick| (pick.key, pick.prediction))
                }
                _ => self.paths.iter().position(|p| !p.tried).map(|p| (p, None)),
            };
            self.stats.select_time += self.explorer.clock().since(started);
            let Some((p, prediction)) = next else {
                break;
            };
            self.start_goal(p, prediction, goals, archive);
        }
    }

    /// Makes kept path `p` a goal for the search.
    pub(super) fn start_goal(
        &mut self,
        p: usize,
        prediction: Option<Prediction>,
        goals: &mut Goals,
        archive: &Archive,
    ) -> crate::artifacts::SelectedPath {
        let tried_s = seconds(self.elapsed());
        let path = &mut self.paths[p];
        path.tried = true;
        if let Some(test) = &path.alternative {
            self.offered.push(TypedTest::clone(test));
        }
        let m = &self.methods[path.method];
        let objective = PathConditionObjective::new(m.member.clone(), path.pc.clone());
        let label = format!("{}.{}", m.spec.class.simple(), m.spec.name);
        let goal = goals.add(Arc::new(objective), label, None, format!("path {p}"));
        let mut log = GoalLog::new(
            goal.0,
            p,
            &m.spec.display(),
            path.pc.texts(),
            &path.branches,
        );
        log.picked(self.policy.name(), prediction.as_ref());
        let share = self.policy.slice_share(prediction.as_ref());
        self.attempts.push(PcAttempt {
            goal: goal.0,
            path: p,
            method: m.spec.display(),
            tried_s,
            settled_s: None,
            outcome: PcOutcome::Searching,
            bucket: prediction.as_ref().map(Bucket::of),
            similarity: prediction.map(|p| p.similarity),
            alternative: path.alternative.is_some(),
        });
        let summary = log.summary();
        self.active.push(ActiveGoal {
            goal,
            path: p,
            attempt: self.attempts.len() - 1,
            clock: GoalClock::start(self.explorer.clock().now(), share),
            executions: archive.executions,
            log,
        });
        self.stats.goals += 1;
        summary
    }

    /// Retires goals that were reached or ran out of time (every goal when `closing`: the
    /// run stopped, and a goal not reached then was cut short, not failed); true when none
    /// is left.
    pub(super) fn settle(&mut self, goals: &mut Goals, archive: &Archive, closing: bool) -> bool {
        let (slice, stall) = (self.schedule.slice, self.schedule.stall);
        let mut still = Vec::new();
        for mut a in std::mem::take(&mut self.active) {
            let reached = archive.is_covered(a.goal);
            let now = self.explorer.clock().now();
            let spent = a.clock.spent(now);
            let best = archive.entries.get(&a.goal).map(|t| t.len());
            let best_distance = if reached {
                Some(0.0)
            } else {
                archive.best.get(&a.goal).copied()
            };
            a.log
                .sample(spent, archive.executions - a.executions, best_distance);
            a.clock.observe(best_distance, now);
            let given_up = a.clock.given_up(now, slice, stall);
            if reached || given_up.is_some() || closing {
                goals.retire(a.goal);
                let pc = &self.paths[a.path].pc;
                let outcome = if reached {
                    self.stats.goals_reached += 1;
                    self.feasibility
                        .learn(pc, Label::Feasible, Source::GoalReached);
                    PcOutcome::Reached
                } else if let Some(why) = given_up {
                    self.stats.goals_failed += 1;
                    self.stats.goals_stalled += usize::from(why == GiveUp::Stalled);
                    self.feasibility
                        .learn(pc, Label::Infeasible, Source::GoalFailed);
                    PcOutcome::Failed
                } else {
                    self.stats.goals_cut_short += 1;
                    PcOutcome::CutShort
                };
                let settled_s = seconds(self.elapsed());
                if let Some(attempt) = self.attempts.get_mut(a.attempt) {
                    attempt.outcome = outcome;
                    attempt.settled_s = Some(settled_s);
                }
                if let (true, Some(l), Some(t)) =
                    (reached, self.learned.as_mut(), archive.entries.get(&a.goal))
                {
                    l.goal_reached(a.goal, &t.test);
                }
                let test = archive
                    .entries
                    .get(&a.goal)
                    .map(|t| format!("{:?}", t.test));
                a.log.finish(outcome, spent, best, test);
                if let Some(art) = &mut self.artifacts {
                    art.goal(&a.log);
                }
                debug!(
                    goal = a.goal.0,
                    path = a.path,
                    reached,
                    "path-condition goal settled"
                );
            } else {
                still.push(a);
            }
        }
        self.active = still;
        self.active.is_empty()
    }
}

/// Most path-condition goals active at once; the rest of a round waits. Every active goal is
/// a target of the search (a place in its population's first front) and has the workers
/// observe its access paths in every test: a round of forty at once held the search on
/// AbstractPatriciaTrie below what it covers alone in the same time.
pub(super) const MAX_ACTIVE_GOALS: usize = 8;

/// Goals that must have failed before the strategy judges its yield.
const JUDGE_AFTER_FAILED: usize = 8;
/// The least share of reached goals (one in this many) for the strategy to go on.
const MIN_YIELD: usize = 6;

impl SymbolicStrategy {
    /// Have enough of its goals failed, and few enough been reached (under one in
    /// [`MIN_YIELD`]), that its time is better spent elsewhere?
    pub(super) fn unprofitable(&self) -> bool {
        let s = &self.stats;
        self.schedule.yield_when_unprofitable
            && s.goals_failed >= JUDGE_AFTER_FAILED
            && s.goals_reached * MIN_YIELD < s.goals_reached + s.goals_failed
    }
}
