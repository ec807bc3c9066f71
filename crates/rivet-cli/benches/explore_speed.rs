//! Benchmark: exploration speed of `rivet explore` on the data-structure subjects with heap
//! scope 5, against the goal of 1,000 paths per second (brief §6). Run with
//! `cargo bench -p rivet-cli --bench explore_speed`; it prints the figures and their ratio to
//! the goal (timing belongs here, not in the tests).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::process::{Command, Output};

fn rivet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rivet"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run rivet: {e}"))
}

fn paths_per_s(method: &str, scope: &str) -> f64 {
    let subjects = rivet_testkit::compiled_subjects(11);
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    let out = std::env::temp_dir().join(format!("rivet-explore-speed-{}", std::process::id()));
    let args = [
        "explore",
        "--classpath",
        subjects.to_str().unwrap_or_else(|| panic!("utf-8 path")),
        "--method",
        method,
        "--jdk",
        jdk.to_str().unwrap_or_else(|| panic!("utf-8 path")),
        "--heap-scope",
        scope,
        "--max-paths",
        "20000",
        "--out",
        out.to_str().unwrap_or_else(|| panic!("utf-8 path")),
    ];
    let output = rivet(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary =
        std::fs::read_to_string(out.join("summary.json")).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&out);
    let summary: serde_json::Value =
        serde_json::from_str(&summary).unwrap_or_else(|e| panic!("{e}"));
    let rate = summary["paths_per_s"].as_f64().unwrap_or(0.0);
    println!(
        "{method}: {} paths, {rate:.0} paths/s ({:.1}x the goal of 1000)",
        summary["paths"],
        rate / 1000.0
    );
    rate
}

fn main() {
    // `cargo test --benches` runs this too; only `cargo bench` (which passes --bench) measures.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    println!("rivet explore speed (heap scope 5)");
    paths_per_s("structures.AvlTree.insert(I)Z", "structures.AvlTree$Node=5");
    paths_per_s(
        "structures.NodeCachingList.removeAt(I)I",
        "structures.NodeCachingList$Node=5",
    );
}
