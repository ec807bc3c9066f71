//! Code-editor tests against real javac output: insert code at every branch target and before
//! every instruction, write the classes, and check that `java -Xverify:all` runs them with the
//! same output as the unmodified classes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_classfile::edit::LABEL_BASE;
use rivet_classfile::{
    ClassFile, CodeEditor, ConstantPool, Instruction, Item, Opcode, Operand, WriteError,
};
use std::path::Path;
use support::edit::{branch_targets, edit_all, method_name, nops, probe};
use support::{class_files, java, javac, rewrite, TempDir};

const MAIN: &str = r#"
import java.util.*;

public class Main {
    static boolean quiet;
    int field;

    Main(int v) { this.field = v; }

    static int loopAtStart(int n) {
        while (n > 10) { n -= 3; }
        return n;
    }

    static int sumTo(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }

    static String table(int k) {
        switch (k) {
            case 0: return "zero";
            case 1: return "one";
            case 2: return "two";
            case 3: return "three";
            default: return "many";
        }
    }

    static int lookup(int k) {
        switch (k) {
            case -1000: return 1;
            case 7: return 2;
            case 123456: return 3;
            default: return 0;
        }
    }

    static int strSwitch(String s) {
        switch (s) {
            case "alpha": return 1;
            case "beta": return 2;
            case "gamma": return 3;
            default: return -1;
        }
    }

    static String tryCatch(int x) {
        StringBuilder sb = new StringBuilder();
        try {
            sb.append("a");
            if (x == 0) throw new IllegalStateException("boom");
            sb.append(10 / (x - 1));
        } catch (IllegalStateException e) {
            sb.append("ise:").append(e.getMessage());
        } catch (ArithmeticException e) {
            sb.append("ae");
        } finally {
            sb.append("|f");
        }
        return sb.toString();
    }

    static int nested(int n) {
        int c = 0;
        outer:
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j > i) continue outer;
                if (i * j > 20) break outer;
                c += i ^ j;
            }
        }
        return c;
    }

    static long longs(long a, double d) {
        long r = 0;
        for (int i = 0; i < 5; i++) {
            r += a * i;
            if (d > i) r ^= (long) d;
        }
        return r;
    }

    synchronized int syncAdd(int v) {
        synchronized (this) { field += v; }
        return field;
    }

    static Main make(boolean b) { return new Main(b ? 1 : 2); }

    static int lambdas(List<Integer> xs) {
        return xs.stream().filter(x -> x % 2 == 0).mapToInt(x -> x).sum();
    }

    static String objects(Object o) {
        String r;
        if (o instanceof String) r = "s:" + o;
        else if (o instanceof Integer) r = "i:" + ((Integer) o + 1);
        else r = "o";
        return r;
    }

    static class Sub extends Main {
        final String tag;
        Sub(int x) { super(x > 0 ? x : -x); tag = x > 0 ? "pos" : "neg"; }
    }

    static int longMethod(int x) {
        LONG_BODY
        return x;
    }

    public static void main(String[] args) {
        System.out.println(loopAtStart(100) + " " + loopAtStart(5));
        System.out.println(sumTo(10));
        for (int k = -1; k < 5; k++) System.out.print(table(k) + ",");
        System.out.println();
        System.out.println(lookup(-1000) + lookup(7) * 10 + lookup(123456) * 100 + lookup(8) * 1000);
        System.out.println(strSwitch("alpha") + strSwitch("beta") + strSwitch("gamma") + strSwitch("x"));
        System.out.println(tryCatch(0) + " " + tryCatch(1) + " " + tryCatch(3));
        System.out.println(nested(10));
        System.out.println(longs(3L, 2.5));
        System.out.println(new Main(5).syncAdd(4));
        System.out.println(make(true).field + make(false).field);
        System.out.println(lambdas(Arrays.asList(1, 2, 3, 4, 5, 6)));
        System.out.println(objects("x") + objects(41) + objects(1.0));
        Sub s = new Sub(-3);
        System.out.println(s.field + s.tag);
        System.out.println(longMethod(7));
    }
}
"#;

fn main_source() -> String {
    let mut body = String::new();
    for i in 0..300 {
        body.push_str(&format!(
            "if (x % {m} == {r}) x = x * 31 + {i}; else x = x ^ {i};\n        x &= 0xFFFFF;\n        ",
            m = i % 7 + 2,
            r = i % 2
        ));
    }
    MAIN.replace("LONG_BODY", &body)
}

struct Fixture {
    _tmp: TempDir,
    classes: std::path::PathBuf,
    stdout: String,
}

