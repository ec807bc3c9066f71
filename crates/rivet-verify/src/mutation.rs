//! Running JUnit tests against mutants of a class, the way PIT does: one confined JVM runs the
//! whole suite once against the class with reach probes (which test reaches which mutant),
//! then, per mutant, only the tests that reach it, in a class loader of its own, until one
//! fails. A test that runs past its limit on a mutant halts that JVM (the mutant timed out);
//! one that ends the JVM otherwise is a run error; a new JVM takes the mutants left.

use rivet_classfile::ClassName;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::{parse_javac, run_command, CompileError};
use crate::verify::{Verifier, VerifyError};

const RUNNER_SOURCES: [(&str, &str); 3] = [
    (
        "rivet/mutation/Soft.java",
        include_str!("../java/rivet/mutation/Soft.java"),
    ),
    (
        "rivet/mutation/Reach.java",
        include_str!("../java/rivet/mutation/Reach.java"),
    ),
    (
        "rivet/mutation/MutationRunner.java",
        include_str!("../java/rivet/mutation/MutationRunner.java"),
    ),
];

/// A compiled test suite: the directory of its classes and its test classes' binary names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledSuite {
    pub classes: PathBuf,
    pub test_classes: Vec<ClassName>,
}

/// What one test did against the class with reach probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestReach {
    /// `pkg.FooTest#method(parameter types)`.
    pub test: String,
    pub micros: u64,
    pub passed: bool,
    /// The mutants whose instruction it executed.
    pub reached: Vec<u32>,
}

/// The class file of one mutant and the tests to run against it.
#[derive(Debug, Clone)]
pub struct MutantJob {
    pub id: u32,
    /// The class it mutates.
    pub class: ClassName,
    pub class_file: Vec<u8>,
    pub tests: Vec<String>,
    /// Limit per test.
    pub limit: Duration,
    /// Run every test (and report each one's failed soft assertions), not only until the
    /// first failure.
    pub matrix: bool,
}

/// One test against one mutant, in matrix mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixRow {
    pub test: String,
    /// The test failed (an exception, or an assertion that is not soft).
    pub failed: bool,
    /// The keys of the soft assertions that failed.
    pub soft: Vec<String>,
}

/// What the tests did to one mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MutantResult {
    Killed {
        test: String,
    },
    Survived,
    TimedOut {
        test: String,
    },
    /// The JVM ended while a test ran against it.
    RunError,
    /// The mutant did not load (a verify error).
    NonViable {
        message: String,
    },
    /// Matrix mode: every test's outcome.
    Matrix(Vec<MatrixRow>),
}

/// Runs suites against mutants, with the runner compiled into its work directory.
#[derive(Debug)]
pub struct MutationRunner<'v> {
    verifier: &'v Verifier,
    runner_classes: PathBuf,
    work: PathBuf,
    runs: std::sync::atomic::AtomicUsize,
}

impl Verifier {
    /// Compiles the Java sources of a test suite into `out`; javac's errors, with the file
    /// each is in, when it does not compile.
    pub fn compile_sources(
        &self,
        sources: &[PathBuf],
        out: &Path,
        dir: &Path,
        extra: &[&Path],
    ) -> Result<Vec<(String, CompileError)>, VerifyError> {
        std::fs::create_dir_all(out).map_err(|source| VerifyError::Io {
            what: "creating the classes directory".into(),
            source,
        })?;
        let mut cmd = Command::new(&self.javac);
        cmd.args(["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"])
            .arg("-d")
            .arg(out)
            .arg("-cp")
            .arg(self.classpath_string(extra))
            .args(["-encoding", "UTF-8", "-nowarn", "-proc:none", "-g"])
            .args(sources);
        let confinement = rivet_sandbox::Confinement::for_jvm(&self.javac, vec![out.to_path_buf()]);
        let limit = self.time_limit.max(Duration::from_secs(120));
        let (ok, _out, err) = run_command((&mut cmd, &confinement), dir, limit, "javac-suite")?;
        if ok {
            return Ok(Vec::new());
        }
        Ok(javac_errors(&err, sources))
    }

