//! The verification loop: emit, compile, run twice; drop what does not compile, drop
//! assertions that fail, drop tests that fail elsewhere or differ between runs; repeat until
//! both runs pass.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rivet_junit::{emit, Emitted, TestClass};
use rivet_testcase::Assertion;
use tracing::{debug, info_span, warn};

use crate::junit::JUnitSetup;
use crate::process::{
    parse_javac, parse_reports, run_command, CompileError, RunReport, TestOutcome,
};
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
    #[error("the generated test class {class} does not compile: {message}")]
    DoesNotCompile { class: String, message: String },
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

const MAX_ROUNDS: usize = 8;
/// The fixed method order the emitter gives a JUnit 5 class.
const FIXED_ORDER_5: &str =
    "@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.MethodName.class)";

/// In which order a run executes the test methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Order {
    /// By name, as the emitted class says.
    Fixed,
    /// Random, from this seed (JUnit 5 only: the copy without the fixed order).
    Any(u64),
}

impl Order {
    /// The directory of this order's sources or classes (`classes`, `classes-any-order`).
    fn dir(self, base: &str) -> String {
        match self {
            Order::Fixed => base.to_string(),
            Order::Any(_) => format!("{base}-any-order"),
        }
    }
}
/// Time limit of one bisection run (a subset of the tests in a fresh JVM).
const SUBSET_LIMIT: Duration = Duration::from_secs(15);
/// Below this, a run is not started.
const MIN_RUN: Duration = Duration::from_secs(2);

/// The two halves of a set of tests (one when it has a single test).
fn halves<'a>(set: &[&'a str]) -> Vec<Vec<&'a str>> {
    if set.len() <= 1 {
        return vec![set.to_vec()];
    }
    let (a, b) = set.split_at(set.len() / 2);
    vec![a.to_vec(), b.to_vec()]
}

impl Verifier {
    /// Confines a javac or JUnit JVM: writes only beneath `writable`, no TCP, no signals
    /// outside, no programs but the JDK's.
    fn confine(
        &self,
        cmd: &mut Command,
        program: &Path,
        writable: PathBuf,
    ) -> Result<(), VerifyError> {
        rivet_sandbox::Confinement::for_jvm(program, vec![writable])
            .apply(cmd)
            .map(|_| ())
            .map_err(|source| VerifyError::Sandbox {
                what: program.display().to_string(),
                source,
            })
    }

