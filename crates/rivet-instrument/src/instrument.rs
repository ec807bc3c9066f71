//! Instruments one class: a probe call before every planned conditional jump and switch,
//! compare instructions replaced by the runtime's (so that the operands are seen), and calls
//! of `System.exit`, `Runtime.exit` and `Runtime.halt` sent to the runtime's `Exits`.
//!
//! Probe code goes in with [`CodeEditor::insert_before`], so it runs on every entry to the
//! branching instruction (jumps and handlers that targeted it land on the probe code, and so
//! does its stack-map frame). It is stack-neutral: it duplicates the operands the branch
//! consumes, adds constants and calls a static method that consumes them all, so the frame
//! of the branching instruction holds for the probe code too; `max_stack` grows by 4 (the
//! most any probe pushes on top of the operands).
//!
//! ```text
//! ifXX L        ->  dup; iconst_0; sipush op; ldc probe; invokestatic Probes.jump(IIII)V; ifXX L
//! if_icmpXX L   ->  dup2; sipush op; ldc probe; invokestatic Probes.jump(IIII)V; if_icmpXX L
//! if_acmpXX L   ->  dup2; sipush op; ldc probe; invokestatic Probes.jumpRef(..II)V; if_acmpXX L
//! ifnull L      ->  dup; aconst_null; sipush op; ldc probe; invokestatic Probes.jumpRef; ifnull L
//! lcmp; ifXX L  ->  invokestatic Probes.lcmp(JJ)I; dup; sipush op; ldc probe;
//!                   invokestatic Probes.jumpCmp(III)V; ifXX L       (same for fcmp*, dcmp*)
//! xswitch       ->  dup; ldc switch; invokestatic Probes.switchKey(II)V; xswitch
//! ```
//!
//! JaCoCo's probes ("points", placed as [`rivet_analysis::MethodProbes`] emulates them) call
//! `Probes.point(id)` before returns, throws and gotos and on fall-through into labels;
//! `Probes.pointIf`/`pointIfRef` before conditional jumps (recording when the jump is taken)
//! and `Probes.switchPoint` before switches (a table per switch, in `switches.bin` too).

use rivet_classfile::{
    ClassFile, CodeEditor, Constant, ConstantPool, CpIndex, Instruction, Item, Opcode, Operand,
};

use crate::error::InstrumentError;
use crate::plan::{ClassPlan, MethodPlan, SiteKind};
use crate::probes::ProbeRange;
use crate::runtime::{EXITS_CLASS, PROBES_CLASS};
use rivet_analysis::ProbePoint;

/// What instrumenting a class did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassOutcome {
    /// Probe calls inserted (branching instructions and their `finally` copies).
    pub probe_sites: usize,
    /// `System.exit` / `Runtime.exit` / `Runtime.halt` calls redirected.
    pub exits: usize,
    /// Calls sent through the sandbox (files, network, processes, signals).
    pub sandbox_sites: usize,
    /// Call sites whose string operands are recorded for dynamic seeding (classes with
    /// probes only).
    pub seed_sites: usize,
    /// Static field accesses that mark their class touched.
    pub touch_sites: usize,
    /// Whether the class was made resettable (it has static state a test could change).
    pub resettable: bool,
    /// Backward jumps given a loop watch (classes without probes only).
    pub loop_sites: usize,
}

/// One switch's table in `switches.bin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchTable {
    /// Global switch id (pushed before the switch).
    pub id: u32,
    pub default_probe: u32,
    /// Case keys (those not going to the default target) with their probes, by key.
    pub keys: Vec<(i32, u32)>,
}

/// True when the class already calls Rivet's probe runtime.
pub fn is_instrumented(cf: &ClassFile) -> bool {
    cf.constant_pool.entries().iter().any(|c| match c {
        Constant::Class { name } => cf.constant_pool.utf8(*name).ok() == Some(PROBES_CLASS),
        _ => false,
    })
}

