//! The concolic strategy (LCT, brief §4.2): tests run on the JVM with branch traces; the
//! outcomes seen, method by method, form an execution tree; an outcome not yet seen next to
//! a seen one is an unvisited node, picked depth-first (or breadth-first, or at random); the
//! symbolic executor follows the traced prefix with that outcome in place of the one taken
//! and the solver answers for the path. New argument values become a new test, run and
//! checked against the predicted outcomes (a mismatch is a divergence, marked and reported
//! with where it happened); a path that needs a heap shape becomes a path-condition goal for
//! the search, as in SUSHI. The run's classifier learns from it: negated outcomes the solver
//! proved unsatisfiable are infeasible examples, its goals' outcomes feasible or infeasible
//! ones.

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use rivet_api::{Callable, CallableKind, Generator, Rng};
use rivet_instrument::ClassProbes;
use rivet_pc::PathCondition;
use rivet_search::{Arena, Goals, PathConditionObjective};
use rivet_symbolic::{ExploreConfig, Explorer, MethodSpec};
use rivet_tardis::{Label, Source};
use rivet_testcase::{Execution, GoalId, Observation, ProbeId, TypedTest};
use tracing::debug;

use crate::node::{Node, NodeAnswer, NodeInFlight, NodeQuestion};
use crate::{patience::Patience, slots::HeapGoalSlots};
use rivet_search::ArchiveCursor;
use rivet_strategy::ClassPlan;
use rivet_strategy::{StepOutcome, Strategy};
use rivet_tardis::Feasibility;

/// The technique the adaptive DSE steps' tests are credited to (`Archive::origins`).
pub const DSE_ORIGIN: &str = "adaptive-dse";

/// How the next unvisited node is picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeOrder {
    /// The deepest first (LCT's default).
    DepthFirst,
    /// The shallowest first.
    BreadthFirst,
    /// Uniformly at random, seeded.
    Random,
    /// The node whose outcome has been tried least so far (spreading the effort over the
    /// branches), then the shallowest.
    Priority,
}

/// Settings of the concolic strategy.
#[derive(Debug, Clone, Copy)]
pub struct ConcolicConfig {
    pub order: NodeOrder,
    /// Time the symbolic executor gets per node.
    pub node_time: Duration,
    /// Time a path-condition goal gets before it counts as likely infeasible.
    pub slice: Duration,
    /// Decisions of a trace considered (deeper ones are left to the search).
    pub max_depth: usize,
    /// Most time in the symbolic executor over the run (the rest of the strategy's turns
    /// only trace and run tests).
    pub explore_share: Duration,
    /// Most path-condition goals searched at once.
    pub max_active_goals: usize,
    /// Adaptive DSE (ISSRE'13 §III): the probability P of a concolic step on a test the
    /// search asks for, and the factor R it is multiplied by after a step that improved
    /// coverage (divided by after one that did not). Their best setting is P = 1, R = 1.
    pub dse_probability: f64,
    pub dse_factor: f64,
    /// Unvisited nodes of a requested test explored per request.
    pub dse_nodes: usize,
    /// Solve nodes on the solving thread while the search goes on (on the wall clock only;
    /// under an execution cap they are solved in the strategy's turns).
    pub beside_search: bool,
    /// Beside the other strategies, nodes that keep giving nothing make the strategy pause
    /// before asking the next ([`Patience`]).
    pub patient: bool,
    pub seed: u64,
}

impl ConcolicConfig {
    /// The settings for `budget`: alone, the strategy may explore all of it; beside the
    /// other strategies, a quarter.
    pub fn for_budget(budget: Duration, alone: bool, seed: u64) -> ConcolicConfig {
        ConcolicConfig {
            order: NodeOrder::DepthFirst,
            node_time: Duration::from_millis(300),
            slice: (budget / 10).clamp(Duration::from_secs(2), Duration::from_secs(15)),
            max_depth: 200,
            explore_share: if alone { budget } else { budget / 4 },
            max_active_goals: 4,
            // ISSRE'13 found P = 1, R = 1 best on their subjects; on Rivet's real classes
            // (collections) steps on requested tests rarely covered more, so R = 2 halves P
            // after each such step and doubles it after one that pays.
            dse_probability: 1.0,
            dse_factor: 2.0,
            dse_nodes: 2,
            beside_search: false,
            patient: !alone,
            seed,
        }
    }
}