    fn classpath_string(&self, extra: &[&Path]) -> String {
        // The tools run in their own working directory: relative entries are made absolute.
        let abs = |p: &Path| {
            std::path::absolute(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string()
        };
        let mut parts: Vec<String> = extra.iter().map(|p| abs(p)).collect();
        parts.extend(self.classpath.iter().map(|p| abs(p)));
        parts.extend(self.junit.classpath.iter().map(|p| abs(p)));
        parts.join(":")
    }

    /// Compiles the emitted class into `dir/classes` and, for JUnit 5, a copy without its fixed
    /// method order into `dir/classes-any-order`; javac's errors (empty on success).
    pub fn compile(&self, emitted: &Emitted, dir: &Path) -> Result<Vec<CompileError>, VerifyError> {
        if !emitted.source.contains(FIXED_ORDER_5) {
            return self.compile_variant(&emitted.source, emitted, dir, Order::Fixed);
        }
        // Same lines, so that failures map to the same tests and assertions; both compiled
        // at once.
        let any = emitted
            .source
            .replace(FIXED_ORDER_5, "// (run in any order)");
        let (fixed, other) = std::thread::scope(|s| {
            let other = s.spawn(|| self.compile_variant(&any, emitted, dir, Order::Any(0)));
            let fixed = self.compile_variant(&emitted.source, emitted, dir, Order::Fixed);
            (fixed, other.join())
        });
        let errors = fixed?;
        if !errors.is_empty() {
            return Ok(errors);
        }
        match other {
            Ok(r) => r,
            Err(_) => Err(VerifyError::Io {
                what: "compiling the copy in any order".into(),
                source: std::io::Error::other("the compiling thread panicked"),
            }),
        }
    }

    fn compile_variant(
        &self,
        source: &str,
        emitted: &Emitted,
        dir: &Path,
        order: Order,
    ) -> Result<Vec<CompileError>, VerifyError> {
        let src = dir.join(order.dir("src"));
        let classes = dir.join(order.dir("classes"));
        let path = src.join(emitted.relative_path());
        let io = |what: &str| {
            let what = what.to_string();
            move |source| VerifyError::Io {
                what: what.clone(),
                source,
            }
        };
        let _ = std::fs::remove_dir_all(&classes);
        std::fs::create_dir_all(&classes).map_err(io("creating the classes directory"))?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io("creating the source directory"))?;
        }
        std::fs::write(&path, source).map_err(io("writing the test source"))?;
        let mut cmd = Command::new(&self.javac);
        // A small compile: a quick start matters more than peak speed.
        cmd.args([
            "-J-XX:TieredStopAtLevel=1",
            "-J-XX:+UseSerialGC",
            "-J-Xshare:auto",
        ])
        .arg("-d")
        .arg(&classes)
        .arg("-cp")
        .arg(self.classpath_string(&[]))
        .args([
            "-encoding",
            "UTF-8",
            "-nowarn",
            "-proc:none",
            "-g",
            "-Xmaxerrs",
            "1000",
        ])
        .arg(&path);
        self.confine(&mut cmd, &self.javac, classes.clone())?;
        // javac runs no code under test (-proc:none): its own limit, not the deadline.
        let what = order.dir("javac");
        let (ok, _out, err) = run_command(&mut cmd, dir, self.time_limit, &what)?;
        if ok {
            return Ok(Vec::new());
        }
        let file_name = format!("{}.java", emitted.class_name);
        Ok(parse_javac(&err, &file_name))
    }

    /// Runs the compiled class with the console launcher in a fresh JVM and working
    /// directory. When the whole run exceeds the time limit, the tests that hang are found by
    /// bisection and reported failed.
    pub fn run(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
    ) -> Result<RunReport, VerifyError> {
        self.run_in_order(emitted, dir, round, Order::Fixed)
    }

    fn run_in_order(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
        order: Order,
    ) -> Result<RunReport, VerifyError> {
        let limit = self.limit(self.time_limit);
        match self.run_selected(emitted, dir, &format!("run-{round}"), None, limit, order) {
            Err(VerifyError::TimedOut { .. }) => {}
            other => return other,
        }
        debug!(class = %emitted.qualified_name(), "the tests hang: bisecting");
        self.find_hanging(emitted, dir, round, order)
    }

    /// `base`, or less when the deadline is nearer.
    fn limit(&self, base: Duration) -> Duration {
        match self.deadline {
            Some(d) => base.min(d.saturating_duration_since(Instant::now())),
            None => base,
        }
    }

    /// Finds the tests that hang by bisection, two subsets at a time in parallel: a subset
    /// that ends in time reports its tests, one that does not is split in halves, a single
    /// test that does not is reported failed. Tests not cleared by the deadline are reported
    /// failed too.
    fn find_hanging(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
        order: Order,
    ) -> Result<RunReport, VerifyError> {
        let names: Vec<&str> = emitted.tests.iter().map(|t| t.name.as_str()).collect();
        let mut report = RunReport::default();
        let mut pending: Vec<Vec<&str>> = halves(&names);
        let mut runs = 0;
        let hung = |limit: Duration| TestOutcome {
            passed: false,
            message: Some(format!("timed out after {} s", limit.as_secs())),
            line: None,
            timed_out: true,
        };
        while !pending.is_empty() {
            let limit = self.limit(SUBSET_LIMIT.min(self.time_limit));
            if limit < MIN_RUN {
                for n in pending.drain(..).flatten() {
                    report.tests.insert(n.to_string(), hung(limit));
                }
                break;
            }
            let batch: Vec<Vec<&str>> = pending.drain(..pending.len().min(2)).collect();
            let results: Vec<Result<RunReport, VerifyError>> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .iter()
                    .map(|set| {
                        runs += 1;
                        let name = format!("run-{round}-{runs}");
                        s.spawn(move || {
                            self.run_selected(emitted, dir, &name, Some(set), limit, order)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(VerifyError::TimedOut {
                                what: "a bisection run".into(),
                                seconds: limit.as_secs(),
                            })
                        })
                    })
                    .collect()
            });
            for (set, r) in batch.into_iter().zip(results) {
                match r {
                    Ok(r) => report.tests.extend(r.tests),
                    Err(VerifyError::TimedOut { .. }) if set.len() == 1 => {
                        report.tests.insert(set[0].to_string(), hung(limit));
                    }
                    Err(VerifyError::TimedOut { .. }) => pending.extend(halves(&set)),
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(report)
    }

    /// One launcher run of the class, or of one of its methods.
    fn run_selected(
        &self,
        emitted: &Emitted,
        dir: &Path,
        name: &str,
        methods: Option<&[&str]>,
        limit: Duration,
        order: Order,
    ) -> Result<RunReport, VerifyError> {
        let work = dir.join(name);
        let _ = std::fs::remove_dir_all(&work);
        // Writable: the reports and the JVM's temp dir; the working directory is empty,
        // read-only and outside them, so relative paths of the code under test land nowhere.
        let out = work.join("out");
        let reports = out.join("reports");
        let tmp = out.join("tmp");
        let cwd = work.join("cwd");
        for d in [&reports, &tmp, &cwd] {
            std::fs::create_dir_all(d).map_err(|source| VerifyError::Io {
                what: "creating the run directory".into(),
                source,
            })?;
        }
        let _ = std::fs::set_permissions(&cwd, std::fs::Permissions::from_mode(0o555));
        let classes = dir.join(order.dir("classes"));
        let selector: Vec<String> = match methods {
            Some(ms) => ms
                .iter()
                .flat_map(|m| {
                    [
                        "--select-method".to_string(),
                        format!("{}#{m}", emitted.qualified_name()),
                    ]
                })
                .collect(),
            None => vec!["--select-class".to_string(), emitted.qualified_name()],
        };
        let mut cmd = Command::new(&self.java);
        cmd.arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            .args([
                "-XX:-UsePerfData",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
            ])
            .arg("-jar")
            .arg(
                std::path::absolute(&self.junit.launcher)
                    .unwrap_or_else(|_| self.junit.launcher.clone()),
            )
            .arg("--class-path")
            .arg(self.classpath_string(&[&classes]))
            .args(selector)
            .arg("--reports-dir")
            .arg(&reports)
            .args([
                "--disable-banner",
                "--details=none",
                "--disable-ansi-colors",
            ])
            .current_dir(&cwd);
        if let Order::Any(seed) = order {
            cmd.args([
                "--config",
                "junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random",
                "--config",
            ])
            .arg(format!("junit.jupiter.execution.order.random.seed={seed}"));
        }
        self.confine(&mut cmd, &self.java, out)?;
        run_command(&mut cmd, &work, limit, "junit")?;
        Ok(parse_reports(
            &reports,
            &emitted.qualified_name(),
            &format!("{}.java", emitted.class_name),
        ))
    }

    /// Verifies `class`: returns the surviving tests, re-emitted.
    pub fn verify(&self, class: TestClass) -> Result<Verified, VerifyError> {
        let _span =
            info_span!("verify", class = %class.class_under_test, tests = class.tests.len())
                .entered();
        let temp;
        let dir: PathBuf = match &self.keep {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|source| VerifyError::Io {
                    what: "creating the artifacts directory".into(),
                    source,
                })?;
                d.clone()
            }
            None => {
                temp = tempfile::Builder::new()
                    .prefix("rivet-verify-")
                    .tempdir()
                    .map_err(|source| VerifyError::Io {
                        what: "creating a temporary directory".into(),
                        source,
                    })?;
                temp.path().to_path_buf()
            }
        };
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
            // after the tests before it is found and dropped.
            let order = if emitted.source.contains(FIXED_ORDER_5) {
                Order::Any(round as u64)
            } else {
                Order::Fixed
            };
            let second = self.run_in_order(&emitted, &dir, 2 * round + 1, order)?;
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
                            dropped_assertions += 1;
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
                            dropped_assertions += 1;
                            changed = true;
                        } else {
                            doomed.insert(t);
                        }
                    }
                }
            }
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
        for t in &class.tests {
            why(
                &t.subject,
                format!("still unstable after {MAX_ROUNDS} rounds"),
            );
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
