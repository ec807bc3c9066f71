//! The tools verification runs: javac on the emitted class (its copy in any order is made from
//! the class file, `any_order`) and the JUnit console launcher, each in a confined process
//! with its own directories, to the verifier's deadline; tests that hang, and tests that leave
//! files in the working directory (which stands for the developer's project directory), are
//! found by bisection.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rivet_junit::Emitted;
use tracing::debug;

use crate::any_order::copy_in_any_order;
use crate::archives::Tool;
use crate::process::{
    parse_javac, parse_reports, run_command, CompileError, RunReport, TestOutcome,
};
use crate::verify::{Verifier, VerifyError};

/// The fixed method order the emitter gives a JUnit 5 class.
pub(crate) use rivet_junit::FIXED_ORDER_5;

/// In which order a run executes the test methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Order {
    /// As the emitted class says.
    Fixed,
    /// Random, from this seed (JUnit 5 only: the copy without the fixed order).
    Any(u64),
}

/// How a run's JVM makes identity hash codes. They follow the JVM's flags and threads, so a
/// test whose outcome hangs on them (an `Ordering.arbitrary()`, an iteration over an identity
/// hash set) can pass every run with Rivet's flags and fail in the developer's build: the
/// second run of each round makes them otherwise (HotSpot's global random numbers instead of
/// its per-thread ones, and a number of them taken before the tests, another each round; a
/// third run beside it takes others again, see `second_runs`), so that such a test has more
/// chances to fail a run and be dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hashes {
    Default,
    Other { draws: u32 },
}

/// The source of the launcher's wrapper that takes the draws (`java/rivet/verify`), compiled
/// with the tests, then moved out of their classes.
const HASH_SHIFT: (&str, &str) = (
    "rivet/verify/HashShift.java",
    include_str!("../java/rivet/verify/HashShift.java"),
);

/// Where the compiled wrapper goes, beneath a verification's directory.
const HASH_SHIFT_DIR: &str = "hash-shift";

impl Hashes {
    /// The second run of round `round`: its own number of draws (1 to 4093).
    pub(crate) fn other(round: usize) -> Hashes {
        let mixed = (round as u64 + 1).wrapping_mul(2_654_435_761) % 4093;
        Hashes::Other {
            draws: 1 + mixed as u32,
        }
    }

    /// The JVM flags that make them so.
    fn flags(self) -> &'static [&'static str] {
        match self {
            Hashes::Default => &[],
            Hashes::Other { .. } => &["-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=0"],
        }
    }
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
/// The run numbers of the third runs (`run-N` directories) start here, past every round's
/// first and second.
const THIRD_RUNS: usize = 10_000;

/// The console launcher's output: no banner, no tree of tests, no colours (the reports say it).
pub(crate) const LAUNCHER_QUIET: [&str; 3] = [
    "--disable-banner",
    "--details=none",
    "--disable-ansi-colors",
];

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

