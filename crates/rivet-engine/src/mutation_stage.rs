//! The mutation stage of `rivet generate`: the verified tests' soft copy (value assertions
//! record their failures and the test goes on) runs against every mutant it reaches; the kill
//! matrix gives the score and the assertions worth keeping ([`crate::oracle`]), and the
//! pruned class is verified again before it is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

use rivet_classfile::ClassName;
use rivet_junit::{soft_copy, soft_key, Emitted, TestClass};
use rivet_mutate::MutationScore;
use rivet_testcase::Assertion;
use rivet_verify::{CompiledSuite, MutantResult, Verifier};

use crate::error::EngineError;
use crate::generate::write;
use crate::mutation::{score, tempfile_dir, verify_error, TempGuard};
use crate::oracle::{select, TestKill, TestOracles};
use crate::session::Session;
use rivet_report::OracleReport;

/// Less time than this left, and the stage does not start.
const MIN_STAGE: std::time::Duration = std::time::Duration::from_secs(1);

/// What the stage found.
pub(crate) struct StageOutcome {
    pub score: MutationScore,
    /// The tests with the assertions selection kept, and what it did; None when the matrix
    /// is incomplete (time ran out) and every assertion stays.
    pub selected: Option<(TestClass, OracleReport)>,
}

/// Runs the stage until `deadline`; None (with a warning) when it cannot run.
pub(crate) fn stage(
    session: &Session,
    verifier: &Verifier,
    (class, emitted): (&TestClass, &Emitted),
    cut: &ClassName,
    deadline: Instant,
    keep: Option<PathBuf>,
) -> Option<StageOutcome> {
    if deadline.saturating_duration_since(Instant::now()) < MIN_STAGE {
        tracing::debug!(class = %cut.binary(), "no time left for the mutation stage");
        return None;
    }
    match run(session, verifier, (class, emitted), cut, deadline, keep) {
        Ok(s) => Some(s),
        // Out of time is the budget's doing, not a problem to report.
        Err(EngineError::Verify { source, .. })
            if matches!(*source, rivet_verify::VerifyError::TimedOut { .. }) =>
        {
            tracing::debug!(class = %cut.binary(), error = %source, "mutation stage out of time");
            None
        }
        Err(e) => {
            tracing::warn!(class = %cut.binary(), error = %e, "no mutation analysis");
            None
        }
    }
}

fn run(
    session: &Session,
    verifier: &Verifier,
    (class, emitted): (&TestClass, &Emitted),
    cut: &ClassName,
    deadline: Instant,
    keep: Option<PathBuf>,
) -> Result<StageOutcome, EngineError> {
    let bytes = crate::mutation::class_files(session, cut)?;
    let work = match &keep {
        Some(d) => d.clone(),
        None => tempfile_dir()?,
    };
    let _cleanup = TempGuard(keep.is_none().then(|| work.clone()));
    let source = work.join("soft").join(emitted.relative_path());
    write(&source, &soft_copy(emitted, class))?;
    // One javac for the runner and the soft copy.
    let (runner, errors) = verifier
        .mutation_runner_with(&work, &[source])
        .map_err(verify_error(cut))?;
    if let Some((_, e)) = errors.first() {
        return Err(EngineError::Internal {
            class: cut.clone(),
            reason: format!("the soft copy of the tests does not compile: {}", e.message),
        });
    }
    let classes = runner.classes().to_path_buf();
    let suite = CompiledSuite {
        classes,
        test_classes: vec![emitted.qualified_name()],
    };
    let left = deadline.saturating_duration_since(Instant::now());
    let (score, results) = score(&runner, &bytes, &suite, Some(left), true)?;
    let complete = score.not_run == 0;
    let selected = complete.then(|| {
        let tests = oracles(class);
        let kills = kill_matrix(emitted, &results);
        let s = select(&tests, &kills);
        let report = s.report(&tests);
        let mut pruned = class.clone();
        pruned.tests = class
            .tests
            .iter()
            .zip(&s.tests)
            .filter_map(|(t, keep)| {
                let keep = keep.as_ref()?;
                let mut t = t.clone();
                t.generated.assertions = t
                    .generated
                    .assertions
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| keep.contains(i))
                    .map(|(_, a)| a.clone())
                    .collect();
                Some(t)
            })
            .collect();
        (pruned, report)
    });
    Ok(StageOutcome { score, selected })
}

/// Per test: its assertions, those always kept (the expected exception, the last call's
/// result) and its goals.
fn oracles(class: &TestClass) -> Vec<TestOracles> {
    class
        .tests
        .iter()
        .map(|t| {
            let g = &t.generated;
            let last = g.test.len().saturating_sub(1) as u32;
            let mut kept: BTreeSet<usize> = g
                .assertions
                .iter()
                .enumerate()
                .filter(|(_, a)| matches!(a, Assertion::Throws { .. }))
                .map(|(i, _)| i)
                .collect();
            let result = g
                .assertions
                .iter()
                .position(|a| matches!(a, Assertion::Equals { of, .. } if of.0 == last))
                .or_else(|| {
                    g.assertions
                        .iter()
                        .position(|a| matches!(a, Assertion::Inspector { of, .. } if of.0 == last))
                });
            kept.extend(result);
            TestOracles {
                assertions: g.assertions.len(),
                kept,
                goals: g.goals.iter().map(|id| id.0).collect(),
            }
        })
        .collect()
}

/// What each test did to each mutant, from the matrix results (timeouts and run errors kill
/// without an assertion).
fn kill_matrix(
    emitted: &Emitted,
    results: &BTreeMap<u32, MutantResult>,
) -> Vec<BTreeMap<usize, TestKill>> {
    let index: BTreeMap<String, usize> = emitted
        .tests
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                format!(
                    "{}#{}({})",
                    emitted.qualified_name(),
                    t.name,
                    t.parameter_types
                ),
                i,
            )
        })
        .collect();
    let keys: BTreeMap<String, (usize, usize)> = emitted
        .tests
        .iter()
        .enumerate()
        .flat_map(|(ti, t)| {
            t.assertions
                .iter()
                .map(move |&(ai, _)| (soft_key(ti, ai), (ti, ai)))
        })
        .collect();
    results
        .values()
        .filter_map(|r| match r {
            MutantResult::Matrix(rows) => Some(
                rows.iter()
                    .filter_map(|row| {
                        let t = *index.get(&row.test)?;
                        let assertions: BTreeSet<usize> = row
                            .soft
                            .iter()
                            .filter_map(|k| keys.get(k))
                            .filter(|(ti, _)| *ti == t)
                            .map(|(_, ai)| *ai)
                            .collect();
                        (row.failed || !assertions.is_empty()).then_some((
                            t,
                            TestKill {
                                failed: row.failed,
                                assertions,
                            },
                        ))
                    })
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}
