//! JaCoCo 0.8.6's filters for javac output: try-with-resources (javac 7–10 and 11+), finally
//! duplication, and string switches (docs/jacoco-branch-counting.md §4.5, 4.6, 4.8, 4.10).

use super::raw::RawCode;
use super::Merges;
use rivet_classfile::Opcode;
use std::collections::{HashMap, HashSet};

/// A forward pattern matcher over normalized instructions, with named variable bindings.
#[derive(Clone)]
struct Matcher<'r, 'a> {
    raw: &'r RawCode<'a>,
    /// Index of the next instruction to examine.
    pos: usize,
    ok: bool,
    vars: HashMap<&'static str, u16>,
    close_owner: Option<String>,
}

const INVOKE_CLOSE: [Opcode; 2] = [Opcode::INVOKEVIRTUAL, Opcode::INVOKEINTERFACE];

impl<'r, 'a> Matcher<'r, 'a> {
    fn new(raw: &'r RawCode<'a>, pos: usize) -> Self {
        Matcher {
            raw,
            pos,
            ok: true,
            vars: HashMap::new(),
            close_owner: None,
        }
    }

    /// The same bindings, matching from another position.
    fn restart_at(&self, pos: usize) -> Self {
        Matcher {
            pos,
            ok: true,
            ..self.clone()
        }
    }

    /// Index of the last matched instruction.
    fn last(&self) -> usize {
        self.pos.saturating_sub(1)
    }

    fn step(&mut self, check: impl FnOnce(&RawCode<'a>, usize) -> bool) -> &mut Self {
        if self.ok {
            self.ok = self.pos < self.raw.len() && check(self.raw, self.pos);
            self.pos += 1;
        }
        self
    }

    fn op(&mut self, op: Opcode) -> &mut Self {
        self.step(|r, i| r.op(i) == Some(op))
    }

    fn any(&mut self) -> &mut Self {
        self.step(|_, _| true)
    }

    fn var(&mut self, op: Opcode, name: &'static str) -> &mut Self {
        if !self.ok {
            return self;
        }
        let i = self.pos;
        self.op(op);
        if self.ok {
            let v = self.raw.var(i).unwrap_or(u16::MAX);
            match self.vars.get(name) {
                Some(&bound) => self.ok = bound == v,
                None => {
                    self.vars.insert(name, v);
                }
            }
        }
        self
    }

    fn invoke(&mut self, op: Opcode, owner: &str, name: &str, desc: &str) -> &mut Self {
        self.step(|r, i| r.is_invoke(i, &[op], Some(owner), name, desc))
    }

    /// `invokevirtual|invokeinterface close()V`, all with the same owner.
    fn close(&mut self) -> &mut Self {
        if !self.ok {
            return self;
        }
        let i = self.pos;
        self.step(|r, i| r.is_invoke(i, &INVOKE_CLOSE, None, "close", "()V"));
        if self.ok {
            let owner = self.raw.member(i).map(|m| m.owner.to_string());
            match &self.close_owner {
                Some(o) => self.ok = owner.as_ref() == Some(o),
                None => self.close_owner = owner,
            }
        }
        self
    }
}

fn ignore_range(ignored: &mut HashSet<usize>, from: usize, to: usize) {
    ignored.extend(from..=to);
}

/// Handlers (instruction indices) of exception entries catching `java/lang/Throwable`.
fn throwable_handlers(raw: &RawCode<'_>) -> Vec<usize> {
    let cp = &raw.cf.constant_pool;
    raw.code
        .exception_table
        .iter()
        .filter(|h| {
            h.catch_type.0 != 0 && cp.class_name(h.catch_type).ok() == Some("java/lang/Throwable")
        })
        .filter_map(|h| raw.at(h.handler_pc))
        .collect()
}

/// Searches backwards from the handler for the normal-path close sequence (bindings kept),
/// then ignores it and the handler's code. §4.5 step 2–3.
fn ignore_normal_close(
    m: &Matcher<'_, '_>,
    handler: usize,
    handler_end: usize,
    ignored: &mut HashSet<usize>,
    close_seq: impl Fn(&mut Matcher<'_, '_>),
) {
    for start in (0..=handler).rev() {
        let mut n = m.restart_at(start);
        close_seq(&mut n);
        if n.ok {
            let mut end = n.last();
            if m.raw.op(end + 1) == Some(Opcode::GOTO) {
                end += 1;
            }
            ignore_range(ignored, start, end);
            ignore_range(ignored, handler, handler_end);
            return;
        }
    }
}

/// try-with-resources as javac 11 and later compile it (§4.5).
pub(super) fn try_with_resources_javac11(raw: &RawCode<'_>, ignored: &mut HashSet<usize>) {
    for handler in throwable_handlers(raw) {
        for null_check in [true, false] {
            let close_seq = |m: &mut Matcher<'_, '_>| {
                if null_check {
                    m.var(Opcode::ALOAD, "r").op(Opcode::IFNULL);
                }
                m.var(Opcode::ALOAD, "r").close();
            };
            let mut m = Matcher::new(raw, handler);
            m.var(Opcode::ASTORE, "primaryExc");
            close_seq(&mut m);
            m.op(Opcode::GOTO)
                .var(Opcode::ASTORE, "t")
                .var(Opcode::ALOAD, "primaryExc")
                .var(Opcode::ALOAD, "t")
                .invoke(
                    Opcode::INVOKEVIRTUAL,
                    "java/lang/Throwable",
                    "addSuppressed",
                    "(Ljava/lang/Throwable;)V",
                )
                .var(Opcode::ALOAD, "primaryExc")
                .op(Opcode::ATHROW);
            if m.ok {
                let end = m.last();
                ignore_normal_close(&m, handler, end, ignored, close_seq);
            }
        }
    }
}

/// The code shapes javac 7–10 use for closing a resource (§4.6).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Optimal,
    Full,
    OmittedNullCheck,
    Method,
}