/// Instruments `cf` in place: exit calls are always redirected, calls reaching outside the
/// sandbox guarded and static state made resettable (last, after the probes, whose plan holds
/// original offsets); with `probes`, the plan's probes are inserted with the given ids,
/// without, its loops are watched ([`crate::watch_loops`]). The plan must come from this class (see
/// [`crate::plan_class`]). On error `cf` is left in an unspecified state.
pub fn instrument_class(
    cf: &mut ClassFile,
    probes: Option<(&ClassPlan, ProbeRange)>,
) -> Result<ClassOutcome, InstrumentError> {
    let class = rivet_classfile::ClassName::from_internal(cf.name().unwrap_or("?"));
    if is_instrumented(cf) {
        return Err(InstrumentError::AlreadyInstrumented { class });
    }
    let mut outcome = ClassOutcome {
        exits: redirect_exits(cf),
        ..ClassOutcome::default()
    };
    if let Some((plan, range)) = probes {
        insert_all_probes(cf, plan, range, &class, &mut outcome)?;
        outcome.seed_sites = crate::seeds::record_strings(cf);
    } else {
        outcome.loop_sites = crate::loops::watch_loops(cf);
    }
    outcome.sandbox_sites = crate::guards::guard_calls(cf).sites;
    outcome.touch_sites = crate::statics::mark_touches(cf);
    outcome.resettable = crate::statics::make_resettable(cf);
    Ok(outcome)
}

fn insert_all_probes(
    cf: &mut ClassFile,
    plan: &ClassPlan,
    range: ProbeRange,
    class: &rivet_classfile::ClassName,
    outcome: &mut ClassOutcome,
) -> Result<(), InstrumentError> {
    if plan.methods.iter().all(|m| m.sites.is_empty()) {
        return Ok(());
    }
    let refs = ProbeRefs::intern(&mut cf.constant_pool);
    for m in &plan.methods {
        if m.sites.is_empty() && m.points.is_empty() {
            continue;
        }
        replace_compares(cf, m, &refs, class)?;
        let mut result = Ok(());
        cf.edit_code(m.index, |ed, cp| {
            result = insert_probes(ed, cp, m, range, &refs).and_then(|()| {
                let first_point = range.base + plan.branch_count;
                insert_points(ed, cp, m, first_point, range.switch_base, &refs)
            });
            ed.add_max_stack(4);
            Ok(())
        })
        .map_err(|source| InstrumentError::Write {
            class: class.clone(),
            source: Box::new(source),
        })?;
        result.map_err(|reason| InstrumentError::Method {
            class: class.clone(),
            method: format!("{}{}", m.name, m.descriptor),
            reason,
        })?;
        outcome.probe_sites += m.sites.len();
    }
    Ok(())
}

/// The switch tables of a planned class, with global ids.
pub fn switch_tables(plan: &ClassPlan, range: ProbeRange) -> Vec<SwitchTable> {
    let mut out = Vec::with_capacity(plan.switch_count as usize);
    for m in &plan.methods {
        for s in &m.sites {
            if let SiteKind::Switch {
                switch,
                default,
                keys,
            } = &s.kind
            {
                out.push(SwitchTable {
                    id: range.switch_base + switch,
                    default_probe: range.base + default.0,
                    keys: keys.iter().map(|(k, b)| (*k, range.base + b.0)).collect(),
                });
            }
        }
    }
    // Point tables: u32::MAX (-1 for the runtime) where a target has no point.
    let point = |p: Option<u32>| p.map_or(u32::MAX, |p| range.base + plan.branch_count + p);
    for m in &plan.methods {
        for s in &m.point_switches {
            out.push(SwitchTable {
                id: range.switch_base + s.switch,
                default_probe: point(s.default),
                keys: s.keys.iter().map(|(k, p)| (*k, point(*p))).collect(),
            });
        }
    }
    out
}

