//! The path-condition selection policies end to end on real JVMs, on `structures.NodeCachingList`
//! with the symbolic strategy alone until the budget is spent: FIFO tries the paths in the
//! order explored; TARDIS learns from the goals' outcomes and, once it has a feasible example,
//! picks from its buckets; both also pick among the alternatives of the tests' own paths; the
//! report's `pc_selection` and the `selection.json` artifact agree with each other and with the
//! goals' outcomes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet;
use serde_json::Value;

/// Runs `--pc-policy policy`; the report and the selection artifact.
fn run(policy: &str) -> (Value, Value) {
    let subjects = rivet_testkit::compiled_subjects(11);
    let dir = rivet_testkit::cache_dir().join(format!("cli-pc-policy-{policy}"));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.join("tests");
    let art = dir.join("artifacts");
    let o = rivet(&[
        "generate",
        "--classpath",
        &subjects.display().to_string(),
        "--class",
        "structures.NodeCachingList",
        "--out",
        &out.display().to_string(),
        "--budget",
        "40",
        "--strategy",
        "symbolic",
        "--pc-policy",
        policy,
        "--pc-until-budget",
        "--keep-artifacts",
        &art.display().to_string(),
    ]);
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let read = |p: std::path::PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    (
        read(out.join("rivet-report.json")),
        read(art.join("symbolic").join("selection.json")),
    )
}

/// The counts agree with the attempts, which are in the order tried.
fn check_counts(s: &Value) -> Vec<&Value> {
    let attempts: Vec<&Value> = s["attempts"].as_array().unwrap().iter().collect();
    let with = |o: &str| attempts.iter().filter(|a| a["outcome"] == o).count() as u64;
    assert_eq!(s["tried"].as_u64().unwrap(), attempts.len() as u64);
    assert_eq!(s["satisfied"], with("reached"));
    assert_eq!(s["failed"], with("failed"));
    assert_eq!(s["cut_short"], with("cut-short"));
    let times: Vec<f64> = attempts
        .iter()
        .map(|a| a["tried_s"].as_f64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // The classifier learned exactly the goals settled (reached ones feasible, failed ones
    // infeasible), the tests' own paths (feasible) and the alternatives the solver refuted
    // (infeasible): the symbolic strategy runs alone, so there is no other source.
    let c = &s["classifier"];
    let a = &s["alternatives"];
    let sources = a["sources"].as_u64().unwrap();
    assert!(sources >= 1, "some test's path was confirmed: {a}");
    assert!(a["alternatives"].as_u64().unwrap() >= 1, "{a}");
    assert_eq!(c["by_source"]["test-path"], sources);
    assert_eq!(
        c["feasible"].as_u64().unwrap(),
        s["satisfied"].as_u64().unwrap() + sources
    );
    let refuted = a["refuted"].as_u64().unwrap();
    assert_eq!(
        c["by_source"]["solver-unsat"].as_u64().unwrap_or(0),
        refuted
    );
    assert_eq!(
        c["infeasible"].as_u64().unwrap(),
        s["failed"].as_u64().unwrap() + refuted
    );
    assert_eq!(c["by_source"]["goal-reached"], s["satisfied"]);
    attempts
}

#[test]
fn fifo_follows_exploration_order_and_tardis_draws_from_its_buckets() {
    let (report, selection) = run("fifo");
    let s = &report["pc_selection"];
    assert_eq!(s, &selection, "the report and the artifact say the same");
    assert_eq!(s["policy"], "fifo");
    let attempts = check_counts(s);
    assert!(attempts.len() >= 10, "{s}");
    let paths: Vec<u64> = attempts
        .iter()
        .map(|a| a["path"].as_u64().unwrap())
        .collect();
    assert!(paths.windows(2).all(|w| w[0] < w[1]), "{paths:?}");
    assert!(attempts.iter().all(|a| a.get("bucket").is_none()));
    // FIFO ranks nothing: the alternatives wait, unclassified, behind the explored paths.
    let (tried, _) = alternatives_tried(&attempts);
    let a = &s["alternatives"];
    assert!(a["untried"].as_object().unwrap().is_empty(), "{a}");
    assert_eq!(
        tried + a["untried_unclassified"].as_u64().unwrap(),
        a["alternatives"].as_u64().unwrap(),
        "{a}"
    );

    let (report, selection) = run("tardis");
    let s = &report["pc_selection"];
    assert_eq!(s, &selection);
    assert_eq!(s["policy"], "tardis");
    let attempts = check_counts(s);
    let c = &s["classifier"];
    // Every pick is either in exploration order before the classifier could classify, or
    // drawn from a bucket, and the attempts say which.
    let bucketed = attempts
        .iter()
        .filter(|a| a.get("bucket").is_some())
        .count() as u64;
    let picks: u64 = c["picks"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(picks, bucketed, "{c}");
    assert_eq!(
        picks + c["unclassified_picks"].as_u64().unwrap(),
        attempts.len() as u64
    );
    assert!(
        s["satisfied"].as_u64().unwrap() >= 1 && picks >= 1,
        "a goal was reached, so the classifier drew from its buckets: {s}"
    );
    assert!(!c["predictions"].as_object().unwrap().is_empty(), "{c}");
    // TARDIS ranks the alternatives with the explored paths: tried or not, they carry the
    // classifier's buckets. (How many are tried is chance: they join the pool 12-18 s in, and
    // a run tried 3-10 in the picks left; one tried none.)
    let (tried, ranked_tried) = alternatives_tried(&attempts);
    let untried = &s["alternatives"]["untried"];
    let ranked_untried: u64 = untried
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert!(ranked_tried + ranked_untried >= 1, "{s}");
    assert_eq!(
        tried + ranked_untried + s["alternatives"]["untried_unclassified"].as_u64().unwrap(),
        s["alternatives"]["alternatives"].as_u64().unwrap(),
        "every alternative kept was tried or is pending: {s}"
    );
}

/// The alternatives among the attempts, and those of them drawn from a bucket.
fn alternatives_tried(attempts: &[&Value]) -> (u64, u64) {
    let tried: Vec<_> = attempts
        .iter()
        .filter(|a| a["alternative"] == true)
        .collect();
    let ranked = tried.iter().filter(|a| a.get("bucket").is_some()).count();
    (tried.len() as u64, ranked as u64)
}
