//! One class, start to finish: session, plan, strategies within the budget, finish stage,
//! then the test file and `rivet-report.json` written under the output directory.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rivet_api::{ApiModel, GenConfig, Generator};
use rivet_classfile::ClassName;
use rivet_search::{screen_carried_state, screen_pass, Archive, SearchConfig};
use tracing::info_span;

use rivet_testcase::{GeneratedTest, GoalId};

use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::finish::Checked;
use rivet_mutate::MutationScore;
use rivet_report::OracleReport;
use rivet_verify::Verifier;
use rivet_worker::WorkerPool;

use crate::finish::{check, emitted_order, final_coverage, lost_goals, suite, test_class};
use crate::session::{check_static_initializer, Session, Workers};
use crate::strategy_phase::{class_probes, run_strategies, PhaseInput, PhaseResult};
use rivet_report::{DroppedTestRow, Report, RunEvents};
use rivet_strategy::ClassPlan;
use rivet_strategy::{drive, Budget, DriveOptions, DriveProgress, SearchStrategy};

/// What a run tells its caller while it works.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The strategies start: the branches to cover and their time.
    Started { branches: usize, budget: Duration },
    /// After each strategy step.
    Progress(DriveProgress),
    /// Minimization, assertions and verification.
    Finishing,
    /// The written tests against the class's mutants.
    Mutating,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub report: Report,
    /// None when no test was left to write (no file is written: JUnit 4 fails a class
    /// without tests).
    pub test_file: Option<PathBuf>,
    pub report_file: PathBuf,
}

/// How many times goals whose tests verification dropped go back to the search.
const MAX_RETURNS: usize = 2;

/// The least time the mutation stage gets (when the time bound leaves it).
const STAGE_FLOOR: Duration = Duration::from_secs(5);

/// Kept from the time bound for the final run of the tests and writing them.
const FINAL_RESERVE: Duration = Duration::from_secs(4);

/// Generates, verifies and writes the tests of one class.
pub fn generate(
    config: &GenerateConfig,
    observe: &mut dyn FnMut(Event),
) -> Result<Outcome, EngineError> {
    let started = Instant::now();
    config.validate().map_err(EngineError::BadInput)?;
    let session = Session::open(&config.classpath)?;
    let class = config.class.clone();
    let _span = info_span!("generate", class = %class).entered();
    let model = api_model(&session, config)?;
    // Instrument the class and those `--cover` names (cached per input state) and start the
    // workers.
    let mut instrumented = vec![class.clone()];
    instrumented.extend(cover_classes(&session, config)?);
    let mut workers = session.start_workers(&instrumented, &cache_root(config), config.workers)?;
    let report_file = config.out.join("rivet-report.json");
    run_class(
        &session,
        &mut workers,
        config,
        model,
        (started, &report_file),
        observe,
    )
}

/// The classes `--cover` names for the configured class; a pattern that names no class is bad
/// input.
pub(crate) fn cover_classes(
    session: &Session,
    config: &GenerateConfig,
) -> Result<Vec<ClassName>, EngineError> {
    rivet_strategy::match_cover(&session.classpath, &config.class, &config.cover)
        .map_err(cover_error)
}

/// The program texts of the packages of the class under test and of the covered classes:
/// their string constants that look like program text (a compiler's snippets) and the
/// top-level statements of the scripts shipped with them, for their parsers' arguments.
fn package_source_texts(
    session: &Session,
    class: &ClassName,
    covered: &[ClassName],
) -> Vec<String> {
    let mut packages: Vec<&str> = std::iter::once(class)
        .chain(covered)
        .map(|c| c.package())
        .collect();
    packages.sort_unstable();
    packages.dedup();
    let mut files = Vec::new();
    let mut scripts = Vec::new();
    for p in packages {
        for name in session.classpath.package_classes(p).unwrap_or_default() {
            if let Ok(Some(cf)) = session.classpath.class_file(&name) {
                files.push(cf);
            }
        }
        scripts.extend(session.classpath.package_resources(p).unwrap_or_default());
    }
    rivet_api::Constants::source_texts_of(
        files.iter().map(|f| f.as_ref()),
        scripts.iter().map(|r| r.text.as_str()),
    )
}

