//! A strategy added through the registry alone (no other edit of the engine): a toy that
//! runs random tests of the generator for a few turns, beside the search, on a real worker
//! JVM, and reports its own section in `rivet-report.json`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rivet_api::Rng;
use rivet_engine::{
    generate, GenerateConfig, RegistryEntry, StepOutcome, Strategy, StrategyChoice,
};
use rivet_search::Arena;
use rivet_strategy::{BuildContext, StrategyPlugin};

struct ToyPlugin;

impl StrategyPlugin for ToyPlugin {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn build<'g, 'm>(&self, ctx: &BuildContext<'g, 'm>) -> Box<dyn Strategy + 'g>
    where
        'm: 'g,
    {
        Box::new(Toy {
            generator: ctx.generator,
            rng: Rng::new(ctx.seed),
            turns: 0,
            executions: 0,
        })
    }
}

struct Toy<'g, 'm> {
    generator: &'g rivet_api::Generator<'m>,
    rng: Rng,
    turns: u64,
    executions: usize,
}

impl Strategy for Toy<'_, '_> {
    fn name(&self) -> &'static str {
        "toy"
    }

    fn step(&mut self, arena: &mut Arena<'_>) -> StepOutcome {
        let tests: Vec<_> = (0..4)
            .map(|_| self.generator.random_test(&mut self.rng, 3))
            .collect();
        self.executions += arena.evaluate(&tests).len();
        self.turns += 1;
        if self.turns == 3 {
            StepOutcome::Done
        } else {
            StepOutcome::Worked
        }
    }

    fn report_sections(&self, _elapsed: Duration) -> Vec<(&'static str, serde_json::Value)> {
        vec![(
            "toy",
            serde_json::json!({ "turns": self.turns, "executions": self.executions }),
        )]
    }
}

#[test]
fn a_strategy_added_through_the_registry_runs_and_reports() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = tempfile::tempdir().unwrap();
    let mut config = GenerateConfig::new(
        &subjects.to_string_lossy(),
        &rivet_classfile::ClassName::from_binary("structures.AvlTree"),
        out.path().join("tests"),
    );
    config.budget_s = 4;
    config.mutation = false;
    config.workers = Some(1);
    config.registry = rivet_engine::registry().with(RegistryEntry {
        name: "toy",
        plugin: |_| Box::new(ToyPlugin),
    });
    config.strategy = StrategyChoice::Only("toy");
    let outcome = generate(&config, &mut |_| {}).expect("a run");
    let report = &outcome.report;
    assert_eq!(report.strategy, "toy");
    let toy: serde_json::Value = report.section("toy").expect("the toy's section");
    assert_eq!(toy["turns"], 3, "{toy}");
    assert_eq!(toy["executions"], 12, "{toy}");
    // In the file too, at the top level, beside the other keys; no other technique ran.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&outcome.report_file).unwrap()).unwrap();
    assert_eq!(written["toy"]["turns"], 3);
    assert!(written.get("symbolic").is_none() && written.get("concolic").is_none());
    assert!(report.branches_covered > 0);
}
