//! The concolic strategy's plug-in: its options from the command line, how it is built for a
//! class, and its report section.

use std::time::Duration;

use rivet_report::ConcolicReport;
use rivet_strategy::{BuildContext, Strategy, StrategyPlugin};
use rivet_symbolic::{ExploreConfig, Explorer};

use crate::strategy::{ConcolicConfig, ConcolicStats, ConcolicStrategy, NodeOrder};

/// The concolic strategy with its options (`--concolic-order`, `--concolic-step-ms`).
#[derive(Debug, Clone, Copy)]
pub struct ConcolicPlugin {
    pub order: NodeOrder,
    /// The executor's time per unvisited node (None: the default).
    pub step: Option<Duration>,
}

impl StrategyPlugin for ConcolicPlugin {
    fn name(&self) -> &'static str {
        "concolic"
    }

    fn retires_branch_goals_alone(&self) -> bool {
        true
    }

    fn takes_dse_requests(&self) -> bool {
        true
    }

    fn build<'g, 'm>(&self, ctx: &BuildContext<'g, 'm>) -> Box<dyn Strategy + 'g>
    where
        'm: 'g,
    {
        // Alone (beside the search), it may explore all of the time.
        let alone = !ctx.with_others(self.name());
        let defaults = ConcolicConfig::for_budget(ctx.budget, alone, ctx.seed);
        Box::new(ConcolicStrategy::new(
            ctx.plan,
            ctx.probes,
            ctx.generator,
            Explorer::new(ctx.classpath.clone(), ExploreConfig::default())
                .on_clock(ctx.clock.clone()),
            ctx.feasibility.clone(),
            ConcolicConfig {
                order: self.order,
                node_time: self.step.unwrap_or(defaults.node_time),
                // Its solving needs no worker: it runs while the search does.
                beside_search: true,
                ..defaults
            },
        ))
    }
}

/// The report's `concolic` section from the strategy's figures.
pub fn concolic_report(stats: &ConcolicStats) -> ConcolicReport {
    let mut diverged_at = std::collections::BTreeMap::new();
    for d in &stats.divergences {
        *diverged_at.entry(d.at.clone()).or_insert(0) += 1;
    }
    ConcolicReport {
        traced_runs: stats.traced_runs,
        nodes: stats.nodes,
        solved: stats.solved,
        tests: stats.tests,
        goals: stats.goals,
        goals_reached: stats.goals_reached,
        explore_s: rivet_report::seconds(stats.explore_time),
        divergences: stats.divergences.len(),
        diverged_at,
        dse_requests: stats.dse_requests,
        dse_steps: stats.dse_steps,
        dse_improved: stats.dse_improved,
        dse_no_open: stats.dse_no_open,
        whole_tests: stats.whole_tests,
        pauses: stats.pauses,
    }
}
