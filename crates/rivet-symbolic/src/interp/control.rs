//! Control flow: conditional jumps (splitting on symbolic conditions, resolving symbolic
//! references first), switches, jumps, branch recording (and the trace check of
//! trace-guided mode), and exceptions: throwing, handler search, unwinding.

use std::sync::Arc;

use rivet_classfile::{Opcode, Operand};
use rivet_pc::{BinaryOp, CmpOp, Concrete, Term};

use super::{bytecode_error, objects, Ctx, Ops, PathEnd, Split, Step};
use crate::error::SymbolicError;
use crate::lazy;
use crate::program::MethodBody;
use crate::state::{FrameKind, SymbolicState};
use crate::value::{ObjectId, Reference, SymRefId, Value};
use rivet_classfile::ClassName;

/// The successors of a two-way split: the stepped state and `other`.
pub fn fork(state: &mut SymbolicState, other: SymbolicState) -> Step {
    Step::Fork(vec![std::mem::take(state), other])
}

/// Records the branch (`offset` → `dest`) of the target class, if it is one. False if the
/// state left the trace in trace-guided mode.
pub fn record_branch(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &MethodBody,
    offset: u32,
    dest: u32,
) -> bool {
    let Some(&id) = method.branches.get(&(offset, dest)) else {
        return true;
    };
    if !ctx.counters.covered.contains(&id) && !state.branches.contains(&id) {
        state.new_coverage = true;
    }
    state.branches.push(id);
    // Traces hold the target class's branches only.
    if crate::program::split_covered_branch(id).is_some() {
        return true;
    }
    if let Some(trace) = ctx.config.guidance.trace() {
        match trace.branches.get(state.trace_pos) {
            Some(t) if *t == id => state.trace_pos += 1,
            None if trace.prefix => {}
            _ => return false,
        }
    }
    true
}

/// Continues at code offset `dest` of the top frame.
pub fn jump(
    state: &mut SymbolicState,
    method: &MethodBody,
    dest: u32,
) -> Result<(), SymbolicError> {
    let index = method.index_of(dest);
    let frame = state.frames.last_mut().ok_or_else(super::no_frame)?;
    frame.pc = index
        .ok_or_else(|| bytecode_error(frame, format!("jump to {dest}, not an instruction")))?;
    Ok(())
}

pub fn goto(
    state: &mut SymbolicState,
    method: &MethodBody,
    dest: u32,
) -> Result<Step, SymbolicError> {
    jump(state, method, dest)?;
    Ok(Step::Continue)
}

fn cmp_of(op: Opcode) -> CmpOp {
    match (op.0 - Opcode::IFEQ.0) % 6 {
        0 => CmpOp::Eq,
        1 => CmpOp::Ne,
        2 => CmpOp::Lt,
        3 => CmpOp::Ge,
        4 => CmpOp::Gt,
        _ => CmpOp::Le,
    }
}

/// Takes the branch to `dest` (recorded); a state off the trace ends as dropped.
fn take(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &MethodBody,
    offset: u32,
    dest: u32,
) -> Result<bool, SymbolicError> {
    jump(state, method, dest)?;
    Ok(record_branch(state, ctx, method, offset, dest))
}

/// Both successors of a branch, each recorded; those off the trace are left out.
fn two_way(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &MethodBody,
    offset: u32,
    dest_true: u32,
    dest_false: u32,
    split: Split,
) -> Result<Step, SymbolicError> {
    Ok(match split {
        Split::True => single(state, ctx, method, offset, dest_true)?,
        Split::False => single(state, ctx, method, offset, dest_false)?,
        Split::Bound => Step::End(PathEnd::Bound("depth".into())),
        Split::Both(other) => {
            let mut other = *other;
            let mut out = Vec::with_capacity(2);
            if take(state, ctx, method, offset, dest_true)? {
                out.push(std::mem::take(state));
            } else {
                ctx.counters.pruned += 1;
            }
            if take(&mut other, ctx, method, offset, dest_false)? {
                out.push(other);
            } else {
                ctx.counters.pruned += 1;
            }
            Step::Fork(out)
        }
    })
}

fn single(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &MethodBody,
    offset: u32,
    dest: u32,
) -> Result<Step, SymbolicError> {
    Ok(if take(state, ctx, method, offset, dest)? {
        Step::Continue
    } else {
        Step::End(PathEnd::Dropped)
    })
}

