//! `rivet generate` over many classes, end to end: a package of the subjects gives a test
//! file and a per-class report per class, nested classes skipped with the reason, and the
//! index report; two shards take the classes of the unsharded run exactly once between them,
//! and `rivet report merge` of the shards gives the unsharded run's classes and totals. The
//! HTML report renders in headless Chromium (a screenshot is taken; the page's text names the
//! classes and their figures). With `--parallel-classes 2` two classes run at once, each
//! reported once and in order, their tests passing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use rivet_report::{ClassStatus, ProjectReport};

fn index(dir: &Path) -> ProjectReport {
    serde_json::from_str(&std::fs::read_to_string(dir.join("rivet-report.json")).unwrap()).unwrap()
}

fn run(subjects: &Path, out: &Path, extra: &[&str]) -> String {
    let cp = subjects.display().to_string();
    let out_s = out.display().to_string();
    let mut args = vec![
        "generate",
        "--classpath",
        &cp,
        "--package",
        "strings",
        "--budget",
        "3",
        "--seed",
        "0",
        "--strategy",
        "search",
        "--out",
        &out_s,
    ];
    args.extend_from_slice(extra);
    common::rivet_ok(&args)
}

#[test]
fn a_package_sharded_and_merged_covers_the_same_classes_as_one_run() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let stdout = run(&subjects, &whole, &[]);
    let r = index(&whole);
    assert_eq!(r.kind, "project");
    let generated: Vec<String> = r
        .classes
        .iter()
        .filter(|c| c.status == ClassStatus::Generated)
        .map(|c| c.class.binary())
        .collect();
    assert_eq!(
        generated,
        vec!["strings.DateParser", "strings.Iban"],
        "{r:?}"
    );
    for c in r
        .classes
        .iter()
        .filter(|c| c.status == ClassStatus::Generated)
    {
        let test = whole.join(c.test_file.as_deref().unwrap());
        assert!(test.is_file(), "{}", test.display());
        assert!(whole.join(c.report_file.as_deref().unwrap()).is_file());
        assert!(c.verified && c.tests > 0, "{c:?}");
    }
    assert_eq!(
        r.branches_total,
        r.classes.iter().map(|c| c.branches_total).sum::<usize>()
    );
    assert!(stdout.contains("2 generated"), "{stdout}");
    assert!(stdout.contains("strings.Iban"), "{stdout}");
    html_renders(&whole, &r, dir.path());

    // Two shards: each class exactly once.
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    run(&subjects, &a, &["--shard", "1/2"]);
    run(&subjects, &b, &["--shard", "2/2"]);
    let (ra, rb) = (index(&a), index(&b));
    assert_eq!(ra.shard.as_deref(), Some("1/2"));
    let mut classes: Vec<String> = ra
        .classes
        .iter()
        .chain(rb.classes.iter())
        .map(|c| c.class.binary())
        .collect();
    classes.sort();
    let unsharded: Vec<String> = r.classes.iter().map(|c| c.class.binary()).collect();
    assert_eq!(classes, unsharded);
    // The classes that run are dealt evenly.
    assert_eq!((ra.generated, rb.generated), (1, 1), "{ra:?}\n{rb:?}");

    // Merged: the same classes and totals as the unsharded run, files copied.
    let merged = dir.path().join("merged");
    let a_s = a.display().to_string();
    let b_s = b.display().to_string();
    let m_s = merged.display().to_string();
    common::rivet_ok(&["report", "merge", &a_s, &b_s, "--out", &m_s]);
    let m = index(&merged);
    let names: Vec<String> = m.classes.iter().map(|c| c.class.binary()).collect();
    assert_eq!(names, unsharded);
    assert_eq!(m.branches_total, r.branches_total);
    // The shards' own figures add up (their coverage is their runs', not the unsharded one's).
    assert_eq!(
        m.branches_covered,
        ra.branches_covered + rb.branches_covered
    );
    assert_eq!(m.tests, ra.tests + rb.tests);
    assert_eq!(
        (m.generated, m.skipped, m.failed),
        (r.generated, r.skipped, r.failed)
    );
    for c in m
        .classes
        .iter()
        .filter(|c| c.status == ClassStatus::Generated)
    {
        assert!(merged.join(c.test_file.as_deref().unwrap()).is_file());
        assert!(merged.join(c.report_file.as_deref().unwrap()).is_file());
    }
}

#[test]
fn bad_project_flags_are_refused_with_one_message() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let cp = subjects.display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().display().to_string();
    for (args, expect) in [
        (vec!["--package", "nosuch.pkg"], "no classes"),
        (vec!["--package", "strings", "--shard", "3/2"], "--shard"),
        (
            vec!["--package", "strings", "--parallel-classes", "0"],
            "--parallel-classes",
        ),
        (
            vec![
                "--class",
                "strings.Iban",
                "--class",
                "strings.DateParser",
                "--method",
                "x",
            ],
            "--method needs exactly one --class",
        ),
    ] {
        let mut all = vec![
            "generate",
            "--classpath",
            &cp,
            "--out",
            &out,
            "--budget",
            "2",
        ];
        all.extend(args.iter().copied());
        let o = common::rivet(&all);
        assert_eq!(o.status.code(), Some(2), "{all:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(expect), "{all:?}: {err}");
    }
}

