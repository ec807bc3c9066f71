//! Build script: compiles the Java runtime that instrumented classes call
//! (`java/rivet/runtime/*.java`) with the JDK's `javac --release 8` (from `JAVA_HOME`, else
//! `PATH`) and generates the table of class files that the crate embeds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use rivet_build::{collect, find_javac};

fn main() {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env("OUT_DIR"));
    let src = manifest.join("java");
    println!("cargo:rerun-if-changed=java");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    println!("cargo:rerun-if-env-changed=PATH");

    let mut sources = Vec::new();
    collect(&src, "java", &mut sources);
    sources.sort();

    let classes = out_dir.join("runtime-classes");
    let _ = std::fs::remove_dir_all(&classes);
    if let Err(e) = std::fs::create_dir_all(&classes) {
        panic!("creating {}: {e}", classes.display());
    }
    let table = out_dir.join("runtime_classes.rs");
    let Some(javac) = find_javac() else {
        println!(
            "cargo:warning=rivet-instrument: no javac found (JAVA_HOME or PATH); the runtime classes \
             are not embedded and instrumenting a classpath will fail"
        );
        write(&table, "const RUNTIME_CLASSES: &[(&str, &[u8])] = &[];\n");
        return;
    };
    let status = Command::new(&javac)
        .args(["--release", "8", "-Xlint:-options", "-encoding", "UTF-8"])
        .args(["-g:source,lines", "-d"])
        .arg(&classes)
        .args(&sources)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("{} failed on the runtime sources ({s})", javac.display()),
        Err(e) => panic!("running {}: {e}", javac.display()),
    }

    let mut files = Vec::new();
    collect(&classes, "class", &mut files);
    files.sort();
    let mut rs = String::from("const RUNTIME_CLASSES: &[(&str, &[u8])] = &[\n");
    for f in &files {
        let Ok(rel) = f.strip_prefix(&classes) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let name = rel.trim_end_matches(".class");
        let _ = writeln!(
            rs,
            "    ({name:?}, include_bytes!({:?})),",
            f.display().to_string()
        );
    }
    rs.push_str("];\n");
    write(&table, &rs);
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("cargo sets {name}"))
}

fn write(path: &Path, text: &str) {
    if let Err(e) = std::fs::write(path, text) {
        panic!("writing {}: {e}", path.display());
    }
}