/// The names of the entries in `dir` (sorted), removing them; at most ten are named.
fn left_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for e in entries.flatten() {
        let path = e.path();
        let _ = if path.is_dir() {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        names.push(e.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    if names.len() > 10 {
        let more = names.len() - 10;
        names.truncate(10);
        names.push(format!("{more} more"));
    }
    names
}

impl Verifier {
    /// The confinement of a javac or JUnit JVM: writes only beneath `writable`, no TCP, no
    /// signals outside, no programs but the JDK's.
    fn confinement(program: &Path, writable: Vec<PathBuf>) -> rivet_sandbox::Confinement {
        rivet_sandbox::Confinement::for_jvm(program, writable)
    }

    pub(crate) fn classpath_string(&self, extra: &[&Path]) -> String {
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

    /// Compiles the emitted class into `dir/classes` and, for JUnit 5, makes the copy without
    /// its fixed method order in `dir/classes-any-order` (from the class file, not a second
    /// javac run); javac's errors (empty on success).
    pub fn compile(&self, emitted: &Emitted, dir: &Path) -> Result<Vec<CompileError>, VerifyError> {
        let errors = self.javac(emitted, dir)?;
        if errors.is_empty() && emitted.source.contains(FIXED_ORDER_5) {
            let any = Order::Any(0).dir("classes");
            copy_in_any_order(
                &dir.join(Order::Fixed.dir("classes")),
                &dir.join(any),
                &emitted.qualified_name(),
            )?;
        }
        Ok(errors)
    }

    fn javac(&self, emitted: &Emitted, dir: &Path) -> Result<Vec<CompileError>, VerifyError> {
        let (source, order) = (&emitted.source, Order::Fixed);
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
        // The JVM's class-data archive, or the place it writes one (`archives`).
        let dump = dir.join("javac-archive");
        std::fs::create_dir_all(&dump).map_err(io("creating the archive's directory"))?;
        let startup = self.startup((&self.javac, Tool::Javac, None), Some(&dump));
        let mut cmd = Command::new(&self.javac);
        // A small compile: a quick start matters more than peak speed.
        cmd.args([
            "-J-XX:TieredStopAtLevel=1",
            "-J-XX:+UseSerialGC",
            "-J-Xshare:auto",
        ])
        .args(startup.flags().iter().map(|f| format!("-J{f}")))
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
        // The wrapper of the runs with other identity hash codes, beside the tests.
        let shift = src.join(HASH_SHIFT.0);
        if let Some(parent) = shift.parent() {
            std::fs::create_dir_all(parent).map_err(io("creating the source directory"))?;
        }
        std::fs::write(&shift, HASH_SHIFT.1).map_err(io("writing the launcher's wrapper"))?;
        cmd.arg(&shift);
        let confinement = Self::confinement(&self.javac, vec![classes.clone(), dump]);
        // javac runs no code under test (-proc:none): its own limit, not the deadline.
        let what = order.dir("javac");
        let ran = run_command((&mut cmd, &confinement), dir, self.time_limit, &what);
        startup.finish(ran.as_ref().is_ok_and(|(ok, _, _)| *ok));
        let (ok, _out, err) = ran?;
        if ok {
            // The wrapper goes to a directory of its own, the JVM's class path in those runs
            // (the tests must stay in the launcher's loader, with the classes they test).
            let built = classes.join(HASH_SHIFT.0.replace(".java", ".class"));
            let shift = dir
                .join(HASH_SHIFT_DIR)
                .join(HASH_SHIFT.0.replace(".java", ".class"));
            if let Some(parent) = shift.parent() {
                std::fs::create_dir_all(parent).map_err(io("creating the wrapper's directory"))?;
            }
            std::fs::rename(&built, &shift).map_err(io("moving the launcher's wrapper"))?;
            let _ = std::fs::remove_dir(classes.join("rivet/verify"));
            let _ = std::fs::remove_dir(classes.join("rivet"));
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
        self.run_in_order(emitted, dir, round, (Order::Fixed, Hashes::Default))
    }

    /// As `run`, with the identity hash codes of the second run of round `round` (the order
    /// the emitted class fixes).
    pub fn run_with_other_hashes(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
    ) -> Result<RunReport, VerifyError> {
        self.run_in_order(
            emitted,
            dir,
            2 * round + 1,
            (Order::Fixed, Hashes::other(round)),
        )
    }

    pub(crate) fn run_in_order(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
        order: (Order, Hashes),
    ) -> Result<RunReport, VerifyError> {
        let limit = self.limit(self.time_limit);
        match self.run_selected(emitted, dir, &format!("run-{round}"), None, limit, order) {
            Err(e @ (VerifyError::TimedOut { .. } | VerifyError::LeftFiles { .. })) => {
                debug!(class = %emitted.qualified_name(), %e, "bisecting");
            }
            other => return other,
        }
        self.find_culprits(emitted, dir, round, order)
    }

    /// The second runs of round `round`, side by side: in `order` with other identity hash
    /// codes, and in the emitted order with others again. A test whose outcome hangs on the
    /// codes (`Ordering.arbitrary()` in a range of guava's `TreeMultiset`) passed Rivet's runs
    /// and failed about one developer's run in three; each run with other codes is one more
    /// chance to see it fail. Per test, the first failure of the two (else its pass).
    pub(crate) fn second_runs(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
        order: Order,
    ) -> Result<RunReport, VerifyError> {
        let (second, third) = std::thread::scope(|s| {
            let third = s.spawn(|| {
                let hashes = Hashes::other(round + THIRD_RUNS);
                self.run_in_order(emitted, dir, THIRD_RUNS + round, (Order::Fixed, hashes))
            });
            let second =
                self.run_in_order(emitted, dir, 2 * round + 1, (order, Hashes::other(round)));
            (second, third.join())
        });
        let mut report = second?;
        let third = third.map_err(|_| VerifyError::Io {
            what: "running the tests with other identity hash codes".into(),
            source: std::io::Error::other("the running thread panicked"),
        })??;
        for (name, outcome) in third.tests {
            let failed_before = report.tests.get(&name).is_some_and(|o| !o.passed);
            if !failed_before && (!outcome.passed || !report.tests.contains_key(&name)) {
                report.tests.insert(name, outcome);
            }
        }
        Ok(report)
    }

    /// `base`, or less when the deadline is nearer.
    pub(crate) fn limit(&self, base: Duration) -> Duration {
        match self.deadline {
            Some(d) => base.min(d.saturating_duration_since(Instant::now())),
            None => base,
        }
    }

    /// Finds the tests that hang, or leave files in the working directory, by bisection, two
    /// subsets at a time in parallel: a subset that ends in time and leaves nothing reports
    /// its tests, one that does not is split in halves, a single test that does not is
    /// reported failed. Tests not cleared by the deadline are reported failed too.
    fn find_culprits(
        &self,
        emitted: &Emitted,
        dir: &Path,
        round: usize,
        order: (Order, Hashes),
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
                // The run's time bound, not the tests: say so rather than "timed out after 0 s".
                let unrun = TestOutcome {
                    message: Some("not cleared: the run's time bound was reached".into()),
                    ..hung(limit)
                };
                for n in pending.drain(..).flatten() {
                    report.tests.insert(n.to_string(), unrun.clone());
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
                    Err(VerifyError::LeftFiles { files, .. }) if set.len() == 1 => {
                        let wrote = TestOutcome {
                            passed: false,
                            message: Some(format!(
                                "creates files outside its temporary directory (in the working directory: {files})"
                            )),
                            line: None,
                            timed_out: false,
                        };
                        report.tests.insert(set[0].to_string(), wrote);
                    }
                    Err(VerifyError::TimedOut { .. } | VerifyError::LeftFiles { .. }) => {
                        pending.extend(halves(&set))
                    }
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
        (order, hashes): (Order, Hashes),
    ) -> Result<RunReport, VerifyError> {
        let work = dir.join(name);
        let _ = std::fs::remove_dir_all(&work);
        // Writable: the reports, the JVM's temp dir, and the working directory, which is
        // empty and stands for the developer's project directory (where `mvn test` runs):
        // a test must leave nothing there.
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
        let classes = dir.join(order.dir("classes"));
        let selector: Vec<String> = match methods {
            Some(ms) => ms
                .iter()
                .flat_map(|m| {
                    // JUnit finds a method with parameters by their types only.
                    let parameters = emitted
                        .tests
                        .iter()
                        .find(|t| t.name == *m)
                        .map(|t| t.parameter_types.as_str())
                        .filter(|p| !p.is_empty());
                    let method = match parameters {
                        Some(p) => format!("{m}({p})"),
                        None => m.to_string(),
                    };
                    [
                        "--select-method".to_string(),
                        format!("{}#{method}", emitted.qualified_name()),
                    ]
                })
                .collect(),
            None => vec![
                "--select-class".to_string(),
                emitted.qualified_name().binary(),
            ],
        };
        // A home directory of the run's own (not writable), as the workers have.
        let home = work.join("home");
        let _ = std::fs::create_dir_all(&home);
        let launcher = std::path::absolute(&self.junit.launcher)
            .unwrap_or_else(|_| self.junit.launcher.clone());
        let startup = self.launcher_startup(&launcher, dir);
        let mut cmd = Command::new(&self.java);
        cmd.arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            .arg(format!("-Duser.home={}", home.display()))
            .env("HOME", &home)
            .args([
                "-XX:-UsePerfData",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
            ])
            .args(hashes.flags())
            .args(startup.flags());
        match hashes {
            Hashes::Default => {
                cmd.arg("-jar").arg(launcher);
            }
            Hashes::Other { draws } => {
                let shift = dir.join(HASH_SHIFT_DIR);
                let own = std::path::absolute(&shift).unwrap_or(shift);
                let path = std::env::join_paths([launcher, own]).map_err(|e| VerifyError::Io {
                    what: "joining the launcher's class path".into(),
                    source: std::io::Error::other(e),
                })?;
                cmd.arg("-cp")
                    .arg(path)
                    .arg("rivet.verify.HashShift")
                    .arg(draws.to_string());
            }
        }
        cmd.arg("--class-path")
            .arg(self.classpath_string(&[&classes]))
            .args(selector)
            .arg("--reports-dir")
            .arg(&reports)
            .args(LAUNCHER_QUIET)
            .current_dir(&cwd);
        if let Order::Any(seed) = order {
            cmd.args([
                "--config",
                "junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random",
                "--config",
            ])
            .arg(format!("junit.jupiter.execution.order.random.seed={seed}"));
        }
        let confinement = Self::confinement(&self.java, vec![out, cwd.clone()]);
        run_command((&mut cmd, &confinement), &work, limit, "junit")?;
        let left = left_files(&cwd);
        if !left.is_empty() {
            return Err(VerifyError::LeftFiles {
                class: emitted.qualified_name(),
                files: left.join(", "),
            });
        }
        Ok(parse_reports(
            &reports,
            &emitted.qualified_name(),
            &format!("{}.java", emitted.class_name),
        ))
    }
}
