//! The symbolic strategy (SUSHI): explore the methods whose branches the search left
//! uncovered, select a minimal set of path conditions covering those branches, and hand each
//! to the search as a path-condition goal with its own slice of time; a goal that the search
//! does not reach within its slice marks its path as likely infeasible, and the next round
//! selects alternatives for the branches still uncovered. Which paths become goals is the
//! policy's choice (`policy`: FIFO, set cover, TARDIS, or set cover guided by TARDIS); every
//! goal's outcome teaches the run's classifier (`feasibility`).

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use rivet_api::CallableKind;
use rivet_instrument::ClassProbes;
use rivet_pc::PathCondition;
use rivet_search::{Archive, Arena, Goals};
use rivet_symbolic::{Explorer, MethodSpec, SearcherKind};
use rivet_tardis::{Bucket, Label, Prediction, Selector, SelectorConfig, Source};
use rivet_testcase::{GoalId, MemberRef, TypedTest};
use tracing::debug;

use crate::alternatives::{Alternatives, ReplayTarget};
use crate::artifacts::{Artifacts, GoalLog, RoundLog};
use crate::learned::{snapshot_spec, LearnedInvariants};
use crate::policy::PcPolicy;
use rivet_report::LearnedInvariantsReport;
use rivet_report::{
    seconds, AlternativesReport, ClassifierReport, PcAttempt, PcOutcome, PcSelectionReport,
};
use rivet_strategy::ClassPlan;
use rivet_tardis::Feasibility;

mod clock;
mod explore;
mod goals;
mod pass;
use clock::{GoalClock, STALL_SHARE};
use rivet_strategy::{StepOutcome, Strategy};

/// When the symbolic strategy works, within the run's budget.
#[derive(Debug, Clone, Copy)]
pub struct SymbolicSchedule {
    /// Search alone before exploring (zero: explore at once).
    pub search_first: Duration,
    /// Most time spent exploring and selecting, in total.
    pub explore: Duration,
    /// The time a path-condition goal gets before it counts as likely infeasible.
    pub slice: Duration,
    /// A goal whose best distance has not improved for this long counts as likely infeasible
    /// before its slice is spent (a goal still getting closer keeps its whole slice).
    pub stall: Duration,
    /// Give the rest of the time to the other strategies when the goals are rarely reached
    /// (when the strategy runs alone, it goes on).
    pub yield_when_unprofitable: bool,
    /// Go on handing path conditions to the search until the budget is spent, even once
    /// every branch is covered (to compare the pipelined policies; rounds of a cover end when
    /// no branch is left).
    pub until_budget: bool,
    /// Explore beside the search, on the solving thread, instead of in turns of its own (on
    /// the wall clock only: see `explore::beside_search`). The search leaves about one of two
    /// cores idle while it waits for its workers, so the exploration costs it little there.
    pub beside_search: bool,
    pub seed: u64,
}

/// Beside the other strategies the exploration gets at most one part in this many of the
/// budget. It runs on the solving thread beside the search, and on two cores it slows the
/// search's tests by about a quarter while it runs (TreeBidiMap, 60 s: 163–199k tests with
/// 7.9 s of exploration, 212–220k with 2 s), and its goals covered no branch first on the
/// bench's classes; with a twelfth instead of a quarter, `ast.Simplifier` (one method, 19
/// paths instead of 30), `tardis.SampleClass`, `sushi.Sample` and `Fraction` covered as much
/// or more at seeds 0–2.
pub const EXPLORE_SHARE_BESIDE_OTHERS: u32 = 12;

impl SymbolicSchedule {
    /// The schedule for `budget`: a quarter searching first when other strategies run too
    /// (else none), at most a quarter exploring alone and a twelfth beside the others
    /// ([`EXPLORE_SHARE_BESIDE_OTHERS`]), slices of a tenth (2–15 s), stalls of 60 % of a
    /// slice.
    pub fn for_budget(budget: Duration, with_search: bool, seed: u64) -> SymbolicSchedule {
        let slice = (budget / 10).clamp(Duration::from_secs(2), Duration::from_secs(15));
        SymbolicSchedule {
            search_first: if with_search {
                budget / 4
            } else {
                Duration::ZERO
            },
            explore: if with_search {
                budget / EXPLORE_SHARE_BESIDE_OTHERS
            } else {
                budget / 4
            },
            slice,
            stall: slice.mul_f64(STALL_SHARE),
            yield_when_unprofitable: with_search,
            until_budget: false,
            beside_search: false,
            seed,
        }
    }
}

