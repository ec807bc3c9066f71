//! `rivet generate`: turns the flags into a `GenerateRequest`, has the engine settle it into a
//! run (one class or many: `rivet_engine::resolve_run`) and run it, shows progress on
//! stderr, prints the project found, the summary and the HTML report's place, and maps the
//! outcome to an exit code (0 when a class got tests).

use std::io::IsTerminal;
use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use rivet_classfile::ClassName;
use rivet_engine::{
    generate_run, resolve_run, AccessMode, BuildTool, ClasspathSource, EngineError,
    ExpectedExceptions, GenerateConfig, GenerateRequest, JUnitVersion, NodeOrder, PcPolicy,
    ProjectFound, RunOutcome, RunPlan, RunShape, StrategyChoice,
};

use crate::bad_input;
use crate::cli::{Access, ConcolicOrder, GenerateArgs, PcPolicyArg};
use crate::progress::{ClassBar, ClassLines};
use crate::report::{html, project_summary, summary};

/// What the flags ask for.
fn request(args: &GenerateArgs) -> GenerateRequest {
    GenerateRequest {
        project: args.project.clone(),
        classpath: args.classpath.clone(),
        classes: args
            .class
            .iter()
            .map(|c| ClassName::from_binary(c))
            .collect(),
        package: args.package.clone(),
        all: args.all,
        target: args.target.clone(),
        method: args.method.clone(),
        out: args.out.clone(),
        junit: args.junit.as_deref().map(|j| match j {
            "4" => JUnitVersion::Four,
            _ => JUnitVersion::Five,
        }),
        test_classpath: args.test_classpath.clone(),
        sourcepath: args.sourcepath.clone(),
        shard: args.shard.clone(),
        total_budget_s: args.total_budget,
        parallel_classes: args.parallel_classes,
        settings: settings(args),
    }
}

/// The settings of every class's run the flags give (the engine decides the classpath, the
/// class, the output, the JUnit and the test classpath).
fn settings(args: &GenerateArgs) -> GenerateConfig {
    GenerateConfig {
        budget_s: args.budget,
        seed: args.seed,
        workers: args.workers,
        keep_artifacts: args.keep_artifacts.clone(),
        // Clap accepts only `all` and the registered names.
        strategy: StrategyChoice::named(&args.strategy).unwrap_or(StrategyChoice::All),
        registry: rivet_engine::registry(),
        max_executions: args.max_executions,
        access: match args.access {
            Access::SamePackage => AccessMode::SamePackage,
            Access::Public => AccessMode::Public,
        },
        concolic_order: match args.concolic_order {
            ConcolicOrder::Dfs => NodeOrder::DepthFirst,
            ConcolicOrder::Bfs => NodeOrder::BreadthFirst,
            ConcolicOrder::Priority => NodeOrder::Priority,
            ConcolicOrder::Random => NodeOrder::Random,
        },
        concolic_step: args.concolic_step_ms.map(std::time::Duration::from_millis),
        pc_policy: match args.pc_policy {
            PcPolicyArg::Fifo => PcPolicy::Fifo,
            PcPolicyArg::Cover => PcPolicy::Cover,
            PcPolicyArg::Tardis => PcPolicy::Tardis,
            PcPolicyArg::CoverTardis => PcPolicy::CoverTardis,
        },
        pc_until_budget: args.pc_until_budget,
        learned_invariants: !args.no_learned_invariants,
        mutation: !args.no_mutation,
        cover: args.cover.clone(),
        ..GenerateConfig::new("", &ClassName::from_internal(""), std::path::PathBuf::new())
    }
}

/// The user's mistakes exit 2, Rivet's own failures 1.
fn engine_error(e: EngineError) -> anyhow::Error {
    if e.is_bad_input() {
        bad_input(e.to_string())
    } else {
        anyhow::Error::new(e)
    }
}

