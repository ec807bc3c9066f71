//! `rivet branches`: prints every branch of the selected classes as TSV.

use crate::bad_input;
use crate::cli::BranchesArgs;
use anyhow::Result;
use rivet_analysis::analyze_class;
use rivet_classfile::ClassFile;
use rivet_classpath::Classpath;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Header of the TSV output.
pub const HEADER: &str = "class\tmethod\tdescriptor\tbranch\toffset\tline\tkind";

pub fn run(args: &BranchesArgs) -> Result<ExitCode> {
    let classpath = Classpath::parse(&args.classpath, None).map_err(|e| bad_input(e.to_string()))?;
    let names: Vec<String> = if let Some(class) = &args.class {
        vec![class.replace('.', "/")]
    } else if let Some(pkg) = &args.package {
        let pkg = pkg.replace('.', "/");
        let names = classpath
            .classes_in_package(&pkg)
            .map_err(|e| bad_input(e.to_string()))?;
        if names.is_empty() {
            return Err(bad_input(format!(
                "package {} has no classes on the classpath {}",
                pkg.replace('/', "."),
                args.classpath
            )));
        }
        names
    } else {
        classpath.user_classes().map_err(|e| bad_input(e.to_string()))?
    };
    let stdout = std::io::stdout().lock();
    let mut out = BufWriter::new(stdout);
    writeln!(out, "{HEADER}")?;
    let mut failures = 0usize;
    for internal in &names {
        let binary = internal.replace('/', ".");
        let bytes = match classpath.class_bytes(internal) {
            Ok(Some(b)) => b,
            Ok(None) => {
                return Err(bad_input(format!(
                    "class {binary} not found on the classpath {}",
                    args.classpath
                )))
            }
            Err(e) => {
                failures += 1;
                report(&mut out, &format!("class {binary}: {e}"))?;
                continue;
            }
        };
        let analysis = match ClassFile::parse(&bytes)
            .map_err(|e| e.in_class(&binary).to_string())
            .and_then(|cf| analyze_class(&cf).map_err(|e| e.to_string()))
        {
            Ok(a) => a,
            Err(e) => {
                failures += 1;
                report(&mut out, &e)?;
                continue;
            }
        };
        for (m, b) in analysis.branches() {
            let line = b.line.map_or_else(|| "-".to_string(), |l| l.to_string());
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                analysis.class, m.name, m.descriptor, b.id, b.offset, line, b.kind
            )?;
        }
    }
    out.flush()?;
    if failures > 0 {
        if names.len() == 1 {
            return Err(bad_input("the class could not be read"));
        }
        return Err(bad_input(format!(
            "{failures} of {} classes could not be read (see above)",
            names.len()
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// Flushes what was printed so far, then names one unreadable class on stderr.
fn report(out: &mut impl Write, message: &str) -> Result<()> {
    out.flush()?;
    eprintln!("rivet: error: {message}");
    Ok(())
}
