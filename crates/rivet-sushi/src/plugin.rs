//! SUSHI's plug-in: its options from the command line, how its strategy is built for a class
//! (with TARDIS's alternatives and, when asked for, learned invariants), and its report
//! sections.

use std::time::Duration;

use rivet_report::SymbolicReport;
use rivet_strategy::{BuildContext, Strategy, StrategyPlugin};
use rivet_symbolic::{ExploreConfig, Explorer};

use crate::artifacts::Artifacts;
use crate::policy::PcPolicy;
use crate::symbolic::{SymbolicSchedule, SymbolicStats, SymbolicStrategy};

/// SUSHI with its options (`--pc-policy`, `--pc-until-budget`, `--no-learned-invariants`).
#[derive(Debug, Clone, Copy)]
pub struct SushiPlugin {
    pub policy: PcPolicy,
    /// Path-condition goals until the budget ends, not only in their share of it.
    pub until_budget: bool,
    pub learned_invariants: bool,
}

impl StrategyPlugin for SushiPlugin {
    fn name(&self) -> &'static str {
        "symbolic"
    }

    fn retires_branch_goals_alone(&self) -> bool {
        true
    }

    fn build<'g, 'm>(&self, ctx: &BuildContext<'g, 'm>) -> Box<dyn Strategy + 'g>
    where
        'm: 'g,
    {
        let with_others = ctx.with_others(self.name());
        let s = SymbolicStrategy::new(
            ctx.plan,
            Explorer::new(ctx.classpath.clone(), ExploreConfig::default())
                .on_clock(ctx.clock.clone()),
            SymbolicSchedule {
                until_budget: self.until_budget,
                beside_search: true,
                ..SymbolicSchedule::for_budget(ctx.budget, with_others, ctx.seed)
            },
            (self.policy, ctx.feasibility.clone()),
            ctx.keep_artifacts
                .map(|d| Artifacts::new(d.join("symbolic"))),
        );
        let s = s.with_alternatives(ctx.probes);
        Box::new(if self.learned_invariants {
            s.with_learned_invariants(ctx.plan)
        } else {
            s
        })
    }
}

/// The report's `symbolic` section from the strategy's figures (`strategies` is the time the
/// strategies took).
pub fn symbolic_report(stats: &SymbolicStats, strategies: Duration) -> SymbolicReport {
    SymbolicReport {
        explore_s: rivet_report::seconds(stats.explore_time),
        select_s: rivet_report::seconds(stats.select_time),
        strategies_s: rivet_report::seconds(strategies),
        methods_explored: stats.methods_explored,
        paths: stats.paths,
        precise_paths: stats.precise_paths,
        rounds: stats.rounds,
        goals: stats.goals,
        goals_reached: stats.goals_reached,
        goals_failed: stats.goals_failed,
        goals_stalled: stats.goals_stalled,
        goals_cut_short: stats.goals_cut_short,
        explore_stale: stats.explore_stale,
        invariants: None,
    }
}
