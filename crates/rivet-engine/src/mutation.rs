//! Mutation analysis of a class's tests (`rivet mutate`, and the mutation stage of
//! `rivet generate`): the class's mutants from `rivet-mutate`, the suite run against them by
//! `rivet-verify`'s runner, and the score as PIT counts it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rivet_classfile::ClassName;
use rivet_junit::JUnitVersion;
use rivet_mutate::{MutableClass, MutantId, MutantRow, MutantStatus, MutationScore};
use rivet_verify::{CompiledSuite, MutantJob, MutantResult, MutationRunner, Verifier};

use crate::error::EngineError;
use crate::session::Session;

/// What `rivet mutate` scores.
#[derive(Debug, Clone)]
pub struct MutateConfig {
    pub classpath: String,
    /// The class whose mutants the tests face.
    pub class: ClassName,
    /// A directory of JUnit 5 or 4 test sources (searched recursively).
    pub tests: PathBuf,
    /// JUnit jars, when not Debian's.
    pub test_classpath: Option<String>,
    /// Where the work happens and stays (a temporary directory when None).
    pub keep_artifacts: Option<PathBuf>,
}

/// A test's time limit on a mutant: its time on the original code, times this, plus
/// [`LIMIT_CONSTANT`] (PIT uses 1.25 and 4 s).
const LIMIT_FACTOR: f64 = 2.0;
const LIMIT_CONSTANT: Duration = Duration::from_millis(1000);
/// The reach run's time limit.
const REACH_LIMIT: Duration = Duration::from_secs(300);

pub(crate) fn verify_error(
    class: &ClassName,
) -> impl Fn(rivet_verify::VerifyError) -> EngineError + '_ {
    move |source| EngineError::Verify {
        class: class.clone(),
        source: Box::new(source),
    }
}

/// A verifier with the JUnit 5 and JUnit 4 jars both (a suite may use either).
fn any_junit_verifier(session: &Session, test_classpath: Option<&str>) -> Option<Verifier> {
    let mut v = session.verifier(JUnitVersion::Five, test_classpath, None)?;
    if let Some(four) = session.verifier(JUnitVersion::Four, test_classpath, None) {
        for e in four.junit.classpath {
            if !v.junit.classpath.contains(&e) {
                v.junit.classpath.push(e);
            }
        }
    }
    Some(v)
}

/// The `.java` files under `dir`, sorted.
fn java_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            java_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "java") {
            out.push(p);
        }
    }
}

/// The binary name of the top-level class a source file declares (its package and file name).
fn source_class(path: &Path) -> Option<ClassName> {
    let text = std::fs::read_to_string(path).ok()?;
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let package = text.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("package ")
            .map(|p| p.trim_end_matches(';').trim().to_string())
    });
    Some(match package {
        Some(p) if !p.is_empty() => ClassName::from_binary(&format!("{p}.{stem}")),
        _ => ClassName::from_binary(&stem),
    })
}

/// `rivet mutate`: scores the suite in `config.tests` against the class's mutants.
pub fn mutate(config: &MutateConfig) -> Result<MutationScore, EngineError> {
    let bad = EngineError::BadInput;
    let session = Session::open(&config.classpath)?;
    let class = &config.class;
    let bytes = class_files(&session, class)?;
    let mut sources = Vec::new();
    let tests_dir = std::path::absolute(&config.tests).unwrap_or_else(|_| config.tests.clone());
    java_sources(&tests_dir, &mut sources);
    if sources.is_empty() {
        return Err(bad(format!(
            "no Java test sources in {}",
            config.tests.display()
        )));
    }
    let verifier =
        any_junit_verifier(&session, config.test_classpath.as_deref()).ok_or_else(|| {
            bad("no JUnit jars found (install Debian's junit5, or pass --test-classpath)".into())
        })?;
    let temp;
    let work = match &config.keep_artifacts {
        Some(d) => std::path::absolute(d).unwrap_or_else(|_| d.clone()),
        None => {
            temp = tempfile_dir()?;
            temp.clone()
        }
    };
    let _cleanup = TempGuard(config.keep_artifacts.is_none().then(|| work.clone()));
    let classes = work.join("test-classes");
    let errors = verifier
        .compile_sources(&sources, &classes, &work, &[])
        .map_err(verify_error(class))?;
    if let Some((file, e)) = errors.first() {
        let at = match e.line {
            Some(l) => format!("{file}:{l}: "),
            None => String::new(),
        };
        return Err(bad(format!(
            "the tests in {} do not compile ({} errors): {at}{}",
            config.tests.display(),
            errors.len(),
            e.message
        )));
    }
    let suite = CompiledSuite {
        classes,
        test_classes: sources.iter().filter_map(|s| source_class(s)).collect(),
    };
    let runner = verifier
        .mutation_runner(&work)
        .map_err(verify_error(class))?;
    Ok(score(&runner, &bytes, &suite, None, false)?.0)
}

/// The class files of `class` and the classes nested in it (whose mutants count as the
/// class's, as JaCoCo counts their branches).
pub(crate) fn class_files(
    session: &Session,
    class: &ClassName,
) -> Result<Vec<Vec<u8>>, EngineError> {
    let bad = EngineError::BadInput;
    let mut out = Vec::new();
    for c in rivet_strategy::goal_classes(&session.classpath, class, None, &[])? {
        let bytes = session
            .classpath
            .class_bytes(c.internal())
            .map_err(|e| bad(format!("class {}: {e}", c.binary())))?
            .ok_or_else(|| bad(format!("class {} is not on the classpath", c.binary())))?;
        out.push(bytes);
    }
    Ok(out)
}

/// Mutation JVMs side by side: one per core, at most four.
fn lanes() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