fn close_resource_javac7(m: &mut Matcher<'_, '_>, shape: Shape, thrown: &'static str) {
    if matches!(shape, Shape::Full | Shape::Method) {
        m.var(Opcode::ALOAD, "r").op(Opcode::IFNULL);
    }
    if matches!(shape, Shape::Optimal | Shape::Method) {
        m.var(Opcode::ALOAD, "primaryExc")
            .var(Opcode::ALOAD, "r")
            .step(|r, i| {
                r.op(i) == Some(Opcode::INVOKESTATIC)
                    && r.member(i).is_some_and(|x| {
                        x.name == "$closeResource"
                            && x.descriptor == "(Ljava/lang/Throwable;Ljava/lang/AutoCloseable;)V"
                    })
            });
    } else {
        m.var(Opcode::ALOAD, "primaryExc")
            .op(Opcode::IFNULL)
            .var(Opcode::ALOAD, "r")
            .close()
            .op(Opcode::GOTO)
            .var(Opcode::ASTORE, thrown)
            .var(Opcode::ALOAD, "primaryExc")
            .var(Opcode::ALOAD, thrown)
            .invoke(
                Opcode::INVOKEVIRTUAL,
                "java/lang/Throwable",
                "addSuppressed",
                "(Ljava/lang/Throwable;)V",
            )
            .op(Opcode::GOTO)
            .var(Opcode::ALOAD, "r")
            .close();
    }
}

/// try-with-resources as javac 7 to 10 compile it (§4.6).
pub(super) fn try_with_resources_javac7(raw: &RawCode<'_>, ignored: &mut HashSet<usize>) {
    for handler in throwable_handlers(raw) {
        for shape in [
            Shape::Optimal,
            Shape::Full,
            Shape::OmittedNullCheck,
            Shape::Method,
        ] {
            let mut m = Matcher::new(raw, handler);
            m.var(Opcode::ASTORE, "t1")
                .var(Opcode::ALOAD, "t1")
                .var(Opcode::ASTORE, "primaryExc")
                .var(Opcode::ALOAD, "t1")
                .op(Opcode::ATHROW)
                .var(Opcode::ASTORE, "t2");
            close_resource_javac7(&mut m, shape, "et");
            m.var(Opcode::ALOAD, "t2").op(Opcode::ATHROW);
            if !m.ok {
                continue;
            }
            let end = m.last();
            let before = ignored.len();
            ignore_normal_close(&m, handler, end, ignored, |n| {
                close_resource_javac7(n, shape, "nt")
            });
            if ignored.len() > before {
                break;
            }
        }
    }
}