/// In trace-guided mode, the side of a branch of the target class the trace takes next
/// (true: the jump); None off the trace's end or outside the target class.
fn traced_side(
    state: &SymbolicState,
    ctx: &Ctx<'_>,
    method: &MethodBody,
    offset: u32,
    dest_true: u32,
    dest_false: u32,
) -> Option<bool> {
    let next = ctx.config.guidance.trace()?.branches.get(state.trace_pos)?;
    if method.branches.get(&(offset, dest_true)) == Some(next) {
        Some(true)
    } else if method.branches.get(&(offset, dest_false)) == Some(next) {
        Some(false)
    } else {
        None
    }
}

/// In trace-guided mode, true if the trace takes the switch's edge to `dest` next.
fn traced_switch(
    state: &SymbolicState,
    ctx: &Ctx<'_>,
    method: &MethodBody,
    offset: u32,
    dest: u32,
) -> bool {
    let next = ctx
        .config
        .guidance
        .trace()
        .and_then(|t| t.branches.get(state.trace_pos));
    next.is_some() && method.branches.get(&(offset, dest)) == next
}

/// What a reference test (`ifnull`, `if_acmp*`) found.
enum RefTest {
    /// The test holds or not.
    Holds(bool),
    /// A symbolic reference decides it: it is resolved first (the instruction runs again).
    Resolve(SymRefId),
}

/// `if*`, `if_icmp*`, `if_acmp*`, `ifnull`, `ifnonnull`.
pub fn conditional(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    pc: usize,
) -> Result<Step, SymbolicError> {
    let insn = &method.insns[pc];
    let op = insn.opcode;
    let offset = insn.offset;
    let Operand::Jump(dest_true) = insn.operand else {
        return Err(bytecode_error(
            state.frames.last().ok_or_else(super::no_frame)?,
            "jump without target",
        ));
    };
    let dest_false = method
        .insns
        .get(pc + 1)
        .map(|i| i.offset)
        .unwrap_or(u32::MAX);
    let test = match op {
        Opcode::IFNULL | Opcode::IFNONNULL => null_test(state, op)?,
        Opcode::IF_ACMPEQ | Opcode::IF_ACMPNE => identity_test(state, op)?,
        _ => {
            let cond = numeric_condition(state, method, op)?;
            return branch_on(state, ctx, method, offset, dest_true, dest_false, cond);
        }
    };
    match test {
        RefTest::Resolve(s) => lazy::resolve(state, ctx, s),
        RefTest::Holds(holds) => single(
            state,
            ctx,
            method,
            offset,
            if holds { dest_true } else { dest_false },
        ),
    }
}

/// `ifnull`, `ifnonnull`: the reference on the stack (popped unless it must be resolved).
fn null_test(state: &mut SymbolicState, op: Opcode) -> Result<RefTest, SymbolicError> {
    let r = match Ops::peek(state, 0)? {
        Value::Ref(r) => state.deref(*r),
        other => {
            return Err(bytecode_error(
                state.frames.last().ok_or_else(super::no_frame)?,
                format!("ifnull on {other:?}"),
            ))
        }
    };
    if let Reference::Symbolic(s) = r {
        return Ok(RefTest::Resolve(s));
    }
    Ops::pop(state)?;
    Ok(RefTest::Holds(
        (r == Reference::Null) == (op == Opcode::IFNULL),
    ))
}

/// `if_acmpeq`, `if_acmpne`: the two references on the stack (popped unless one must be
/// resolved; equal references need not be).
fn identity_test(state: &mut SymbolicState, op: Opcode) -> Result<RefTest, SymbolicError> {
    let (a, b) = match (Ops::peek(state, 1)?, Ops::peek(state, 0)?) {
        (Value::Ref(a), Value::Ref(b)) => (state.deref(*a), state.deref(*b)),
        _ => {
            return Err(bytecode_error(
                state.frames.last().ok_or_else(super::no_frame)?,
                "if_acmp on non-references",
            ))
        }
    };
    if a != b {
        for r in [a, b] {
            if let Reference::Symbolic(s) = r {
                return Ok(RefTest::Resolve(s));
            }
        }
    }
    Ops::pop(state)?;
    Ops::pop(state)?;
    Ok(RefTest::Holds((a == b) == (op == Opcode::IF_ACMPEQ)))
}

