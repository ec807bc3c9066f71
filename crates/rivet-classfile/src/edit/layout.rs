//! The code editor's layout engine: places original and inserted instructions, widens jumps,
//! adds `goto_w` trampolines, and maps exception ranges, debug tables and stack-map frames.

use std::collections::{HashMap, HashSet};

use super::frames::State;
use super::{CodeEditor, Item, LABEL_BASE, MAX_CODE, MAX_PASSES};
use crate::attribute::{Code, ExceptionHandler, LocalVariable};
use crate::error::WriteError;
use crate::insn::{Instruction, Operand};
use crate::opcode::{Opcode, OperandShape};
use crate::stackmap::{StackMapFrame, VerificationType};

/// An instruction of the new layout; its jump and switch targets are anchor ids.
#[derive(Debug, Clone)]
struct Work {
    insn: Instruction,
    /// A conditional jump redirected to this trampoline anchor.
    via: Option<u32>,
}

#[derive(Debug, Clone, Copy)]
enum Node {
    Insn(usize),
    /// Defines the position of an anchor (a label or a trampoline).
    Mark(u32),
}

#[derive(Debug, Clone, Default)]
struct Group {
    fall: Vec<Node>,
    island: Vec<Node>,
    before: Vec<Node>,
    /// The original instruction (index into `works`).
    orig: usize,
}

#[derive(Debug, Clone, Copy)]
struct Tramp {
    anchor: u32,
    target: u32,
}

/// Where a frame's content comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FrameRef {
    /// Original frame `j`, at its own instruction.
    Orig(usize),
    /// A copy of original frame `j` elsewhere.
    Copy(usize),
    /// The implicit entry frame.
    Initial,
    /// The explicit frame of a label.
    Label(u32),
}

/// The layout state. Anchor ids: `0..n` are the landing points of the original instructions,
/// `n..n+labels` the labels, then the trampolines.
pub(super) struct Builder<'a> {
    method: &'a str,
    n: usize,
    orig_offsets: Vec<u32>,
    works: Vec<Work>,
    groups: Vec<Group>,
    end_island: Vec<Node>,
    anchor_pos: Vec<u32>,
    island_pos: Vec<u32>,
    tramps: Vec<Tramp>,
    label_home: Vec<Option<usize>>,
    /// Original frames: (instruction index, frame), when frames are maintained.
    orig_frames: Option<Vec<(usize, StackMapFrame)>>,
    frame_at: HashMap<usize, usize>,
    orig_end: u32,
    pub(super) total: u32,
}

