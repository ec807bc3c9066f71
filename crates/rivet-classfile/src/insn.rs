//! Decoded bytecode instructions, and their decoding from and encoding to code bytes.

use crate::bytes::{ByteReader, ByteWriter};
use crate::constant_pool::CpIndex;
use crate::error::{ParseError, ParseErrorKind};
use crate::opcode::{Opcode, OperandShape};

/// The operands of one instruction. Jump and switch targets are absolute code offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    None,
    /// Local-variable index of a load, store or `ret`; `wide` keeps the original encoding.
    Local {
        index: u16,
        wide: bool,
    },
    Iinc {
        index: u16,
        delta: i16,
        wide: bool,
    },
    Byte(i8),
    Short(i16),
    /// Primitive array type code of `newarray`.
    NewArray(u8),
    Constant(CpIndex),
    InvokeInterface {
        index: CpIndex,
        count: u8,
    },
    InvokeDynamic(CpIndex),
    MultiANewArray {
        index: CpIndex,
        dimensions: u8,
    },
    Jump(u32),
    TableSwitch {
        default: u32,
        low: i32,
        high: i32,
        targets: Vec<u32>,
    },
    LookupSwitch {
        default: u32,
        pairs: Vec<(i32, u32)>,
    },
}

/// One instruction at its code offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    pub offset: u32,
    pub opcode: Opcode,
    pub operand: Operand,
}

impl Instruction {
    pub fn new(opcode: Opcode, operand: Operand) -> Self {
        Instruction {
            offset: 0,
            opcode,
            operand,
        }
    }

    /// The encoded size of this instruction when placed at `offset` (switch padding depends on it).
    pub fn size_at(&self, offset: u32) -> u32 {
        match &self.operand {
            Operand::None => 1,
            Operand::Local { index, wide } => {
                if *wide || *index > 255 {
                    4
                } else {
                    2
                }
            }
            Operand::Iinc { index, delta, wide } => {
                if *wide || *index > 255 || *delta < -128 || *delta > 127 {
                    6
                } else {
                    3
                }
            }
            Operand::Byte(_) | Operand::NewArray(_) => 2,
            Operand::Short(_) => 3,
            Operand::Constant(i) => {
                if self.opcode == Opcode::LDC && i.0 <= 255 {
                    2
                } else {
                    3
                }
            }
            Operand::InvokeInterface { .. } | Operand::InvokeDynamic(_) => 5,
            Operand::MultiANewArray { .. } => 4,
            Operand::Jump(_) => {
                if self.opcode == Opcode::GOTO_W || self.opcode == Opcode::JSR_W {
                    5
                } else {
                    3
                }
            }
            Operand::TableSwitch { targets, .. } => {
                1 + padding(offset) + 12 + 4 * targets.len() as u32
            }
            Operand::LookupSwitch { pairs, .. } => 1 + padding(offset) + 8 + 8 * pairs.len() as u32,
        }
    }

