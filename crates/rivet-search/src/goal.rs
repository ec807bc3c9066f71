//! Coverage goals and their fitness behind one open interface ([`Objective`]): a branch of the
//! class under test (covered when its probe fires; otherwise approach level + normalized branch
//! distance over the control dependence of the branch, refined by the progress made in the
//! methods called on the way when it has [`CalleeGuidance`]), a method or constructor (covered
//! when a statement calls it), and whatever later strategies add (path conditions). Goals can be
//! added and retired while a search runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use crate::callee::{guided_fitness, unconfirmed_fitness, CalleeGuidance};
use rivet_testcase::{
    Execution, GoalId, MemberRef, Observation, ObservationSpec, ProbeId, SnapshotSpec, Statement,
    StatementOutcome, TestCase, ValueSummary, UNRUNNABLE_CLASS,
};

/// The fitness of a goal no statement came near.
pub const UNREACHED: f64 = 1_000.0;
/// The fitness of a branch no statement came near, of a test that holds an object whose
/// methods run it ([`BranchObjective::held_by`]): a call on that object is a mutation away.
pub const HELD: f64 = UNREACHED - 1.0;
/// How far up the control dependence the approach level looks.
const MAX_LEVEL: usize = 32;

/// `ν(x) = x / (x + 1)`.
pub fn normalize(d: f64) -> f64 {
    if d.is_nan() || d < 0.0 || d.is_infinite() {
        1.0
    } else {
        d / (d + 1.0)
    }
}

/// What a goal asks of a test: its fitness (0 when covered, lower is better).
pub trait Objective: fmt::Debug + Send + Sync {
    /// The fitness of one completed execution of `test`; 0 exactly when the goal is covered.
    /// It depends on the test and the execution alone (the search memoizes it per test).
    fn fitness(&self, test: &TestCase, execution: &Execution) -> f64;

    /// The probe whose firing covers the goal, for goals that are branches (lets the search
    /// find covered branches without evaluating each goal).
    fn probe(&self) -> Option<ProbeId> {
        None
    }

    /// Is this a branch of the code under test (what the report counts)?
    fn is_branch(&self) -> bool {
        self.probe().is_some()
    }

    /// The same objective knowing the probes of its control-dependence ancestors, level by
    /// level upwards ([`Goals::new`] offers them); None if it has no use for them.
    fn with_ancestors(&self, _levels: Vec<Vec<ProbeId>>) -> Option<Arc<dyn Objective>> {
        None
    }

    /// What the worker must observe at calls of a target method to compute this fitness
    /// (path-condition goals); None for goals that need nothing observed.
    fn observation(&self) -> Option<Observation> {
        None
    }

    /// Integers worth offering the generator while this goal is a target (the literals a
    /// path condition compares against); empty by default.
    fn literals(&self) -> &[i64] {
        &[]
    }

    /// For a branch counted as JaCoCo counts it: the probes (JaCoCo's points) one of which
    /// must be hit for the branch to count as covered. Empty: its own probe decides.
    fn confirmers(&self) -> &[ProbeId] {
        &[]
    }

    /// For a branch guided through the calls before or after it, that guidance.
    fn callees(&self) -> Option<&CalleeGuidance> {
        None
    }
}

/// The fitness of a branch that was taken while none of its confirming points ran (its code
/// threw before JaCoCo's next probe): better than any branch not taken, still not covered.
pub const UNCONFIRMED: f64 = f64::MIN_POSITIVE;

/// A branch: covered when its probe fires (and, with confirmers, one of them too); else the
/// approach level (how many control-dependence levels above it the nearest evaluated branch
/// is) plus ν of that branch's distance; with [`CalleeGuidance`], see [`crate::callee`].
#[derive(Debug, Clone, PartialEq)]
pub struct BranchObjective {
    pub probe: ProbeId,
    /// The probes of the branches it is control dependent on, level by level upwards
    /// (`levels[0]` are the direct parents); filled in by [`Goals::new`].
    levels: Vec<Vec<ProbeId>>,
    /// See [`Objective::confirmers`].
    confirmers: Vec<ProbeId>,
    /// Progress in the methods called on the way to it, when there are such calls.
    callees: Option<Arc<CalleeGuidance>>,
    /// The classes (internal names) whose instances run the branch's method when it is called
    /// on them, when that is not the class under test (see [`BranchObjective::held_by`]).
    holders: Option<Arc<[String]>>,
}

