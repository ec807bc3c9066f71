//! The concolic strategy inside `rivet generate`, end to end on real JVMs: on `lct.Examples`
//! `--strategy concolic` traces runs, solves for the outcomes not yet seen and runs the new
//! tests; figure 15's box is modelled (no divergence), while the same shape through a box
//! Rivet does not model diverges and is reported (the solver treats the box as unknown and
//! predicts `return 1`; the JVM, where the box is the identity, returns 2). On a class
//! whose branch depends on a field set through the constructor and another call, the whole
//! test is replayed with its values as symbols (mode (a)) and the solution covers it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// Runs `--strategy concolic` on `class` of `classes` for 5 s; the report and the summary.
fn concolic(classes: &std::path::Path, class: &str) -> (rivet_report::Report, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tests");
    let stdout = common::rivet_ok(&[
        "generate",
        "--classpath",
        &classes.display().to_string(),
        "--class",
        class,
        "--out",
        &out.display().to_string(),
        "--budget",
        "5",
        "--seed",
        "0",
        "--strategy",
        "concolic",
    ]);
    let report: rivet_report::Report =
        serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
            .unwrap();
    assert_eq!(report.strategy, "concolic");
    (report, stdout)
}

/// Compiled once per test binary (its tests run on threads of one process: a second javac
/// rewriting the class files could hand another test an empty one).
fn fixtures() -> std::path::PathBuf {
    static CLASSES: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    CLASSES
        .get_or_init(|| {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/concolic/conc");
            let sources = ["Gauge.java", "Hidden.java"].map(|f| dir.join(f));
            let classes = rivet_testkit::cache_dir()
                .join(format!("cli-concolic-fixtures-{}", std::process::id()));
            rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &sources, &classes);
            classes
        })
        .clone()
}

/// Figure 15's outcome `return 1` is infeasible. The paper's tool predicts it through the
/// black box and diverges; Rivet models `lct.Examples`'s box, `Integer.parseInt(Integer.
/// toString(y))`, as strings, so the solver proves the outcome infeasible and nothing diverges.
#[test]
fn concolic_on_lct_examples_sees_through_figure_15s_box() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let (report, _) = concolic(&subjects, "lct.Examples");
    let c = report.concolic().expect("a concolic section");
    assert!(c.traced_runs > 0 && c.solved > 0 && c.tests > 0, "{c:?}");
    assert!(
        !c.diverged_at
            .keys()
            .any(|k| k.starts_with("Examples.figure15")),
        "{c:?}"
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

/// Through a box Rivet does not model, the prediction of figure 15's `return 1` fails on the
/// JVM: the divergence is counted and reported where it happened.
#[test]
fn concolic_reports_figure_15s_divergence_through_a_black_box() {
    let (report, stdout) = concolic(&fixtures(), "conc.Hidden");
    let c = report.concolic().expect("a concolic section");
    assert!(c.divergences > 0, "{c:?}");
    assert!(
        c.diverged_at
            .keys()
            .any(|k| k.starts_with("Hidden.compare line 11")),
        "{c:?}"
    );
    assert!(
        stdout.contains("diverged at Hidden.compare line 11"),
        "{stdout}"
    );
}

#[test]
fn concolic_replays_whole_tests_for_conditions_on_fields_set_by_earlier_calls() {
    let (report, _) = concolic(&fixtures(), "conc.Gauge");
    let c = report.concolic().expect("a concolic section");
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
