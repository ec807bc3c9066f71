//! The coverage a report claims is what JaCoCo measures on the written tests, class by class
//! (the class under test and each nested class): the tests are compiled and run by the JUnit
//! console launcher under the JaCoCo agent, and JaCoCo's analyzer (the bench's
//! tools/bench/BenchCoverage.java) counts the covered branches of each class.
//! JaCoCo does not count a branch whose code threw before JaCoCo's next probe; Rivet's report
//! counts as JaCoCo does (its instrumentation emulates JaCoCo's probes), which commons-lang3
//! `Fraction` exercises (arithmetic that overflows right after a branch). A class `--cover`
//! names is counted too (`sushi.Scheduler` with `sushi.Process`, whose objects its tests build
//! and whose code its methods call).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The JaCoCo agent (Debian's jar has no Premain-Class: a manifest-only jar adds it) and the
/// compiled BenchCoverage tool.
fn jacoco_tools(dir: &Path) -> (PathBuf, PathBuf, String) {
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    let jar = |n: &str| rivet_testkit::debian_jar(n).display().to_string();
    std::fs::create_dir_all(dir).unwrap();
    let manifest = dir.join("manifest.txt");
    std::fs::write(
        &manifest,
        format!(
            "Premain-Class: org.jacoco.agent.rt.internal.PreMain\nClass-Path: {} {} {} {} {}\n",
            jar("org.jacoco.agent.rt"),
            jar("org.jacoco.core"),
            jar("asm"),
            jar("asm-commons"),
            jar("asm-tree")
        ),
    )
    .unwrap();
    let agent = dir.join("premain.jar");
    let st = Command::new(jdk.join("bin/jar"))
        .arg("cfm")
        .arg(&agent)
        .arg(&manifest)
        .status()
        .unwrap();
    assert!(st.success());
    let core = [
        jar("org.jacoco.core"),
        jar("asm"),
        jar("asm-commons"),
        jar("asm-tree"),
    ]
    .join(":");
    let tool = dir.join("tool");
    let st = Command::new(jdk.join("bin/javac"))
        .args(["-nowarn", "-d"])
        .arg(&tool)
        .args(["-cp", &core])
        .arg(rivet_testkit::repo_root().join("tools/bench/BenchCoverage.java"))
        .status()
        .unwrap();
    assert!(st.success());
    (agent, tool, core)
}

/// JaCoCo's covered/total branches of `class` and each class nested in it, by binary name.
fn jacoco_classes(
    jdk: &Path,
    (tool, core): (&Path, &str),
    exec: &Path,
    cp: &Path,
    class: &str,
) -> BTreeMap<String, (usize, usize)> {
    let measured = Command::new(jdk.join("bin/java"))
        .arg("-cp")
        .arg(format!("{}:{core}", tool.display()))
        .arg("BenchCoverage")
        .arg(exec)
        .arg(cp)
        .arg(class)
        .arg("-")
        .env("BENCH_CLASSES", "1")
        .output()
        .unwrap();
    assert!(
        measured.status.success(),
        "{}",
        String::from_utf8_lossy(&measured.stderr)
    );
    String::from_utf8_lossy(&measured.stderr)
        .lines()
        .filter_map(|l| {
            let (c, counts) = l.split_once(' ')?;
            let (cov, total) = counts.split_once('/')?;
            Some((c.to_string(), (cov.parse().ok()?, total.parse().ok()?)))
        })
        .collect()
}

#[test]
fn the_report_counts_what_jacoco_measures_class_by_class() {
    let root = tempfile::tempdir().unwrap();
    let (agent, tool, core) = jacoco_tools(&root.path().join("jacoco"));
    let subjects = rivet_testkit::compiled_subjects(11);
    let lang3 = rivet_testkit::debian_jar("commons-lang3");
    let cases: [(&str, &Path, Option<&str>); 7] = [
        ("structures.AvlTree", &subjects, None),
        ("statics.Registry", &subjects, None),
        ("lct.Examples", &subjects, None),
        ("geometry.Conformance", &subjects, None),
        ("sushi.Scheduler", &subjects, Some("sushi.Process")),
        ("org.apache.commons.lang3.text.WordUtils", &lang3, None),
        ("org.apache.commons.lang3.math.Fraction", &lang3, None),
    ];
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    for (n, (class, cp, cover)) in cases.iter().enumerate() {
        let out = root.path().join(format!("out{n}"));
        let (cp_text, out_text) = (cp.display().to_string(), out.display().to_string());
        let mut args = vec![
            "generate",
            "--classpath",
            &cp_text,
            "--class",
            class,
            "--out",
            &out_text,
            "--budget",
            "5",
            "--seed",
            "0",
        ];
        args.extend(cover.iter().flat_map(|c| ["--cover", c]));
        common::rivet_ok(&args);
        let report: rivet_report::Report =
            serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
                .unwrap();
        let test_cp = common::junit5_classpath(cp);
        let classes = root.path().join(format!("classes{n}"));
        common::javac_tests(
            &test_cp,
            &[PathBuf::from(report.test_file.as_deref().unwrap_or_else(|| {
                panic!(
                    "{class}: no test file written ({} of {} branches covered, {} tests dropped in verification)",
                    report.branches_covered, report.branches_total, report.dropped_tests
                )
            }))],
            &classes,
        );
        let exec = root.path().join(format!("jacoco{n}.exec"));
        let measured: Vec<&str> = std::iter::once(*class).chain(*cover).collect();
        let includes: Vec<String> = measured.iter().map(|c| format!("{c}*")).collect();
        let run = Command::new(jdk.join("bin/java"))
            .arg(format!(
                "-javaagent:{}=destfile={},includes={}",
                agent.display(),
                exec.display(),
                includes.join(":")
            ))
            .args([
                "-jar",
                &rivet_testkit::debian_jar("junit-platform-console-standalone")
                    .display()
                    .to_string(),
            ])
            .arg("--class-path")
            .arg(format!("{}:{test_cp}", classes.display()))
            .args(["--scan-class-path"])
            .arg(&classes)
            .args(["--disable-banner", "--details=none"])
            .current_dir(root.path())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{class}: {}",
            String::from_utf8_lossy(&run.stdout)
        );
        let mut jacoco: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for m in &measured {
            jacoco.extend(jacoco_classes(&jdk, (&tool, &core), &exec, cp, m));
        }
        let claimed: BTreeMap<String, (usize, usize)> = report
            .classes
            .iter()
            .map(|r| (r.class.binary(), (r.covered, r.branches)))
            .collect();
        assert_eq!(claimed, jacoco, "{class}: the report against JaCoCo");
        if let Some(c) = cover {
            let row = report.classes.iter().find(|r| r.class.binary() == *c);
            assert!(
                row.is_some_and(|r| r.reachable == Some(true) && r.covered > 0),
                "{class} --cover {c}: {row:?}"
            );
        }
    }
}