/// A run whose outcomes left the predicted path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Divergence {
    /// `Class.method line N (outcome)` of the outcome that was predicted and not taken.
    pub at: String,
    /// The decision (0-based) along the method's trace.
    pub depth: usize,
}

/// Totals for the report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConcolicStats {
    /// Test runs with traces.
    pub traced_runs: u64,
    /// Unvisited nodes the executor was asked about.
    pub nodes: usize,
    /// Nodes the solver found inputs for.
    pub solved: usize,
    /// New tests built from solutions and run.
    pub tests: usize,
    /// Path-condition goals handed to the search (heap shapes).
    pub goals: usize,
    pub goals_reached: usize,
    pub divergences: Vec<Divergence>,
    pub explore_time: Duration,
    /// Adaptive DSE: tests the search asked about, steps taken on them, and steps after
    /// which more goals were covered.
    pub dse_requests: usize,
    pub dse_steps: usize,
    pub dse_improved: usize,
    /// Requested tests with no uncovered outcome next to their paths (no step taken).
    pub dse_no_open: usize,
    /// Nodes solved by replaying the whole test (mode (a)).
    pub whole_tests: usize,
    /// Pauses taken after fruitless nodes ([`Patience`]).
    pub pauses: usize,
}

/// A method of the class under test whose calls are traced.
struct Target {
    callable: Callable,
    spec: MethodSpec,
}

/// A test built for a node, with the outcomes it should take.
struct Prediction {
    target: usize,
    statement: usize,
    prefix: Vec<u32>,
}

/// Most path conditions waiting to become heap goals.
const MAX_WAITING_GOALS: usize = 64;

/// The concolic strategy of the driver.
pub struct ConcolicStrategy<'g, 'm> {
    generator: &'g Generator<'m>,
    rng: Rng,
    explorer: Explorer,
    config: ConcolicConfig,
    targets: Vec<Target>,
    /// The class under test's probes: branch `b` is probe `base + b`.
    base: u32,
    branch_count: u32,
    /// Branch → the other outcomes of its instruction.
    siblings: BTreeMap<u32, Vec<u32>>,
    /// Branch → its goal, and its label for the report.
    branch_goals: BTreeMap<u32, GoalId>,
    labels: BTreeMap<u32, String>,
    /// Hashes of (target, trace prefix) seen in runs, and of nodes already tried.
    seen: HashSet<u64>,
    tried: HashSet<u64>,
    /// The archive tests traced already.
    traced: ArchiveCursor,
    /// Unvisited nodes whose outcome no test covers yet (tried first), and the others (each
    /// a stepping stone deeper into the method, as a loop's next iteration).
    pending: Vec<Node>,
    stepping: Vec<Node>,
    /// Path conditions waiting to become goals (goals are added between steps, as many active
    /// at once as [`HeapGoalSlots`] opens), oldest first.
    new_goals: Vec<(usize, Arc<PathCondition>)>,
    active: Vec<(GoalId, Duration, Arc<PathCondition>)>,
    slots: HeapGoalSlots,
    feasibility: Feasibility,
    seeded: bool,
    uncovered_left: bool,
    /// The current probability of a step on a requested test (adaptive DSE).
    p_dse: f64,
    /// Nodes tried per outcome (the priority order spreads the effort).
    attempts: BTreeMap<u32, usize>,
    /// The node asked about on the solving thread.
    in_flight: Option<NodeInFlight>,
    /// When the next node may be asked (beside the other strategies).
    patience: Option<Patience>,
    stats: ConcolicStats,
}

