//! The many-objective search (DynaMOSA), one generation per [`Search::step`]: a population of
//! tests evolved against the current targets (uncovered goals whose control-dependence parents
//! are covered), ranked by the preference criterion and then non-dominated fronts, updating the
//! run's shared [`Archive`]. A driver interleaves steps with other strategies, adds and retires
//! goals between steps, and hands in seed tests found elsewhere ([`Search::seed`]).

use std::time::{Duration, Instant};

use rivet_api::{ApiModel, GenConfig, Generator, Rng};
use rivet_testcase::{
    Execution, ExecutionStatus, Executor, GoalId, ObservationSpec, Statement, TestCase, TypedTest,
};
use tracing::{debug, info};

use crate::archive::Archive;
use crate::goal::Goals;
use crate::operators::{crossover, mutate};
use crate::rank::{rank, survival_order, Scored};

/// A test whose run took longer breeds no offspring. Offspring run about as long as their
/// parents: on Closure's FlowSensitiveInlineVariables a population grown from one test that
/// built a `CommandLineRunner` (which reads the default externs, 50 to 350 ms a test) ran 136
/// generations in 45 s and 6,900 tests, where tests that parse a program and run the pass
/// take 1 to 7 ms.
const SLOW_PARENT: Duration = Duration::from_millis(40);

/// Parameters of a search.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    pub seed: u64,
    /// Wall-clock budget of [`Search::run`] (a driver calling [`Search::step`] keeps its own).
    pub budget: Duration,
    /// Stop after this many test executions.
    pub max_executions: Option<u64>,
    pub population: usize,
    pub crossover_rate: f64,
    /// Most calls of a test of the initial population.
    pub max_initial_calls: usize,
    pub generation: GenConfig,
    /// Ask for concolic steps on offspring whose primitive mutation changed their fitness
    /// (the archive's DSE requests; on when a concolic strategy runs beside the search).
    pub dse_requests: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            seed: 0,
            budget: Duration::from_secs(60),
            max_executions: None,
            population: 50,
            crossover_rate: 0.75,
            max_initial_calls: 8,
            generation: GenConfig::default(),
            dse_requests: false,
        }
    }
}

/// How far a search has come, reported after every generation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub covered: usize,
    pub goals: usize,
    pub executions: u64,
    pub generation: u64,
    pub elapsed: Duration,
}

/// What a search produced.
#[derive(Debug, Clone)]
pub struct SearchResult {
    pub archive: Archive,
    pub executions: u64,
    pub generations: u64,
    pub elapsed: Duration,
}

/// What one step works on: the run's goals, its shared archive, and the executor.
pub struct Arena<'a> {
    pub goals: &'a Goals,
    pub archive: &'a mut Archive,
    pub executor: &'a mut dyn Executor,
    /// The class's API, to refuse the runs whose results break a cast the written test makes
    /// (`ApiModel::failing_cast`: the test would throw under JUnit); None in unit tests.
    pub api: Option<&'a ApiModel>,
}

