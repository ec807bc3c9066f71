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
use rivet_junit::JUnitVersion;

/// `generate --project DIR`: the project's classes (all of them unless the flags name some),
/// its dependencies and JUnit; tests into its `src/test/java` and reports into its
/// `target/rivet` unless `--out` says otherwise.
pub fn run_project_dir(args: &GenerateArgs, dir: &std::path::Path) -> Result<ExitCode> {
    let options = rivet_project::OpenOptions {
        classpath: args.classpath.clone(),
        ..rivet_project::OpenOptions::default()
    };
    let project = rivet_project::open(dir, &options).map_err(|e| bad_input(e.to_string()))?;
    let mut classpath = vec![project.classes.display().to_string()];
    classpath.extend(project.dependencies.iter().map(|d| d.display().to_string()));
    let junit = match args.junit.as_deref() {
        Some("4") => JUnitVersion::Four,
        Some(_) => JUnitVersion::Five,
        None => project.junit,
    };
    let from = match project.classpath_source {
        rivet_project::ClasspathSource::User => "--classpath",
        rivet_project::ClasspathSource::Maven => "mvn -o dependency:build-classpath",
        rivet_project::ClasspathSource::LocalRepository => "the local Maven repository",
        rivet_project::ClasspathSource::None => "none needed",
    };
    let expected_exceptions = project.expected_exceptions(junit);
    eprintln!(
        "rivet: {} project {}: classes {}, {} dependencies ({from}), JUnit {}{}{}",
        match project.tool {
            rivet_project::BuildTool::Maven => "Maven",
            rivet_project::BuildTool::Gradle => "Gradle",
        },
        project.name,
        project.classes.display(),
        project.dependencies.len(),
        if junit == JUnitVersion::Four { 4 } else { 5 },
        if project.junit_detected || args.junit.is_some() {
            ""
        } else {
            " (the build names no JUnit)"
        },
        match (junit, expected_exceptions) {
            (JUnitVersion::Four, rivet_junit::ExpectedExceptions::TryCatch) => format!(
                " ({}: expected exceptions as try/fail/catch, without assertThrows)",
                project
                    .junit4_version
                    .as_deref()
                    .unwrap_or("version not in the build file")
            ),
            _ => String::new(),
        }
    );
    if !project.unresolved.is_empty() {
        eprintln!(
            "rivet: warning: dependencies not found: {} (pass --classpath with them)",
            project.unresolved.join(", ")
        );
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| project.test_sources.clone());
    let report_dir = args
        .out
        .is_none()
        .then(|| project.root.join("target/rivet"));
    let mut base = crate::generate::base_config(args, classpath.join(":"), out, junit);
    base.expected_exceptions = expected_exceptions;
    if base.test_classpath.is_none() && !project.junit_jars.is_empty() {
        let jars: Vec<String> = project
            .junit_jars
            .iter()
            .map(|j| j.display().to_string())
            .collect();
        base.test_classpath = Some(jars.join(":"));
    }
    let sourcepath = args
        .sourcepath
        .clone()
        .or_else(|| Some(project.main_sources.display().to_string()));
    let mut args_all = ClassSelection::All(Some(project.classes.clone()));
    if !args.class.is_empty() || args.package.is_some() || args.all {
        args_all = selection(args);
    }
    run_selection(args, base, args_all, report_dir, sourcepath)
}

fn selection(args: &GenerateArgs) -> ClassSelection {
    if let Some(pkg) = &args.package {
        ClassSelection::Package(pkg.clone())
    } else if args.all {
        ClassSelection::All(args.target.clone())
    } else {
        ClassSelection::Classes(args.class.clone())
    }
}

/// Many classes: `--class` repeated, `--package`, `--all`, `--shard`, `--total-budget`.
pub fn run(
    args: &GenerateArgs,
    base: GenerateConfig,
    report_dir: Option<std::path::PathBuf>,
    sourcepath: Option<String>,
) -> Result<ExitCode> {
    run_selection(args, base, selection(args), report_dir, sourcepath)
}

