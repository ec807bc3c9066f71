//! Strategies behind one trait, and the driver that interleaves them on the run's shared goals
//! and archive within a budget. The many-objective search is the first strategy; symbolic
//! (SUSHI path-condition goals) and concolic strategies plug in the same way.

use std::time::{Duration, Instant};

use rivet_api::Generator;
use rivet_search::{Archive, Arena, Goals, Search, SearchConfig};
use rivet_testcase::{Execution, Executor, TestCase};

/// What a strategy's step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// It worked and can go on.
    Worked,
    /// It has nothing (more) to do; the driver stops giving it turns.
    Done,
}

/// A way of finding tests: one unit of work per [`Strategy::step`] on the shared goals and
/// archive.
pub trait Strategy {
    /// A short name for progress and reports (`search`, `symbolic`).
    fn name(&self) -> &'static str;

    /// Adds or retires goals before a step (path-condition goals, say); the default does
    /// nothing.
    fn update_goals(&mut self, _goals: &mut Goals, _archive: &Archive) {}

    /// One unit of work: a generation of the search, a slice of exploration.
    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome;
}

/// The many-objective search as a strategy: one generation per step.
pub struct SearchStrategy<'g, 'm> {
    search: Search<'g, 'm>,
}

impl<'g, 'm> SearchStrategy<'g, 'm> {
    pub fn new(generator: &'g Generator<'m>, config: SearchConfig) -> SearchStrategy<'g, 'm> {
        SearchStrategy {
            search: Search::new(generator, config),
        }
    }

    /// The underlying search (to hand it seed tests).
    pub fn search_mut(&mut self) -> &mut Search<'g, 'm> {
        &mut self.search
    }
}

impl Strategy for SearchStrategy<'_, '_> {
    fn name(&self) -> &'static str {
        "search"
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        self.search.step(arena);
        StepOutcome::Worked
    }
}

/// When the strategies stop.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub time: Duration,
    pub max_executions: Option<u64>,
}

/// How far the strategies have come, reported after every step.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveProgress {
    /// The strategy that just stepped.
    pub strategy: &'static str,
    /// Covered branch goals.
    pub branches_covered: usize,
    pub executions: u64,
    pub elapsed: Duration,
}

/// What the strategies did.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveResult {
    pub executions: u64,
    pub steps: u64,
    pub elapsed: Duration,
}

/// An executor that counts the tests it runs.
struct Counted<'a> {
    inner: &'a mut dyn Executor,
    count: u64,
}

impl Executor for Counted<'_> {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
        self.count += tests.len() as u64;
        self.inner.execute(tests)
    }
}

/// Gives the strategies turns in order, a step each, until the budget is spent, every active
/// goal is covered, or every strategy is done.
pub fn drive(
    strategies: &mut [&mut dyn Strategy],
    goals: &mut Goals,
    archive: &mut Archive,
    executor: &mut dyn Executor,
    budget: Budget,
    progress: &mut dyn FnMut(DriveProgress),
) -> DriveResult {
    let start = Instant::now();
    let mut counted = Counted {
        inner: executor,
        count: 0,
    };
    let mut done = vec![false; strategies.len()];
    let mut steps = 0u64;
    let mut turn = 0usize;
    while !done.iter().all(|d| *d) {
        let i = turn % strategies.len();
        turn += 1;
        if done[i] {
            continue;
        }
        let strategy = &mut *strategies[i];
        strategy.update_goals(goals, archive);
        let mut arena = Arena {
            goals,
            archive,
            executor: &mut counted,
        };
        if strategy.step(&mut arena) == StepOutcome::Done {
            done[i] = true;
        }
        steps += 1;
        let all_covered = arena.all_covered();
        progress(DriveProgress {
            strategy: strategy.name(),
            branches_covered: goals
                .iter()
                .filter(|g| g.is_branch() && archive.is_covered(g.id))
                .count(),
            executions: counted.count,
            elapsed: start.elapsed(),
        });
        let capped = budget.max_executions.is_some_and(|m| counted.count >= m);
        if start.elapsed() >= budget.time || capped || all_covered {
            break;
        }
    }
    DriveResult {
        executions: counted.count,
        steps,
        elapsed: start.elapsed(),
    }
}
