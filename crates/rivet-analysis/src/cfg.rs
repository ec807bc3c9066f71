//! Control-flow graph of one method: basic blocks, normal and exceptional edges.

use rivet_classfile::{Code, Opcode, Operand};

/// Index of a basic block within its method's CFG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

/// A maximal straight-line run of instructions (indices into `Code::instructions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub first: usize,
    /// Index of the last instruction (inclusive).
    pub last: usize,
    /// Normal successors: jump/switch targets and the fall-through, without duplicates.
    pub successors: Vec<BlockId>,
    /// Exception handlers that cover some instruction of this block.
    pub handlers: Vec<BlockId>,
    /// The block ends in a return or athrow (or `ret`): control leaves the method here.
    pub exits: bool,
}

/// The control-flow graph of a method body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cfg {
    pub blocks: Vec<Block>,
    /// Block of each instruction, by instruction index.
    pub block_of: Vec<BlockId>,
}

impl Cfg {
    /// Builds the CFG; instruction offsets and targets come from a parsed `Code`.
    pub fn build(code: &Code) -> Cfg {
        let insns = &code.instructions;
        let n = insns.len();
        let index_of = |off: u32| code.index_of(off);
        let mut leader = vec![false; n];
        if n > 0 {
            leader[0] = true;
        }
        for (i, insn) in insns.iter().enumerate() {
            let transfers = !insn.targets().is_empty()
                || insn.opcode.ends_block()
                || insn.opcode == Opcode::ATHROW;
            for t in insn.targets() {
                if let Some(j) = index_of(t) {
                    leader[j] = true;
                }
            }
            if transfers && i + 1 < n {
                leader[i + 1] = true;
            }
        }
        for h in &code.exception_table {
            if let Some(j) = index_of(h.handler_pc) {
                leader[j] = true;
            }
        }
        let mut block_of = vec![BlockId(0); n];
        let mut blocks: Vec<Block> = Vec::new();
        for i in 0..n {
            if leader[i] {
                blocks.push(Block {
                    first: i,
                    last: i,
                    successors: Vec::new(),
                    handlers: Vec::new(),
                    exits: false,
                });
            }
            let b = blocks.len() - 1;
            blocks[b].last = i;
            block_of[i] = BlockId(b as u32);
        }
        for b in 0..blocks.len() {
            let last = &insns[blocks[b].last];
            let mut succ: Vec<BlockId> = Vec::new();
            let mut add = |s: BlockId| {
                if !succ.contains(&s) {
                    succ.push(s)
                }
            };
            // Switch targets in default-then-cases order; jumps: target, then fall-through.
            for t in last.targets() {
                if let Some(j) = index_of(t) {
                    add(block_of[j]);
                }
            }
            let falls_through = !last.opcode.ends_block()
                && last.opcode != Opcode::JSR
                && last.opcode != Opcode::JSR_W;
            if last.opcode == Opcode::JSR || last.opcode == Opcode::JSR_W {
                // The subroutine returns to the next instruction via `ret`; model it as a fall-through too.
                if blocks[b].last + 1 < n {
                    add(block_of[blocks[b].last + 1]);
                }
            } else if falls_through && blocks[b].last + 1 < n {
                add(block_of[blocks[b].last + 1]);
            }
            blocks[b].successors = succ;
            blocks[b].exits = last.opcode.is_return()
                || last.opcode == Opcode::ATHROW
                || last.opcode == Opcode::RET;
            let (lo, hi) = (insns[blocks[b].first].offset, last.offset);
            let mut handlers = Vec::new();
            for h in &code.exception_table {
                if h.start_pc <= hi && lo < h.end_pc {
                    if let Some(j) = index_of(h.handler_pc) {
                        let hb = block_of[j];
                        if !handlers.contains(&hb) {
                            handlers.push(hb);
                        }
                    }
                }
            }
            blocks[b].handlers = handlers;
        }
        Cfg { blocks, block_of }
    }

    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Predecessors over normal and exceptional edges.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (b, block) in self.blocks.iter().enumerate() {
            for s in block.successors.iter().chain(&block.handlers) {
                if !preds[s.0 as usize].contains(&BlockId(b as u32)) {
                    preds[s.0 as usize].push(BlockId(b as u32));
                }
            }
        }
        preds
    }
}

/// The jump target offsets of an instruction operand (helper for switch case listing).
pub fn switch_cases(operand: &Operand) -> Option<(u32, Vec<(i32, u32)>)> {
    match operand {
        Operand::TableSwitch {
            default,
            low,
            targets,
            ..
        } => Some((
            *default,
            targets
                .iter()
                .enumerate()
                .map(|(i, t)| (low.wrapping_add(i as i32), *t))
                .collect(),
        )),
        Operand::LookupSwitch { default, pairs } => Some((*default, pairs.clone())),
        _ => None,
    }
}