/// A method to explore and the branch goals inside it.
///
/// A method is explored pass after pass: depth-first with a depth bound that starts small
/// and doubles while paths are cheap and some end at the bound; then, while some of its
/// uncovered branches have no kept path, breadth-first and random at the largest bound (a
/// depth-first search can spend all its paths in the first choices of a deep structure,
/// as in `sushi.Scheduler`, where the paths that matter are shallow but far to the right).
struct MethodTarget {
    spec: MethodSpec,
    member: MemberRef,
    /// Its own branches and those of the methods of the class it calls.
    branches: BTreeSet<GoalId>,
    /// The searcher of the next (or last) pass.
    searcher: SearcherKind,
    /// Depth of the last exploration (0: not explored).
    depth: u32,
    /// No pass left.
    done: bool,
}

/// A path kept for selection.
struct KeptPath {
    method: usize,
    pc: Arc<PathCondition>,
    branches: BTreeSet<GoalId>,
    tried: bool,
    /// For an alternative of a test's path (TARDIS), not an explored path: the test, which
    /// meets every clause but the last and is handed to the search when the goal starts.
    alternative: Option<Arc<TypedTest>>,
}

/// A path-condition goal being searched.
struct ActiveGoal {
    goal: GoalId,
    path: usize,
    /// Its entry in `attempts`.
    attempt: usize,
    clock: GoalClock,
    /// The archive's execution count when the goal was added.
    executions: u64,
    log: GoalLog,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Waiting,
    Exploring,
    Select,
    Searching,
    Done,
}

/// Totals for the report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SymbolicStats {
    pub explore_time: Duration,
    pub select_time: Duration,
    pub methods_explored: usize,
    pub paths: u64,
    pub precise_paths: u64,
    pub goals: usize,
    pub goals_reached: usize,
    pub goals_failed: usize,
    /// Of the failed goals, those given up before their slice was spent because they had
    /// stopped getting closer.
    pub goals_stalled: usize,
    /// Goals still being searched when the run stopped.
    pub goals_cut_short: usize,
    pub rounds: usize,
    /// The exploration stopped early: no new path to an uncovered branch for a while.
    pub explore_stale: bool,
}

/// SUSHI as a strategy of the driver.
pub struct SymbolicStrategy {
    explorer: Explorer,
    schedule: SymbolicSchedule,
    methods: Vec<MethodTarget>,
    /// Branch id of the class under test → its goal; a covered class's branch under its
    /// recorded id (see `cover`).
    branch_goals: BTreeMap<u32, GoalId>,
    /// The covered classes the class under test reaches (internal names, `--cover`): the
    /// explorations follow calls into them and record their branches.
    cover: Vec<Arc<str>>,
    queue: VecDeque<usize>,
    paths: Vec<KeptPath>,
    /// The explored path conditions in `paths` (an exploration again meets many it kept).
    explored: HashSet<Arc<PathCondition>>,
    active: Vec<ActiveGoal>,
    /// Paths a round selected that wait for a free slot (at most [`goals::MAX_ACTIVE_GOALS`]
    /// are active at once), with the round's log, written again as they start.
    staged: VecDeque<(usize, Option<Prediction>)>,
    round_log: Option<RoundLog>,
    phase: Phase,
    /// When it was built, on the run's clock.
    started: Duration,
    stats: SymbolicStats,
    /// Some branch of the class was uncovered at the last update (else there is nothing left
    /// to explore or select for, and the driver may stop).
    uncovered_left: bool,
    artifacts: Option<Artifacts>,
    policy: PcPolicy,
    /// The run's classifier, and the kept paths not yet tried as it sees them (by path index;
    /// filled only under the policies that ask it).
    feasibility: Feasibility,
    selector: Selector<usize>,
    /// Every goal, in the order tried.
    attempts: Vec<PcAttempt>,
    /// Heap invariants learned from the tests' objects, assumed by the explorations.
    learned: Option<LearnedInvariants>,
    /// How many retracted invariants that pruned an exploration the last exploration again
    /// answered.
    reexplored_for: usize,
    /// TARDIS's alternatives of the tests' own paths (pipelined policies).
    alternatives: Option<Alternatives>,
    /// Tests for the search's population: the source tests of alternatives made goals.
    offered: Vec<TypedTest>,
    /// The exploration time (`stats.explore_time`) when a pass last kept a new path to a
    /// branch uncovered at the time.
    last_prospect: Duration,
    /// The longest the next turn should take (the portfolio's allowance; none outside a
    /// drive).
    allowance: Option<Duration>,
    /// The pass running beside the search, if one is.
    background: Option<pass::Background>,
}