pub fn run(args: &GenerateArgs, guard: &crate::guard::TimeGuard) -> Result<ExitCode> {
    let plan = resolve_run(&request(args)).map_err(engine_error)?;
    if let Some(project) = &plan.project {
        eprintln!(
            "{}",
            project_line(project, plan.config.base.expected_exceptions)
        );
        if !project.unresolved.is_empty() {
            eprintln!(
                "rivet: warning: dependencies not found: {} (pass --classpath with them)",
                project.unresolved.join(", ")
            );
        }
    }
    match plan.shape {
        RunShape::OneClass => one_class(&plan, guard),
        RunShape::Classes => classes(&plan),
    }
}

/// `rivet: Maven project shop: classes …, 3 dependencies (…), JUnit 4 …`.
fn project_line(p: &ProjectFound, expected: ExpectedExceptions) -> String {
    let from = match p.classpath_source {
        ClasspathSource::User => "--classpath",
        ClasspathSource::Maven => "mvn -o dependency:build-classpath",
        ClasspathSource::LocalRepository => "the local Maven repository",
        ClasspathSource::None => "none needed",
    };
    format!(
        "rivet: {} project {}: classes {}, {} dependencies ({from}), JUnit {}{}{}",
        match p.tool {
            BuildTool::Maven => "Maven",
            BuildTool::Gradle => "Gradle",
        },
        p.name,
        p.classes.display(),
        p.dependencies,
        if p.junit == JUnitVersion::Four { 4 } else { 5 },
        if p.junit_assumed {
            " (the build names no JUnit)"
        } else {
            ""
        },
        match (p.junit, expected) {
            (JUnitVersion::Four, ExpectedExceptions::TryCatch) => format!(
                " ({}: expected exceptions as try/fail/catch, without assertThrows)",
                p.junit4_version
                    .as_deref()
                    .unwrap_or("version not in the build file")
            ),
            _ => String::new(),
        }
    )
}

/// One class: a progress bar on a terminal, the class's summary.
fn one_class(plan: &RunPlan, guard: &crate::guard::TimeGuard) -> Result<ExitCode> {
    guard.arm(plan.config.base.time_bound());
    let mut bar = ClassBar::new(std::io::stderr().is_terminal());
    let outcome = generate_run(plan, &mut |event| bar.show(event));
    bar.finish();
    let RunOutcome { report, class, .. } = outcome.map_err(engine_error)?;
    let Some(class) = class else {
        return Err(anyhow::anyhow!(
            "internal error: a one-class run of {} without the class's outcome",
            plan.config.base.class
        ));
    };
    let html = html(plan.report_dir(), &report, plan.sourcepath.as_deref())?;
    write!(
        std::io::stdout().lock(),
        "{}",
        summary(&class.report, &class.report_file)
    )?;
    writeln!(std::io::stdout().lock(), "  html        {}", html.display())?;
    if !class.report.verified {
        eprintln!(
            "rivet: warning: the tests were not verified: no JUnit jars found (pass --test-classpath with junit-platform-console-standalone.jar and the JUnit API jars, or install Debian's junit5/junit4)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Many classes: a line per class done (and a live line on a terminal), the table.
fn classes(plan: &RunPlan) -> Result<ExitCode> {
    let mut lines = ClassLines::new(std::io::stderr().is_terminal());
    let outcome = generate_run(plan, &mut |event| lines.show(event)).map_err(engine_error)?;
    let r = &outcome.report;
    let html = html(plan.report_dir(), r, plan.sourcepath.as_deref())?;
    write!(
        std::io::stdout().lock(),
        "{}",
        project_summary(r, &outcome.report_file)
    )?;
    writeln!(std::io::stdout().lock(), "  html        {}", html.display())?;
    if r.generated == 0 {
        let what = if r.failed > 0 {
            format!("{} failed, {} skipped", r.failed, r.skipped)
        } else {
            format!("all {} skipped", r.skipped)
        };
        return Err(bad_input(format!("no class got tests ({what}; see above)")));
    }
    if r.failed > 0 {
        eprintln!(
            "rivet: warning: {} of {} classes failed (see the report)",
            r.failed,
            r.classes.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
