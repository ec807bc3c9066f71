//! One path for one or many classes: what a `rivet generate` asks for ([`GenerateRequest`]:
//! a project or a classpath, the classes, where tests go, the JUnit), settled into a
//! [`RunPlan`] (the project opened, the classpath, where tests and reports go, the JUnit
//! version, how the tests expect exceptions, the jars they are verified with, and whether the
//! run is of one class), then run by [`generate_run`]. A one-class run is a run whose selection
//! is that one class: its report is the class's own `rivet-report.json` beside its tests, and
//! its index comes from it ([`ProjectReport::of_class`]).

use std::path::{Path, PathBuf};

use rivet_classfile::ClassName;
use rivet_junit::{ExpectedExceptions, JUnitVersion};
use rivet_project::{BuildTool, ClasspathSource, OpenOptions, Project};
use rivet_report::ProjectReport;

use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::generate::{generate, Outcome};
use crate::project::{generate_project, ClassSelection, ProjectConfig, ProjectEvent, Shard};

/// What the user asks of a generation, as the flags say it, before anything is decided.
#[derive(Debug, Clone)]
pub struct GenerateRequest {
    /// A Maven or Gradle project's directory (its classes, dependencies and JUnit).
    pub project: Option<PathBuf>,
    /// The classes and their dependencies; with a project, its dependencies only (default:
    /// asked of Maven).
    pub classpath: Option<String>,
    /// Classes to test.
    pub classes: Vec<ClassName>,
    /// Every class of this package and its sub-packages.
    pub package: Option<String>,
    /// Every class of the classpath's first entry, or of `target`.
    pub all: bool,
    pub target: Option<PathBuf>,
    /// Only this method's branches (one class).
    pub method: Option<String>,
    /// Where the tests go (required without a project; a project's `src/test/java` otherwise).
    pub out: Option<PathBuf>,
    /// The JUnit of the tests (None: the project's, else 5).
    pub junit: Option<JUnitVersion>,
    /// JUnit jars to verify the tests with (None: the project's, else the system's).
    pub test_classpath: Option<String>,
    /// Java sources for the HTML report (None: a project's main sources).
    pub sourcepath: Option<String>,
    /// `i/n`: this run's part of the classes.
    pub shard: Option<String>,
    pub total_budget_s: Option<u64>,
    pub parallel_classes: Option<usize>,
    /// The settings every class's run shares (budget, seed, workers, strategies…); its
    /// `classpath`, `class`, `method`, `out`, `junit`, `expected_exceptions` and
    /// `test_classpath` are decided from the fields above.
    pub settings: GenerateConfig,
}

/// Whether a run is of one class or of many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunShape {
    /// One `--class` on a classpath: the class's report is the run's.
    OneClass,
    /// A list, a package, a jar, a project, a shard: an index over the classes.
    Classes,
}

/// The project a run opened, as the user is told of it.
#[derive(Debug, Clone)]
pub struct ProjectFound {
    pub tool: BuildTool,
    pub name: String,
    /// Compiled classes of the main sources.
    pub classes: PathBuf,
    /// How many dependencies are on the classpath, and where they came from.
    pub dependencies: usize,
    pub classpath_source: ClasspathSource,
    /// Dependencies that could not be found.
    pub unresolved: Vec<String>,
    /// The JUnit of the tests.
    pub junit: JUnitVersion,
    /// True when neither the build nor the user named a JUnit (5 is assumed).
    pub junit_assumed: bool,
    /// JUnit 4's version when the build file names it.
    pub junit4_version: Option<String>,
}

/// A run with everything decided.
#[derive(Debug, Clone)]
pub struct RunPlan {
    /// The classes, and the settings they share (classpath, out, JUnit, expected exceptions,
    /// test classpath); for a one-class run, `base.class` is that class.
    pub config: ProjectConfig,
    pub shape: RunShape,
    /// The project, when the run is of one.
    pub project: Option<ProjectFound>,
    /// Java sources for the HTML report.
    pub sourcepath: Option<String>,
}