impl SymbolicStrategy {
    pub fn new(
        plan: &ClassPlan,
        explorer: Explorer,
        schedule: SymbolicSchedule,
        (policy, feasibility): (PcPolicy, Feasibility),
        artifacts: Option<Artifacts>,
    ) -> SymbolicStrategy {
        let class = &plan.class;
        let mut methods: Vec<MethodTarget> = Vec::new();
        for t in &plan.model.targets {
            let explorable = matches!(t.kind, CallableKind::Method | CallableKind::Constructor);
            if !explorable || t.member.owner != *class {
                continue;
            }
            let branches = plan
                .places
                .iter()
                .filter(|(_, p)| {
                    p.class == *class
                        && p.method == t.member.name
                        && p.descriptor == t.member.descriptor
                })
                .map(|(g, _)| *g)
                .chain(
                    plan.callee_branches
                        .get(&(t.member.name.clone(), t.member.descriptor.clone()))
                        .into_iter()
                        .flatten()
                        .copied(),
                )
                .collect();
            methods.push(MethodTarget {
                spec: MethodSpec {
                    class: class.clone(),
                    name: t.member.name.clone(),
                    descriptor: t.member.descriptor.clone(),
                },
                member: t.member.clone(),
                branches,
                searcher: SearcherKind::DepthFirst,
                depth: 0,
                done: false,
            });
        }
        // The covered classes' branches: recorded under ids above the class's own
        // (`rivet_symbolic::program::covered_branch`), every method may reach them.
        let cover: Vec<Arc<str>> = plan
            .covered
            .iter()
            .filter(|c| c.reachable)
            .map(|c| Arc::from(c.class.internal()))
            .collect();
        let mut branch_goals: BTreeMap<u32, GoalId> = BTreeMap::new();
        for (g, p) in &plan.places {
            if p.class == *class {
                branch_goals.insert(p.branch.0, *g);
            } else if let Some(k) = cover.iter().position(|c| **c == *p.class.internal()) {
                branch_goals.insert(rivet_symbolic::program::covered_branch(k, p.branch.0), *g);
                for m in &mut methods {
                    m.branches.insert(*g);
                }
            }
        }
        let started = explorer.clock().now();
        SymbolicStrategy {
            explorer,
            schedule,
            methods,
            branch_goals,
            cover,
            queue: VecDeque::new(),
            paths: Vec::new(),
            explored: HashSet::new(),
            active: Vec::new(),
            staged: VecDeque::new(),
            round_log: None,
            // Waiting hands over to exploring at once when there is no search first.
            phase: Phase::Waiting,
            started,
            stats: SymbolicStats::default(),
            uncovered_left: true,
            artifacts,
            policy,
            feasibility,
            selector: Selector::new(SelectorConfig {
                reclassify_after: RECLASSIFY_AFTER,
                seed: schedule.seed ^ 0x7A4D_1500,
            }),
            attempts: Vec::new(),
            learned: None,
            alternatives: None,
            offered: Vec::new(),
            reexplored_for: 0,
            last_prospect: Duration::ZERO,
            allowance: None,
            background: None,
        }
    }

