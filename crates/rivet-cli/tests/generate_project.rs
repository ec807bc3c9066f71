//! `rivet generate` over many classes, end to end: a package of the subjects gives a test
//! file and a per-class report per class, nested classes skipped with the reason, and the
//! index report; two shards take the classes of the unsharded run exactly once between them,
//! and `rivet report merge` of the shards gives the unsharded run's classes and totals.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use rivet_engine::{ClassStatus, ProjectReport};

fn index(dir: &Path) -> ProjectReport {
    serde_json::from_str(&std::fs::read_to_string(dir.join("rivet-report.json")).unwrap())
        .unwrap()
}

fn run(subjects: &Path, out: &Path, extra: &[&str]) -> String {
    let cp = subjects.display().to_string();
    let out_s = out.display().to_string();
    let mut args = vec![
        "generate",
        "--classpath",
        &cp,
        "--package",
        "strings",
        "--budget",
        "3",
        "--seed",
        "0",
        "--strategy",
        "search",
        "--out",
        &out_s,
    ];
    args.extend_from_slice(extra);
    common::rivet_ok(&args)
}

#[test]
fn a_package_sharded_and_merged_covers_the_same_classes_as_one_run() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let stdout = run(&subjects, &whole, &[]);
    let r = index(&whole);
    assert_eq!(r.kind, "project");
    let generated: Vec<&str> = r
        .classes
        .iter()
        .filter(|c| c.status == ClassStatus::Generated)
        .map(|c| c.class.as_str())
        .collect();
    assert_eq!(generated, vec!["strings.DateParser", "strings.Iban"], "{r:?}");
    for c in r.classes.iter().filter(|c| c.status == ClassStatus::Generated) {
        let test = whole.join(c.test_file.as_deref().unwrap());
        assert!(test.is_file(), "{}", test.display());
        assert!(whole.join(c.report_file.as_deref().unwrap()).is_file());
        assert!(c.verified && c.tests > 0, "{c:?}");
    }
    assert_eq!(
        r.branches_total,
        r.classes.iter().map(|c| c.branches_total).sum::<usize>()
    );
    assert!(stdout.contains("2 generated"), "{stdout}");
    assert!(stdout.contains("strings.Iban"), "{stdout}");

    // Two shards: each class exactly once.
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    run(&subjects, &a, &["--shard", "1/2"]);
    run(&subjects, &b, &["--shard", "2/2"]);
    let (ra, rb) = (index(&a), index(&b));
    assert_eq!(ra.shard.as_deref(), Some("1/2"));
    let mut classes: Vec<String> = ra
        .classes
        .iter()
        .chain(rb.classes.iter())
        .map(|c| c.class.clone())
        .collect();
    classes.sort();
    let unsharded: Vec<String> = r.classes.iter().map(|c| c.class.clone()).collect();
    assert_eq!(classes, unsharded);

    // Merged: the same classes and totals as the unsharded run, files copied.
    let merged = dir.path().join("merged");
    let a_s = a.display().to_string();
    let b_s = b.display().to_string();
    let m_s = merged.display().to_string();
    common::rivet_ok(&["report", "merge", &a_s, &b_s, "--out", &m_s]);
    let m = index(&merged);
    let names: Vec<String> = m.classes.iter().map(|c| c.class.clone()).collect();
    assert_eq!(names, unsharded);
    assert_eq!(m.branches_total, r.branches_total);
    assert_eq!(
        (m.generated, m.skipped, m.failed),
        (r.generated, r.skipped, r.failed)
    );
    for c in m.classes.iter().filter(|c| c.status == ClassStatus::Generated) {
        assert!(merged.join(c.test_file.as_deref().unwrap()).is_file());
        assert!(merged.join(c.report_file.as_deref().unwrap()).is_file());
    }
}

#[test]
fn bad_project_flags_are_refused_with_one_message() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let cp = subjects.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().display().to_string();
    for (args, expect) in [
        (vec!["--package", "nosuch.pkg"], "no classes"),
        (vec!["--package", "strings", "--shard", "3/2"], "--shard"),
        (
            vec!["--class", "strings.Iban", "--class", "strings.DateParser", "--method", "x"],
            "--method needs exactly one --class",
        ),
    ] {
        let mut all = vec!["generate", "--classpath", &cp, "--out", &out, "--budget", "2"];
        all.extend(args.iter().copied());
        let o = common::rivet(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expect), "{all:?}: {err}");
    }
}
