//! The index `rivet-report.json` of a run over many classes: one entry per class with what
//! became of it, and the totals.

use rivet_classfile::ClassName;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::class::Report;

/// What became of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassStatus {
    Generated,
    Skipped,
    Failed,
}

/// One class in the index report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassEntry {
    pub class: ClassName,
    pub status: ClassStatus,
    /// Why a class was skipped or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub tests: usize,
    pub branches_covered: usize,
    pub branches_total: usize,
    pub verified: bool,
    pub budget_s: u64,
    /// When the class started, in seconds after the run's start (classes run side by side
    /// overlap).
    #[serde(default)]
    pub started_s: f64,
    pub elapsed_s: f64,
    /// Relative to the output directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_file: Option<String>,
}

/// The index `rivet-report.json` of a run over many classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectReport {
    /// `project`: tells the index from a one-class report.
    pub kind: String,
    pub strategy: String,
    pub seed: u64,
    /// Per class.
    pub budget_s: u64,
    pub total_budget_s: Option<u64>,
    pub shard: Option<String>,
    pub elapsed_s: f64,
    pub generated: usize,
    pub skipped: usize,
    pub failed: usize,
    pub tests: usize,
    pub branches_covered: usize,
    pub branches_total: usize,
    pub classes: Vec<ClassEntry>,
}

impl ProjectReport {
    /// The report over `classes`, totals counted (classes sorted by name).
    pub fn over(mut classes: Vec<ClassEntry>, header: ProjectReport) -> ProjectReport {
        classes.sort_by(|a, b| a.class.cmp(&b.class));
        let count = |s: ClassStatus| classes.iter().filter(|c| c.status == s).count();
        ProjectReport {
            generated: count(ClassStatus::Generated),
            skipped: count(ClassStatus::Skipped),
            failed: count(ClassStatus::Failed),
            tests: classes.iter().map(|c| c.tests).sum(),
            branches_covered: classes.iter().map(|c| c.branches_covered).sum(),
            branches_total: classes.iter().map(|c| c.branches_total).sum(),
            classes,
            ..header
        }
    }

    /// The index of a one-class run whose output directory is `out` (its report is
    /// `out/rivet-report.json`).
    pub fn of_class(one: &Report, out: &Path) -> ProjectReport {
        let test_file = one.test_file.as_deref().map(|f| {
            match Path::new(f).strip_prefix(out) {
                Ok(r) => r.display().to_string(),
                // The run wrote it under the same directory named another way (`./out`).
                Err(_) => format!(
                    "{}RivetTest.java",
                    one.class.internal().split('$').next().unwrap_or_default()
                ),
            }
        });
        let entry = ClassEntry {
            class: one.class.clone(),
            status: ClassStatus::Generated,
            reason: None,
            tests: one.tests,
            branches_covered: one.branches_covered,
            branches_total: one.branches_total,
            verified: one.verified,
            budget_s: one.budget_s,
            started_s: 0.0,
            elapsed_s: one.elapsed_s,
            test_file,
            report_file: Some("rivet-report.json".into()),
        };
        ProjectReport {
            kind: "project".into(),
            strategy: one.strategy.clone(),
            seed: one.seed,
            budget_s: one.budget_s,
            total_budget_s: None,
            shard: None,
            elapsed_s: one.elapsed_s,
            generated: 1,
            skipped: 0,
            failed: 0,
            tests: one.tests,
            branches_covered: one.branches_covered,
            branches_total: one.branches_total,
            classes: vec![entry],
        }
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}
