//! The many-objective search (DynaMOSA): a population of tests evolved against the current
//! targets (uncovered goals whose control-dependence parents are covered), ranked by the
//! preference criterion (the best test for each target first) and then non-dominated fronts,
//! with an archive keeping the shortest test covering each goal.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use rivet_api::{GenConfig, Generator, Rng, TypedTest};
use rivet_testcase::TestCase;
use rivet_worker::{Execution, WorkerPool};
use tracing::{debug, info, info_span};

use crate::goal::{GoalId, Goals};
use crate::operators::{crossover, mutate};

/// Runs test cases: the worker pool, or a fake in tests.
pub trait Executor {
    /// One execution per test, in order.
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution>;
}

impl Executor for WorkerPool {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
        self.run(tests)
    }
}

/// Parameters of a search.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    pub seed: u64,
    /// Wall-clock budget of the search.
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

/// The archive: per covered goal, the shortest test that covered it.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    pub entries: BTreeMap<GoalId, TypedTest>,
}

impl Archive {
    /// Takes `test` for every goal it covers if it is new or shorter. True if anything changed.
    pub fn update(&mut self, test: &TypedTest, covered: &BTreeSet<GoalId>) -> bool {
        let mut changed = false;
        for g in covered {
            let better = match self.entries.get(g) {
                Some(old) => test.len() < old.len(),
                None => true,
            };
            if better {
                self.entries.insert(*g, test.clone());
                changed = true;
            }
        }
        changed
    }

    pub fn covered(&self) -> BTreeSet<GoalId> {
        self.entries.keys().copied().collect()
    }
}

/// What a search produced.
#[derive(Debug, Clone)]
pub struct SearchResult {
    pub archive: Archive,
    pub executions: u64,
    pub generations: u64,
    pub elapsed: Duration,
}

/// An evaluated individual.
#[derive(Debug, Clone)]
struct Individual {
    test: TypedTest,
    /// Fitness per current target, in target order.
    fitness: Vec<f64>,
    rank: usize,
    crowding: f64,
}

/// The search over one class's goals.
pub struct Search<'g, 'm> {
    generator: &'g Generator<'m>,
    goals: &'g Goals,
    config: SearchConfig,
    rng: Rng,
    archive: Archive,
    executions: u64,
    /// The last executions of the population's tests (for fitness on new targets).
    start: Instant,
}

impl<'g, 'm> Search<'g, 'm> {
    pub fn new(
        generator: &'g Generator<'m>,
        goals: &'g Goals,
        config: SearchConfig,
    ) -> Search<'g, 'm> {
        let rng = Rng::new(config.seed);
        Search {
            generator,
            goals,
            config,
            rng,
            archive: Archive::default(),
            executions: 0,
            start: Instant::now(),
        }
    }

    fn out_of_budget(&self) -> bool {
        self.start.elapsed() >= self.config.budget
            || self
                .config
                .max_executions
                .is_some_and(|m| self.executions >= m)
            || self.archive.entries.len() >= self.goals.len()
    }

    /// The current targets: uncovered goals with no control-dependence parent, or with a
    /// covered one.
    fn targets(&self) -> Vec<GoalId> {
        self.goals
            .iter()
            .filter(|g| !self.archive.entries.contains_key(&g.id))
            .filter(|g| {
                g.controlling.is_empty()
                    || g.controlling
                        .iter()
                        .any(|c| self.archive.entries.contains_key(c))
            })
            .map(|g| g.id)
            .collect()
    }

    /// Runs tests, updates the archive, returns the executions.
    fn evaluate(&mut self, executor: &mut dyn Executor, tests: &[TypedTest]) -> Vec<Execution> {
        let cases: Vec<TestCase> = tests.iter().map(|t| t.test.clone()).collect();
        let runs = executor.execute(&cases);
        self.executions += runs.len() as u64;
        for (t, e) in tests.iter().zip(&runs) {
            if !e.is_completed() {
                continue;
            }
            let covered = self.goals.covered(&t.test, e);
            if self.archive.update(t, &covered) {
                debug!(covered = covered.len(), len = t.len(), "archive updated");
            }
        }
        runs
    }

