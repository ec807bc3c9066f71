//! Encoding edge cases: forms that outgrow their short encodings keep `size_at` and `encode` in step.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rivet_classfile::bytes::ByteWriter;
use rivet_classfile::insn::{decode, encode};
use rivet_classfile::{CpIndex, Instruction, Opcode, Operand};

/// Lays instructions out from offset 0 with `size_at`, encodes them, and checks the sizes agree.
fn lay_out_and_encode(mut insns: Vec<Instruction>) -> Vec<u8> {
    let mut off = 0;
    for i in &mut insns {
        i.offset = off;
        off += i.size_at(off);
    }
    let mut w = ByteWriter::default();
    encode(&insns, &mut w).expect("encodes");
    assert_eq!(w.buf.len() as u32, off, "size_at disagrees with encode");
    w.buf
}

#[test]
fn ldc_with_a_wide_index_becomes_ldc_w() {
    let bytes = lay_out_and_encode(vec![
        Instruction::new(Opcode::LDC, Operand::Constant(CpIndex(300))),
        Instruction::new(Opcode::POP, Operand::None),
    ]);
    let back = decode(&bytes).expect("decodes");
    assert_eq!(back[0].opcode, Opcode::LDC_W);
    assert_eq!(back[0].operand, Operand::Constant(CpIndex(300)));
}

#[test]
fn locals_and_iinc_past_one_byte_use_wide() {
    let bytes = lay_out_and_encode(vec![
        Instruction::new(
            Opcode::ILOAD,
            Operand::Local {
                index: 300,
                wide: false,
            },
        ),
        Instruction::new(
            Opcode::IINC,
            Operand::Iinc {
                index: 2,
                delta: 1000,
                wide: false,
            },
        ),
    ]);
    let back = decode(&bytes).expect("decodes");
    assert_eq!(
        back[0].operand,
        Operand::Local {
            index: 300,
            wide: true
        }
    );
    assert_eq!(
        back[1].operand,
        Operand::Iinc {
            index: 2,
            delta: 1000,
            wide: true
        }
    );
}

#[test]
fn negative_lookupswitch_pair_count_is_an_error() {
    // lookupswitch at 0: 3 bytes padding, default 0, npairs -1.
    let code = [0xAB, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF];
    let err = decode(&code).expect_err("negative count");
    assert!(err.to_string().contains("negative pair count"), "{err}");
}
