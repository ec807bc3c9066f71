//! Code editing: insert instruction sequences into one method's code, then lay the code out
//! again, fixing up jumps, switches, exception handlers, debug tables and the StackMapTable.
//!
//! Where inserted code goes, relative to the original instruction `X` at some offset:
//!
//! ```text
//!   ... previous instruction P ...
//!   [code from insert_on_fallthrough(X) / insert_after(P)]   runs only when P falls through into X
//!   [trampolines, if the layout needs some here]              (jumped over)
//!   [code from insert_before(X)]    <- jumps, switch cases, handlers and frames for X land here
//!   X
//! ```
//!
//! Every other reference to `X` moves with its landing point too: exception ranges, line
//! numbers and local-variable ranges that start or end at `X` start or end at the landing
//! point, so inserted fall-through code belongs to `P`'s ranges and lines, and code inserted
//! before `X` to `X`'s. Local variables starting at offset 0 (parameters) keep starting at 0.
//!
//! Inserted code must leave the operand stack as it found it, and should only store into fresh
//! locals (see [`CodeEditor::new_local`]). A label that is jumped to needs a stack-map frame: it
//! gets the frame of the instruction where its code was inserted (the entry frame at offset 0),
//! so at the label the locals and stack must be those of that frame; where the original code
//! has no frame, give one with [`CodeEditor::set_label_frame`].
//!
//! Jumps that no longer fit 16 bits are widened (`goto` to `goto_w`, `jsr` to `jsr_w`); a
//! conditional jump is sent through a `goto_w` trampoline placed where nothing falls into it
//! unguarded: after the last instruction, or in an island before an instruction that has a
//! frame (or before offset 0), entered by a `goto` around it. A trampoline's frame is its
//! target's; islands are cut out of exception ranges. Raw code attributes (such as type
//! annotations with code offsets) are kept unchanged.

mod frames;
mod layout;
mod method;

use std::collections::HashMap;

use crate::attribute::{Attribute, AttributeBody, Code, LineNumber};
use crate::constant_pool::CpIndex;
use crate::error::WriteError;
use crate::insn::Instruction;
use crate::stackmap::VerificationType;
use layout::Builder;

/// Jump targets at or above this value name labels ([`Label::target`]); original code offsets
/// are always below it (code is at most 65535 bytes).
pub const LABEL_BASE: u32 = 0x1_0000;
const MAX_CODE: u32 = 65535;
/// Bound on re-layout passes (each pass widens jumps or adds trampolines; a few suffice).
const MAX_PASSES: usize = 200;

/// A position inside inserted code that inserted jumps and switches can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Label(u32);

impl Label {
    /// The value to use as a jump or switch target (`Operand::Jump(label.target())`).
    pub fn target(self) -> u32 {
        LABEL_BASE + self.0
    }
}

/// One element of an inserted sequence: an instruction, or the position of a label.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// An instruction; its `offset` is ignored. Jump and switch targets are original code
    /// offsets (landing like the original code's jumps do) or [`Label::target`] values.
    Insn(Instruction),
    /// Places a label before the next item.
    Label(Label),
}

impl From<Instruction> for Item {
    fn from(i: Instruction) -> Self {
        Item::Insn(i)
    }
}

impl From<Label> for Item {
    fn from(l: Label) -> Self {
        Item::Label(l)
    }
}

/// A full stack-map frame (locals as frames list them: long and double take one entry).
/// `Uninitialized` offsets are original code offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub locals: Vec<VerificationType>,
    pub stack: Vec<VerificationType>,
}

/// Collects insertions into one method's code; [`CodeEditor::finish`] lays the code out anew.
/// Invalid requests (unknown offsets, misplaced labels) are reported by `finish`.
#[derive(Debug, Clone)]
pub struct CodeEditor {
    code: Code,
    /// Per original instruction: code run only on fall-through into it.
    fall: Vec<Vec<Item>>,
    /// Per original instruction: code run on every entry to it.
    before: Vec<Vec<Item>>,
    label_count: u32,
    label_frames: HashMap<u32, Frame>,
    initial_locals: Option<Vec<VerificationType>>,
    stack_map_name: Option<CpIndex>,
    max_stack: u32,
    max_locals: u32,
    errors: Vec<String>,
}