fn fixture() -> Fixture {
    let tmp = TempDir::new("edit");
    let classes = javac(tmp.path(), &[("Main.java", &main_source())], "17");
    let (ok, stdout, stderr) = java(&classes, "Main");
    assert!(ok, "unmodified program failed: {stderr}");
    assert!(stdout.lines().count() >= 10);
    Fixture {
        _tmp: tmp,
        classes,
        stdout,
    }
}

/// Rewrites the fixture's classes with `edit`, runs them, checks stdout; returns stderr.
fn run_edited(
    fx: &Fixture,
    tag: &str,
    edit: impl FnMut(&str, &mut CodeEditor, &mut ConstantPool) -> Result<(), WriteError> + Clone,
) -> String {
    let out = fx._tmp.path().join(tag);
    rewrite(&fx.classes, &out, |cf| edit_all(cf, edit.clone()));
    let (ok, stdout, stderr) = java(&out, "Main");
    assert!(ok, "{tag}: edited program failed: {stderr}");
    assert_eq!(stdout, fx.stdout, "{tag}: output differs");
    stderr
}

#[test]
fn nops_before_every_instruction_keep_behaviour() {
    let fx = fixture();
    run_edited(&fx, "nops", |_, ed, _| {
        let offsets: Vec<u32> = ed
            .original()
            .instructions
            .iter()
            .map(|i| i.offset)
            .collect();
        for (k, off) in offsets.into_iter().enumerate() {
            // 1 to 3 nops, so switch padding changes from one switch to the next.
            ed.insert_before(off, nops(k % 3 + 1));
        }
        Ok(())
    });
}

