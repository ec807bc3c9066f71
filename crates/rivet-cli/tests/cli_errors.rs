//! Bad input gets one clear line on stderr and exit code 2, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet;

/// Asserts exit 2, a single `rivet: error:` line mentioning every fragment, and no panic.
fn assert_bad_input(args: &[&str], fragments: &[&str]) {
    let out = rivet(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "rivet {args:?}: stderr {stderr}"
    );
    assert!(
        !stderr.contains("panicked"),
        "rivet {args:?} panicked: {stderr}"
    );
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("rivet: error:"))
        .collect();
    assert!(
        !errors.is_empty(),
        "rivet {args:?}: no error line in {stderr}"
    );
    for f in fragments {
        assert!(stderr.contains(f), "rivet {args:?}: {f:?} not in {stderr}");
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = rivet_testkit::cache_dir().join(format!("cli-errors-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A copy of the compiled sushi.Sample, altered by `edit`, in its own class directory.
fn altered_sample(name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> std::path::PathBuf {
    let src = rivet_testkit::compiled_subjects(11).join("sushi/Sample.class");
    let mut bytes = std::fs::read(src).expect("Sample.class");
    edit(&mut bytes);
    let dir = temp_dir(name);
    std::fs::create_dir_all(dir.join("sushi")).expect("package dir");
    std::fs::write(dir.join("sushi/Sample.class"), bytes).expect("write class");
    dir
}

#[test]
fn missing_classpath_entry() {
    assert_bad_input(
        &["branches", "--classpath", "/no/such/dir", "--class", "a.B"],
        &["/no/such/dir"],
    );
}

#[test]
fn class_not_found() {
    let dir = rivet_testkit::compiled_subjects(11);
    assert_bad_input(
        &[
            "branches",
            "--classpath",
            dir.to_str().unwrap(),
            "--class",
            "sushi.Nope",
        ],
        &["sushi.Nope", "not found"],
    );
}

#[test]
fn corrupt_class_file() {
    let dir = altered_sample("corrupt", |b| {
        b[0] = 0;
    });
    assert_bad_input(
        &[
            "branches",
            "--classpath",
            dir.to_str().unwrap(),
            "--class",
            "sushi.Sample",
        ],
        &["sushi.Sample", "not a class file"],
    );
}

#[test]
fn truncated_class_file() {
    let dir = altered_sample("truncated", |b| {
        let n = b.len() / 2;
        b.truncate(n);
    });
    assert_bad_input(
        &[
            "branches",
            "--classpath",
            dir.to_str().unwrap(),
            "--class",
            "sushi.Sample",
        ],
        &["sushi.Sample", "truncated"],
    );
}

#[test]
fn unsupported_major_version() {
    let dir = altered_sample("version", |b| {
        b[6] = 0;
        b[7] = 70;
    });
    assert_bad_input(
        &[
            "branches",
            "--classpath",
            dir.to_str().unwrap(),
            "--class",
            "sushi.Sample",
        ],
        &["sushi.Sample", "unsupported class-file version 70"],
    );
}

#[test]
fn corrupt_jar() {
    let dir = temp_dir("jar");
    let jar = dir.join("broken.jar");
    std::fs::write(&jar, b"this is not a zip file").expect("write jar");
    assert_bad_input(
        &["branches", "--classpath", jar.to_str().unwrap(), "--all"],
        &["broken.jar"],
    );
}

#[test]
fn unknown_flag_and_missing_selection() {
    assert_bad_input(&["branches", "--classpath", ".", "--bogus"], &["--bogus"]);
    assert_bad_input(&["branches", "--classpath", "."], &["--class"]);
}

#[test]
fn one_bad_class_among_many_loses_nothing() {
    let good = rivet_testkit::compiled_subjects(11);
    let dir = temp_dir("mixed");
    for class in ["sushi/Sample.class", "sushi/Process.class"] {
        std::fs::create_dir_all(dir.join("sushi")).unwrap();
        std::fs::copy(good.join(class), dir.join(class)).unwrap();
    }
    std::fs::write(
        dir.join("sushi/Broken.class"),
        [0xCA, 0xFE, 0xBA, 0xBE, 0, 0],
    )
    .unwrap();
    let out = rivet(&["branches", "--classpath", dir.to_str().unwrap(), "--all"]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("sushi.Sample\tsample"), "{stdout}");
    assert!(stdout.contains("sushi.Process"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sushi.Broken") || stderr.contains("Broken.class"),
        "{stderr}"
    );
}

#[test]
fn a_cover_pattern_that_matches_no_class_or_is_no_name() {
    let dir = rivet_testkit::compiled_subjects(11);
    let out = temp_dir("cover");
    let args = |pattern: &'static str| {
        vec![
            "generate".to_string(),
            "--classpath".into(),
            dir.display().to_string(),
            "--class".into(),
            "sushi.Sample".into(),
            "--out".into(),
            out.display().to_string(),
            "--budget".into(),
            "1".into(),
            "--cover".into(),
            "sushi.Process".into(),
            "--cover".into(),
            pattern.into(),
        ]
    };
    let run = |pattern| {
        let a = args(pattern);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        assert_bad_input(&a, &["--cover", pattern]);
    };
    run("no.such.Thing*");
    run("no.such");
    run("a/b/C");
    // Nothing was written for a run refused at its start.
    assert!(std::fs::read_dir(&out).map_or(true, |mut d| d.next().is_none()));
}
