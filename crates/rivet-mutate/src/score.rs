//! What the tests did to each mutant, and the score: PIT's statuses and counting (a mutant
//! that times out or crashes the JVM is detected, like a killed one).

use rivet_classfile::ClassName;
use serde::{Deserialize, Serialize};

use crate::find::Mutant;
use crate::operator::Operator;

/// How a mutant fared against the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MutantStatus {
    /// A test failed on it.
    Killed,
    /// Every test that reaches it passed.
    Survived,
    /// No test reaches its instruction.
    NoCoverage,
    /// A test ran past its time limit on it (an infinite loop, say).
    TimedOut,
    /// The JVM running the tests died on it (an exit, a crash).
    RunError,
    /// The mutant could not be written or loaded (not counted).
    NonViable,
    /// The analysis ran out of time before its turn (not counted).
    NotRun,
}

impl MutantStatus {
    /// Detected by the tests, as PIT counts: killed, timed out or a run error.
    pub fn detected(self) -> bool {
        matches!(
            self,
            MutantStatus::Killed | MutantStatus::TimedOut | MutantStatus::RunError
        )
    }
}

/// One mutant and its fate, as reports show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantRow {
    pub id: u32,
    /// The class it mutates: the class under test or one nested in it (absent in reports
    /// written before classes were named).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassName>,
    pub method: String,
    pub line: Option<u32>,
    pub operator: Operator,
    pub description: String,
    pub status: MutantStatus,
    /// The test that killed it (or ran out of time on it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed_by: Option<String>,
    /// How many tests reach it.
    pub tests_run: usize,
}

impl MutantRow {
    /// Is this a mutant of `class` itself (a row that names no class is taken to be)?
    pub fn is_of(&self, class: &ClassName) -> bool {
        self.class.as_ref().is_none_or(|c| c == class)
    }

    /// Where a mutant of a class nested in `outer` is: its method as `Inner.method`; else
    /// the method alone.
    pub fn place_in(&self, outer: &ClassName) -> String {
        let nested = self
            .class
            .as_ref()
            .filter(|c| c.is_nested_in(outer))
            .and_then(|c| c.internal().strip_prefix(outer.internal()))
            .and_then(|rest| rest.strip_prefix('$'));
        match nested {
            Some(inner) => format!("{inner}.{}", self.method),
            None => self.method.clone(),
        }
    }

    pub fn new(
        m: &Mutant,
        status: MutantStatus,
        killed_by: Option<String>,
        tests_run: usize,
    ) -> Self {
        MutantRow {
            id: m.id.0,
            class: Some(m.class.clone()),
            method: m.method.clone(),
            line: m.line,
            operator: m.operator,
            description: m.description.clone(),
            status,
            killed_by,
            tests_run,
        }
    }
}

/// The mutation analysis of one class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MutationScore {
    /// Detected mutants over viable mutants (1.0 when there are none).
    pub score: f64,
    /// Viable mutants.
    pub mutants: usize,
    /// Detected mutants (killed, timed out or run errors).
    pub killed: usize,
    pub survived: usize,
    pub no_coverage: usize,
    pub timed_out: usize,
    pub run_errors: usize,
    pub non_viable: usize,
    pub not_run: usize,
    /// Seconds the analysis took.
    pub seconds: f64,
    pub rows: Vec<MutantRow>,
}

impl MutationScore {
    /// The score of these rows.
    pub fn of(rows: Vec<MutantRow>, seconds: f64) -> MutationScore {
        let count = |s: MutantStatus| rows.iter().filter(|r| r.status == s).count();
        let non_viable = count(MutantStatus::NonViable);
        let not_run = count(MutantStatus::NotRun);
        let mutants = rows.len() - non_viable - not_run;
        let killed = rows.iter().filter(|r| r.status.detected()).count();
        MutationScore {
            score: if mutants == 0 {
                1.0
            } else {
                killed as f64 / mutants as f64
            },
            mutants,
            killed,
            survived: count(MutantStatus::Survived),
            no_coverage: count(MutantStatus::NoCoverage),
            timed_out: count(MutantStatus::TimedOut),
            run_errors: count(MutantStatus::RunError),
            non_viable,
            not_run,
            seconds,
            rows,
        }
    }

    /// `0.83 (150 of 181 mutants killed; 20 survived, 11 not covered)`.
    pub fn summary(&self) -> String {
        format!(
            "{:.2} ({} of {} mutants killed; {} survived, {} not covered{})",
            self.score,
            self.killed,
            self.mutants,
            self.survived,
            self.no_coverage,
            if self.timed_out > 0 {
                format!(", {} timed out", self.timed_out)
            } else {
                String::new()
            }
        ) + &if self.not_run > 0 {
            format!("; {} not run in time", self.not_run)
        } else {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(status: MutantStatus) -> MutantRow {
        MutantRow {
            id: 0,
            class: Some(ClassName::from_binary("C")),
            method: "m".into(),
            line: Some(1),
            operator: Operator::Math,
            description: String::new(),
            status,
            killed_by: None,
            tests_run: 1,
        }
    }

    #[test]
    fn timeouts_and_run_errors_count_as_killed_and_non_viable_mutants_do_not_count() {
        let s = MutationScore::of(
            vec![
                row(MutantStatus::Killed),
                row(MutantStatus::TimedOut),
                row(MutantStatus::RunError),
                row(MutantStatus::Survived),
                row(MutantStatus::NoCoverage),
                row(MutantStatus::NonViable),
            ],
            0.0,
        );
        assert_eq!(
            (s.mutants, s.killed, s.survived, s.no_coverage),
            (5, 3, 1, 1)
        );
        assert!((s.score - 0.6).abs() < 1e-9);
        assert_eq!(MutationScore::of(Vec::new(), 0.0).score, 1.0);
    }
}