/// A `--cover` pattern that names no class is bad input; other plan errors stay what they are.
fn cover_error(e: rivet_strategy::PlanError) -> EngineError {
    match e {
        e @ rivet_strategy::PlanError::NoCoveredClass { .. } => {
            EngineError::BadInput(e.to_string())
        }
        e => EngineError::Plan(e),
    }
}

/// Workers, javac and JUnit run in directories of their own: paths they get are absolute.
pub(crate) fn keep_artifacts(config: &GenerateConfig) -> Option<PathBuf> {
    config
        .keep_artifacts
        .as_ref()
        .map(|d| std::path::absolute(d).unwrap_or_else(|_| d.clone()))
}

/// Where instrumented classes are cached.
pub(crate) fn cache_root(config: &GenerateConfig) -> PathBuf {
    match keep_artifacts(config) {
        Some(d) => d.join("instrumented"),
        None => std::env::temp_dir().join("rivet-cache"),
    }
}

/// The API model of the configured class, with the constants of the classes `--cover` names.
pub(crate) fn api_model(
    session: &Session,
    config: &GenerateConfig,
) -> Result<ApiModel, EngineError> {
    let method = config.method.as_deref();
    let mut model = ApiModel::build(
        session.classpath.clone(),
        &config.class,
        method,
        config.access,
    )
    .map_err(|source| EngineError::Api {
        class: config.class.clone(),
        source: Box::new(source),
    })?;
    // The numbers and strings the covered classes compare with (a token type a pass switches
    // on) are argument values too.
    let mut files = Vec::new();
    let covered = cover_classes(session, config)?;
    for c in &covered {
        if let Ok(Some(cf)) = session.classpath.class_file(c.internal()) {
            files.push(cf);
        }
    }
    if !files.is_empty() {
        let harvested = rivet_api::Constants::harvest(files.iter().map(|f| f.as_ref()));
        model.constants.absorb_values(harvested);
    }
    model.constants.source_texts = package_source_texts(session, &config.class, &covered);
    Ok(model)
}

/// One class on instrumented workers (the class among those instrumented): plan,
/// strategies, finish, and the files written; `started` is when the class's time began, and
/// the report goes to `report_file`.
pub(crate) fn run_class(
    session: &Session,
    workers: &mut Workers,
    config: &GenerateConfig,
    model: ApiModel,
    (started, report_file): (Instant, &std::path::Path),
    observe: &mut dyn FnMut(Event),
) -> Result<Outcome, EngineError> {
    let class = config.class.clone();
    let keep_artifacts = keep_artifacts(config);
    // A project's classes share the pool: this class's events are those from here on.
    let before = PoolMark::of(&workers.pool);
    let covered = rivet_strategy::resolve_cover(&session.classpath, &class, &config.cover)
        .map_err(cover_error)?;
    let plan = ClassPlan::build(
        &session.classpath,
        model,
        (config.method.as_deref(), &covered),
        &workers.probes,
    )?;
    check_static_initializer(&mut workers.pool, &class)?;

    // The strategies, sharing the goals and the archive, on a thread of their own.
    observe(Event::Started {
        branches: plan.places.len(),
        budget: config.strategy_budget(),
    });
    let PhaseResult {
        plan: returned,
        mut goals,
        mut archive,
        driven,
        sections,
    } = run_strategies(
        PhaseInput {
            classpath: session.classpath.clone(),
            probes: class_probes(&workers.probes, &class),
            config: config.clone(),
            plan,
            keep_artifacts: keep_artifacts.clone(),
        },
        &mut workers.pool,
        &mut |p| observe(Event::Progress(p)),
    );
    let plan = match returned {
        Some(plan) => plan,
        // The class stopped waiting for its strategies: the plan is made again.
        None => ClassPlan::build(
            &session.classpath,
            api_model(session, config)?,
            (config.method.as_deref(), &covered),
            &workers.probes,
        )?,
    };
    let generator = Generator::new(&plan.model, GenConfig::default());

    // Finish: minimize, assert, emit, verify; then the mutation stage.
    observe(Event::Finishing);
    let mut verifier = session.verifier(
        config.junit,
        config.test_classpath.as_deref(),
        keep_artifacts.as_ref().map(|d| d.join("verify")),
    );
    if let Some(v) = verifier.as_mut() {
        // What is left of the time bound, less a moment for the final run and the writing.
        v.deadline = Some(started + config.time_bound().saturating_sub(FINAL_RESERVE));
    }
    let mut finish = FinishRun {
        plan: &plan,
        generator: &generator,
        config,
        started,
        executions: 0,
        failures: driven.failures.clone(),
    };
    let checked = finish.verified_suite(
        (&mut goals, &mut archive),
        &mut workers.pool,
        verifier.as_ref(),
        observe,
    )?;
    let (checked, mutation, oracle) = mutation_stage(
        (session, verifier.as_ref()),
        config,
        checked,
        (&class, started),
        (keep_artifacts.as_ref().map(|d| d.join("mutation")), observe),
    );

    // Write the tests and the report.
    let test_file = write_tests(config, &checked)?;
    let mut events = before.events_since(&workers.pool);
    events.cast_refusals = archive.cast_refusals;
    let (covering, reran) = report_coverage(&workers.pool, &class, &plan, &checked, &mut events)?;
    let run = ClassRun {
        config,
        plan: &plan,
        checked: &checked,
        started,
        driven: &driven,
        executions: driven.executions + finish.executions + reran,
        failures: &finish.failures,
        test_file: test_file.as_deref(),
        origins: &archive.origins,
    };
    let report =
        crate::class_report::class_report(&run, (covering, events), sections, (mutation, oracle));
    write(report_file, &report.to_json())?;
    Ok(Outcome {
        report,
        test_file,
        report_file: report_file.to_path_buf(),
    })
}

