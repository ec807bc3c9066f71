//! `rivet-report.json` (design brief §5) and the one-screen summary `rivet generate` prints.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

/// One branch of the class under test in the report.
pub struct BranchRow {
    pub id: u32,
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub offset: u32,
    pub line: Option<u16>,
    pub kind: String,
    pub covering_test: Option<String>,
}

/// What a `rivet generate` run did.
pub struct Report {
    pub class: String,
    pub method: Option<String>,
    pub seed: u64,
    pub budget_s: u64,
    pub elapsed_s: f64,
    pub search_s: f64,
    pub tests: usize,
    pub executions: u64,
    pub junit: String,
    pub test_file: String,
    /// None when the tests could not be verified.
    pub verification: Option<String>,
    pub dropped_tests: usize,
    pub dropped_assertions: usize,
    pub untestable: Vec<String>,
    pub branches: Vec<BranchRow>,
}

impl Report {
    pub fn covered(&self) -> usize {
        self.branches
            .iter()
            .filter(|b| b.covering_test.is_some())
            .count()
    }

    pub fn to_json(&self) -> String {
        let branches: Vec<Value> = self
            .branches
            .iter()
            .map(|b| {
                json!({
                    "id": b.id,
                    "class": b.class,
                    "method": b.method,
                    "descriptor": b.descriptor,
                    "offset": b.offset,
                    "line": b.line,
                    "kind": b.kind,
                    "covered": b.covering_test.is_some(),
                    "covering_test": b.covering_test,
                })
            })
            .collect();
        let v = json!({
            "class": self.class,
            "method": self.method,
            "seed": self.seed,
            "budget_s": self.budget_s,
            "elapsed_s": (self.elapsed_s * 1000.0).round() / 1000.0,
            "search_s": (self.search_s * 1000.0).round() / 1000.0,
            "strategy": "search",
            "tests": self.tests,
            "executions": self.executions,
            "junit": self.junit,
            "test_file": self.test_file,
            "verified": self.verification.is_some(),
            "verification": self.verification.clone().unwrap_or_else(|| "not verified: no JUnit jars found".into()),
            "dropped_tests": self.dropped_tests,
            "dropped_assertions": self.dropped_assertions,
            "untestable": self.untestable,
            "branches_total": self.branches.len(),
            "branches_covered": self.covered(),
            "branches": branches,
        });
        let mut text = serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }

    /// The summary printed on stdout.
    pub fn summary(&self, report_path: &Path) -> String {
        let mut s = String::new();
        let total = self.branches.len();
        let covered = self.covered();
        let pct = if total == 0 {
            100.0
        } else {
            100.0 * covered as f64 / total as f64
        };
        let _ = writeln!(
            s,
            "rivet generate {} (seed {}, budget {} s)",
            self.class, self.seed, self.budget_s
        );
        let _ = writeln!(
            s,
            "  tests       {} written to {}",
            self.tests, self.test_file
        );
        let _ = writeln!(
            s,
            "  verified    {}",
            self.verification
                .as_deref()
                .unwrap_or("no (no JUnit jars found)")
        );
        let _ = writeln!(s, "  branches    {covered}/{total} covered ({pct:.1} %)");
        let _ = writeln!(
            s,
            "  executions  {} in {:.1} s (search {:.1} s)",
            self.executions, self.elapsed_s, self.search_s
        );
        let missed: Vec<&BranchRow> = self
            .branches
            .iter()
            .filter(|b| b.covering_test.is_none())
            .collect();
        if !missed.is_empty() {
            let _ = writeln!(s, "  not covered:");
            for b in missed.iter().take(10) {
                let line = b.line.map_or_else(|| "-".into(), |l| l.to_string());
                let simple = b.class.rsplit('.').next().unwrap_or(&b.class);
                let _ = writeln!(
                    s,
                    "    {simple}.{} line {line} ({}), branch {}",
                    b.method, b.kind, b.id
                );
            }
            if missed.len() > 10 {
                let _ = writeln!(s, "    … and {} more", missed.len() - 10);
            }
        }
        for u in &self.untestable {
            let _ = writeln!(s, "  untestable: {u}");
        }
        let _ = writeln!(s, "  report      {}", report_path.display());
        s
    }
}
