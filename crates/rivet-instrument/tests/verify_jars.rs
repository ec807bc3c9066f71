//! Every class of five real Debian jars, instrumented, loads and links under
//! `java -Xverify:all` with no VerifyError. Linking without initialisation: see
//! tests/java/VerifyAll.java. Classes that cannot link because an optional dependency of the
//! jar is not installed (NoClassDefFoundError) are counted separately and must be the same
//! classes as for the original jar.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rivet_classfile::{ClassFile, ClassName};
use rivet_instrument::{instrument_classpath, InstrumentConfig, ProbeScope};
use support::{cp, java_source, javac, run_java_ok, scratch};

/// The summary and failure lines of one VerifyAll run.
#[derive(Debug)]
struct Verified {
    checked: usize,
    ok: usize,
    verify: Vec<String>,
    format: Vec<String>,
    missing: BTreeSet<String>,
    other: Vec<String>,
}

fn checker(dir: &Path) -> PathBuf {
    let out = dir.join("checker");
    javac("", &[java_source("VerifyAll.java")], &out);
    out
}

fn verify(checker: &Path, root: &Path) -> Verified {
    verify_with(checker, root, &[])
}

/// As [`verify`], with the jars `deps` beside `root` (its classes alone are checked).
fn verify_with(checker: &Path, root: &Path, deps: &[PathBuf]) -> Verified {
    let cpath = cp(&[checker]);
    let mut args: Vec<String> = ["-Xverify:all", "-Xshare:off", "-cp", &cpath, "VerifyAll"]
        .map(String::from)
        .to_vec();
    args.push(root.display().to_string());
    args.extend(deps.iter().map(|d| d.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let stdout = run_java_ok(&args);
    let mut v = Verified {
        checked: 0,
        ok: 0,
        verify: Vec::new(),
        format: Vec::new(),
        missing: BTreeSet::new(),
        other: Vec::new(),
    };
    for line in stdout.lines() {
        let (tag, rest) = line.split_once(' ').unwrap_or((line, ""));
        match tag {
            "VERIFY" => v.verify.push(rest.to_string()),
            "FORMAT" => v.format.push(rest.to_string()),
            // The class and the missing class it names.
            "MISSING" => {
                v.missing.insert(rest.to_string());
            }
            "OTHER" => v.other.push(rest.to_string()),
            "checked" => {
                let f: Vec<&str> = line.split(' ').collect();
                v.checked = f[1].parse().unwrap();
                v.ok = f[3].parse().unwrap();
            }
            _ => {}
        }
    }
    v
}

#[test]
fn five_debian_jars_verify_after_instrumentation() {
    let dir = scratch("verify-jars");
    let checker = checker(&dir);
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for name in [
        "commons-lang3",
        "commons-collections4",
        "guava",
        "joda-time",
        "commons-codec",
    ] {
        let jar = rivet_testkit::debian_jar(name);
        let out = dir.join(name);
        let start = Instant::now();
        let r = instrument_classpath(
            std::slice::from_ref(&jar),
            &out,
            &InstrumentConfig::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let secs = start.elapsed().as_secs_f64();
        let after = verify(&checker, &out);
        let before = verify(&checker, &jar);
        report.push(format!(
            "{name}: {} classes ({} with probes, {} probes, {} sites, {} switches, {} exits) in {secs:.2} s = {:.0} classes/s; \
             linked {}/{} (original {}/{}), VerifyError {}, ClassFormatError {}, missing dependency {} (original {}), other {}; unprobed {}",
            r.classes, r.probed, r.probes.probe_count(), r.probe_sites, r.switches, r.exits,
            r.classes as f64 / secs,
            after.ok, after.checked, before.ok, before.checked,
            after.verify.len(), after.format.len(), after.missing.len(), before.missing.len(),
            after.other.len(), r.unprobed.len()
        ));
        assert!(r.unreadable.is_empty(), "{name}: {:?}", r.unreadable);
        for s in &r.unprobed {
            failures.push(format!("{name}: no probes in {}: {}", s.class, s.reason));
        }
        failures.extend(
            after
                .verify
                .iter()
                .map(|l| format!("{name}: VerifyError {l}")),
        );
        failures.extend(
            after
                .format
                .iter()
                .map(|l| format!("{name}: ClassFormatError {l}")),
        );
        if after.missing != before.missing {
            failures.push(format!(
                "{name}: missing-dependency failures differ from the original jar's: {:?} vs {:?}",
                after
                    .missing
                    .symmetric_difference(&before.missing)
                    .collect::<Vec<_>>(),
                before.missing.len()
            ));
        }
        if after.other.len() != before.other.len() {
            failures.push(format!(
                "{name}: other failures {:?} (original {:?})",
                after.other, before.other
            ));
        }
        assert!(
            after.checked > 0 && after.checked >= before.checked,
            "{name}: {after:?}"
        );
    }
    for l in &report {
        eprintln!("{l}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Classes outside the probe scope get a loop watch before every backward jump; a compiler's
/// and a collection library's classes, all of them watched, still verify.
#[test]
fn classes_with_watched_loops_verify() {
    let dir = scratch("verify-watched");
    let checker = checker(&dir);
    let scope = InstrumentConfig {
        scope: ProbeScope::Classes(vec![ClassName::from_binary("no.Such")]),
        ..InstrumentConfig::default()
    };
    // With the compiler's dependencies that Debian installs beside it (protobuf is not).
    let closure_deps = ["guava", "json", "args4j", "jsr305", "ant"].map(rivet_testkit::debian_jar);
    for (name, deps) in [("closure-compiler", &closure_deps[..]), ("guava", &[])] {
        let jar = rivet_testkit::debian_jar(name);
        let out = dir.join(name);
        let r = instrument_classpath(std::slice::from_ref(&jar), &out, &scope)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.probed, 0, "{name}");
        assert!(r.loop_sites > 1000, "{name}: {} loop watches", r.loop_sites);
        let after = verify_with(&checker, &out, deps);
        let before = verify_with(&checker, &jar, deps);
        assert!(
            after.verify.is_empty() && after.format.is_empty(),
            "{name}: {after:?}"
        );
        // The same classes miss a dependency (which missing class is met first may differ).
        let classes = |v: &Verified| -> BTreeSet<String> {
            v.missing
                .iter()
                .map(|l| l.split(' ').next().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(classes(&after), classes(&before), "{name}");
        // The runtime's classes come on top.
        assert_eq!(
            after.checked - after.ok,
            before.checked - before.ok,
            "{name}"
        );
    }
}

/// The checker does catch a VerifyError: an instrumented method whose max_stack is set back
/// below what the probe code needs must be reported.
#[test]
fn checker_reports_a_broken_instrumented_class() {
    let dir = scratch("verify-negative");
    let checker = checker(&dir);
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = dir.join("out");
    instrument_classpath(&[subjects], &out, &InstrumentConfig::default()).unwrap();
    let ok = verify(&checker, &out);
    assert!(ok.verify.is_empty() && ok.ok == ok.checked, "{ok:?}");

    let path = out.join("structures/AvlTree.class");
    let mut cf = ClassFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    let i = cf
        .methods
        .iter()
        .position(|m| cf.member_name(m).unwrap() == "contains")
        .unwrap();
    cf.methods[i].code_mut().unwrap().max_stack = 2;
    std::fs::write(&path, cf.to_bytes().unwrap()).unwrap();
    let bad = verify(&checker, &out);
    assert_eq!(bad.verify.len(), 1, "{bad:?}");
    assert!(bad.verify[0].starts_with("structures.AvlTree "), "{bad:?}");
}