/// The finish stage of one class: the suite verified, and searched again for goals whose tests
/// verification dropped while budget remains.
struct FinishRun<'a, 'm> {
    plan: &'a ClassPlan,
    generator: &'a Generator<'m>,
    config: &'a GenerateConfig,
    started: Instant,
    /// Executions the finish spent (minimizing, assertions, searching again).
    executions: u64,
    /// Strategies that failed, the drive's and the searches' again.
    failures: Vec<rivet_strategy::StrategyFailure>,
}

impl FinishRun<'_, '_> {
    fn verified_suite(
        &mut self,
        (goals, archive): (&mut rivet_search::Goals, &mut Archive),
        pool: &mut WorkerPool,
        verifier: Option<&Verifier>,
        observe: &mut dyn FnMut(Event),
    ) -> Result<Checked, EngineError> {
        let class = self.config.class.clone();
        let budget = self.config.strategy_budget();
        let mut round = 0;
        loop {
            let (mut generated, spent) = suite(self.plan, archive, pool);
            self.executions += spent;
            // Assertions that hold only in a fresh JVM go now, all at once, rather than one
            // per test per round of verification.
            let mut carried = carried_state_pool(pool, &class, &[])?;
            let order = emitted_order(&generated);
            let mut screened = screen_carried_state(&mut carried, &mut generated, &order);
            self.executions += screened.executions;
            drop(carried);
            // And those whose values hang on identity hash codes, which differ from JVM to
            // JVM (a hash map's order with a key of identity hash).
            for mode in OTHER_HASH_MODES {
                let mut other = carried_state_pool(pool, &class, &[UNLOCK_EXPERIMENTAL, mode])?;
                let pass = screen_pass(&mut other, &mut generated, &order);
                self.executions += pass.executions;
                screened.absorb(pass);
            }
            // A test that ended otherwise in one of those JVMs would pass or fail under JUnit
            // by the draw: it goes, and its goals are searched again.
            let unstable = drop_unstable(&mut generated, &screened.unstable);
            // Threads the code under test left spinning in the workers must not slow javac
            // and JUnit down.
            pool.recycle_stray();
            let mut checked = check(
                test_class(
                    self.plan,
                    &generated,
                    (self.config.junit, self.config.expected_exceptions),
                ),
                verifier,
                &class,
            )?;
            if let Some(v) = checked.verified.as_mut() {
                v.dropped_assertions += screened.dropped;
                v.dropped_tests += unstable.len();
                v.reasons.splice(0..0, unstable);
            }
            // Goals whose tests verification dropped go back to a search while budget
            // remains.
            round += 1;
            let lost = lost_goals(self.plan, archive, &checked.class);
            let left = budget.saturating_sub(self.started.elapsed());
            if lost.is_empty() || round > MAX_RETURNS || left < Duration::from_secs(1) {
                return Ok(checked);
            }
            tracing::info!(
                goals = lost.len(),
                "verification dropped their tests: searching again"
            );
            for g in &lost {
                archive.forget(*g);
            }
            let mut again = SearchStrategy::new(
                self.generator,
                SearchConfig {
                    seed: self.config.seed.wrapping_add(round as u64),
                    budget: left,
                    max_executions: self.config.max_executions,
                    ..SearchConfig::default()
                },
            );
            let redriven = drive(
                &mut [&mut again],
                goals,
                archive,
                pool,
                Budget::new(left, self.config.max_executions),
                &mut |p| observe(Event::Progress(p)),
                DriveOptions {
                    watch: None,
                    api: Some(self.generator.model),
                },
            );
            self.executions += redriven.executions;
            self.failures.extend(redriven.failures);
        }
    }
}