    /// Adds, as TARDIS does, the alternatives of the paths the tests take: each test that
    /// reaches a target method is traced and replayed, its own path condition is feasible
    /// evidence, and each clause negated after its prefix becomes a path to pick. Only the
    /// pipelined policies (FIFO, TARDIS) take them; a covering round needs a path's branches.
    pub fn with_alternatives(mut self, probes: Option<&ClassProbes>) -> SymbolicStrategy {
        if !self.policy.pipelined() {
            return self;
        }
        let targets = self
            .methods
            .iter()
            .map(|m| ReplayTarget {
                member: m.member.clone(),
                spec: m.spec.clone(),
            })
            .collect();
        self.alternatives = Some(Alternatives::new(
            self.explorer
                .with_config(rivet_symbolic::ExploreConfig::default()),
            targets,
            probes,
            self.schedule.seed,
        ));
        self
    }

    /// Traces the archive's new tests and keeps the alternatives of their paths; ends the
    /// strategy when nothing is searched, picked or harvested any more.
    fn harvest(&mut self, arena: &mut Arena<'_>) {
        let elapsed = self.elapsed();
        let Some(alternatives) = self.alternatives.as_mut() else {
            return;
        };
        // At most a fifth of the strategy's time, so the search keeps most of it.
        if alternatives.stats().time * HARVEST_SHARE > elapsed {
            return;
        }
        let invariants = self
            .learned
            .as_ref()
            .map(LearnedInvariants::assumed)
            .unwrap_or_default();
        let harvested = alternatives.step(arena, &invariants);
        let found = !harvested.is_empty();
        for h in harvested {
            self.feasibility
                .learn(&h.source, Label::Feasible, Source::TestPath);
            for pc in &h.unsat {
                self.feasibility
                    .learn(pc, Label::Infeasible, Source::SolverUnsat);
            }
            for pc in h.alternatives {
                if self.policy.learns() {
                    self.selector.insert(self.paths.len(), &pc);
                }
                self.paths.push(KeptPath {
                    method: h.method,
                    pc,
                    branches: BTreeSet::new(),
                    tried: false,
                    alternative: Some(h.test.clone()),
                });
            }
        }
        if !found && self.active.is_empty() && self.paths.iter().all(|p| p.tried) {
            self.phase = Phase::Done;
        }
    }

    /// Learns heap invariants from snapshots of the tests' objects and explores with them.
    pub fn with_learned_invariants(mut self, plan: &ClassPlan) -> SymbolicStrategy {
        self.learned = Some(LearnedInvariants::new(snapshot_spec(plan)));
        self
    }

    /// The learned invariants so far (None when learning is off).
    pub fn learned_invariants(&self) -> Option<LearnedInvariantsReport> {
        self.learned.as_ref().map(LearnedInvariants::report)
    }

    pub fn stats(&self) -> &SymbolicStats {
        &self.stats
    }

    /// The policy's record: the PCs tried and what became of them, and the classifier's
    /// figures.
    pub fn selection_report(&self) -> PcSelectionReport {
        let count = |o: PcOutcome| self.attempts.iter().filter(|a| a.outcome == o).count();
        let learned = self.feasibility.stats();
        let picked = self.selector.stats();
        let (sizes, pending_unclassified) = self.selector.bucket_sizes();
        let pending = Bucket::ALL
            .into_iter()
            .zip(sizes)
            .filter(|(_, n)| *n > 0)
            .collect();
        PcSelectionReport {
            policy: self.policy.name().into(),
            tried: self.attempts.len(),
            satisfied: count(PcOutcome::Reached),
            failed: count(PcOutcome::Failed),
            cut_short: count(PcOutcome::CutShort),
            classifier: ClassifierReport {
                training: learned.feasible + learned.infeasible,
                feasible: learned.feasible,
                infeasible: learned.infeasible,
                by_source: learned.by_source,
                predictions: picked.classified.clone(),
                pending,
                pending_unclassified,
                picks: picked.picks.clone(),
                unclassified_picks: picked.unclassified_picks,
                reclassifications: picked.reclassifications,
            },
            attempts: self.attempts.clone(),
            alternatives: self.alternatives.as_ref().map(|a| {
                let s = a.stats();
                let (untried, untried_unclassified) = self.untried_alternatives();
                AlternativesReport {
                    tests: s.tests,
                    calls_replayed: s.calls_replayed,
                    calls_skipped: s.calls_skipped,
                    sources: s.sources,
                    alternatives: s.alternatives,
                    refuted: s.refuted,
                    contradicted: s.contradicted,
                    seconds: seconds(s.time),
                    untried,
                    untried_unclassified,
                }
            }),
        }
    }

