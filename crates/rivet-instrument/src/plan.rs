//! What to instrument in one class: its branches (from `rivet-analysis`, as JaCoCo counts them)
//! and the instructions that get probes ("sites"): each branching instruction, and every
//! duplicate (javac's copies of `finally` code) whose outcomes count as its branches.

use std::collections::HashSet;

use rivet_analysis::{analyze_class, Branch, BranchId, BranchKind, ProbePoint};
use rivet_classfile::{ClassFile, Code, Opcode, Operand};

use crate::error::InstrumentError;

/// The instrumentation plan of one class.
#[derive(Debug, Clone)]
pub struct ClassPlan {
    pub class: rivet_classfile::ClassName,
    /// Methods with at least one branch, in declaration order.
    pub methods: Vec<MethodPlan>,
    /// Number of branches (class-local ids `0..branch_count`).
    pub branch_count: u32,
    /// Number of switch tables (class-local switch indexes `0..switch_count`): the branch
    /// switch sites, then the switches with JaCoCo points.
    pub switch_count: u32,
    /// Number of JaCoCo points (class-local point indexes `0..point_count`; their probe ids
    /// follow the class's branch probes).
    pub point_count: u32,
}

/// The branches and probe sites of one method.
#[derive(Debug, Clone)]
pub struct MethodPlan {
    /// Index into `ClassFile::methods`.
    pub index: usize,
    pub name: String,
    pub descriptor: String,
    /// The method's branches, in id order.
    pub branches: Vec<Branch>,
    /// Instructions that get a probe, in bytecode order.
    pub sites: Vec<Site>,
    /// JaCoCo's probes of the method (see [`rivet_analysis::MethodProbes`]); the i-th has the
    /// class-local point index `point_base + i`. Empty when not emulated.
    pub points: Vec<ProbePoint>,
    pub point_base: u32,
    /// The switches whose targets have points, with their tables.
    pub point_switches: Vec<PointSwitch>,
}

/// A switch with JaCoCo points on some of its targets: before it, the runtime records the
/// point of the target its key selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointSwitch {
    pub offset: u32,
    /// Class-local switch index.
    pub switch: u32,
    /// Class-local point of the default target, if it has one.
    pub default: Option<u32>,
    /// Every key that does not go to the default target, ascending, with its target's point.
    pub keys: Vec<(i32, Option<u32>)>,
}

/// An instruction that gets a probe call inserted before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Offset of the conditional jump or switch in the original code.
    pub offset: u32,
    pub kind: SiteKind,
}

/// What the probe at a site reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SiteKind {
    /// A conditional jump; `taken` is its True branch, `taken + 1` its False branch.
    Jump {
        taken: BranchId,
        /// Offset of the `lcmp`/`fcmpl`/`fcmpg`/`dcmpl`/`dcmpg` right before the jump, when the
        /// jump consumes its result (the compare is replaced so that the operands are seen).
        compare: Option<u32>,
    },
    /// A `tableswitch`/`lookupswitch`.
    Switch {
        /// Class-local switch index.
        switch: u32,
        /// The branch of the default target.
        default: BranchId,
        /// Every case key that does not go to the default target, with its branch.
        keys: Vec<(i32, BranchId)>,
    },
}

impl ClassPlan {
    /// True when the class has no branch to probe.
    pub fn is_empty(&self) -> bool {
        self.branch_count == 0
    }
}

/// Analyses a class and plans its probes. Methods JaCoCo skips, and instructions its filters
/// ignore, get none.
pub fn plan_class(cf: &ClassFile) -> Result<ClassPlan, InstrumentError> {
    let class = cf
        .name()
        .map(rivet_classfile::ClassName::from_internal)
        .map_err(|source| InstrumentError::Parse {
            class: None,
            source: Box::new(source),
        })?;
    let analysis = analyze_class(cf).map_err(|source| InstrumentError::Analysis {
        class: class.clone(),
        source: Box::new(source),
    })?;
    let branch_count = u32::try_from(analysis.branch_count()).unwrap_or(u32::MAX);
    let mut methods = Vec::new();
    let mut switches = 0u32;
    let mut points = 0u32;
    for m in analysis.methods {
        if m.branches.is_empty() {
            continue;
        }
        let Some(code) = cf.methods.get(m.index).and_then(|mm| mm.code()) else {
            continue;
        };
        let sites = method_sites(code, &m.branches, &mut switches);
        let mut method_points = m.probes.map(|p| p.points).unwrap_or_default();
        let mut branches = m.branches;
        // A method near the JVM's 64 KiB code limit keeps its branch probes only: its branches
        // count as covered when taken (JaCoCo's points would not fit).
        let estimate = code.code_length as usize + 16 * (sites.len() + method_points.len());
        if estimate > POINTS_CODE_LIMIT {
            method_points.clear();
            for b in &mut branches {
                b.confirmed_by = None;
            }
        }
        let point_base = points;
        points += method_points.len() as u32;
        methods.push(MethodPlan {
            index: m.index,
            name: m.name,
            descriptor: m.descriptor,
            branches,
            sites,
            points: method_points,
            point_base,
            point_switches: Vec::new(),
        });
    }
    for m in &mut methods {
        let Some(code) = cf.methods.get(m.index).and_then(|mm| mm.code()) else {
            continue;
        };
        m.point_switches = point_switches(code, &m.points, m.point_base, &mut switches);
    }
    Ok(ClassPlan {
        class,
        methods,
        branch_count,
        switch_count: switches,
        point_count: points,
    })
}

