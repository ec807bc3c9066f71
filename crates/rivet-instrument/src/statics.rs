//! A fresh class state for every test, as EvoSuite's static reset: classes with static state a
//! test could change become resettable, and code that reads or writes static state marks the
//! owning class touched, so that the worker resets the touched classes before the next test
//! (`rivet.runtime.Statics`).
//!
//! A resettable class gets:
//!
//! ```text
//! <clinit>            ->  private static __rivet_clinit()    (the original, probes and all)
//! static <clinit>()   :   invokestatic __rivet_clinit; ldc this; invokestatic Statics.initialized
//! static __rivet_reset():  every static field without a constant value set to its default;
//!                          invokestatic __rivet_clinit
//! ```
//!
//! and its static fields lose `final` (a `putstatic` outside `<clinit>` may not write a final
//! field), except those with a ConstantValue, which never change. Interfaces, enums (their
//! constants' identity matters to switch maps and EnumMaps) and classes older than Java 5
//! (`ldc` of a class needs major 49) are left alone.

use rivet_classfile::{
    AccessFlags, Attribute, AttributeBody, ClassFile, Code, CpIndex, FieldType, Instruction, Item,
    Member, Opcode, Operand, WriteError,
};

use crate::runtime::STATICS_CLASS;

/// The method a resettable class gets to reset itself.
pub const RESET_METHOD: &str = "__rivet_reset";
/// What the original static initializer is renamed to.
const CLINIT_COPY: &str = "__rivet_clinit";

/// JDK packages: their static state is not the code under test's and is never reset.
fn is_jdk(owner: &str) -> bool {
    ["java/", "javax/", "jdk/", "sun/", "com/sun/"]
        .iter()
        .any(|p| owner.starts_with(p))
        || owner.starts_with("rivet/")
}

/// Reference types whose values cannot change (a static of such a type changes only by a
/// `putstatic`, which is marked anyway).
fn immutable(descriptor: &str) -> bool {
    matches!(
        descriptor,
        "Ljava/lang/String;"
            | "Ljava/lang/Integer;"
            | "Ljava/lang/Long;"
            | "Ljava/lang/Short;"
            | "Ljava/lang/Byte;"
            | "Ljava/lang/Character;"
            | "Ljava/lang/Boolean;"
            | "Ljava/lang/Float;"
            | "Ljava/lang/Double;"
            | "Ljava/lang/Class;"
    )
}

fn is_reference(descriptor: &str) -> bool {
    descriptor.starts_with('L') || descriptor.starts_with('[')
}

fn has_constant_value(m: &Member) -> bool {
    m.attributes
        .iter()
        .any(|a| matches!(a.body, AttributeBody::ConstantValue(_)))
}

/// Whether a class of this kind may be made resettable at all.
fn eligible(cf: &ClassFile) -> bool {
    let flags = cf.access_flags.0;
    cf.major_version >= 49
        && flags & (AccessFlags::INTERFACE | AccessFlags::ENUM | AccessFlags::ANNOTATION) == 0
        && cf.name().is_ok_and(|n| !is_jdk(n))
}

/// The static fields a reset sets back (name, descriptor): those without a constant value.
fn resettable_fields(cf: &ClassFile) -> Vec<(String, String)> {
    cf.fields
        .iter()
        .filter(|f| f.access_flags.0 & AccessFlags::STATIC != 0 && !has_constant_value(f))
        .filter_map(|f| {
            Some((
                cf.member_name(f).ok()?.to_string(),
                cf.member_descriptor(f).ok()?.to_string(),
            ))
        })
        .collect()
}

/// Whether a test could change the class's static state: a static field that is not final,
/// or final of a mutable reference type.
fn has_mutable_statics(cf: &ClassFile) -> bool {
    cf.fields.iter().any(|f| {
        let flags = f.access_flags.0;
        if flags & AccessFlags::STATIC == 0 || has_constant_value(f) {
            return false;
        }
        let d = cf.member_descriptor(f).unwrap_or("");
        flags & AccessFlags::FINAL == 0 || (is_reference(d) && !immutable(d))
    })
}

fn insn(opcode: Opcode, operand: Operand) -> Instruction {
    Instruction::new(opcode, operand)
}

/// A straight-line method body (no jumps, so no stack map frames).
fn method(
    cf: &mut ClassFile,
    flags: u16,
    name: &str,
    mut body: Vec<Instruction>,
    stack: u16,
) -> Member {
    // Laid out one after the other: the encoder writes at the recorded offsets.
    let mut offset = 0;
    for x in &mut body {
        x.offset = offset;
        offset += x.size_at(offset);
    }
    let cp = &mut cf.constant_pool;
    let code = Code {
        max_stack: stack,
        max_locals: 0,
        instructions: body,
        code_length: offset,
        exception_table: Vec::new(),
        attributes: Vec::new(),
    };
    Member {
        access_flags: AccessFlags(flags),
        name: cp.intern_utf8(name),
        descriptor: cp.intern_utf8("()V"),
        attributes: vec![Attribute {
            name: cp.intern_utf8("Code"),
            body: AttributeBody::Code(code),
        }],
    }
}

