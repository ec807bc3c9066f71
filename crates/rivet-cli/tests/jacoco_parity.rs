//! `rivet branches` counts the same branches per method as JaCoCo 0.8.6 on the subjects and on
//! three real Debian jars; the subjects compiled for Java 17 and 25 count as their Java 11 build.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet_ok;
use rivet_testkit::{count_differences, jacoco_branch_counts, rivet_branch_counts, BranchCounts};
use std::path::Path;

fn rivet_counts(classpath: &Path) -> BranchCounts {
    let cp = classpath.to_str().expect("utf-8 path");
    rivet_branch_counts(&rivet_ok(&["branches", "--classpath", cp, "--all"]))
}

fn assert_same(what: &str, expected: &BranchCounts, actual: &BranchCounts) {
    let diffs = count_differences(expected, actual);
    assert!(
        diffs.is_empty(),
        "{what}: {} method(s) differ:\n{}",
        diffs.len(),
        diffs
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let total: u32 = expected.values().sum();
    assert!(total > 0, "{what}: no branches at all");
    eprintln!("{what}: {} methods, {total} branches agree", expected.len());
}

#[test]
fn subjects_match_jacoco() {
    let dir = rivet_testkit::compiled_subjects(11);
    assert_same(
        "subjects",
        &jacoco_branch_counts(&[&dir]),
        &rivet_counts(&dir),
    );
}

#[test]
fn commons_lang3_matches_jacoco() {
    let jar = rivet_testkit::debian_jar("commons-lang3");
    assert_same(
        "commons-lang3",
        &jacoco_branch_counts(&[&jar]),
        &rivet_counts(&jar),
    );
}

#[test]
fn commons_collections4_matches_jacoco() {
    let jar = rivet_testkit::debian_jar("commons-collections4");
    assert_same(
        "commons-collections4",
        &jacoco_branch_counts(&[&jar]),
        &rivet_counts(&jar),
    );
}

#[test]
fn guava_matches_jacoco() {
    let jar = rivet_testkit::debian_jar("guava");
    assert_same("guava", &jacoco_branch_counts(&[&jar]), &rivet_counts(&jar));
}

#[test]
fn release_17_and_25_builds_count_as_release_11() {
    let base = rivet_counts(&rivet_testkit::compiled_subjects(11));
    for release in [17, 25] {
        let other = rivet_counts(&rivet_testkit::compiled_subjects(release));
        assert_same(&format!("subjects --release {release}"), &base, &other);
    }
}