#[test]
fn probes_at_branch_targets_run_on_every_entry() {
    let fx = fixture();
    let stderr = run_edited(&fx, "targets", |name, ed, cp| {
        for t in branch_targets(ed.original()) {
            ed.insert_before(t, probe(cp, &format!("T {name} {t}")));
        }
        ed.add_max_stack(2);
        Ok(())
    });
    // loopAtStart(100) has a frame at offset 0 (loop head): 31 entries, plus 1 for (5).
    let head = stderr
        .lines()
        .filter(|l| *l == "T Main.loopAtStart 0")
        .count();
    assert_eq!(head, 32, "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("T Main.tryCatch")));
}

#[test]
fn probes_before_every_instruction_keep_behaviour() {
    let fx = fixture();
    let stderr = run_edited(&fx, "every", |name, ed, cp| {
        let offsets: Vec<u32> = ed
            .original()
            .instructions
            .iter()
            .map(|i| i.offset)
            .collect();
        for off in offsets {
            ed.insert_before(off, probe(cp, &format!("I {name} {off}")));
        }
        ed.add_max_stack(2);
        Ok(())
    });
    assert!(stderr.lines().count() > 1000);
}

#[test]
fn fallthrough_and_after_insertions_run_only_on_their_edge() {
    let fx = fixture();
    let stderr = run_edited(&fx, "edges", |name, ed, cp| {
        if name != "Main.loopAtStart" {
            return Ok(());
        }
        ed.insert_on_fallthrough(0, probe(cp, "entry"));
        ed.insert_before(0, probe(cp, "head"));
        let cond = ed
            .original()
            .instructions
            .iter()
            .find(|i| i.opcode.is_conditional_jump());
        let cond = cond.unwrap().offset;
        ed.insert_after(cond, probe(cp, "not taken"));
        ed.add_max_stack(2);
        Ok(())
    });
    let count = |s: &str| stderr.lines().filter(|l| *l == s).count();
    assert_eq!(count("entry"), 2, "{stderr}");
    assert_eq!(count("head"), 32, "{stderr}");
    assert_eq!(count("not taken"), 30, "{stderr}");
}

#[test]
fn labels_inside_inserted_code_get_frames() {
    let fx = fixture();
    let stderr = run_edited(&fx, "labels", |name, ed, cp| {
        let quiet = cp.intern_field_ref("Main", "quiet", "Z");
        let targets = branch_targets(ed.original());
        for t in targets.into_iter().chain([0]) {
            // if (!Main.quiet) System.err.println(...)
            let skip = ed.new_label();
            let mut items: Vec<Item> = vec![
                Instruction::new(Opcode::GETSTATIC, Operand::Constant(quiet)).into(),
                Instruction::new(Opcode::IFNE, Operand::Jump(skip.target())).into(),
            ];
            items.extend(
                probe(cp, &format!("L {name} {t}"))
                    .into_iter()
                    .map(Item::from),
            );
            items.push(skip.into());
            ed.insert_before(t, items);
        }
        ed.add_max_stack(2);
        Ok(())
    });
    assert!(
        stderr.lines().any(|l| l == "L Main.loopAtStart 0"),
        "{stderr}"
    );
    assert!(
        stderr.lines().any(|l| l.starts_with("L Main.make ")),
        "{stderr}"
    );
}

#[test]
fn empty_edit_gives_identical_code() {
    let fx = fixture();
    let tmp = TempDir::new("subjects");
    let mut dirs = vec![fx.classes.clone()];
    dirs.extend(support::compile_subjects(tmp.path()));
    let mut methods = 0;
    for dir in dirs {
        for p in class_files(&dir) {
            let cf = ClassFile::parse(&std::fs::read(&p).unwrap()).unwrap();
            for m in &cf.methods {
                let Some(code) = m.code() else { continue };
                let out = CodeEditor::new(code).finish("m").unwrap();
                assert_eq!(&out, code, "{}", p.display());
                methods += 1;
            }
        }
    }
    assert!(methods > 40, "{methods}");
}

const BIG: &str = r#"
public class Main {
    static int loop(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }
    static int doWhile(int n) { int s = 0; int i = 0; do { s += i; i++; } while (i < n); return s; }
    static int guard(int n) { int s = 0; if (n > 0) { s = n * 2; } return s; }
    static String handler(int n) {
        try { if (n > 3) { n = n / (n - 4); } } catch (ArithmeticException e) { return "caught"; }
        return "n=" + n;
    }
    static int loopInTry(int n) {
        int s = 0;
        try {
            for (int i = 0; i < n; i++) { s += 100 / (i - 3); }
        } catch (ArithmeticException e) { s = -s; }
        return s;
    }
    static String uninit(int n) { return new String(n > 0 ? "pos" : "neg"); }
    public static void main(String[] args) {
        System.out.println(uninit(1) + uninit(-1));
        System.out.println(loopInTry(2) + " " + loopInTry(5));
        System.out.println(loop(10) + " " + loop(0));
        System.out.println(doWhile(10) + " " + doWhile(0));
        System.out.println(guard(5) + " " + guard(-1));
        System.out.println(handler(4) + " " + handler(5) + " " + handler(1));
    }
}
"#;

/// Inserts `n` nops where they make every method's jumps span more than 32767 bytes.
fn bloat(cf: &mut ClassFile, n: usize) -> Vec<String> {
    let mut seen = Vec::new();
    for m in 0..cf.methods.len() {
        let name = method_name(cf, m);
        if !["loop", "doWhile", "guard", "handler", "loopInTry", "uninit"].contains(&name.as_str())
        {
            continue;
        }
        cf.edit_code(m, |ed, _| {
            let insns = &ed.original().instructions;
            let at = match name.as_str() {
                "guard" | "handler" | "uninit" => {
                    insns
                        .iter()
                        .find(|i| i.opcode.is_conditional_jump())
                        .unwrap()
                        .offset
                }
                _ => {
                    insns
                        .iter()
                        .find(|i| i.opcode == Opcode::IINC)
                        .unwrap()
                        .offset
                }
            };
            if !["guard", "handler", "uninit"].contains(&name.as_str()) {
                ed.insert_before(at, nops(n));
            } else {
                ed.insert_after(at, nops(n));
            }
            Ok(())
        })
        .unwrap();
        let code = cf.methods[m].code().unwrap();
        let by_offset = |o: u32| code.instructions.iter().find(|i| i.offset == o).unwrap();
        let widened = code.instructions.iter().any(|i| i.opcode == Opcode::GOTO_W);
        let trampolines: Vec<u32> = code
            .instructions
            .iter()
            .filter(|i| i.opcode.is_conditional_jump())
            .map(|i| i.targets()[0])
            .filter(|&t| by_offset(t).opcode == Opcode::GOTO_W)
            .collect();
        assert!(
            widened && !trampolines.is_empty(),
            "{name}: no goto_w / trampoline"
        );
        for h in &code.exception_table {
            assert!(
                trampolines.iter().all(|&t| t < h.start_pc || t >= h.end_pc),
                "{name}: trampoline inside a protected range {h:?}"
            );
        }
        seen.push(name);
    }
    seen
}

#[test]
fn long_jumps_become_goto_w_and_trampolines() {
    let tmp = TempDir::new("big");
    let classes = javac(tmp.path(), &[("Main.java", BIG)], "17");
    let (ok, expected, err) = java(&classes, "Main");
    assert!(ok, "{err}");
    let out = tmp.path().join("edited");
    let mut seen = Vec::new();
    rewrite(&classes, &out, |cf| seen = bloat(cf, 34_000));
    assert_eq!(seen.len(), 6);
    if let Some(keep) = std::env::var_os("RIVET_KEEP_EDITED") {
        rewrite(&out, Path::new(&keep), |_| {});
    }
    let (ok, stdout, stderr) = java(&out, "Main");
    assert!(ok, "{stderr}");
    assert_eq!(stdout, expected);
}

#[test]
fn old_class_files_without_frames_are_edited_too() {
    let tmp = TempDir::new("old");
    let classes = javac(tmp.path(), &[("Main.java", BIG)], "8");
    let (ok, expected, err) = java(&classes, "Main");
    assert!(ok, "{err}");
    let out = tmp.path().join("edited");
    rewrite(&classes, &out, |cf| {
        // Make it a Java 5 class file: no StackMapTable, verified by type inference.
        cf.major_version = 49;
        for m in &mut cf.methods {
            if let Some(code) = m.code_mut() {
                code.attributes.retain(|a| {
                    !matches!(a.body, rivet_classfile::AttributeBody::StackMapTable(_))
                });
            }
        }
        bloat(cf, 34_000);
        assert!(cf
            .methods
            .iter()
            .all(|m| m.code().is_none_or(|c| c.stack_map().is_none())));
    });
    let (ok, stdout, stderr) = java(&out, "Main");
    assert!(ok, "{stderr}");
    assert_eq!(stdout, expected);
}

#[test]
fn code_over_64k_is_refused() {
    let tmp = TempDir::new("toobig");
    let classes = javac(tmp.path(), &[("Main.java", BIG)], "17");
    let p = classes.join("Main.class");
    let mut cf = ClassFile::parse(&std::fs::read(p).unwrap()).unwrap();
    let m = (0..cf.methods.len())
        .find(|&m| method_name(&cf, m) == "loop")
        .unwrap();
    let err = cf
        .edit_code(m, |ed, _| {
            ed.insert_before(0, nops(70_000));
            Ok(())
        })
        .unwrap_err();
    assert!(matches!(err, WriteError::CodeTooLarge { .. }), "{err}");
    assert!(err.to_string().contains("Main.loop(I)I"), "{err}");
}

#[test]
fn bad_requests_are_reported_with_the_method() {
    let tmp = TempDir::new("bad");
    let classes = javac(tmp.path(), &[("Main.java", BIG)], "17");
    let cf = ClassFile::parse(&std::fs::read(classes.join("Main.class")).unwrap()).unwrap();
    let m = cf.find_method("loop", "(I)I").unwrap();
    let code = m.code().unwrap();
    let wide = code
        .instructions
        .windows(2)
        .find(|w| w[1].offset - w[0].offset > 1)
        .unwrap();
    let inside = wide[0].offset + 1;
    let goto = code
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::GOTO)
        .unwrap()
        .offset;
    type Case = Box<dyn Fn(&mut CodeEditor)>;
    let cases: Vec<(Case, &str)> = vec![
        (
            Box::new(move |ed| ed.insert_before(inside, nops(1))),
            "no instruction starts",
        ),
        (
            Box::new(move |ed| ed.insert_after(goto, nops(1))),
            "never falls through",
        ),
        (
            Box::new(|ed| {
                let l = ed.new_label();
                ed.insert_before(
                    0,
                    [Instruction::new(Opcode::GOTO, Operand::Jump(l.target()))],
                );
            }),
            "never placed",
        ),
        (
            Box::new(|ed| {
                let l = ed.new_label();
                ed.insert_before(0, [Item::Label(l), Item::Label(l)]);
            }),
            "placed twice",
        ),
        (
            Box::new(|ed| ed.insert_before(0, [Instruction::new(Opcode::GOTO, Operand::None)])),
            "wrong kind",
        ),
        (
            Box::new(|ed| {
                ed.insert_before(
                    0,
                    [Instruction::new(
                        Opcode::GOTO,
                        Operand::Jump(LABEL_BASE + 9),
                    )],
                )
            }),
            "unknown label",
        ),
    ];
    for (f, want) in cases {
        let mut ed = CodeEditor::new(code);
        f(&mut ed);
        let e = ed.finish("Main.loop").unwrap_err().to_string();
        assert!(
            e.contains(want) && e.starts_with("Main.loop"),
            "{e} (wanted {want})"
        );
    }
}

