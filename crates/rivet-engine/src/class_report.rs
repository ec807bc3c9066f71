//! The report of one class (`rivet-report.json`) from what its run did: the final tests'
//! coverage, the verification, the strategies' sections, the mutation score.

use std::collections::BTreeMap;
use std::time::Duration;

use rivet_junit::JUnitVersion;
use rivet_mutate::MutationScore;
use rivet_report::{
    seconds, ConcolicReport, OracleReport, Report, RunEvents, StrategyFailureRow, SymbolicReport,
};
use rivet_testcase::GoalId;

use crate::concolic::ConcolicStats;
use crate::generate::ClassRun;
use crate::strategy_phase::Sections;
use crate::symbolic::SymbolicStats;

/// The report of a class run, with the branches' covering tests and the run's pool events.
pub(crate) fn class_report(
    run: &ClassRun<'_>,
    (covering, events): (BTreeMap<GoalId, String>, RunEvents),
    sections: Sections,
    (mutation, oracle): (Option<MutationScore>, Option<OracleReport>),
) -> Report {
    let (config, checked) = (run.config, run.checked);
    let branches = Report::rows(&run.plan.places, &covering);
    let junit = match config.junit {
        JUnitVersion::Five => "5",
        JUnitVersion::Four => "4",
    };
    Report {
        class: run.plan.class.binary(),
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
        classes: Report::classes(&branches),
        events,
        dropped: checked
            .verified
            .as_ref()
            .map(|v| v.reasons.clone())
            .unwrap_or_default(),
        symbolic: sections.symbolic,
        concolic: sections.concolic,
        pc_selection: sections.pc_selection,
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

pub(crate) fn concolic_report(stats: &ConcolicStats) -> ConcolicReport {
    let mut diverged_at = std::collections::BTreeMap::new();
    for d in &stats.divergences {
        *diverged_at.entry(d.at.clone()).or_insert(0) += 1;
    }
    ConcolicReport {
        traced_runs: stats.traced_runs,
        nodes: stats.nodes,
        solved: stats.solved,
        tests: stats.tests,
        goals: stats.goals,
        goals_reached: stats.goals_reached,
        explore_s: seconds(stats.explore_time),
        divergences: stats.divergences.len(),
        diverged_at,
        dse_requests: stats.dse_requests,
        dse_steps: stats.dse_steps,
        dse_improved: stats.dse_improved,
        whole_tests: stats.whole_tests,
    }
}

pub(crate) fn symbolic_report(stats: &SymbolicStats, strategies: Duration) -> SymbolicReport {
    SymbolicReport {
        explore_s: seconds(stats.explore_time),
        select_s: seconds(stats.select_time),
        strategies_s: seconds(strategies),
        methods_explored: stats.methods_explored,
        paths: stats.paths,
        precise_paths: stats.precise_paths,
        rounds: stats.rounds,
        goals: stats.goals,
        goals_reached: stats.goals_reached,
        goals_failed: stats.goals_failed,
        goals_stalled: stats.goals_stalled,
        goals_cut_short: stats.goals_cut_short,
        invariants: None,
    }
}