/// Writes the test class; a class without tests is not written (JUnit 4, and so `mvn test`,
/// fails on it).
fn write_tests(config: &GenerateConfig, checked: &Checked) -> Result<Option<PathBuf>, EngineError> {
    if checked.class.tests.is_empty() {
        return Ok(None);
    }
    let file = config.out.join(checked.emitted.relative_path());
    write(&file, &checked.emitted.source)?;
    Ok(Some(file))
}

/// The pool's counters when a class starts (a project's classes share the pool).
struct PoolMark {
    events: rivet_worker::PoolEvents,
    replaced: u64,
}

impl PoolMark {
    fn of(pool: &WorkerPool) -> PoolMark {
        PoolMark {
            events: pool.events(),
            replaced: pool.workers_replaced(),
        }
    }

    /// What happened in the pool since the mark.
    fn events_since(&self, pool: &WorkerPool) -> RunEvents {
        let now = pool.events();
        let before = &self.events;
        RunEvents {
            timed_out: now.timed_out.saturating_sub(before.timed_out),
            crashed: now.crashed.saturating_sub(before.crashed),
            rejected: now.rejected.saturating_sub(before.rejected),
            exit_requests: now.exit_requests.saturating_sub(before.exit_requests),
            sandbox_refusals: now.sandbox_refusals.saturating_sub(before.sandbox_refusals),
            workers_replaced: pool.workers_replaced().saturating_sub(self.replaced),
            // The strategies' archive counts these.
            cast_refusals: 0,
        }
    }
}

/// The report's coverage: the final tests run again in a fresh JVM, one after the other in
/// the order JUnit runs them, as JaCoCo sees them; the covering test of each branch goal and
/// the executions spent (its time-outs added to `events`).
fn report_coverage(
    pool: &WorkerPool,
    class: &ClassName,
    plan: &ClassPlan,
    checked: &Checked,
    events: &mut RunEvents,
) -> Result<(std::collections::BTreeMap<GoalId, String>, u64), EngineError> {
    let mut fresh = carried_state_pool(pool, class, &[])?;
    let (covering, m) = final_coverage(plan, &checked.class, &checked.emitted, &mut fresh);
    events.timed_out += fresh.events().timed_out;
    Ok((covering, m))
}

/// HotSpot's flag that lets `-XX:hashCode` be set.
const UNLOCK_EXPERIMENTAL: &str = "-XX:+UnlockExperimentalVMOptions";

/// JVMs that make identity hash codes otherwise than the search's workers (HotSpot's own
/// per-thread random numbers): 3 numbers objects in sequence, 4 takes their address, 0 draws
/// from one global random sequence (the per-thread draws of JUnit's JVM put objects in orders
/// neither of the first two does: guava's `Ordering.arbitrary()` ranks by them). The suite
/// runs once in each before verification, which then runs it with others again
/// (`rivet-verify`'s runs): an assertion on the order of a hash map holding a key of identity
/// hash (commons-collections' `AbstractHashedMap` stores `null` as a sentinel object), or a
/// test that throws or not by the order, passes or fails by the draw, and every JVM with other
/// draws is one more chance to find it here rather than in the developer's build.
const OTHER_HASH_MODES: [&str; 3] = ["-XX:hashCode=3", "-XX:hashCode=4", "-XX:hashCode=0"];

