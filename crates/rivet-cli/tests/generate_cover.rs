//! `--cover`: the branches of classes beyond the class under test become goals and are
//! reported class by class; `--method` still picks only the class under test's methods, and a
//! class the class under test never refers to is reported with no reachable branch.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

#[test]
fn covered_classes_are_reported_reached_or_not_and_method_restricts_only_the_class_under_test() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = tempfile::tempdir().unwrap();
    let (cp, dir) = (
        subjects.display().to_string(),
        out.path().display().to_string(),
    );
    let stdout = common::rivet_ok(&[
        "generate",
        "--classpath",
        &cp,
        "--class",
        "sushi.Scheduler",
        "--method",
        "execPool",
        "--cover",
        "sushi.Process",
        "--cover",
        "structures.AvlTree*",
        "--out",
        &dir,
        "--budget",
        "4",
        "--no-mutation",
    ]);
    let report = read_report(out.path());
    let row = |name: &str| {
        report
            .classes
            .iter()
            .find(|c| c.class.binary() == name)
            .unwrap_or_else(|| panic!("{name} not in {:?}", report.classes))
    };
    // The class under test: execPool's branches only, none of the other methods'.
    let scheduler = row("sushi.Scheduler");
    assert_eq!(scheduler.reachable, None);
    assert!(report
        .branches
        .iter()
        .filter(|b| b.class.binary() == "sushi.Scheduler")
        .all(|b| b.method.contains("execPool")));
    // Process: its objects are the lists' elements; its constructor's check is reached.
    let process = row("sushi.Process");
    assert_eq!(process.reachable, Some(true));
    assert!(process.branches > 0 && process.covered > 0, "{process:?}");
    // AvlTree and its nested node class: Scheduler never refers to them.
    let tree = row("structures.AvlTree");
    assert_eq!((tree.reachable, tree.covered), (Some(false), 0), "{tree:?}");
    assert!(tree.branches > 0);
    assert!(
        stdout.contains(&format!(
            "structures.AvlTree 0/{} (--cover; the class under test never refers to it: 0 reachable branches)",
            tree.branches
        )),
        "{stdout}"
    );
    // The HTML page lists the classes with their roles.
    let page = std::fs::read_to_string(out.path().join("rivet-html/sushi.Scheduler.html")).unwrap();
    for row in [
        "<code>sushi.Scheduler</code>",
        "under test",
        "<code>sushi.Process</code>",
        "0 reachable branches",
    ] {
        assert!(page.contains(row), "{row} not in the class page");
    }
    let sum: usize = report.classes.iter().map(|c| c.branches).sum();
    assert_eq!(report.branches_total, sum);
}

#[test]
fn explore_records_the_covered_classes_branches_apart_from_the_methods_own() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = tempfile::tempdir().unwrap();
    common::rivet_ok(&[
        "explore",
        "--classpath",
        &subjects.display().to_string(),
        "--method",
        "sushi.Scheduler.execPool(Ljava/util/List;Ljava/util/List;)V",
        "--cover",
        "sushi.Process",
        "--out",
        &out.path().display().to_string(),
        "--budget",
        "3",
        "--no-replay",
    ]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let covered = &summary["covered_classes"][0];
    assert_eq!(covered["class"], "sushi.Process", "{summary}");
    assert_eq!(covered["branches"], 6);
    // execPool sets HIGH on every primary process: setPriority's check, both outcomes false
    // and true of its two conditions as a constant argument takes them.
    assert!(covered["reached"].as_u64().unwrap() >= 2, "{covered}");
    let paths = std::fs::read_to_string(out.path().join("paths.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = paths
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines
        .iter()
        .any(|l| l["covered_branches"].as_array().is_some_and(|b| b
            .iter()
            .any(|x| x.as_str().unwrap().starts_with("sushi.Process#")))));
    // The method's own branches keep Scheduler's numbering (10 branches).
    for l in &lines {
        for b in l["branches"].as_array().unwrap() {
            assert!(b.as_u64().unwrap() < 10, "{l}");
        }
    }
}

#[test]
fn the_symbolic_strategy_explores_into_the_covered_classes_and_records_their_goals() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = tempfile::tempdir().unwrap();
    let art = out.path().join("artifacts");
    common::rivet_ok(&[
        "generate",
        "--classpath",
        &subjects.display().to_string(),
        "--class",
        "sushi.Scheduler",
        "--method",
        "execPool",
        "--cover",
        "sushi.Process",
        "--strategy",
        "symbolic",
        "--out",
        &out.path().display().to_string(),
        "--keep-artifacts",
        &art.display().to_string(),
        "--budget",
        "6",
        "--no-mutation",
    ]);
    let report = read_report(out.path());
    // Branch goals come in the report's order: Scheduler's, then Process's.
    let own = report
        .branches
        .iter()
        .filter(|b| b.class.binary() == "sushi.Scheduler")
        .count() as u64;
    let process = report
        .branches
        .iter()
        .filter(|b| b.class.binary() == "sushi.Process")
        .count() as u64;
    assert!(process > 0);
    let mut goals = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(art.join("symbolic")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("paths-") && name.contains("execPool")) {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            goals.extend(
                v["branches"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|g| g.as_u64().unwrap()),
            );
        }
    }
    // execPool's paths set HIGH on each primary process: they run Process.setPriority's check,
    // and the explorations record those branches as Process's goals.
    assert!(
        goals.iter().any(|g| (own..own + process).contains(g)),
        "no path of execPool records a branch of Process: {goals:?} (Scheduler has {own})"
    );
}

/// The class report a run wrote to `out`.
fn read_report(out: &std::path::Path) -> rivet_report::Report {
    serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap()).unwrap()
}