impl BranchObjective {
    pub fn new(probe: ProbeId) -> BranchObjective {
        BranchObjective {
            probe,
            levels: Vec::new(),
            confirmers: Vec::new(),
            callees: None,
            holders: None,
        }
    }

    /// The same branch, in an instance method that runs when a test calls it on an object of
    /// one of `holders` (its class and the subclasses among the goals' classes: the views and
    /// iterators a class hands out, its entries). Until a test enters the method, one that
    /// holds such an object scores [`HELD`], not [`UNREACHED`]: on a view's methods no approach
    /// level tells tests apart, and the test that made the view (`subMap(…).entrySet()`) would
    /// otherwise not outlive the goal it covered, so that a call on the view is left to chance.
    pub fn held_by(self, holders: Vec<String>) -> BranchObjective {
        BranchObjective {
            holders: (!holders.is_empty()).then(|| holders.into()),
            ..self
        }
    }

    /// Did a statement of the run produce an object of one of the holders?
    fn held(&self, e: &Execution) -> bool {
        let Some(holders) = &self.holders else {
            return false;
        };
        e.outcomes.iter().any(|o| match o {
            StatementOutcome::Normal(ValueSummary::Object { class, .. }) => {
                holders.iter().any(|h| class.internal() == h)
            }
            _ => false,
        })
    }

    /// The same branch guided through the calls before and after it (no guidance when
    /// `callees` has no outcomes).
    pub fn with_callees(self, callees: CalleeGuidance) -> BranchObjective {
        BranchObjective {
            callees: (!callees.is_empty()).then(|| Arc::new(callees)),
            ..self
        }
    }

    /// A branch that counts as covered only when one of `confirmers` was hit too.
    pub fn confirmed_by(probe: ProbeId, confirmers: Vec<ProbeId>) -> BranchObjective {
        BranchObjective {
            confirmers,
            ..BranchObjective::new(probe)
        }
    }

    /// The guidance through calls before the branch, if there are such calls.
    fn guided_before(&self) -> Option<&CalleeGuidance> {
        self.callees.as_deref().filter(|g| !g.before.is_empty())
    }

    fn confirmed(&self, e: &Execution) -> bool {
        self.confirmers.is_empty()
            || self
                .confirmers
                .iter()
                .any(|p| e.covered.binary_search(p).is_ok())
    }
}

impl Objective for BranchObjective {
    fn fitness(&self, test: &TestCase, e: &Execution) -> f64 {
        if let Some(d) = e.distance(self.probe) {
            return if e.covered.binary_search(&self.probe).is_err() {
                normalize(d)
            } else if self.confirmed(e) {
                0.0
            } else {
                match &self.callees {
                    Some(g) if !g.after.is_empty() => unconfirmed_fitness(
                        CalleeGuidance::progress(&g.after, test, e, e.hits(self.probe)),
                    ),
                    _ => UNCONFIRMED,
                }
            };
        }
        for (level, probes) in self.levels.iter().enumerate() {
            let best = probes
                .iter()
                .filter_map(|p| e.distance(*p))
                .map(normalize)
                .min_by(f64::total_cmp);
            if let Some(b) = best {
                let Some(g) = self.guided_before() else {
                    return (level + 1) as f64 + b;
                };
                // Times the path to the branch was taken at this level.
                let reached = probes
                    .iter()
                    .filter(|p| e.distance(**p) == Some(0.0))
                    .map(|p| e.hits(*p))
                    .fold(0u32, u32::saturating_add);
                let progress = CalleeGuidance::progress(&g.before, test, e, reached);
                return guided_fitness(level + 1, b, progress);
            }
        }
        // No ancestor evaluated: a statement that entered the branch's method stands for the
        // parent of its top level taken.
        if let Some(g) = self.guided_before() {
            let entries = g.entries(test, e);
            if entries > 0 {
                let progress = CalleeGuidance::progress(&g.before, test, e, entries);
                return guided_fitness(self.levels.len() + 1, 0.0, progress);
            }
        }
        if self.held(e) {
            return HELD;
        }
        UNREACHED
    }

