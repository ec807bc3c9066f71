//! `rivet report merge DIR... --out DIR`: the shards' runs merged into one index, its
//! summary printed and its HTML report written.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::bad_input;
use crate::cli::MergeArgs;
use crate::report::{html, project_summary};

/// `rivet report merge DIR... --out DIR`.
pub fn run(args: &MergeArgs) -> Result<ExitCode> {
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
    write!(
        std::io::stdout().lock(),
        "{}",
        project_summary(&report, &args.out.join("rivet-report.json"))
    )?;
    writeln!(std::io::stdout().lock(), "  html        {}", html.display())?;
    Ok(ExitCode::SUCCESS)
}
