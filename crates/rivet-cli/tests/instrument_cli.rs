//! `rivet instrument`: offline instrumentation of directories and jars, its probe listing,
//! and its errors for bad input (exit 2).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{rivet, rivet_ok};

fn temp_dir(name: &str) -> PathBuf {
    let d = rivet_testkit::cache_dir().join(format!("cli-instrument-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Asserts exit 2 with a `rivet: error:` line containing every fragment.
fn assert_bad_input(args: &[&str], fragments: &[&str]) {
    let out = rivet(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "rivet {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stderr.lines().any(|l| l.starts_with("rivet: error:")),
        "{stderr}"
    );
    for f in fragments {
        assert!(stderr.contains(f), "{f:?} not in {stderr}");
    }
}

#[test]
fn probes_tsv_lists_every_branch_with_contiguous_ids() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = temp_dir("subjects");
    let stdout = rivet_ok(&["instrument", "--classpath", s(&subjects), "--out", s(&out)]);
    assert!(stdout.contains("instrumented 23 classes"), "{stdout}");
    for f in [
        "rivet/runtime/Probes.class",
        "rivet/runtime/Exits.class",
        "rivet/runtime/ExitRequested.class",
        "rivet/runtime/switches.bin",
        "structures/AvlTree.class",
        "structures/AvlTree$Node.class",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let tsv = std::fs::read_to_string(out.join("rivet-probes.tsv")).expect("rivet-probes.tsv");
    let branches = rivet_ok(&["branches", "--classpath", s(&subjects), "--all"]);
    let mut lines = tsv.lines();
    assert_eq!(
        lines.next(),
        Some("class\tbranch\tprobe\tmethod\tdescriptor\toffset\tline\tkind\tconfirmed_by\tpoints")
    );
    // Same branches as `rivet branches` (class method descriptor branch offset line kind).
    let mut expected: Vec<String> = branches.lines().skip(1).map(str::to_string).collect();
    let mut got = Vec::new();
    let mut base = 0u32;
    let mut class = String::new();
    // A class's branch probes are dense from its base; its JaCoCo points follow them, before
    // the next class's base.
    // Per class: base, branch count, point count, and the points its branches name.
    let mut classes: Vec<(u32, u32, u32, Vec<u32>)> = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split('\t').collect();
        let (branch, probe): (u32, u32) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        if f[0] != class {
            assert!(f[0] > class.as_str(), "classes out of order at {l}");
            class = f[0].to_string();
            base = probe;
            classes.push((probe, 0, f[9].parse().unwrap(), Vec::new()));
        }
        let c = classes.last_mut().unwrap();
        assert_eq!(probe, base + c.1, "probe ids are dense within a class: {l}");
        assert_eq!(probe, base + branch, "probe = base + branch: {l}");
        c.1 += 1;
        let confirmed: Vec<u32> = f[8].split(',').map(|p| p.parse().unwrap()).collect();
        assert!(
            !confirmed.is_empty(),
            "every branch has a JaCoCo point: {l}"
        );
        c.3.extend(confirmed);
        got.push([f[0], f[3], f[4], f[1], f[5], f[6], f[7]].join("\t"));
    }
    // Each class's points follow its branch probes, and the next class starts after them.
    for (i, (base, branches, points, named)) in classes.iter().enumerate() {
        let (first, end) = (base + branches, base + branches + points);
        assert!(named.iter().all(|p| (first..end).contains(p)), "class {i}");
        if let Some(next) = classes.get(i + 1) {
            assert_eq!(
                next.0, end,
                "class {i}: the next range starts after the points"
            );
        }
    }
    expected.sort();
    got.sort();
    assert_eq!(got, expected);
    // Running it again gives the same files.
    let again = temp_dir("subjects-again");
    rivet_ok(&[
        "instrument",
        "--classpath",
        s(&subjects),
        "--out",
        s(&again),
    ]);
    for f in [
        "rivet-probes.tsv",
        "rivet/runtime/switches.bin",
        "structures/AvlTree.class",
    ] {
        assert_eq!(
            std::fs::read(out.join(f)).unwrap(),
            std::fs::read(again.join(f)).unwrap(),
            "{f} differs between runs"
        );
    }
}

#[test]
fn jar_resources_are_copied() {
    let dir = temp_dir("jar");
    let subjects = rivet_testkit::compiled_subjects(11);
    let content = dir.join("content");
    std::fs::create_dir_all(content.join("sushi")).unwrap();
    std::fs::create_dir_all(content.join("data")).unwrap();
    std::fs::copy(
        subjects.join("sushi/Sample.class"),
        content.join("sushi/Sample.class"),
    )
    .unwrap();
    std::fs::write(content.join("data/config.txt"), "key=value\n").unwrap();
    let jar = dir.join("input.jar");
    let status = Command::new(rivet_testkit::Jdk::Jdk17.home().join("bin/jar"))
        .args(["--create", "--file", s(&jar), "-C", s(&content), "."])
        .status()
        .expect("jar");
    assert!(status.success());
    let out = dir.join("out");
    let stdout = rivet_ok(&["instrument", "--classpath", s(&jar), "--out", s(&out)]);
    assert!(stdout.contains("instrumented 1 classes"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(out.join("data/config.txt")).unwrap(),
        "key=value\n"
    );
    assert!(out.join("META-INF/MANIFEST.MF").is_file());
    assert_ne!(
        std::fs::read(out.join("sushi/Sample.class")).unwrap(),
        std::fs::read(content.join("sushi/Sample.class")).unwrap(),
        "Sample got probes"
    );
}

#[test]
fn bad_input_exits_2() {
    let dir = temp_dir("bad");
    assert_bad_input(
        &[
            "instrument",
            "--classpath",
            "/no/such/dir",
            "--out",
            s(&dir.join("o")),
        ],
        &["/no/such/dir"],
    );
    let broken_jar = dir.join("broken.jar");
    std::fs::write(&broken_jar, b"not a zip").unwrap();
    assert_bad_input(
        &[
            "instrument",
            "--classpath",
            s(&broken_jar),
            "--out",
            s(&dir.join("o")),
        ],
        &["broken.jar"],
    );
    let file = dir.join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let subjects = rivet_testkit::compiled_subjects(11);
    assert_bad_input(
        &["instrument", "--classpath", s(&subjects), "--out", s(&file)],
        &["a-file", "not a directory"],
    );
    assert_bad_input(&["instrument", "--classpath", s(&subjects)], &["--out"]);
}

#[test]
fn corrupt_class_is_reported_and_copied_unchanged() {
    let dir = temp_dir("corrupt");
    let subjects = rivet_testkit::compiled_subjects(11);
    let input = dir.join("classes");
    std::fs::create_dir_all(input.join("sushi")).unwrap();
    std::fs::copy(
        subjects.join("sushi/Sample.class"),
        input.join("sushi/Sample.class"),
    )
    .unwrap();
    let mut bad = std::fs::read(subjects.join("sushi/Process.class")).unwrap();
    bad.truncate(bad.len() / 2);
    std::fs::write(input.join("sushi/Process.class"), &bad).unwrap();
    let out = dir.join("out");
    assert_bad_input(
        &["instrument", "--classpath", s(&input), "--out", s(&out)],
        &[
            "Process.class",
            "truncated",
            "1 of 2 classes could not be read",
        ],
    );
    assert_eq!(std::fs::read(out.join("sushi/Process.class")).unwrap(), bad);
    assert!(out.join("sushi/Sample.class").is_file());
    assert!(out.join("rivet-probes.tsv").is_file());
}
