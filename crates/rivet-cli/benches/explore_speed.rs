//! Exploration speed on the data-structure subjects with heap scope 5 (brief §6: at least
//! 1,000 paths per second). Timing depends on the build and the machine, so this runs on
//! request: `cargo test --release -p rivet-cli --test explore_speed -- --ignored --nocapture`.

mod common;

use common::rivet;

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
    println!("{method}: {summary}");
    summary["paths_per_s"].as_f64().unwrap_or(0.0)
}

#[test]
#[ignore = "timing: run in a release build on request"]
fn data_structures_explore_at_a_thousand_paths_per_second() {
    let avl = paths_per_s("structures.AvlTree.insert(I)Z", "structures.AvlTree$Node=5");
    let list = paths_per_s(
        "structures.NodeCachingList.removeAt(I)I",
        "structures.NodeCachingList$Node=5",
    );
    assert!(
        avl >= 1000.0 && list >= 1000.0,
        "AvlTree.insert {avl:.0}/s, NodeCachingList.removeAt {list:.0}/s"
    );
}
