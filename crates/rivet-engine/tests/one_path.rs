//! One path for one class or many: a request naming one class on a classpath runs as a
//! one-class run (the class's own report beside its tests, the index made from it, only the
//! class's events, its failure the run's), and the same class with a total budget as a run over
//! classes (a report per class under `rivet-reports/`, the index beside the tests); both on a
//! real worker JVM, through `resolve_run` and `generate_run` as the CLI calls them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rivet_engine::{
    generate_run, resolve_run, GenerateConfig, GenerateRequest, ProjectEvent, RunShape,
};

fn request(classpath: &str, class: &str, out: PathBuf) -> GenerateRequest {
    let mut settings = GenerateConfig::new(
        "",
        &rivet_classfile::ClassName::from_binary(""),
        PathBuf::new(),
    );
    settings.budget_s = 3;
    settings.mutation = false;
    settings.workers = Some(1);
    GenerateRequest {
        project: None,
        classpath: Some(classpath.into()),
        classes: vec![class.into()],
        package: None,
        all: false,
        target: None,
        method: None,
        out: Some(out),
        junit: None,
        test_classpath: None,
        sourcepath: None,
        shard: None,
        total_budget_s: None,
        parallel_classes: None,
        settings,
    }
}

#[test]
fn one_class_and_many_run_through_one_entry_with_their_own_report_layouts() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let subjects = subjects.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().unwrap();

    // One class: its report is the run's, beside its tests.
    let out = dir.path().join("one");
    let plan = resolve_run(&request(&subjects, "structures.AvlTree", out.clone())).unwrap();
    assert_eq!(plan.shape, RunShape::OneClass);
    let mut events = Vec::new();
    let outcome = generate_run(&plan, &mut |e| events.push(e)).unwrap();
    assert_eq!(outcome.report_file, out.join("rivet-report.json"));
    let class = outcome.class.expect("the class's outcome");
    assert_eq!(class.report.class, "structures.AvlTree");
    assert!(class.report.tests > 0);
    assert_eq!(outcome.report.classes.len(), 1);
    let entry = &outcome.report.classes[0];
    assert_eq!(entry.report_file.as_deref(), Some("rivet-report.json"));
    assert_eq!(
        entry.test_file.as_deref(),
        Some("structures/AvlTreeRivetTest.java")
    );
    assert!(out.join("structures/AvlTreeRivetTest.java").is_file());
    assert!(!out.join("rivet-reports").exists());
    // Only the class's own events, as class 0's.
    assert!(!events.is_empty());
    assert!(
        events
            .iter()
            .all(|e| matches!(e, ProjectEvent::Inner { index: 0, .. })),
        "{events:?}"
    );

    // The same class with a total budget: a run over classes, an index and a report per class.
    let out = dir.path().join("many");
    let mut many = request(&subjects, "structures.AvlTree", out.clone());
    many.total_budget_s = Some(4);
    let plan = resolve_run(&many).unwrap();
    assert_eq!(plan.shape, RunShape::Classes);
    let mut events = Vec::new();
    let outcome = generate_run(&plan, &mut |e| events.push(e)).unwrap();
    assert!(outcome.class.is_none());
    assert_eq!(outcome.report_file, out.join("rivet-report.json"));
    assert_eq!(outcome.report.generated, 1, "{:?}", outcome.report.classes);
    assert!(out.join("rivet-reports/structures.AvlTree.json").is_file());
    assert!(events
        .iter()
        .any(|e| matches!(e, ProjectEvent::Selected { classes: 1 })));
    assert!(events
        .iter()
        .any(|e| matches!(e, ProjectEvent::Done { index: 0, .. })));

    // A one-class run's failure is the run's, and the user's when the class is not there.
    let plan = resolve_run(&request(&subjects, "no.Such", dir.path().join("none"))).unwrap();
    let e = generate_run(&plan, &mut |_| {}).expect_err("refused");
    assert!(e.is_bad_input(), "{e}");
    assert!(e.to_string().contains("no.Such"), "{e}");
}