impl Arena<'_> {
    /// The current targets: active uncovered goals with no control-dependence parent, or with a
    /// covered one.
    pub fn targets(&self) -> Vec<GoalId> {
        self.goals
            .iter()
            .filter(|g| !self.archive.is_covered(g.id) && !self.goals.is_retired(g.id))
            .filter(|g| {
                g.controlling.is_empty()
                    || g.controlling.iter().any(|c| self.archive.is_covered(*c))
            })
            .map(|g| g.id)
            .collect()
    }

    /// Is every active goal covered?
    pub fn all_covered(&self) -> bool {
        self.goals
            .iter()
            .all(|g| self.archive.is_covered(g.id) || self.goals.is_retired(g.id))
    }

    /// Runs tests, updates the archive, returns the executions (their snapshots moved to
    /// `Archive::snapshots`).
    pub fn evaluate(&mut self, tests: &[TypedTest]) -> Vec<Execution> {
        self.evaluate_scoring(tests)
            .into_iter()
            .map(|(e, _)| e)
            .collect()
    }

    /// As [`Arena::evaluate`], with each completed run's fitness for the goals that are not
    /// branches (computed for the archive update anyway; the search keeps them).
    fn evaluate_scoring(&mut self, tests: &[TypedTest]) -> Vec<(Execution, Vec<(GoalId, f64)>)> {
        let goals: &Goals = self.goals;
        self.archive.batches += 1;
        self.run_and_score(tests, goals.observation_for(self.archive.batches))
    }

    /// As [`Arena::evaluate`], with the workers observing `spec` (which should include what
    /// the goals need, `Goals::observation`, for their fitness to count).
    pub fn evaluate_observing(
        &mut self,
        tests: &[TypedTest],
        spec: &ObservationSpec,
    ) -> Vec<Execution> {
        self.run_and_score(tests, spec)
            .into_iter()
            .map(|(e, _)| e)
            .collect()
    }

    fn run_and_score(
        &mut self,
        tests: &[TypedTest],
        spec: &ObservationSpec,
    ) -> Vec<(Execution, Vec<(GoalId, f64)>)> {
        let cases: Vec<TestCase> = tests.iter().map(|t| t.test.clone()).collect();
        self.executor.set_observation(spec);
        let mut runs = self.executor.execute(&cases);
        self.archive.executions += runs.len() as u64;
        for e in &mut runs {
            if !e.snapshots.is_empty() {
                self.archive
                    .keep_snapshots(std::mem::take(&mut e.snapshots));
            }
        }
        let mut scored = Vec::with_capacity(runs.len());
        for (t, mut e) in tests.iter().zip(runs) {
            if let Some(cast) = self.api.and_then(|api| api.failing_cast(t, &e)) {
                debug!(%cast, "run refused: a cast would fail under JUnit");
                self.archive.cast_refusals += 1;
                e.status = ExecutionStatus::Rejected {
                    reason: format!("{cast}: ClassCastException under JUnit"),
                };
            }
            if !e.is_completed() {
                scored.push((e, Vec::new()));
                continue;
            }
            let (covered, fitness) = self.goals.outcome(&t.test, &e);
            // The best fitness of watched (path-condition) goals, for their search logs.
            for &(g, f) in &fitness {
                if self.goals.is_watched(g) {
                    self.archive.note_fitness(g, f);
                }
            }
            if self.archive.update(t, &covered) {
                debug!(covered = covered.len(), len = t.len(), "archive updated");
            }
            scored.push((e, fitness));
        }
        scored
    }
}

/// The search over one class's goals, advanced one generation at a time.
pub struct Search<'g, 'm> {
    generator: &'g Generator<'m>,
    config: SearchConfig,
    rng: Rng,
    /// The population with its last executions (empty before the first step).
    population: Vec<Member>,
    /// Tests handed in by other strategies, evaluated and merged at the next step.
    seeds: Vec<TypedTest>,
    generation: u64,
    executions: u64,
}

impl<'g, 'm> Search<'g, 'm> {
    pub fn new(generator: &'g Generator<'m>, config: SearchConfig) -> Search<'g, 'm> {
        let rng = Rng::new(config.seed);
        Search {
            generator,
            config,
            rng,
            population: Vec::new(),
            seeds: Vec::new(),
            generation: 0,
            executions: 0,
        }
    }

    /// Tests from another strategy; they compete for a place in the population at the next
    /// step.
    pub fn seed(&mut self, tests: impl IntoIterator<Item = TypedTest>) {
        self.seeds.extend(tests);
    }

    /// Test executions so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// How long a run may take for its test to breed (see [`scored`]): [`SLOW_PARENT`] on the
    /// wall clock, none under an execution cap (every choice must come out the same on every
    /// run there, and a run's time does not).
    fn barren(&self) -> Option<Duration> {
        self.config.max_executions.is_none().then_some(SLOW_PARENT)
    }

    /// Generations so far (the initial population is generation 0).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Runs tests through the arena; each run with its fitness for the goals that are not
    /// branches, to start its member's memo.
    fn evaluate(
        &mut self,
        arena: &mut Arena<'_>,
        tests: &[TypedTest],
    ) -> Vec<(Execution, Vec<(GoalId, f64)>)> {
        let runs = arena.evaluate_scoring(tests);
        self.executions += runs.len() as u64;
        for (t, (e, _)) in tests.iter().zip(&runs) {
            self.generator.model.observe_strings(&e.seeds);
            // Which producers throw: learned from a sample of the runs.
            if e.is_completed() && (self.executions + t.len() as u64).is_multiple_of(4) {
                self.generator.model.observe_outcomes(&t.test, &e.outcomes);
            }
            if e.duration > std::time::Duration::from_millis(20) {
                debug!(ms = e.duration.as_millis() as u64, statements = t.len(), status = ?e.status, "slow test");
                if e.duration > std::time::Duration::from_millis(100) {
                    tracing::trace!(test = ?t.test.statements, "slow test body");
                }
            }
        }
        runs
    }