    fn probe(&self) -> Option<ProbeId> {
        Some(self.probe)
    }

    fn with_ancestors(&self, levels: Vec<Vec<ProbeId>>) -> Option<Arc<dyn Objective>> {
        Some(Arc::new(BranchObjective {
            probe: self.probe,
            levels,
            confirmers: self.confirmers.clone(),
            callees: self.callees.clone(),
            holders: self.holders.clone(),
        }))
    }

    fn confirmers(&self) -> &[ProbeId] {
        &self.confirmers
    }

    fn callees(&self) -> Option<&CalleeGuidance> {
        self.callees.as_deref()
    }
}

/// A method or constructor of the class under test, covered by a statement that calls it and
/// runs (returns, or throws from inside).
#[derive(Debug, Clone, PartialEq)]
pub struct MethodObjective {
    pub member: MemberRef,
}

impl Objective for MethodObjective {
    fn fitness(&self, test: &TestCase, e: &Execution) -> f64 {
        if calls(test, e, &self.member) {
            0.0
        } else {
            1.0
        }
    }
}

/// One goal.
#[derive(Debug, Clone)]
pub struct Goal {
    pub id: GoalId,
    pub objective: Arc<dyn Objective>,
    /// The goals this one is control dependent on (for the approach level and for
    /// DynaMOSA's dynamic selection of targets).
    pub controlling: Vec<GoalId>,
    /// The method the goal lies in (`AvlTree.insert`), for names and comments.
    pub method: String,
    /// Source line, when known.
    pub line: Option<u16>,
    /// A short description (`true`, `case 3`, `call`).
    pub what: String,
}

impl Goal {
    /// `insert line 64 (true)`.
    pub fn label(&self) -> String {
        match self.line {
            Some(l) => format!("{} line {l} ({})", self.method, self.what),
            None => format!("{} ({})", self.method, self.what),
        }
    }

    pub fn is_branch(&self) -> bool {
        self.objective.is_branch()
    }
}

/// Which batches of tests carry a strategy's snapshot request (learned invariants): the
/// first `full` batches of the run, then one in `every`. A snapshot reads up to dozens of
/// objects at each call of the class's methods, and on classes whose objects are large graphs
/// it costs more than the test: on Closure's DeadAssignmentsElimination a test took three
/// times as long with the request as without, and the search ran 30k tests in 60 s instead of
/// 76k, while the snapshots taught the learner nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotSampling {
    pub full: u64,
    pub every: u64,
}

impl Default for SnapshotSampling {
    /// Every batch.
    fn default() -> SnapshotSampling {
        SnapshotSampling {
            full: u64::MAX,
            every: 1,
        }
    }
}

/// The goals of a run: added at the start, and by strategies while it runs; a retired goal is
/// no longer a target (it stays, so ids remain dense).
#[derive(Debug, Clone, Default)]
pub struct Goals {
    goals: Vec<Goal>,
    by_probe: BTreeMap<ProbeId, GoalId>,
    /// Goals control dependent on each goal.
    dependents: Vec<Vec<GoalId>>,
    retired: BTreeSet<GoalId>,
    /// What active goals need observed, rebuilt when goals are added or retired.
    observation: ObservationSpec,
    /// What a strategy asked to snapshot (learned invariants), part of `observation`.
    snapshot: Option<SnapshotSpec>,
    /// `observation` without the snapshots, for the batches sampling leaves out.
    unsnapshotted: ObservationSpec,
    /// Which batches carry the snapshot request.
    sampling: SnapshotSampling,
    /// The active goals' literals, sorted, rebuilt with `observation`.
    literals: Arc<[i64]>,
    /// The active goals that need values observed (path-condition goals), rebuilt with
    /// `observation`: asking an objective for its observation builds it.
    watched: BTreeSet<GoalId>,
}