fn run_selection(
    args: &GenerateArgs,
    base: GenerateConfig,
    selection: ClassSelection,
    report_dir: Option<std::path::PathBuf>,
    sourcepath: Option<String>,
) -> Result<ExitCode> {
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
        parallel_classes: args.parallel_classes,
        report_dir,
    };
    let mut progress = Progress::new(std::io::stderr().is_terminal());
    let outcome = generate_project(&config, &mut |event| progress.show(event)).map_err(
        |e: EngineError| {
            if e.is_bad_input() {
                bad_input(e.to_string())
            } else {
                anyhow::Error::new(e)
            }
        },
    )?;
    let r = &outcome.report;
    let report_dir = config.report_dir.as_ref().unwrap_or(&config.base.out);
    let html = html(report_dir, r, sourcepath.as_deref())?;
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

/// Progress on stderr: on a terminal, a live line for the class that last made progress
/// (its branches and phase; several run at once with `--parallel-classes`) and a line per
/// class done; elsewhere (a CI log), only the line per class done.
struct Progress {
    terminal: bool,
    /// The running classes by index: `[i/n] name`, their branches and budget.
    running: std::collections::BTreeMap<usize, Running>,
    of: usize,
    drawn: Option<std::time::Instant>,
}

struct Running {
    title: String,
    branches: usize,
    budget: std::time::Duration,
}

impl Progress {
    fn new(terminal: bool) -> Progress {
        Progress {
            terminal,
            running: std::collections::BTreeMap::new(),
            of: 0,
            drawn: None,
        }
    }

    fn show(&mut self, event: ProjectEvent) {
        match event {
            ProjectEvent::Selected { classes } => {
                self.of = classes;
                if self.terminal {
                    eprintln!("rivet: {classes} classes to test")
                }
            }
            ProjectEvent::Class { class, index, of } => {
                let title = format!("[{}/{of}] {class}", index + 1);
                if self.terminal {
                    eprint!("\r\x1b[2K{title} …");
                }
                self.running.insert(
                    index,
                    Running {
                        title,
                        branches: 0,
                        budget: std::time::Duration::ZERO,
                    },
                );
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Started { branches, budget },
            } => {
                if let Some(r) = self.running.get_mut(&index) {
                    (r.branches, r.budget) = (branches, budget);
                }
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Progress(p),
            } if self.terminal => {
                // A few times a second at most: strategies step often.
                let now = std::time::Instant::now();
                if self
                    .drawn
                    .is_some_and(|t| now.duration_since(t).as_millis() < 250)
                {
                    return;
                }
                self.drawn = Some(now);
                let Some(r) = self.running.get(&index) else {
                    return;
                };
                let others = self.running.len() - 1;
                eprint!(
                    "\r\x1b[2K{}: {}/{} branches, {}, {:.0}/{} s{}",
                    r.title,
                    p.branches_covered,
                    r.branches,
                    p.phase,
                    p.elapsed.as_secs_f64(),
                    r.budget.as_secs(),
                    if others > 0 {
                        format!(" (and {others} more running)")
                    } else {
                        String::new()
                    }
                );
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Finishing,
            } if self.terminal => {
                if let Some(r) = self.running.get(&index) {
                    eprint!("\r\x1b[2K{}: verifying …", r.title);
                }
            }
            ProjectEvent::Inner {
                index,
                event: rivet_engine::Event::Mutating,
            } if self.terminal => {
                if let Some(r) = self.running.get(&index) {
                    eprint!("\r\x1b[2K{}: mutation analysis …", r.title);
                }
            }
            ProjectEvent::Inner { .. } => {}
            ProjectEvent::Done { index, entry: e } => {
                self.running.remove(&index);
                let status = match e.status {
                    rivet_report::ClassStatus::Generated => "done",
                    rivet_report::ClassStatus::Skipped => "skipped",
                    rivet_report::ClassStatus::Failed => "failed",
                };
                if self.terminal {
                    eprint!("\r\x1b[2K");
                }
                eprintln!(
                    "rivet: [{}/{}] {status} {}: {}/{} branches, {} tests, {:.1} s",
                    index + 1,
                    self.of,
                    e.class,
                    e.branches_covered,
                    e.branches_total,
                    e.tests,
                    e.elapsed_s
                );
            }
        }
    }
}

/// `rivet report merge DIR... --out DIR`.
pub fn merge(args: &MergeArgs) -> Result<ExitCode> {
    if args.out.exists() && !args.out.is_dir() {
        return Err(bad_input(format!(
            "--out {} exists and is not a directory",
            args.out.display()
        )));
    }
    let report = rivet_report::merge_reports(&args.dirs, &args.out).map_err(|e| {
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
    index: &rivet_report::ProjectReport,
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