    /// The alternatives kept and not tried: per bucket of their last prediction, and those
    /// without one (never classified, or a policy that does not learn).
    fn untried_alternatives(&self) -> (BTreeMap<Bucket, usize>, usize) {
        let mut buckets = BTreeMap::new();
        let mut unclassified = 0;
        let untried = self.paths.iter().enumerate();
        for (p, _) in untried.filter(|(_, k)| k.alternative.is_some() && !k.tried) {
            match self.selector.prediction(&p) {
                Some(pred) => *buckets.entry(Bucket::of(&pred)).or_insert(0) += 1,
                None => unclassified += 1,
            }
        }
        (buckets, unclassified)
    }

    /// Methods with an uncovered branch, fewest explorations first.
    fn enqueue(&mut self, archive: &Archive) {
        self.queue = (0..self.methods.len())
            .filter(|i| {
                let m = &self.methods[*i];
                !m.done && m.branches.iter().any(|g| !archive.is_covered(*g))
            })
            .collect();
    }

    /// Its time so far on the run's clock.
    fn elapsed(&self) -> Duration {
        self.explorer.clock().since(self.started)
    }

    fn explore_budget_left(&self) -> Duration {
        self.schedule
            .explore
            .saturating_sub(self.stats.explore_time + self.stats.select_time)
    }
}
/// The searcher of the pass after a pass with `s` (None: no pass left).
fn next_searcher(s: SearcherKind) -> Option<SearcherKind> {
    match s {
        SearcherKind::DepthFirst => Some(SearcherKind::BreadthFirst),
        SearcherKind::BreadthFirst => Some(SearcherKind::Random),
        SearcherKind::Random | SearcherKind::NewCoverageFirst => None,
    }
}

fn searcher_name(s: SearcherKind) -> &'static str {
    match s {
        SearcherKind::DepthFirst => "dfs",
        SearcherKind::BreadthFirst => "bfs",
        SearcherKind::Random => "random",
        SearcherKind::NewCoverageFirst => "new-coverage",
    }
}

/// Alternatives searched beside a round's selection, per uncovered branch and in all.
const ALTERNATIVES_PER_BRANCH: usize = 2;
const MAX_ALTERNATIVES: usize = 6;

/// The alternatives' generator gets at most one part in this many of the strategy's time.
const HARVEST_SHARE: u32 = 5;

/// Reclassify the pending paths when the training set has grown by this many examples.
const RECLASSIFY_AFTER: usize = 5;

const FIRST_DEPTH: u32 = 25;
const MAX_DEPTH: u32 = 200;

