//! Where JaCoCo 0.8.6 puts its coverage probes in a method, and which probes confirm each
//! branch outcome (docs/jacoco-branch-counting.md §8).
//!
//! JaCoCo does not record branches directly: it records probes (before returns and throws,
//! on jumps to code with several entries, on fall-through into such code and into lines with
//! method calls) and, at report time, marks an instruction covered when a probe after it in a
//! chain of single-predecessor instructions ran. A branch outcome is covered when such a
//! chain through it reached an executed probe; an outcome whose code threw before the next
//! probe does not count. Emulating that placement and propagation lets Rivet's report count
//! exactly what JaCoCo counts on the same tests.

use std::collections::{HashMap, HashSet};

use rivet_classfile::{Code, Opcode};

use crate::cfg::switch_cases;

/// A probe JaCoCo would insert, by what makes it run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProbePoint {
    /// Runs on every entry to the instruction at `offset` (a return, an `athrow`, or a `goto`
    /// to code with several entries), before it.
    Before { offset: u32 },
    /// Runs when control falls through into the instruction at `offset`, not when it is jumped to.
    Fallthrough { offset: u32 },
    /// Runs when the conditional jump at `offset` is taken.
    Taken { offset: u32 },
    /// Runs when the switch at `offset` goes to `target`.
    SwitchTarget { offset: u32, target: u32 },
}

/// The probes of one method and, per instruction and JaCoCo branch index, the probes whose
/// execution covers that outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodProbes {
    /// Method-local probe indices are positions in this list.
    pub points: Vec<ProbePoint>,
    reach: HashMap<(usize, u32), Vec<u32>>,
}

#[derive(Debug, Clone, Copy, Default)]
struct LabelInfo {
    target: bool,
    successor: bool,
    multi_target: bool,
    method_invocation_line: bool,
}

impl LabelInfo {
    fn set_target(&mut self) {
        if self.target || self.successor {
            self.multi_target = true;
        } else {
            self.target = true;
        }
    }

    fn set_successor(&mut self) {
        self.successor = true;
        if self.target {
            self.multi_target = true;
        }
    }

    fn needs_probe(&self) -> bool {
        self.successor && (self.multi_target || self.method_invocation_line)
    }
}

fn is_invoke(op: Opcode) -> bool {
    (Opcode::INVOKEVIRTUAL.0..=Opcode::INVOKEDYNAMIC.0).contains(&op.0)
}

