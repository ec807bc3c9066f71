//! The one explicit configuration of a generation run, passed down from the CLI.

use rivet_classfile::ClassName;
use std::path::PathBuf;
use std::time::Duration;

pub use rivet_api::AccessMode;
use rivet_junit::{ExpectedExceptions, JUnitVersion};

use rivet_sushi::PcPolicy;

/// Which strategies a run uses (the names are those of the registry,
/// [`crate::registry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrategyChoice {
    /// Every registered strategy, interleaved within one budget.
    All,
    /// One registered strategy: `search` alone, or another beside the search (which then
    /// serves its goals, when the strategy retires the branch goals alone).
    Only(&'static str),
}

impl StrategyChoice {
    /// The choice a name spells (`all`, or a registered strategy's name).
    pub fn named(name: &str) -> Option<StrategyChoice> {
        if name == "all" {
            return Some(StrategyChoice::All);
        }
        crate::strategy_phase::strategy_names()
            .into_iter()
            .find(|n| *n == name)
            .map(StrategyChoice::Only)
    }
}

/// Everything a `rivet generate` run of one class needs.
#[derive(Debug, Clone)]
pub struct GenerateConfig {
    /// `:`-separated directories and jars.
    pub classpath: String,
    /// The class under test.
    pub class: ClassName,
    /// Only this method's branches, when given.
    pub method: Option<String>,
    /// Classes beyond the class under test whose branches are goals too (`--cover`).
    pub cover: Vec<rivet_strategy::CoverPattern>,
    pub out: PathBuf,
    /// Whole seconds of budget, at least 1.
    pub budget_s: u64,
    pub seed: u64,
    /// Worker JVMs; None for one per core.
    pub workers: Option<usize>,
    pub junit: JUnitVersion,
    /// How the tests expect exceptions (`assertThrows`, or `try`/`fail`/`catch` for a
    /// project's JUnit 4 older than 4.13).
    pub expected_exceptions: ExpectedExceptions,
    /// JUnit jars for verification; None for the system's.
    pub test_classpath: Option<String>,
    /// Keep intermediate outputs (instrumented classes, verification runs) here.
    pub keep_artifacts: Option<PathBuf>,
    pub strategy: StrategyChoice,
    /// The strategies to choose from (the built-in ones unless a caller adds its own).
    pub registry: crate::strategy_phase::Registry,
    /// Stop the strategies after this many test executions.
    pub max_executions: Option<u64>,
    /// What the tests may use: what a test in the class's package may (the default), or
    /// only the public API.
    pub access: AccessMode,
    /// How the concolic strategy picks the next unvisited node of its execution tree.
    pub concolic_order: rivet_concolic::NodeOrder,
    /// Time the symbolic executor gets per unvisited node (a concolic step); None for the
    /// strategy's default.
    pub concolic_step: Option<Duration>,
    /// How the symbolic strategy picks the path conditions it hands to the search.
    pub pc_policy: PcPolicy,
    /// The symbolic strategy goes on trying path conditions until the budget is spent, even
    /// once every branch is covered (to compare policies on the same time).
    pub pc_until_budget: bool,
    /// The symbolic strategy learns heap invariants from the tests' objects and explores with
    /// them (on by default).
    pub learned_invariants: bool,
    /// Score the written tests against the class's mutants at the end (on by default).
    pub mutation: bool,
}

impl GenerateConfig {
    /// The settings of `rivet generate --classpath CP --class CLASS --out OUT` with every
    /// other flag at its default (budget 60 s, seed 0, JUnit 5, every strategy).
    pub fn new(classpath: &str, class: &ClassName, out: PathBuf) -> GenerateConfig {
        GenerateConfig {
            classpath: classpath.into(),
            class: class.clone(),
            method: None,
            cover: Vec::new(),
            out,
            budget_s: 60,
            seed: 0,
            workers: None,
            junit: JUnitVersion::Five,
            expected_exceptions: ExpectedExceptions::AssertThrows,
            test_classpath: None,
            keep_artifacts: None,
            strategy: StrategyChoice::All,
            registry: crate::strategy_phase::Registry::default(),
            max_executions: None,
            access: AccessMode::SamePackage,
            concolic_order: rivet_concolic::NodeOrder::DepthFirst,
            concolic_step: None,
            pc_policy: PcPolicy::CoverTardis,
            pc_until_budget: false,
            learned_invariants: true,
            mutation: true,
        }
    }

