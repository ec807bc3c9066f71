//! The coverage a report claims is what JaCoCo measures on the written tests, class by class
//! (the class under test and each nested class): the tests are compiled and run by the JUnit
//! console launcher under the JaCoCo agent, and JaCoCo's analyzer (the bench's
//! tools/bench/BenchCoverage.java) counts the covered branches of each class.
//! JaCoCo does not count a branch whose code threw before JaCoCo's next probe; Rivet's report
//! counts as JaCoCo does (its instrumentation emulates JaCoCo's probes), which commons-lang3
//! `Fraction` exercises (arithmetic that overflows right after a branch).

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

#[test]
fn the_report_counts_what_jacoco_measures_class_by_class() {
    let root = tempfile::tempdir().unwrap();
    let (agent, tool, core) = jacoco_tools(&root.path().join("jacoco"));
    let subjects = rivet_testkit::compiled_subjects(11);
    let lang3 = rivet_testkit::debian_jar("commons-lang3");
    let cases: [(&str, &Path); 7] = [
        ("structures.AvlTree", &subjects),
        ("statics.Registry", &subjects),
        ("lct.Examples", &subjects),
        ("geometry.Conformance", &subjects),
        ("sushi.Scheduler", &subjects),
        ("org.apache.commons.lang3.text.WordUtils", &lang3),
        ("org.apache.commons.lang3.math.Fraction", &lang3),
    ];
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    for (n, (class, cp)) in cases.iter().enumerate() {
        let out = root.path().join(format!("out{n}"));
        common::rivet_ok(&[
            "generate",
            "--classpath",
            &cp.display().to_string(),
            "--class",
            class,
            "--out",
            &out.display().to_string(),
            "--budget",
            "5",
            "--seed",
            "0",
        ]);
        let report: rivet_report::Report =
            serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
                .unwrap();
        let test_cp = common::junit5_classpath(cp);
        let classes = root.path().join(format!("classes{n}"));
        common::javac_tests(
            &test_cp,
            &[PathBuf::from(report.test_file.as_deref().unwrap())],
            &classes,
        );
        let exec = root.path().join(format!("jacoco{n}.exec"));
        let run = Command::new(jdk.join("bin/java"))
            .arg(format!(
                "-javaagent:{}=destfile={},includes={class}*",
                agent.display(),
                exec.display()
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
        let measured = Command::new(jdk.join("bin/java"))
            .arg("-cp")
            .arg(format!("{}:{core}", tool.display()))
            .arg("BenchCoverage")
            .arg(&exec)
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
        let jacoco: BTreeMap<String, (usize, usize)> = String::from_utf8_lossy(&measured.stderr)
            .lines()
            .filter_map(|l| {
                let (c, counts) = l.split_once(' ')?;
                let (cov, total) = counts.split_once('/')?;
                Some((c.to_string(), (cov.parse().ok()?, total.parse().ok()?)))
            })
            .collect();
        let claimed: BTreeMap<String, (usize, usize)> = report
            .classes
            .iter()
            .map(|r| (r.class.binary(), (r.covered, r.branches)))
            .collect();
        assert_eq!(claimed, jacoco, "{class}: the report against JaCoCo");
    }
}
