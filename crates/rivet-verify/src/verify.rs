//! The verification loop: emit, compile, run twice (in the class's order, then in any order);
//! drop what does not compile, drop assertions that fail, drop tests that fail elsewhere,
//! differ between runs or hang, saying why; repeat until both runs pass. The runs themselves
//! are in `runs`.

use rivet_classfile::ClassName;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rivet_junit::{emit, Emitted, TestClass};
use rivet_testcase::Assertion;
use tracing::{debug, info_span, warn};

use crate::junit::JUnitSetup;
use crate::runs::{Order, FIXED_ORDER_5};
use crate::triage::{triage, Verdict};

/// Verification could not run (the tests may still be fine).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("cannot start {what}: {source}")]
    Spawn {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{what} took longer than {seconds} s")]
    TimedOut { what: String, seconds: u64 },
    /// A run of the tests left files in its working directory (the stand-in for the
    /// developer's project directory): some test writes outside the JVM's temporary
    /// directory. The runs find which by bisection; it never leaves the verifier.
    #[error("the tests of {class} created files outside the JVM's temporary directory: {files}")]
    LeftFiles { class: ClassName, files: String },
    #[error("the generated test class {class} does not compile: {message}")]
    DoesNotCompile { class: ClassName, message: String },
    #[error("cannot make the copy of {class} that runs in any order: {reason}")]
    AnyOrder { class: ClassName, reason: String },
    #[error("cannot confine {what}: {source}")]
    Sandbox {
        what: String,
        #[source]
        source: rivet_sandbox::SandboxError,
    },
}

/// Compiles and runs emitted test classes.
#[derive(Debug, Clone)]
pub struct Verifier {
    pub java: PathBuf,
    pub javac: PathBuf,
    /// The user's classpath (the uninstrumented classes under test and their dependencies).
    pub classpath: Vec<PathBuf>,
    pub junit: JUnitSetup,
    /// Limit for one javac or one test run.
    pub time_limit: Duration,
    /// When verification must be over: runs get shorter limits as it nears, and tests not
    /// cleared by then are dropped (None: no deadline).
    pub deadline: Option<Instant>,
    /// Where to keep the sources, classes and reports (a temporary directory when None).
    pub keep: Option<PathBuf>,
    /// Where the class-data archives of the javac and launcher JVMs are kept (`archives`;
    /// None: the JVMs start without).
    pub archives: Option<PathBuf>,
}

/// The outcome of verification.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The surviving tests (the input's order).
    pub class: TestClass,
    pub emitted: Emitted,
    /// Indexes (into the input's tests) of the tests dropped.
    pub dropped_tests: Vec<usize>,
    /// Why each dropped test was dropped, in the order they were.
    pub reasons: Vec<DroppedTest>,
    pub dropped_assertions: usize,
    /// Compile-and-run rounds taken.
    pub rounds: usize,
}

/// A test verification dropped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedTest {
    /// Its method name in the round it was dropped.
    pub test: String,
    pub reason: String,
}

/// Records why a test was dropped (its name, the reason).
type DropReason<'a> = dyn FnMut(&str, String) + 'a;