/// javac's duplicated finally blocks: each copy on a normal exit is merged into the copy in the
/// catch-any handler (§4.8).
pub(super) fn finally(raw: &RawCode<'_>, ignored: &mut HashSet<usize>, merges: &mut Merges) {
    let table = &raw.code.exception_table;
    for c in table.iter().filter(|c| c.catch_type.0 == 0) {
        let Some(e) = raw.at(c.handler_pc) else {
            continue;
        };
        if raw.op(e) != Some(Opcode::ASTORE) {
            continue;
        }
        let v = raw.var(e);
        let Some(load) =
            (e + 1..raw.len()).find(|&j| raw.op(j) == Some(Opcode::ALOAD) && raw.var(j) == v)
        else {
            continue;
        };
        if raw.op(load + 1) != Some(Opcode::ATHROW) {
            continue;
        }
        let size = load - e - 1;
        if size == 0 {
            continue;
        }
        let same_handler: Vec<_> = table
            .iter()
            .filter(|t| t.handler_pc == c.handler_pc)
            .collect();
        let inside = |i: usize| {
            let off = raw.offset(i);
            same_handler
                .iter()
                .any(|t| t.start_pc <= off && off < t.end_pc)
        };
        let try_merge = |n: usize, ignored: &mut HashSet<usize>, merges: &mut Merges| {
            if n + size > raw.len() || (0..size).any(|k| raw.op(e + 1 + k) != raw.op(n + k)) {
                return;
            }
            ignored.insert(e);
            for k in 0..size {
                merges.merge(e + 1 + k, n + k);
            }
            ignored.insert(load);
            ignored.insert(load + 1);
            if raw.op(n + size) == Some(Opcode::GOTO) {
                ignored.insert(n + size);
            }
        };
        for t in &same_handler {
            let mut continues = false;
            let range = (0..raw.len()).filter(|&i| {
                let off = raw.offset(i);
                t.start_pc <= off && off < t.end_pc
            });
            for i in range {
                let op = raw.op(i).unwrap_or(Opcode::NOP);
                if op.is_conditional_jump() || op == Opcode::GOTO || op == Opcode::JSR {
                    if let Some(x) = raw.jump_target(i).and_then(|t| raw.at(t)) {
                        if !inside(x) {
                            try_merge(x, ignored, merges);
                        }
                    }
                    continues = op != Opcode::GOTO;
                } else {
                    continues = !(op.is_return() || op == Opcode::ATHROW);
                }
            }
            if continues {
                if let Some(x) = raw.at(t.end_pc) {
                    if !inside(x) {
                        try_merge(x, ignored, merges);
                    }
                }
            }
        }
        for t in table
            .iter()
            .filter(|t| !std::ptr::eq(*t, c) && t.start_pc == c.start_pc && t.end_pc == c.end_pc)
        {
            if let Some(h) = raw.at(t.handler_pc) {
                let x = h + 1;
                if x < raw.len() && !inside(x) {
                    try_merge(x, ignored, merges);
                }
            }
        }
    }
}

/// javac's switch on a String: the hashCode switch and its equals tests are not counted, the
/// second switch on the case index is (§4.10).
pub(super) fn string_switch(raw: &RawCode<'_>, ignored: &mut HashSet<usize>) {
    for s in 0..raw.len() {
        if !raw.op(s).is_some_and(|o| o.is_switch()) || s < 4 {
            continue;
        }
        if raw.op(s - 4) != Some(Opcode::ICONST_M1) || (s - 3..=s).any(|i| raw.has_pseudo_before(i))
        {
            continue;
        }
        let Some(default) = raw.code.instructions[s].targets().first().copied() else {
            continue;
        };
        let mut m = Matcher::new(raw, s - 3);
        m.var(Opcode::ISTORE, "c")
            .var(Opcode::ALOAD, "s")
            .invoke(Opcode::INVOKEVIRTUAL, "java/lang/String", "hashCode", "()I")
            .any();
        loop {
            m.var(Opcode::ALOAD, "s")
                .step(|r, i| r.op(i) == Some(Opcode::LDC))
                .invoke(
                    Opcode::INVOKEVIRTUAL,
                    "java/lang/String",
                    "equals",
                    "(Ljava/lang/Object;)Z",
                )
                .op(Opcode::IFEQ)
                .any()
                .var(Opcode::ISTORE, "c");
            if !m.ok {
                break;
            }
            // The raw node right after the ISTORE is the default label: the buckets end here.
            if raw.offset(m.pos) == default && raw.has_label(default) {
                break;
            }
            m.step(|r, i| r.op(i) == Some(Opcode::GOTO) && r.jump_target(i) == Some(default));
            if !m.ok {
                break;
            }
        }
        m.var(Opcode::ILOAD, "c")
            .step(|r, i| r.op(i).is_some_and(|o| o.is_switch()));
        if m.ok {
            if let Some(d) = raw.at(default) {
                ignore_range(ignored, s, d.saturating_sub(1));
            }
        }
    }
}
