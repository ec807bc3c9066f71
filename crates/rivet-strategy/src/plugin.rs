//! What a technique registers: a plug-in that builds its strategy for a class from what the run
//! offers, and declares what the driver needs to know of it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rivet_api::Generator;
use rivet_classpath::Classpath;
use rivet_instrument::ClassProbes;
use rivet_tardis::Feasibility;

use crate::plan::ClassPlan;
use crate::strategy::{SearchStrategy, Strategy};
use rivet_search::SearchConfig;

/// What the run offers a strategy when it is built for a class.
pub struct BuildContext<'g, 'm> {
    pub plan: &'g ClassPlan,
    pub generator: &'g Generator<'m>,
    pub classpath: &'g Arc<Classpath>,
    /// The class's probes (None when it was not instrumented).
    pub probes: Option<&'g ClassProbes>,
    pub seed: u64,
    /// The strategies' time.
    pub budget: Duration,
    pub max_executions: Option<u64>,
    /// The run's clock (the driver's): strategies read their phases, slices and
    /// explorations' time on it, so that a run under an execution cap decides alike every
    /// time.
    pub clock: rivet_clock::RunClock,
    /// Where `--keep-artifacts` keeps what strategies write (None: nothing is kept).
    pub keep_artifacts: Option<&'g Path>,
    /// The run's one classifier of path-condition feasibility, shared by the strategies that
    /// learn it.
    pub feasibility: &'g Feasibility,
    /// The names of every strategy of the run, in turn order (the search first).
    pub chosen: &'g [&'static str],
    /// A strategy of the run takes the search's requests for a concolic step (EvoSuite's
    /// adaptive DSE): the search makes them.
    pub dse_requests: bool,
}

impl BuildContext<'_, '_> {
    /// Does the run have other strategies than the search and `name`?
    pub fn with_others(&self, name: &str) -> bool {
        self.chosen.iter().any(|c| *c != name && *c != "search")
    }

    /// Does the run have the strategy `name`?
    pub fn has(&self, name: &str) -> bool {
        self.chosen.contains(&name)
    }
}

/// A technique as the registry knows it.
pub trait StrategyPlugin: Send + Sync {
    /// Its name (`search`, `symbolic`, `concolic`): progress, reports, `--strategy`.
    fn name(&self) -> &'static str;

    /// When it runs alone beside the search, the search serves only the goals it adds (path
    /// conditions, say): the branch goals are retired for the search (they still count).
    fn retires_branch_goals_alone(&self) -> bool {
        false
    }

    /// It takes the search's requests for a concolic step (`Archive::dse_requests`).
    fn takes_dse_requests(&self) -> bool {
        false
    }

    /// Its strategy for the class.
    fn build<'g, 'm>(&self, ctx: &BuildContext<'g, 'm>) -> Box<dyn Strategy + 'g>
    where
        'm: 'g;
}

/// The many-objective search, the strategy every run has.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchPlugin;

impl StrategyPlugin for SearchPlugin {
    fn name(&self) -> &'static str {
        "search"
    }

    fn build<'g, 'm>(&self, ctx: &BuildContext<'g, 'm>) -> Box<dyn Strategy + 'g>
    where
        'm: 'g,
    {
        Box::new(SearchStrategy::new(
            ctx.generator,
            SearchConfig {
                seed: ctx.seed,
                budget: ctx.budget,
                max_executions: ctx.max_executions,
                dse_requests: ctx.dse_requests,
                ..SearchConfig::default()
            },
        ))
    }
}
