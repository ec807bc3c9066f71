//! Rivet on code that attacks the machine (`hostile.Vandal`: writes and deletes files in the
//! working directory and the temporary directory, marks the home directory, connects to local ports, starts a process,
//! kills its parent), run inside a throwaway directory: Rivet survives and ends within its
//! time bound, nothing outside its temporary directories changes, nothing connects to a
//! listening socket, and the emitted suite, run by a developer in the same directory without
//! any sandbox, does none of it either.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Every file beneath `dir` with its contents.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// The `.vandal-*` marks in the home directory.
fn home_marks() -> Vec<String> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut marks: Vec<String> = std::fs::read_dir(&home)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".vandal-"))
                .collect()
        })
        .unwrap_or_default();
    marks.sort();
    marks
}

#[test]
fn vandal_changes_nothing_outside_rivets_temporary_directories() {
    let root = tempfile::tempdir().unwrap();
    let classes = root.path().join("classes");
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vandal/hostile/Vandal.java");
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[source], &classes);
    // The project directory, with canaries Vandal would delete or overwrite.
    let work = root.path().join("work");
    std::fs::create_dir_all(work.join("tree")).unwrap();
    for (name, text) in [
        ("vandal-keep", "k"),
        ("vandal-a", "a"),
        ("tree/vandal-b", "b"),
    ] {
        std::fs::write(work.join(name), text).unwrap();
    }
    let before = snapshot(&work);
    let marks = home_marks();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();

    let out = root.path().join("out");
    let budget = 20;
    let started = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_rivet"))
        .args(["generate", "--classpath"])
        .arg(&classes)
        .args(["--class", "hostile.Vandal", "--out"])
        .arg(&out)
        .args(["--budget", &budget.to_string(), "--seed", "0"])
        .current_dir(&work)
        .output()
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "rivet failed: {stderr}");
    assert!(
        took < Duration::from_secs(budget + 15),
        "took {took:?} for a {budget} s budget"
    );
    assert_eq!(snapshot(&work), before, "the working directory changed");
    assert_eq!(home_marks(), marks, "the home directory got marks");
    assert!(listener.accept().is_err(), "something connected");

    // The suite, compiled and run the way a developer would, in the project directory, with
    // a file of its temporary directory (the machine's /tmp) that no test may delete.
    let canary = std::env::temp_dir().join(format!("vandal-canary-{}", std::process::id()));
    std::fs::write(&canary, "c").unwrap();
    let mode = std::fs::metadata(&canary).unwrap().permissions().mode();
    let test_file = out.join("hostile/VandalRivetTest.java");
    let suite = std::fs::read_to_string(&test_file).unwrap();
    assert!(suite.contains("@Test"), "{suite}");
    let test_classes = root.path().join("test-classes");
    let cp = common::junit5_classpath(&classes);
    common::javac_tests(&cp, &[test_file], &test_classes);
    let report = common::junit_passes(
        &test_classes,
        &cp,
        &work,
        &["--select-class".into(), "hostile.VandalRivetTest".into()],
    );
    assert!(report.contains("tests successful"), "{report}");
    let canary_kept = canary.exists();
    let canary_unchanged = std::fs::metadata(&canary).is_ok_and(|m| m.permissions().mode() == mode);
    let _ = std::fs::remove_file(&canary);
    assert!(
        canary_kept,
        "the suite deleted a file of the temporary directory"
    );
    assert!(
        canary_unchanged,
        "the suite changed the permissions of a file of the temporary directory"
    );
    assert_eq!(
        snapshot(&work),
        before,
        "the suite changed the project directory"
    );
    assert_eq!(home_marks(), marks, "the suite marked the home directory");
    assert!(listener.accept().is_err(), "the suite connected");
}
