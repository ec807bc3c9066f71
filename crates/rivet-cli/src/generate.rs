//! `rivet generate`: model the class's API, instrument the classpath, search for tests on the
//! worker pool, minimize them and add assertions, emit a JUnit class, verify it with javac and
//! JUnit (twice), and write it with `rivet-report.json` and a summary.

use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rivet_analysis::{analyze_class, BranchId};
use rivet_api::{internal_name, ApiError, ApiModel, CallableKind, GenConfig, Generator};
use rivet_classpath::{Classpath, JdkImage};
use rivet_instrument::{instrument_cached, InstrumentConfig, ProbeScope};
use rivet_junit::{emit, Emitted, JUnitVersion, TestClass, TestSource};
use rivet_search::{
    add_assertions, distinct_tests, minimize, Executor, GeneratedTest, Goal, GoalId, GoalKind,
    Goals, Progress, Search, SearchConfig,
};
use rivet_testcase::{Statement, StatementOutcome, TestCase};
use rivet_verify::{locate_junit, Verifier, DEBIAN_JAVA};
use rivet_worker::{ProbeId, WorkerConfig, WorkerPool};
use tracing::info_span;

use crate::bad_input;
use crate::cli::{GenerateArgs, Strategy};
use crate::report::{BranchRow, Report};

/// A branch goal's place in the class under test, for the report.
pub struct BranchPlace {
    pub goal: GoalId,
    pub class: String,
    pub branch: BranchId,
    pub method: String,
    pub descriptor: String,
    pub offset: u32,
    pub line: Option<u16>,
    pub kind: String,
}

