//! Conventions the code base keeps, checked on every run: every Rust source file opens with a
//! `//!` line saying what it is for, no source file grows past 800 lines, and only the
//! engine's registry names the techniques.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 800;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn every_rust_file_says_what_it_is_for_and_stays_under_800_lines() {
    let root = rivet_testkit::repo_root().join("crates");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 100,
        "found only {} files under {}",
        files.len(),
        root.display()
    );
    let mut offenders = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        if !text.starts_with("//!") {
            offenders.push(format!("{}: does not open with a `//!` line", f.display()));
        }
        let lines = text.lines().count();
        if lines > MAX_LINES {
            offenders.push(format!(
                "{}: {lines} lines (at most {MAX_LINES})",
                f.display()
            ));
        }
    }
    assert!(offenders.is_empty(), "tidy:\n{}", offenders.join("\n"));
}

/// The registry is the one place that lists Rivet's techniques: outside it, neither the engine
/// nor the CLI names a technique's plug-in or strategy type (a new technique is a crate of its
/// own and a line in the registry).
#[test]
fn only_the_registry_names_the_techniques() {
    let root = rivet_testkit::repo_root().join("crates");
    let registry = root.join("rivet-engine/src/strategy_phase.rs");
    let mut files = Vec::new();
    rust_files(&root.join("rivet-engine/src"), &mut files);
    rust_files(&root.join("rivet-cli/src"), &mut files);
    assert!(
        files.contains(&registry),
        "no registry at {}",
        registry.display()
    );
    let names = [
        "SearchPlugin",
        "SushiPlugin",
        "ConcolicPlugin",
        "SymbolicStrategy",
        "ConcolicStrategy",
    ];
    let mut offenders = Vec::new();
    for f in files.iter().filter(|f| **f != registry) {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for name in names.iter().filter(|n| text.contains(*n)) {
            offenders.push(format!("{}: names {name}", f.display()));
        }
    }
    assert!(
        offenders.is_empty(),
        "outside the registry:\n{}",
        offenders.join("\n")
    );
}