/// The condition of a numeric `if*` or `if_icmp*` (the jump's), its operands popped: a
/// comparison's result (`lcmp`, `fcmp*`, `dcmp*`) against zero is the comparison itself.
fn numeric_condition(
    state: &mut SymbolicState,
    method: &MethodBody,
    op: Opcode,
) -> Result<Term, SymbolicError> {
    let cmp = cmp_of(op);
    let (a, b) = if op.0 <= Opcode::IFLE.0 {
        match Ops::pop(state)? {
            Value::FCmp(a, b, nan) => {
                return crate::value::fcmp_condition(cmp, a, b, nan)
                    .map_err(|e| super::method_error(method, e.to_string()))
            }
            Value::Cmp(a, b) => (a, b),
            Value::Int(t) => (t, Term::int(0)),
            other => {
                return Err(bytecode_error(
                    state.frames.last().ok_or_else(super::no_frame)?,
                    format!("if on {other:?}"),
                ))
            }
        }
    } else {
        let b = Ops::pop_int(state)?;
        (Ops::pop_int(state)?, b)
    };
    Term::compare(cmp, a, b).map_err(|e| super::method_error(method, e.to_string()))
}

/// Branches on `cond` (true: the jump to `dest_true`): the trace's side when the trace
/// decides this branch, else both feasible sides.
fn branch_on(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    offset: u32,
    dest_true: u32,
    dest_false: u32,
    cond: Term,
) -> Result<Step, SymbolicError> {
    if let Some(want) = traced_side(state, ctx, method, offset, dest_true, dest_false) {
        return Ok(if ctx.follow(state, cond, want) {
            let dest = if want { dest_true } else { dest_false };
            single(state, ctx, method, offset, dest)?
        } else {
            Step::End(PathEnd::Dropped)
        });
    }
    let split = ctx.split(state, cond);
    two_way(state, ctx, method, offset, dest_true, dest_false, split)
}

/// `tableswitch` and `lookupswitch`: one successor per feasible case key and the default.
pub fn switch(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    pc: usize,
) -> Result<Step, SymbolicError> {
    let insn = &method.insns[pc];
    let offset = insn.offset;
    let (pairs, default): (Vec<(i32, u32)>, u32) = match &insn.operand {
        Operand::TableSwitch {
            default,
            low,
            targets,
            ..
        } => (
            targets
                .iter()
                .enumerate()
                .map(|(i, t)| (low.wrapping_add(i as i32), *t))
                .collect(),
            *default,
        ),
        Operand::LookupSwitch { default, pairs } => (pairs.clone(), *default),
        _ => {
            return Err(bytecode_error(
                state.frames.last().ok_or_else(super::no_frame)?,
                "switch without table",
            ))
        }
    };
    let key = Ops::pop_int(state)?;
    if let Some(k) = key.as_int() {
        let dest = pairs
            .iter()
            .find(|(c, _)| *c == k)
            .map(|(_, t)| *t)
            .unwrap_or(default);
        return single(state, ctx, method, offset, dest);
    }
    let err = |e: rivet_pc::SortError| super::method_error(method, e.to_string());
    let mut alternatives: Vec<(Term, u32)> = Vec::new();
    let mut default_clause = Term::bool(true);
    for (k, dest) in &pairs {
        alternatives.push((
            Term::compare(CmpOp::Eq, key.clone(), Term::int(*k)).map_err(err)?,
            *dest,
        ));
        let ne = Term::compare(CmpOp::Ne, key.clone(), Term::int(*k)).map_err(err)?;
        default_clause = Term::binary(BinaryOp::And, default_clause, ne).map_err(err)?;
    }
    alternatives.push((default_clause, default));
    let mut feasible = Vec::new();
    for (clause, dest) in alternatives {
        if state.model.eval(&clause) == Concrete::Bool(true) {
            feasible.push((clause, dest, None));
        } else if ctx.config.guidance.follows_model()
            && traced_switch(state, ctx, method, offset, dest)
        {
            // Concolic replay: only the model's case, unless the trace wants this one.
            if let Some(m) = ctx.feasible(&state.numeric, &clause, &state.model) {
                feasible.push((clause, dest, Some(m)));
            }
        } else if ctx.config.guidance.follows_model() {
            ctx.counters.pruned += 1;
        } else if let Some(m) = ctx.feasible(&state.numeric, &clause, &state.model) {
            feasible.push((clause, dest, Some(m)));
        } else {
            ctx.counters.pruned += 1;
        }
    }
    if feasible.len() > 1 && state.depth >= ctx.config.depth {
        return Ok(Step::End(PathEnd::Bound("depth".into())));
    }
    if feasible.len() == 1 {
        let (clause, dest, model) = feasible.remove(0);
        state.assume(rivet_pc::Clause::Numeric(clause));
        if let Some(m) = model {
            state.model.merge(&m);
        }
        return single(state, ctx, method, offset, dest);
    }
    let mut out = Vec::with_capacity(feasible.len());
    for (clause, dest, model) in feasible {
        let mut s = state.clone();
        s.depth += 1;
        s.assume(rivet_pc::Clause::Numeric(clause));
        if let Some(m) = model {
            s.model.merge(&m);
        }
        if take(&mut s, ctx, method, offset, dest)? {
            out.push(s);
        } else {
            ctx.counters.pruned += 1;
        }
    }
    Ok(Step::Fork(out))
}

