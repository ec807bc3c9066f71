//! Guidance through calls (EvoSuite's "callee branches"): the calls a method makes to methods of
//! its own class, the branches of a method from which it can still return normally
//! ("continuing" branches: the others can only end in a throw), and for each branch the
//! continuing branches of the methods called on every path to it and of those called after
//! it, followed a few calls deep. A search can measure how far a run got inside those callees
//! when one of them threw before the branch was reached, or after it was taken but before
//! JaCoCo's next probe confirmed it. A run counts per probe, not per call, so each callee also
//! names the methods that reach it other than through the branch's method: a test that calls
//! one of those runs the callee outside the branch's path, and its counts say nothing.

use std::collections::{BTreeMap, BTreeSet};

use rivet_classfile::{ClassFile, Code, Opcode, Operand};

use crate::cfg::{BlockId, Cfg};
use crate::dominance::Dominators;
use crate::{BranchId, ClassAnalysis, MethodAnalysis};

/// How many calls deep [`ClassAnalysis::callee_guidance`] follows callees of callees.
pub const CALLEE_DEPTH: usize = 3;

/// A call of a method of the same class (with code in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSite {
    /// Index of the invoke instruction in the caller's `Code::instructions`.
    pub insn: usize,
    /// The callee, as an index into [`ClassAnalysis::methods`].
    pub callee: usize,
}

/// The callees that guide one branch, by method index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BranchCallees {
    /// The methods called on every path to the branch (call sites that dominate its
    /// instruction) and what they call.
    pub before: Vec<CalleeOutcomes>,
    /// The methods called after the branch's outcome (call sites its target dominates) and
    /// what they call.
    pub after: Vec<CalleeOutcomes>,
}

/// One callee guiding a branch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CalleeOutcomes {
    /// The callee, as an index into [`ClassAnalysis::methods`].
    pub method: usize,
    /// Its continuing branches, ascending.
    pub continuing: Vec<BranchId>,
    /// The methods of the class (indices, ascending; the callee itself included) that reach
    /// the callee by calls without passing through the branch's method.
    pub entries: Vec<usize>,
}

/// What one method offers to the guidance of its callers and of its own branches.
#[derive(Debug, Clone, Default)]
struct MethodCalls {
    calls: Vec<CallSite>,
    /// Per call of `calls`: can the method still return normally after it?
    continuing_calls: Vec<bool>,
    /// Its branches from whose target a normal return is reachable.
    continuing: Vec<BranchId>,
    dominators: Option<Dominators>,
}

impl ClassAnalysis {
    /// The calls `m` makes to methods of its class (invokestatic, invokespecial,
    /// invokevirtual and invokeinterface whose owner is the class and whose name and
    /// descriptor are a method with code here), in code order. `cf` is the analysed class.
    pub fn call_sites(&self, cf: &ClassFile, m: &MethodAnalysis) -> Vec<CallSite> {
        let Some(code) = cf.methods.get(m.index).and_then(|x| x.code()) else {
            return Vec::new();
        };
        let Ok(own) = cf.name() else {
            return Vec::new();
        };
        let cp = &cf.constant_pool;
        let mut out = Vec::new();
        for (insn, i) in code.instructions.iter().enumerate() {
            let index = match (&i.opcode, &i.operand) {
                (
                    &(Opcode::INVOKESTATIC | Opcode::INVOKESPECIAL | Opcode::INVOKEVIRTUAL),
                    Operand::Constant(index),
                ) => *index,
                (&Opcode::INVOKEINTERFACE, Operand::InvokeInterface { index, .. }) => *index,
                _ => continue,
            };
            let Ok(r) = cp.member_ref(index) else {
                continue;
            };
            if r.owner != own {
                continue;
            }
            let callee = self
                .methods
                .iter()
                .position(|c| c.name == r.name && c.descriptor == r.descriptor);
            if let Some(callee) = callee {
                out.push(CallSite { insn, callee });
            }
        }
        out
    }

    /// The branches of `m` from whose target `m` can still return normally (a return is
    /// reachable over normal and exceptional edges); the others can only end in a throw.
    pub fn continuing_branches(&self, cf: &ClassFile, m: &MethodAnalysis) -> Vec<BranchId> {
        let Some(code) = cf.methods.get(m.index).and_then(|x| x.code()) else {
            return Vec::new();
        };
        let returns = reaching_return(code, &m.cfg);
        m.branches
            .iter()
            .filter(|b| {
                code.index_of(b.target)
                    .is_some_and(|i| returns[m.cfg.block_of[i].0 as usize])
            })
            .map(|b| b.id)
            .collect()
    }

