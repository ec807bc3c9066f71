//! `rivet mutate`: scores a test suite by the mutants of a class it kills; prints the score
//! and the survivors, and writes the report.

use rivet_classfile::ClassName;
use std::fmt::Write as _;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use rivet_engine::{mutate, MutateConfig};
use rivet_report::{MutantStatus, MutationScore};

use crate::bad_input;
use crate::cli::MutateArgs;

/// Survivors named in the summary.
const SHOWN: usize = 10;

pub fn run(args: &MutateArgs) -> Result<ExitCode> {
    if !args.tests.is_dir() {
        return Err(bad_input(format!(
            "--tests {}: not a directory",
            args.tests.display()
        )));
    }
    let config = MutateConfig {
        classpath: args.classpath.clone(),
        class: rivet_classfile::ClassName::from_binary(&args.class),
        tests: args.tests.clone(),
        test_classpath: args.test_classpath.clone(),
        keep_artifacts: args.keep_artifacts.clone(),
    };
    eprintln!("rivet: mutating {} …", args.class);
    let score = mutate(&config).map_err(|e| {
        if e.is_bad_input() {
            bad_input(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    })?;
    let json = serde_json::to_string_pretty(&score).context("writing the report")?;
    std::fs::write(&args.report, json)
        .with_context(|| format!("writing {}", args.report.display()))?;
    write!(
        std::io::stdout().lock(),
        "{}",
        summary(&args.class, &score, &args.report.display().to_string())
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The summary printed on stdout.
pub fn summary(class: &str, s: &MutationScore, report: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "rivet mutate {class}");
    let _ = writeln!(out, "  mutation    {}", s.summary());
    let _ = writeln!(out, "  time        {:.1} s", s.seconds);
    let survivors: Vec<_> = s
        .rows
        .iter()
        .filter(|r| r.status == MutantStatus::Survived)
        .collect();
    for r in survivors.iter().take(SHOWN) {
        let line = r.line.map_or("?".into(), |l| l.to_string());
        // A nested class's mutants name their class.
        let method = r.place_in(&ClassName::from_binary(class));
        let _ = writeln!(
            out,
            "    survived  {method}:{line} {} ({})",
            r.description, r.operator
        );
    }
    if survivors.len() > SHOWN {
        let _ = writeln!(out, "    … and {} more", survivors.len() - SHOWN);
    }
    let _ = writeln!(out, "  report      {report}");
    out
}
