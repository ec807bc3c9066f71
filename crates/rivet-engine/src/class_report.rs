//! The report of one class (`rivet-report.json`) from what its run did: the final tests'
//! coverage, the verification, the strategies' sections, the mutation score.

use std::collections::BTreeMap;

use rivet_junit::JUnitVersion;
use rivet_mutate::MutationScore;
use rivet_report::{seconds, OracleReport, Report, RunEvents, StrategyFailureRow, TechniqueRow};
use rivet_testcase::GoalId;

use crate::generate::ClassRun;

/// The report of a class run, with the branches' covering tests and the run's pool events.
pub(crate) fn class_report(
    run: &ClassRun<'_>,
    (covering, events): (BTreeMap<GoalId, String>, RunEvents),
    sections: BTreeMap<String, serde_json::Value>,
    (mutation, oracle): (Option<MutationScore>, Option<OracleReport>),
) -> Report {
    let (config, checked) = (run.config, run.checked);
    let branches = Report::rows(&run.plan.places, &covering);
    let junit = match config.junit {
        JUnitVersion::Five => "5",
        JUnitVersion::Four => "4",
    };
    Report {
        class: run.plan.class.clone(),
        method: config.method.clone(),
        seed: config.seed,
        budget_s: config.budget_s,
        elapsed_s: seconds(run.started.elapsed()),
        search_s: seconds(run.driven.elapsed),
        strategy: config.strategy_name().into(),
        tests: checked.class.tests.len(),
        executions: run.executions,
        junit: junit.into(),
        test_file: run.test_file.map(|f| f.display().to_string()),
        verified: checked.verified.is_some(),
        verification: match &checked.verified {
            Some(v) if checked.class.tests.is_empty() => {
                format!("no test left to verify ({} tests dropped)", v.dropped_tests)
            }
            Some(v) => format!(
                "compiled and passed twice with JUnit {junit} ({} tests dropped, {} assertions dropped)",
                v.dropped_tests, v.dropped_assertions
            ),
            None => "not verified: no JUnit jars found".into(),
        },
        dropped_tests: checked.verified.as_ref().map_or(0, |v| v.dropped_tests),
        dropped_assertions: checked.verified.as_ref().map_or(0, |v| v.dropped_assertions),
        untestable: run.plan.model.untestable.clone(),
        branches_total: branches.len(),
        branches_covered: branches.iter().filter(|b| b.covered).count(),
        classes: Report::classes(&branches)
            .into_iter()
            .map(|mut c| {
                c.reachable = run
                    .plan
                    .covered
                    .iter()
                    .find(|k| k.class == c.class)
                    .map(|k| k.reachable);
                c
            })
            .collect(),
        events,
        dropped: checked
            .verified
            .as_ref()
            .map(|v| v.reasons.clone())
            .unwrap_or_default(),
        techniques: techniques(run),
        sections,
        mutation,
        oracle,
        strategy_failures: run
            .failures
            .iter()
            .map(|f| StrategyFailureRow {
                strategy: f.strategy.into(),
                message: f.message.clone(),
            })
            .collect(),
        branches,
    }
}

/// Each strategy's share of the run, with the written tests that came from its turns (a test's
/// origin is that of its first goal's archived test).
fn techniques(run: &ClassRun<'_>) -> Vec<TechniqueRow> {
    let mut final_tests: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &run.checked.class.tests {
        let origin = t
            .generated
            .goals
            .iter()
            .find_map(|g| run.origins.get(g))
            .copied()
            .unwrap_or("");
        *final_tests.entry(origin).or_default() += 1;
    }
    run.driven
        .values
        .iter()
        .map(|v| TechniqueRow {
            strategy: v.strategy.into(),
            turns: v.turns,
            seconds: seconds(v.time),
            executions: v.executions,
            timed_out: v.timed_out,
            first_covered: v.first_covered,
            first_covered_branches: v.first_covered_branches,
            final_tests: final_tests.get(v.strategy).copied().unwrap_or(0),
        })
        .collect()
}
