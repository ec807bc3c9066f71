//! Dynamic seeding (EvoSuite's): before each call of a string comparison, search or parse
//! (`String.equals`, `equalsIgnoreCase`, `startsWith`, `endsWith`, `contains`, `indexOf`,
//! `compareTo`, `Objects.equals`, `Integer.parseInt`, …) in a class under test, its string
//! operands are copied to `rivet.runtime.Seeds`, which the worker reports with each test so
//! that the search can offer those strings as values.

use rivet_classfile::{
    ClassFile, CodeEditor, ConstantPool, Instruction, Item, Opcode, Operand, WriteError,
};

use crate::runtime::SEEDS_CLASS;

/// How many operands of a call are recorded: the top one, or the top two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Record {
    One,
    Pair,
}

/// The calls whose string operands are recorded, by (opcode, owner, name, descriptor).
fn record(opcode: Opcode, owner: &str, name: &str, descriptor: &str) -> Option<Record> {
    const STRING_PAIRS: &[(&str, &str)] = &[
        ("equals", "(Ljava/lang/Object;)Z"),
        ("equalsIgnoreCase", "(Ljava/lang/String;)Z"),
        ("startsWith", "(Ljava/lang/String;)Z"),
        ("endsWith", "(Ljava/lang/String;)Z"),
        ("contains", "(Ljava/lang/CharSequence;)Z"),
        ("indexOf", "(Ljava/lang/String;)I"),
        ("lastIndexOf", "(Ljava/lang/String;)I"),
        ("compareTo", "(Ljava/lang/String;)I"),
        ("compareToIgnoreCase", "(Ljava/lang/String;)I"),
        ("contentEquals", "(Ljava/lang/CharSequence;)Z"),
    ];
    const PARSES: &[(&str, &str)] = &[
        ("java/lang/Integer", "parseInt"),
        ("java/lang/Integer", "valueOf"),
        ("java/lang/Long", "parseLong"),
        ("java/lang/Long", "valueOf"),
        ("java/lang/Double", "parseDouble"),
        ("java/lang/Double", "valueOf"),
        ("java/lang/Float", "parseFloat"),
        ("java/lang/Boolean", "parseBoolean"),
    ];
    match opcode {
        Opcode::INVOKEVIRTUAL
            if owner == "java/lang/String" && STRING_PAIRS.contains(&(name, descriptor)) =>
        {
            Some(Record::Pair)
        }
        Opcode::INVOKESTATIC
            if owner == "java/util/Objects"
                && name == "equals"
                && descriptor == "(Ljava/lang/Object;Ljava/lang/Object;)Z" =>
        {
            Some(Record::Pair)
        }
        Opcode::INVOKESTATIC
            if descriptor.starts_with("(Ljava/lang/String;)")
                && PARSES.contains(&(owner, name)) =>
        {
            Some(Record::One)
        }
        _ => None,
    }
}

/// Inserts the recording calls in every method of `cf`; returns how many call sites record.
/// A method whose code cannot be edited is left as it was.
pub fn record_strings(cf: &mut ClassFile) -> usize {
    let mut sites = 0;
    for mi in 0..cf.methods.len() {
        let Some(code) = cf.methods[mi].code() else {
            continue;
        };
        let mut inserts = Vec::new();
        for x in &code.instructions {
            let Operand::Constant(index) = x.operand else {
                continue;
            };
            if !matches!(x.opcode, Opcode::INVOKEVIRTUAL | Opcode::INVOKESTATIC) {
                continue;
            }
            let Ok(r) = cf.constant_pool.member_ref(index) else {
                continue;
            };
            if let Some(rec) = record(x.opcode, r.owner, r.name, r.descriptor) {
                inserts.push((x.offset, rec));
            }
        }
        if inserts.is_empty() {
            continue;
        }
        let n = inserts.len();
        let edited = cf.edit_code(mi, |ed, cp| {
            insert_records(ed, cp, &inserts);
            Ok::<(), WriteError>(())
        });
        match edited {
            Ok(()) => sites += n,
            Err(e) => tracing::debug!(error = %e, "string seeds not recorded"),
        }
    }
    sites
}

fn insert_records(ed: &mut CodeEditor, cp: &mut ConstantPool, inserts: &[(u32, Record)]) {
    for &(offset, rec) in inserts {
        let (dup, name, descriptor) = match rec {
            Record::One => (Opcode::DUP, "one", "(Ljava/lang/Object;)V"),
            Record::Pair => (
                Opcode::DUP2,
                "pair",
                "(Ljava/lang/Object;Ljava/lang/Object;)V",
            ),
        };
        let m = cp.intern_method_ref(SEEDS_CLASS, name, descriptor, false);
        ed.insert_before(
            offset,
            vec![
                Item::Insn(Instruction::new(dup, Operand::None)),
                Item::Insn(Instruction::new(Opcode::INVOKESTATIC, Operand::Constant(m))),
            ],
        );
    }
    ed.add_max_stack(2);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_and_parses_are_recorded_other_calls_not() {
        let s = "java/lang/String";
        assert_eq!(
            record(Opcode::INVOKEVIRTUAL, s, "equals", "(Ljava/lang/Object;)Z"),
            Some(Record::Pair)
        );
        assert_eq!(
            record(
                Opcode::INVOKEVIRTUAL,
                s,
                "startsWith",
                "(Ljava/lang/String;)Z"
            ),
            Some(Record::Pair)
        );
        // startsWith(String, int) has a third operand: not recorded.
        assert_eq!(
            record(
                Opcode::INVOKEVIRTUAL,
                s,
                "startsWith",
                "(Ljava/lang/String;I)Z"
            ),
            None
        );
        assert_eq!(
            record(
                Opcode::INVOKESTATIC,
                "java/lang/Integer",
                "parseInt",
                "(Ljava/lang/String;)I"
            ),
            Some(Record::One)
        );
        assert_eq!(
            record(
                Opcode::INVOKESTATIC,
                "java/lang/Integer",
                "parseInt",
                "(Ljava/lang/String;I)I"
            ),
            None
        );
        assert_eq!(record(Opcode::INVOKEVIRTUAL, s, "length", "()I"), None);
    }
}