impl CodeEditor {
    /// An editor over a copy of `code`. Stack-map frames are maintained when the code has a
    /// StackMapTable (see also [`CodeEditor::set_stack_map_name`]).
    pub fn new(code: &Code) -> CodeEditor {
        let n = code.instructions.len();
        CodeEditor {
            code: code.clone(),
            fall: vec![Vec::new(); n],
            before: vec![Vec::new(); n],
            label_count: 0,
            label_frames: HashMap::new(),
            initial_locals: None,
            stack_map_name: None,
            max_stack: code.max_stack as u32,
            max_locals: code.max_locals as u32,
            errors: Vec::new(),
        }
    }

    /// The code being edited, as it was given.
    pub fn original(&self) -> &Code {
        &self.code
    }

    /// True once anything was inserted or a maximum changed.
    pub fn is_modified(&self) -> bool {
        self.fall.iter().chain(&self.before).any(|v| !v.is_empty())
            || self.max_stack != self.code.max_stack as u32
            || self.max_locals != self.code.max_locals as u32
    }

    /// A new label, to be placed with [`Item::Label`] in exactly one inserted sequence.
    pub fn new_label(&mut self) -> Label {
        self.label_count += 1;
        Label(self.label_count - 1)
    }

    /// Inserts `items` so that they run on every entry to the original instruction at
    /// `offset`: by falling through into it, and by every jump, switch case and exception
    /// handler that targeted it (they now land on the inserted code, and so does the
    /// instruction's stack-map frame). Repeated calls append.
    pub fn insert_before<T: Into<Item>>(
        &mut self,
        offset: u32,
        items: impl IntoIterator<Item = T>,
    ) {
        if let Some(i) = self.index(offset, "insert_before") {
            self.before[i].extend(items.into_iter().map(Into::into));
        }
    }

    /// Inserts `items` so that they run only when control reaches the original instruction at
    /// `offset` without a jump: by falling through from the previous instruction, or at offset
    /// 0 by entering the method. Jumps, switch cases and handlers that targeted `offset` keep
    /// landing on the original instruction (after this code). Repeated calls append; this code
    /// runs before code from [`CodeEditor::insert_before`] at the same offset.
    pub fn insert_on_fallthrough<T: Into<Item>>(
        &mut self,
        offset: u32,
        items: impl IntoIterator<Item = T>,
    ) {
        if let Some(i) = self.index(offset, "insert_on_fallthrough") {
            if i > 0 && self.code.instructions[i - 1].opcode.ends_block() {
                self.errors.push(format!(
                    "insert_on_fallthrough: the instruction before offset {offset} never falls through"
                ));
                return;
            }
            self.fall[i].extend(items.into_iter().map(Into::into));
        }
    }

    /// Inserts `items` so that they run after the instruction at `offset` when it completes
    /// by falling through (for a conditional jump: when the jump is not taken). Same as
    /// [`CodeEditor::insert_on_fallthrough`] at the next instruction.
    pub fn insert_after<T: Into<Item>>(&mut self, offset: u32, items: impl IntoIterator<Item = T>) {
        let Some(i) = self.index(offset, "insert_after") else {
            return;
        };
        let insn = &self.code.instructions[i];
        if insn.opcode.ends_block() || i + 1 == self.code.instructions.len() {
            self.errors.push(format!(
                "insert_after: {} at offset {offset} never falls through",
                insn.opcode
            ));
            return;
        }
        self.fall[i + 1].extend(items.into_iter().map(Into::into));
    }

    /// Gives a label an explicit stack-map frame, for labels in code inserted where the
    /// original code has no frame (only needed when the label is jumped to).
    pub fn set_label_frame(&mut self, label: Label, frame: Frame) {
        self.label_frames.insert(label.0, frame);
    }

    /// The locals of the method's implicit entry frame (from its descriptor). Needed only when
    /// a frame must be written in full while it contains locals inherited from that frame.
    /// [`ClassFile::edit_code`] sets them.
    pub fn set_initial_locals(&mut self, locals: Vec<VerificationType>) {
        self.initial_locals = Some(locals);
    }

