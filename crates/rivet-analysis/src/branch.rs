//! Numbered branches of a method (as JaCoCo counts them), their source lines and control dependence.

use crate::cfg::{switch_cases, BlockId, Cfg};
use crate::dominance::PostDominators;
use crate::filter::FilterOutput;
use rivet_classfile::Code;
use std::fmt;

/// A branch id, unique within its class (numbered in method order, then bytecode order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BranchId(pub u32);

impl fmt::Display for BranchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Which outcome of its instruction a branch is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchKind {
    /// The conditional jump is taken (its bytecode condition holds).
    True,
    /// The conditional jump falls through.
    False,
    /// A switch target reached by these case keys (ascending).
    Case(Vec<i32>),
    /// The switch default target (keys that share it are folded in).
    Default,
}

impl fmt::Display for BranchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BranchKind::True => f.write_str("true"),
            BranchKind::False => f.write_str("false"),
            BranchKind::Default => f.write_str("default"),
            BranchKind::Case(keys) => {
                f.write_str("case ")?;
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{k}")?;
                }
                Ok(())
            }
        }
    }
}

/// One branch: an outcome of a conditional jump or a distinct switch target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    pub id: BranchId,
    /// Index of the branching instruction in `Code::instructions`.
    pub insn: usize,
    /// Bytecode offset of the branching instruction.
    pub offset: u32,
    pub kind: BranchKind,
    /// Offset of the instruction control goes to when this branch is taken.
    pub target: u32,
    /// Source line of the branching instruction, if the class has a LineNumberTable.
    pub line: Option<u16>,
    /// Offsets of duplicate instructions (javac's copies of finally blocks) whose outcome counts as this branch.
    pub duplicates: Vec<u32>,
    /// Branches this one is control dependent on (via its block), for the approach level.
    pub controlling: Vec<BranchId>,
    /// The method's JaCoCo probes (indices into [`crate::MethodAnalysis::probes`]) whose
    /// execution makes JaCoCo count this branch covered, over the instruction and its
    /// duplicates; None when the method's probes are not emulated.
    pub confirmed_by: Option<Vec<u32>>,
}

/// The source line of the instruction at `offset`.
pub fn line_of(code: &Code, offset: u32) -> Option<u16> {
    code.line_numbers()
        .filter(|l| (l.start_pc as u32) <= offset)
        .max_by_key(|l| l.start_pc)
        .map(|l| l.line)
}

/// Enumerates the branches of a method, after filtering, numbering them from `first_id`.
pub fn enumerate(
    code: &Code,
    cfg: &Cfg,
    postdom: &PostDominators,
    filter: &FilterOutput,
    first_id: u32,
) -> Vec<Branch> {
    let mut out: Vec<Branch> = Vec::new();
    let mut next = first_id;
    let mut push = |insn: usize, kind: BranchKind, target: u32, out: &mut Vec<Branch>| {
        let offset = code.instructions[insn].offset;
        out.push(Branch {
            id: BranchId(next),
            insn,
            offset,
            kind,
            target,
            line: line_of(code, offset),
            duplicates: Vec::new(),
            controlling: Vec::new(),
            confirmed_by: None,
        });
        next += 1;
    };
    for (i, insn) in code.instructions.iter().enumerate() {
        if filter.ignored.contains(&i) || filter.merged_into.contains_key(&i) {
            continue;
        }
        if insn.opcode.is_conditional_jump() {
            let fall = code
                .instructions
                .get(i + 1)
                .map(|n| n.offset)
                .unwrap_or(code.code_length);
            push(i, BranchKind::True, insn.targets()[0], &mut out);
            push(i, BranchKind::False, fall, &mut out);
        } else if let Some((default, cases)) = switch_cases(&insn.operand) {
            // Distinct targets, in the order JaCoCo visits them: default first, then cases.
            let mut groups: Vec<(u32, Vec<i32>)> = vec![(default, Vec::new())];
            for (key, t) in cases {
                match groups.iter_mut().find(|g| g.0 == t) {
                    Some(g) => g.1.push(key),
                    None => groups.push((t, vec![key])),
                }
            }
            for (gi, (t, mut keys)) in groups.into_iter().enumerate() {
                keys.sort_unstable();
                let kind = if gi == 0 {
                    BranchKind::Default
                } else {
                    BranchKind::Case(keys)
                };
                push(i, kind, t, &mut out);
            }
        }
    }
    for (dup, rep) in &filter.merged_into {
        let dup_off = code.instructions[*dup].offset;
        for b in out.iter_mut().filter(|b| b.insn == *rep) {
            b.duplicates.push(dup_off);
        }
    }
    for b in &mut out {
        b.duplicates.sort_unstable();
    }
    control_dependence(code, cfg, postdom, &mut out);
    out
}

/// Fills `confirmed_by` from the method's emulated JaCoCo probes: a branch is the JaCoCo
/// branch index of its instruction (a jump's True is 1, its False 0; a switch's targets count
/// from 0 in branch order), and its copies' probes count too.
pub fn confirm(code: &Code, probes: &crate::probes::MethodProbes, branches: &mut [Branch]) {
    for group in branches.chunk_by_mut(|a, b| a.insn == b.insn) {
        let insn = group[0].insn;
        for (gi, b) in group.iter_mut().enumerate() {
            let index = match b.kind {
                BranchKind::True => 1,
                BranchKind::False => 0,
                _ => gi as u32,
            };
            let copies =
                std::iter::once(insn).chain(b.duplicates.iter().filter_map(|&d| code.index_of(d)));
            let mut set: Vec<u32> = copies
                .flat_map(|i| probes.confirming(i, index).iter().copied())
                .collect();
            set.sort_unstable();
            set.dedup();
            b.confirmed_by = Some(set);
        }
    }
}

/// Fills `controlling`: block X is control dependent on branch (A → S) when X lies on the
/// post-dominator-tree path from S up to, but excluding, ipdom(A).
fn control_dependence(code: &Code, cfg: &Cfg, postdom: &PostDominators, branches: &mut [Branch]) {
    let mut controls: Vec<Vec<crate::BranchId>> = vec![Vec::new(); cfg.len()];
    for b in branches.iter() {
        let a = cfg.block_of[b.insn];
        let Some(s_idx) = code.index_of(b.target) else {
            continue;
        };
        let s = cfg.block_of[s_idx];
        let stop = postdom.ipdom(a);
        let mut cur = Some(s.0);
        while let Some(x) = cur {
            if Some(x) == stop || x == postdom.exit() {
                break;
            }
            if !controls[x as usize].contains(&b.id) {
                controls[x as usize].push(b.id);
            }
            cur = postdom.ipdom_of_node(x);
        }
    }
    for b in branches.iter_mut() {
        let BlockId(blk) = cfg.block_of[b.insn];
        b.controlling = controls[blk as usize].clone();
        b.controlling.sort_unstable();
    }
}
