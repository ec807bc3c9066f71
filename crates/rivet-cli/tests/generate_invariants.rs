//! Heap invariants learned from real objects, end to end: `rivet generate` on
//! `structures.NodeCachingList` learns the list's back pointers and node count from snapshots of
//! the tests' objects, reports them and keeps them as an invariants file, which `rivet explore
//! --invariants` reads and uses; `--no-learned-invariants` learns nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet;

fn generate(dir: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let subjects = rivet_testkit::compiled_subjects(11);
    let _ = std::fs::remove_dir_all(dir);
    let out = dir.join("tests");
    let art = dir.join("artifacts");
    let mut args = vec![
        "generate".to_string(),
        "--classpath".into(),
        subjects.display().to_string(),
        "--class".into(),
        "structures.NodeCachingList".into(),
        "--out".into(),
        out.display().to_string(),
        "--budget".into(),
        "20".into(),
        "--keep-artifacts".into(),
        art.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = rivet(&args);
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap()).unwrap()
}

const BACK_POINTER: &str =
    "inverse structures.NodeCachingList$Node.next previous within structures.NodeCachingList.header";
const COUNT: &str = "count structures.NodeCachingList.size header next* -1";

#[test]
fn generate_learns_reports_and_keeps_invariants_that_explore_uses() {
    let dir = rivet_testkit::cache_dir().join("cli-generate-invariants");
    let report = generate(&dir, &[]);
    let learned = &report["symbolic"]["invariants"];
    assert!(learned["snapshots"].as_u64().unwrap() > 100, "{learned}");
    let texts: Vec<&str> = learned["invariants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["invariant"].as_str().unwrap())
        .collect();
    for expected in [BACK_POINTER, COUNT] {
        assert!(texts.contains(&expected), "{expected} not in {texts:#?}");
    }
    let file = dir.join("artifacts/symbolic/invariants.txt");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.lines().any(|l| l.starts_with(BACK_POINTER)), "{text}");
    assert!(dir.join("artifacts/symbolic/invariants.json").exists());

    // explore reads the file and uses it.
    let subjects = rivet_testkit::compiled_subjects(11);
    let explored = dir.join("explore");
    let o = rivet(&[
        "explore",
        "--classpath",
        &subjects.display().to_string(),
        "--method",
        "structures.NodeCachingList.removeAt(I)I",
        "--heap-scope",
        "structures.NodeCachingList$Node=3",
        "--invariants",
        &file.display().to_string(),
        "--no-replay",
        "--out",
        &explored.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(explored.join("summary.json")).unwrap())
            .unwrap();
    let used: Vec<&str> = summary["invariants_used"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["invariant"].as_str().unwrap())
        .collect();
    assert!(used.contains(&BACK_POINTER), "{summary}");
    assert!(used.contains(&COUNT), "{summary}");
}

#[test]
fn no_learned_invariants_learns_nothing() {
    let dir = rivet_testkit::cache_dir().join("cli-generate-no-invariants");
    let report = generate(&dir, &["--no-learned-invariants"]);
    assert!(
        report["symbolic"].get("invariants").is_none(),
        "{}",
        report["symbolic"]
    );
    assert!(!dir.join("artifacts/symbolic/invariants.txt").exists());
}
