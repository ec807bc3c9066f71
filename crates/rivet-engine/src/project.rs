//! Many classes in one run: the classes a selection names (a list, a package with its
//! sub-packages, or every class of a directory or jar), the shard of them this run takes,
//! one instrumentation and one worker pool for all of them, each class in turn within its
//! budget (and what is left of the total), and the index report over all of them. A class
//! that cannot be tested is skipped with the reason; one that fails is reported and the run
//! goes on.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rivet_classfile::ClassName;
use rivet_classpath::{ClassHeader, Classpath, ClasspathEntry};
use serde::{Deserialize, Serialize};

use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::generate::{api_model, cache_root, run_class, write, Event};
use crate::report::seconds;
use crate::session::Session;

/// Which classes a run takes.
#[derive(Debug, Clone, PartialEq)]
pub enum ClassSelection {
    /// These classes (binary names).
    Classes(Vec<String>),
    /// The classes of a package and its sub-packages (`com.example`).
    Package(String),
    /// Every class of this directory or jar (None: the classpath's first entry).
    All(Option<PathBuf>),
}

/// Part `index` (1-based) of `count`: the sorted classes to test dealt round-robin (the skipped
/// ones apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Parses `i/n` with 1 <= i <= n.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {text:?}: expected i/n with 1 <= i <= n, e.g. 1/4");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// The part of `classes` (sorted) this shard takes.
    pub fn take<T>(&self, classes: Vec<T>) -> Vec<T> {
        classes
            .into_iter()
            .enumerate()
            .filter(|(k, _)| (*k as u32) % self.count == self.index - 1)
            .map(|(_, c)| c)
            .collect()
    }

    /// This shard's part of the classes to test and of the skipped ones, each dealt on its
    /// own, so that shards share the work evenly (a package's nested classes, all skipped,
    /// would otherwise crowd some shards).
    pub fn deal<S>(&self, to_test: Vec<String>, skipped: Vec<S>) -> (Vec<String>, Vec<S>) {
        (self.take(to_test), self.take(skipped))
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A run over many classes.
#[derive(Debug, Clone)]
pub struct ProjectConfig {
    /// Settings every class shares; its `class` is ignored and `budget_s` is per class.
    pub base: GenerateConfig,
    pub selection: ClassSelection,
    /// Cap on the whole run, in seconds.
    pub total_budget_s: Option<u64>,
    pub shard: Option<Shard>,
    /// Where the reports go (None: with the tests, in `base.out`).
    pub report_dir: Option<PathBuf>,
}

/// What became of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClassStatus {
    Generated,
    Skipped,
    Failed,
}

/// One class in the index report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassEntry {
    pub class: String,
    pub status: ClassStatus,
    /// Why a class was skipped or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub tests: usize,
    pub branches_covered: usize,
    pub branches_total: usize,
    pub verified: bool,
    pub budget_s: u64,
    pub elapsed_s: f64,
    /// Relative to the output directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_file: Option<String>,
}

/// The index `rivet-report.json` of a run over many classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectReport {
    /// `project`: tells the index from a one-class report.
    pub kind: String,
    pub strategy: String,
    pub seed: u64,
    /// Per class.
    pub budget_s: u64,
    pub total_budget_s: Option<u64>,
    pub shard: Option<String>,
    pub elapsed_s: f64,
    pub generated: usize,
    pub skipped: usize,
    pub failed: usize,
    pub tests: usize,
    pub branches_covered: usize,
    pub branches_total: usize,
    pub classes: Vec<ClassEntry>,
}

impl ProjectReport {
    /// The report over `classes`, totals counted (classes sorted by name).
    pub fn over(mut classes: Vec<ClassEntry>, header: ProjectReport) -> ProjectReport {
        classes.sort_by(|a, b| a.class.cmp(&b.class));
        let count = |s: ClassStatus| classes.iter().filter(|c| c.status == s).count();
        ProjectReport {
            generated: count(ClassStatus::Generated),
            skipped: count(ClassStatus::Skipped),
            failed: count(ClassStatus::Failed),
            tests: classes.iter().map(|c| c.tests).sum(),
            branches_covered: classes.iter().map(|c| c.branches_covered).sum(),
            branches_total: classes.iter().map(|c| c.branches_total).sum(),
            classes,
            ..header
        }
    }

