//! `rivet branches`: prints every branch of the selected classes as TSV.

use crate::bad_input;
use crate::cli::BranchesArgs;
use anyhow::Result;
use rivet_analysis::{analyze_class, ClassAnalysis};
use rivet_classfile::ClassFile;
use rivet_classfile::ClassName;
use rivet_classpath::Classpath;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Header of the TSV output.
pub const HEADER: &str = "class\tmethod\tdescriptor\tbranch\toffset\tline\tkind";

pub fn run(args: &BranchesArgs) -> Result<ExitCode> {
    let classpath =
        Classpath::parse(&args.classpath, None).map_err(|e| bad_input(e.to_string()))?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    if let Some(class) = &args.class {
        // One class: nothing is printed unless it can be read.
        let analysis = load(
            &classpath,
            ClassName::from_binary(class).internal(),
            &args.classpath,
        )?;
        writeln!(out, "{HEADER}")?;
        print(&mut out, &analysis)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let names = match &args.package {
        Some(pkg) => {
            let names = classpath
                .package_classes(&pkg.replace('.', "/"))
                .map_err(|e| bad_input(e.to_string()))?;
            if names.is_empty() {
                return Err(bad_input(format!(
                    "package {pkg} has no classes on the classpath {}",
                    args.classpath
                )));
            }
            names
        }
        None => classpath
            .user_classes()
            .map_err(|e| bad_input(e.to_string()))?,
    };
    writeln!(out, "{HEADER}")?;
    let mut failures = 0usize;
    for internal in &names {
        match load(&classpath, internal, &args.classpath) {
            Ok(analysis) => print(&mut out, &analysis)?,
            Err(e) => {
                // Keep what was printed, name the unreadable class, and go on.
                failures += 1;
                out.flush()?;
                eprintln!("rivet: error: {e:#}");
            }
        }
    }
    out.flush()?;
    if failures > 0 {
        return Err(bad_input(format!(
            "{failures} of {} classes could not be read (see above)",
            names.len()
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads, parses and analyses one class; every failure is bad input naming the class.
fn load(classpath: &Classpath, internal: &str, cp_text: &str) -> Result<ClassAnalysis> {
    let binary = ClassName::from_internal(internal).binary();
    let bytes = classpath
        .class_bytes(internal)
        .map_err(|e| bad_input(format!("class {binary}: {e}")))?
        .ok_or_else(|| {
            bad_input(format!(
                "class {binary} not found on the classpath {cp_text}"
            ))
        })?;
    let cf = ClassFile::parse(&bytes).map_err(|e| bad_input(e.in_class(&binary).to_string()))?;
    analyze_class(&cf).map_err(|e| bad_input(e.to_string()))
}

fn print(out: &mut impl Write, analysis: &ClassAnalysis) -> Result<()> {
    for (m, b) in analysis.branches() {
        let line = b.line.map_or_else(|| "-".to_string(), |l| l.to_string());
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}",
            analysis.class, m.name, m.descriptor, b.id, b.offset, line, b.kind
        )?;
    }
    Ok(())
}
