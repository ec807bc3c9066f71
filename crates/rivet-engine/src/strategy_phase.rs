//! The strategies' phase of one class: the strategies the configuration chooses, driven on
//! the shared goals and archive within their time on a watched thread of their own, and what
//! each reports.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rivet_api::{GenConfig, Generator};
use rivet_classfile::ClassName;
use rivet_classpath::Classpath;
use rivet_instrument::ClassProbes;
use rivet_report::{ConcolicReport, PcSelectionReport, SymbolicReport};
use rivet_search::{Archive, Goals, SearchConfig};
use rivet_symbolic::{ExploreConfig, Explorer};
use rivet_testcase::{Executor, GoalId, ObservationSpec};
use rivet_worker::WorkerPool;

use crate::artifacts::Artifacts;
use crate::class_report::{concolic_report, symbolic_report};
use crate::concolic::{ConcolicConfig, ConcolicStrategy};
use crate::config::{GenerateConfig, StrategyChoice};
use crate::feasibility::Feasibility;
use crate::plan::ClassPlan;
use crate::strategy::{drive, Budget, DriveProgress, DriveResult, SearchStrategy, Strategy};
use crate::symbolic::{SymbolicSchedule, SymbolicStrategy};
use crate::watch::{watched, Message};

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
    pub sections: Sections,
}

/// The strategies' own report sections.
#[derive(Default)]
pub(crate) struct Sections {
    pub symbolic: Option<SymbolicReport>,
    pub concolic: Option<ConcolicReport>,
    pub pc_selection: Option<PcSelectionReport>,
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
            },
            sections: Sections::default(),
        },
    }
}

/// The strategies' phase on this thread.
fn strategies_on(
    input: &PhaseInput,
    pool: &mut WorkerPool,
    progress: &mut dyn FnMut(DriveProgress),
    watch: &crate::watch::Watch,
) -> PhaseResult {
    let (config, plan) = (&input.config, &input.plan);
    let generator = Generator::new(&plan.model, GenConfig::default());
    let mut goals = plan.goals.clone();
    let mut archive = Archive::default();
    let mut set = StrategySet::new(input, &generator);
    if set.search_serves_path_conditions_alone(config) {
        // The search works for the path-condition goals alone; branches still count.
        let ids: Vec<GoalId> = goals.iter().map(|g| g.id).collect();
        for g in ids {
            goals.retire(g);
        }
    }
    // Loops the strategies' tests fall into cost less with limits that follow the tests;
    // minimizing, verifying and the final run keep the configured limit.
    pool.set_adaptive_time_limit(true);
    let driven = drive(
        &mut set.all(),
        &mut goals,
        &mut archive,
        pool,
        Budget {
            time: config.strategy_budget(),
            max_executions: config.max_executions,
        },
        progress,
        Some(watch),
    );
    // Path-condition goals were stepping stones: the suite is made of the branch and method
    // goals' tests.
    for g in goals.iter().skip(plan.goals.len()) {
        archive.forget(g.id);
    }
    pool.set_observation(&ObservationSpec::default());
    pool.set_adaptive_time_limit(false);
    let sections = set.sections(driven.elapsed);
    PhaseResult {
        plan: None,
        goals,
        archive,
        driven,
        sections,
    }
}

/// The strategies of a run, as the configuration chooses them: the search always, SUSHI and
/// the concolic step when asked for.
struct StrategySet<'g, 'm> {
    search: SearchStrategy<'g, 'm>,
    symbolic: Option<SymbolicStrategy>,
    concolic: Option<ConcolicStrategy<'g, 'm>>,
}