    fn individuals(
        &self,
        tests: Vec<TypedTest>,
        runs: &[Execution],
        targets: &[GoalId],
    ) -> Vec<Individual> {
        tests
            .into_iter()
            .zip(runs)
            .map(|(test, e)| {
                let fitness = targets
                    .iter()
                    .map(|g| {
                        if e.is_completed() {
                            self.goals.fitness(*g, &test.test, e)
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect();
                Individual {
                    test,
                    fitness,
                    rank: 0,
                    crowding: 0.0,
                }
            })
            .collect()
    }

    /// Runs the search until the budget is spent or every goal is covered.
    pub fn run(
        mut self,
        executor: &mut dyn Executor,
        progress: &mut dyn FnMut(Progress),
    ) -> SearchResult {
        let _span =
            info_span!("search", goals = self.goals.len(), seed = self.config.seed).entered();
        self.start = Instant::now();
        let n = self.config.population.max(2);
        let mut generation = 0u64;
        let initial: Vec<TypedTest> = (0..n)
            .map(|_| {
                let calls = 1 + self.rng.below(self.config.max_initial_calls.max(1));
                self.generator.random_test(&mut self.rng, calls)
            })
            .collect();
        let runs = self.evaluate(executor, &initial);
        let mut population: Vec<(TypedTest, Execution)> = initial.into_iter().zip(runs).collect();
        self.report(progress, generation);
        while !self.out_of_budget() {
            generation += 1;
            let targets = self.targets();
            let (tests, runs): (Vec<TypedTest>, Vec<Execution>) =
                population.iter().cloned().unzip();
            let mut ranked = self.individuals(tests, &runs, &targets);
            rank(&mut ranked, &targets, n);
            let mut offspring = Vec::with_capacity(n);
            while offspring.len() < n {
                let a = self.tournament(&ranked).test.clone();
                let b = self.tournament(&ranked).test.clone();
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
            let runs_off = self.evaluate(executor, &offspring);
            // Survivors among parents and offspring, ranked against the targets after the
            // archive update.
            let targets = self.targets();
            let mut all: Vec<(TypedTest, Execution)> = population;
            all.extend(offspring.into_iter().zip(runs_off));
            let (tests, runs): (Vec<TypedTest>, Vec<Execution>) = all.iter().cloned().unzip();
            let mut ranked = self.individuals(tests, &runs, &targets);
            rank(&mut ranked, &targets, n);
            let mut order: Vec<usize> = (0..ranked.len()).collect();
            order.sort_by(|&x, &y| {
                ranked[x]
                    .rank
                    .cmp(&ranked[y].rank)
                    .then(ranked[y].crowding.total_cmp(&ranked[x].crowding))
                    .then(ranked[x].test.len().cmp(&ranked[y].test.len()))
                    .then(x.cmp(&y))
            });
            population = order.into_iter().take(n).map(|i| all[i].clone()).collect();
            self.report(progress, generation);
        }
        let elapsed = self.start.elapsed();
        info!(
            covered = self.archive.entries.len(),
            goals = self.goals.len(),
            executions = self.executions,
            generations = generation,
            "search done"
        );
        SearchResult {
            archive: self.archive,
            executions: self.executions,
            generations: generation,
            elapsed,
        }
    }

    fn report(&self, progress: &mut dyn FnMut(Progress), generation: u64) {
        progress(Progress {
            covered: self.archive.entries.len(),
            goals: self.goals.len(),
            executions: self.executions,
            generation,
            elapsed: self.start.elapsed(),
        });
    }

    /// Binary tournament: lower rank wins, then larger crowding distance.
    fn tournament<'a>(&mut self, ranked: &'a [Individual]) -> &'a Individual {
        let a = &ranked[self.rng.below(ranked.len())];
        let b = &ranked[self.rng.below(ranked.len())];
        if (a.rank, -a.crowding) <= (b.rank, -b.crowding) {
            a
        } else {
            b
        }
    }
}

/// Assigns ranks: front 0 holds the best individual of each target (preference criterion),
/// the rest are sorted into non-dominated fronts; crowding is the subvector-dominance-free
/// spread (fewer goals where others are better is better).
fn rank(pop: &mut [Individual], targets: &[GoalId], wanted: usize) {
    let m = targets.len();
    let mut assigned = vec![false; pop.len()];
    for t in 0..m {
        let best = (0..pop.len()).min_by(|&x, &y| {
            pop[x].fitness[t]
                .total_cmp(&pop[y].fitness[t])
                .then(pop[x].test.len().cmp(&pop[y].test.len()))
                .then(x.cmp(&y))
        });
        if let Some(b) = best {
            assigned[b] = true;
        }
    }
    for (i, ind) in pop.iter_mut().enumerate() {
        if assigned[i] {
            ind.rank = 0;
        }
    }
    let mut placed = assigned.iter().filter(|a| **a).count();
    let mut front = 1;
    let mut remaining: Vec<usize> = (0..pop.len()).filter(|i| !assigned[*i]).collect();
    while !remaining.is_empty() {
        if placed >= wanted {
            for &i in &remaining {
                pop[i].rank = front;
            }
            break;
        }
        let current: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| {
                !remaining
                    .iter()
                    .any(|&j| j != i && dominates(&pop[j].fitness, &pop[i].fitness))
            })
            .collect();
        let current = if current.is_empty() {
            remaining.clone()
        } else {
            current
        };
        for &i in &current {
            pop[i].rank = front;
        }
        placed += current.len();
        remaining.retain(|i| !current.contains(i));
        front += 1;
    }
    // Crowding: how many targets an individual is (jointly) best or near-best at.
    for ind in pop.iter_mut() {
        ind.crowding = -ind.fitness.iter().map(|f| f.min(10.0)).sum::<f64>();
    }
}

fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut strictly = false;
    for (x, y) in a.iter().zip(b) {
        if x > y {
            return false;
        }
        if x < y {
            strictly = true;
        }
    }
    strictly
}
