//! Helpers shared by the integration tests: scratch directories, compiling Java helpers with
//! JDK 17's javac, running `java`, and instrumenting with the library.

#![allow(dead_code)] // not every test binary uses every helper

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rivet_testkit::Jdk;

/// A fresh scratch directory under the testkit cache (`target/rivet-testkit/instrument-NAME`).
pub fn scratch(name: &str) -> PathBuf {
    let d = rivet_testkit::cache_dir().join(format!("instrument-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// This crate's directory.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Java helpers under tests/java (by file name).
pub fn java_source(name: &str) -> PathBuf {
    crate_dir().join("tests/java").join(name)
}

/// `javac --release 11 -g -cp CP -d OUT SOURCES` with JDK 17 (OUT replaced).
pub fn javac(classpath: &str, sources: &[PathBuf], out: &Path) {
    rivet_testkit::javac(Jdk::Jdk17, 11, classpath, sources, out);
}

/// JDK 17's `java` binary.
pub fn java() -> PathBuf {
    Jdk::Jdk17.home().join("bin/java")
}

/// Runs `java ARGS`; returns the output (not checked).
pub fn run_java(args: &[&str]) -> Output {
    Command::new(java()).args(args).output().expect("run java")
}

/// Runs `java ARGS` and returns stdout, failing the test with stderr when java fails.
pub fn run_java_ok(args: &[&str]) -> String {
    let out = run_java(args);
    assert!(
        out.status.success(),
        "java {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Joins classpath elements with ':'.
pub fn cp(parts: &[&Path]) -> String {
    parts
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}
