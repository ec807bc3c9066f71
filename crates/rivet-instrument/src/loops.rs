//! Loop watches in classes without branch probes: a call of `Probes.loop()` before every
//! backward jump, so that a test caught in a loop of a library the class under test calls (a
//! cyclic list of syntax-tree nodes walked by the compiler's own classes) ends at its deadline
//! with `Overrun`, as one in the class under test does, and the worker JVM goes on instead of
//! being killed and started again.
//!
//! ```text
//! goto L (L at or before it)  ->  invokestatic Probes.loop()V; goto L   (same for if*, goto_w)
//! ```
//!
//! The call takes and leaves nothing on the stack, so the jump's stack-map frame holds for it.
//! Static initializers are left alone: a class whose initializer ended on `Overrun` stays
//! unusable for the rest of the JVM's life.

use rivet_classfile::{ClassFile, Instruction, Item, Opcode, Operand, WriteError};

use crate::runtime::PROBES_CLASS;

/// The runtime method a loop watch calls.
const LOOP_METHOD: &str = "loop";

/// Inserts a loop watch before every backward jump (conditional or not) of every method but
/// the static initializer; returns how many. Methods whose code cannot be edited are left as
/// they are.
pub fn watch_loops(cf: &mut ClassFile) -> usize {
    let mut sites = 0;
    for mi in 0..cf.methods.len() {
        if cf
            .member_name(&cf.methods[mi])
            .is_ok_and(|n| n == "<clinit>")
        {
            continue;
        }
        let Some(code) = cf.methods[mi].code() else {
            continue;
        };
        let backward: Vec<u32> = code
            .instructions
            .iter()
            .filter(|x| is_backward_jump(x))
            .map(|x| x.offset)
            .collect();
        if backward.is_empty() {
            continue;
        }
        let edited = cf.edit_code(mi, |ed, cp| {
            let watch = cp.intern_method_ref(PROBES_CLASS, LOOP_METHOD, "()V", false);
            for offset in &backward {
                ed.insert_before(
                    *offset,
                    [Item::Insn(Instruction::new(
                        Opcode::INVOKESTATIC,
                        Operand::Constant(watch),
                    ))],
                );
            }
            Ok::<(), WriteError>(())
        });
        if edited.is_ok() {
            sites += backward.len();
        }
    }
    sites
}

/// A `goto`, `goto_w` or conditional jump to its own offset or before it (`jsr` is a
/// subroutine call, no loop).
fn is_backward_jump(x: &Instruction) -> bool {
    let Operand::Jump(target) = x.operand else {
        return false;
    };
    x.opcode != Opcode::JSR && x.opcode != Opcode::JSR_W && target <= x.offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_jumps_back_are_loops() {
        let at = |opcode, offset, target| Instruction {
            offset,
            opcode,
            operand: Operand::Jump(target),
        };
        assert!(is_backward_jump(&at(Opcode::GOTO, 20, 4)));
        assert!(is_backward_jump(&at(Opcode::IFNE, 20, 20)));
        assert!(!is_backward_jump(&at(Opcode::GOTO, 20, 24)));
        assert!(!is_backward_jump(&at(Opcode::JSR, 20, 4)));
        assert!(!is_backward_jump(&Instruction::new(
            Opcode::RETURN,
            Operand::None
        )));
    }
}