    /// One generation: the initial population on the first call, then selection, crossover,
    /// mutation and survival against the current targets. Seed tests handed in since the last
    /// step are evaluated with the offspring.
    pub fn step(&mut self, arena: &mut Arena<'_>) {
        let n = self.config.population.max(2);
        let seeds = std::mem::take(&mut self.seeds);
        self.generator.model.set_goal_ints(arena.goals.literals());
        if self.population.is_empty() {
            let mut initial: Vec<TypedTest> = (0..n)
                .map(|_| {
                    let calls = 1 + self.rng.below(self.config.max_initial_calls.max(1));
                    self.generator.random_test(&mut self.rng, calls)
                })
                .collect();
            initial.extend(seeds);
            let runs = self.evaluate(arena, &initial);
            self.population = initial.into_iter().zip(runs).map(Member::new).collect();
            return;
        }
        self.generation += 1;
        let targets = arena.targets();
        let barren = self.barren();
        let mut ranked = scored(arena.goals, &mut self.population, &targets, barren);
        rank(&mut ranked, n);
        let mut offspring = Vec::with_capacity(n + seeds.len());
        // For each offspring made by mutation alone: its parent's index in the population.
        let mut mutated_from: Vec<Option<usize>> = Vec::with_capacity(n);
        while offspring.len() < n {
            let ia = self.tournament(&ranked);
            let ib = self.tournament(&ranked);
            let (a, b) = (
                self.population[ia].test.clone(),
                self.population[ib].test.clone(),
            );
            let crossed = self.rng.chance(self.config.crossover_rate);
            let (mut c, mut d) = if crossed {
                (
                    crossover(self.generator, &mut self.rng, &a, &b),
                    crossover(self.generator, &mut self.rng, &b, &a),
                )
            } else {
                (a, b)
            };
            mutate(self.generator, &mut self.rng, &mut c);
            mutate(self.generator, &mut self.rng, &mut d);
            offspring.push(c);
            offspring.push(d);
            mutated_from.push((!crossed).then_some(ia));
            mutated_from.push((!crossed).then_some(ib));
        }
        offspring.extend(seeds);
        let runs = self.evaluate(arena, &offspring);
        let mut born: Vec<Member> = offspring.into_iter().zip(runs).map(Member::new).collect();
        if self.config.dse_requests {
            self.request_dse(arena, &targets, &ranked, &mut born, &mutated_from);
        }
        // Survivors among parents and offspring, ranked against the targets after the archive
        // update.
        let targets = arena.targets();
        let mut all = std::mem::take(&mut self.population);
        all.extend(born);
        let mut ranked = scored(arena.goals, &mut all, &targets, barren);
        rank(&mut ranked, n);
        let mut all: Vec<Option<Member>> = all.into_iter().map(Some).collect();
        self.population = survival_order(&ranked)
            .into_iter()
            .filter_map(|i| all.get_mut(i).and_then(Option::take))
            .take(n)
            .collect();
    }

    /// Runs steps until the configured budget or execution cap is spent or every goal is
    /// covered (a search on its own, as a driver would run it).
    pub fn run(
        mut self,
        goals: &Goals,
        executor: &mut dyn Executor,
        progress: &mut dyn FnMut(Progress),
    ) -> SearchResult {
        let start = Instant::now();
        let mut archive = Archive::default();
        let mut arena = Arena {
            goals,
            archive: &mut archive,
            executor,
            api: Some(self.generator.model),
        };
        loop {
            self.step(&mut arena);
            progress(Progress {
                covered: arena.archive.entries.len(),
                goals: goals.len(),
                executions: self.executions,
                generation: self.generation,
                elapsed: start.elapsed(),
            });
            let capped = self
                .config
                .max_executions
                .is_some_and(|m| self.executions >= m);
            if start.elapsed() >= self.config.budget || capped || arena.all_covered() {
                break;
            }
        }
        info!(
            covered = archive.entries.len(),
            goals = goals.len(),
            executions = self.executions,
            generations = self.generation,
            "search done"
        );
        SearchResult {
            archive,
            executions: self.executions,
            generations: self.generation,
            elapsed: start.elapsed(),
        }
    }

