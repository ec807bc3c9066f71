//! The strategies' phase of one class: the strategies the configuration chooses from the
//! registry (the one place that lists Rivet's techniques), driven on the shared goals and
//! archive within their time on a watched thread of their own, and what each reports.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use rivet_api::{GenConfig, Generator};
use rivet_classfile::ClassName;
use rivet_classpath::Classpath;
use rivet_concolic::ConcolicPlugin;
use rivet_instrument::ClassProbes;
use rivet_search::{Archive, Goals};
use rivet_strategy::watch::{watched, Message, Watch};
use rivet_strategy::{
    drive, Budget, BuildContext, ClassPlan, DriveOptions, DriveProgress, DriveResult, SearchPlugin,
    Strategy, StrategyPlugin,
};
use rivet_sushi::SushiPlugin;
use rivet_tardis::Feasibility;
use rivet_testcase::{Executor, GoalId, ObservationSpec};
use rivet_worker::{TestLimit, WorkerPool, CAPPED_PROBE_BUDGET};

use crate::config::{GenerateConfig, StrategyChoice};

/// A registered strategy: its name, and its plug-in made from the run's configuration (its
/// flags).
#[derive(Clone, Copy)]
pub struct RegistryEntry {
    pub name: &'static str,
    pub plugin: fn(&GenerateConfig) -> Box<dyn StrategyPlugin>,
}

impl std::fmt::Debug for RegistryEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every strategy Rivet has, in the order they take turns: the search first, then SUSHI and
/// the concolic strategy. A technique is a crate of its own and one line here.
const BUILT_IN: &[RegistryEntry] = &[
    RegistryEntry {
        name: "search",
        plugin: |_| Box::new(SearchPlugin),
    },
    RegistryEntry {
        name: "symbolic",
        plugin: |c| {
            Box::new(SushiPlugin {
                policy: c.pc_policy,
                until_budget: c.pc_until_budget,
                learned_invariants: c.learned_invariants,
            })
        },
    },
    RegistryEntry {
        name: "concolic",
        plugin: |c| {
            Box::new(ConcolicPlugin {
                order: c.concolic_order,
                step: c.concolic_step,
            })
        },
    },
];

/// The strategies a run may choose from: the built-in ones, and any a caller adds (a plug-in
/// of its own, as the workspace's toy-strategy test does).
#[derive(Debug, Clone)]
pub struct Registry {
    entries: Vec<RegistryEntry>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry {
            entries: BUILT_IN.to_vec(),
        }
    }
}

impl Registry {
    /// This registry with one more strategy, taking its turns after the others.
    pub fn with(mut self, entry: RegistryEntry) -> Registry {
        self.entries.retain(|e| e.name != entry.name);
        self.entries.push(entry);
        self
    }

    /// The registered names, in turn order.
    pub fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|e| e.name).collect()
    }

    /// The plug-ins a configuration chooses, in turn order: every one for `all`; the search
    /// and the named one (the search alone for `search`).
    fn chosen(&self, config: &GenerateConfig) -> Vec<Box<dyn StrategyPlugin>> {
        self.entries
            .iter()
            .filter(|e| match config.strategy {
                StrategyChoice::All => true,
                StrategyChoice::Only(name) => e.name == "search" || e.name == name,
            })
            .map(|e| (e.plugin)(config))
            .collect()
    }
}

/// The built-in registry.
pub fn registry() -> Registry {
    Registry::default()
}

/// The names `--strategy` accepts besides `all`.
pub(crate) fn strategy_names() -> Vec<&'static str> {
    registry().names()
}

/// What the strategies' phase needs that outlives the class's borrows (it runs on a thread
/// the class may stop waiting for).
pub(crate) struct PhaseInput {
    pub classpath: Arc<Classpath>,
    pub probes: Option<ClassProbes>,
    pub config: GenerateConfig,
    pub plan: ClassPlan,
    pub keep_artifacts: Option<PathBuf>,
}

/// What the strategies left: the plan back (None when the class stopped waiting for them:
/// its API model's caches stay with their thread), the goals (with those they added), the
/// archive (their tests of the plan's goals only), the drive's figures and each strategy's
/// report section.
pub(crate) struct PhaseResult {
    pub plan: Option<ClassPlan>,
    pub goals: Goals,
    pub archive: Archive,
    pub driven: DriveResult,
    /// Each strategy's report sections by key.
    pub sections: BTreeMap<String, serde_json::Value>,
}

/// Runs the strategies on `pool` (lent to their thread; a stand-in of the same
/// configuration takes its place if the thread does not give it back in time).
pub(crate) fn run_strategies(
    input: PhaseInput,
    pool: &mut WorkerPool,
    progress: &mut dyn FnMut(DriveProgress),
) -> PhaseResult {
    let time = input.config.strategy_budget();
    let plan_goals = input.plan.goals.clone();
    let mut lent = std::mem::replace(pool, pool.standby());
    let result = watched(
        time,
        move |watch, tx| {
            let send = &mut |p| {
                let _ = tx.send(Message::Progress(p));
            };
            let mut result = strategies_on(&input, &mut lent, send, watch);
            result.plan = Some(input.plan);
            let _ = tx.send(Message::Done(Box::new((result, lent))));
        },
        progress,
    );
    match result {
        Ok((result, lent)) => {
            *pool = lent;
            result
        }
        Err(abandoned) => PhaseResult {
            plan: None,
            goals: plan_goals,
            archive: abandoned.archive,
            driven: DriveResult {
                executions: abandoned.executions,
                steps: abandoned.steps,
                elapsed: time,
                failures: vec![abandoned.failure],
                values: Vec::new(),
            },
            sections: BTreeMap::new(),
        },
    }
}