    /// All jump and switch targets (switch default first, then cases in order).
    pub fn targets(&self) -> Vec<u32> {
        match &self.operand {
            Operand::Jump(t) => vec![*t],
            Operand::TableSwitch {
                default, targets, ..
            } => std::iter::once(*default)
                .chain(targets.iter().copied())
                .collect(),
            Operand::LookupSwitch { default, pairs } => std::iter::once(*default)
                .chain(pairs.iter().map(|p| p.1))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Rewrites every jump and switch target through `f`.
    pub fn map_targets(&mut self, mut f: impl FnMut(u32) -> u32) {
        match &mut self.operand {
            Operand::Jump(t) => *t = f(*t),
            Operand::TableSwitch {
                default, targets, ..
            } => {
                *default = f(*default);
                for t in targets {
                    *t = f(*t);
                }
            }
            Operand::LookupSwitch { default, pairs } => {
                *default = f(*default);
                for p in pairs {
                    p.1 = f(p.1);
                }
            }
            _ => {}
        }
    }

    /// The constant-pool index this instruction refers to, if any.
    pub fn cp_index(&self) -> Option<CpIndex> {
        match &self.operand {
            Operand::Constant(i)
            | Operand::InvokeDynamic(i)
            | Operand::InvokeInterface { index: i, .. }
            | Operand::MultiANewArray { index: i, .. } => Some(*i),
            _ => None,
        }
    }

    /// The local-variable index of a load/store/iinc/ret, including the `_0`..`_3` forms.
    pub fn local_index(&self) -> Option<u16> {
        match &self.operand {
            Operand::Local { index, .. } | Operand::Iinc { index, .. } => Some(*index),
            Operand::None => {
                let o = self.opcode.0;
                match o {
                    26..=45 => Some(((o - 26) % 4) as u16),
                    59..=78 => Some(((o - 59) % 4) as u16),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// Switch padding after the opcode at `offset`, so that operands start on a 4-byte boundary.
pub fn padding(offset: u32) -> u32 {
    (4 - (offset + 1) % 4) % 4
}

fn target(offset: u32, rel: i64, code_len: usize) -> Result<u32, ParseError> {
    let t = offset as i64 + rel;
    if t < 0 || t >= code_len as i64 {
        return Err(ParseErrorKind::BadJumpTarget { offset, target: t }.into());
    }
    Ok(t as u32)
}

/// Decodes a method's code bytes into instructions.
pub fn decode(code: &[u8]) -> Result<Vec<Instruction>, ParseError> {
    let mut r = ByteReader::new(code);
    let mut out = Vec::with_capacity(code.len() / 2);
    while r.remaining() > 0 {
        let offset = r.position() as u32;
        let op = Opcode(r.u8("opcode")?);
        let shape = op.shape().ok_or(ParseErrorKind::BadOpcode {
            offset,
            opcode: op.0,
        })?;
        let mut opcode = op;
        let operand = match shape {
            OperandShape::None => Operand::None,
            OperandShape::Local => Operand::Local {
                index: r.u8("local index")? as u16,
                wide: false,
            },
            OperandShape::Iinc => Operand::Iinc {
                index: r.u8("iinc index")? as u16,
                delta: r.u8("iinc delta")? as i8 as i16,
                wide: false,
            },
            OperandShape::Byte => Operand::Byte(r.u8("bipush")? as i8),
            OperandShape::Short => Operand::Short(r.u16("sipush")? as i16),
            OperandShape::NewArray => Operand::NewArray(r.u8("newarray type")?),
            OperandShape::Cp1 => Operand::Constant(CpIndex(r.u8("ldc index")? as u16)),
            OperandShape::Cp2 => Operand::Constant(CpIndex(r.u16("constant index")?)),
            OperandShape::InvokeInterface => {
                let index = CpIndex(r.u16("invokeinterface index")?);
                let count = r.u8("invokeinterface count")?;
                r.u8("invokeinterface zero")?;
                Operand::InvokeInterface { index, count }
            }
            OperandShape::InvokeDynamic => {
                let index = CpIndex(r.u16("invokedynamic index")?);
                r.u16("invokedynamic zero")?;
                Operand::InvokeDynamic(index)
            }
            OperandShape::MultiANewArray => Operand::MultiANewArray {
                index: CpIndex(r.u16("multianewarray index")?),
                dimensions: r.u8("multianewarray dimensions")?,
            },
            OperandShape::Jump16 => {
                let rel = r.u16("jump offset")? as i16 as i64;
                Operand::Jump(target(offset, rel, code.len())?)
            }
            OperandShape::Jump32 => {
                let rel = r.i32("jump offset")? as i64;
                Operand::Jump(target(offset, rel, code.len())?)
            }
            OperandShape::TableSwitch => {
                r.skip(padding(offset) as usize, "tableswitch padding")?;
                let default = target(offset, r.i32("tableswitch default")? as i64, code.len())?;
                let low = r.i32("tableswitch low")?;
                let high = r.i32("tableswitch high")?;
                let n = (high as i64 - low as i64 + 1).max(0) as usize;
                if n * 4 > r.remaining() {
                    return Err(ParseErrorKind::Truncated {
                        what: "tableswitch targets",
                        offset: r.position(),
                        needed: n * 4 - r.remaining(),
                    }
                    .into());
                }
                let mut targets = Vec::with_capacity(n);
                for _ in 0..n {
                    targets.push(target(
                        offset,
                        r.i32("tableswitch target")? as i64,
                        code.len(),
                    )?);
                }
                Operand::TableSwitch {
                    default,
                    low,
                    high,
                    targets,
                }
            }
            OperandShape::LookupSwitch => {
                r.skip(padding(offset) as usize, "lookupswitch padding")?;
                let default = target(offset, r.i32("lookupswitch default")? as i64, code.len())?;
                let n = r.i32("lookupswitch npairs")?;
                let n = usize::try_from(n).map_err(|_| ParseErrorKind::BadSwitch {
                    offset,
                    reason: "negative pair count",
                })?;
                if n * 8 > r.remaining() {
                    return Err(ParseErrorKind::Truncated {
                        what: "lookupswitch pairs",
                        offset: r.position(),
                        needed: n * 8 - r.remaining(),
                    }
                    .into());
                }
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    let key = r.i32("lookupswitch key")?;
                    let t = target(offset, r.i32("lookupswitch target")? as i64, code.len())?;
                    pairs.push((key, t));
                }
                Operand::LookupSwitch { default, pairs }
            }
            OperandShape::Wide => {
                let inner = Opcode(r.u8("wide opcode")?);
                opcode = inner;
                match inner.shape() {
                    Some(OperandShape::Local) => Operand::Local {
                        index: r.u16("wide local index")?,
                        wide: true,
                    },
                    Some(OperandShape::Iinc) => Operand::Iinc {
                        index: r.u16("wide iinc index")?,
                        delta: r.u16("wide iinc delta")? as i16,
                        wide: true,
                    },
                    _ => {
                        return Err(ParseErrorKind::BadOpcode {
                            offset,
                            opcode: inner.0,
                        }
                        .into())
                    }
                }
            }
        };
        out.push(Instruction {
            offset,
            opcode,
            operand,
        });
    }
    Ok(out)
}

/// Why an instruction could not be encoded at its offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    JumpOutOfRange { offset: u32, target: u32 },
}

/// Encodes instructions at their recorded offsets (which must be laid out consecutively).
pub fn encode(insns: &[Instruction], w: &mut ByteWriter) -> Result<(), EncodeError> {
    let base = w.len();
    for insn in insns {
        let offset = insn.offset;
        debug_assert_eq!((w.len() - base) as u32, offset);
        let rel = |t: u32| t as i64 - offset as i64;
        let rel16 = |t: u32| -> Result<u16, EncodeError> {
            i16::try_from(rel(t))
                .map(|v| v as u16)
                .map_err(|_| EncodeError::JumpOutOfRange { offset, target: t })
        };
        match &insn.operand {
            Operand::Local { index, wide } => {
                if *wide || *index > 255 {
                    w.u8(Opcode::WIDE.0);
                    w.u8(insn.opcode.0);
                    w.u16(*index);
                } else {
                    w.u8(insn.opcode.0);
                    w.u8(*index as u8);
                }
            }
            Operand::Iinc { index, delta, wide } => {
                if *wide || *index > 255 || *delta < -128 || *delta > 127 {
                    w.u8(Opcode::WIDE.0);
                    w.u8(insn.opcode.0);
                    w.u16(*index);
                    w.u16(*delta as u16);
                } else {
                    w.u8(insn.opcode.0);
                    w.u8(*index as u8);
                    w.u8(*delta as i8 as u8);
                }
            }
            // An `ldc` whose constant index outgrew one byte is written as `ldc_w`.
            Operand::Constant(i) if insn.opcode == Opcode::LDC && i.0 > 255 => {
                w.u8(Opcode::LDC_W.0)
            }
            _ => w.u8(insn.opcode.0),
        }
        match &insn.operand {
            Operand::None | Operand::Local { .. } | Operand::Iinc { .. } => {}
            Operand::Byte(b) => w.u8(*b as u8),
            Operand::Short(s) => w.u16(*s as u16),
            Operand::NewArray(t) => w.u8(*t),
            Operand::Constant(i) => {
                if insn.opcode == Opcode::LDC && i.0 <= 255 {
                    w.u8(i.0 as u8)
                } else {
                    w.u16(i.0)
                }
            }
            Operand::InvokeInterface { index, count } => {
                w.u16(index.0);
                w.u8(*count);
                w.u8(0);
            }
            Operand::InvokeDynamic(i) => {
                w.u16(i.0);
                w.u16(0);
            }
            Operand::MultiANewArray { index, dimensions } => {
                w.u16(index.0);
                w.u8(*dimensions);
            }
            Operand::Jump(t) => {
                if insn.opcode == Opcode::GOTO_W || insn.opcode == Opcode::JSR_W {
                    w.i32(rel(*t) as i32);
                } else {
                    w.u16(rel16(*t)?);
                }
            }
            Operand::TableSwitch {
                default,
                low,
                high,
                targets,
            } => {
                for _ in 0..padding(offset) {
                    w.u8(0);
                }
                w.i32(rel(*default) as i32);
                w.i32(*low);
                w.i32(*high);
                for t in targets {
                    w.i32(rel(*t) as i32);
                }
            }
            Operand::LookupSwitch { default, pairs } => {
                for _ in 0..padding(offset) {
                    w.u8(0);
                }
                w.i32(rel(*default) as i32);
                w.i32(pairs.len() as i32);
                for (k, t) in pairs {
                    w.i32(*k);
                    w.i32(rel(*t) as i32);
                }
            }
        }
    }
    Ok(())
}