    /// A runner working in `work`, its Java classes compiled there.
    pub fn mutation_runner(&self, work: &Path) -> Result<MutationRunner<'_>, VerifyError> {
        let (runner, errors) = self.mutation_runner_with(work, &[])?;
        match errors.first() {
            None => Ok(runner),
            Some((_, e)) => Err(VerifyError::DoesNotCompile {
                class: "rivet.mutation.MutationRunner".into(),
                message: e.message.clone(),
            }),
        }
    }

    /// A runner working in `work`, its Java classes compiled there in one javac run with the
    /// test sources `tests` (into the same directory, [`MutationRunner::classes`]); javac's
    /// errors in the tests, with their file, when they do not compile.
    pub fn mutation_runner_with(
        &self,
        work: &Path,
        tests: &[PathBuf],
    ) -> Result<(MutationRunner<'_>, Vec<(String, CompileError)>), VerifyError> {
        let io = |what: &str| {
            let what = what.to_string();
            move |source| VerifyError::Io { what, source }
        };
        let src = work.join("runner-src");
        let mut files = Vec::new();
        for (rel, text) in RUNNER_SOURCES {
            let p = src.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(io("creating the runner's sources"))?;
            }
            std::fs::write(&p, text).map_err(io("writing the runner's sources"))?;
            files.push(p);
        }
        let classes = work.join("runner-classes");
        std::fs::create_dir_all(&classes).map_err(io("creating the runner's classes"))?;
        let mut cmd = Command::new(&self.javac);
        cmd.args(["-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-nowarn"])
            .args(["-encoding", "UTF-8", "-proc:none", "-g"])
            .arg("-d")
            .arg(&classes)
            .arg("-cp")
            .arg(self.classpath_string(&[&self.junit.launcher]))
            .args(&files)
            .args(tests);
        let confinement = rivet_sandbox::Confinement::for_jvm(&self.javac, vec![classes.clone()]);
        let limit = self.time_limit.max(Duration::from_secs(120));
        let (ok, _o, err) = run_command((&mut cmd, &confinement), work, limit, "javac-runner")?;
        let errors = if ok {
            Vec::new()
        } else {
            javac_errors(&err, tests)
        };
        let runner = MutationRunner {
            verifier: self,
            runner_classes: classes,
            work: work.to_path_buf(),
            runs: std::sync::atomic::AtomicUsize::new(0),
        };
        Ok((runner, errors))
    }
}

