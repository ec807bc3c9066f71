//! One class, start to finish: session, plan, strategies within the budget, finish stage,
//! then the test file and `rivet-report.json` written under the output directory.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rivet_api::{ApiModel, GenConfig, Generator};
use rivet_classfile::ClassName;
use rivet_junit::JUnitVersion;
use rivet_search::{Archive, SearchConfig};
use tracing::info_span;

use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::finish::{check, covering_tests, suite, test_class};
use crate::plan::ClassPlan;
use crate::report::{seconds, Report};
use crate::session::{check_static_initializer, Session};
use crate::strategy::{drive, Budget, DriveProgress, SearchStrategy, Strategy};

/// What a run tells its caller while it works.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The strategies start: the branches to cover and their time.
    Started { branches: usize, budget: Duration },
    /// After each strategy step.
    Progress(DriveProgress),
    /// Minimization, assertions and verification.
    Finishing,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub report: Report,
    pub test_file: PathBuf,
    pub report_file: PathBuf,
}

/// Generates, verifies and writes the tests of one class.
pub fn generate(
    config: &GenerateConfig,
    observe: &mut dyn FnMut(Event),
) -> Result<Outcome, EngineError> {
    let started = Instant::now();
    config.validate().map_err(EngineError::BadInput)?;
    let session = Session::open(&config.classpath)?;
    let class = ClassName::from_binary(&config.class);
    let _span = info_span!("generate", class = %class).entered();
    let method = config.method.as_deref();
    let model =
        ApiModel::build(session.classpath.clone(), &config.class, method).map_err(|source| {
            EngineError::Api {
                class: class.binary(),
                source: Box::new(source),
            }
        })?;
    // Instrument the class (cached per input state) and start the workers.
    let cache_root = match &config.keep_artifacts {
        Some(d) => d.join("instrumented"),
        None => std::env::temp_dir().join("rivet-cache"),
    };
    let mut workers =
        session.start_workers(std::slice::from_ref(&class), &cache_root, config.workers)?;
    let plan = ClassPlan::build(&session.classpath, model, method, &workers.probes)?;
    check_static_initializer(&mut workers.pool, &class)?;

    // The strategies, sharing the goals and the archive.
    let budget = config.strategy_budget();
    let generator = Generator::new(&plan.model, GenConfig::default());
    let mut search = SearchStrategy::new(
        &generator,
        SearchConfig {
            seed: config.seed,
            budget,
            max_executions: config.max_executions,
            ..SearchConfig::default()
        },
    );
    let mut goals = plan.goals.clone();
    let mut archive = Archive::default();
    observe(Event::Started {
        branches: plan.places.len(),
        budget,
    });
    let mut strategies: Vec<&mut dyn Strategy> = vec![&mut search];
    let driven = drive(
        &mut strategies,
        &mut goals,
        &mut archive,
        &mut workers.pool,
        Budget {
            time: budget,
            max_executions: config.max_executions,
        },
        &mut |p| observe(Event::Progress(p)),
    );

    // Finish: minimize, assert, emit, verify.
    observe(Event::Finishing);
    let (generated, n) = suite(&plan, &archive, &mut workers.pool);
    drop(workers);
    let verifier = session.verifier(
        config.junit,
        config.test_classpath.as_deref(),
        config.keep_artifacts.as_ref().map(|d| d.join("verify")),
    );
    let checked = check(
        test_class(&plan, &generated, config.junit),
        verifier.as_ref(),
        &class.binary(),
    )?;

    // Write the tests and the report.
    let test_file = config.out.join(checked.emitted.relative_path());
    write(&test_file, &checked.emitted.source)?;
    let covering = covering_tests(&checked.class, &checked.emitted);
    let branches = Report::rows(&plan.places, &covering);
    let junit = match config.junit {
        JUnitVersion::Five => "5",
        JUnitVersion::Four => "4",
    };
    let report = Report {
        class: class.binary(),
        method: config.method.clone(),
        seed: config.seed,
        budget_s: config.budget_s,
        elapsed_s: seconds(started.elapsed()),
        search_s: seconds(driven.elapsed),
        strategy: "search".into(),
        tests: checked.class.tests.len(),
        executions: driven.executions + n,
        junit: junit.into(),
        test_file: test_file.display().to_string(),
        verified: checked.verified.is_some(),
        verification: match &checked.verified {
            Some(v) => format!(
                "compiled and passed twice with JUnit {junit} ({} tests dropped, {} assertions dropped)",
                v.dropped_tests, v.dropped_assertions
            ),
            None => "not verified: no JUnit jars found".into(),
        },
        dropped_tests: checked.verified.as_ref().map_or(0, |v| v.dropped_tests),
        dropped_assertions: checked.verified.as_ref().map_or(0, |v| v.dropped_assertions),
        untestable: plan.model.untestable.clone(),
        branches_total: branches.len(),
        branches_covered: branches.iter().filter(|b| b.covered).count(),
        branches,
    };
    let report_file = config.out.join("rivet-report.json");
    write(&report_file, &report.to_json())?;
    Ok(Outcome {
        report,
        test_file,
        report_file,
    })
}

fn write(path: &std::path::Path, text: &str) -> Result<(), EngineError> {
    let err = |source| EngineError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}