impl<'a> Builder<'a> {
    pub(super) fn new(ed: &CodeEditor, method: &'a str) -> Result<Builder<'a>, WriteError> {
        let code = &ed.code;
        let n = code.instructions.len();
        let mut b = Builder {
            method,
            n,
            orig_offsets: code.instructions.iter().map(|i| i.offset).collect(),
            works: Vec::with_capacity(n),
            groups: Vec::with_capacity(n),
            end_island: Vec::new(),
            anchor_pos: vec![0; n + ed.label_count as usize],
            island_pos: vec![0; n],
            tramps: Vec::new(),
            label_home: vec![None; ed.label_count as usize],
            orig_frames: None,
            frame_at: HashMap::new(),
            orig_end: 0,
            total: 0,
        };
        let frames = code
            .stack_map()
            .map(<[StackMapFrame]>::to_vec)
            .or_else(|| ed.stack_map_name.map(|_| Vec::new()));
        if let Some(frames) = frames {
            let mut out = Vec::with_capacity(frames.len());
            let mut at: Option<u64> = None;
            for (j, f) in frames.into_iter().enumerate() {
                let off = at.map_or(0, |p| p + 1) + f.offset_delta() as u64;
                at = Some(off);
                let i = u32::try_from(off)
                    .ok()
                    .and_then(|o| b.orig_index(o))
                    .ok_or_else(|| {
                        b.bad(format!(
                            "stack map frame {j} at offset {off} is not at an instruction"
                        ))
                    })?;
                b.frame_at.insert(i, j);
                out.push((i, f));
            }
            b.orig_frames = Some(out);
        }
        for (i, insn) in code.instructions.iter().enumerate() {
            let mut insn = insn.clone();
            let mut err = None;
            insn.map_targets(|t| match b.orig_index(t) {
                Some(x) => x as u32,
                None => {
                    err = Some(t);
                    0
                }
            });
            if let Some(t) = err {
                return Err(b.bad(format!(
                    "jump at offset {} targets {t}, which is not an instruction",
                    insn.offset
                )));
            }
            let fall = b.convert(&ed.fall[i], i, ed)?;
            let before = b.convert(&ed.before[i], i, ed)?;
            b.works.push(Work { insn, via: None });
            b.groups.push(Group {
                fall,
                island: Vec::new(),
                before,
                orig: b.works.len() - 1,
            });
        }
        let targets: HashSet<u32> = b.works.iter().flat_map(|w| w.insn.targets()).collect();
        for (l, home) in b.label_home.iter().enumerate() {
            if home.is_none() && targets.contains(&((n + l) as u32)) {
                return Err(b.bad(format!("label {l} is jumped to but never placed")));
            }
        }
        Ok(b)
    }

    fn bad(&self, reason: String) -> WriteError {
        WriteError::BadEdit {
            method: self.method.to_string(),
            reason,
        }
    }

    fn orig_index(&self, offset: u32) -> Option<usize> {
        self.orig_offsets.binary_search(&offset).ok()
    }

    /// Converts inserted items of group `g` into nodes and works.
    fn convert(
        &mut self,
        items: &[Item],
        g: usize,
        ed: &CodeEditor,
    ) -> Result<Vec<Node>, WriteError> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Item::Label(l) => {
                    match self.label_home.get(l.0 as usize).copied() {
                        None => {
                            return Err(
                                self.bad(format!("label {} does not belong to this editor", l.0))
                            )
                        }
                        Some(Some(_)) => {
                            return Err(self.bad(format!("label {} is placed twice", l.0)))
                        }
                        Some(None) => self.label_home[l.0 as usize] = Some(g),
                    }
                    out.push(Node::Mark((self.n + l.0 as usize) as u32));
                }
                Item::Insn(insn) => {
                    let insn = normalize(insn).ok_or_else(|| {
                        self.bad(format!(
                            "inserted {} has operands of the wrong kind",
                            insn.opcode
                        ))
                    })?;
                    let mut insn = insn;
                    let mut err = None;
                    let frames = self.orig_frames.is_some();
                    insn.map_targets(|t| {
                        if t >= LABEL_BASE {
                            let l = t - LABEL_BASE;
                            if l >= ed.label_count {
                                err = Some(format!("inserted jump targets unknown label {l}"));
                            }
                            self.n as u32 + l
                        } else {
                            match self.orig_index(t) {
                                Some(i) if !frames || self.frame_at.contains_key(&i) => i as u32,
                                Some(_) => {
                                    err = Some(format!("inserted jump targets offset {t}, which has no stack map frame"));
                                    0
                                }
                                None => {
                                    err = Some(format!("inserted jump targets offset {t}, which is not an instruction"));
                                    0
                                }
                            }
                        }
                    });
                    if let Some(e) = err {
                        return Err(self.bad(e));
                    }
                    self.works.push(Work { insn, via: None });
                    out.push(Node::Insn(self.works.len() - 1));
                }
            }
        }
        Ok(out)
    }

    fn place(works: &mut [Work], anchors: &mut [u32], nodes: &[Node], mut pos: u32) -> u32 {
        for node in nodes {
            match *node {
                Node::Mark(a) => anchors[a as usize] = pos,
                Node::Insn(w) => {
                    let insn = &mut works[w].insn;
                    insn.offset = pos;
                    pos = pos.saturating_add(insn.size_at(pos));
                }
            }
        }
        pos
    }

    /// One layout pass: assigns offsets to all instructions and anchors.
    fn layout(&mut self) -> Result<(), WriteError> {
        let mut pos = 0;
        let (works, anchors) = (&mut self.works, &mut self.anchor_pos);
        for (g, group) in self.groups.iter().enumerate() {
            pos = Self::place(works, anchors, &group.fall, pos);
            self.island_pos[g] = pos;
            pos = Self::place(works, anchors, &group.island, pos);
            anchors[g] = pos;
            pos = Self::place(works, anchors, &group.before, pos);
            pos = Self::place(works, anchors, &[Node::Insn(group.orig)], pos);
        }
        self.orig_end = pos;
        self.total = Self::place(works, anchors, &self.end_island, pos);
        if self.total > MAX_CODE {
            return Err(WriteError::CodeTooLarge {
                method: self.method.to_string(),
                length: self.total as usize,
            });
        }
        Ok(())
    }

    /// Lays out until every jump fits, widening `goto`/`jsr` and sending conditional jumps that
    /// do not fit through `goto_w` trampolines.
    pub(super) fn converge(&mut self) -> Result<(), WriteError> {
        for _ in 0..MAX_PASSES {
            self.layout()?;
            if !self.fix_jumps()? {
                return Ok(());
            }
        }
        Err(self.bad(format!("layout did not settle after {MAX_PASSES} passes")))
    }

    fn fix_jumps(&mut self) -> Result<bool, WriteError> {
        let mut changed = false;
        for w in 0..self.works.len() {
            let Work { insn, via } = &self.works[w];
            let Operand::Jump(target) = insn.operand else {
                continue;
            };
            if insn.opcode == Opcode::GOTO_W || insn.opcode == Opcode::JSR_W {
                continue;
            }
            let at = insn.offset;
            if fits(at, self.anchor_pos[via.unwrap_or(target) as usize]) {
                continue;
            }
            changed = true;
            let opcode = insn.opcode;
            if opcode == Opcode::GOTO {
                self.works[w].insn.opcode = Opcode::GOTO_W;
            } else if opcode == Opcode::JSR {
                self.works[w].insn.opcode = Opcode::JSR_W;
            } else {
                let t = self.trampoline(at, target)?;
                self.works[w].via = Some(t);
            }
        }
        Ok(changed)
    }

    /// Whether an island of trampolines can go before original instruction `g`: the code after
    /// it (g's landing point) must have a frame, or frames must not be needed.
    fn is_site(&self, g: usize) -> bool {
        self.orig_frames.is_none() || g == 0 || self.frame_at.contains_key(&g)
    }

    /// Whether control can fall into group `g`'s island (so it needs a leading `goto`).
    fn falls_into_island(&self, g: usize) -> bool {
        let last = self.groups[g].fall.iter().rev().find_map(|n| match n {
            Node::Insn(w) => Some(*w),
            Node::Mark(_) => None,
        });
        match last {
            Some(w) => !self.works[w].insn.opcode.ends_block(),
            None if g == 0 => true,
            None => !self.works[self.groups[g - 1].orig].insn.opcode.ends_block(),
        }
    }

    /// A `goto_w target` trampoline reachable by a 16-bit jump from offset `at`.
    fn trampoline(&mut self, at: u32, target: u32) -> Result<u32, WriteError> {
        if let Some(t) = self
            .tramps
            .iter()
            .find(|t| t.target == target && fits(at, self.anchor_pos[t.anchor as usize]))
        {
            return Ok(t.anchor);
        }
        // Candidate sites: before original instructions, and after the last one.
        let mut best: Option<(u32, Option<usize>)> = None;
        let mut consider = |pos: u32, site: Option<usize>| {
            let d = pos.abs_diff(at);
            if fits(at, pos) && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, site));
            }
        };
        for g in 0..self.n {
            if self.is_site(g) {
                consider(self.island_pos[g], Some(g));
            }
        }
        let ends = self.n > 0
            && self.works[self.groups[self.n - 1].orig]
                .insn
                .opcode
                .ends_block();
        if ends {
            consider(self.orig_end, None);
        }
        let Some((_, site)) = best else {
            return Err(self.bad(format!(
                "conditional jump at offset {at} to offset {} does not fit 16 bits, and no trampoline can be placed within its reach",
                self.anchor_pos[target as usize]
            )));
        };
        let anchor = self.anchor_pos.len() as u32;
        let pos = site.map_or(self.orig_end, |g| self.island_pos[g]);
        self.anchor_pos.push(pos);
        self.tramps.push(Tramp { anchor, target });
        self.works.push(Work {
            insn: Instruction::new(Opcode::GOTO_W, Operand::Jump(target)),
            via: None,
        });
        let tramp = self.works.len() - 1;
        match site {
            Some(g) => {
                if self.groups[g].island.is_empty() && self.falls_into_island(g) {
                    self.works.push(Work {
                        insn: Instruction::new(Opcode::GOTO, Operand::Jump(g as u32)),
                        via: None,
                    });
                    let skip = self.works.len() - 1;
                    self.groups[g].island.push(Node::Insn(skip));
                }
                self.groups[g]
                    .island
                    .extend([Node::Mark(anchor), Node::Insn(tramp)]);
            }
            None => self
                .end_island
                .extend([Node::Mark(anchor), Node::Insn(tramp)]),
        }
        Ok(anchor)
    }

    fn order(&self) -> Vec<Node> {
        let mut out = Vec::with_capacity(self.works.len() + self.anchor_pos.len());
        for g in &self.groups {
            out.extend_from_slice(&g.fall);
            out.extend_from_slice(&g.island);
            out.extend_from_slice(&g.before);
            out.push(Node::Insn(g.orig));
        }
        out.extend_from_slice(&self.end_island);
        out
    }

    /// The laid-out instructions with absolute targets.
    pub(super) fn instructions(&self) -> Vec<Instruction> {
        self.order()
            .into_iter()
            .filter_map(|node| match node {
                Node::Insn(w) => Some(w),
                Node::Mark(_) => None,
            })
            .map(|w| {
                let Work { insn, via } = &self.works[w];
                let mut insn = insn.clone();
                insn.map_targets(|a| self.anchor_pos[via.unwrap_or(a) as usize]);
                insn
            })
            .collect()
    }

    /// New offset for an original offset in a debug table: an instruction's landing point, the
    /// same distance into the instruction for offsets inside one, and past the end of the
    /// original code (before any trampolines) for offsets at or past its end.
    pub(super) fn map_pos(&self, offset: u32, code_length: u32) -> u32 {
        if offset >= code_length {
            return self.orig_end.saturating_add(offset - code_length);
        }
        match self.orig_offsets.binary_search(&offset) {
            Ok(i) => self.anchor_pos[i],
            Err(0) => offset,
            Err(i) => {
                let at = self.works[self.groups[i - 1].orig].insn.offset;
                at + (offset - self.orig_offsets[i - 1])
            }
        }
    }

    pub(super) fn exception_table(&self, code: &Code) -> Result<Vec<ExceptionHandler>, WriteError> {
        let islands: Vec<(u32, u32)> = (0..self.n)
            .filter(|&g| !self.groups[g].island.is_empty())
            .map(|g| (self.island_pos[g], self.anchor_pos[g]))
            .collect();
        let mut out = Vec::with_capacity(code.exception_table.len());
        for h in &code.exception_table {
            let exact = |o: u32, what: &str| {
                self.orig_index(o)
                    .map(|i| self.anchor_pos[i])
                    .ok_or_else(|| {
                        self.bad(format!(
                            "exception handler {what} {o} is not at an instruction"
                        ))
                    })
            };
            let start = exact(h.start_pc, "start")?;
            let handler = exact(h.handler_pc, "handler")?;
            let end = if h.end_pc == code.code_length {
                self.orig_end
            } else {
                exact(h.end_pc, "end")?
            };
            // Trampoline islands are left out of every protected range: their frames need not
            // agree with the handler's. Empty or inverted (invalid) ranges are kept as they are.
            let mut s = start;
            for &(a, b) in islands.iter().filter(|_| start < end) {
                if a >= end {
                    break;
                }
                if b <= s {
                    continue;
                }
                if s < a {
                    out.push(ExceptionHandler {
                        start_pc: s,
                        end_pc: a,
                        handler_pc: handler,
                        catch_type: h.catch_type,
                    });
                }
                s = b;
            }
            if s < end || start >= end {
                out.push(ExceptionHandler {
                    start_pc: s,
                    end_pc: end,
                    handler_pc: handler,
                    catch_type: h.catch_type,
                });
            }
        }
        Ok(out)
    }

    pub(super) fn local_vars(&self, vars: &[LocalVariable], code: &Code) -> Vec<LocalVariable> {
        vars.iter()
            .map(|v| {
                let mut v = *v;
                let start = v.start_pc as u32;
                let s = if start == 0 {
                    0
                } else {
                    self.map_pos(start, code.code_length)
                };
                let e = self.map_pos(start + v.length as u32, code.code_length);
                v.start_pc = s.min(MAX_CODE) as u16;
                v.length = e.saturating_sub(s).min(MAX_CODE) as u16;
                v
            })
            .collect()
    }

    /// The frame a jump to `anchor` needs.
    fn frame_of_anchor(&self, anchor: u32, ed: &CodeEditor) -> Option<FrameRef> {
        let a = anchor as usize;
        if a < self.n {
            return self.frame_at.get(&a).map(|&j| FrameRef::Copy(j));
        }
        if let Some(t) = self.tramps.iter().find(|t| t.anchor == anchor) {
            return self.frame_of_anchor(t.target, ed);
        }
        let l = (a - self.n) as u32;
        if ed.label_frames.contains_key(&l) {
            return Some(FrameRef::Label(l));
        }
        let g = (*self.label_home.get(l as usize)?)?;
        match self.frame_at.get(&g) {
            Some(&j) => Some(FrameRef::Copy(j)),
            None if g == 0 => Some(FrameRef::Initial),
            None => None,
        }
    }

    /// The new StackMapTable, or None when frames are not maintained.
    pub(super) fn frames(&self, ed: &CodeEditor) -> Result<Option<Vec<StackMapFrame>>, WriteError> {
        let Some(orig) = &self.orig_frames else {
            return Ok(None);
        };
        // (position, priority, content): originals win over copies at the same position.
        let mut list: Vec<(u32, u8, FrameRef)> = orig
            .iter()
            .enumerate()
            .map(|(j, (i, _))| (self.anchor_pos[*i], 0, FrameRef::Orig(j)))
            .collect();
        let mut targeted: Vec<u32> = self
            .works
            .iter()
            .flat_map(|w| w.insn.targets().into_iter().map(|t| w.via.unwrap_or(t)))
            .collect();
        targeted.sort_unstable();
        targeted.dedup();
        for &a in &targeted {
            if (a as usize) < self.n {
                continue; // original targets keep their original frames
            }
            let r = self.frame_of_anchor(a, ed).ok_or_else(|| {
                let home = self.tramps.iter().find(|t| t.anchor == a).map_or(a, |t| t.target);
                let g = (home as usize)
                    .checked_sub(self.n)
                    .and_then(|l| self.label_home.get(l).copied().flatten());
                match g {
                    Some(g) => self.bad(format!(
                        "a label in code inserted at offset {} is jumped to, but no stack map frame is known there (use set_label_frame)",
                        self.orig_offsets.get(g).copied().unwrap_or(0)
                    )),
                    None => self.bad(format!("jump target at new offset {} has no stack map frame", self.anchor_pos[home as usize])),
                }
            })?;
            list.push((self.anchor_pos[a as usize], 1, r));
        }
        if !self.groups.is_empty()
            && !self.groups[0].island.is_empty()
            && !self.frame_at.contains_key(&0)
        {
            list.push((self.anchor_pos[0], 1, FrameRef::Initial));
        }
        list.sort_by_key(|&(pos, prio, _)| (pos, prio));
        list.dedup_by_key(|&mut (pos, _, _)| pos);

        let initial = State::initial(ed.initial_locals.as_deref());
        let mut states: Vec<Option<State>> = Vec::with_capacity(orig.len());
        let mut prev = Some(initial.clone());
        for (_, f) in orig {
            let s = prev.as_ref().and_then(|p| p.next(f));
            states.push(s.clone());
            prev = s;
        }
        let state_of = |r: FrameRef| -> Option<State> {
            match r {
                FrameRef::Orig(j) | FrameRef::Copy(j) => states.get(j).cloned().flatten(),
                FrameRef::Initial => Some(initial.clone()),
                FrameRef::Label(l) => ed
                    .label_frames
                    .get(&l)
                    .map(|f| State::known(&f.locals, &f.stack)),
            }
        };
        let mut out = Vec::with_capacity(list.len());
        let mut prev: Option<(u32, FrameRef)> = None;
        for (pos, _, r) in list {
            let delta = match prev {
                None => pos,
                Some((p, _)) => pos - p - 1,
            } as u16;
            let keep = match (r, prev) {
                (FrameRef::Orig(0), None) => true,
                (FrameRef::Orig(j), Some((_, FrameRef::Orig(k)))) => j == k + 1,
                _ => false,
            };
            let mut frame = if let (true, FrameRef::Orig(j)) = (keep, r) {
                let mut f = orig[j].1.clone();
                f.set_offset_delta(delta);
                f
            } else {
                let cur = state_of(r);
                let before = match prev {
                    None => Some(initial.clone()),
                    Some((_, p)) => state_of(p),
                };
                cur.zip(before)
                    .and_then(|(c, b)| c.encode_after(&b, delta))
                    .ok_or_else(|| self.bad(format!(
                        "the stack map frame at new offset {pos} cannot be re-encoded without the method's initial locals (use ClassFile::edit_code or set_initial_locals)"
                    )))?
            };
            for t in frame.types_mut() {
                if let VerificationType::Uninitialized(o) = t {
                    let i = self.orig_index(*o).ok_or_else(|| {
                        self.bad(format!(
                            "stack map type Uninitialized({o}) is not at an instruction"
                        ))
                    })?;
                    *o = self.works[self.groups[i].orig].insn.offset;
                }
            }
            out.push(frame);
            prev = Some((pos, r));
        }
        Ok(Some(out))
    }
}

