//! Many classes in one run: the classes a selection names (a list, a package with its
//! sub-packages, or every class of a directory or jar), the shard of them this run takes,
//! one instrumentation for all of them, the classes run in lanes (`lanes`) each within its
//! budget (and its share of what is left of the total), and the index report over all of
//! them. A class that cannot be tested is skipped with the reason; one that fails is reported
//! and the run goes on.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rivet_classfile::ClassName;
use rivet_classpath::{ClassHeader, Classpath, ClasspathEntry};
use rivet_report::{ClassEntry, ClassStatus, ProjectReport};

use crate::config::GenerateConfig;
use crate::error::EngineError;
use crate::generate::{cache_root, write, Event};
use crate::lanes::{run_lanes, LaneRun};
use crate::session::Session;
use rivet_report::seconds;

/// Which classes a run takes.
#[derive(Debug, Clone, PartialEq)]
pub enum ClassSelection {
    /// These classes.
    Classes(Vec<ClassName>),
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
    pub fn deal<T, S>(&self, to_test: Vec<T>, skipped: Vec<S>) -> (Vec<T>, Vec<S>) {
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
    /// Classes run at a time, each with its share of the workers (None: one per four cores;
    /// never more than the classes or the workers).
    pub parallel_classes: Option<usize>,
    /// Where the reports go (None: with the tests, in `base.out`).
    pub report_dir: Option<PathBuf>,
}

/// What a project run tells its caller while it works.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectEvent {
    /// The classes to run, after selection and sharding.
    Selected { classes: usize },
    /// Class `index` (0-based) of `of` starts.
    Class {
        class: ClassName,
        index: usize,
        of: usize,
    },
    /// An event of class `index`'s run.
    Inner { index: usize, event: Event },
    /// Class `index` is done.
    Done { index: usize, entry: ClassEntry },
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
    let mut names = match selection {
        ClassSelection::Classes(list) => list.iter().map(|c| c.internal().to_string()).collect(),
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
            let entry = match target {
                Some(path) => ClasspathEntry::open(path).map_err(|e| bad(e.to_string()))?,
                None => ClasspathEntry::open(
                    session
                        .entries
                        .first()
                        .ok_or_else(|| bad("the classpath names no directory or jar".into()))?,
                )
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

/// Why a class's run left no test (None when it left some).
pub(crate) fn no_tests_reason(report: &rivet_report::Report) -> Option<String> {
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

pub(crate) fn entry(
    class: &ClassName,
    status: ClassStatus,
    reason: Option<String>,
    budget_s: u64,
) -> ClassEntry {
    ClassEntry {
        class: class.clone(),
        status,
        reason,
        tests: 0,
        branches_covered: 0,
        branches_total: 0,
        verified: false,
        budget_s,
        started_s: 0.0,
        elapsed_s: 0.0,
        test_file: None,
        report_file: None,
    }
}

/// `file` relative to `dir` when under it, else absolute.
pub(crate) fn relative(dir: &Path, file: &Path) -> String {
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
    if config.parallel_classes == Some(0) {
        return Err(EngineError::BadInput(
            "--parallel-classes must be at least 1".into(),
        ));
    }
    let session = Session::open(&config.base.classpath)?;
    let names = candidates(&session, &config.selection)?;
    let mut skipped = Vec::new();
    let mut runnable = Vec::new();
    for name in names {
        let class = ClassName::from_internal(&name);
        match skip_reason(&session.classpath, &name) {
            Some(reason) => skipped.push((class, reason)),
            None => runnable.push(class),
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
    let report_dir = config
        .report_dir
        .clone()
        .unwrap_or_else(|| config.base.out.clone());
    let run = LaneRun {
        session: &session,
        base: &config.base,
        classes: &runnable,
        lanes: config.parallel_classes,
        cache_root: &cache_root(&config.base),
        started,
        total: config.total_budget_s.map(Duration::from_secs),
        report_dir: &report_dir,
    };
    entries.extend(run_lanes(&run, observe)?);
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
