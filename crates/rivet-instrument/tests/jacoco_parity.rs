//! The branches Rivet's probes report taken are the branches JaCoCo reports covered for the
//! same executions: hand-written drivers (tests/drivers) over the shared subjects run once
//! against the instrumented subjects (tests/java/ProbeDump.java prints the hit probes) and once
//! against the original subjects under the JaCoCo 0.8.6 agent (tests/java/JacocoCoverage.java
//! reads the exec file with JaCoCo's Analyzer). Covered-branch counts must be equal per method
//! and per source line.
//!
//! JaCoCo marks a branch covered when a probe after it runs; Rivet counts a branch covered when
//! one of the JaCoCo points that confirm it (instrumented beside its branch probe) was hit, so
//! a branch followed by an exception before JaCoCo's next probe counts for neither.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use rivet_instrument::{instrument_classpath, InstrumentConfig, ProbeMap};
use rivet_testkit::{debian_jar, Jdk};
use support::{cp, crate_dir, java_source, javac, run_java_ok, scratch};

const DRIVERS: &[&str] = &[
    "AvlTreeDriver",
    "NodeCachingListDriver",
    "SampleDriver",
    "ExamplesDriver",
    "DateParserDriver",
    "IbanDriver",
    "SampleClassDriver",
    "BarDriver",
    "ShapesDriver",
];

const SUBJECT_PACKAGES: &str = "structures.*:sushi.*:lct.*:strings.*:tardis.*:evodse.*:fixture.*";

/// (class, method, descriptor) and (…, line) → (covered, total).
#[derive(Debug, Default, PartialEq)]
struct Coverage {
    methods: BTreeMap<(String, String, String), (u32, u32)>,
    lines: BTreeMap<(String, String, String, u16), (u32, u32)>,
}

fn jacoco_classpath() -> String {
    ["org.jacoco.core", "asm", "asm-commons", "asm-tree"]
        .iter()
        .map(|j| debian_jar(j).display().to_string())
        .collect::<Vec<_>>()
        .join(":")
}

/// A jar holding only a manifest that makes the Debian JaCoCo runtime an agent.
fn agent_jar(dir: &Path) -> PathBuf {
    let class_path = [
        "org.jacoco.agent.rt",
        "org.jacoco.core",
        "asm",
        "asm-commons",
        "asm-tree",
    ]
    .iter()
    .map(|j| debian_jar(j).display().to_string())
    .collect::<Vec<_>>()
    .join(" ");
    let manifest = dir.join("agent-manifest.txt");
    std::fs::write(
        &manifest,
        format!("Premain-Class: org.jacoco.agent.rt.internal.PreMain\nClass-Path: {class_path}\n"),
    )
    .unwrap();
    let jar = dir.join("jacoco-agent.jar");
    let _ = std::fs::remove_file(&jar);
    let status = Command::new(Jdk::Jdk17.home().join("bin/jar"))
        .arg("--create")
        .arg("--file")
        .arg(&jar)
        .arg("--manifest")
        .arg(&manifest)
        .arg("-C")
        .arg(dir)
        .arg("agent-manifest.txt")
        .status()
        .unwrap();
    assert!(status.success(), "jar failed");
    jar
}

fn rivet_coverage(map: &ProbeMap, stdout: &str) -> Coverage {
    let mut cov = Coverage::default();
    for c in map.classes() {
        for b in &c.branches {
            let (m, d) = &c.methods[b.method];
            let key = (c.class.binary(), m.clone(), d.clone());
            cov.methods.entry(key.clone()).or_default().1 += 1;
            if let Some(line) = b.line {
                cov.lines.entry((key.0, key.1, key.2, line)).or_default().1 += 1;
            }
        }
    }
    let hits: std::collections::BTreeSet<rivet_testcase::ProbeId> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("hit "))
        .map(|p| rivet_testcase::ProbeId(p.parse().unwrap()))
        .collect();
    for c in map.classes() {
        for (i, info) in c.branches.iter().enumerate() {
            let confirmers = c.confirmers(rivet_instrument::BranchId(i as u32)).unwrap();
            if !confirmers.iter().any(|p| hits.contains(p)) {
                continue;
            }
            let (m, d) = &c.methods[info.method];
            let key = (c.class.binary(), m.clone(), d.clone());
            cov.methods.get_mut(&key).unwrap().0 += 1;
            if let Some(line) = info.line {
                cov.lines.get_mut(&(key.0, key.1, key.2, line)).unwrap().0 += 1;
            }
        }
    }
    cov
}

