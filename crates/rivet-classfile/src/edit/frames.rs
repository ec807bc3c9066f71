//! Stack-map bookkeeping for the code editor: expands compressed StackMapTable frames into full
//! states and re-encodes states against a new predecessor frame.

use crate::stackmap::{StackMapFrame, VerificationType};

/// One local-variable entry of an expanded frame (long and double take one entry, as in frames).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Local {
    /// All of the method's initial locals (from its descriptor), standing in when those are not
    /// known to the editor. Only ever the first entry.
    Initial,
    Known(VerificationType),
}

/// The full type state a stack-map frame describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct State {
    pub locals: Vec<Local>,
    pub stack: Vec<VerificationType>,
}

impl State {
    /// The implicit frame at method entry: the given initial locals, or a stand-in for them.
    pub fn initial(locals: Option<&[VerificationType]>) -> State {
        State {
            locals: match locals {
                Some(l) => l.iter().copied().map(Local::Known).collect(),
                None => vec![Local::Initial],
            },
            stack: Vec::new(),
        }
    }

    pub fn known(locals: &[VerificationType], stack: &[VerificationType]) -> State {
        State {
            locals: locals.iter().copied().map(Local::Known).collect(),
            stack: stack.to_vec(),
        }
    }

    /// The state `frame` describes when the previous frame's state is `self`; None when it
    /// cannot be known (a chop reaching into unknown initial locals, or a malformed chop).
    pub fn next(&self, frame: &StackMapFrame) -> Option<State> {
        Some(match frame {
            StackMapFrame::Same { .. } | StackMapFrame::SameExtended { .. } => State {
                locals: self.locals.clone(),
                stack: Vec::new(),
            },
            StackMapFrame::SameLocals1StackItem { stack, .. }
            | StackMapFrame::SameLocals1StackItemExtended { stack, .. } => State {
                locals: self.locals.clone(),
                stack: vec![*stack],
            },
            StackMapFrame::Chop { k, .. } => {
                let k = *k as usize;
                let keep = self.locals.len().checked_sub(k)?;
                if self.locals[keep..].contains(&Local::Initial) {
                    return None;
                }
                State {
                    locals: self.locals[..keep].to_vec(),
                    stack: Vec::new(),
                }
            }
            StackMapFrame::Append { locals: add, .. } => State {
                locals: self
                    .locals
                    .iter()
                    .copied()
                    .chain(add.iter().copied().map(Local::Known))
                    .collect(),
                stack: Vec::new(),
            },
            StackMapFrame::Full {
                locals: l, stack, ..
            } => State {
                locals: l.iter().copied().map(Local::Known).collect(),
                stack: stack.clone(),
            },
        })
    }

    /// Encodes this state as the frame following `prev`, in the most compact form; None when
    /// only a full frame would do and some locals are not known.
    pub fn encode_after(&self, prev: &State, delta: u16) -> Option<StackMapFrame> {
        let (cur, old) = (&self.locals, &prev.locals);
        let mut frame = if cur == old && self.stack.is_empty() {
            StackMapFrame::Same {
                offset_delta: delta,
            }
        } else if cur == old && self.stack.len() == 1 {
            StackMapFrame::SameLocals1StackItem {
                offset_delta: delta,
                stack: self.stack[0],
            }
        } else if self.stack.is_empty()
            && cur.len() < old.len()
            && old.len() - cur.len() <= 3
            && old.starts_with(cur)
        {
            StackMapFrame::Chop {
                k: (old.len() - cur.len()) as u8,
                offset_delta: delta,
            }
        } else if self.stack.is_empty()
            && cur.len() > old.len()
            && cur.len() - old.len() <= 3
            && cur.starts_with(old)
        {
            StackMapFrame::Append {
                offset_delta: delta,
                locals: known(&cur[old.len()..])?,
            }
        } else {
            StackMapFrame::Full {
                offset_delta: delta,
                locals: known(cur)?,
                stack: self.stack.clone(),
            }
        };
        frame.set_offset_delta(delta);
        Some(frame)
    }
}

fn known(locals: &[Local]) -> Option<Vec<VerificationType>> {
    locals
        .iter()
        .map(|l| match l {
            Local::Known(t) => Some(*t),
            Local::Initial => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constant_pool::CpIndex;
    use VerificationType as V;

    #[test]
    fn expands_and_reencodes_relative_frames() {
        let init = State::initial(None);
        let a = init
            .next(&StackMapFrame::Append {
                offset_delta: 3,
                locals: vec![V::Integer, V::Long],
            })
            .unwrap();
        assert_eq!(a.locals.len(), 3);
        let c = a.next(&StackMapFrame::Chop {
            k: 1,
            offset_delta: 0,
        });
        assert_eq!(c.as_ref().unwrap().locals.len(), 2);
        // Chopping into the unknown initial locals cannot be expanded.
        assert!(a
            .next(&StackMapFrame::Chop {
                k: 3,
                offset_delta: 0
            })
            .is_none());
        // Re-encoding against another predecessor picks the compact forms.
        let f = c.unwrap().encode_after(&a, 70).unwrap();
        assert_eq!(
            f,
            StackMapFrame::Chop {
                k: 1,
                offset_delta: 70
            }
        );
        let s = State::known(&[V::Object(CpIndex(3))], &[V::Integer]);
        let same1 = s.encode_after(&s, 80).unwrap();
        assert!(matches!(
            same1,
            StackMapFrame::SameLocals1StackItemExtended {
                offset_delta: 80,
                ..
            }
        ));
        // A full frame is impossible when the initial locals are unknown.
        assert!(a.encode_after(&State::known(&[], &[]), 1).is_none());
        assert!(matches!(
            s.encode_after(
                &State::known(&[V::Float, V::Float, V::Float, V::Float], &[]),
                1
            ),
            Some(StackMapFrame::Full { .. })
        ));
    }
}