/// A fresh temporary directory.
pub(crate) fn tempfile_dir() -> Result<PathBuf, EngineError> {
    let base = std::env::temp_dir().join(format!(
        "rivet-mutate-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&base).map_err(|source| EngineError::Write {
        path: base.clone(),
        source,
    })?;
    Ok(base)
}

/// Removes a temporary directory when dropped.
pub(crate) struct TempGuard(pub(crate) Option<PathBuf>);

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(d) = &self.0 {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// Scores a compiled suite against the mutants of the class in `bytes`; mutants not run
/// within `budget` are `NOT_RUN` (not counted). In `matrix` mode every test reaching a mutant
/// runs against it (not only until one fails). The score and each mutant's raw result.
pub(crate) fn score(
    runner: &MutationRunner<'_>,
    classes: &[Vec<u8>],
    suite: &CompiledSuite,
    budget: Option<Duration>,
    matrix: bool,
) -> Result<(MutationScore, BTreeMap<u32, MutantResult>), EngineError> {
    let started = Instant::now();
    let mutable: Vec<MutableClass> = classes
        .iter()
        .map(|b| MutableClass::parse(b).map_err(|e| EngineError::BadInput(e.to_string())))
        .collect::<Result<_, _>>()?;
    let Some(class) = mutable.first().map(|m| m.name.clone()) else {
        return Err(EngineError::BadInput("no class file to mutate".into()));
    };
    // One numbering over the classes: each class's mutants from its offset.
    let mut offsets = Vec::with_capacity(mutable.len());
    let mut reach_classes = Vec::with_capacity(mutable.len());
    let mut n = 0u32;
    for m in &mutable {
        offsets.push(n);
        let bytes = m.reach_bytes(n).map_err(|e| EngineError::Internal {
            class: m.name.clone(),
            reason: e.to_string(),
        })?;
        reach_classes.push((m.name.clone(), bytes));
        n += m.mutants.len() as u32;
    }
    let reach_limit = budget.map_or(REACH_LIMIT, |b| b.min(REACH_LIMIT));
    let reach = runner
        .reach(suite, n as usize, &reach_classes, reach_limit)
        .map_err(verify_error(&class))?;
    if reach.is_empty() {
        return Err(EngineError::BadInput(format!(
            "no JUnit test of {} ran",
            suite
                .test_classes
                .first()
                .map_or_else(|| "the suite".to_string(), ClassName::binary)
        )));
    }
    if let Some(failing) = reach.iter().find(|t| !t.passed) {
        return Err(EngineError::BadInput(format!(
            "the tests fail on the unmutated {class}: {} fails",
            failing.test
        )));
    }
    // Per mutant, the tests reaching it, fastest first.
    let mut reaching: BTreeMap<u32, Vec<(u64, &str)>> = BTreeMap::new();
    for t in &reach {
        for &m in &t.reached {
            reaching.entry(m).or_default().push((t.micros, &t.test));
        }
    }
    let mut jobs = Vec::new();
    let mut rows: BTreeMap<u32, MutantRow> = BTreeMap::new();
    let mut mutants = BTreeMap::new();
    for (mc, &offset) in mutable.iter().zip(&offsets) {
        for m in &mc.mutants {
            let id = offset + m.id.0;
            mutants.insert(id, m);
            let mut tests = reaching.remove(&id).unwrap_or_default();
            if tests.is_empty() {
                rows.insert(id, MutantRow::new(m, MutantStatus::NoCoverage, None, 0));
                continue;
            }
            tests.sort();
            match mc.mutant_bytes(MutantId(m.id.0)) {
                Ok(class_file) => {
                    let slowest = tests.iter().map(|t| t.0).max().unwrap_or(0);
                    let limit =
                        Duration::from_micros(slowest).mul_f64(LIMIT_FACTOR) + LIMIT_CONSTANT;
                    jobs.push(MutantJob {
                        id,
                        class: mc.name.clone(),
                        class_file,
                        tests: tests.iter().map(|t| t.1.to_string()).collect(),
                        limit,
                        matrix,
                    });
                }
                Err(e) => {
                    tracing::debug!(mutant = id, error = %e, "mutant not written");
                    rows.insert(id, MutantRow::new(m, MutantStatus::NonViable, None, 0));
                }
            }
        }
    }
    let left = budget.map_or(Duration::from_secs(3600 * 24), |b| {
        b.saturating_sub(started.elapsed())
    });
    let results = runner
        .run(suite, &class, n as usize, &jobs, (left, lanes()))
        .map_err(verify_error(&class))?;
    for job in &jobs {
        let Some(m) = mutants.get(&job.id) else {
            continue;
        };
        let (status, by) = match results.get(&job.id) {
            Some(MutantResult::Killed { test }) => (MutantStatus::Killed, Some(test.clone())),
            Some(MutantResult::Survived) => (MutantStatus::Survived, None),
            Some(MutantResult::TimedOut { test }) => (MutantStatus::TimedOut, Some(test.clone())),
            Some(MutantResult::RunError) => (MutantStatus::RunError, None),
            Some(MutantResult::NonViable { .. }) => (MutantStatus::NonViable, None),
            Some(MutantResult::Matrix(rows)) => {
                match rows.iter().find(|r| r.failed || !r.soft.is_empty()) {
                    Some(r) => (MutantStatus::Killed, Some(r.test.clone())),
                    None => (MutantStatus::Survived, None),
                }
            }
            None => (MutantStatus::NotRun, None),
        };
        rows.insert(job.id, MutantRow::new(m, status, by, job.tests.len()));
    }
    for (id, row) in rows.iter_mut() {
        row.id = *id;
    }
    let score = MutationScore::of(
        rows.into_values().collect(),
        started.elapsed().as_secs_f64(),
    );
    Ok((score, results))
}