    /// The index of a one-class run whose output directory is `out` (its report is
    /// `out/rivet-report.json`).
    pub fn of_class(one: &crate::report::Report, out: &Path) -> ProjectReport {
        let test_file = one.test_file.as_deref().map(|f| {
            match Path::new(f).strip_prefix(out) {
                Ok(r) => r.display().to_string(),
                // The run wrote it under the same directory named another way (`./out`).
                Err(_) => format!(
                    "{}RivetTest.java",
                    one.class
                        .split('$')
                        .next()
                        .unwrap_or(&one.class)
                        .replace('.', "/")
                ),
            }
        });
        let entry = ClassEntry {
            class: one.class.clone(),
            status: ClassStatus::Generated,
            reason: None,
            tests: one.tests,
            branches_covered: one.branches_covered,
            branches_total: one.branches_total,
            verified: one.verified,
            budget_s: one.budget_s,
            elapsed_s: one.elapsed_s,
            test_file,
            report_file: Some("rivet-report.json".into()),
        };
        ProjectReport {
            kind: "project".into(),
            strategy: one.strategy.clone(),
            seed: one.seed,
            budget_s: one.budget_s,
            total_budget_s: None,
            shard: None,
            elapsed_s: one.elapsed_s,
            generated: 1,
            skipped: 0,
            failed: 0,
            tests: one.tests,
            branches_covered: one.branches_covered,
            branches_total: one.branches_total,
            classes: vec![entry],
        }
    }

    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}

/// What a project run tells its caller while it works.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectEvent {
    /// The classes to run, after selection and sharding.
    Selected { classes: usize },
    /// Class `index` (0-based) of `of` starts.
    Class {
        class: String,
        index: usize,
        of: usize,
    },
    /// An event of the class's run.
    Inner(Event),
    /// A class is done.
    Done(ClassEntry),
}

/// What a project run produced.
#[derive(Debug, Clone)]
pub struct ProjectOutcome {
    pub report: ProjectReport,
    pub report_file: PathBuf,
}

/// Internal names of the classes `selection` names, sorted.
fn candidates(session: &Session, selection: &ClassSelection) -> Result<Vec<String>, EngineError> {
    let bad = EngineError::BadInput;
    let classpath: &Classpath = &session.classpath;
    let mut names =
        match selection {
            ClassSelection::Classes(list) => list
                .iter()
                .map(|c| ClassName::from_binary(c).internal().to_string())
                .collect(),
            ClassSelection::Package(pkg) => {
                let prefix = format!("{}/", pkg.trim_end_matches('.').replace('.', "/"));
                let mut all = classpath.user_classes().map_err(|e| bad(e.to_string()))?;
                all.retain(|n| n.starts_with(&prefix));
                if all.is_empty() {
                    return Err(bad(format!(
                        "package {pkg} has no classes on the classpath (sub-packages included)"
                    )));
                }
                all
            }
            ClassSelection::All(target) => {
                let entry =
                    match target {
                        Some(path) => ClasspathEntry::open(path).map_err(|e| bad(e.to_string()))?,
                        None => ClasspathEntry::open(session.entries.first().ok_or_else(|| {
                            bad("the classpath names no directory or jar".into())
                        })?)
                        .map_err(|e| bad(e.to_string()))?,
                    };
                let all = entry.class_names().map_err(|e| bad(e.to_string()))?;
                if all.is_empty() {
                    return Err(bad(format!("{} holds no classes", entry.path().display())));
                }
                all
            }
        };
    names.sort();
    names.dedup();
    Ok(names)
}

/// Why a class is not run on its own, from its header; None if it is a candidate.
fn skip_reason(classpath: &Classpath, internal: &str) -> Option<String> {
    let simple = internal.rsplit('/').next().unwrap_or(internal);
    if simple == "package-info" || simple == "module-info" {
        return Some(format!("{simple}: no code to test"));
    }
    if let Some((outer, _)) = internal.split_once('$') {
        return Some(format!(
            "nested in {}: its branches are goals of that class's run",
            ClassName::from_internal(outer).binary()
        ));
    }
    let header: ClassHeader = match classpath.class_header(internal) {
        Ok(Some(h)) => (*h).clone(),
        Ok(None) => return None, // the class's run says it is not found
        Err(_) => return None,   // and that it does not parse
    };
    let flags = header.access_flags;
    if flags.0 & 0x2000 != 0 {
        return Some("an annotation type: no behaviour to test".into());
    }
    if flags.is_interface() {
        return Some("an interface: its implementing classes are tested".into());
    }
    if flags.0 & 0x1000 != 0 {
        return Some("synthetic (made by the compiler)".into());
    }
    None
}

/// How long classes ran past their budget (minimizing, verifying, the final run), on average:
/// what each class's share of a total budget leaves for it.
#[derive(Debug, Default)]
struct Overrun {
    sum: Duration,
    classes: u32,
}

impl Overrun {
    fn add(&mut self, took: Duration, budget: Duration) {
        self.sum += took.saturating_sub(budget);
        self.classes += 1;
    }

    fn mean(&self) -> Duration {
        self.sum.checked_div(self.classes).unwrap_or_default()
    }
}