/// The strategies' phase on this thread.
fn strategies_on(
    input: &PhaseInput,
    pool: &mut WorkerPool,
    progress: &mut dyn FnMut(DriveProgress),
    watch: &Watch,
) -> PhaseResult {
    let (config, plan) = (&input.config, &input.plan);
    let generator = Generator::new(&plan.model, GenConfig::default());
    let mut goals = plan.goals.clone();
    let mut archive = Archive::default();
    let plugins = config.registry.chosen(config);
    let chosen: Vec<&'static str> = plugins.iter().map(|p| p.name()).collect();
    let feasibility = Feasibility::new();
    let budget = Budget::new(config.strategy_budget(), config.max_executions);
    let context = BuildContext {
        plan,
        generator: &generator,
        classpath: &input.classpath,
        probes: input.probes.as_ref(),
        seed: config.seed,
        budget: config.strategy_budget(),
        max_executions: config.max_executions,
        clock: budget.clock.clone(),
        keep_artifacts: input.keep_artifacts.as_deref(),
        feasibility: &feasibility,
        chosen: &chosen,
        dse_requests: plugins.iter().any(|p| p.takes_dse_requests()),
    };
    let mut strategies: Vec<Box<dyn Strategy + '_>> =
        plugins.iter().map(|p| p.build(&context)).collect();
    if let [search, alone] = &plugins[..] {
        if search.name() == "search" && alone.retires_branch_goals_alone() {
            // The search works for the other strategy's goals alone; branches still count.
            let ids: Vec<GoalId> = goals.iter().map(|g| g.id).collect();
            for g in ids {
                goals.retire(g);
            }
        }
    }
    // Loops the strategies' tests fall into cost less with limits that follow the tests;
    // under an execution cap a probe budget ends them, at the same point on every run.
    // Minimizing, verifying and the final run keep the configured limit.
    pool.set_test_limit(match config.max_executions {
        Some(_) => TestLimit::Probes(CAPPED_PROBE_BUDGET),
        None => TestLimit::Adaptive,
    });
    // Under an execution cap the same tests meet the same JVM state on every run (the
    // minimizing and verifying that follow too).
    pool.set_fixed_assignment(config.max_executions.is_some());
    let mut turns: Vec<&mut dyn Strategy> = strategies
        .iter_mut()
        .map(|s| &mut **s as &mut dyn Strategy)
        .collect();
    let driven = drive(
        &mut turns,
        &mut goals,
        &mut archive,
        pool,
        budget,
        progress,
        DriveOptions {
            watch: Some(watch),
            api: Some(&plan.model),
        },
    );
    // Path-condition goals were stepping stones: the suite is made of the branch and method
    // goals' tests.
    for g in goals.iter().skip(plan.goals.len()) {
        archive.forget(g.id);
    }
    pool.set_observation(&ObservationSpec::default());
    pool.set_test_limit(TestLimit::Configured);
    let sections = strategies
        .iter()
        .flat_map(|s| s.report_sections(driven.elapsed))
        .map(|(key, value)| (key.to_string(), value))
        .collect();
    PhaseResult {
        plan: None,
        goals,
        archive,
        driven,
        sections,
    }
}

/// The class's probes, for the strategies that read them.
pub(crate) fn class_probes(
    probes: &rivet_instrument::ProbeMap,
    class: &ClassName,
) -> Option<ClassProbes> {
    probes.class(class.internal()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(strategy: StrategyChoice) -> GenerateConfig {
        let mut c = GenerateConfig::new(
            "x",
            &ClassName::from_binary("a.B"),
            PathBuf::from("/nonexistent"),
        );
        c.strategy = strategy;
        c
    }

    #[test]
    fn each_entry_is_named_as_its_plug_in_and_the_search_comes_first() {
        let all = registry().chosen(&config(StrategyChoice::All));
        let names: Vec<&str> = all.iter().map(|p| p.name()).collect();
        assert_eq!(names, registry().names());
        assert_eq!(names[0], "search");
    }

    #[test]
    fn one_strategy_runs_beside_the_search_and_says_whether_it_retires_branch_goals() {
        let only = |name| registry().chosen(&config(StrategyChoice::Only(name)));
        let names = |p: &[Box<dyn StrategyPlugin>]| p.iter().map(|p| p.name()).collect::<Vec<_>>();
        assert_eq!(names(&only("search")), ["search"]);
        assert_eq!(names(&only("concolic")), ["search", "concolic"]);
        let symbolic = only("symbolic");
        assert_eq!(names(&symbolic), ["search", "symbolic"]);
        assert!(symbolic[1].retires_branch_goals_alone());
        assert!(!symbolic[0].retires_branch_goals_alone());
        assert_eq!(
            StrategyChoice::named("concolic"),
            Some(StrategyChoice::Only("concolic"))
        );
        assert_eq!(StrategyChoice::named("all"), Some(StrategyChoice::All));
        assert_eq!(StrategyChoice::named("toy"), None);
    }
}