impl Strategy for SymbolicStrategy {
    fn name(&self) -> &'static str {
        "symbolic"
    }

    fn allow_turn(&mut self, allowance: Duration) {
        self.allowance = Some(allowance);
    }

    fn warming_up(&self) -> bool {
        matches!(self.phase, Phase::Exploring | Phase::Select)
    }

    fn busy_elsewhere(&self) -> bool {
        self.phase == Phase::Exploring && self.background.as_ref().is_some_and(|b| b.running())
    }

    fn report_sections(&self, elapsed: Duration) -> Vec<(&'static str, serde_json::Value)> {
        let symbolic = rivet_report::SymbolicReport {
            invariants: self.learned_invariants(),
            ..crate::plugin::symbolic_report(self.stats(), elapsed)
        };
        [
            ("symbolic", serde_json::to_value(symbolic)),
            (
                "pc_selection",
                serde_json::to_value(self.selection_report()),
            ),
        ]
        .into_iter()
        .filter_map(|(key, v)| v.ok().map(|v| (key, v)))
        .collect()
    }

    fn pending(&self) -> bool {
        self.phase != Phase::Done && self.uncovered_left
    }

    fn phase(&self) -> Option<String> {
        match self.phase {
            Phase::Exploring => Some(match self.queue.front() {
                Some(i) => format!("exploring {}", self.methods[*i].spec.name),
                None => "exploring".into(),
            }),
            Phase::Select => Some("selecting paths".into()),
            Phase::Searching => Some(format!(
                "PC goals {}/{}",
                self.stats.goals - self.active.len(),
                self.stats.goals
            )),
            Phase::Waiting | Phase::Done => None,
        }
    }

    fn offers(&mut self) -> Vec<TypedTest> {
        std::mem::take(&mut self.offered)
    }

    fn close(&mut self, goals: &mut Goals, archive: &Archive) {
        // A pass beside the search ends at its next deadline check; what it found counts.
        if let Some(outcome) = self.background.take().and_then(|b| b.finish()) {
            self.apply_pass(outcome, archive);
        }
        self.settle(goals, archive, true);
        let report = self.selection_report();
        if let Some(a) = &mut self.artifacts {
            a.selection(&report);
        }
        if let Some(l) = self.learned.as_mut() {
            l.update_goals(goals, false);
            if let Some(a) = &mut self.artifacts {
                a.invariants(&l.file_text(), &l.report());
            }
        }
    }

    fn update_goals(&mut self, goals: &mut Goals, archive: &Archive) {
        if let Some(l) = self.learned.as_mut() {
            l.update_goals(goals, true);
        }
        self.uncovered_left = self.schedule.until_budget
            || self.branch_goals.values().any(|g| !archive.is_covered(*g));
        if self.phase == Phase::Searching {
            self.settle(goals, archive, false);
            let none_left = self.start_staged(goals, archive);
            if self.policy.pipelined() {
                self.refill(goals, archive);
                // With alternatives, the next harvest decides.
                if self.active.is_empty() && self.alternatives.is_none() {
                    self.phase = Phase::Done;
                }
            } else if none_left {
                self.phase = Phase::Select;
            }
        }
        if self.phase != Phase::Done && self.unprofitable() {
            // The class's path conditions keep failing: the rest of the time goes to the
            // other strategies.
            debug!(
                reached = self.stats.goals_reached,
                failed = self.stats.goals_failed,
                "symbolic strategy stops: its goals are rarely reached"
            );
            self.settle(goals, archive, true);
            self.phase = Phase::Done;
            if let Some(l) = self.learned.as_mut() {
                l.update_goals(goals, false);
            }
            return;
        }
        if self.phase == Phase::Select {
            self.select_round(goals, archive);
        }
        if let (Some(l), Phase::Done) = (self.learned.as_mut(), self.phase) {
            l.update_goals(goals, false);
        }
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        if let Some(l) = self.learned.as_mut() {
            l.step(arena);
        }
        match self.phase {
            Phase::Waiting => {
                if self.elapsed() < self.schedule.search_first {
                    return StepOutcome::Worked;
                }
                self.enqueue(arena.archive);
                if self.queue.is_empty() {
                    self.phase = Phase::Done;
                    return StepOutcome::Done;
                }
                self.phase = Phase::Exploring;
                StepOutcome::Worked
            }
            Phase::Exploring => {
                self.explore_next(arena.archive);
                StepOutcome::Worked
            }
            Phase::Searching => {
                self.reexplore_if_stale(arena.archive);
                if self.queue.is_empty() && self.background.is_none() {
                    self.harvest(arena);
                } else {
                    self.explore_again(arena.archive);
                    // A pass beside the search leaves the turn to the goals.
                    if self.background.is_some() {
                        self.harvest(arena);
                    }
                }
                StepOutcome::Worked
            }
            Phase::Select => StepOutcome::Worked,
            Phase::Done => StepOutcome::Done,
        }
    }
}
