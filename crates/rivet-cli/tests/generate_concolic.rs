//! The concolic strategy inside `rivet generate`, end to end on real JVMs: on `lct.Examples`
//! `--strategy concolic` traces runs, solves for the outcomes not yet seen, runs the new
//! tests, and reports figure 15's divergence (the solver treats `blackBox` as unknown and
//! predicts `return 1`; the JVM, where `blackBox` is the identity, returns 2). On a class
//! whose branch depends on a field set through the constructor and another call, the whole
//! test is replayed with its values as symbols (mode (a)) and the solution covers it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

#[test]
fn concolic_on_lct_examples_reports_figure_15s_divergence() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tests");
    let stdout = common::rivet_ok(&[
        "generate",
        "--classpath",
        &subjects.display().to_string(),
        "--class",
        "lct.Examples",
        "--out",
        &out.display().to_string(),
        "--budget",
        "5",
        "--seed",
        "0",
        "--strategy",
        "concolic",
    ]);
    let report: rivet_engine::Report =
        serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
            .unwrap();
    assert_eq!(report.strategy, "concolic");
    let c = report.concolic.as_ref().expect("a concolic section");
    assert!(c.traced_runs > 0 && c.solved > 0 && c.tests > 0, "{c:?}");
    assert!(
        c.diverged_at
            .keys()
            .any(|k| k.starts_with("Examples.figure15 line 54")),
        "{c:?}"
    );
    assert!(
        stdout.contains("diverged at Examples.figure15 line 54"),
        "{stdout}"
    );
    // The infeasible outcome stays uncovered; the others of figure15 are covered.
    let figure15: Vec<_> = report
        .branches
        .iter()
        .filter(|b| b.method == "figure15")
        .collect();
    assert_eq!(figure15.len(), 4, "{figure15:?}");
    assert_eq!(
        figure15.iter().filter(|b| b.covered).count(),
        3,
        "{figure15:?}"
    );
}

#[test]
fn concolic_replays_whole_tests_for_conditions_on_fields_set_by_earlier_calls() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/concolic/conc/Gauge.java");
    let classes = rivet_testkit::cache_dir().join("cli-concolic-fixtures");
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[src], &classes);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tests");
    common::rivet_ok(&[
        "generate",
        "--classpath",
        &classes.display().to_string(),
        "--class",
        "conc.Gauge",
        "--out",
        &out.display().to_string(),
        "--budget",
        "5",
        "--seed",
        "0",
        "--strategy",
        "concolic",
    ]);
    let report: rivet_engine::Report =
        serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
            .unwrap();
    let c = report.concolic.as_ref().expect("a concolic section");
    assert!(c.whole_tests > 0, "{c:?}");
    // `level == 4000 + x`, level being 3 * |start| + delta: both outcomes of check.
    let check: Vec<_> = report
        .branches
        .iter()
        .filter(|b| b.method == "check")
        .collect();
    assert_eq!(check.len(), 2, "{check:?}");
    assert!(check.iter().all(|b| b.covered), "{check:?}");
}