/// A class's budget, in whole seconds, out of `left` of the total budget shared evenly by
/// `remaining` classes, each expected to run `overrun` past its budget; None when not even one
/// second is left for it.
fn total_share(left: Duration, remaining: usize, overrun: Duration) -> Option<u64> {
    let per_class = left / u32::try_from(remaining.max(1)).unwrap_or(u32::MAX);
    let share = per_class.saturating_sub(overrun).as_secs();
    if share > 0 {
        Some(share)
    } else if left >= overrun + Duration::from_secs(1) {
        // Less than a second each: the next class still gets one.
        Some(1)
    } else {
        None
    }
}

/// Why a class's run left no test (None when it left some).
fn no_tests_reason(report: &crate::report::Report) -> Option<String> {
    if report.tests > 0 {
        return None;
    }
    Some(if report.dropped_tests > 0 {
        format!(
            "no test written: verification dropped all {} tests",
            report.dropped_tests
        )
    } else if report.branches_total == 0 {
        "no test written: no branch, and no test called a method of the class".into()
    } else {
        "no test written: no test covered a branch or called a method of the class".into()
    })
}

fn entry(class: &str, status: ClassStatus, reason: Option<String>, budget_s: u64) -> ClassEntry {
    ClassEntry {
        class: class.to_string(),
        status,
        reason,
        tests: 0,
        branches_covered: 0,
        branches_total: 0,
        verified: false,
        budget_s,
        elapsed_s: 0.0,
        test_file: None,
        report_file: None,
    }
}

/// `file` relative to `dir` when under it, else absolute.
fn relative(dir: &Path, file: &Path) -> String {
    match file.strip_prefix(dir) {
        Ok(r) => r.display().to_string(),
        Err(_) => std::path::absolute(file)
            .unwrap_or_else(|_| file.to_path_buf())
            .display()
            .to_string(),
    }
}