impl<'g, 'm> ConcolicStrategy<'g, 'm> {
    pub fn new(
        plan: &ClassPlan,
        probes: Option<&ClassProbes>,
        generator: &'g Generator<'m>,
        explorer: Explorer,
        feasibility: Feasibility,
        config: ConcolicConfig,
    ) -> ConcolicStrategy<'g, 'm> {
        let class = &plan.class;
        let targets = plan
            .model
            .targets
            .iter()
            .filter(|t| {
                matches!(t.kind, CallableKind::Method | CallableKind::Constructor)
                    && t.member.owner == *class
            })
            .map(|t| Target {
                callable: t.clone(),
                spec: MethodSpec {
                    class: class.clone(),
                    name: t.member.name.clone(),
                    descriptor: t.member.descriptor.clone(),
                },
            })
            .collect();
        let mut siblings: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        let (mut base, mut branch_count) = (0, 0);
        if let Some(p) = probes {
            base = p.base;
            branch_count = p.branches.len() as u32;
            let mut by_insn: BTreeMap<(usize, u32), Vec<u32>> = BTreeMap::new();
            for (b, info) in p.branches.iter().enumerate() {
                by_insn
                    .entry((info.method, info.offset))
                    .or_default()
                    .push(b as u32);
            }
            for group in by_insn.values() {
                for &b in group {
                    siblings.insert(b, group.iter().copied().filter(|x| *x != b).collect());
                }
            }
        }
        let mut branch_goals = BTreeMap::new();
        let mut labels = BTreeMap::new();
        for (g, place) in &plan.places {
            if place.class == *class {
                branch_goals.insert(place.branch.0, *g);
                if let Some(goal) = plan.goals.get(*g) {
                    labels.insert(place.branch.0, goal.label());
                }
            }
        }
        ConcolicStrategy {
            generator,
            rng: Rng::new(config.seed ^ 0xC0C0_11C0),
            explorer,
            config,
            targets,
            base,
            branch_count,
            siblings,
            branch_goals,
            labels,
            seen: HashSet::new(),
            tried: HashSet::new(),
            traced: ArchiveCursor::default(),
            pending: Vec::new(),
            stepping: Vec::new(),
            new_goals: Vec::new(),
            active: Vec::new(),
            slots: HeapGoalSlots::default(),
            feasibility,
            seeded: false,
            p_dse: config.dse_probability,
            attempts: BTreeMap::new(),
            uncovered_left: true,
            in_flight: None,
            patience: config
                .patient
                .then(|| Patience::new(PATIENCE_LIMIT, PATIENCE_PAUSE, PATIENCE_MOST)),
            stats: ConcolicStats::default(),
        }
    }

    pub fn stats(&self) -> &ConcolicStats {
        &self.stats
    }

    /// The class-local branch ids among a trace's probes (other classes' are left out).
    fn branches_of(&self, trace: &[ProbeId]) -> Vec<u32> {
        trace
            .iter()
            .filter(|p| p.0 >= self.base && p.0 < self.base + self.branch_count)
            .map(|p| p.0 - self.base)
            .collect()
    }

    /// Runs tests with traces, credits what they cover, and returns the runs.
    fn run_traced(&mut self, arena: &mut Arena<'_>, tests: &[TypedTest]) -> Vec<Execution> {
        // What the goals observe, and traces of every target's calls.
        let mut spec = arena.goals.observation().clone();
        spec.trace = true;
        for t in &self.targets {
            if !spec.targets.iter().any(|o| o.member == t.callable.member) {
                spec.targets.push(Observation {
                    member: t.callable.member.clone(),
                    paths: Vec::new(),
                });
            }
        }
        let runs = arena.evaluate_observing(tests, &spec);
        self.stats.traced_runs += runs.len() as u64;
        runs
    }

    /// Adds the unvisited nodes along the traces of a run to the tree.
    fn grow(&mut self, arena: &Arena<'_>, test: &TypedTest, run: &Execution) {
        for call in &run.observations {
            let Some(target) = self
                .targets
                .iter()
                .position(|t| t.callable.member == call.member)
            else {
                continue;
            };
            let trace = self.branches_of(&call.trace);
            let depth = trace.len().min(self.config.max_depth);
            for j in 0..=depth {
                self.seen.insert(key(target, &trace[..j]));
            }
            for j in 0..depth {
                let alternatives = self.siblings.get(&trace[j]).cloned().unwrap_or_default();
                for alt in alternatives {
                    let uncovered = self
                        .branch_goals
                        .get(&alt)
                        .is_some_and(|g| !arena.archive.is_covered(*g));
                    let mut prefix = trace[..j].to_vec();
                    prefix.push(alt);
                    let k = key(target, &prefix);
                    if self.seen.contains(&k) || !self.tried.insert(k) {
                        continue;
                    }
                    let node = Node {
                        target,
                        test: test.clone(),
                        statement: call.statement as usize,
                        prefix,
                        uncovered,
                    };
                    if uncovered {
                        self.pending.push(node);
                    } else {
                        self.stepping.push(node);
                    }
                }
            }
        }
    }