/// `athrow`.
pub fn athrow(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<Step, SymbolicError> {
    let r = match Ops::peek(state, 0)? {
        Value::Ref(r) => state.deref(*r),
        _ => {
            return Err(bytecode_error(
                state.frames.last().ok_or_else(super::no_frame)?,
                "athrow of a non-reference",
            ))
        }
    };
    match r {
        Reference::Symbolic(s) => lazy::resolve(state, ctx, s),
        Reference::Null => {
            Ops::pop(state)?;
            throw_new(state, ctx, "java/lang/NullPointerException")?;
            Ok(Step::Continue)
        }
        Reference::Object(id) => {
            Ops::pop(state)?;
            throw_object(state, ctx, id)?;
            Ok(Step::Continue)
        }
    }
}

/// Throws a new exception of `class` (its constructor is not run: fields keep defaults).
pub fn throw_new(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    class: &str,
) -> Result<(), SymbolicError> {
    let id = objects::alloc_instance(state, ctx, class)?;
    throw_object(state, ctx, id)
}

/// Unwinds to the nearest handler of the exception's class; with none, the path ends with it.
pub fn throw_object(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    exception: ObjectId,
) -> Result<(), SymbolicError> {
    let class: Arc<str> = match state.object(exception) {
        Some(o) => o.type_name.clone(),
        None => Arc::from("java/lang/Throwable"),
    };
    // Where it was thrown, for the message of a static initializer that throws.
    let origin = state.frames.last().map(|f| {
        let offset = f.method.insns.get(f.pc).map_or(0, |i| i.offset);
        format!(
            "{}.{} at offset {offset}",
            f.method.class_name.replace('/', "."),
            f.method.name
        )
    });
    while let Some(frame) = state.frames.last() {
        let method = frame.method.clone();
        let offset = method
            .insns
            .get(frame.pc)
            .map(|i| i.offset)
            .unwrap_or(u32::MAX);
        let mut target = None;
        for h in &method.handlers {
            if h.start <= offset && offset < h.end {
                let catches = match &h.catch {
                    None => true,
                    Some(c) => ctx.program.is_assignable(&class, c),
                };
                if catches {
                    target = Some(h.handler);
                    break;
                }
            }
        }
        if let Some(handler) = target {
            let frame = state.frames.last_mut().ok_or_else(super::no_frame)?;
            frame.pc = handler;
            frame.stack.clear();
            frame.stack.push(Value::Ref(Reference::Object(exception)));
            return Ok(());
        }
        if let Some(done) = state.frames.pop() {
            if let FrameKind::Clinit(_) = done.kind {
                // Static initializers of real code do not throw: one that throws here lacks
                // a model, and the path says nothing about the program.
                return Err(SymbolicError::InitializerThrew {
                    class: ClassName::from_internal(&done.method.class_name),
                    exception: ClassName::from_internal(&class),
                    origin: origin.unwrap_or_default(),
                });
            }
        }
    }
    state.uncaught = Some(class);
    Ok(())
}
