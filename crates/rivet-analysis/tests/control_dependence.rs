//! Branches, kinds, lines and control dependence on a small fixture class compiled with javac.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rivet_analysis::{analyze_class, BranchKind, ClassAnalysis, MethodAnalysis};
use rivet_classfile::ClassFile;
use std::path::Path;
use std::sync::OnceLock;

/// The analysed fixture, compiled once per test process (tests run in parallel).
fn fixture() -> &'static ClassAnalysis {
    static ANALYSIS: OnceLock<ClassAnalysis> = OnceLock::new();
    ANALYSIS.get_or_init(compile_fixture)
}

fn compile_fixture() -> ClassAnalysis {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/Shapes.java");
    let out = rivet_testkit::cache_dir().join("analysis-shapes");
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[src], &out);
    let bytes = std::fs::read(out.join("Shapes.class")).expect("Shapes.class");
    analyze_class(&ClassFile::parse(&bytes).expect("parse")).expect("analyze")
}

fn method<'a>(a: &'a ClassAnalysis, name: &str) -> &'a MethodAnalysis {
    a.methods.iter().find(|m| m.name == name).expect(name)
}

#[test]
fn nested_ifs_are_control_dependent_on_the_outer_fall_through() {
    let a = fixture();
    let m = method(a, "nested");
    let b = &m.branches;
    assert_eq!(b.len(), 4);
    assert_eq!(b[0].kind, BranchKind::True);
    assert_eq!(b[1].kind, BranchKind::False);
    assert!(b[0].controlling.is_empty() && b[1].controlling.is_empty());
    assert_eq!(b[2].controlling, vec![b[1].id]);
    assert_eq!(b[3].controlling, vec![b[1].id]);
    assert_eq!(b[0].line, Some(7));
    assert_eq!(b[2].line, Some(8));
}

#[test]
fn switch_counts_distinct_targets() {
    let a = fixture();
    let m = method(a, "sw");
    let kinds: Vec<String> = m.branches.iter().map(|b| b.kind.to_string()).collect();
    assert_eq!(kinds, vec!["default", "case 1", "case 2,3"]);
}

#[test]
fn loop_body_depends_on_loop_condition() {
    let a = fixture();
    let m = method(a, "loop");
    assert_eq!(m.branches.len(), 2);
    // javac puts the test first: `if_icmple exit` (true leaves the loop), fall-through enters it.
    assert_eq!(m.branches[0].kind, BranchKind::True);
    // The loop test itself is control dependent on its own fall-through (the back edge).
    assert_eq!(m.branches[0].controlling, vec![m.branches[1].id]);
}

#[test]
fn ids_are_dense_in_method_order() {
    let a = fixture();
    let ids: Vec<u32> = a.branches().map(|(_, b)| b.id.0).collect();
    assert_eq!(ids, (0..ids.len() as u32).collect::<Vec<_>>());
    assert_eq!(a.branch_count(), 4 + 3 + 2);
}
