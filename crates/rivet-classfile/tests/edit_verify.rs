//! Code-editor tests against the JVM verifier on code javac did not write for these tests: the
//! shared subjects and a spread of java.base classes, edited everywhere, must pass
//! `-Xverify:all`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_classfile::{ClassFile, Instruction, Item, Opcode, Operand};
use std::collections::BTreeSet;
use std::path::Path;
use support::edit::{branch_targets, edit_all, nops, probe};
use support::{class_files, javac, rewrite, TempDir};

const VERIFY: &str = r#"
public class Verify {
    public static void main(String[] args) throws Exception {
        int n = 0;
        for (String a : args) {
            try {
                Class.forName(a, true, Verify.class.getClassLoader());
                n++;
            } catch (VerifyError | ClassFormatError e) {
                System.out.println("BAD " + a + ": " + e);
            } catch (Throwable t) {
                n++; // initialisation may fail for reasons of its own; linking (verification) passed
            }
        }
        System.out.println("linked " + n);
    }
}
"#;

#[test]
fn subjects_verify_after_probing_with_labels_everywhere() {
    let tmp = TempDir::new("subjects-edit");
    let Some(classes) = support::compile_subjects(tmp.path()) else {
        eprintln!("no subjects: skipped");
        return;
    };
    let harness = javac(tmp.path(), &[("Verify.java", VERIFY)], "17");
    let out = tmp.path().join("edited");
    let mut names = Vec::new();
    rewrite(&classes, &out, |cf| {
        names.push(cf.name().unwrap().replace('/', "."));
        let flag =
            cf.constant_pool
                .intern_field_ref("java/lang/Boolean", "TRUE", "Ljava/lang/Boolean;");
        edit_all(cf, |name, ed, cp| {
            let offsets: Vec<u32> = ed
                .original()
                .instructions
                .iter()
                .map(|i| i.offset)
                .collect();
            let targets = branch_targets(ed.original());
            for off in offsets {
                ed.insert_before(off, probe(cp, &format!("{name} {off}")));
                if targets.contains(&off) || off == 0 {
                    let l = ed.new_label();
                    let mut items: Vec<Item> = vec![
                        Instruction::new(Opcode::GETSTATIC, Operand::Constant(flag)).into(),
                        Instruction::new(Opcode::IFNONNULL, Operand::Jump(l.target())).into(),
                    ];
                    items.extend(nops(2).into_iter().map(Item::from));
                    items.push(l.into());
                    ed.insert_before(off, items);
                }
            }
            ed.add_max_stack(2);
            Ok(())
        });
    });
    let cp = format!("{}:{}", out.display(), harness.display());
    let o = std::process::Command::new("java")
        .args(["-Xverify:all", "-cp", &cp, "Verify"])
        .args(&names)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!stdout.contains("BAD"), "{stdout}");
    assert!(
        stdout.contains(&format!("linked {}", names.len())),
        "{stdout}"
    );
}

const VERIFY_BOOT: &str = r#"
import java.nio.file.*;
import java.util.*;

/** Links (and so verifies) every class under args[0], loaded by the boot loader. */
public class VerifyBoot {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get(args[0]);
        List<String> names = new ArrayList<>();
        try (var s = Files.walk(root)) {
            s.filter(p -> p.toString().endsWith(".class"))
             .forEach(p -> names.add(root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "")));
        }
        int ok = 0;
        for (String n : names) {
            try {
                Class<?> c = Class.forName(n, false, null);
                c.getDeclaredMethods(); // links the class
                ok++;
            } catch (VerifyError | ClassFormatError e) {
                System.out.println("BAD " + n + ": " + e);
            } catch (Throwable t) {
                System.out.println("OTHER " + n + ": " + t);
            }
        }
        System.out.println("linked " + ok);
    }
}
"#;

/// Every method of a spread of java.base classes gets labelled code at every branch target
/// and nops before every instruction; the classes (those the VM does not load at startup)
/// replace java.base's through --patch-module and must pass `-Xverify:all`.
#[test]
fn jdk_classes_verify_after_editing() {
    let jmod = "/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod";
    if !Path::new(jmod).exists() {
        eprintln!("no {jmod}: skipped");
        return;
    }
    let tmp = TempDir::new("jdk");
    let base = tmp.path().join("base");
    let o = std::process::Command::new("jmod")
        .args(["extract", "--dir"])
        .arg(&base)
        .arg(jmod)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let harness = javac(tmp.path(), &[("VerifyBoot.java", VERIFY_BOOT)], "17");
    // Classes the VM loads while starting the harness are left alone.
    let o = std::process::Command::new("java")
        .args(["-Xshare:off", "-Xlog:class+load=info", "-cp"])
        .arg(&harness)
        .args(["VerifyBoot", "/nonexistent"])
        .output()
        .unwrap();
    let startup: BTreeSet<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split("] ").nth(1)?.split(' ').next().map(str::to_string))
        .collect();
    assert!(startup.contains("java.lang.Object"));
    let classes = base.join("classes");
    let patch = tmp.path().join("patch");
    let (mut methods, mut written) = (0, 0);
    for (k, p) in class_files(&classes).iter().enumerate() {
        let rel = p.strip_prefix(&classes).unwrap();
        let name = rel
            .to_str()
            .unwrap()
            .trim_end_matches(".class")
            .replace('/', ".");
        if k % 10 != 0 || name == "module-info" || startup.contains(&name) {
            continue;
        }
        let mut cf = ClassFile::parse(&std::fs::read(p).unwrap()).unwrap();
        edit_all(&mut cf, |_, ed, _| {
            let code = ed.original().clone();
            let mut targets = branch_targets(&code);
            targets.insert(0);
            for (n, insn) in code.instructions.iter().enumerate() {
                if targets.contains(&insn.offset) {
                    let l = ed.new_label();
                    ed.insert_before(
                        insn.offset,
                        [
                            Item::Insn(Instruction::new(Opcode::ICONST_1, Operand::None)),
                            Item::Insn(Instruction::new(Opcode::IFNE, Operand::Jump(l.target()))),
                            Item::Insn(Instruction::new(Opcode::NOP, Operand::None)),
                            Item::Label(l),
                        ],
                    );
                }
                ed.insert_before(insn.offset, nops(n % 3));
            }
            ed.add_max_stack(1);
            methods += 1;
            Ok(())
        });
        let dest = patch.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, cf.to_bytes().unwrap()).unwrap();
        written += 1;
    }
    assert!(
        methods > 3000 && written > 300,
        "{methods} methods, {written} classes"
    );
    let o = std::process::Command::new("java")
        .arg("-Xverify:all")
        .arg(format!("--patch-module=java.base={}", patch.display()))
        .arg("-cp")
        .arg(&harness)
        .arg("VerifyBoot")
        .arg(&patch)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!stdout.contains("BAD"), "{stdout}");
    assert!(stdout.contains(&format!("linked {written}")), "{stdout}");
}