/// Makes `cf` resettable when it has static state a test could change; true when it did.
pub fn make_resettable(cf: &mut ClassFile) -> bool {
    if !eligible(cf) || !has_mutable_statics(cf) {
        return false;
    }
    let Ok(this) = cf.name().map(str::to_string) else {
        return false;
    };
    let fields = resettable_fields(cf);
    let clinit = cf
        .methods
        .iter()
        .position(|m| cf.member_name(m).is_ok_and(|n| n == "<clinit>"));
    let copy_ref = clinit.map(|i| {
        let copy = cf.constant_pool.intern_utf8(CLINIT_COPY);
        let m = &mut cf.methods[i];
        m.name = copy;
        m.access_flags = AccessFlags(
            (m.access_flags.0 & !(AccessFlags::PUBLIC | AccessFlags::PROTECTED))
                | AccessFlags::PRIVATE
                | AccessFlags::STATIC
                | AccessFlags::SYNTHETIC,
        );
        cf.constant_pool
            .intern_method_ref(&this, CLINIT_COPY, "()V", false)
    });
    // Fields written outside <clinit> may not be final.
    for f in &mut cf.fields {
        if f.access_flags.0 & AccessFlags::STATIC != 0 && !has_constant_value(f) {
            f.access_flags = AccessFlags(f.access_flags.0 & !AccessFlags::FINAL);
        }
    }
    let cp = &mut cf.constant_pool;
    let class = cp.intern_class(&this);
    let initialized =
        cp.intern_method_ref(STATICS_CLASS, "initialized", "(Ljava/lang/Class;)V", false);
    let mut init = Vec::new();
    if let Some(r) = copy_ref {
        init.push(insn(Opcode::INVOKESTATIC, Operand::Constant(r)));
    }
    init.push(insn(Opcode::LDC, Operand::Constant(class)));
    init.push(insn(Opcode::INVOKESTATIC, Operand::Constant(initialized)));
    init.push(insn(Opcode::RETURN, Operand::None));

    let mut reset = Vec::new();
    for (name, descriptor) in &fields {
        let default = match FieldType::parse(descriptor) {
            Ok(FieldType::Long) => Opcode::LCONST_0,
            Ok(FieldType::Float) => Opcode::FCONST_0,
            Ok(FieldType::Double) => Opcode::DCONST_0,
            Ok(FieldType::Object(_)) | Ok(FieldType::Array(_)) => Opcode::ACONST_NULL,
            Ok(_) => Opcode::ICONST_0,
            Err(_) => continue,
        };
        let field: CpIndex = cp.intern_field_ref(&this, name, descriptor);
        reset.push(insn(default, Operand::None));
        reset.push(insn(Opcode::PUTSTATIC, Operand::Constant(field)));
    }
    if let Some(r) = copy_ref {
        reset.push(insn(Opcode::INVOKESTATIC, Operand::Constant(r)));
    }
    reset.push(insn(Opcode::RETURN, Operand::None));

    let clinit_new = method(cf, AccessFlags::STATIC, "<clinit>", init, 1);
    let reset_method = method(
        cf,
        AccessFlags::PUBLIC | AccessFlags::STATIC | AccessFlags::SYNTHETIC,
        RESET_METHOD,
        reset,
        2,
    );
    cf.methods.push(clinit_new);
    cf.methods.push(reset_method);
    true
}

/// Marks the owning class touched before every `putstatic`, and every `getstatic` of a mutable
/// reference, of a non-JDK class, in every method but static initializers; returns how many
/// sites. Methods whose code cannot be edited are left as they are.
pub fn mark_touches(cf: &mut ClassFile) -> usize {
    if cf.major_version < 49 {
        return 0;
    }
    let mut sites = 0;
    for mi in 0..cf.methods.len() {
        let is_init = cf
            .member_name(&cf.methods[mi])
            .is_ok_and(|n| n == "<clinit>" || n == CLINIT_COPY);
        let Some(code) = cf.methods[mi].code() else {
            continue;
        };
        if is_init {
            continue;
        }
        let mut marks: Vec<(u32, String)> = Vec::new();
        for x in &code.instructions {
            if x.opcode != Opcode::GETSTATIC && x.opcode != Opcode::PUTSTATIC {
                continue;
            }
            let Operand::Constant(i) = x.operand else {
                continue;
            };
            let Ok(r) = cf.constant_pool.member_ref(i) else {
                continue;
            };
            let wanted = x.opcode == Opcode::PUTSTATIC
                || (is_reference(r.descriptor) && !immutable(r.descriptor));
            if wanted && !is_jdk(r.owner) && !r.owner.starts_with('[') {
                marks.push((x.offset, r.owner.to_string()));
            }
        }
        if marks.is_empty() {
            continue;
        }
        let n = marks.len();
        let edited = cf.edit_code(mi, |ed, cp| {
            let touch = cp.intern_method_ref(STATICS_CLASS, "touch", "(Ljava/lang/Class;)V", false);
            for (offset, owner) in &marks {
                let class = cp.intern_class(owner);
                ed.insert_before(
                    *offset,
                    [
                        Item::Insn(insn(Opcode::LDC, Operand::Constant(class))),
                        Item::Insn(insn(Opcode::INVOKESTATIC, Operand::Constant(touch))),
                    ],
                );
            }
            ed.add_max_stack(1);
            Ok::<(), WriteError>(())
        });
        if edited.is_ok() {
            sites += n;
        }
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutable_statics_are_told_apart_from_constants() {
        assert!(immutable("Ljava/lang/String;"));
        assert!(!immutable("Ljava/util/List;"));
        assert!(is_reference("[I") && !is_reference("I"));
        assert!(is_jdk("java/util/List") && !is_jdk("statics/Registry"));
    }
}
