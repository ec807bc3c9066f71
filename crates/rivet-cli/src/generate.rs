//! `rivet generate`: turns the flags into a `GenerateConfig`, runs the engine with a progress
//! bar on a terminal, prints the summary and maps failures to exit codes.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use rivet_engine::{
    generate, AccessMode, EngineError, Event, GenerateConfig, NodeOrder, PcPolicy, StrategyChoice,
};
use rivet_junit::JUnitVersion;

use crate::bad_input;
use crate::cli::{Access, ConcolicOrder, GenerateArgs, PcPolicyArg};
use crate::report::summary;

/// The settings the flags describe (`class` is the first `--class`, if any), with the
/// classpath, output directory and JUnit version settled.
pub fn base_config(
    args: &GenerateArgs,
    classpath: String,
    out: std::path::PathBuf,
    junit: JUnitVersion,
) -> GenerateConfig {
    GenerateConfig {
        classpath,
        class: args.class.first().cloned().unwrap_or_default(),
        method: args.method.clone(),
        out,
        budget_s: args.budget,
        seed: args.seed,
        workers: args.workers,
        junit,
        // `--junit 4` without a project: the system's JUnit 4 (Debian's 4.13.2) has
        // assertThrows.
        expected_exceptions: rivet_junit::ExpectedExceptions::AssertThrows,
        test_classpath: args.test_classpath.clone(),
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
    }
}

pub fn run(args: &GenerateArgs, guard: &crate::guard::TimeGuard) -> Result<ExitCode> {
    if let Some(dir) = &args.project {
        return crate::generate_project::run_project_dir(args, dir);
    }
    let (Some(classpath), Some(out)) = (args.classpath.clone(), args.out.clone()) else {
        return Err(bad_input(
            "--classpath and --out are needed without --project",
        ));
    };
    if args.class.is_empty() && args.package.is_none() && !args.all {
        return Err(bad_input(
            "name the classes to test: --class FQN (repeatable), --package PKG or --all",
        ));
    }
    let junit = match args.junit.as_deref() {
        Some("4") => JUnitVersion::Four,
        _ => JUnitVersion::Five,
    };
    let config = base_config(args, classpath, out, junit);
    let single = args.class.len() == 1
        && args.package.is_none()
        && !args.all
        && args.shard.is_none()
        && args.total_budget.is_none();
    if !single {
        if args.method.is_some() {
            return Err(bad_input("--method needs exactly one --class"));
        }
        return crate::generate_project::run(args, config, None, args.sourcepath.clone());
    }
    guard.arm(config.time_bound());
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut budget = std::time::Duration::ZERO;
    let outcome = generate(&config, &mut |event| match event {
        Event::Started {
            branches,
            budget: b,
        } => {
            budget = b;
            bar = progress_bar(branches as u64, b);
        }
        Event::Progress(p) => {
            if let Some(bar) = &bar {
                bar.set_position(p.branches_covered as u64);
                let left = budget.saturating_sub(p.elapsed).as_secs();
                bar.set_message(format!(
                    "{}: {} executions, {left} s left",
                    p.phase, p.executions
                ));
            }
        }
        Event::Finishing | Event::Mutating => {
            if let Some(bar) = bar.take() {
                bar.finish_and_clear();
            }
        }
    });
    if let Some(bar) = bar.take() {
        bar.finish_and_clear();
    }
    let outcome = outcome.map_err(|e: EngineError| {
        if e.is_bad_input() {
            bad_input(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    })?;
    let index = rivet_report::ProjectReport::of_class(&outcome.report, &config.out);
    let html = crate::generate_project::html(&config.out, &index, args.sourcepath.as_deref())?;
    print!("{}", summary(&outcome.report, &outcome.report_file));
    println!("  html        {}", html.display());
    if !outcome.report.verified {
        eprintln!(
            "rivet: warning: the tests were not verified: no JUnit jars found (pass --test-classpath with junit-platform-console-standalone.jar and the JUnit API jars, or install Debian's junit5/junit4)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn progress_bar(len: u64, budget: std::time::Duration) -> Option<indicatif::ProgressBar> {
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