impl RunPlan {
    /// Where the reports (the index, the HTML) go: a project's `target/rivet` unless the user
    /// named an output directory, else with the tests.
    pub fn report_dir(&self) -> &Path {
        self.config
            .report_dir
            .as_deref()
            .unwrap_or(&self.config.base.out)
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The index over the classes (for a one-class run, made from the class's report).
    pub report: ProjectReport,
    /// The report written: the index, or the one class's own report.
    pub report_file: PathBuf,
    /// The class's outcome in a one-class run.
    pub class: Option<Outcome>,
}

/// Decides the run `request` asks for; a project is opened with Maven's and the local
/// repositories' defaults.
pub fn resolve_run(request: &GenerateRequest) -> Result<RunPlan, EngineError> {
    resolve_run_with(request, &OpenOptions::default())
}

/// [`resolve_run`] with the project opened by `options` (its `classpath` is the request's).
pub(crate) fn resolve_run_with(
    request: &GenerateRequest,
    options: &OpenOptions,
) -> Result<RunPlan, EngineError> {
    match &request.project {
        Some(dir) => project_plan(request, dir, options),
        None => classpath_plan(request),
    }
}

/// The classes the request names (the package first, then `all`, then the list).
fn named_selection(request: &GenerateRequest) -> ClassSelection {
    if let Some(pkg) = &request.package {
        ClassSelection::Package(pkg.clone())
    } else if request.all {
        ClassSelection::All(request.target.clone())
    } else {
        ClassSelection::Classes(request.classes.clone())
    }
}

fn names_classes(request: &GenerateRequest) -> bool {
    !request.classes.is_empty() || request.package.is_some() || request.all
}

fn shard(request: &GenerateRequest) -> Result<Option<Shard>, EngineError> {
    request
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(EngineError::BadInput)
}

/// The settings every class shares, with the decided classpath, output, JUnit, expected
/// exceptions and test classpath.
fn base(
    request: &GenerateRequest,
    classpath: String,
    out: PathBuf,
    (junit, expected_exceptions): (JUnitVersion, ExpectedExceptions),
    test_classpath: Option<String>,
) -> GenerateConfig {
    GenerateConfig {
        classpath,
        // A run of many classes sets each class's own (`lanes`).
        class: request
            .classes
            .first()
            .cloned()
            .unwrap_or_else(|| ClassName::from_internal("")),
        method: request.method.clone(),
        out,
        junit,
        expected_exceptions,
        test_classpath,
        ..request.settings.clone()
    }
}

/// Classes on a classpath: tests and reports in `out`; JUnit 5 unless asked; `assertThrows`
/// whatever the JUnit (the system's JUnit 4, Debian's 4.13.2, has it).
fn classpath_plan(request: &GenerateRequest) -> Result<RunPlan, EngineError> {
    let (Some(classpath), Some(out)) = (&request.classpath, &request.out) else {
        return Err(EngineError::BadInput(
            "--classpath and --out are needed without --project".into(),
        ));
    };
    if !names_classes(request) {
        return Err(EngineError::BadInput(
            "name the classes to test: --class FQN (repeatable), --package PKG or --all".into(),
        ));
    }
    let one_class = request.classes.len() == 1
        && request.package.is_none()
        && !request.all
        && request.shard.is_none()
        && request.total_budget_s.is_none();
    if !one_class && request.method.is_some() {
        return Err(EngineError::BadInput(
            "--method needs exactly one --class".into(),
        ));
    }
    let junit = request.junit.unwrap_or(JUnitVersion::Five);
    let base = base(
        request,
        classpath.clone(),
        out.clone(),
        (junit, ExpectedExceptions::AssertThrows),
        request.test_classpath.clone(),
    );
    Ok(RunPlan {
        config: ProjectConfig {
            base,
            selection: named_selection(request),
            total_budget_s: request.total_budget_s,
            shard: if one_class { None } else { shard(request)? },
            parallel_classes: request.parallel_classes,
            report_dir: None,
        },
        shape: if one_class {
            RunShape::OneClass
        } else {
            RunShape::Classes
        },
        project: None,
        sourcepath: request.sourcepath.clone(),
    })
}

/// A project's classes (all of them unless the request names some), its dependencies and
/// JUnit (and so how its tests expect exceptions, and the jars they are verified with); tests
/// into its `src/test/java` and reports into its `target/rivet` unless `out` is given.
fn project_plan(
    request: &GenerateRequest,
    dir: &Path,
    options: &OpenOptions,
) -> Result<RunPlan, EngineError> {
    let options = OpenOptions {
        classpath: request.classpath.clone(),
        ..options.clone()
    };
    let project = rivet_project::open(dir, &options)?;
    let junit = request.junit.unwrap_or(project.junit);
    let expected_exceptions = project.expected_exceptions(junit);
    let out = request
        .out
        .clone()
        .unwrap_or_else(|| project.test_sources.clone());
    let report_dir = request
        .out
        .is_none()
        .then(|| project.root.join("target/rivet"));
    let test_classpath = request
        .test_classpath
        .clone()
        .or_else(|| project.test_classpath());
    let base = base(
        request,
        project.classpath(),
        out,
        (junit, expected_exceptions),
        test_classpath,
    );
    let selection = if names_classes(request) {
        named_selection(request)
    } else {
        ClassSelection::All(Some(project.classes.clone()))
    };
    let sourcepath = request
        .sourcepath
        .clone()
        .or_else(|| Some(project.main_sources.display().to_string()));
    Ok(RunPlan {
        config: ProjectConfig {
            base,
            selection,
            total_budget_s: request.total_budget_s,
            shard: shard(request)?,
            parallel_classes: request.parallel_classes,
            report_dir,
        },
        shape: RunShape::Classes,
        project: Some(found(&project, junit, request.junit.is_none())),
        sourcepath,
    })
}

fn found(project: &Project, junit: JUnitVersion, junit_from_build: bool) -> ProjectFound {
    ProjectFound {
        tool: project.tool,
        name: project.name.clone(),
        classes: project.classes.clone(),
        dependencies: project.dependencies.len(),
        classpath_source: project.classpath_source.clone(),
        unresolved: project.unresolved.clone(),
        junit,
        junit_assumed: junit_from_build && !project.junit_detected,
        junit4_version: project.junit4_version.clone(),
    }
}

/// Runs `plan`: its one class (the class's tests and report written in `out`; its failure is
/// the run's), or its classes (each class's tests and report, and the index in the report
/// directory; a class's failure is its entry's). `observe` gets the run's events; a one-class
/// run's are its class's, as class 0 of 1.
pub fn generate_run(
    plan: &RunPlan,
    observe: &mut dyn FnMut(ProjectEvent),
) -> Result<RunOutcome, EngineError> {
    match plan.shape {
        RunShape::Classes => {
            let outcome = generate_project(&plan.config, observe)?;
            Ok(RunOutcome {
                report: outcome.report,
                report_file: outcome.report_file,
                class: None,
            })
        }
        RunShape::OneClass => {
            let base = &plan.config.base;
            let outcome = generate(base, &mut |event| {
                observe(ProjectEvent::Inner { index: 0, event })
            })?;
            Ok(RunOutcome {
                report: ProjectReport::of_class(&outcome.report, &base.out),
                report_file: outcome.report_file.clone(),
                class: Some(outcome),
            })
        }
    }
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
