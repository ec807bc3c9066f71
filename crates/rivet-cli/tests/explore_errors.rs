//! `rivet explore` rejects bad input with one `rivet: error:` line and exit code 2.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet;

fn explore_error(method: &str, extra: &[&str]) -> String {
    let subjects = rivet_testkit::compiled_subjects(11);
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    let mut args = vec![
        "explore",
        "--classpath",
        subjects.to_str().unwrap_or_else(|| panic!("utf-8 path")),
        "--method",
        method,
        "--jdk",
        jdk.to_str().unwrap_or_else(|| panic!("utf-8 path")),
    ];
    args.extend_from_slice(extra);
    let out = rivet(&args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("rivet: error: "), "{stderr}");
    stderr
}

#[test]
fn unknown_method_names_the_class_and_its_methods() {
    let e = explore_error("lct.Examples.figure2(II)I", &[]);
    assert!(e.contains("lct.Examples.figure2: not found"), "{e}");
    assert!(e.contains("figure1"), "{e}");
}

#[test]
fn descriptor_mismatch_lists_the_real_descriptors() {
    let e = explore_error("lct.Examples.figure1(J)I", &[]);
    assert!(e.contains("figure1(J)I"), "{e}");
    assert!(e.contains("figure1(II)I"), "{e}");
}

#[test]
fn native_and_abstract_targets_have_no_code() {
    let e = explore_error("java.lang.Object.hashCode()I", &[]);
    assert!(e.contains("is native"), "{e}");
    let e = explore_error("java.util.AbstractList.get(I)Ljava/lang/Object;", &[]);
    assert!(e.contains("is abstract"), "{e}");
}

#[test]
fn unknown_class_and_malformed_names_and_flags() {
    let e = explore_error("no.Such.m()V", &[]);
    assert!(e.contains("no.Such"), "{e}");
    let e = explore_error("figure1", &[]);
    assert!(e.contains("FQN.name(DESCRIPTOR)"), "{e}");
    let e = explore_error("lct.Examples.figure1(II)I", &["--heap-scope", "x"]);
    assert!(e.contains("CLASS=N"), "{e}");
    let e = explore_error("lct.Examples.figure1(II)I", &["--searcher", "best"]);
    assert!(e.contains("--searcher"), "{e}");
}