pub fn run(args: &GenerateArgs) -> Result<ExitCode> {
    let started = Instant::now();
    match args.strategy {
        Strategy::Search | Strategy::All => {}
        Strategy::Symbolic | Strategy::Concolic => {
            return Err(bad_input(format!(
                "--strategy {} is not implemented yet; use --strategy search",
                if matches!(args.strategy, Strategy::Symbolic) {
                    "symbolic"
                } else {
                    "concolic"
                }
            )))
        }
    }
    if args.budget == 0 {
        return Err(bad_input("--budget must be at least 1 second"));
    }
    if args.out.exists() && !args.out.is_dir() {
        return Err(bad_input(format!(
            "--out {} exists and is not a directory",
            args.out.display()
        )));
    }
    let junit = if args.junit == "4" {
        JUnitVersion::Four
    } else {
        JUnitVersion::Five
    };
    let jdk_home = rivet_classpath::find_home().map_err(|e| bad_input(e.to_string()))?;
    let jdk = Arc::new(JdkImage::open(&jdk_home).map_err(|e| bad_input(e.to_string()))?);
    let classpath = Arc::new(
        Classpath::parse(&args.classpath, Some(jdk)).map_err(|e| bad_input(e.to_string()))?,
    );
    let entries: Vec<PathBuf> = classpath
        .entries()
        .iter()
        .map(|e| e.path().to_path_buf())
        .collect();
    if entries.is_empty() {
        return Err(bad_input("the classpath names no directory or jar"));
    }
    let class = internal_name(&args.class);
    let binary = class.replace('/', ".");
    let _span = info_span!("generate", class = %binary).entered();

    let model = ApiModel::build(classpath.clone(), &args.class, args.method.as_deref()).map_err(
        |e| match e {
            ApiError::Classpath { .. } | ApiError::Hierarchy { .. } => anyhow::Error::new(e),
            other => bad_input(other.to_string()),
        },
    )?;
    let (goals, places) = build_goals(&classpath, &model, args.method.as_deref())?;

    // Instrument (cached per input state) and start the workers.
    let cache_root = match &args.keep_artifacts {
        Some(d) => d.join("instrumented"),
        None => std::env::temp_dir().join("rivet-cache"),
    };
    let config = InstrumentConfig {
        scope: ProbeScope::Classes(vec![class.clone()]),
        threads: 0,
    };
    let instrumented =
        instrument_cached(&entries, &cache_root, &config).context("instrumenting the classpath")?;
    let probes = &instrumented.probes;
    let mut goal_list: Vec<Goal> = goals;
    for g in goal_list.iter_mut() {
        if let GoalKind::Branch { probe } = &mut g.kind {
            let place = &places[g.id.0 as usize];
            *probe = ProbeId(probes.probe(&place.class, place.branch).unwrap_or(u32::MAX));
        }
    }
    let goals = Goals::new(goal_list);
    let mut worker_config = WorkerConfig::with_classpath([instrumented.dir.clone()]);
    worker_config.java = jdk_home.join("bin/java");
    if let Some(n) = args.workers {
        if n == 0 {
            return Err(bad_input("--workers must be at least 1"));
        }
        worker_config.workers = n;
    }
    let mut pool = WorkerPool::new(&worker_config).context("starting the worker JVMs")?;
    check_static_initializer(&mut pool, &binary)?;

    // Search, then minimize and add assertions.
    let search_budget = search_budget(args.budget);
    let generator = Generator::new(&model, GenConfig::default());
    let search_config = SearchConfig {
        seed: args.seed,
        budget: search_budget,
        max_executions: args.max_executions,
        ..SearchConfig::default()
    };
    let branch_total = places.len();
    let bar = progress_bar(branch_total as u64, search_budget);
    let result =
        Search::new(&generator, &goals, search_config).run(&mut pool, &mut |p: Progress| {
            if let Some(bar) = &bar {
                bar.set_position(p.covered.min(branch_total) as u64);
                let left = search_budget.saturating_sub(p.elapsed).as_secs();
                bar.set_message(format!("{} executions, {left} s left", p.executions));
            }
        });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let search_elapsed = result.elapsed;
    let mut executions = result.executions;
    let (minimized, n) = minimize(&mut pool, &goals, distinct_tests(&result.archive));
    executions += n;
    let (generated, n) = add_assertions(&mut pool as &mut dyn Executor, &model, &goals, minimized);
    executions += n;
    drop(pool);

    let test_class = TestClass {
        class_under_test: class.clone(),
        junit,
        tests: generated
            .iter()
            .map(|g| test_source(g, &goals, &binary))
            .collect(),
        overloaded: overloaded_members(&model, &generated),
    };

    // Verify outside Rivet when JUnit is available.
    let setup = locate_junit(
        args.test_classpath.as_deref(),
        junit,
        Path::new(DEBIAN_JAVA),
    );
    let (test_class, emitted, verification, dropped_tests, dropped_assertions) = match setup {
        Some(setup) => {
            let verifier = Verifier {
                java: jdk_home.join("bin/java"),
                javac: jdk_home.join("bin/javac"),
                classpath: entries.clone(),
                junit: setup,
                time_limit: Duration::from_secs(120),
                keep: args.keep_artifacts.as_ref().map(|d| d.join("verify")),
            };
            let v = verifier
                .verify(test_class)
                .context("verifying the generated tests")?;
            let text = format!(
                "compiled and passed twice with JUnit {} ({} tests dropped, {} assertions dropped)",
                args.junit,
                v.dropped_tests.len(),
                v.dropped_assertions
            );
            (
                v.class,
                v.emitted,
                Some(text),
                v.dropped_tests.len(),
                v.dropped_assertions,
            )
        }
        None => {
            let e = emit(&test_class);
            (test_class, e, None, 0, 0)
        }
    };

    // Write the tests and the report.
    let path = args.out.join(emitted.relative_path());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(&path, &emitted.source)
        .with_context(|| format!("writing {}", path.display()))?;
    let covering = covering_tests(&test_class, &emitted);
    let rows: Vec<BranchRow> = places
        .iter()
        .map(|p| BranchRow {
            id: p.branch.0,
            class: p.class.clone(),
            method: p.method.clone(),
            descriptor: p.descriptor.clone(),
            offset: p.offset,
            line: p.line,
            kind: p.kind.clone(),
            covering_test: covering.get(&p.goal).cloned(),
        })
        .collect();
    let report = Report {
        class: binary.clone(),
        method: args.method.clone(),
        seed: args.seed,
        budget_s: args.budget,
        elapsed_s: started.elapsed().as_secs_f64(),
        search_s: search_elapsed.as_secs_f64(),
        tests: test_class.tests.len(),
        executions,
        junit: args.junit.clone(),
        test_file: path.display().to_string(),
        verification: verification.clone(),
        dropped_tests,
        dropped_assertions,
        untestable: model.untestable.clone(),
        branches: rows,
    };
    let report_path = args.out.join("rivet-report.json");
    std::fs::write(&report_path, report.to_json())
        .with_context(|| format!("writing {}", report_path.display()))?;
    print!("{}", report.summary(&report_path));
    if verification.is_none() {
        eprintln!(
            "rivet: warning: the tests were not verified: no JUnit jars found (pass --test-classpath with junit-platform-console-standalone.jar and the JUnit API jars, or install Debian's junit5/junit4)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// How much of the budget the search gets: the rest is for minimization, assertions and
/// verification.
fn search_budget(budget: u64) -> Duration {
    let total = Duration::from_secs(budget);
    let reserve = (total / 4).min(Duration::from_secs(15));
    total
        .saturating_sub(reserve)
        .max(Duration::from_millis(500))
}

fn progress_bar(len: u64, budget: Duration) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(len),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("{spinner} branches {pos}/{len} [{bar:30}] {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(format!("{} s left", budget.as_secs()));
    Some(bar)
}

/// Fails with a clear message when the class's static initializer throws.
fn check_static_initializer(pool: &mut WorkerPool, binary: &str) -> Result<()> {
    let mut probe = TestCase::new();
    let name = probe.push(Statement::String(binary.to_string()));
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
    if let Some(StatementOutcome::Threw { class, message }) =
        runs.first().and_then(|e| e.outcomes.get(1))
    {
        if class == "java.lang.ExceptionInInitializerError"
            || class == "java.lang.NoClassDefFoundError"
        {
            return Err(bad_input(format!(
                "{binary} cannot be tested: its static initializer throws ({class}{})",
                message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            )));
        }
        if class != rivet_worker::UNRUNNABLE_CLASS {
            return Err(bad_input(format!("{binary} cannot be loaded: {class}")));
        }
    }
    Ok(())
}

/// Goals: the branches of the class under test and its nested classes (of `method` only
/// when given), then a goal per public method or constructor the tests call.
fn build_goals(
    classpath: &Classpath,
    model: &ApiModel,
    method: Option<&str>,
) -> Result<(Vec<Goal>, Vec<BranchPlace>)> {
    let mut classes = vec![model.class.clone()];
    let package = model.class.rsplit_once('/').map_or("", |(p, _)| p);
    let prefix = format!("{}$", model.class);
    if method.is_none() {
        for c in classpath
            .package_classes(package)
            .context("listing the package of the class under test")?
        {
            if c.starts_with(&prefix) {
                classes.push(c);
            }
        }
    }
    let mut goals = Vec::new();
    let mut places = Vec::new();
    for c in &classes {
        let Some(cf) = classpath
            .class_file(c)
            .with_context(|| format!("reading {c}"))?
        else {
            continue;
        };
        let analysis = analyze_class(&cf).with_context(|| format!("analysing {c}"))?;
        let simple = c.rsplit('/').next().unwrap_or(c).to_string();
        let base = goals.len() as u32;
        let mut local: BTreeMap<u32, GoalId> = BTreeMap::new();
        for (m, b) in analysis.branches() {
            if method.is_some_and(|w| w != m.name) {
                continue;
            }
            let id = GoalId(base + local.len() as u32);
            local.insert(b.id.0, id);
        }
        for (m, b) in analysis.branches() {
            let Some(&id) = local.get(&b.id.0) else {
                continue;
            };
            goals.push(Goal {
                id,
                kind: GoalKind::Branch {
                    probe: ProbeId(u32::MAX),
                },
                controlling: b
                    .controlling
                    .iter()
                    .filter_map(|c| local.get(&c.0).copied())
                    .collect(),
                method: format!("{simple}.{}", m.name),
                line: b.line,
                what: b.kind.to_string(),
            });
            places.push(BranchPlace {
                goal: id,
                class: c.replace('/', "."),
                branch: b.id,
                method: m.name.clone(),
                descriptor: m.descriptor.clone(),
                offset: b.offset,
                line: b.line,
                kind: b.kind.to_string(),
            });
        }
    }
    let simple = model
        .class
        .rsplit('/')
        .next()
        .unwrap_or(&model.class)
        .to_string();
    for t in &model.targets {
        if t.member.owner == model.class && t.kind != CallableKind::FieldWrite {
            goals.push(Goal {
                id: GoalId(goals.len() as u32),
                kind: GoalKind::Method {
                    member: t.member.clone(),
                },
                controlling: Vec::new(),
                method: format!("{simple}.{}", t.member.name),
                line: None,
                what: "call".into(),
            });
        }
    }
    Ok((goals, places))
}

/// The test's comment lines and the method it is named after.
fn test_source(g: &GeneratedTest, goals: &Goals, binary: &str) -> TestSource {
    let branch_goals: Vec<&Goal> = g
        .goals
        .iter()
        .filter_map(|id| goals.get(*id))
        .filter(|x| x.is_branch())
        .collect();
    let mut covers: Vec<String> = if branch_goals.is_empty() {
        g.goals
            .iter()
            .filter_map(|id| goals.get(*id))
            .map(|x| x.label())
            .collect()
    } else {
        branch_goals.iter().map(|x| x.label()).collect()
    };
    // Two branches of one line with the same outcome (`a && b`) read the same: say it once.
    let mut seen = BTreeSet::new();
    covers.retain(|c| seen.insert(c.clone()));
    let owner = binary.replace('.', "/");
    let subject = branch_goals
        .first()
        .map(|x| x.method.rsplit('.').next().unwrap_or(&x.method).to_string())
        .or_else(|| {
            g.test.statements().iter().rev().find_map(|s| match s {
                Statement::Call { method, .. } if method.owner == owner => {
                    Some(method.name.clone())
                }
                Statement::Construct { constructor, .. } if constructor.owner == owner => {
                    Some("<init>".to_string())
                }
                _ => None,
            })
        })
        .unwrap_or_else(|| "Api".to_string());
    TestSource {
        generated: g.clone(),
        covers,
        subject,
    }
}

/// Members called with same-arity overloads (their arguments get casts).
fn overloaded_members(
    model: &ApiModel,
    tests: &[GeneratedTest],
) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for t in tests {
        for s in t.test.statements() {
            let m = match s {
                Statement::Call { method, .. } => method,
                Statement::Construct { constructor, .. } => constructor,
                _ => continue,
            };
            if model.is_overloaded(m) {
                out.insert((m.owner.clone(), m.name.clone(), m.descriptor.clone()));
            }
        }
    }
    out
}

/// For every goal a surviving test covers, the name of the first such test.
fn covering_tests(class: &TestClass, emitted: &Emitted) -> BTreeMap<GoalId, String> {
    let mut out = BTreeMap::new();
    for (t, lines) in class.tests.iter().zip(&emitted.tests) {
        for g in &t.generated.goals {
            out.entry(*g).or_insert_with(|| lines.name.clone());
        }
    }
    out
}