/// Encodes switch tables as `Probes.loadSwitchTables` reads them (big-endian): u32 count,
/// then per switch u32 id, u32 default probe, u32 n, n × (i32 key, u32 probe).
pub fn encode_switch_tables(tables: &[SwitchTable]) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(4 + tables.iter().map(|t| 12 + 8 * t.keys.len()).sum::<usize>());
    out.extend_from_slice(&(tables.len() as u32).to_be_bytes());
    for t in tables {
        out.extend_from_slice(&t.id.to_be_bytes());
        out.extend_from_slice(&t.default_probe.to_be_bytes());
        out.extend_from_slice(&(t.keys.len() as u32).to_be_bytes());
        for (k, p) in &t.keys {
            out.extend_from_slice(&k.to_be_bytes());
            out.extend_from_slice(&p.to_be_bytes());
        }
    }
    out
}

/// Constant-pool entries of the runtime methods the probes call.
struct ProbeRefs {
    jump: CpIndex,
    jump_ref: CpIndex,
    jump_cmp: CpIndex,
    switch_key: CpIndex,
    point: CpIndex,
    point_if: CpIndex,
    point_if_ref: CpIndex,
    switch_point: CpIndex,
    /// lcmp, fcmpl, fcmpg, dcmpl, dcmpg (in opcode order).
    compares: [CpIndex; 5],
}

impl ProbeRefs {
    fn intern(cp: &mut ConstantPool) -> ProbeRefs {
        let mut m = |name: &str, desc: &str| cp.intern_method_ref(PROBES_CLASS, name, desc, false);
        ProbeRefs {
            jump: m("jump", "(IIII)V"),
            jump_ref: m("jumpRef", "(Ljava/lang/Object;Ljava/lang/Object;II)V"),
            jump_cmp: m("jumpCmp", "(III)V"),
            switch_key: m("switchKey", "(II)V"),
            point: m("point", "(I)V"),
            point_if: m("pointIf", "(IIII)V"),
            point_if_ref: m("pointIfRef", "(Ljava/lang/Object;Ljava/lang/Object;II)V"),
            switch_point: m("switchPoint", "(II)V"),
            compares: [
                m("lcmp", "(JJ)I"),
                m("fcmpl", "(FF)I"),
                m("fcmpg", "(FF)I"),
                m("dcmpl", "(DD)I"),
                m("dcmpg", "(DD)I"),
            ],
        }
    }
}

fn insn(opcode: Opcode, operand: Operand) -> Item {
    Item::Insn(Instruction::new(opcode, operand))
}

fn invoke_static(index: CpIndex) -> Item {
    insn(Opcode::INVOKESTATIC, Operand::Constant(index))
}

/// The shortest instruction pushing an int constant.
fn push_int(cp: &mut ConstantPool, v: i32) -> Item {
    match v {
        -1..=5 => insn(Opcode((Opcode::ICONST_0.0 as i32 + v) as u8), Operand::None),
        -128..=127 => insn(Opcode::BIPUSH, Operand::Byte(v as i8)),
        -32768..=32767 => insn(Opcode::SIPUSH, Operand::Short(v as i16)),
        _ => insn(Opcode::LDC, Operand::Constant(cp.intern_integer(v))),
    }
}

/// Replaces the compare instructions whose results probed jumps consume by calls of the
/// runtime's equivalents (same stack effect). Done on the method's code before editing; the
/// editor lays the longer instructions out.
fn replace_compares(
    cf: &mut ClassFile,
    m: &MethodPlan,
    refs: &ProbeRefs,
    class: &rivet_classfile::ClassName,
) -> Result<(), InstrumentError> {
    let Some(code) = cf.methods.get_mut(m.index).and_then(|mm| mm.code_mut()) else {
        return Err(InstrumentError::Method {
            class: class.clone(),
            method: format!("{}{}", m.name, m.descriptor),
            reason: "the method has no code".into(),
        });
    };
    for s in &m.sites {
        let SiteKind::Jump {
            compare: Some(at), ..
        } = s.kind
        else {
            continue;
        };
        if let Some(i) = code.index_of(at) {
            let x = &mut code.instructions[i];
            let k = x.opcode.0.wrapping_sub(Opcode::LCMP.0) as usize;
            if let Some(&target) = refs.compares.get(k) {
                x.opcode = Opcode::INVOKESTATIC;
                x.operand = Operand::Constant(target);
            }
        }
    }
    Ok(())
}