    /// For a method of a class of major version 50 or more that has no StackMapTable: the
    /// constant-pool index of the Utf8 "StackMapTable", so that the editor can add the
    /// attribute if the edit needs frames (labels jumped to, trampolines). Without a
    /// StackMapTable and without this, the code is taken to need no frames (major < 50).
    pub fn set_stack_map_name(&mut self, name: CpIndex) {
        self.stack_map_name = Some(name);
    }

    pub fn max_stack(&self) -> u32 {
        self.max_stack
    }

    pub fn set_max_stack(&mut self, max_stack: u16) {
        self.max_stack = max_stack as u32;
    }

    /// Raises max_stack by what inserted code pushes at most (over 65535 fails in `finish`).
    pub fn add_max_stack(&mut self, extra: u16) {
        self.max_stack += extra as u32;
    }

    pub fn max_locals(&self) -> u32 {
        self.max_locals
    }

    pub fn set_max_locals(&mut self, max_locals: u16) {
        self.max_locals = max_locals as u32;
    }

    /// A fresh local-variable slot (two slots for long/double when `wide`), past all others.
    pub fn new_local(&mut self, wide: bool) -> u16 {
        let i = self.max_locals;
        self.max_locals += if wide { 2 } else { 1 };
        u16::try_from(i).unwrap_or(u16::MAX)
    }

    fn index(&mut self, offset: u32, what: &str) -> Option<usize> {
        let i = self.code.index_of(offset);
        if i.is_none() {
            self.errors
                .push(format!("{what}: no instruction starts at offset {offset}"));
        }
        i
    }

    /// Lays the code out with the insertions and returns the new Code; `method` names the
    /// method in errors. An editor with no insertions gives back the code unchanged.
    pub fn finish(self, method: &str) -> Result<Code, WriteError> {
        let bad = |reason: String| WriteError::BadEdit {
            method: method.to_string(),
            reason,
        };
        if let Some(e) = self.errors.first() {
            return Err(bad(e.clone()));
        }
        let max_stack = u16::try_from(self.max_stack)
            .map_err(|_| bad(format!("max_stack {} exceeds 65535", self.max_stack)))?;
        let max_locals = u16::try_from(self.max_locals)
            .map_err(|_| bad(format!("max_locals {} exceeds 65535", self.max_locals)))?;
        let mut b = Builder::new(&self, method)?;
        b.converge()?;
        let mut code = Code {
            max_stack,
            max_locals,
            instructions: b.instructions(),
            code_length: b.total,
            exception_table: b.exception_table(&self.code)?,
            attributes: Vec::with_capacity(self.code.attributes.len() + 1),
        };
        let frames = b.frames(&self)?;
        let mut frames_written = false;
        for a in &self.code.attributes {
            let body = match &a.body {
                // Only the first StackMapTable counts (the JVM refuses a second one).
                AttributeBody::StackMapTable(_) if !frames_written => {
                    frames_written = true;
                    AttributeBody::StackMapTable(frames.clone().unwrap_or_default())
                }
                AttributeBody::LineNumberTable(lines) => AttributeBody::LineNumberTable(
                    lines
                        .iter()
                        .map(|l| LineNumber {
                            start_pc: b
                                .map_pos(l.start_pc as u32, self.code.code_length)
                                .min(MAX_CODE) as u16,
                            line: l.line,
                        })
                        .collect(),
                ),
                AttributeBody::LocalVariableTable(vars) => {
                    AttributeBody::LocalVariableTable(b.local_vars(vars, &self.code))
                }
                AttributeBody::LocalVariableTypeTable(vars) => {
                    AttributeBody::LocalVariableTypeTable(b.local_vars(vars, &self.code))
                }
                other => other.clone(),
            };
            code.attributes.push(Attribute { name: a.name, body });
        }
        if let (false, Some(frames), Some(name)) = (frames_written, frames, self.stack_map_name) {
            if !frames.is_empty() {
                code.attributes.push(Attribute {
                    name,
                    body: AttributeBody::StackMapTable(frames),
                });
            }
        }
        Ok(code)
    }
}