/// Above this estimated instrumented size (original code plus 16 bytes per probe site and
/// point) a method gets no JaCoCo points.
const POINTS_CODE_LIMIT: usize = 60_000;

/// Offsets that control reaches other than by falling through: jump and switch targets and
/// exception handlers.
fn entered_by_jump(code: &Code) -> HashSet<u32> {
    let mut set: HashSet<u32> = code.instructions.iter().flat_map(|i| i.targets()).collect();
    set.extend(code.exception_table.iter().map(|h| h.handler_pc));
    set
}

fn is_compare(op: Opcode) -> bool {
    (Opcode::LCMP.0..=Opcode::DCMPG.0).contains(&op.0)
}

fn method_sites(code: &Code, branches: &[Branch], switches: &mut u32) -> Vec<Site> {
    let jumped_to = entered_by_jump(code);
    // The `xcmp` whose result the `ifXX` at instruction index `i` consumes, if any.
    let compare_before = |i: usize| -> Option<u32> {
        let insn = &code.instructions[i];
        let zero_compare = (Opcode::IFEQ.0..=Opcode::IFLE.0).contains(&insn.opcode.0);
        let prev = code.instructions.get(i.checked_sub(1)?)?;
        (zero_compare && is_compare(prev.opcode) && !jumped_to.contains(&insn.offset))
            .then_some(prev.offset)
    };
    let mut sites = Vec::new();
    for group in branches.chunk_by(|a, b| a.insn == b.insn) {
        let insn = group[0].insn;
        let Some(rep) = code.instructions.get(insn) else {
            continue;
        };
        let mut offsets = vec![(insn, rep)];
        for &d in &group[0].duplicates {
            if let Some(di) = code.index_of(d) {
                if code.instructions[di].opcode == rep.opcode {
                    offsets.push((di, &code.instructions[di]));
                }
            }
        }
        if rep.opcode.is_conditional_jump() {
            let ok = group.len() == 2
                && group[0].kind == BranchKind::True
                && group[1].kind == BranchKind::False
                && group[1].id.0 == group[0].id.0 + 1;
            if !ok {
                tracing::debug!(
                    offset = rep.offset,
                    "unexpected branches of a jump; no probe"
                );
                continue;
            }
            for (i, x) in offsets {
                sites.push(Site {
                    offset: x.offset,
                    kind: SiteKind::Jump {
                        taken: group[0].id,
                        compare: compare_before(i),
                    },
                });
            }
        } else if rep.opcode.is_switch() {
            if group.first().map(|b| &b.kind) != Some(&BranchKind::Default) {
                continue;
            }
            for (_, x) in offsets {
                let Some(keys) = switch_keys(&x.operand, group) else {
                    tracing::debug!(offset = x.offset, "switch copy differs; no probe");
                    continue;
                };
                sites.push(Site {
                    offset: x.offset,
                    kind: SiteKind::Switch {
                        switch: *switches,
                        default: group[0].id,
                        keys,
                    },
                });
                *switches += 1;
            }
        }
    }
    sites.sort_by_key(|s| s.offset);
    sites
}

/// The (key, branch) pairs of a switch whose branches are `group` (default first, then the
/// distinct case targets in order of first appearance, as JaCoCo numbers a switch's edges).
/// For a duplicate switch the n-th distinct target counts as the n-th branch. None when the
/// switch has more distinct targets than `group`.
fn switch_keys(operand: &Operand, group: &[Branch]) -> Option<Vec<(i32, BranchId)>> {
    let (default, cases) = rivet_analysis::cfg::switch_cases(operand)?;
    let mut targets = vec![default];
    let mut keys = Vec::with_capacity(cases.len());
    for (key, t) in cases {
        let n = match targets.iter().position(|&x| x == t) {
            Some(n) => n,
            None => {
                targets.push(t);
                targets.len() - 1
            }
        };
        if n > 0 {
            keys.push((key, group.get(n)?.id));
        }
    }
    keys.sort_unstable();
    Some(keys)
}

/// The tables of the switches among `points`' switch targets, numbered from `*switches` on.
fn point_switches(
    code: &Code,
    points: &[ProbePoint],
    point_base: u32,
    switches: &mut u32,
) -> Vec<PointSwitch> {
    let mut by_switch: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
    for (i, p) in points.iter().enumerate() {
        if let ProbePoint::SwitchTarget { offset, target } = p {
            let point = point_base + i as u32;
            match by_switch.iter_mut().find(|(o, _)| o == offset) {
                Some((_, list)) => list.push((*target, point)),
                None => by_switch.push((*offset, vec![(*target, point)])),
            }
        }
    }
    let mut out = Vec::with_capacity(by_switch.len());
    for (offset, targets) in by_switch {
        let Some(x) = code.index_of(offset).map(|i| &code.instructions[i]) else {
            continue;
        };
        let Some((default, cases)) = rivet_analysis::cfg::switch_cases(&x.operand) else {
            continue;
        };
        let point_of = |t: u32| targets.iter().find(|(tt, _)| *tt == t).map(|(_, p)| *p);
        let mut keys: Vec<(i32, Option<u32>)> = cases
            .into_iter()
            .filter(|(_, t)| *t != default)
            .map(|(k, t)| (k, point_of(t)))
            .collect();
        keys.sort_unstable();
        out.push(PointSwitch {
            offset,
            switch: *switches,
            default: point_of(default),
            keys,
        });
        *switches += 1;
    }
    out
}