/// Generates tests for every class `config` selects; writes each class's tests and report
/// and the index `rivet-report.json`.
pub fn generate_project(
    config: &ProjectConfig,
    observe: &mut dyn FnMut(ProjectEvent),
) -> Result<ProjectOutcome, EngineError> {
    let started = Instant::now();
    config.base.validate().map_err(EngineError::BadInput)?;
    if config.total_budget_s == Some(0) {
        return Err(EngineError::BadInput(
            "--total-budget must be at least 1 second".into(),
        ));
    }
    let session = Session::open(&config.base.classpath)?;
    let names = candidates(&session, &config.selection)?;
    let mut skipped = Vec::new();
    let mut runnable = Vec::new();
    for name in names {
        let binary = ClassName::from_internal(&name).binary();
        match skip_reason(&session.classpath, &name) {
            Some(reason) => skipped.push((binary, reason)),
            None => runnable.push(binary),
        }
    }
    if let Some(shard) = config.shard {
        (runnable, skipped) = shard.deal(runnable, skipped);
    }
    let mut entries: Vec<ClassEntry> = skipped
        .into_iter()
        .map(|(class, reason)| entry(&class, ClassStatus::Skipped, Some(reason), 0))
        .collect();
    observe(ProjectEvent::Selected {
        classes: runnable.len(),
    });
    // One instrumentation of all of them, one pool of workers.
    let classes: Vec<ClassName> = runnable.iter().map(|c| ClassName::from_binary(c)).collect();
    let mut workers = if classes.is_empty() {
        None
    } else {
        Some(session.start_workers(&classes, &cache_root(&config.base), config.base.workers)?)
    };
    let total = config.total_budget_s.map(Duration::from_secs);
    let mut overrun = Overrun::default();
    let report_dir = config
        .report_dir
        .clone()
        .unwrap_or_else(|| config.base.out.clone());
    let reports = report_dir.join("rivet-reports");
    let of = runnable.len();
    for (index, class) in runnable.iter().enumerate() {
        let Some(workers) = workers.as_mut() else {
            break;
        };
        // The class's budget: its own, within an even share of what is left of the total.
        let mut budget_s = config.base.budget_s;
        if let Some(total) = total {
            let left = total.saturating_sub(started.elapsed());
            let Some(share) = total_share(left, of - index, overrun.mean()) else {
                observe(ProjectEvent::Class {
                    class: class.clone(),
                    index,
                    of,
                });
                let mut e = entry(
                    class,
                    ClassStatus::Skipped,
                    Some("the total budget was spent".into()),
                    0,
                );
                e.budget_s = 0;
                entries.push(e);
                observe(ProjectEvent::Done(entries[entries.len() - 1].clone()));
                continue;
            };
            budget_s = budget_s.min(share);
        }
        observe(ProjectEvent::Class {
            class: class.clone(),
            index,
            of,
        });
        let class_started = Instant::now();
        let class_config = GenerateConfig {
            class: class.clone(),
            budget_s,
            keep_artifacts: config.base.keep_artifacts.as_ref().map(|d| d.join(class)),
            ..config.base.clone()
        };
        let report_file = reports.join(format!("{class}.json"));
        // A panic inside one class's run (a bug of Rivet's) fails that class, not the run.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            api_model(&session, &class_config).and_then(|model| {
                if model.targets.is_empty() {
                    return Err(EngineError::BadInput(
                        "no usable API: no constructor or method a test can call".into(),
                    ));
                }
                run_class(
                    &session,
                    workers,
                    &class_config,
                    model,
                    (class_started, &report_file),
                    &mut |e| observe(ProjectEvent::Inner(e)),
                )
            })
        }))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            Err(EngineError::Internal {
                class: class.clone(),
                reason: format!("internal error: {what}"),
            })
        });
        let done = match result {
            Ok(outcome) => ClassEntry {
                class: class.clone(),
                status: ClassStatus::Generated,
                reason: no_tests_reason(&outcome.report),
                tests: outcome.report.tests,
                branches_covered: outcome.report.branches_covered,
                branches_total: outcome.report.branches_total,
                verified: outcome.report.verified,
                budget_s,
                elapsed_s: seconds(class_started.elapsed()),
                test_file: outcome
                    .test_file
                    .as_deref()
                    .map(|f| relative(&report_dir, f)),
                report_file: Some(relative(&report_dir, &outcome.report_file)),
            },
            Err(e) => {
                // Untestable classes are skipped; anything else failed. The run goes on.
                let status = if e.is_bad_input() {
                    ClassStatus::Skipped
                } else {
                    ClassStatus::Failed
                };
                tracing::warn!(%class, error = %e, "class not generated");
                let mut e = entry(class, status, Some(e.to_string()), budget_s);
                e.elapsed_s = seconds(class_started.elapsed());
                e
            }
        };
        overrun.add(class_started.elapsed(), Duration::from_secs(budget_s));
        observe(ProjectEvent::Done(done.clone()));
        entries.push(done);
    }
    drop(workers);
    let report = ProjectReport::over(
        entries,
        ProjectReport {
            kind: "project".into(),
            strategy: config.base.strategy_name().into(),
            seed: config.base.seed,
            budget_s: config.base.budget_s,
            total_budget_s: config.total_budget_s,
            shard: config.shard.map(|s| s.to_string()),
            elapsed_s: seconds(started.elapsed()),
            generated: 0,
            skipped: 0,
            failed: 0,
            tests: 0,
            branches_covered: 0,
            branches_total: 0,
            classes: Vec::new(),
        },
    );
    let report_file = report_dir.join("rivet-report.json");
    write(&report_file, &report.to_json())?;
    Ok(ProjectOutcome {
        report,
        report_file,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_budget_is_shared_net_of_what_classes_run_past_their_budgets() {
        let s = Duration::from_secs;
        assert_eq!(total_share(s(60), 13, s(0)), Some(4));
        // Three seconds past each budget: the rest is shared.
        assert_eq!(total_share(s(60), 12, s(3)), Some(2));
        assert_eq!(total_share(s(20), 10, s(3)), Some(1));
        assert_eq!(total_share(s(4), 1, s(3)), Some(1));
        assert_eq!(total_share(Duration::from_millis(3500), 1, s(3)), None);
        assert_eq!(total_share(s(0), 1, s(0)), None);
    }

    #[test]
    fn shards_deal_the_sorted_classes_round_robin_and_cover_them_exactly_once() {
        let classes: Vec<String> = (0..7).map(|i| format!("a/C{i}")).collect();
        let mut seen = Vec::new();
        for i in 1..=3 {
            let part = Shard::parse(&format!("{i}/3"))
                .unwrap()
                .take(classes.clone());
            assert!(part.len() >= 2 && part.len() <= 3, "{part:?}");
            seen.extend(part);
        }
        seen.sort();
        assert_eq!(seen, classes);
        // Classes to test are dealt evenly, however many skipped ones lie between them.
        let to_test: Vec<String> = ["a/A", "a/B", "a/C", "a/D"].map(String::from).to_vec();
        let skipped: Vec<&str> = vec!["a/A$1", "a/A$2", "a/B$1", "a/B$2", "a/C$1"];
        let halves =
            [1, 2].map(|i| Shard { index: i, count: 2 }.deal(to_test.clone(), skipped.clone()));
        assert_eq!(halves[0].0, ["a/A", "a/C"]);
        assert_eq!(halves[1].0, ["a/B", "a/D"]);
        assert_eq!(halves[0].1.len() + halves[1].1.len(), skipped.len());
        for bad in ["0/2", "3/2", "1/0", "x/2", "12"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