fn big_method(tag: &str, release: &str, name: &str) -> (TempDir, ClassFile, usize) {
    let tmp = TempDir::new(tag);
    let classes = javac(tmp.path(), &[("Main.java", BIG)], release);
    let cf = ClassFile::parse(&std::fs::read(classes.join("Main.class")).unwrap()).unwrap();
    let m = (0..cf.methods.len())
        .find(|&m| method_name(&cf, m) == name)
        .unwrap();
    (tmp, cf, m)
}

#[test]
fn debug_tables_follow_landing_points() {
    let (_tmp, mut cf, m) = big_method("debug", "17", "loop");
    let old = cf.methods[m].code().unwrap().clone();
    let lv = |c: &rivet_classfile::Code| match &c.attributes.iter().find_map(|a| match &a.body {
        rivet_classfile::AttributeBody::LocalVariableTable(v) => Some(v.clone()),
        _ => None,
    }) {
        Some(v) => v.clone(),
        None => panic!("no LocalVariableTable"),
    };
    // `i` (local 2) starts after its store, at the loop head; it is in scope to the end.
    let i_var = *lv(&old).iter().find(|v| v.index == 2).unwrap();
    let head = i_var.start_pc as u32;
    cf.edit_code(m, |ed, _| {
        ed.insert_on_fallthrough(0, nops(1));
        ed.insert_on_fallthrough(head, nops(3));
        ed.insert_before(head, nops(2));
        Ok(())
    })
    .unwrap();
    let new = cf.methods[m].code().unwrap();
    let vars = lv(new);
    let i_new = vars.iter().find(|v| v.index == 2).unwrap();
    // 1 entry nop before everything, then 3 fall-through nops before the landing point.
    assert_eq!(i_new.start_pc as u32, head + 1 + 3);
    let end = |v: &rivet_classfile::LocalVariable| v.start_pc as u32 + v.length as u32;
    assert_eq!(end(i_new), end(&i_var) + 6);
    // Parameters stay in scope from offset 0, over the entry code too.
    let n_var = vars.iter().find(|v| v.index == 0).unwrap();
    assert_eq!((n_var.start_pc, end(n_var)), (0, new.code_length));
    // The frame at the loop head moved to the landing point (the 2 nops run on every entry).
    let frames = rivet_classfile::stackmap::frame_offsets(new.stack_map().unwrap());
    assert!(frames.contains(&(head + 4)), "{frames:?}");
    let lines: Vec<u16> = new.line_numbers().map(|l| l.start_pc).collect();
    assert_eq!(
        lines[0], 1,
        "the first line starts at the landing point of offset 0"
    );
}

