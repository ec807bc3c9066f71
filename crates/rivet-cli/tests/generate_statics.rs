//! A fresh class state for every test: `statics.Registry` freezes after three names, for the
//! rest of the JVM's life unless its static state is reset. Rivet covers every branch, and the
//! written suite passes in its own order, in random orders and test by test alone, with the
//! report's coverage what that suite covers in a fresh JVM.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet_ok;

#[test]
fn registry_is_covered_by_tests_that_pass_in_any_order_and_alone() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let stdout = rivet_ok(&[
        "generate",
        "--classpath",
        &subjects.display().to_string(),
        "--class",
        "statics.Registry",
        "--out",
        &out.display().to_string(),
        "--budget",
        "10",
        "--seed",
        "0",
    ]);
    assert!(stdout.contains("branches    8/8 covered"), "{stdout}");

    let cp = common::junit5_classpath(&subjects);
    let source = std::fs::read_to_string(out.join("statics/RegistryRivetTest.java")).unwrap();
    // The same tests without their fixed order, so that JUnit may shuffle them.
    let any_order = source.replace(rivet_junit::FIXED_ORDER_5, "");
    let src = root.path().join("src/statics/RegistryRivetTest.java");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(&src, any_order).unwrap();
    let classes = root.path().join("classes");
    common::javac_tests(&cp, &[src], &classes);
    let junit = |extra: &[String]| common::junit_passes(&classes, &cp, root.path(), extra);
    let random =
        "junit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer$Random";
    for seed in 1..=3 {
        junit(&[
            "--select-class".into(),
            "statics.RegistryRivetTest".into(),
            "--config".into(),
            random.into(),
            "--config".into(),
            format!("junit.jupiter.execution.order.random.seed={seed}"),
        ]);
    }
    let tests: Vec<&str> = source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("public void "))
        .filter_map(|l| l.split('(').next())
        .collect();
    assert!(tests.len() >= 2, "{source}");
    for t in tests {
        junit(&[
            "--select-method".into(),
            format!("statics.RegistryRivetTest#{t}"),
        ]);
    }
}
