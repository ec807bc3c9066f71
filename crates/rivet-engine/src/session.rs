//! A generation session: the JDK, the user's classpath, the instrumented copy of the classes
//! under test and one pool of worker JVMs that the classes of a run share.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rivet_classfile::ClassName;
use rivet_classpath::{Classpath, JdkImage};
use rivet_instrument::{instrument_cached, CacheLease, InstrumentConfig, ProbeMap, ProbeScope};
use rivet_junit::JUnitVersion;
use rivet_testcase::{Statement, StatementOutcome, TestCase, UNRUNNABLE_CLASS};
use rivet_verify::{locate_junit, Verifier, DEBIAN_JAVA};
use rivet_worker::{WorkerConfig, WorkerPool};

use crate::error::EngineError;

/// The JDK and the user's classpath.
pub struct Session {
    pub jdk_home: PathBuf,
    pub classpath: Arc<Classpath>,
    /// The classpath's directories and jars.
    pub entries: Vec<PathBuf>,
}

/// Instrumented classes and the workers that run tests over them.
pub struct Workers {
    pub probes: ProbeMap,
    pub pool: WorkerPool,
    /// Keeps the instrumented classes in the cache while the workers use them.
    pub lease: Arc<CacheLease>,
}

impl Session {
    /// Opens the running JDK and the user's classpath (`:`-separated).
    pub fn open(classpath: &str) -> Result<Session, EngineError> {
        let bad = |e: String| EngineError::BadInput(e);
        let jdk_home = rivet_classpath::find_home().map_err(|e| bad(e.to_string()))?;
        let jdk = Arc::new(JdkImage::open(&jdk_home).map_err(|e| bad(e.to_string()))?);
        let classpath =
            Arc::new(Classpath::parse(classpath, Some(jdk)).map_err(|e| bad(e.to_string()))?);
        let entries: Vec<PathBuf> = classpath
            .entries()
            .iter()
            .map(|e| std::path::absolute(e.path()).unwrap_or_else(|_| e.path().to_path_buf()))
            .collect();
        if entries.is_empty() {
            return Err(bad("the classpath names no directory or jar".into()));
        }
        Ok(Session {
            jdk_home,
            classpath,
            entries,
        })
    }

    /// Instruments `classes` (and their nested classes; cached per input under `cache_root`)
    /// and starts `workers` JVMs over them (None: one per core).
    pub fn start_workers(
        &self,
        classes: &[ClassName],
        cache_root: &Path,
        workers: Option<usize>,
    ) -> Result<Workers, EngineError> {
        let name = classes.first().cloned();
        let config = InstrumentConfig {
            scope: ProbeScope::Classes(classes.to_vec()),
            threads: 0,
            ..InstrumentConfig::default()
        };
        // Workers and javac run in directories of their own: every path they get is absolute.
        let cache_root = std::path::absolute(cache_root).unwrap_or_else(|_| cache_root.into());
        let instrumented =
            instrument_cached(&self.entries, &cache_root, &config).map_err(|source| {
                EngineError::Instrument {
                    class: name.clone(),
                    source: Box::new(source),
                }
            })?;
        let mut worker_config = WorkerConfig::with_classpath([instrumented.dir.clone()]);
        worker_config.java = self.jdk_home.join("bin/java");
        // Equality probes (the boundary goals) follow every class's probes.
        worker_config.extra_jvm_args.push(format!(
            "-Drivet.equalityBase={}",
            instrumented.probes.probe_count()
        ));
        if let Some(n) = workers {
            worker_config.workers = n;
        }
        WorkerPool::confinement();
        let pool = WorkerPool::new(&worker_config).map_err(|source| EngineError::Worker {
            class: name,
            source: Box::new(source),
        })?;
        Ok(Workers {
            probes: instrumented.probes,
            pool,
            lease: instrumented.lease,
        })
    }

    /// The verifier for emitted tests, when JUnit jars are found (`test_classpath`, else the
    /// system's).
    pub fn verifier(
        &self,
        junit: JUnitVersion,
        test_classpath: Option<&str>,
        keep: Option<PathBuf>,
    ) -> Option<Verifier> {
        let setup = locate_junit(test_classpath, junit, Path::new(DEBIAN_JAVA))?;
        Some(Verifier {
            java: self.jdk_home.join("bin/java"),
            javac: self.jdk_home.join("bin/javac"),
            classpath: self.entries.clone(),
            junit: setup,
            time_limit: std::time::Duration::from_secs(120),
            deadline: None,
            keep,
            // Beside the instrumented classes' cache, shared by every run of the user's.
            archives: Some(
                std::env::temp_dir()
                    .join("rivet-cache")
                    .join("jvm-archives"),
            ),
        })
    }
}

/// Fails with a clear message when the class's static initializer throws or it cannot load.
pub fn check_static_initializer(
    pool: &mut WorkerPool,
    class: &ClassName,
) -> Result<(), EngineError> {
    let binary = class.binary();
    let mut probe = TestCase::new();
    let name = probe.push(Statement::String(binary.clone()));
    probe.push(Statement::Call {
        method: rivet_testcase::MemberRef::new(
            "java/lang/Class",
            "forName",
            "(Ljava/lang/String;)Ljava/lang/Class;",
        ),
        receiver: None,
        args: vec![name],
    });
    let runs = pool.run(&[probe]);
    if runs
        .first()
        .is_some_and(|e| e.status == rivet_testcase::ExecutionStatus::TimedOut)
    {
        // Every test would load the class and time out: nothing can be tested.
        return Err(EngineError::BadInput(format!(
            "{binary} cannot be tested: its static initializer does not return (it ran past the time limit of a test)"
        )));
    }
    if let Some(StatementOutcome::Threw { class, message }) =
        runs.first().and_then(|e| e.outcomes.get(1))
    {
        if class.is("java.lang.ExceptionInInitializerError")
            || class.is("java.lang.NoClassDefFoundError")
        {
            return Err(EngineError::BadInput(format!(
                "{binary} cannot be tested: its static initializer throws ({class}{})",
                message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            )));
        }
        if !class.is(UNRUNNABLE_CLASS) {
            return Err(EngineError::BadInput(format!(
                "{binary} cannot be loaded: {class}"
            )));
        }
    }
    Ok(())
}