    /// The next node, by the configured order: nodes whose outcome is still uncovered first
    /// (one covered meanwhile becomes a stepping stone), then the stepping stones.
    fn next_node(&mut self, arena: &Arena<'_>) -> Option<Node> {
        while !self.pending.is_empty() {
            let i = pick(
                self.config.order,
                &mut self.rng,
                &self.attempts,
                &self.pending,
            );
            let mut node = self.pending.remove(i);
            let alt = node.prefix.last().copied().unwrap_or(u32::MAX);
            let open = self
                .branch_goals
                .get(&alt)
                .is_some_and(|g| !arena.archive.is_covered(*g));
            if open {
                return Some(node);
            }
            node.uncovered = false;
            self.stepping.push(node);
        }
        if self.stepping.is_empty() {
            return None;
        }
        let i = pick(
            self.config.order,
            &mut self.rng,
            &self.attempts,
            &self.stepping,
        );
        Some(self.stepping.remove(i))
    }

    /// The question about `node` for the executor.
    fn question(&self, node: Node) -> NodeQuestion {
        NodeQuestion {
            spec: self.targets[node.target].spec.clone(),
            explorer: self.explorer.with_config(ExploreConfig::default()),
            node_time: self.config.node_time,
            seed: self.config.seed,
            unsat_examples: UNSAT_EXAMPLES,
            node,
        }
    }

    /// Takes in the executor's answer about `node` (its figures; the outcomes it refuted,
    /// TARDIS's infeasible examples; its goal) and runs the test built from it, checking its
    /// prediction and growing the tree with its trace.
    fn take_answer(&mut self, arena: &mut Arena<'_>, node: &Node, answer: NodeAnswer) {
        self.stats.nodes += 1;
        self.stats.explore_time += answer.took;
        self.stats.solved += usize::from(answer.solved);
        self.stats.whole_tests += usize::from(answer.whole);
        for pc in &answer.unsat {
            self.feasibility
                .learn(pc, Label::Infeasible, Source::SolverUnsat);
        }
        let goal = answer.goal.is_some();
        if let Some(pc) = answer.goal {
            self.new_goals.push((node.target, Arc::new(pc)));
        }
        let covered = arena.archive.entries.len();
        if let Some((test, statement)) = answer.built {
            self.run_answer(arena, node, test, statement);
        }
        if let Some(p) = &mut self.patience {
            let fruitful = goal || arena.archive.entries.len() > covered;
            p.record(fruitful, answer.took, self.explorer.clock().now());
            self.stats.pauses = p.pauses();
        }
    }

    /// Runs the test built for `node`, checking its prediction and growing the tree.
    fn run_answer(
        &mut self,
        arena: &mut Arena<'_>,
        node: &Node,
        test: TypedTest,
        statement: usize,
    ) {
        self.stats.tests += 1;
        let prediction = Prediction {
            target: node.target,
            statement,
            prefix: node.prefix.clone(),
        };
        let runs = self.run_traced(arena, std::slice::from_ref(&test));
        if let Some(run) = runs.first() {
            self.traced.take(&test);
            self.check(&prediction, run);
            self.grow(arena, &test, run);
        }
    }