impl Goals {
    /// Goals in id order (`goals[i].id` must be `GoalId(i)`; controlling ids must exist).
    /// Branch objectives learn the probes of their control-dependence ancestors here.
    pub fn new(goals: Vec<Goal>) -> Goals {
        let mut out = Goals::default();
        for g in &goals {
            out.index(g);
        }
        out.goals = goals;
        out.dependents = vec![Vec::new(); out.goals.len()];
        for g in &out.goals {
            for c in &g.controlling {
                if let Some(d) = out.dependents.get_mut(c.0 as usize) {
                    d.push(g.id);
                }
            }
        }
        let levels: Vec<Vec<Vec<ProbeId>>> =
            out.goals.iter().map(|g| out.ancestor_probes(g)).collect();
        for (g, levels) in out.goals.iter_mut().zip(levels) {
            if let Some(o) = g.objective.with_ancestors(levels) {
                g.objective = o;
            }
        }
        out.rebuild_observation();
        out
    }

    fn index(&mut self, g: &Goal) {
        if let Some(p) = g.objective.probe() {
            self.by_probe.insert(p, g.id);
        }
    }

    /// The probes of `g`'s control-dependence ancestors, level by level (each goal once).
    fn ancestor_probes(&self, g: &Goal) -> Vec<Vec<ProbeId>> {
        let mut levels = Vec::new();
        let mut frontier: Vec<GoalId> = g.controlling.clone();
        let mut seen: BTreeSet<GoalId> = frontier.iter().copied().collect();
        for _ in 0..MAX_LEVEL {
            if frontier.is_empty() {
                break;
            }
            levels.push(
                frontier
                    .iter()
                    .filter_map(|c| self.get(*c).and_then(|x| x.objective.probe()))
                    .collect(),
            );
            let mut next = Vec::new();
            for c in &frontier {
                if let Some(cg) = self.get(*c) {
                    for p in &cg.controlling {
                        if seen.insert(*p) {
                            next.push(*p);
                        }
                    }
                }
            }
            frontier = next;
        }
        levels
    }

    /// Adds a goal during a run (no control-dependence parents); returns its id.
    pub fn add(
        &mut self,
        objective: Arc<dyn Objective>,
        method: String,
        line: Option<u16>,
        what: String,
    ) -> GoalId {
        let id = GoalId(self.goals.len() as u32);
        let g = Goal {
            id,
            objective,
            controlling: Vec::new(),
            method,
            line,
            what,
        };
        self.index(&g);
        self.goals.push(g);
        self.dependents.push(Vec::new());
        self.rebuild_observation();
        id
    }

    /// Retires a goal: it is no longer a target.
    pub fn retire(&mut self, id: GoalId) {
        if self.retired.insert(id) {
            self.rebuild_observation();
        }
    }

    /// What the active goals need the worker to observe (per target method, the union of
    /// their paths), and the snapshots asked for.
    pub fn observation(&self) -> &ObservationSpec {
        &self.observation
    }

    /// Asks the worker to snapshot objects at calls of some methods in the tests run from
    /// now on (None: no more snapshots); the executions carry them.
    pub fn set_snapshot(&mut self, spec: Option<SnapshotSpec>) {
        if self.snapshot != spec {
            self.snapshot = spec;
            self.rebuild_observation();
        }
    }

    /// The observation for the `batch`-th batch of tests (counted from 1):
    /// [`Goals::observation`], without the snapshot request in the batches that sampling
    /// leaves out.
    pub fn observation_for(&self, batch: u64) -> &ObservationSpec {
        let s = self.sampling;
        if self.snapshot.is_none() || batch <= s.full || batch.is_multiple_of(s.every.max(1)) {
            &self.observation
        } else {
            &self.unsnapshotted
        }
    }

    /// Which batches carry the snapshot request from now on.
    pub fn set_snapshot_sampling(&mut self, sampling: SnapshotSampling) {
        self.sampling = sampling;
    }

