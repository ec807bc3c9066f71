//! `rivet mutate` end to end on the `mut.Ops` fixture (one method per PIT operator) with
//! hand-written suites: which mutants are killed, survive, are not covered, time out or end
//! the JVM, as PIT counts them; JUnit 4 suites too; and the three bad inputs (a suite that
//! does not compile, a class not on the classpath, a suite that fails on the original code)
//! each end with exit 2 and one line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::rivet;
use serde_json::Value;

/// Compiled once per test binary (its tests run on threads of one process: a second javac
/// rewriting the class files could hand another test an empty one).
fn ops_classes() -> PathBuf {
    static OUT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    OUT.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../rivet-mutate/tests/fixtures/mut/Ops.java");
        let out = rivet_testkit::cache_dir().join("cli-mutate-ops");
        rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[src], &out);
        out
    })
    .clone()
}

fn suite(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mutate")
        .join(name)
        .display()
        .to_string()
}

/// Runs `rivet mutate` on a suite; its exit status, stderr and report (when written).
fn mutate(suite_dir: &str, class: &str, name: &str) -> (std::process::Output, Option<Value>) {
    let report = rivet_testkit::cache_dir().join(format!("cli-mutate-{name}.json"));
    let _ = std::fs::remove_file(&report);
    let o = rivet(&[
        "mutate",
        "--classpath",
        &ops_classes().display().to_string(),
        "--class",
        class,
        "--tests",
        suite_dir,
        "--report",
        &report.display().to_string(),
    ]);
    let json = std::fs::read_to_string(&report)
        .ok()
        .map(|t| serde_json::from_str(&t).expect("report is JSON"));
    (o, json)
}

/// The status of the mutant of `method` made by `operator`.
fn status(report: &Value, method: &str, operator: &str) -> String {
    let rows = report["rows"].as_array().expect("rows");
    let row = rows
        .iter()
        .find(|r| r["method"] == method && r["operator"] == operator)
        .unwrap_or_else(|| panic!("no {operator} mutant in {method}"));
    row["status"].as_str().unwrap().to_string()
}

#[test]
fn a_junit5_suite_is_scored_as_pit_counts() {
    let (o, report) = mutate(&suite("green"), "mut.Ops", "green");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report.expect("report written");
    // Asserted results kill their mutants.
    assert_eq!(status(&r, "add", "MATH"), "KILLED");
    assert_eq!(status(&r, "add", "PRIMITIVE_RETURNS"), "KILLED");
    assert_eq!(status(&r, "less", "NEGATE_CONDITIONALS"), "KILLED");
    assert_eq!(status(&r, "less", "FALSE_RETURNS"), "KILLED");
    // Values far from the boundary, and calls whose effect nobody looks at, do not.
    assert_eq!(status(&r, "less", "CONDITIONALS_BOUNDARY"), "SURVIVED");
    assert_eq!(status(&r, "touch", "VOID_METHOD_CALLS"), "SURVIVED");
    assert_eq!(status(&r, "record", "MATH"), "SURVIVED");
    // n - 1 become n + 1 never reaches 0: timed out, detected.
    let drain: Vec<&Value> = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["method"] == "drain" && m["operator"] == "MATH")
        .collect();
    assert!(
        drain.iter().any(|m| m["status"] == "TIMED_OUT"),
        "{drain:?}"
    );
    // The negated guard halts the JVM: a run error, detected.
    assert_eq!(status(&r, "guard", "NEGATE_CONDITIONALS"), "RUN_ERROR");
    // Methods no test calls.
    assert_eq!(status(&r, "negate", "INVERT_NEGS"), "NO_COVERAGE");
    assert_eq!(status(&r, "trimmed", "EMPTY_RETURNS"), "NO_COVERAGE");
    // The halt the guard skips is not reached either.
    assert_eq!(status(&r, "guard", "VOID_METHOD_CALLS"), "NO_COVERAGE");
    // Killing tests are named, and the score counts timeouts and run errors as killed.
    let rows = r["rows"].as_array().unwrap();
    let killed = rows
        .iter()
        .filter(|m| ["KILLED", "TIMED_OUT", "RUN_ERROR"].contains(&m["status"].as_str().unwrap()))
        .count();
    assert_eq!(r["killed"].as_u64().unwrap() as usize, killed);
    assert_eq!(r["mutants"].as_u64().unwrap() as usize, rows.len());
    let add = rows
        .iter()
        .find(|m| m["method"] == "add" && m["operator"] == "MATH")
        .unwrap();
    assert_eq!(add["killed_by"], "mut.OpsTest#adds()");
    assert!(
        rows.iter().all(|m| m["status"] != "NON_VIABLE"),
        "every mutant loads"
    );
    assert!(stdout.contains("mutation"), "{stdout}");
    assert!(stdout.contains("survived  less:16"), "{stdout}");
}

#[test]
fn a_junit4_suite_is_scored_too() {
    let (o, report) = mutate(&suite("junit4"), "mut.Ops", "junit4");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = report.expect("report written");
    assert_eq!(status(&r, "add", "MATH"), "KILLED");
    assert_eq!(status(&r, "less", "NEGATE_CONDITIONALS"), "NO_COVERAGE");
}

/// Exit 2, one line on stderr naming the problem, no report.
fn bad_input(suite_dir: &str, class: &str, name: &str, expected: &str) {
    let (o, report) = mutate(suite_dir, class, name);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{name}: {stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{name}: {stderr}");
    assert!(errors[0].contains(expected), "{name}: {stderr}");
    assert!(report.is_none(), "{name}: a report was written");
}

#[test]
fn bad_input_ends_with_exit_2_and_one_line() {
    bad_input(
        &suite("broken"),
        "mut.Ops",
        "broken",
        "do not compile (1 errors): OpsBrokenTest.java:8",
    );
    bad_input(
        &suite("green"),
        "mut.Absent",
        "absent",
        "class mut.Absent is not on the classpath",
    );
    bad_input(
        &suite("red"),
        "mut.Ops",
        "red",
        "the tests fail on the unmutated mut.Ops: mut.OpsRedTest#addsWrongly() fails",
    );
}