    /// Compares a run of a predicted test with its prediction; a mismatch is a divergence.
    fn check(&mut self, p: &Prediction, run: &Execution) {
        let member = &self.targets[p.target].callable.member;
        let Some(call) = run
            .observations
            .iter()
            .find(|c| c.statement as usize == p.statement && c.member == *member)
        else {
            return;
        };
        let actual = self.branches_of(&call.trace);
        if let Some(depth) = (0..p.prefix.len()).find(|&j| actual.get(j) != p.prefix.get(j)) {
            let predicted = p.prefix[depth];
            let at = self
                .labels
                .get(&predicted)
                .cloned()
                .unwrap_or_else(|| format!("branch {predicted}"));
            debug!(%at, depth, ?actual, predicted = ?p.prefix, "concolic run diverged");
            self.stats.divergences.push(Divergence { at, depth });
        }
    }

    /// A concolic step on a test the search asked about (ISSRE'13's DSE on the best
    /// individual): its traces' unvisited nodes, uncovered outcomes first and deepest first,
    /// up to `dse_nodes` of them, are solved and the new tests run; the archive keeps those
    /// that cover more. P is then multiplied by R if coverage grew, else divided by it.
    fn dse_step(&mut self, arena: &mut Arena<'_>, test: TypedTest) {
        let before = arena.archive.entries.len();
        // What the step's tests cover first is the adaptive DSE's, within this strategy's turn.
        let origin = std::mem::replace(&mut arena.archive.origin, DSE_ORIGIN);
        let runs = self.run_traced(arena, std::slice::from_ref(&test));
        let Some(run) = runs.first() else {
            arena.archive.origin = origin;
            return;
        };
        self.traced.take(&test);
        let (p0, s0) = (self.pending.len(), self.stepping.len());
        self.grow(arena, &test, run);
        if self.pending.len() == p0 {
            // No outcome next to the test's path is uncovered: a step could only find paths
            // the tests already take. The nodes wait with the others; P stays as it was.
            arena.archive.origin = origin;
            self.stats.dse_no_open += 1;
            return;
        }
        self.stats.dse_steps += 1;
        let mut nodes: Vec<Node> = self.pending.drain(p0..).rev().collect();
        nodes.extend(self.stepping.drain(s0..).rev());
        let rest = nodes.split_off(nodes.len().min(self.config.dse_nodes));
        for node in rest {
            if node.uncovered {
                self.pending.push(node);
            } else {
                self.stepping.push(node);
            }
        }
        for node in nodes {
            self.try_node(arena, node);
        }
        arena.archive.origin = origin;
        let improved = arena.archive.entries.len() > before;
        let r = self.config.dse_factor.max(f64::MIN_POSITIVE);
        self.p_dse = if improved {
            self.stats.dse_improved += 1;
            (self.p_dse * r).min(1.0)
        } else {
            (self.p_dse / r).clamp(0.01, 1.0)
        };
        debug!(improved, p = self.p_dse, "adaptive DSE step");
    }

    /// Solves a node here and runs the test built from the solution.
    fn try_node(&mut self, arena: &mut Arena<'_>, node: Node) {
        self.count_attempt(&node);
        let (node, answer) = self.question(node).answer();
        self.take_answer(arena, &node, answer);
    }

    /// One more node tried for its outcome (the priority order spreads the effort).
    fn count_attempt(&mut self, node: &Node) {
        if let Some(&outcome) = node.prefix.last() {
            *self.attempts.entry(outcome).or_insert(0) += 1;
        }
    }

    /// Asks about `node` on the solving thread beside the search, or here when the clock is
    /// virtual (a capped run decides alike every time).
    fn ask(&mut self, arena: &mut Arena<'_>, node: Node) {
        if !self.config.beside_search || self.explorer.clock().is_virtual() {
            self.try_node(arena, node);
            return;
        }
        self.count_attempt(&node);
        self.in_flight = Some(self.question(node).start());
    }

    /// The answer of the node asked about on the solving thread, once there: its test runs.
    /// True when a question was in flight.
    fn take_in_flight(&mut self, arena: &mut Arena<'_>) -> bool {
        let Some(flight) = self.in_flight.take() else {
            return false;
        };
        if let Some((node, answer)) = flight.answer() {
            self.take_answer(arena, &node, answer);
        }
        true
    }