fn jacoco_coverage(stdout: &str) -> Coverage {
    let mut cov = Coverage::default();
    for line in stdout.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let key = (f[1].to_string(), f[2].to_string(), f[3].to_string());
        match f[0] {
            "M" => {
                cov.methods
                    .insert(key, (f[4].parse().unwrap(), f[5].parse().unwrap()));
            }
            "L" => {
                cov.lines.insert(
                    (key.0, key.1, key.2, f[4].parse().unwrap()),
                    (f[5].parse().unwrap(), f[6].parse().unwrap()),
                );
            }
            _ => {}
        }
    }
    cov
}

fn differences<K: std::fmt::Debug + Ord>(
    what: &str,
    rivet: &BTreeMap<K, (u32, u32)>,
    jacoco: &BTreeMap<K, (u32, u32)>,
) -> Vec<String> {
    let keys: std::collections::BTreeSet<&K> = rivet.keys().chain(jacoco.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let r = rivet.get(k).copied().unwrap_or_default();
            let j = jacoco.get(k).copied().unwrap_or_default();
            (r != j).then(|| {
                format!(
                    "{what} {k:?}: Rivet {}/{} covered, JaCoCo {}/{}",
                    r.0, r.1, j.0, j.1
                )
            })
        })
        .collect()
}

#[test]
fn covered_branches_match_jacoco() {
    let dir = scratch("jacoco-parity");
    let subjects = rivet_testkit::compiled_subjects(11);
    // javac shapes JaCoCo filters (tests/java/fixture/Shapes.java), next to the subjects.
    let fixture = dir.join("fixture");
    javac("", &[java_source("fixture/Shapes.java")], &fixture);
    let drivers = dir.join("drivers");
    let mut sources: Vec<PathBuf> = DRIVERS
        .iter()
        .map(|d| crate_dir().join(format!("tests/drivers/{d}.java")))
        .collect();
    sources.sort();
    javac(&cp(&[&subjects, &fixture]), &sources, &drivers);
    let inst = dir.join("instrumented");
    let report = instrument_classpath(
        &[subjects.clone(), fixture.clone()],
        &inst,
        &InstrumentConfig::default(),
    )
    .unwrap();
    let dump = dir.join("dump");
    javac(&cp(&[&inst]), &[java_source("ProbeDump.java")], &dump);
    let tool = dir.join("jacoco-tool");
    javac(
        &jacoco_classpath(),
        &[java_source("JacocoCoverage.java")],
        &tool,
    );
    let agent = agent_jar(&dir);

    let mut mismatches = Vec::new();
    for driver in DRIVERS {
        let main = format!("drivers.{driver}");
        let rivet_cp = cp(&[&inst, &drivers, &dump]);
        let rivet_out = run_java_ok(&["-Xverify:all", "-cp", &rivet_cp, "ProbeDump", &main]);
        let rivet = rivet_coverage(&report.probes, &rivet_out);

        let exec = dir.join(format!("{driver}.exec"));
        let _ = std::fs::remove_file(&exec);
        let agent_arg = format!(
            "-javaagent:{}=destfile={},includes={SUBJECT_PACKAGES},output=file",
            agent.display(),
            exec.display()
        );
        run_java_ok(&[
            &agent_arg,
            "-cp",
            &cp(&[&subjects, &fixture, &drivers]),
            &main,
        ]);
        let tool_cp = format!("{}:{}", jacoco_classpath(), tool.display());
        let exec_s = exec.display().to_string();
        let (subjects_s, fixture_s) = (
            subjects.display().to_string(),
            fixture.display().to_string(),
        );
        let jacoco_out = run_java_ok(&[
            "-cp",
            &tool_cp,
            "JacocoCoverage",
            &exec_s,
            &subjects_s,
            &fixture_s,
        ]);
        let jacoco = jacoco_coverage(&jacoco_out);

        let covered: u32 = jacoco.methods.values().map(|v| v.0).sum();
        let total: u32 = jacoco.methods.values().map(|v| v.1).sum();
        let rivet_covered: u32 = rivet.methods.values().map(|v| v.0).sum();
        eprintln!("{driver}: JaCoCo {covered}/{total} branches covered, Rivet {rivet_covered}");
        assert!(
            covered > 0,
            "{driver}: JaCoCo saw no coverage:\n{jacoco_out}"
        );
        for d in differences("method", &rivet.methods, &jacoco.methods)
            .into_iter()
            .chain(differences("line", &rivet.lines, &jacoco.lines))
        {
            mismatches.push(format!("{driver}: {d}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
