//! `rivet generate` over many classes (`--class` repeated, `--package`, `--all`, `--shard`):
//! turns the flags into a `ProjectConfig`, shows which class runs on a terminal, prints the
//! per-class table and maps the outcome to an exit code (0 when any class was generated).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use rivet_engine::{
    generate_project, ClassSelection, EngineError, GenerateConfig, ProjectConfig, ProjectEvent,
    Shard,
};

use crate::bad_input;
use crate::cli::{GenerateArgs, MergeArgs};
use crate::report::project_summary;

pub fn run(args: &GenerateArgs, base: GenerateConfig) -> Result<ExitCode> {
    let selection = if let Some(pkg) = &args.package {
        ClassSelection::Package(pkg.clone())
    } else if args.all {
        ClassSelection::All(args.target.clone())
    } else {
        ClassSelection::Classes(args.class.clone())
    };
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(bad_input)?;
    let config = ProjectConfig {
        base,
        selection,
        total_budget_s: args.total_budget,
        shard,
    };
    let terminal = std::io::stderr().is_terminal();
    let outcome = generate_project(&config, &mut |event| {
        if !terminal {
            return;
        }
        match event {
            ProjectEvent::Selected { classes } => eprintln!("rivet: {classes} classes to test"),
            ProjectEvent::Class { class, index, of } => {
                eprint!("\r\x1b[2K[{}/{of}] {class} …", index + 1)
            }
            ProjectEvent::Done(e) => eprint!(
                "\r\x1b[2K{} {}: {}/{} branches\n",
                match e.status {
                    rivet_engine::ClassStatus::Generated => "done",
                    rivet_engine::ClassStatus::Skipped => "skipped",
                    rivet_engine::ClassStatus::Failed => "failed",
                },
                e.class,
                e.branches_covered,
                e.branches_total
            ),
            ProjectEvent::Inner(_) => {}
        }
    })
    .map_err(|e: EngineError| {
        if e.is_bad_input() {
            bad_input(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    })?;
    let r = &outcome.report;
    let html = html(&config.base.out, r, args.sourcepath.as_deref())?;
    print!("{}", project_summary(r, &outcome.report_file));
    println!("  html        {}", html.display());
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

/// `rivet report merge DIR... --out DIR`.
pub fn merge(args: &MergeArgs) -> Result<ExitCode> {
    if args.out.exists() && !args.out.is_dir() {
        return Err(bad_input(format!(
            "--out {} exists and is not a directory",
            args.out.display()
        )));
    }
    let report = rivet_engine::merge_reports(&args.dirs, &args.out).map_err(|e| {
        if e.is_bad_input() {
            bad_input(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    })?;
    let html = html(&args.out, &report, args.sourcepath.as_deref())?;
    print!(
        "{}",
        project_summary(&report, &args.out.join("rivet-report.json"))
    );
    println!("  html        {}", html.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes the HTML report of `index` under `out`.
pub fn html(
    out: &std::path::Path,
    index: &rivet_engine::ProjectReport,
    sourcepath: Option<&str>,
) -> Result<std::path::PathBuf> {
    let dirs: Vec<std::path::PathBuf> = sourcepath
        .map(|s| {
            s.split(':')
                .filter(|d| !d.is_empty())
                .map(std::path::PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    Ok(rivet_html::write_site(out, index, &dirs)?)
}