/// Takes the tests the screens found `unstable` out of `generated`; what the report says of
/// each.
fn drop_unstable(
    generated: &mut Vec<GeneratedTest>,
    unstable: &[(usize, String)],
) -> Vec<DroppedTestRow> {
    let mut rows = Vec::new();
    for (i, why) in unstable.iter().rev() {
        if *i < generated.len() {
            let test = generated.remove(*i);
            let name = test
                .test
                .statements()
                .iter()
                .rev()
                .find_map(|s| match s {
                    rivet_testcase::Statement::Call { method, .. } => Some(method.name.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| "test".into());
            rows.push(DroppedTestRow {
                test: format!("a test ending in {name}"),
                reason: format!("unstable: in a fresh JVM it {why}"),
            });
        }
    }
    rows.reverse();
    rows
}

/// A pool of one fresh JVM, like `pool`'s and with `flags` beside its own, in which static
/// state carries over from test to test, as it does under JUnit.
fn carried_state_pool(
    pool: &WorkerPool,
    class: &ClassName,
    flags: &[&str],
) -> Result<WorkerPool, EngineError> {
    let mut config = pool.config().clone();
    config.workers = 1;
    config
        .extra_jvm_args
        .push("-Drivet.keepStatics=true".into());
    config
        .extra_jvm_args
        .extend(flags.iter().map(|f| f.to_string()));
    WorkerPool::new(&config).map_err(|source| EngineError::Worker {
        class: Some(class.clone()),
        source: Box::new(source),
    })
}

/// What the report of one class is made from.
pub(crate) struct ClassRun<'a> {
    pub config: &'a GenerateConfig,
    pub plan: &'a ClassPlan,
    pub checked: &'a Checked,
    pub started: Instant,
    pub driven: &'a rivet_strategy::DriveResult,
    pub executions: u64,
    pub failures: &'a [rivet_strategy::StrategyFailure],
    pub test_file: Option<&'a std::path::Path>,
    /// Per goal, the strategy whose turn stored its archived test.
    pub origins: &'a std::collections::BTreeMap<GoalId, &'static str>,
}

/// The mutation stage (unless turned off, or nothing was verified): the tests against the
/// class's mutants within the stage's share of the budget and what the finish left of it; the
/// class with the assertions selection kept, verified again; the score and what selection did.
fn mutation_stage(
    (session, verifier): (&Session, Option<&Verifier>),
    config: &GenerateConfig,
    checked: Checked,
    (class, started): (&ClassName, Instant),
    (keep, observe): (Option<PathBuf>, &mut dyn FnMut(Event)),
) -> (Checked, Option<MutationScore>, Option<OracleReport>) {
    let Some(v) = verifier else {
        return (checked, None, None);
    };
    if !config.mutation || checked.class.tests.is_empty() || checked.verified.is_none() {
        return (checked, None, None);
    }
    observe(Event::Mutating);
    // At least a few seconds (two JVM starts and a javac), within the time bound.
    let deadline = (started + config.budget())
        .max(Instant::now() + config.mutation_budget().max(STAGE_FLOOR))
        .min(started + config.time_bound().saturating_sub(FINAL_RESERVE));
    let Some(outcome) = crate::mutation_stage::stage(
        session,
        v,
        (&checked.class, &checked.emitted),
        class,
        deadline,
        keep,
    ) else {
        return (checked, None, None);
    };
    let Some((pruned, report)) = outcome.selected else {
        return (checked, Some(outcome.score), None);
    };
    if report.assertions_after == report.assertions_before && report.tests_dropped == 0 {
        return (checked, Some(outcome.score), Some(report));
    }
    match check(pruned, Some(v), class) {
        Ok(again) if !again.class.tests.is_empty() => {
            let mut merged = again;
            if let (Some(first), Some(second)) = (checked.verified, merged.verified.as_mut()) {
                second.dropped_tests += first.dropped_tests;
                second.dropped_assertions += first.dropped_assertions;
                let mut reasons = first.reasons;
                reasons.append(&mut second.reasons);
                second.reasons = reasons;
            }
            (merged, Some(outcome.score), Some(report))
        }
        other => {
            if let Err(e) = other {
                tracing::warn!(class = %class.binary(), error = %e, "the selected assertions were not verified; all are kept");
            }
            (checked, Some(outcome.score), None)
        }
    }
}

pub(crate) fn write(path: &std::path::Path, text: &str) -> Result<(), EngineError> {
    let err = |source| EngineError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}