#[test]
fn labels_where_no_frame_is_known_need_an_explicit_frame() {
    use rivet_classfile::{Frame, VerificationType as V};
    let (tmp, mut cf, m) = big_method("labelframe", "17", "loop");
    let cond = cf.methods[m]
        .code()
        .unwrap()
        .instructions
        .iter()
        .find(|i| i.opcode.is_conditional_jump())
        .unwrap()
        .offset;
    // On the not-taken edge of the loop condition: a label nothing in the original marks.
    let insert = |ed: &mut CodeEditor, cp: &mut ConstantPool, frame: bool| {
        let l = ed.new_label();
        let mut items: Vec<Item> = vec![
            Instruction::new(Opcode::ILOAD_2, Operand::None).into(),
            Instruction::new(Opcode::IFNE, Operand::Jump(l.target())).into(),
        ];
        items.extend(probe(cp, "first").into_iter().map(Item::from));
        items.push(l.into());
        ed.insert_after(cond, items);
        if frame {
            ed.set_label_frame(
                l,
                Frame {
                    locals: vec![V::Integer, V::Integer, V::Integer],
                    stack: vec![],
                },
            );
        }
        ed.add_max_stack(2);
        Ok(())
    };
    let mut copy = cf.clone();
    let e = copy
        .edit_code(m, |ed, cp| insert(ed, cp, false))
        .unwrap_err();
    assert!(e.to_string().contains("set_label_frame"), "{e}");
    cf.edit_code(m, |ed, cp| insert(ed, cp, true)).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("Main.class"), cf.to_bytes().unwrap()).unwrap();
    let (ok, _, stderr) = java(&out, "Main");
    assert!(ok, "{stderr}");
    // loop(10) and loop(0): "first" only on the first iteration of loop(10).
    assert_eq!(
        stderr.lines().filter(|l| *l == "first").count(),
        1,
        "{stderr}"
    );
}