    /// EvoSuite's adaptive DSE trigger (ISSRE'13 §III): among the offspring that differ from
    /// their parent only in primitive and string values, the best one whose fitness on the
    /// targets changed goes to the archive's DSE requests, for a concolic step to explore.
    fn request_dse(
        &self,
        arena: &mut Arena<'_>,
        targets: &[GoalId],
        parents: &[Scored],
        offspring: &mut [Member],
        mutated_from: &[Option<usize>],
    ) {
        let mut best: Option<(f64, usize)> = None;
        for (k, parent) in mutated_from.iter().enumerate() {
            let (Some(p), Some(child)) = (*parent, offspring.get_mut(k)) else {
                continue;
            };
            if !child.run.is_completed()
                || !values_only_differ(&self.population[p].test, &child.test)
            {
                continue;
            }
            let fitness: Vec<f64> = targets
                .iter()
                .map(|g| child.fitness(arena.goals, *g))
                .collect();
            let changed = parents
                .get(p)
                .is_some_and(|s| s.fitness.iter().zip(&fitness).any(|(a, b)| a != b));
            let total: f64 = fitness.iter().filter(|f| f.is_finite()).sum();
            if changed && best.is_none_or(|(b, _)| total < b) {
                best = Some((total, k));
            }
        }
        if let Some((_, k)) = best {
            arena.archive.request_dse(offspring[k].test.clone());
        }
    }

    /// Binary tournament: lower rank wins, then larger crowding distance.
    fn tournament(&mut self, ranked: &[Scored]) -> usize {
        let a = self.rng.below(ranked.len());
        let b = self.rng.below(ranked.len());
        if (ranked[a].rank, -ranked[a].crowding) <= (ranked[b].rank, -ranked[b].crowding) {
            a
        } else {
            b
        }
    }
}

/// A test of the population, its execution, and its fitness for each goal asked so far: a
/// fitness depends on the test and its execution alone ([`crate::Objective::fitness`]), so a parent
/// ranked again generation after generation is scored once per goal.
#[derive(Debug, Clone)]
struct Member {
    test: TypedTest,
    run: Execution,
    /// By goal id; None: not asked yet.
    fitness: Vec<Option<f64>>,
}

impl Member {
    /// A member with the fitness already known for some goals (their memo).
    fn new((test, (run, known)): (TypedTest, (Execution, Vec<(GoalId, f64)>))) -> Member {
        let mut fitness = Vec::new();
        if run.is_completed() {
            for (g, f) in known {
                let i = g.0 as usize;
                if fitness.len() <= i {
                    fitness.resize(i + 1, None);
                }
                fitness[i] = Some(f);
            }
        }
        Member { test, run, fitness }
    }

    /// The fitness for `goal`: infinite for a run that did not complete.
    fn fitness(&mut self, goals: &Goals, goal: GoalId) -> f64 {
        if !self.run.is_completed() {
            return f64::INFINITY;
        }
        let i = goal.0 as usize;
        if let Some(Some(f)) = self.fitness.get(i) {
            return *f;
        }
        let f = goals.fitness(goal, &self.test.test, &self.run);
        if self.fitness.len() <= i {
            self.fitness.resize(i + 1, None);
        }
        self.fitness[i] = Some(f);
        f
    }
}

/// Each member's fitness vector on the targets, for ranking; a member whose run took longer
/// than `barren` (when set) ranks as if it had not completed: what it covered stays in the
/// archive, but it breeds no offspring.
fn scored(
    goals: &Goals,
    all: &mut [Member],
    targets: &[GoalId],
    barren: Option<Duration>,
) -> Vec<Scored> {
    all.iter_mut()
        .map(|m| {
            let fitness = if barren.is_some_and(|b| m.run.duration > b) {
                vec![f64::INFINITY; targets.len()]
            } else {
                targets.iter().map(|g| m.fitness(goals, *g)).collect()
            };
            Scored::new(fitness, m.test.len())
        })
        .collect()
}