impl<'g, 'm> StrategySet<'g, 'm> {
    fn new(input: &'g PhaseInput, generator: &'g Generator<'m>) -> StrategySet<'g, 'm> {
        let (config, plan) = (&input.config, &input.plan);
        let budget = config.strategy_budget();
        let concolic_on = matches!(
            config.strategy,
            StrategyChoice::Concolic | StrategyChoice::All
        );
        let search = SearchStrategy::new(
            generator,
            SearchConfig {
                seed: config.seed,
                budget,
                max_executions: config.max_executions,
                // Adaptive DSE: the search asks the concolic step to explore the offspring
                // whose primitive mutation changed their fitness.
                dse_requests: concolic_on,
                ..SearchConfig::default()
            },
        );
        // The strategies learn which path conditions are feasible into one classifier.
        let feasibility = Feasibility::new();
        let explorer = || Explorer::new(input.classpath.clone(), ExploreConfig::default());
        let symbolic = matches!(
            config.strategy,
            StrategyChoice::Symbolic | StrategyChoice::All
        )
        .then(|| symbolic(input, explorer(), &feasibility, budget));
        let default_step = ConcolicConfig::for_budget(budget, false, config.seed);
        let concolic = concolic_on.then(|| {
            ConcolicStrategy::new(
                plan,
                input.probes.as_ref(),
                generator,
                explorer(),
                feasibility.clone(),
                ConcolicConfig {
                    order: config.concolic_order,
                    node_time: config.concolic_step.unwrap_or(default_step.node_time),
                    ..ConcolicConfig::for_budget(
                        budget,
                        config.strategy == StrategyChoice::Concolic,
                        config.seed,
                    )
                },
            )
        });
        StrategySet {
            search,
            symbolic,
            concolic,
        }
    }

    /// With SUSHI or the concolic step alone, the search only serves their path-condition
    /// goals (the branch goals are retired for it; they still count).
    fn search_serves_path_conditions_alone(&self, config: &GenerateConfig) -> bool {
        matches!(
            config.strategy,
            StrategyChoice::Symbolic | StrategyChoice::Concolic
        )
    }

    /// The strategies in the order the driver gives them turns.
    fn all(&mut self) -> Vec<&mut dyn Strategy> {
        let mut all: Vec<&mut dyn Strategy> = vec![&mut self.search];
        if let Some(s) = self.symbolic.as_mut() {
            all.push(s);
        }
        if let Some(c) = self.concolic.as_mut() {
            all.push(c);
        }
        all
    }

    /// Each strategy's report section; `elapsed` is the strategies' time.
    fn sections(&self, elapsed: Duration) -> Sections {
        Sections {
            symbolic: self.symbolic.as_ref().map(|s| SymbolicReport {
                invariants: s.learned_invariants(),
                ..symbolic_report(s.stats(), elapsed)
            }),
            concolic: self.concolic.as_ref().map(|c| concolic_report(c.stats())),
            pc_selection: self.symbolic.as_ref().map(|s| s.selection_report()),
        }
    }
}

/// SUSHI's strategy for the class, with TARDIS's alternatives and, when asked for, learned
/// invariants.
fn symbolic(
    input: &PhaseInput,
    explorer: Explorer,
    feasibility: &Feasibility,
    budget: Duration,
) -> SymbolicStrategy {
    let (config, plan) = (&input.config, &input.plan);
    let with_search = config.strategy == StrategyChoice::All;
    let s = SymbolicStrategy::new(
        plan,
        explorer,
        SymbolicSchedule {
            until_budget: config.pc_until_budget,
            ..SymbolicSchedule::for_budget(budget, with_search, config.seed)
        },
        (config.pc_policy, feasibility.clone()),
        input
            .keep_artifacts
            .as_deref()
            .map(|d: &Path| Artifacts::new(d.join("symbolic"))),
    );
    let s = s.with_alternatives(input.probes.as_ref());
    if config.learned_invariants {
        s.with_learned_invariants(plan)
    } else {
        s
    }
}

/// The class's probes, for the strategies that read them.
pub(crate) fn class_probes(
    probes: &rivet_instrument::ProbeMap,
    class: &ClassName,
) -> Option<ClassProbes> {
    probes.class(class.internal()).cloned()
}