fn insert_probes(
    ed: &mut CodeEditor,
    cp: &mut ConstantPool,
    m: &MethodPlan,
    range: ProbeRange,
    refs: &ProbeRefs,
) -> Result<(), String> {
    for s in &m.sites {
        let i = ed
            .original()
            .index_of(s.offset)
            .ok_or_else(|| format!("no instruction at planned offset {}", s.offset))?;
        let op = ed.original().instructions[i].opcode;
        let probe_id = |b: u32| i32::try_from(range.base + b).map_err(|_| "probe id overflow");
        let items: Vec<Item> = match &s.kind {
            SiteKind::Jump { taken, compare } => {
                let opc = insn(Opcode::SIPUSH, Operand::Short(op.0 as i16));
                let probe = push_int(cp, probe_id(taken.0)?);
                if compare.is_some() {
                    vec![
                        insn(Opcode::DUP, Operand::None),
                        opc,
                        probe,
                        invoke_static(refs.jump_cmp),
                    ]
                } else {
                    let (mut items, refs_compared) = jump_operands(op).ok_or_else(|| {
                        format!("{op} at offset {} is not a conditional jump", s.offset)
                    })?;
                    let call = if refs_compared {
                        refs.jump_ref
                    } else {
                        refs.jump
                    };
                    items.extend([opc, probe, invoke_static(call)]);
                    items
                }
            }
            SiteKind::Switch { switch, .. } => {
                if !op.is_switch() {
                    return Err(format!("{op} at offset {} is not a switch", s.offset));
                }
                let id =
                    i32::try_from(range.switch_base + switch).map_err(|_| "switch id overflow")?;
                vec![
                    insn(Opcode::DUP, Operand::None),
                    push_int(cp, id),
                    invoke_static(refs.switch_key),
                ]
            }
        };
        ed.insert_before(s.offset, items);
    }
    Ok(())
}

/// The stack-neutral copy of a conditional jump's two compared operands (`ifXX` compares with
/// 0, `ifnull`/`ifnonnull` with null), and whether they are references; None for other opcodes.
fn jump_operands(op: Opcode) -> Option<(Vec<Item>, bool)> {
    let plain = |o: Opcode| insn(o, Operand::None);
    Some(if (Opcode::IFEQ.0..=Opcode::IFLE.0).contains(&op.0) {
        (vec![plain(Opcode::DUP), plain(Opcode::ICONST_0)], false)
    } else if (Opcode::IF_ICMPEQ.0..=Opcode::IF_ICMPLE.0).contains(&op.0) {
        (vec![plain(Opcode::DUP2)], false)
    } else if op == Opcode::IF_ACMPEQ || op == Opcode::IF_ACMPNE {
        (vec![plain(Opcode::DUP2)], true)
    } else if op == Opcode::IFNULL || op == Opcode::IFNONNULL {
        (vec![plain(Opcode::DUP), plain(Opcode::ACONST_NULL)], true)
    } else {
        return None;
    })
}