    pub fn budget(&self) -> Duration {
        Duration::from_secs(self.budget_s)
    }

    /// How much of the budget the strategies get: the rest is for minimization, assertions
    /// and verification.
    /// How long a whole run may take, whatever the code under test does: the budget plus
    /// max(15 s, a quarter of it).
    pub fn time_bound(&self) -> Duration {
        let total = self.budget();
        total + (total / 4).max(Duration::from_secs(15))
    }

    pub fn strategy_budget(&self) -> Duration {
        let total = self.budget();
        let reserve = (total / 4).min(Duration::from_secs(15));
        total
            .saturating_sub(reserve)
            .saturating_sub(self.mutation_budget())
            .max(Duration::from_millis(500))
    }

    /// The mutation stage's own share of the budget (an eighth, at least a second but at most
    /// a quarter; none without it): it may also use what the finish stage leaves of the
    /// budget.
    pub fn mutation_budget(&self) -> Duration {
        if !self.mutation {
            return Duration::ZERO;
        }
        (self.budget() / 8)
            .max(Duration::from_secs(1))
            .min(self.budget() / 4)
    }

    /// Checks what can be checked before any work: a clear message for each mistake.
    pub fn validate(&self) -> Result<(), String> {
        if self.budget_s == 0 {
            return Err("--budget must be at least 1 second".into());
        }
        if self.concolic_step == Some(Duration::ZERO) {
            return Err("--concolic-step-ms must be at least 1".into());
        }
        if self.workers == Some(0) {
            return Err("--workers must be at least 1".into());
        }
        if self.out.exists() && !self.out.is_dir() {
            return Err(format!(
                "--out {} exists and is not a directory",
                self.out.display()
            ));
        }
        Ok(())
    }

    /// The strategy's name as the report and the flag spell it.
    pub fn strategy_name(&self) -> &'static str {
        match self.strategy {
            StrategyChoice::All => "all",
            StrategyChoice::Only(name) => name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> GenerateConfig {
        GenerateConfig::new(
            "x",
            &ClassName::from_binary("a.B"),
            PathBuf::from("/nonexistent/rivet-out"),
        )
    }

    #[test]
    fn the_strategies_get_the_budget_less_a_reserve_of_a_quarter_up_to_15_s_and_the_mutation_share()
    {
        let mut c = config();
        c.mutation = false;
        assert_eq!(c.strategy_budget(), Duration::from_secs(45));
        c.budget_s = 120;
        assert_eq!(c.strategy_budget(), Duration::from_secs(105));
        c.budget_s = 1;
        assert_eq!(c.strategy_budget(), Duration::from_millis(750));
        // The mutation stage's share (an eighth, at least a second, at most a quarter) comes
        // out of the strategies' time.
        c.mutation = true;
        c.budget_s = 60;
        assert_eq!(c.strategy_budget(), Duration::from_millis(37_500));
        c.budget_s = 4;
        assert_eq!(c.strategy_budget(), Duration::from_secs(2));
        c.budget_s = 1;
        assert_eq!(c.strategy_budget(), Duration::from_millis(500));
    }

    #[test]
    fn bad_flags_are_refused_with_their_name() {
        let mut c = config();
        assert!(c.validate().is_ok());
        c.budget_s = 0;
        assert!(c.validate().unwrap_err().contains("--budget"));
        let mut c = config();
        c.workers = Some(0);
        assert!(c.validate().unwrap_err().contains("--workers"));
        let mut c = config();
        c.strategy = StrategyChoice::Only("concolic");
        assert!(c.validate().is_ok());
    }
}