/// Distinct targets of a switch in JaCoCo's branch order: the default, then case targets in
/// the order of the case table, each once.
fn switch_targets(code: &Code, i: usize) -> Vec<u32> {
    let Some((default, cases)) = switch_cases(&code.instructions[i].operand) else {
        return Vec::new();
    };
    let mut out = vec![default];
    for (_, t) in cases {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

impl MethodProbes {
    /// Emulates JaCoCo's label analysis, probe insertion and instruction graph for `code`,
    /// whose ASM labels sit at `labels` (see [`crate::filter::RawCode`]). None for code JaCoCo
    /// would first rewrite (subroutines: `jsr`/`ret`).
    pub fn compute(code: &Code, labels: &HashSet<u32>) -> Option<MethodProbes> {
        let insns = &code.instructions;
        if insns
            .iter()
            .any(|x| matches!(x.opcode, Opcode::JSR | Opcode::JSR_W | Opcode::RET))
        {
            return None;
        }
        let info = label_flow(code, labels);
        let flags = |offset: u32| info.get(&offset).copied().unwrap_or_default();
        let mut points = Vec::new();
        // The probe each point stands for is attached to (instruction, JaCoCo branch index).
        let mut attached: Vec<(usize, u32)> = Vec::new();
        let mut pred: Vec<Option<(usize, u32)>> = vec![None; insns.len()];
        let mut jumps: Vec<(usize, u32, u32)> = Vec::new();
        let mut current: Option<usize> = None;
        let mut add = |p: ProbePoint, at: (usize, u32), points: &mut Vec<_>| {
            points.push(p);
            attached.push(at);
        };
        for (i, x) in insns.iter().enumerate() {
            if labels.contains(&x.offset) {
                let l = flags(x.offset);
                if l.needs_probe() {
                    if let Some(c) = current {
                        add(
                            ProbePoint::Fallthrough { offset: x.offset },
                            (c, 0),
                            &mut points,
                        );
                    }
                    current = None;
                }
                if !l.successor {
                    current = None;
                }
            }
            if let Some(c) = current {
                pred[i] = Some((c, 0));
            }
            current = Some(i);
            let op = x.opcode;
            if op.is_return() || op == Opcode::ATHROW {
                add(ProbePoint::Before { offset: x.offset }, (i, 0), &mut points);
            } else if op.is_goto() || op.is_conditional_jump() {
                let target = x.targets()[0];
                if flags(target).multi_target {
                    let p = if op.is_goto() {
                        ProbePoint::Before { offset: x.offset }
                    } else {
                        ProbePoint::Taken { offset: x.offset }
                    };
                    add(p, (i, 1), &mut points);
                } else {
                    jumps.push((i, target, 1));
                }
            } else if op.is_switch() {
                for (branch, target) in switch_targets(code, i).into_iter().enumerate() {
                    let branch = branch as u32;
                    if flags(target).multi_target {
                        let p = ProbePoint::SwitchTarget {
                            offset: x.offset,
                            target,
                        };
                        add(p, (i, branch), &mut points);
                    } else {
                        jumps.push((i, target, branch));
                    }
                }
            }
        }
        for (src, target, branch) in jumps {
            if let Some(t) = code.index_of(target) {
                pred[t] = Some((src, branch));
            }
        }
        let mut reach: HashMap<(usize, u32), Vec<u32>> = HashMap::new();
        for (p, &(insn, branch)) in attached.iter().enumerate() {
            let p = p as u32;
            let mut cur = Some((insn, branch));
            while let Some(at) = cur {
                let list = reach.entry(at).or_default();
                if list.last() == Some(&p) {
                    break; // a cycle of dead code
                }
                list.push(p);
                cur = pred[at.0];
            }
        }
        Some(MethodProbes { points, reach })
    }

    /// The probes (method-local indices, ascending) whose execution covers JaCoCo branch
    /// `branch` of instruction `insn` (for a conditional jump 1 is taken, 0 falls through; for
    /// a switch 0 is the default target, then the distinct case targets in table order).
    pub fn confirming(&self, insn: usize, branch: u32) -> &[u32] {
        self.reach.get(&(insn, branch)).map_or(&[], Vec::as_slice)
    }
}

/// JaCoCo's `LabelFlowAnalyzer`: which labels are jump targets, successors of the previous
/// instruction, targets of several entries, or starts of lines that call a method.
fn label_flow(code: &Code, labels: &HashSet<u32>) -> HashMap<u32, LabelInfo> {
    let mut info: HashMap<u32, LabelInfo> = HashMap::new();
    for h in code.exception_table.iter().rev() {
        info.entry(h.start_pc).or_default().set_target();
        info.entry(h.handler_pc).or_default().set_target();
    }
    let line_starts: HashSet<u32> = code.line_numbers().map(|l| l.start_pc as u32).collect();
    let (mut successor, mut first) = (false, true);
    let mut line_start: Option<u32> = None;
    for (i, x) in code.instructions.iter().enumerate() {
        if labels.contains(&x.offset) {
            let l = info.entry(x.offset).or_default();
            if first {
                l.set_target();
            }
            if successor {
                l.set_successor();
            }
        }
        if line_starts.contains(&x.offset) {
            line_start = Some(x.offset);
        }
        let op = x.opcode;
        first = false;
        successor = !(op.is_goto() || op.is_switch() || op.is_return() || op == Opcode::ATHROW);
        if op.is_goto() || op.is_conditional_jump() {
            info.entry(x.targets()[0]).or_default().set_target();
        } else if op.is_switch() {
            for t in switch_targets(code, i) {
                info.entry(t).or_default().set_target();
            }
        } else if is_invoke(op) {
            if let Some(l) = line_start {
                info.entry(l).or_default().method_invocation_line = true;
            }
        }
    }
    info
}