/// What the two runs say of each test, applied to the class: assertions that failed in one
/// run only are dropped (an expected exception's message cleared), failing and unreported
/// tests doomed; returns the doomed tests and whether an assertion went.
fn apply_verdicts(
    class: &mut TestClass,
    emitted: &rivet_junit::Emitted,
    (first, second): (&crate::RunReport, &crate::RunReport),
    (dropped_assertions, why): (&mut usize, &mut DropReason<'_>),
) -> (BTreeSet<usize>, bool) {
    let mut doomed = BTreeSet::new();
    let mut changed = false;
    for (t, lines) in emitted.tests.iter().enumerate() {
        let (a, b) = (first.tests.get(&lines.name), second.tests.get(&lines.name));
        match triage(a, b, lines) {
            Verdict::Keep => {}
            Verdict::Unreported => {
                warn!(test = %lines.name, "not reported by JUnit; dropped");
                why(&lines.name, "not reported by JUnit".into());
                doomed.insert(t);
            }
            Verdict::DropTest => {
                let failure = [a, b].into_iter().flatten().find(|o| !o.passed);
                let message = failure.and_then(|o| o.message.as_deref());
                debug!(test = %lines.name, ?message, "failing test dropped");
                why(
                    &lines.name,
                    format!("fails: {}", message.unwrap_or("(no message)")),
                );
                doomed.insert(t);
            }
            Verdict::ClearMessage(ai) => {
                // The exception's message differed: keep the expected exception.
                if let Some(Assertion::Throws { message, .. }) =
                    class.tests[t].generated.assertions.get_mut(ai)
                {
                    *message = None;
                    *dropped_assertions += 1;
                    changed = true;
                } else {
                    doomed.insert(t);
                }
            }
            Verdict::DropAssertion(ai) => {
                let failure = [a, b].into_iter().flatten().find(|o| !o.passed);
                let message = failure.and_then(|o| o.message.as_deref());
                debug!(test = %lines.name, ?message, "unstable assertion dropped");
                let assertions = &mut class.tests[t].generated.assertions;
                if ai < assertions.len() {
                    let removed = assertions.remove(ai);
                    if matches!(removed, Assertion::Throws { .. }) {
                        // Without its expected exception the test is not a test.
                        why(
                            &lines.name,
                            format!(
                                "its expected exception is not stable: {}",
                                message.unwrap_or("(no message)")
                            ),
                        );
                        doomed.insert(t);
                    }
                    *dropped_assertions += 1;
                    changed = true;
                } else {
                    doomed.insert(t);
                }
            }
        }
    }
    (doomed, changed)
}

const MAX_ROUNDS: usize = 8;

impl Verifier {
    /// Where this verification's files go: the artifacts directory (each verification of
    /// the run in one of its own: `d`, then `d/again-2`, `d/again-3`, ...) or a temporary
    /// directory, removed when the returned guard drops.
    fn work_dir(&self) -> Result<(PathBuf, Option<tempfile::TempDir>), VerifyError> {
        match &self.keep {
            Some(d) => {
                let mut dir = d.clone();
                let mut n = 1;
                while dir.join("classes").exists() {
                    n += 1;
                    dir = d.join(format!("again-{n}"));
                }
                std::fs::create_dir_all(&dir).map_err(|source| VerifyError::Io {
                    what: "creating the artifacts directory".into(),
                    source,
                })?;
                Ok((dir, None))
            }
            None => {
                let temp = tempfile::Builder::new()
                    .prefix("rivet-verify-")
                    .tempdir()
                    .map_err(|source| VerifyError::Io {
                        what: "creating a temporary directory".into(),
                        source,
                    })?;
                Ok((temp.path().to_path_buf(), Some(temp)))
            }
        }
    }

    /// Verifies `class`: returns the surviving tests, re-emitted.
    pub fn verify(&self, class: TestClass) -> Result<Verified, VerifyError> {
        let _span =
            info_span!("verify", class = %class.class_under_test, tests = class.tests.len())
                .entered();
        let (dir, _temp) = self.work_dir()?;
        let mut class = class;
        let total = class.tests.len();
        let mut alive: Vec<usize> = (0..class.tests.len()).collect();
        let mut dropped_assertions = 0;
        let mut reasons: Vec<DroppedTest> = Vec::new();
        let mut why = |test: &str, reason: String| {
            reasons.push(DroppedTest {
                test: test.to_string(),
                reason,
            })
        };
        for round in 1..=MAX_ROUNDS {
            let emitted = emit(&class);
            let errors = self.compile(&emitted, &dir)?;
            if !errors.is_empty() {
                let mut doomed = BTreeSet::new();
                for e in &errors {
                    match e.line.and_then(|l| emitted.test_at(l)) {
                        Some(t) => {
                            debug!(test = %emitted.tests[t].name, error = %e.message, "does not compile");
                            why(
                                &emitted.tests[t].name,
                                format!("does not compile: {}", e.message),
                            );
                            doomed.insert(t);
                        }
                        None => {
                            return Err(VerifyError::DoesNotCompile {
                                class: emitted.qualified_name(),
                                message: e.message.clone(),
                            })
                        }
                    }
                }
                drop_tests(&mut class, &mut alive, &doomed);
                continue;
            }
            if class.tests.is_empty() {
                return Ok(Verified {
                    class,
                    emitted,
                    dropped_tests: dropped(total, &alive),
                    reasons,
                    dropped_assertions,
                    rounds: round,
                });
            }
            let first = self.run(&emitted, &dir, 2 * round)?;
            // Tests that hang are dropped before the second run, which would wait for them too.
            let hung: BTreeSet<usize> = emitted
                .tests
                .iter()
                .enumerate()
                .filter(|(_, l)| first.tests.get(&l.name).is_some_and(|o| o.timed_out))
                .map(|(t, _)| t)
                .collect();
            if !hung.is_empty() {
                debug!(tests = hung.len(), "hanging tests dropped");
                for &t in &hung {
                    let message = first
                        .tests
                        .get(&emitted.tests[t].name)
                        .and_then(|o| o.message.clone());
                    why(
                        &emitted.tests[t].name,
                        message.unwrap_or_else(|| "timed out".into()),
                    );
                }
                drop_tests(&mut class, &mut alive, &hung);
                continue;
            }
            // The second run in another order (JUnit 5), so that an assertion that holds only
            // after the tests before it is found and dropped, and with other identity hash
            // codes, so that one that holds only for this JVM's is too.
            let order = if emitted.source.contains(FIXED_ORDER_5) {
                Order::Any(round as u64)
            } else {
                Order::Fixed
            };
            let second = self.second_runs(&emitted, &dir, round, order)?;
            let (doomed, changed) = apply_verdicts(
                &mut class,
                &emitted,
                (&first, &second),
                (&mut dropped_assertions, &mut why),
            );
            if doomed.is_empty() && !changed {
                return Ok(Verified {
                    class,
                    emitted,
                    dropped_tests: dropped(total, &alive),
                    reasons,
                    dropped_assertions,
                    rounds: round,
                });
            }
            drop_tests(&mut class, &mut alive, &doomed);
        }
        // Out of rounds: keep nothing unverified.
        let doomed: BTreeSet<usize> = (0..class.tests.len()).collect();
        for t in &emit(&class).tests {
            why(&t.name, format!("still unstable after {MAX_ROUNDS} rounds"));
        }
        drop_tests(&mut class, &mut alive, &doomed);
        let emitted = emit(&class);
        Ok(Verified {
            class,
            emitted,
            dropped_tests: dropped(total, &alive),
            reasons,
            dropped_assertions,
            rounds: MAX_ROUNDS,
        })
    }
}

fn drop_tests(class: &mut TestClass, alive: &mut Vec<usize>, doomed: &BTreeSet<usize>) {
    let mut i = 0;
    class.tests.retain(|_| {
        let keep = !doomed.contains(&i);
        i += 1;
        keep
    });
    let mut j = 0;
    alive.retain(|_| {
        let keep = !doomed.contains(&j);
        j += 1;
        keep
    });
}

/// The input indexes not in `alive`.
fn dropped(total: usize, alive: &[usize]) -> Vec<usize> {
    (0..total).filter(|i| !alive.contains(i)).collect()
}
