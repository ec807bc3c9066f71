//! StackMapTable frames and verification types.

use crate::bytes::{ByteReader, ByteWriter};
use crate::constant_pool::CpIndex;
use crate::error::ParseError;

/// A verification type in a stack map frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VerificationType {
    Top,
    Integer,
    Float,
    Double,
    Long,
    Null,
    UninitializedThis,
    Object(CpIndex),
    /// An object created by the `new` at this code offset, not yet initialized.
    Uninitialized(u32),
}

impl VerificationType {
    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, ParseError> {
        Ok(match r.u8("verification type tag")? {
            0 => VerificationType::Top,
            1 => VerificationType::Integer,
            2 => VerificationType::Float,
            3 => VerificationType::Double,
            4 => VerificationType::Long,
            5 => VerificationType::Null,
            6 => VerificationType::UninitializedThis,
            7 => VerificationType::Object(CpIndex(r.u16("object type")?)),
            8 => VerificationType::Uninitialized(r.u16("uninitialized offset")? as u32),
            t => {
                return Err(crate::error::ParseErrorKind::BadAttribute {
                    name: "StackMapTable".into(),
                    reason: format!("unknown verification type tag {t}"),
                }
                .into())
            }
        })
    }

    pub(crate) fn write(&self, w: &mut ByteWriter) {
        match self {
            VerificationType::Top => w.u8(0),
            VerificationType::Integer => w.u8(1),
            VerificationType::Float => w.u8(2),
            VerificationType::Double => w.u8(3),
            VerificationType::Long => w.u8(4),
            VerificationType::Null => w.u8(5),
            VerificationType::UninitializedThis => w.u8(6),
            VerificationType::Object(i) => {
                w.u8(7);
                w.u16(i.0);
            }
            VerificationType::Uninitialized(o) => {
                w.u8(8);
                w.u16(*o as u16);
            }
        }
    }
}

/// One frame of a StackMapTable, in its encoded form (offsets are deltas).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StackMapFrame {
    /// frame_type 0-63.
    Same { offset_delta: u16 },
    /// frame_type 64-127.
    SameLocals1StackItem {
        offset_delta: u16,
        stack: VerificationType,
    },
    /// frame_type 247.
    SameLocals1StackItemExtended {
        offset_delta: u16,
        stack: VerificationType,
    },
    /// frame_type 248-250: the last `k` locals are absent.
    Chop { k: u8, offset_delta: u16 },
    /// frame_type 251.
    SameExtended { offset_delta: u16 },
    /// frame_type 252-254.
    Append {
        offset_delta: u16,
        locals: Vec<VerificationType>,
    },
    /// frame_type 255.
    Full {
        offset_delta: u16,
        locals: Vec<VerificationType>,
        stack: Vec<VerificationType>,
    },
}

impl StackMapFrame {
    pub fn offset_delta(&self) -> u16 {
        match self {
            StackMapFrame::Same { offset_delta }
            | StackMapFrame::SameLocals1StackItem { offset_delta, .. }
            | StackMapFrame::SameLocals1StackItemExtended { offset_delta, .. }
            | StackMapFrame::Chop { offset_delta, .. }
            | StackMapFrame::SameExtended { offset_delta }
            | StackMapFrame::Append { offset_delta, .. }
            | StackMapFrame::Full { offset_delta, .. } => *offset_delta,
        }
    }

    /// Sets the delta. A compact frame becomes extended when the value needs it; an extended
    /// frame stays extended (always valid), so an unedited frame keeps the bytes it was read
    /// from, even where a tool wrote the extended form for a small delta.
    pub fn set_offset_delta(&mut self, delta: u16) {
        match self {
            StackMapFrame::Same { .. } if delta >= 64 => {
                *self = StackMapFrame::SameExtended {
                    offset_delta: delta,
                };
            }
            StackMapFrame::SameLocals1StackItem { stack, .. } if delta >= 64 => {
                let stack = *stack;
                *self = StackMapFrame::SameLocals1StackItemExtended {
                    offset_delta: delta,
                    stack,
                };
            }
            StackMapFrame::Same { offset_delta }
            | StackMapFrame::SameExtended { offset_delta }
            | StackMapFrame::SameLocals1StackItem { offset_delta, .. }
            | StackMapFrame::SameLocals1StackItemExtended { offset_delta, .. }
            | StackMapFrame::Chop { offset_delta, .. }
            | StackMapFrame::Append { offset_delta, .. }
            | StackMapFrame::Full { offset_delta, .. } => *offset_delta = delta,
        }
    }

