//! Instrumentation where the layout or the verifier is stressed: a method that grows past the
//! reach of 16-bit jumps (goto_w and trampolines, with stack-map frames), and class files of
//! major version 49 without StackMapTable (checked by the old type-inferencing verifier).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rivet_classfile::{AttributeBody, ClassFile};
use rivet_instrument::{instrument_classpath, InstrumentConfig};
use support::{cp, java_source, javac, run_java_ok, scratch};

fn checker(dir: &Path) -> PathBuf {
    let out = dir.join("checker");
    javac("", &[java_source("VerifyAll.java")], &out);
    out
}

/// Runs VerifyAll under -Xverify:all and returns its summary line.
fn verify(checker: &Path, root: &Path) -> String {
    let out = run_java_ok(&[
        "-Xverify:all",
        "-cp",
        &cp(&[checker]),
        "VerifyAll",
        &root.display().to_string(),
    ]);
    assert!(!out.contains("VERIFY") && !out.contains("FORMAT"), "{out}");
    out.lines().last().unwrap_or_default().to_string()
}

const IFS: i32 = 2000;

#[test]
fn a_method_pushed_past_16_bit_jumps_still_verifies_and_counts() {
    let dir = scratch("big-method");
    let src = dir.join("src/big");
    std::fs::create_dir_all(&src).unwrap();
    let mut body = String::new();
    for k in 0..IFS {
        let _ = writeln!(body, "            if (x == {k}) {{ s += {k}; }}");
    }
    std::fs::write(
        src.join("Big.java"),
        format!(
            "package big;\npublic class Big {{\n    public static int run(int x, int n) {{\n        int s = 0;\n        for (int i = 0; i < n; i++) {{\n{body}        }}\n        return s;\n    }}\n}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        src.join("BigMain.java"),
        "package big;\npublic class BigMain {\n    public static void main(String[] a) {\n        System.out.println(Big.run(7, 1));\n    }\n}\n",
    )
    .unwrap();
    let classes = dir.join("classes");
    javac(
        "",
        &[src.join("Big.java"), src.join("BigMain.java")],
        &classes,
    );
    let original = std::fs::metadata(classes.join("big/Big.class"))
        .unwrap()
        .len();
    let inst = dir.join("instrumented");
    let r = instrument_classpath(
        std::slice::from_ref(&classes),
        &inst,
        &InstrumentConfig::default(),
    )
    .unwrap();
    assert!(r.unprobed.is_empty(), "{:?}", r.unprobed);
    let cf = ClassFile::parse(&std::fs::read(inst.join("big/Big.class")).unwrap()).unwrap();
    let code = cf
        .methods
        .iter()
        .find_map(|m| (cf.member_name(m).unwrap() == "run").then(|| m.code().unwrap()));
    let code = code.unwrap();
    assert!(
        code.code_length > 40_000,
        "{} bytes (class was {original})",
        code.code_length
    );
    assert!(
        code.instructions
            .iter()
            .any(|i| i.opcode == rivet_classfile::Opcode::GOTO_W),
        "the loop needs goto_w"
    );
    let checker = checker(&dir);
    let summary = verify(&checker, &inst);
    assert!(summary.contains("verify 0"), "{summary}");

    let dump = dir.join("dump");
    javac(&cp(&[&inst]), &[java_source("ProbeDump.java")], &dump);
    let out = run_java_ok(&[
        "-Xverify:all",
        "-cp",
        &cp(&[&inst, &dump]),
        "ProbeDump",
        "big.BigMain",
    ]);
    assert!(out.starts_with("7\n"), "{out}");
    let hits: Vec<u32> = out
        .lines()
        .filter_map(|l| l.strip_prefix("hit ")?.parse().ok())
        .collect();
    let big = r.probes.class("big.Big").unwrap();
    // The loop test (both outcomes with n = 1), and each `if (x == k)`: taken (x != k) except k = 7.
    assert_eq!(hits.len(), 2 + IFS as usize, "{hits:?}");
    let if7 = big.base + 2 + 2 * 7;
    assert!(hits.contains(&(if7 + 1)) && !hits.contains(&if7));
}

/// Rewrites a class as a Java 5 class file (major 49) without StackMapTable.
fn downgrade(bytes: &[u8]) -> Vec<u8> {
    let mut cf = ClassFile::parse(bytes).unwrap();
    cf.major_version = 49;
    for m in &mut cf.methods {
        if let Some(code) = m.code_mut() {
            code.attributes
                .retain(|a| !matches!(a.body, AttributeBody::StackMapTable(_)));
        }
    }
    cf.to_bytes().unwrap()
}

#[test]
fn java5_class_files_without_frames_verify_after_instrumentation() {
    let dir = scratch("java5");
    let compiled = dir.join("release8");
    // hostile.Hostile needs Java 9 (Thread.onSpinWait).
    let mut sources: Vec<PathBuf> = rivet_testkit::subject_sources()
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("hostile"))
        .collect();
    sources.push(java_source("fixture/Dist.java"));
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 8, "", &sources, &compiled);
    let old = dir.join("java5");
    let mut n = 0;
    for p in rivet_testkit::class_files(&compiled) {
        let rel = p.strip_prefix(&compiled).unwrap();
        let dest = old.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, downgrade(&std::fs::read(&p).unwrap())).unwrap();
        n += 1;
    }
    let checker = checker(&dir);
    let before = verify(&checker, &old);
    assert!(before.contains(&format!("ok {n} ")), "{before}");
    let inst = dir.join("instrumented");
    let r = instrument_classpath(
        std::slice::from_ref(&old),
        &inst,
        &InstrumentConfig::default(),
    )
    .unwrap();
    assert!(r.unprobed.is_empty() && r.probe_sites > 100, "{r:?}");
    let after = verify(&checker, &inst);
    let runtime = rivet_instrument::runtime_classes().len();
    assert!(after.contains(&format!("ok {} ", n + runtime)), "{after}");
    let cf =
        ClassFile::parse(&std::fs::read(inst.join("strings/DateParser.class")).unwrap()).unwrap();
    assert_eq!(cf.major_version, 49);
    assert!(cf
        .methods
        .iter()
        .filter_map(|m| m.code())
        .all(|c| c.stack_map().is_none()));
}
