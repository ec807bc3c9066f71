//! The robustness properties shared by the proptest (tests/fuzz_parse.rs) and the cargo-fuzz
//! targets (fuzz/fuzz_targets): whatever the bytes, nothing panics; what parses also writes,
//! and what writes parses again; the code editor copes with whatever parsed.

use rivet_classfile::{ClassFile, CodeEditor, Instruction, MethodDescriptor, Opcode, Operand};

/// Feeds `data` through parse, write, re-parse and the code editor; panics only on a broken
/// property (a panic inside the library is a failure too).
pub fn check_class_bytes(data: &[u8]) {
    if let Some(cf) = check_parse_write(data) {
        check_editor(&cf);
    }
}

/// Parse, write, re-parse (and read names and descriptors); returns what parsed.
pub fn check_parse_write(data: &[u8]) -> Option<ClassFile> {
    let cf = ClassFile::parse(data).ok()?;
    let _ = cf.name();
    let _ = cf.super_name();
    let _ = cf.interface_names();
    let _ = cf.source_file();
    for m in cf.methods.iter().chain(&cf.fields) {
        if let Ok(d) = cf.member_descriptor(m) {
            let _ = MethodDescriptor::parse(d);
            let _ = rivet_classfile::FieldType::parse(d);
        }
    }
    if let Ok(out) = cf.to_bytes() {
        let again = ClassFile::parse(&out)
            .unwrap_or_else(|e| panic!("written class does not parse again: {e}"));
        assert_eq!(again.to_bytes().ok(), Some(out), "second write differs");
    }
    Some(cf)
}

/// An empty edit of every method gives back its code (or is refused); edits never panic.
pub fn check_editor(cf: &ClassFile) {
    for (i, m) in cf.methods.iter().enumerate() {
        let Some(code) = m.code() else { continue };
        // An empty edit gives back the code unchanged (or refuses it).
        if let Ok(same) = CodeEditor::new(code).finish("m") {
            assert_eq!(&same, code, "empty edit changed method {i}");
        }
        // Inserting nops everywhere never panics.
        let mut ed = CodeEditor::new(code);
        for insn in code.instructions.iter().take(2000) {
            ed.insert_before(insn.offset, [Instruction::new(Opcode::NOP, Operand::None)]);
        }
        let _ = ed.finish("m");
        let mut copy = cf.clone();
        let _ = copy.edit_code(i, |ed, _| {
            ed.insert_on_fallthrough(0, [Instruction::new(Opcode::NOP, Operand::None)]);
            Ok(())
        });
    }
}
