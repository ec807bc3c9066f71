//! Golden snapshots of `rivet branches` on every bundled subject (compiled with --release 11).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet_ok;

#[test]
fn branches_of_each_subject() {
    let dir = rivet_testkit::compiled_subjects(11);
    let dir = dir.to_str().expect("utf-8 path");
    let classes: Vec<String> = rivet_testkit::class_files(std::path::Path::new(dir))
        .iter()
        .map(|p| {
            p.strip_prefix(dir)
                .expect("under dir")
                .with_extension("")
                .to_string_lossy()
                .trim_start_matches('/')
                .replace('/', ".")
        })
        .collect();
    assert!(classes.len() >= 14, "subjects missing: {classes:?}");
    for class in classes {
        let tsv = rivet_ok(&["branches", "--classpath", dir, "--class", &class]);
        insta::assert_snapshot!(class.clone(), tsv);
    }
}

#[test]
fn package_selection_lists_only_that_package() {
    let dir = rivet_testkit::compiled_subjects(11);
    let dir = dir.to_str().expect("utf-8 path");
    let tsv = rivet_ok(&["branches", "--classpath", dir, "--package", "sushi"]);
    let classes: std::collections::BTreeSet<&str> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    assert_eq!(
        classes.into_iter().collect::<Vec<_>>(),
        vec![
            "sushi.Ledger",
            "sushi.Process",
            "sushi.Sample",
            "sushi.Scheduler"
        ]
    );
}