impl MutationRunner<'_> {
    /// The runner's own classes (`rivet.mutation.Soft` among them), and the tests compiled
    /// with them.
    pub fn classes(&self) -> &Path {
        &self.runner_classes
    }

    /// Runs the whole suite once against the classes with reach probes (binary name and
    /// class file each).
    pub fn reach(
        &self,
        suite: &CompiledSuite,
        mutants: usize,
        reach_classes: &[(ClassName, Vec<u8>)],
        limit: Duration,
    ) -> Result<Vec<TestReach>, VerifyError> {
        let dir = self.next_dir()?;
        let mut plan = self.plan_head(suite, mutants);
        for c in &suite.test_classes {
            plan.push_str(&format!("testclass\t{c}\n"));
        }
        for (i, (name, bytes)) in reach_classes.iter().enumerate() {
            let file = dir.join(format!("reach-{i}.class"));
            write(&file, bytes)?;
            plan.push_str(&format!("reach\t{name}\t{}\n", file.display()));
        }
        let out = self.run_plan(&dir, &plan, limit)?;
        Ok(out
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f.len() >= 4 && f[0] == "test").then(|| TestReach {
                    test: f[1].to_string(),
                    micros: f[2].parse().unwrap_or(0),
                    passed: f[3] == "pass",
                    reached: f
                        .get(4)
                        .map(|r| r.split(',').filter_map(|n| n.parse().ok()).collect())
                        .unwrap_or_default(),
                })
            })
            .collect())
    }

    /// Runs each job's tests against its mutant, in `lanes` JVMs side by side (jobs dealt
    /// round-robin); jobs left when `budget` runs out have no result.
    pub fn run(
        &self,
        suite: &CompiledSuite,
        target: &ClassName,
        mutants: usize,
        jobs: &[MutantJob],
        (budget, lanes): (Duration, usize),
    ) -> Result<BTreeMap<u32, MutantResult>, VerifyError> {
        let lanes = lanes.clamp(1, jobs.len().max(1));
        let parts: Vec<Vec<MutantJob>> = (0..lanes)
            .map(|l| jobs.iter().skip(l).step_by(lanes).cloned().collect())
            .collect();
        let results: Vec<Result<BTreeMap<u32, MutantResult>, VerifyError>> =
            std::thread::scope(|s| {
                let handles: Vec<_> = parts
                    .iter()
                    .map(|part| {
                        s.spawn(move || self.run_lane(suite, target, mutants, part, budget))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(VerifyError::Io {
                                what: format!("running mutants of {target}"),
                                source: std::io::Error::other("a mutation lane panicked"),
                            })
                        })
                    })
                    .collect()
            });
        let mut out = BTreeMap::new();
        for r in results {
            out.extend(r?);
        }
        Ok(out)
    }

    /// One JVM after another over `jobs` (a new one after a timeout or a run error).
    fn run_lane(
        &self,
        suite: &CompiledSuite,
        target: &ClassName,
        mutants: usize,
        jobs: &[MutantJob],
        budget: Duration,
    ) -> Result<BTreeMap<u32, MutantResult>, VerifyError> {
        let started = std::time::Instant::now();
        let mut results = BTreeMap::new();
        let mut left: Vec<&MutantJob> = jobs.iter().filter(|j| !j.tests.is_empty()).collect();
        while !left.is_empty() {
            let remaining = budget.saturating_sub(started.elapsed());
            if remaining < Duration::from_millis(500) {
                break;
            }
            let dir = self.next_dir()?;
            let mut plan = self.plan_head(suite, mutants);
            for j in &left {
                let file = dir.join(format!("m{}.class", j.id));
                write(&file, &j.class_file)?;
                plan.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\n",
                    if j.matrix { "matrix" } else { "mutant" },
                    j.id,
                    j.class,
                    file.display(),
                    j.limit.as_millis().max(1),
                    j.tests.join("\t")
                ));
            }
            let out = match self.run_plan(&dir, &plan, remaining) {
                Ok(out) => out,
                // Out of time: what it printed still counts.
                Err(VerifyError::TimedOut { .. }) => read(&dir.join("mutants.out")),
                Err(e) => return Err(e),
            };
            let mut started_id = None;
            let mut rows: Vec<MatrixRow> = Vec::new();
            for line in out.lines() {
                let f: Vec<&str> = line.split('\t').collect();
                let id = f.get(1).and_then(|n| n.parse::<u32>().ok());
                let test = || f.get(2).map(|t| t.to_string()).unwrap_or_default();
                let result = match (f[0], id) {
                    ("start", Some(id)) => {
                        started_id = Some(id);
                        rows.clear();
                        continue;
                    }
                    ("row", Some(_)) => {
                        rows.push(MatrixRow {
                            test: test(),
                            failed: f.get(3) == Some(&"fail"),
                            soft: f
                                .get(4)
                                .map(|s| {
                                    s.split(',')
                                        .filter(|k| !k.is_empty())
                                        .map(str::to_string)
                                        .collect()
                                })
                                .unwrap_or_default(),
                        });
                        continue;
                    }
                    ("done", Some(id)) => (id, MutantResult::Matrix(std::mem::take(&mut rows))),
                    ("killed", Some(id)) => (id, MutantResult::Killed { test: test() }),
                    ("survived", Some(id)) => (id, MutantResult::Survived),
                    ("timeout", Some(id)) => (id, MutantResult::TimedOut { test: test() }),
                    ("nonviable", Some(id)) => (id, MutantResult::NonViable { message: test() }),
                    _ => continue,
                };
                results.insert(result.0, result.1);
                started_id = None;
            }
            // A JVM that ended with a mutant started and no result: that mutant's run error.
            if let Some(id) = started_id {
                if started.elapsed() < budget {
                    results.insert(id, MutantResult::RunError);
                }
            }
            let before = left.len();
            left.retain(|j| !results.contains_key(&j.id));
            if started.elapsed() >= budget {
                break;
            }
            if left.len() == before {
                // Nothing came back: the runner itself is broken.
                return Err(VerifyError::Io {
                    what: format!("running mutants of {target}"),
                    source: std::io::Error::other(
                        read(&dir.join("mutants.err"))
                            .lines()
                            .next()
                            .unwrap_or("the mutation runner reported nothing")
                            .to_string(),
                    ),
                });
            }
        }
        Ok(results)
    }

    fn next_dir(&self) -> Result<PathBuf, VerifyError> {
        let n = self.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let dir = self.work.join(format!("run-{n}"));
        for d in ["tmp", "home", "cwd"] {
            std::fs::create_dir_all(dir.join(d)).map_err(|source| VerifyError::Io {
                what: "creating a mutation run's directories".into(),
                source,
            })?;
        }
        Ok(dir)
    }

    fn plan_head(&self, suite: &CompiledSuite, mutants: usize) -> String {
        let mut plan = format!("mutants\t{mutants}\n");
        let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        plan.push_str(&format!("cp\t{}\n", abs(&suite.classes).display()));
        for e in &self.verifier.classpath {
            plan.push_str(&format!("cp\t{}\n", abs(e).display()));
        }
        plan
    }

    /// Runs the runner on a plan in `dir` (confined, writing only its own directories); its
    /// standard output.
    fn run_plan(&self, dir: &Path, plan: &str, limit: Duration) -> Result<String, VerifyError> {
        let plan_file = dir.join("plan.tsv");
        write(&plan_file, plan.as_bytes())?;
        let v = self.verifier;
        let mut cp = vec![
            self.runner_classes.display().to_string(),
            v.junit.launcher.display().to_string(),
        ];
        cp.extend(v.junit.classpath.iter().map(|p| p.display().to_string()));
        let (tmp, home, cwd) = (dir.join("tmp"), dir.join("home"), dir.join("cwd"));
        let mut cmd = Command::new(&v.java);
        cmd.arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            .arg(format!("-Duser.home={}", home.display()))
            .env("HOME", &home)
            .args(["-XX:-UsePerfData", "-XX:+UseSerialGC", "-Xss4m"])
            .arg("-cp")
            .arg(cp.join(":"))
            .arg("rivet.mutation.MutationRunner")
            .arg(&plan_file)
            .current_dir(&cwd);
        let confinement = rivet_sandbox::Confinement::for_jvm(&v.java, vec![tmp, cwd]);
        run_command((&mut cmd, &confinement), dir, limit, "mutants")?;
        Ok(read(&dir.join("mutants.out")))
    }
}

/// javac's errors in `files`, each with its file name; javac's first lines when none of them
/// names one of the files.
fn javac_errors(err: &str, files: &[PathBuf]) -> Vec<(String, CompileError)> {
    let mut errors = Vec::new();
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        errors.extend(
            parse_javac(err, &name)
                .into_iter()
                .map(|e| (name.clone(), e)),
        );
    }
    if errors.is_empty() {
        let message = err.lines().take(3).collect::<Vec<_>>().join(" ");
        let message = if message.is_empty() {
            "javac failed".to_string()
        } else {
            message
        };
        errors.push((
            String::new(),
            CompileError {
                line: None,
                message,
            },
        ));
    }
    errors
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), VerifyError> {
    std::fs::write(path, bytes).map_err(|source| VerifyError::Io {
        what: format!("writing {}", path.display()),
        source,
    })
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}
