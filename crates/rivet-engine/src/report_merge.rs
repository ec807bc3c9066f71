//! `rivet report merge`: the reports of several runs (shards of a CI matrix, or one-class
//! runs) as one index over all their classes, with their test files and per-class reports
//! copied into one output directory.

use std::path::{Path, PathBuf};

use crate::error::EngineError;
use crate::generate::write;
use crate::project::{ClassEntry, ClassStatus, ProjectReport};
use crate::report::Report;

fn read(path: &Path) -> Result<String, EngineError> {
    std::fs::read_to_string(path).map_err(|e| {
        EngineError::BadInput(format!("{}: cannot read the report: {e}", path.display()))
    })
}

fn copy(from: &Path, to: &Path) -> Result<(), EngineError> {
    if from == to {
        return Ok(());
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|source| EngineError::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::copy(from, to).map_err(|source| EngineError::Write {
        path: to.to_path_buf(),
        source,
    })?;
    Ok(())
}

/// The entries of one run's output directory, with the directory their files are under.
fn entries_of(dir: &Path) -> Result<(ProjectReport, Vec<ClassEntry>), EngineError> {
    let index = dir.join("rivet-report.json");
    let text = read(&index)?;
    if let Ok(project) = serde_json::from_str::<ProjectReport>(&text) {
        let classes = project.classes.clone();
        return Ok((project, classes));
    }
    let one: Report = serde_json::from_str(&text).map_err(|e| {
        EngineError::BadInput(format!(
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
pub fn merge_reports(dirs: &[PathBuf], out: &Path) -> Result<ProjectReport, EngineError> {
    if dirs.is_empty() {
        return Err(EngineError::BadInput(
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
        return Err(EngineError::BadInput("no reports to merge".into()));
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