    /// Seed tests: one call of each target, built by the generator.
    fn seeds(&mut self) -> Vec<TypedTest> {
        let mut out = Vec::new();
        for i in 0..self.targets.len() {
            let mut t = TypedTest::new();
            let callable = self.targets[i].callable.clone();
            if self
                .generator
                .call(&mut self.rng, &mut t, &callable, 0)
                .is_some()
            {
                out.push(t);
            }
        }
        out
    }

    /// Archive tests not traced yet (each once).
    fn fresh_archive_tests(&mut self, arena: &Arena<'_>, most: usize) -> Vec<TypedTest> {
        self.traced.fresh(arena.archive, most)
    }
}

/// Unsatisfiable queries of a node's exploration kept as infeasible examples: the first, the
/// negated outcome itself when the trace's prefix led there (the explorer follows the trace
/// alone until its end).
const UNSAT_EXAMPLES: usize = 1;

/// Beside the other strategies: solving time without a fruitful node before the first pause,
/// the first pause, and the longest. On commons-collections4's TreeBidiMap (60 s, `all`),
/// 672 nodes took 9.4 s of a core beside the search for no test and no goal.
const PATIENCE_LIMIT: Duration = Duration::from_secs(2);
const PATIENCE_PAUSE: Duration = Duration::from_secs(2);
const PATIENCE_MOST: Duration = Duration::from_secs(16);

/// Tests traced per step while harvesting the archive.
const HARVEST: usize = 16;

/// The archive is harvested only while fewer unvisited nodes with an uncovered outcome wait
/// than this, and while the executor has time left: the tree grows about as fast as its
/// nodes are asked about. Harvesting every new archive test traced about 3,000 runs of
/// commons-lang3's `StringUtils` in 60 s, 4-7 s of the strategy's turns on the workers,
/// for 45-60 nodes asked.
const HARVEST_BELOW: usize = 32;

impl Strategy for ConcolicStrategy<'_, '_> {
    fn name(&self) -> &'static str {
        "concolic"
    }

    fn report_sections(&self, _elapsed: Duration) -> Vec<(&'static str, serde_json::Value)> {
        let section = crate::plugin::concolic_report(&self.stats);
        serde_json::to_value(section)
            .map(|v| vec![("concolic", v)])
            .unwrap_or_default()
    }

    fn pending(&self) -> bool {
        self.uncovered_left && !self.targets.is_empty()
    }

    fn busy_elsewhere(&self) -> bool {
        self.in_flight.as_ref().is_some_and(NodeInFlight::running)
    }

    fn phase(&self) -> Option<String> {
        let n = self.pending.len() + self.stepping.len();
        (n > 0).then(|| format!("concolic nodes {n}"))
    }

    fn update_goals(&mut self, goals: &mut Goals, archive: &rivet_search::Archive) {
        self.uncovered_left = self.branch_goals.values().any(|g| !archive.is_covered(*g));
        if !self.uncovered_left {
            // The goals were stepping stones towards uncovered branches: none is left.
            self.new_goals.clear();
        }
        let slice = self.config.slice;
        let mut still = Vec::new();
        for (g, since, pc) in std::mem::take(&mut self.active) {
            if archive.is_covered(g) {
                self.stats.goals_reached += 1;
                self.slots.reached();
                self.feasibility
                    .learn(&pc, Label::Feasible, Source::GoalReached);
                goals.retire(g);
            } else if self.explorer.clock().since(since) >= slice {
                self.slots.failed();
                self.feasibility
                    .learn(&pc, Label::Infeasible, Source::GoalFailed);
                goals.retire(g);
            } else if !self.uncovered_left {
                goals.retire(g);
            } else {
                still.push((g, since, pc));
            }
        }
        self.active = still;
        // At most a few in flight, fewer while they fail (`HeapGoalSlots` says what each
        // costs); the others wait, the newest first dropped when too many wait.
        let room = self.slots.open().saturating_sub(self.active.len());
        let take = room.min(self.new_goals.len());
        let starting: Vec<_> = self.new_goals.drain(..take).collect();
        self.new_goals.truncate(MAX_WAITING_GOALS);
        for (target, pc) in starting {
            let t = &self.targets[target];
            let objective = PathConditionObjective::new(t.callable.member.clone(), pc.clone());
            let label = format!("{}.{}", t.spec.class.simple(), t.spec.name);
            let g = goals.add(Arc::new(objective), label, None, "concolic path".into());
            self.active.push((g, self.explorer.clock().now(), pc));
            self.stats.goals += 1;
        }
    }

    fn close(&mut self, goals: &mut Goals, _archive: &rivet_search::Archive) {
        for (g, _, _) in std::mem::take(&mut self.active) {
            goals.retire(g);
        }
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        if self.targets.is_empty() {
            return StepOutcome::Done;
        }
        if !self.seeded {
            self.seeded = true;
            let seeds = self.seeds();
            let runs = self.run_traced(arena, &seeds);
            for (t, r) in seeds.iter().zip(&runs) {
                self.traced.take(t);
                self.grow(arena, t, r);
            }
            return StepOutcome::Worked;
        }
        // The turn after a question on the solving thread runs its answer's test.
        if self.take_in_flight(arena) {
            return StepOutcome::Worked;
        }
        // Adaptive DSE: a test the search asked about comes first, with probability P.
        if let Some(test) = arena.archive.dse_requests.pop() {
            self.stats.dse_requests += 1;
            if self.stats.explore_time < self.config.explore_share && self.rng.chance(self.p_dse) {
                self.dse_step(arena, test);
                return StepOutcome::Worked;
            }
        }
        let exploring = self.stats.explore_time < self.config.explore_share
            && self
                .patience
                .as_ref()
                .is_none_or(|p| p.ready(self.explorer.clock().now()));
        let fresh = if exploring && self.pending.len() < HARVEST_BELOW {
            self.fresh_archive_tests(arena, HARVEST)
        } else {
            Vec::new()
        };
        if !fresh.is_empty() {
            let runs = self.run_traced(arena, &fresh);
            for (t, r) in fresh.iter().zip(&runs) {
                self.grow(arena, t, r);
            }
        }
        if !exploring {
            return StepOutcome::Worked;
        }
        let Some(node) = self.next_node(arena) else {
            return StepOutcome::Worked;
        };
        self.ask(arena, node);
        StepOutcome::Worked
    }
}