    /// Per branch: the methods its method calls on every path to it (call sites that dominate
    /// the branch's instruction) and after it (call sites the branch's target dominates), each
    /// with what they call before they can return, up to [`CALLEE_DEPTH`] calls deep, and the
    /// continuing branches of each (see [`ClassAnalysis::continuing_branches`]); callees
    /// without continuing branches and recursive calls of the branch's own method are left
    /// out. Branches with no callee are absent.
    pub fn callee_guidance(&self, cf: &ClassFile) -> BTreeMap<BranchId, BranchCallees> {
        let methods: Vec<MethodCalls> = self
            .methods
            .iter()
            .map(|m| self.method_calls(cf, m))
            .collect();
        let mut callers: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); methods.len()];
        for (g, mc) in methods.iter().enumerate() {
            for c in &mc.calls {
                if let Some(x) = callers.get_mut(c.callee) {
                    x.insert(g);
                }
            }
        }
        let mut entries: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
        let mut outcomes = |caller: usize, callees: Vec<usize>| -> Vec<CalleeOutcomes> {
            callees
                .into_iter()
                .filter_map(|f| {
                    let continuing = methods.get(f)?.continuing.clone();
                    (!continuing.is_empty()).then(|| CalleeOutcomes {
                        method: f,
                        continuing,
                        entries: entries
                            .entry((caller, f))
                            .or_insert_with(|| reaching_without(&callers, f, caller))
                            .clone(),
                    })
                })
                .collect()
        };
        let mut out = BTreeMap::new();
        for (mi, m) in self.methods.iter().enumerate() {
            let calls = &methods[mi];
            let Some(dom) = &calls.dominators else {
                continue;
            };
            let Some(code) = cf.methods.get(m.index).and_then(|x| x.code()) else {
                continue;
            };
            // Does the instruction `a` dominate the instruction `b` (both in this method)?
            let dominates = |a: usize, b: usize| {
                let (ba, bb) = (m.cfg.block_of[a], m.cfg.block_of[b]);
                if ba == bb {
                    a <= b
                } else {
                    dom.dominates(ba, bb)
                }
            };
            let others = || calls.calls.iter().filter(|c| c.callee != mi);
            for b in &m.branches {
                let before = others()
                    .filter(|c| c.insn != b.insn && dominates(c.insn, b.insn))
                    .map(|c| c.callee)
                    .collect();
                let after = match code.index_of(b.target) {
                    Some(t) => others()
                        .filter(|c| dominates(t, c.insn))
                        .map(|c| c.callee)
                        .collect(),
                    None => BTreeSet::new(),
                };
                let guidance = BranchCallees {
                    before: outcomes(mi, follow(&methods, mi, before)),
                    after: outcomes(mi, follow(&methods, mi, after)),
                };
                if !guidance.before.is_empty() || !guidance.after.is_empty() {
                    out.insert(b.id, guidance);
                }
            }
        }
        out
    }

    fn method_calls(&self, cf: &ClassFile, m: &MethodAnalysis) -> MethodCalls {
        let Some(code) = cf.methods.get(m.index).and_then(|x| x.code()) else {
            return MethodCalls::default();
        };
        let calls = self.call_sites(cf, m);
        let returns = reaching_return(code, &m.cfg);
        MethodCalls {
            continuing_calls: calls
                .iter()
                .map(|c| returns[m.cfg.block_of[c.insn].0 as usize])
                .collect(),
            calls,
            continuing: self.continuing_branches(cf, m),
            dominators: Some(Dominators::compute(&m.cfg)),
        }
    }
}

/// `direct` and what they call on their way to a normal return, breadth first up to
/// [`CALLEE_DEPTH`] calls deep, never into `caller` again; ascending.
fn follow(methods: &[MethodCalls], caller: usize, direct: BTreeSet<usize>) -> Vec<usize> {
    let mut seen: BTreeSet<usize> = direct.clone();
    let mut frontier = direct;
    for _ in 1..CALLEE_DEPTH {
        let mut next = BTreeSet::new();
        for &f in &frontier {
            let Some(mc) = methods.get(f) else { continue };
            for (c, &goes_on) in mc.calls.iter().zip(&mc.continuing_calls) {
                if goes_on && c.callee != caller && seen.insert(c.callee) {
                    next.insert(c.callee);
                }
            }
        }
        frontier = next;
    }
    seen.into_iter().collect()
}

/// The methods that reach `callee` by calls (itself included) without passing through
/// `caller`; `callers[f]` are the methods with a call of `f`. Ascending.
fn reaching_without(callers: &[BTreeSet<usize>], callee: usize, caller: usize) -> Vec<usize> {
    let mut seen: BTreeSet<usize> = BTreeSet::from([callee]);
    let mut stack = vec![callee];
    while let Some(f) = stack.pop() {
        for &g in callers.get(f).into_iter().flatten() {
            if g != caller && seen.insert(g) {
                stack.push(g);
            }
        }
    }
    seen.into_iter().collect()
}

/// Per block: can control reach a normal return from it (over normal and exceptional edges)?
fn reaching_return(code: &Code, cfg: &Cfg) -> Vec<bool> {
    let preds = cfg.predecessors();
    let mut seen = vec![false; cfg.len()];
    let mut stack: Vec<BlockId> = Vec::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        let returns = code
            .instructions
            .get(block.last)
            .is_some_and(|i| i.opcode.is_return());
        if returns {
            seen[b] = true;
            stack.push(BlockId(b as u32));
        }
    }
    while let Some(b) = stack.pop() {
        for p in &preds[b.0 as usize] {
            if !seen[p.0 as usize] {
                seen[p.0 as usize] = true;
                stack.push(*p);
            }
        }
    }
    seen
}
