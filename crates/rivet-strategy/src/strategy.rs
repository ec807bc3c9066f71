//! Strategies behind one trait: a way of finding tests, one unit of work per step on the run's
//! shared goals and archive. The many-objective search is the first strategy; symbolic (SUSHI
//! path-condition goals) and concolic strategies plug in the same way.

use std::time::Duration;

use rivet_api::Generator;
use rivet_search::{Archive, Arena, Goals, Search, SearchConfig};
use rivet_testcase::TypedTest;

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

    /// Its weight in the portfolio before any turn has paid (the schedule's prior; today's
    /// split gives the search twice the others' time).
    fn prior_weight(&self) -> f64 {
        1.0
    }

    /// How long its next turn should take at most, from its share of the time (the
    /// portfolio cannot cut a turn short: a strategy whose unit of work can be long, an
    /// exploration, keeps it within this).
    fn allow_turn(&mut self, _allowance: Duration) {}

    /// Is it doing work that must come before it can cover anything (an exploration before
    /// its goals exist)? The portfolio gives a strategy warming up half the time at least:
    /// its reward comes late, and judging it before would starve it.
    fn warming_up(&self) -> bool {
        false
    }

    /// Is its work going on elsewhere (an exploration on a thread of its own beside the
    /// search) with nothing for a turn to do until it ends? The driver gives it no turn
    /// meanwhile, and its turns cost the others nothing.
    fn busy_elsewhere(&self) -> bool {
        false
    }

    /// Adds or retires goals before a step (path-condition goals, say); the default does
    /// nothing.
    fn update_goals(&mut self, _goals: &mut Goals, _archive: &Archive) {}

    /// One unit of work: a generation of the search, a slice of exploration.
    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome;

    /// Has it work still to come even when every current goal is covered (goals it will
    /// add)? The driver does not stop early while a strategy is pending.
    fn pending(&self) -> bool {
        false
    }

    /// What it is doing, when that is worth showing (`exploring Sample.sample`, `PC goals
    /// 2/5`); the driver shows the first strategy's that has one, else `searching`.
    fn phase(&self) -> Option<String> {
        None
    }

    /// The driver stopped (budget spent, cap reached, or every goal covered): settle what is
    /// in flight. The default does nothing.
    fn close(&mut self, _goals: &mut Goals, _archive: &Archive) {}

    /// Tests another strategy found that covered goals no test had covered, or offers; the
    /// default ignores them (the search takes them into its population).
    fn seed(&mut self, _tests: &[TypedTest]) {}

    /// Tests this strategy offers the others after a step (the test a path-condition goal
    /// was derived from, close to meeting it); the default offers none.
    fn offers(&mut self) -> Vec<TypedTest> {
        Vec::new()
    }

    /// Its sections of the class's report, by key (`symbolic`, `pc_selection`), after a drive
    /// whose strategies took `elapsed`; the default has none.
    fn report_sections(&self, _elapsed: Duration) -> Vec<(&'static str, serde_json::Value)> {
        Vec::new()
    }
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

    fn prior_weight(&self) -> f64 {
        2.0
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        self.search.step(arena);
        StepOutcome::Worked
    }

    fn seed(&mut self, tests: &[TypedTest]) {
        self.search.seed(tests.iter().cloned());
    }
}