/// Headless Chromium (Debian's `chromium`): the output of `args` on `page`.
fn chromium(page: &Path, args: &[&str]) -> std::process::Output {
    let url = format!("file://{}", page.display());
    let profile = tempfile::tempdir().unwrap();
    let data_dir = format!("--user-data-dir={}", profile.path().display());
    let out = std::process::Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", &data_dir])
        .args(args)
        .arg(&url)
        .output()
        .expect("chromium (Debian's chromium package) must be installed: .ci/run installs it");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The page's text as Chromium's DOM has it, tags removed and entities decoded.
fn page_text(page: &Path) -> String {
    let dom = String::from_utf8(chromium(page, &["--dump-dom"]).stdout).unwrap();
    let mut text = String::new();
    let mut in_tag = false;
    for c in dom.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn html_renders(out: &Path, r: &ProjectReport, scratch: &Path) {
    let index = out.join("rivet-report.html");
    let shot = scratch.join("report.png");
    let arg = format!("--screenshot={}", shot.display());
    chromium(&index, &[&arg, "--window-size=1200,900"]);
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 5_000,
        "{} bytes",
        png.len()
    );
    let text = page_text(&index);
    assert!(
        text.contains(&format!(
            "{}/{} branches covered",
            r.branches_covered, r.branches_total
        )),
        "{text}"
    );
    for c in r
        .classes
        .iter()
        .filter(|c| c.status == ClassStatus::Generated)
    {
        assert!(text.contains(&c.class.binary()), "{text}");
        assert!(
            text.contains(&format!("{}/{}", c.branches_covered, c.branches_total)),
            "{text}"
        );
        // The class page: its figures, a method, and a covering test's name.
        let report: rivet_report::Report = serde_json::from_str(
            &std::fs::read_to_string(out.join(c.report_file.as_deref().unwrap())).unwrap(),
        )
        .unwrap();
        let page = page_text(&out.join(format!("rivet-html/{}.html", c.class)));
        assert!(page.contains(&c.class.binary()), "{page}");
        let covered = report.branches.iter().find(|b| b.covered).unwrap();
        // Methods are shown as Java spells them, a constructor by its class's name.
        let shown = match covered.method.as_str() {
            "<init>" => format!("{}(", covered.class.simple().rsplit('$').next().unwrap()),
            "<clinit>" => "static initializer".to_string(),
            m => format!("{m}("),
        };
        assert!(page.contains(&shown), "{page}");
        assert!(
            page.contains(covered.covering_test.as_deref().unwrap()),
            "{page}"
        );
    }
}

#[test]
fn classes_run_two_at_a_time_each_reported_once_in_order_with_passing_tests() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let cp = subjects.display().to_string();
    let out_s = out.display().to_string();
    let o = common::rivet(&[
        "generate",
        "--classpath",
        &cp,
        "--package",
        "sushi",
        "--budget",
        "4",
        "--seed",
        "0",
        // Every strategy: the lanes run Z3 while others start JVMs (no fork may deadlock).
        "--parallel-classes",
        "2",
        "--workers",
        "2",
        "--out",
        &out_s,
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let r = index(&out);
    let names: Vec<String> = r.classes.iter().map(|c| c.class.binary()).collect();
    let expected = [
        "sushi.Ledger",
        "sushi.Process",
        "sushi.Sample",
        "sushi.Scheduler",
    ];
    // Every class once, in the classes' order.
    assert_eq!(names, expected, "{r:?}");
    for (i, class) in expected.iter().enumerate() {
        let done = format!("] done {class}:");
        assert_eq!(stderr.matches(&done).count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!("[{}/4] done {class}:", i + 1)),
            "{stderr}"
        );
    }
    let mut sources = Vec::new();
    for c in &r.classes {
        assert_eq!(c.status, ClassStatus::Generated, "{c:?}");
        // Verified: compiled, and passed twice under JUnit.
        assert!(c.verified && c.tests > 0, "{c:?}");
        sources.push(out.join(c.test_file.as_deref().unwrap()));
    }
    // The tests compile and pass outside Rivet too.
    let junit_cp = common::junit5_classpath(&subjects);
    let classes = dir.path().join("classes");
    common::javac_tests(&junit_cp, &sources, &classes);
    let report = common::junit_passes(
        &classes,
        &junit_cp,
        dir.path(),
        &["--select-package".into(), "sushi".into()],
    );
    assert!(
        report.contains(&format!("{} tests successful", r.tests)),
        "{report}"
    );
    // Two lanes: some two classes ran at the same time.
    let spans: Vec<(f64, f64)> = r
        .classes
        .iter()
        .map(|c| (c.started_s, c.started_s + c.elapsed_s))
        .collect();
    let overlap = spans
        .iter()
        .enumerate()
        .any(|(i, a)| spans[i + 1..].iter().any(|b| a.0 < b.1 && b.0 < a.1));
    assert!(overlap, "no two classes overlapped: {spans:?}");
}
