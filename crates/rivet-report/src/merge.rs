//! `rivet report merge`: the reports of several runs (shards of a CI matrix, or one-class
//! runs) as one index over all their classes, with their test files and per-class reports
//! copied into one output directory.

use std::path::{Path, PathBuf};

use crate::class::Report;
use crate::project::{ClassEntry, ClassStatus, ProjectReport};

/// Why reports could not be merged; each names the directory or file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// The user named something that is no run's output (exit code 2 in the CLI).
    #[error("{0}")]
    BadInput(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl MergeError {
    /// Did the user's input cause it (rather than the file system)?
    pub fn is_bad_input(&self) -> bool {
        matches!(self, MergeError::BadInput(_))
    }
}

fn write(path: &Path, text: &str) -> Result<(), MergeError> {
    let err = |source| MergeError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}

fn read(path: &Path) -> Result<String, MergeError> {
    std::fs::read_to_string(path).map_err(|e| {
        MergeError::BadInput(format!("{}: cannot read the report: {e}", path.display()))
    })
}

fn copy(from: &Path, to: &Path) -> Result<(), MergeError> {
    if from == to {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|source| MergeError::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::copy(from, to).map_err(|source| MergeError::Write {
        path: to.to_path_buf(),
        source,
    })?;
    Ok(())
}

/// The entries of one run's output directory, with the directory their files are under.
fn entries_of(dir: &Path) -> Result<(ProjectReport, Vec<ClassEntry>), MergeError> {
    let index = dir.join("rivet-report.json");
    let text = read(&index)?;
    if let Ok(project) = serde_json::from_str::<ProjectReport>(&text) {
        let classes = project.classes.clone();
        return Ok((project, classes));
    }
    let one: Report = serde_json::from_str(&text).map_err(|e| {
        MergeError::BadInput(format!(
            "{}: neither a project index nor a class report: {e}",
            index.display()
        ))
    })?;
    let header = ProjectReport::of_class(&one, dir);
    let classes = header.classes.clone();
    Ok((header, classes))
}

/// Merges the runs in `dirs` into `out`: every class once (a class in two runs keeps the
/// entry that covers more), files copied under the same relative paths (a one-class run's
/// report goes to `rivet-reports/<class>.json`), and `out/rivet-report.json` the index.
pub fn merge_reports(dirs: &[PathBuf], out: &Path) -> Result<ProjectReport, MergeError> {
    if dirs.is_empty() {
        return Err(MergeError::BadInput(
            "rivet report merge: name at least one directory".into(),
        ));
    }
    let mut all: Vec<ClassEntry> = Vec::new();
    let mut first: Option<ProjectReport> = None;
    let mut elapsed = 0.0;
    for dir in dirs {
        let (header, entries) = entries_of(dir)?;
        elapsed += header.elapsed_s;
        for mut e in entries {
            if let Some(f) = &e.test_file {
                copy(&dir.join(f), &out.join(f))?;
            }
            if let Some(f) = &e.report_file {
                let to = if f == "rivet-report.json" {
                    format!("rivet-reports/{}.json", e.class)
                } else {
                    f.clone()
                };
                copy(&dir.join(f), &out.join(&to))?;
                e.report_file = Some(to);
            }
            match all.iter_mut().find(|x| x.class == e.class) {
                Some(x) => {
                    let better = (e.status == ClassStatus::Generated, e.branches_covered)
                        > (x.status == ClassStatus::Generated, x.branches_covered);
                    if better {
                        *x = e;
                    }
                }
                None => all.push(e),
            }
        }
        first.get_or_insert(header);
    }
    let Some(header) = first else {
        return Err(MergeError::BadInput("no reports to merge".into()));
    };
    let report = ProjectReport::over(
        all,
        ProjectReport {
            shard: None,
            elapsed_s: (elapsed * 1000.0).round() / 1000.0,
            ..header
        },
    );
    write(&out.join("rivet-report.json"), &report.to_json())?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn entry(class: &str, status: ClassStatus, covered: usize) -> ClassEntry {
        ClassEntry {
            class: class.into(),
            status,
            reason: None,
            tests: 1,
            branches_covered: covered,
            branches_total: 10,
            verified: true,
            budget_s: 5,
            started_s: 0.0,
            elapsed_s: 1.0,
            test_file: Some(format!("{}RivetTest.java", class.replace('.', "/"))),
            report_file: None,
        }
    }

    fn run_dir(root: &Path, name: &str, classes: Vec<ClassEntry>) -> PathBuf {
        let dir = root.join(name);
        for c in &classes {
            let f = dir.join(c.test_file.as_deref().unwrap());
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(&f, format!("// {name}\n")).unwrap();
        }
        let header = ProjectReport {
            kind: "project".into(),
            strategy: "all".into(),
            seed: 0,
            budget_s: 5,
            total_budget_s: None,
            shard: Some("1/2".into()),
            elapsed_s: 2.0,
            generated: 0,
            skipped: 0,
            failed: 0,
            tests: 0,
            branches_covered: 0,
            branches_total: 0,
            classes: Vec::new(),
        };
        let index = ProjectReport::over(classes, header);
        write(&dir.join("rivet-report.json"), &index.to_json()).unwrap();
        dir
    }

    #[test]
    fn every_class_once_keeping_the_entry_that_covers_more_with_its_files() {
        let root = tempfile::tempdir().unwrap();
        let a = run_dir(
            root.path(),
            "a",
            vec![
                entry("p.A", ClassStatus::Generated, 3),
                entry("p.B", ClassStatus::Failed, 0),
            ],
        );
        let b = run_dir(
            root.path(),
            "b",
            vec![entry("p.B", ClassStatus::Generated, 7)],
        );
        let out = root.path().join("out");
        let merged = merge_reports(&[a, b], &out).unwrap();
        let classes: Vec<(String, usize)> = merged
            .classes
            .iter()
            .map(|c| (c.class.binary(), c.branches_covered))
            .collect();
        assert_eq!(classes, [("p.A".to_string(), 3), ("p.B".to_string(), 7)]);
        assert_eq!(
            (merged.generated, merged.failed, merged.branches_covered),
            (2, 0, 10)
        );
        assert_eq!(merged.shard, None);
        // B's file is the later run's, the one that covers more.
        let b_file = std::fs::read_to_string(out.join("p/BRivetTest.java")).unwrap();
        assert_eq!(b_file, "// b\n");
        let index: ProjectReport =
            serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
                .unwrap();
        assert_eq!(index, merged);
    }

    #[test]
    fn a_directory_without_a_report_is_bad_input_naming_it() {
        let root = tempfile::tempdir().unwrap();
        let err = merge_reports(&[root.path().join("nothing")], &root.path().join("out"))
            .expect_err("no report there");
        assert!(err.is_bad_input());
        assert!(err.to_string().contains("nothing"), "{err}");
    }
}
