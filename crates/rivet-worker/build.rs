//! Build script: compiles the Java worker harness (`java/rivet/worker`) together with the
//! instrumentation runtime (`../rivet-instrument/java/rivet/runtime`) with the JDK's `javac
//! --release 8`, and generates the table of class files that the crate embeds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use rivet_build::{collect, find_javac};

fn main() {
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let harness_src = manifest.join("java");
    let runtime_src = manifest.join("../rivet-instrument/java");
    println!("cargo:rerun-if-changed={}", harness_src.display());
    println!("cargo:rerun-if-changed={}", runtime_src.display());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    println!("cargo:rerun-if-env-changed=PATH");

    let mut sources = Vec::new();
    collect(&harness_src, "java", &mut sources);
    collect(&runtime_src, "java", &mut sources);
    sources.sort();

    let classes = out_dir.join("harness-classes");
    let _ = std::fs::remove_dir_all(&classes);
    std::fs::create_dir_all(&classes).expect("create harness class dir");

    let table = out_dir.join("harness_classes.rs");
    let Some(javac) = find_javac() else {
        println!(
            "cargo:warning=rivet-worker: no javac found (JAVA_HOME or PATH); the worker harness is \
             not embedded and WorkerPool::new will fail"
        );
        std::fs::write(
            &table,
            "pub(crate) const HARNESS_CLASSES: &[(&str, &[u8])] = &[];\n",
        )
        .expect("write harness table");
        return;
    };
    let status = Command::new(&javac)
        .args([
            "--release",
            "8",
            "-Xlint:-options",
            "-encoding",
            "UTF-8",
            "-g:source,lines",
        ])
        .arg("-d")
        .arg(&classes)
        .args(&sources)
        .status()
        .unwrap_or_else(|e| panic!("running {}: {e}", javac.display()));
    assert!(status.success(), "javac failed on the worker harness");

    let mut files = Vec::new();
    collect(&classes, "class", &mut files);
    files.sort();
    let mut rs = String::from("pub(crate) const HARNESS_CLASSES: &[(&str, &[u8])] = &[\n");
    for f in &files {
        let rel = f.strip_prefix(&classes).expect("class under out dir");
        let name = rel.to_string_lossy().replace('\\', "/");
        writeln!(
            rs,
            "    ({name:?}, include_bytes!({:?})),",
            f.display().to_string()
        )
        .expect("write to string");
    }
    rs.push_str("];\n");
    std::fs::write(&table, rs).expect("write harness table");
}
