//! The many-objective search (DynaMOSA), one generation per [`Search::step`]: a population of
//! tests evolved against the current targets (uncovered goals whose control-dependence parents
//! are covered), ranked by the preference criterion and then non-dominated fronts, updating the
//! run's shared [`Archive`]. A driver interleaves steps with other strategies, adds and retires
//! goals between steps, and hands in seed tests found elsewhere ([`Search::seed`]).

use std::time::{Duration, Instant};

use rivet_api::{GenConfig, Generator, Rng};
use rivet_testcase::{Execution, Executor, GoalId, ObservationSpec, TestCase, TypedTest};
use tracing::{debug, info};

use crate::archive::Archive;
use crate::goal::Goals;
use crate::operators::{crossover, mutate};
use crate::rank::{rank, survival_order, Scored};

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

    /// Runs tests, updates the archive, returns the executions.
    pub fn evaluate(&mut self, tests: &[TypedTest]) -> Vec<Execution> {
        let goals: &Goals = self.goals;
        self.evaluate_observing(tests, goals.observation())
    }

    /// As [`Arena::evaluate`], with the workers observing `spec` (which should include what
    /// the goals need, `Goals::observation`, for their fitness to count).
    pub fn evaluate_observing(
        &mut self,
        tests: &[TypedTest],
        spec: &ObservationSpec,
    ) -> Vec<Execution> {
        let cases: Vec<TestCase> = tests.iter().map(|t| t.test.clone()).collect();
        self.executor.set_observation(spec);
        let runs = self.executor.execute(&cases);
        self.archive.executions += runs.len() as u64;
        for (t, e) in tests.iter().zip(&runs) {
            if !e.is_completed() {
                continue;
            }
            let (covered, fitness) = self.goals.outcome(&t.test, e);
            // The best fitness of watched (path-condition) goals, for their search logs.
            for (g, f) in fitness {
                if self
                    .goals
                    .get(g)
                    .is_some_and(|x| x.objective.observation().is_some())
                {
                    self.archive.note_fitness(g, f);
                }
            }
            if self.archive.update(t, &covered) {
                debug!(covered = covered.len(), len = t.len(), "archive updated");
            }
        }
        runs
    }
}

/// The search over one class's goals, advanced one generation at a time.
pub struct Search<'g, 'm> {
    generator: &'g Generator<'m>,
    config: SearchConfig,
    rng: Rng,
    /// The population with its last executions (empty before the first step).
    population: Vec<(TypedTest, Execution)>,
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

    /// Generations so far (the initial population is generation 0).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn evaluate(&mut self, arena: &mut Arena<'_>, tests: &[TypedTest]) -> Vec<Execution> {
        let runs = arena.evaluate(tests);
        self.executions += runs.len() as u64;
        for (t, e) in tests.iter().zip(&runs) {
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

    fn scored(
        &self,
        arena: &Arena<'_>,
        all: &[(TypedTest, Execution)],
        targets: &[GoalId],
    ) -> Vec<Scored> {
        all.iter()
            .map(|(test, e)| {
                let fitness = targets
                    .iter()
                    .map(|g| {
                        if e.is_completed() {
                            arena.goals.fitness(*g, &test.test, e)
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect();
                Scored::new(fitness, test.len())
            })
            .collect()
    }

    /// One generation: the initial population on the first call, then selection, crossover,
    /// mutation and survival against the current targets. Seed tests handed in since the last
    /// step are evaluated with the offspring.
    pub fn step(&mut self, arena: &mut Arena<'_>) {
        let n = self.config.population.max(2);
        let seeds = std::mem::take(&mut self.seeds);
        if self.population.is_empty() {
            let mut initial: Vec<TypedTest> = (0..n)
                .map(|_| {
                    let calls = 1 + self.rng.below(self.config.max_initial_calls.max(1));
                    self.generator.random_test(&mut self.rng, calls)
                })
                .collect();
            initial.extend(seeds);
            let runs = self.evaluate(arena, &initial);
            self.population = initial.into_iter().zip(runs).collect();
            return;
        }
        self.generation += 1;
        let targets = arena.targets();
        let mut ranked = self.scored(arena, &self.population, &targets);
        rank(&mut ranked, n);
        let mut offspring = Vec::with_capacity(n + seeds.len());
        while offspring.len() < n {
            let a = self.tournament(&ranked);
            let b = self.tournament(&ranked);
            let (a, b) = (self.population[a].0.clone(), self.population[b].0.clone());
            let (mut c, mut d) = if self.rng.chance(self.config.crossover_rate) {
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
        }
        offspring.extend(seeds);
        let runs = self.evaluate(arena, &offspring);
        // Survivors among parents and offspring, ranked against the targets after the archive
        // update.
        let targets = arena.targets();
        let mut all = std::mem::take(&mut self.population);
        all.extend(offspring.into_iter().zip(runs));
        let mut ranked = self.scored(arena, &all, &targets);
        rank(&mut ranked, n);
        self.population = survival_order(&ranked)
            .into_iter()
            .take(n)
            .map(|i| all[i].clone())
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
