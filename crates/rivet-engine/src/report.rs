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
    pub branches: Vec<BranchRow>,
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
