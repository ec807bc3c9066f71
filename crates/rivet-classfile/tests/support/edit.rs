//! Helpers for the code-editor tests: probe sequences, branch targets, editing every method.

use rivet_classfile::{
    ClassFile, CodeEditor, ConstantPool, Instruction, Opcode, Operand, WriteError,
};
use std::collections::BTreeSet;

/// `System.err.println(text)`: stack-neutral, needs 2 stack slots.
pub fn probe(cp: &mut ConstantPool, text: &str) -> Vec<Instruction> {
    let err = cp.intern_field_ref("java/lang/System", "err", "Ljava/io/PrintStream;");
    let s = cp.intern_string(text);
    let println = cp.intern_method_ref(
        "java/io/PrintStream",
        "println",
        "(Ljava/lang/String;)V",
        false,
    );
    vec![
        Instruction::new(Opcode::GETSTATIC, Operand::Constant(err)),
        Instruction::new(Opcode::LDC, Operand::Constant(s)),
        Instruction::new(Opcode::INVOKEVIRTUAL, Operand::Constant(println)),
    ]
}

pub fn nops(n: usize) -> Vec<Instruction> {
    vec![Instruction::new(Opcode::NOP, Operand::None); n]
}

/// Jump and switch targets and handler starts of a method's code.
pub fn branch_targets(code: &rivet_classfile::Code) -> BTreeSet<u32> {
    let mut t: BTreeSet<u32> = code.instructions.iter().flat_map(|i| i.targets()).collect();
    t.extend(code.exception_table.iter().map(|h| h.handler_pc));
    t
}

pub fn method_name(cf: &ClassFile, i: usize) -> String {
    cf.member_name(&cf.methods[i]).unwrap().to_string()
}

/// Applies `edit` to every method with code of every class.
pub fn edit_all(
    cf: &mut ClassFile,
    mut edit: impl FnMut(&str, &mut CodeEditor, &mut ConstantPool) -> Result<(), WriteError>,
) {
    for m in 0..cf.methods.len() {
        if cf.methods[m].code().is_none() {
            continue;
        }
        let name = format!("{}.{}", cf.name().unwrap(), method_name(cf, m));
        cf.edit_code(m, |ed, cp| edit(&name, ed, cp))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
