//! A method body as ASM's instruction list presents it to JaCoCo's filters: normalized opcodes,
//! and which instructions are preceded by pseudo nodes (labels, line numbers, frames).

use rivet_classfile::{stackmap, ClassFile, Code, Constant, MemberRef, Opcode, Operand};
use std::collections::HashSet;

/// Instructions with ASM-normalized opcodes plus the pseudo-node facts the filters test.
pub struct RawCode<'a> {
    pub cf: &'a ClassFile,
    pub code: &'a Code,
    /// Normalized opcode per instruction (`aload_1` → ALOAD, `ldc_w` → LDC, `goto_w` → GOTO …).
    ops: Vec<Opcode>,
    /// Offsets with an ASM label.
    labels: HashSet<u32>,
    /// Offsets with a label, line-number node or frame in front of the instruction.
    pseudo: HashSet<u32>,
}

fn normalize(op: Opcode) -> Opcode {
    match op.0 {
        26..=45 => Opcode(Opcode::ILOAD.0 + (op.0 - 26) / 4),
        59..=78 => Opcode(Opcode::ISTORE.0 + (op.0 - 59) / 4),
        19 | 20 => Opcode::LDC,
        200 => Opcode::GOTO,
        201 => Opcode::JSR,
        _ => op,
    }
}

impl<'a> RawCode<'a> {
    pub fn new(cf: &'a ClassFile, code: &'a Code) -> RawCode<'a> {
        let ops = code
            .instructions
            .iter()
            .map(|i| normalize(i.opcode))
            .collect();
        let mut labels = HashSet::new();
        for i in &code.instructions {
            labels.extend(i.targets());
        }
        for h in &code.exception_table {
            labels.extend([h.start_pc, h.end_pc, h.handler_pc]);
        }
        let mut lines = HashSet::new(); // offsets with line-number nodes or frames
        for l in code.line_numbers() {
            labels.insert(l.start_pc as u32);
            lines.insert(l.start_pc as u32);
        }
        for a in &code.attributes {
            match &a.body {
                rivet_classfile::AttributeBody::LocalVariableTable(vars)
                | rivet_classfile::AttributeBody::LocalVariableTypeTable(vars) => {
                    for v in vars {
                        labels.insert(v.start_pc as u32);
                        labels.insert(v.start_pc as u32 + v.length as u32);
                    }
                }
                rivet_classfile::AttributeBody::StackMapTable(frames) => {
                    for (f, off) in frames.iter().zip(stackmap::frame_offsets(frames)) {
                        labels.insert(off);
                        lines.insert(off);
                        let mut f = f.clone();
                        for t in f.types_mut() {
                            if let rivet_classfile::VerificationType::Uninitialized(o) = t {
                                labels.insert(*o);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let pseudo = labels.union(&lines).copied().collect();
        RawCode {
            cf,
            code,
            ops,
            labels,
            pseudo,
        }
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Normalized opcode of instruction `i`.
    pub fn op(&self, i: usize) -> Option<Opcode> {
        self.ops.get(i).copied()
    }

    /// Variable index of a load/store (normalized forms included).
    pub fn var(&self, i: usize) -> Option<u16> {
        self.code.instructions.get(i).and_then(|x| x.local_index())
    }

    pub fn offset(&self, i: usize) -> u32 {
        self.code
            .instructions
            .get(i)
            .map_or(self.code.code_length, |x| x.offset)
    }

    /// Instruction index at a code offset (the instruction after a label).
    pub fn at(&self, offset: u32) -> Option<usize> {
        self.code.index_of(offset)
    }

    /// Is there a label, line-number node or frame right before instruction `i`?
    pub fn has_pseudo_before(&self, i: usize) -> bool {
        self.pseudo.contains(&self.offset(i))
    }

    /// The offsets with an ASM label.
    pub fn labels(&self) -> &HashSet<u32> {
        &self.labels
    }

    /// Is there a label at this offset?
    pub fn has_label(&self, offset: u32) -> bool {
        self.labels.contains(&offset)
    }

    /// The single jump target of instruction `i`.
    pub fn jump_target(&self, i: usize) -> Option<u32> {
        match self.code.instructions.get(i).map(|x| &x.operand) {
            Some(Operand::Jump(t)) => Some(*t),
            _ => None,
        }
    }

    /// The member an invoke or field instruction refers to.
    pub fn member(&self, i: usize) -> Option<MemberRef<'a>> {
        let idx = self.code.instructions.get(i)?.cp_index()?;
        self.cf.constant_pool.member_ref(idx).ok()
    }

    /// Is instruction `i` an invoke of owner.name desc (owner None: any owner) with one of `ops`?
    pub fn is_invoke(
        &self,
        i: usize,
        ops: &[Opcode],
        owner: Option<&str>,
        name: &str,
        desc: &str,
    ) -> bool {
        self.op(i).is_some_and(|o| ops.contains(&o))
            && self.member(i).is_some_and(|m| {
                owner.is_none_or(|o| m.owner == o) && m.name == name && m.descriptor == desc
            })
    }

    /// `aload_0; [aload; iload;] invokespecial owner.<init>; return` — `loads` counts the loads.
    pub fn is_trivial_super_call(&self, owner: &str, loads: usize) -> bool {
        if self.len() != loads + 2 || self.op(0) != Some(Opcode::ALOAD) || self.var(0) != Some(0) {
            return false;
        }
        if loads == 3 && (self.op(1) != Some(Opcode::ALOAD) || self.op(2) != Some(Opcode::ILOAD)) {
            return false;
        }
        let desc = if loads == 3 {
            "(Ljava/lang/String;I)V"
        } else {
            "()V"
        };
        self.is_invoke(loads, &[Opcode::INVOKESPECIAL], Some(owner), "<init>", desc)
            && self.op(loads + 1) == Some(Opcode::RETURN)
    }

    /// javac's record `toString`/`hashCode`/`equals` through `ObjectMethods.bootstrap`.
    pub fn is_record_object_method(&self, name: &str, desc: &str) -> bool {
        let (loads, ret) = match (name, desc) {
            ("toString", "()Ljava/lang/String;") => (1, Opcode::ARETURN),
            ("hashCode", "()I") => (1, Opcode::IRETURN),
            ("equals", "(Ljava/lang/Object;)Z") => (2, Opcode::IRETURN),
            _ => return false,
        };
        if self.op(0) != Some(Opcode::ALOAD) || self.var(0) != Some(0) {
            return false;
        }
        if loads == 2 && self.op(1) != Some(Opcode::ALOAD) {
            return false;
        }
        if self.op(loads) != Some(Opcode::INVOKEDYNAMIC) || self.op(loads + 1) != Some(ret) {
            return false;
        }
        let Some(idx) = self.code.instructions[loads].cp_index() else {
            return false;
        };
        let cp = &self.cf.constant_pool;
        let Ok((bsm, indy_name, _)) = cp.dynamic(idx) else {
            return false;
        };
        if indy_name != name {
            return false;
        }
        let bsm_ref = self.cf.attribute(|b| match b {
            rivet_classfile::AttributeBody::BootstrapMethods(list) => list.get(bsm as usize),
            _ => None,
        });
        bsm_ref
            .and_then(|b| match cp.get(b.method_ref) {
                Some(Constant::MethodHandle { reference, .. }) => cp.member_ref(*reference).ok(),
                _ => None,
            })
            .is_some_and(|m| m.owner == "java/lang/runtime/ObjectMethods" && m.name == "bootstrap")
    }
}
