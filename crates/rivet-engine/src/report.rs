//! `rivet-report.json` (design brief §5) as typed data: what a run did and, per branch, its
//! place, whether a written test covers it and which.

use std::collections::BTreeMap;

use rivet_analysis::BranchPlace;
use rivet_testcase::GoalId;
use serde::{Deserialize, Serialize};

/// One branch of the class under test in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchRow {
    pub id: u32,
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub offset: u32,
    pub line: Option<u16>,
    pub kind: String,
    pub covered: bool,
    pub covering_test: Option<String>,
}

impl BranchRow {
    pub fn new(place: &BranchPlace, covering_test: Option<String>) -> BranchRow {
        BranchRow {
            id: place.branch.0,
            class: place.class.binary(),
            method: place.method.clone(),
            descriptor: place.descriptor.clone(),
            offset: place.offset,
            line: place.line,
            kind: place.kind.to_string(),
            covered: covering_test.is_some(),
            covering_test,
        }
    }
}

/// What a `rivet generate` run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub class: String,
    pub method: Option<String>,
    pub seed: u64,
    pub budget_s: u64,
    /// Seconds, rounded to milliseconds.
    pub elapsed_s: f64,
    /// Seconds the strategies ran, rounded to milliseconds.
    pub search_s: f64,
    pub strategy: String,
    pub tests: usize,
    pub executions: u64,
    pub junit: String,
    pub test_file: String,
    pub verified: bool,
    pub verification: String,
    pub dropped_tests: usize,
    pub dropped_assertions: usize,
    pub untestable: Vec<String>,
    pub branches_total: usize,
    pub branches_covered: usize,
    /// What the symbolic strategy did (absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<SymbolicReport>,
    pub branches: Vec<BranchRow>,
}

/// The symbolic strategy's share of a run: the time split and what became of its goals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolicReport {
    /// Seconds exploring methods symbolically.
    pub explore_s: f64,
    /// Seconds selecting paths.
    pub select_s: f64,
    /// Seconds the strategies ran in all (the rest went to the search).
    pub strategies_s: f64,
    pub methods_explored: usize,
    pub paths: u64,
    pub precise_paths: u64,
    pub rounds: usize,
    /// Path-condition goals handed to the search, reached, and given up as likely infeasible.
    pub goals: usize,
    pub goals_reached: usize,
    pub goals_failed: usize,
    /// Goals still being searched when the run stopped (every goal covered, or the budget
    /// spent).
    #[serde(default)]
    pub goals_cut_short: usize,
}

impl Report {
    /// The branch rows of `places`, covered where `covering` names a test.
    pub fn rows(
        places: &[(GoalId, BranchPlace)],
        covering: &BTreeMap<GoalId, String>,
    ) -> Vec<BranchRow> {
        places
            .iter()
            .map(|(g, p)| BranchRow::new(p, covering.get(g).cloned()))
            .collect()
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}

/// Seconds rounded to milliseconds.
pub fn seconds(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use rivet_analysis::{BranchId, BranchKind};
    use rivet_classfile::ClassName;

    use super::*;

    fn place(b: u32) -> BranchPlace {
        BranchPlace {
            class: ClassName::from_binary("a.B$C"),
            branch: BranchId(b),
            method: "m".into(),
            descriptor: "()V".into(),
            offset: 4 * b,
            line: Some(10),
            kind: BranchKind::Case(vec![1, 2]),
        }
    }

    #[test]
    fn rows_say_covered_exactly_where_a_test_is_named() {
        let places = vec![(GoalId(0), place(0)), (GoalId(1), place(1))];
        let covering = BTreeMap::from([(GoalId(1), "testM".to_string())]);
        let rows = Report::rows(&places, &covering);
        assert!(!rows[0].covered);
        assert_eq!(rows[1].covering_test.as_deref(), Some("testM"));
        assert!(rows[1].covered);
        assert_eq!(rows[1].class, "a.B$C");
        assert_eq!(rows[1].kind, "case 1,2");
        assert_eq!(rows[1].offset, 4);
    }

    #[test]
    fn the_report_reads_back_as_written() {
        let places = vec![(GoalId(0), place(0))];
        let report = Report {
            class: "a.B".into(),
            method: None,
            seed: 3,
            budget_s: 60,
            elapsed_s: seconds(std::time::Duration::from_micros(1_234_567)),
            search_s: 1.0,
            strategy: "search".into(),
            tests: 1,
            executions: 10,
            junit: "5".into(),
            test_file: "x".into(),
            verified: true,
            verification: "ok".into(),
            dropped_tests: 0,
            dropped_assertions: 0,
            untestable: vec![],
            branches_total: 1,
            branches_covered: 0,
            symbolic: None,
            branches: Report::rows(&places, &BTreeMap::new()),
        };
        assert_eq!(report.elapsed_s, 1.235);
        let back: Report = serde_json::from_str(&report.to_json()).expect("parse");
        assert_eq!(back, report);
    }
}