/// The index of the next node of `nodes` in `order`.
fn pick(order: NodeOrder, rng: &mut Rng, attempts: &BTreeMap<u32, usize>, nodes: &[Node]) -> usize {
    let n = nodes.len();
    match order {
        NodeOrder::DepthFirst => n - 1,
        NodeOrder::BreadthFirst => 0,
        NodeOrder::Random => rng.below(n),
        NodeOrder::Priority => (0..n)
            .min_by_key(|&i| {
                let node = &nodes[i];
                let outcome = node.prefix.last().copied().unwrap_or(u32::MAX);
                let tried = attempts.get(&outcome).copied().unwrap_or(0);
                (tried, node.prefix.len(), std::cmp::Reverse(i))
            })
            .unwrap_or(n - 1),
    }
}

/// A node's key in the tree: its method and outcome prefix.
fn key(target: usize, prefix: &[u32]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    target.hash(&mut h);
    prefix.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(prefix: &[u32]) -> Node {
        Node {
            target: 0,
            test: TypedTest::new(),
            statement: 0,
            prefix: prefix.to_vec(),
            uncovered: true,
        }
    }

    #[test]
    fn each_order_picks_its_node() {
        let nodes = [node(&[1, 2]), node(&[3]), node(&[1, 4, 5])];
        let mut rng = Rng::new(0);
        let mut attempts = BTreeMap::new();
        assert_eq!(pick(NodeOrder::DepthFirst, &mut rng, &attempts, &nodes), 2);
        assert_eq!(
            pick(NodeOrder::BreadthFirst, &mut rng, &attempts, &nodes),
            0
        );
        // Priority: untried outcomes first, the shallowest among them.
        assert_eq!(pick(NodeOrder::Priority, &mut rng, &attempts, &nodes), 1);
        attempts.insert(3, 2);
        attempts.insert(2, 1);
        assert_eq!(pick(NodeOrder::Priority, &mut rng, &attempts, &nodes), 2);
        let r = pick(NodeOrder::Random, &mut rng, &attempts, &nodes);
        assert!(r < 3);
    }
}
