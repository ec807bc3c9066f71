//! `rivet instrument`: offline instrumentation of directories and jars into a directory, as
//! `jacococli instrument` does, with a `rivet-probes.tsv` listing every probe.

use crate::bad_input;
use crate::cli::InstrumentArgs;
use anyhow::Result;
use rivet_classpath::Classpath;
use rivet_instrument::{instrument_classpath, InstrumentConfig, InstrumentError, PROBES_TSV};
use std::io::Write;
use std::process::ExitCode;

pub fn run(args: &InstrumentArgs) -> Result<ExitCode> {
    let classpath =
        Classpath::parse(&args.classpath, None).map_err(|e| bad_input(e.to_string()))?;
    let entries: Vec<_> = classpath
        .entries()
        .iter()
        .map(|e| e.path().to_path_buf())
        .collect();
    if entries.is_empty() {
        return Err(bad_input("the classpath names no directory or jar"));
    }
    if args.out.exists() && !args.out.is_dir() {
        return Err(bad_input(format!(
            "--out {} exists and is not a directory",
            args.out.display()
        )));
    }
    for e in &entries {
        if e.is_dir() && same_dir(e, &args.out) {
            return Err(bad_input(format!(
                "--out {} is also on the classpath",
                args.out.display()
            )));
        }
    }
    let report = instrument_classpath(&entries, &args.out, &InstrumentConfig::default()).map_err(
        |e| match e {
            InstrumentError::Classpath(_) | InstrumentError::JarEntry { .. } => {
                bad_input(e.to_string())
            }
            other => anyhow::Error::new(other),
        },
    )?;
    for s in &report.unreadable {
        eprintln!("rivet: error: {}: {} (copied unchanged)", s.class, s.reason);
    }
    writeln!(
        std::io::stdout().lock(),
        "instrumented {} classes into {}: {} with probes ({} probes, {} switches), {} exit calls redirected, {} other files copied; probes listed in {}",
        report.classes,
        args.out.display(),
        report.probed,
        report.probes.probe_count(),
        report.switches,
        report.exits,
        report.resources,
        args.out.join(PROBES_TSV).display()
    )?;
    if !report.unprobed.is_empty() {
        writeln!(
            std::io::stdout().lock(),
            "{} classes got no probes (see the warnings above)",
            report.unprobed.len()
        )?;
    }
    if !report.unreadable.is_empty() {
        return Err(bad_input(format!(
            "{} of {} classes could not be read (see above)",
            report.unreadable.len(),
            report.classes
        )));
    }
    Ok(ExitCode::SUCCESS)
}

fn same_dir(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