    fn rebuild_observation(&mut self) {
        let mut by_member: BTreeMap<MemberRef, Observation> = BTreeMap::new();
        let mut literals: BTreeSet<i64> = BTreeSet::new();
        self.watched.clear();
        for g in &self.goals {
            if self.retired.contains(&g.id) {
                continue;
            }
            literals.extend(g.objective.literals());
            if let Some(o) = g.objective.observation() {
                self.watched.insert(g.id);
                let entry = by_member
                    .entry(o.member.clone())
                    .or_insert_with(|| Observation {
                        member: o.member.clone(),
                        paths: Vec::new(),
                    });
                entry.paths.extend(o.paths);
            }
        }
        self.observation = ObservationSpec {
            targets: by_member
                .into_values()
                .map(|mut o| {
                    o.paths.sort();
                    o.paths.dedup();
                    o
                })
                .collect(),
            trace: false,
            snapshot: self.snapshot.clone(),
        };
        self.unsnapshotted = ObservationSpec {
            snapshot: None,
            ..self.observation.clone()
        };
        self.literals = literals.into_iter().collect();
    }

    /// The literals of the active goals (see [`Objective::literals`]).
    pub fn literals(&self) -> Arc<[i64]> {
        self.literals.clone()
    }

    /// Is `id` an active goal that needs values observed (a path-condition goal)?
    pub fn is_watched(&self, id: GoalId) -> bool {
        self.watched.contains(&id)
    }

    pub fn is_retired(&self, id: GoalId) -> bool {
        self.retired.contains(&id)
    }

    pub fn len(&self) -> usize {
        self.goals.len()
    }

    /// Goals that are not retired.
    pub fn active(&self) -> usize {
        self.goals.len() - self.retired.len()
    }

    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    pub fn get(&self, id: GoalId) -> Option<&Goal> {
        self.goals.get(id.0 as usize)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Goal> {
        self.goals.iter()
    }

    pub fn dependents(&self, id: GoalId) -> &[GoalId] {
        self.dependents
            .get(id.0 as usize)
            .map_or(&[], |v| v.as_slice())
    }

    /// The goals an execution of `test` covers.
    pub fn covered(&self, test: &TestCase, e: &Execution) -> BTreeSet<GoalId> {
        self.outcome(test, e).0
    }

    /// The goals an execution of `test` covers, and the fitness of every active goal without
    /// a probe (method and path-condition goals), each computed once.
    pub fn outcome(
        &self,
        test: &TestCase,
        e: &Execution,
    ) -> (BTreeSet<GoalId>, Vec<(GoalId, f64)>) {
        let mut out: BTreeSet<GoalId> = e
            .covered
            .iter()
            .filter_map(|p| self.by_probe.get(p).copied())
            .filter(|g| {
                self.get(*g).is_none_or(|g| {
                    let c = g.objective.confirmers();
                    c.is_empty() || c.iter().any(|p| e.covered.binary_search(p).is_ok())
                })
            })
            .collect();
        let mut fitness = Vec::new();
        for g in &self.goals {
            if g.objective.probe().is_none() && !self.retired.contains(&g.id) {
                let f = g.objective.fitness(test, e);
                if f == 0.0 {
                    out.insert(g.id);
                }
                fitness.push((g.id, f));
            }
        }
        (out, fitness)
    }

    /// The fitness of `goal` for an execution (lower is better, 0 when covered).
    pub fn fitness(&self, goal: GoalId, test: &TestCase, e: &Execution) -> f64 {
        match self.get(goal) {
            Some(g) => g.objective.fitness(test, e),
            None => UNREACHED,
        }
    }
}

/// Does a statement of `test` call `member` and run (not `NotRun`, not unrunnable)?
fn calls(test: &TestCase, e: &Execution, member: &MemberRef) -> bool {
    test.statements.iter().zip(&e.outcomes).any(|(s, o)| {
        let m = match s {
            Statement::Call { method, .. } => method,
            Statement::Construct { constructor, .. } => constructor,
            _ => return false,
        };
        m == member
            && match o {
                StatementOutcome::Normal(_) => true,
                StatementOutcome::Threw { class, .. } => !class.is(UNRUNNABLE_CLASS),
                StatementOutcome::NotRun => false,
            }
    })
}

#[cfg(test)]
#[path = "goal_tests.rs"]
mod tests;