/// Inserts the method's JaCoCo points; `first_point` is the probe id of class-local point 0.
fn insert_points(
    ed: &mut CodeEditor,
    cp: &mut ConstantPool,
    m: &MethodPlan,
    first_point: u32,
    switch_base: u32,
    refs: &ProbeRefs,
) -> Result<(), String> {
    let id =
        |p: u32| i32::try_from(first_point + m.point_base + p).map_err(|_| "point id overflow");
    let plain = |o: Opcode| insn(o, Operand::None);
    for (p, point) in m.points.iter().enumerate() {
        let pid = push_int(cp, id(p as u32)?);
        match point {
            ProbePoint::Before { offset } => {
                ed.insert_before(*offset, [pid, invoke_static(refs.point)]);
            }
            ProbePoint::Fallthrough { offset } => {
                ed.insert_on_fallthrough(*offset, [pid, invoke_static(refs.point)]);
            }
            ProbePoint::Taken { offset } => {
                let op = ed
                    .original()
                    .index_of(*offset)
                    .map(|i| ed.original().instructions[i].opcode)
                    .ok_or_else(|| format!("no instruction at point offset {offset}"))?;
                let opc = insn(Opcode::SIPUSH, Operand::Short(op.0 as i16));
                let (mut items, refs_compared) = jump_operands(op)
                    .ok_or_else(|| format!("{op} at offset {offset} is not a conditional jump"))?;
                let call = if refs_compared {
                    refs.point_if_ref
                } else {
                    refs.point_if
                };
                items.extend([opc, pid, invoke_static(call)]);
                ed.insert_before(*offset, items);
            }
            ProbePoint::SwitchTarget { .. } => {} // by table, below
        }
    }
    for s in &m.point_switches {
        let table = i32::try_from(switch_base + s.switch).map_err(|_| "switch id overflow")?;
        let items = [
            plain(Opcode::DUP),
            push_int(cp, table),
            invoke_static(refs.switch_point),
        ];
        ed.insert_before(s.offset, items);
    }
    Ok(())
}

/// Sends `System.exit(I)V`, `Runtime.exit(I)V` and `Runtime.halt(I)V` calls to `Exits`
/// (same instruction size and stack effect, so no layout change). Returns how many.
pub fn redirect_exits(cf: &mut ClassFile) -> usize {
    #[derive(Clone, Copy)]
    enum Call {
        SystemExit,
        RuntimeExit,
        RuntimeHalt,
    }
    let kind = |cp: &ConstantPool, op: Opcode, index: CpIndex| -> Option<Call> {
        let r = cp.member_ref(index).ok()?;
        if r.descriptor != "(I)V" || r.interface {
            return None;
        }
        match (op, r.owner, r.name) {
            (Opcode::INVOKESTATIC, "java/lang/System", "exit") => Some(Call::SystemExit),
            (Opcode::INVOKEVIRTUAL, "java/lang/Runtime", "exit") => Some(Call::RuntimeExit),
            (Opcode::INVOKEVIRTUAL, "java/lang/Runtime", "halt") => Some(Call::RuntimeHalt),
            _ => None,
        }
    };
    let mut found = Vec::new();
    for (mi, m) in cf.methods.iter().enumerate() {
        let Some(code) = m.code() else { continue };
        for (ii, x) in code.instructions.iter().enumerate() {
            if x.opcode != Opcode::INVOKESTATIC && x.opcode != Opcode::INVOKEVIRTUAL {
                continue;
            }
            let Operand::Constant(index) = x.operand else {
                continue;
            };
            if let Some(k) = kind(&cf.constant_pool, x.opcode, index) {
                found.push((mi, ii, k));
            }
        }
    }
    if found.is_empty() {
        return 0;
    }
    let cp = &mut cf.constant_pool;
    let exit = cp.intern_method_ref(EXITS_CLASS, "exit", "(I)V", false);
    let runtime_exit =
        cp.intern_method_ref(EXITS_CLASS, "runtimeExit", "(Ljava/lang/Runtime;I)V", false);
    let runtime_halt =
        cp.intern_method_ref(EXITS_CLASS, "runtimeHalt", "(Ljava/lang/Runtime;I)V", false);
    for &(mi, ii, k) in &found {
        let target = match k {
            Call::SystemExit => exit,
            Call::RuntimeExit => runtime_exit,
            Call::RuntimeHalt => runtime_halt,
        };
        if let Some(x) = cf.methods[mi]
            .code_mut()
            .and_then(|c| c.instructions.get_mut(ii))
        {
            x.opcode = Opcode::INVOKESTATIC;
            x.operand = Operand::Constant(target);
        }
    }
    found.len()
}