/// Do two tests differ only in the values of primitive and string statements (the same
/// statements otherwise, in the same order)?
fn values_only_differ(a: &TypedTest, b: &TypedTest) -> bool {
    let (x, y) = (a.statements(), b.statements());
    x.len() == y.len()
        && x != y
        && x.iter().zip(y).all(|(s, t)| {
            s == t
                || matches!(
                    (s, t),
                    (Statement::Primitive(_), Statement::Primitive(_))
                        | (Statement::String(_), Statement::String(_))
                )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_testcase::{JType, MemberRef, Prim, PrimitiveValue};

    fn test(x: i32, s: &str, method: &str) -> TypedTest {
        let mut t = TypedTest::new();
        let a = t.push(
            Statement::Primitive(PrimitiveValue::Int(x)),
            Some(JType::Prim(Prim::Int)),
        );
        let b = t.push(
            Statement::String(s.into()),
            Some(JType::class("java/lang/String")),
        );
        t.push(
            Statement::Call {
                method: MemberRef::new("p/C", method, "(ILjava/lang/String;)V"),
                receiver: None,
                args: vec![a, b],
            },
            None,
        );
        t
    }

    #[test]
    fn only_value_changes_trigger_dse_requests() {
        let base = test(1, "a", "f");
        assert!(values_only_differ(&base, &test(2, "a", "f")));
        assert!(values_only_differ(&base, &test(1, "b", "f")));
        // The same test is no mutation; another call is a structural change.
        assert!(!values_only_differ(&base, &test(1, "a", "f")));
        assert!(!values_only_differ(&base, &test(2, "a", "g")));
        let mut longer = base.clone();
        longer.push(Statement::Primitive(PrimitiveValue::Int(3)), None);
        assert!(!values_only_differ(&base, &longer));
    }

    #[test]
    fn a_member_starts_with_the_fitness_its_evaluation_computed() {
        let completed =
            Execution::without_result(ExecutionStatus::Completed, 3, Duration::ZERO, None);
        let goals = Goals::default();
        let known = vec![(GoalId(4), 0.25)];
        let mut m = Member::new((test(1, "a", "f"), (completed, known.clone())));
        // Known: taken from the memo; unknown: asked of the goals (none here: unreached).
        assert_eq!(m.fitness(&goals, GoalId(4)), 0.25);
        assert_eq!(m.fitness(&goals, GoalId(2)), crate::goal::UNREACHED);
        // A run that did not complete is never ranked on what it was handed.
        let rejected = ExecutionStatus::Rejected {
            reason: "malformed".into(),
        };
        let failed = Execution::without_result(rejected, 3, Duration::ZERO, None);
        let mut n = Member::new((test(1, "a", "f"), (failed, known)));
        assert_eq!(n.fitness(&goals, GoalId(4)), f64::INFINITY);
    }

    #[test]
    fn a_member_whose_run_was_slow_breeds_only_when_time_is_not_counted() {
        let run = |ms| {
            let d = Duration::from_millis(ms);
            Execution::without_result(ExecutionStatus::Completed, 3, d, None)
        };
        let goals = Goals::default();
        let known = vec![(GoalId(0), 0.25)];
        let mut all = vec![
            Member::new((test(1, "a", "f"), (run(2), known.clone()))),
            Member::new((test(2, "a", "f"), (run(300), known))),
        ];
        let targets = [GoalId(0)];
        let timed = scored(&goals, &mut all, &targets, Some(SLOW_PARENT));
        assert_eq!(timed[0].fitness, vec![0.25]);
        assert_eq!(timed[1].fitness, vec![f64::INFINITY]);
        // Under an execution cap a run's time decides nothing.
        let capped = scored(&goals, &mut all, &targets, None);
        assert_eq!(capped[1].fitness, vec![0.25]);
    }

    #[test]
    fn dse_requests_keep_the_newest_few() {
        let mut archive = Archive::default();
        for i in 0..(crate::archive::MAX_DSE_REQUESTS as i32 + 2) {
            archive.request_dse(test(i, "a", "f"));
        }
        assert_eq!(archive.dse_requests.len(), crate::archive::MAX_DSE_REQUESTS);
        assert_eq!(archive.dse_requests.last(), Some(&test(5, "a", "f")));
        assert_eq!(archive.dse_requests.first(), Some(&test(2, "a", "f")));
    }
}