/// Whether a 16-bit jump at `at` reaches `target`.
fn fits(at: u32, target: u32) -> bool {
    i16::try_from(target as i64 - at as i64).is_ok()
}

/// Checks that an inserted instruction's operand matches its opcode and puts it into the form
/// whose size `Instruction::size_at` reports (wide locals, `ldc_w` for large indexes).
fn normalize(insn: &Instruction) -> Option<Instruction> {
    let mut insn = insn.clone();
    let ok = match (insn.opcode.shape()?, &mut insn.operand) {
        (OperandShape::None, Operand::None) => true,
        (OperandShape::Local, Operand::Local { index, wide }) => {
            *wide |= *index > 255;
            true
        }
        (OperandShape::Iinc, Operand::Iinc { index, delta, wide }) => {
            *wide |= *index > 255 || i8::try_from(*delta).is_err();
            true
        }
        (OperandShape::Byte, Operand::Byte(_))
        | (OperandShape::Short, Operand::Short(_))
        | (OperandShape::NewArray, Operand::NewArray(_))
        | (OperandShape::Cp2, Operand::Constant(_))
        | (OperandShape::InvokeInterface, Operand::InvokeInterface { .. })
        | (OperandShape::InvokeDynamic, Operand::InvokeDynamic(_))
        | (OperandShape::MultiANewArray, Operand::MultiANewArray { .. })
        | (OperandShape::Jump16 | OperandShape::Jump32, Operand::Jump(_))
        | (OperandShape::LookupSwitch, Operand::LookupSwitch { .. }) => true,
        (OperandShape::Cp1, Operand::Constant(i)) => {
            if i.0 > 255 {
                insn.opcode = Opcode::LDC_W;
            }
            true
        }
        (
            OperandShape::TableSwitch,
            Operand::TableSwitch {
                low, high, targets, ..
            },
        ) => *high as i64 - *low as i64 + 1 == targets.len() as i64,
        _ => false,
    };
    ok.then_some(insn)
}