    /// Verification types that carry code offsets (`Uninitialized`), for fix-ups.
    pub fn types_mut(&mut self) -> Vec<&mut VerificationType> {
        match self {
            StackMapFrame::SameLocals1StackItem { stack, .. }
            | StackMapFrame::SameLocals1StackItemExtended { stack, .. } => vec![stack],
            StackMapFrame::Append { locals, .. } => locals.iter_mut().collect(),
            StackMapFrame::Full { locals, stack, .. } => {
                locals.iter_mut().chain(stack.iter_mut()).collect()
            }
            _ => Vec::new(),
        }
    }

    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, ParseError> {
        let t = r.u8("frame type")?;
        Ok(match t {
            0..=63 => StackMapFrame::Same {
                offset_delta: t as u16,
            },
            64..=127 => StackMapFrame::SameLocals1StackItem {
                offset_delta: (t - 64) as u16,
                stack: VerificationType::parse(r)?,
            },
            247 => StackMapFrame::SameLocals1StackItemExtended {
                offset_delta: r.u16("offset delta")?,
                stack: VerificationType::parse(r)?,
            },
            248..=250 => StackMapFrame::Chop {
                k: 251 - t,
                offset_delta: r.u16("offset delta")?,
            },
            251 => StackMapFrame::SameExtended {
                offset_delta: r.u16("offset delta")?,
            },
            252..=254 => {
                let offset_delta = r.u16("offset delta")?;
                let locals = (0..t - 251)
                    .map(|_| VerificationType::parse(r))
                    .collect::<Result<_, _>>()?;
                StackMapFrame::Append {
                    offset_delta,
                    locals,
                }
            }
            255 => {
                let offset_delta = r.u16("offset delta")?;
                let nl = r.u16("locals count")?;
                let locals = (0..nl)
                    .map(|_| VerificationType::parse(r))
                    .collect::<Result<_, _>>()?;
                let ns = r.u16("stack count")?;
                let stack = (0..ns)
                    .map(|_| VerificationType::parse(r))
                    .collect::<Result<_, _>>()?;
                StackMapFrame::Full {
                    offset_delta,
                    locals,
                    stack,
                }
            }
            _ => {
                return Err(crate::error::ParseErrorKind::BadAttribute {
                    name: "StackMapTable".into(),
                    reason: format!("reserved frame type {t}"),
                }
                .into())
            }
        })
    }

    /// Writes the frame, choosing the extended form when a compact one cannot hold the delta;
    /// fails (naming the problem) for a frame no encoding can express.
    pub(crate) fn write(&self, w: &mut ByteWriter) -> Result<(), &'static str> {
        match self {
            StackMapFrame::Same { offset_delta } | StackMapFrame::SameExtended { offset_delta } => {
                if *offset_delta < 64 && matches!(self, StackMapFrame::Same { .. }) {
                    w.u8(*offset_delta as u8);
                } else {
                    w.u8(251);
                    w.u16(*offset_delta);
                }
            }
            StackMapFrame::SameLocals1StackItem {
                offset_delta,
                stack,
            }
            | StackMapFrame::SameLocals1StackItemExtended {
                offset_delta,
                stack,
            } => {
                if *offset_delta < 64 && matches!(self, StackMapFrame::SameLocals1StackItem { .. })
                {
                    w.u8(64 + *offset_delta as u8);
                } else {
                    w.u8(247);
                    w.u16(*offset_delta);
                }
                stack.write(w);
            }
            StackMapFrame::Chop { k, offset_delta } => {
                if !(1..=3).contains(k) {
                    return Err("chop frame removing other than 1 to 3 locals, at delta");
                }
                w.u8(251 - k);
                w.u16(*offset_delta);
            }
            StackMapFrame::Append {
                offset_delta,
                locals,
            } => {
                if !(1..=3).contains(&locals.len()) {
                    return Err("append frame adding other than 1 to 3 locals, at delta");
                }
                w.u8(251 + locals.len() as u8);
                w.u16(*offset_delta);
                for l in locals {
                    l.write(w);
                }
            }
            StackMapFrame::Full {
                offset_delta,
                locals,
                stack,
            } => {
                let (Ok(nl), Ok(ns)) = (u16::try_from(locals.len()), u16::try_from(stack.len()))
                else {
                    return Err("full frame with over 65535 locals or stack items, at delta");
                };
                w.u8(255);
                w.u16(*offset_delta);
                w.u16(nl);
                for l in locals {
                    l.write(w);
                }
                w.u16(ns);
                for s in stack {
                    s.write(w);
                }
            }
        }
        Ok(())
    }
}

/// Absolute code offsets of a StackMapTable's frames (first frame at its delta, later ones at
/// previous + delta + 1).
pub fn frame_offsets(frames: &[StackMapFrame]) -> Vec<u32> {
    let mut out = Vec::with_capacity(frames.len());
    let mut prev: Option<u32> = None;
    for f in frames {
        let o = match prev {
            None => f.offset_delta() as u32,
            Some(p) => p + f.offset_delta() as u32 + 1,
        };
        out.push(o);
        prev = Some(o);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compact_frame_grows_to_the_extended_form_only_when_the_delta_needs_it() {
        let mut f = StackMapFrame::Same { offset_delta: 3 };
        f.set_offset_delta(63);
        assert_eq!(f, StackMapFrame::Same { offset_delta: 63 });
        f.set_offset_delta(64);
        assert_eq!(f, StackMapFrame::SameExtended { offset_delta: 64 });
        let mut g = StackMapFrame::SameLocals1StackItem {
            offset_delta: 0,
            stack: VerificationType::Integer,
        };
        g.set_offset_delta(100);
        assert_eq!(
            g,
            StackMapFrame::SameLocals1StackItemExtended {
                offset_delta: 100,
                stack: VerificationType::Integer,
            }
        );
    }

    #[test]
    fn an_extended_frame_stays_extended_for_a_small_delta() {
        let mut f = StackMapFrame::SameExtended { offset_delta: 5 };
        f.set_offset_delta(5);
        assert_eq!(f, StackMapFrame::SameExtended { offset_delta: 5 });
        f.set_offset_delta(2);
        assert_eq!(f, StackMapFrame::SameExtended { offset_delta: 2 });
    }
}
