//! The interpreter: one JVM instruction at a time over a symbolic state. A step continues
//! the state, forks it (both outcomes of a symbolic branch feasible, or the alternatives of
//! lazy initialization), or ends its path.

use rivet_classfile::ClassName;
mod arith;
mod arrays;
mod calls;
mod concat;
mod control;
mod objects;
pub mod varhandles;

use std::sync::Arc;

use rivet_classfile::{Opcode, Operand};
use rivet_pc::Term;

use crate::context::pin_value;
use crate::error::SymbolicError;
use crate::program::MethodBody;
use crate::state::{Frame, SymbolicState};
use crate::value::{Reference, Value};

pub use crate::context::{Counters, Ctx, PathEnd, Split, Step};
pub use crate::heap::is_string_class;

pub use arrays::alloc_array;
pub use calls::{enter_method, fresh_value, invoke_ref, not_followed, return_descriptor};
pub use control::throw_new;
pub use objects::{
    alloc_box, alloc_instance, alloc_string, ensure_initialized, field_slot, mirror, read_slot,
    write_slot,
};

fn bytecode_error(frame: &Frame, reason: impl Into<String>) -> SymbolicError {
    SymbolicError::Bytecode {
        class: ClassName::from_internal(&frame.method.class_name),
        method: format!("{}{}", frame.method.name, frame.method.descriptor),
        reason: reason.into(),
    }
}

pub(crate) fn method_error(method: &MethodBody, reason: impl Into<String>) -> SymbolicError {
    SymbolicError::Bytecode {
        class: ClassName::from_internal(&method.class_name),
        method: format!("{}{}", method.name, method.descriptor),
        reason: reason.into(),
    }
}

/// The most nodes a value's term may have read as a tree. A loop that squares a value
/// (`b *= b`) doubles it each time; past this, every walk that does not share subterms
/// (the solver's translation, the text of a clause) would grow beyond any time bound.
pub const TERM_TREE_LIMIT: u64 = 1 << 14;

/// `v`, or, when its term has grown past `TERM_TREE_LIMIT`, its value in the state's model
/// with the inputs it depends on pinned to their model values (clauses `s == v`): the path
/// stays exact for those inputs, the term small.
fn within_size(state: &mut SymbolicState, v: Value) -> Value {
    let large = |t: &Term| t.tree_size() > TERM_TREE_LIMIT;
    let term = match &v {
        Value::Int(t) | Value::Long(t) | Value::Float(t) | Value::Double(t) if large(t) => t,
        _ => return v,
    };
    let value = state.model.eval(term);
    for (symbol, sort) in term.variables() {
        if sort != rivet_pc::SymbolSort::Str {
            pin_value(state, &Term::var(symbol, sort));
        }
    }
    let constant = Term::from_concrete(value);
    match v {
        Value::Int(_) => Value::Int(constant),
        Value::Long(_) => Value::Long(constant),
        Value::Float(_) => Value::Float(constant),
        _ => Value::Double(constant),
    }
}

/// Pops and pushes on the top frame.
pub struct Ops;

impl Ops {
    pub fn pop(state: &mut SymbolicState) -> Result<Value, SymbolicError> {
        let frame = state.frames.last_mut().ok_or_else(no_frame)?;
        match frame.stack.pop() {
            Some(v) => Ok(v),
            None => Err(bytecode_error(frame, "operand stack underflow")),
        }
    }

    pub fn push(state: &mut SymbolicState, v: Value) -> Result<(), SymbolicError> {
        let v = within_size(state, v);
        state.frames.last_mut().ok_or_else(no_frame)?.stack.push(v);
        Ok(())
    }

    pub fn pop_int(state: &mut SymbolicState) -> Result<Term, SymbolicError> {
        match Ops::pop(state)? {
            Value::Int(t) => Ok(t),
            Value::Cmp(a, b) => Ok(crate::value::cmp_as_int(&a, &b)),
            Value::FCmp(a, b, nan) => Ok(crate::value::fcmp_as_int(&a, &b, nan)),
            other => Err(Ops::mismatch(state, "int", &other)),
        }
    }

    pub fn pop_long(state: &mut SymbolicState) -> Result<Term, SymbolicError> {
        match Ops::pop(state)? {
            Value::Long(t) => Ok(t),
            other => Err(Ops::mismatch(state, "long", &other)),
        }
    }

    pub fn pop_float(state: &mut SymbolicState) -> Result<Term, SymbolicError> {
        match Ops::pop(state)? {
            Value::Float(f) => Ok(f),
            other => Err(Ops::mismatch(state, "float", &other)),
        }
    }

    pub fn pop_double(state: &mut SymbolicState) -> Result<Term, SymbolicError> {
        match Ops::pop(state)? {
            Value::Double(f) => Ok(f),
            other => Err(Ops::mismatch(state, "double", &other)),
        }
    }

    pub fn pop_ref(state: &mut SymbolicState) -> Result<Reference, SymbolicError> {
        match Ops::pop(state)? {
            Value::Ref(r) => Ok(r),
            other => Err(Ops::mismatch(state, "reference", &other)),
        }
    }

    pub fn peek(state: &SymbolicState, depth: usize) -> Result<&Value, SymbolicError> {
        let frame = state.frames.last().ok_or_else(no_frame)?;
        let n = frame.stack.len();
        if depth >= n {
            return Err(bytecode_error(frame, "operand stack underflow"));
        }
        Ok(&frame.stack[n - 1 - depth])
    }

    fn mismatch(state: &SymbolicState, expected: &str, found: &Value) -> SymbolicError {
        match state.frames.last() {
            Some(f) => bytecode_error(
                f,
                format!("expected {expected} on the stack, found {found:?}"),
            ),
            None => no_frame(),
        }
    }
}

fn no_frame() -> SymbolicError {
    SymbolicError::Bytecode {
        class: ClassName::from_internal("?"),
        method: "?".into(),
        reason: "no frame".into(),
    }
}

/// Advances the top frame to its next instruction.
pub fn advance(state: &mut SymbolicState) {
    if let Some(f) = state.frames.last_mut() {
        f.pc += 1;
    }
}

/// Runs one instruction of `state`'s top frame.
pub fn step(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<Step, SymbolicError> {
    state.steps += 1;
    if state.steps > ctx.config.max_steps {
        return Ok(Step::End(PathEnd::Bound("steps".into())));
    }
    if state.pc.len() > ctx.config.max_clauses {
        return Ok(Step::End(PathEnd::Bound("path condition length".into())));
    }
    let Some(frame) = state.frames.last() else {
        return Ok(Step::End(match &state.uncaught {
            Some(class) => PathEnd::Exception(class.clone()),
            None => PathEnd::Return,
        }));
    };
    let method: Arc<MethodBody> = frame.method.clone();
    let pc = frame.pc;
    let Some(insn) = method.insns.get(pc) else {
        return Err(bytecode_error(
            frame,
            format!("fell off the code at instruction {pc}"),
        ));
    };
    let op = insn.opcode;
    match op.0 {
        0 => {}
        1 => Ops::push(state, Value::null())?,
        2..=8 => Ops::push(state, Value::int(i32::from(op.0) - 3))?,
        9 | 10 => Ops::push(state, Value::Long(Term::long(i64::from(op.0) - 9)))?,
        11..=13 => Ops::push(state, Value::float(f32::from(op.0 - 11)))?,
        14 | 15 => Ops::push(state, Value::double(f64::from(op.0 - 14)))?,
        16 | 17 => {
            let v = match insn.operand {
                Operand::Byte(b) => i32::from(b),
                Operand::Short(s) => i32::from(s),
                _ => return Err(bytecode_error(frame, "bipush/sipush without operand")),
            };
            Ops::push(state, Value::int(v))?;
        }
        18..=20 => return objects::ldc(state, ctx, &method, &insn.operand),
        21..=25 => {
            let idx = insn.local_index().unwrap_or(0);
            load(state, idx)?;
        }
        26..=45 => load(state, u16::from((op.0 - 26) % 4))?,
        46..=53 => return arrays::array_load(state, ctx, op),
        54..=58 => {
            let idx = insn.local_index().unwrap_or(0);
            store(state, idx)?;
        }
        59..=78 => store(state, u16::from((op.0 - 59) % 4))?,
        79..=86 => return arrays::array_store(state, ctx, op),
        87..=95 => stack_op(state, op)?,
        96..=131 => return arith::binary(state, ctx, op),
        132 => {
            if let Operand::Iinc { index, delta, .. } = insn.operand {
                arith::iinc(state, index, delta)?;
            }
        }
        133..=147 => arith::convert(state, op)?,
        148..=152 => arith::compare(state, op)?,
        153..=166 | 198 | 199 => return control::conditional(state, ctx, &method, pc),
        167 | 200 => {
            if let Operand::Jump(t) = insn.operand {
                return control::goto(state, &method, t);
            }
        }
        168 | 169 | 201 => {
            return Ok(Step::End(PathEnd::Unsupported(format!(
                "jsr/ret in {}.{}",
                ClassName::from_internal(&method.class_name),
                method.name
            ))))
        }
        170 | 171 => return control::switch(state, ctx, &method, pc),
        172..=177 => return calls::return_op(state, ctx, op),
        178..=181 => return objects::field_op(state, ctx, &method, op, &insn.operand),
        182..=185 => return calls::invoke(state, ctx, &method, op, &insn.operand),
        186 => return calls::invokedynamic(state, ctx, &method, &insn.operand),
        187 => return objects::new_object(state, ctx, &method, &insn.operand),
        188 | 189 | 197 => return arrays::new_array(state, ctx, &method, op, &insn.operand),
        190 => return arrays::array_length(state, ctx),
        191 => return control::athrow(state, ctx),
        192 | 193 => return objects::type_check(state, ctx, &method, op, &insn.operand),
        194 | 195 => return objects::monitor(state, ctx),
        _ => {
            return Err(bytecode_error(frame, format!("unknown opcode {}", op.0)));
        }
    }
    advance(state);
    Ok(Step::Continue)
}

fn load(state: &mut SymbolicState, idx: u16) -> Result<(), SymbolicError> {
    let frame = state.frames.last_mut().ok_or_else(no_frame)?;
    let v = frame
        .locals
        .get(usize::from(idx))
        .cloned()
        .ok_or_else(|| bytecode_error(frame, format!("no local {idx}")))?;
    frame.stack.push(v);
    Ok(())
}

fn store(state: &mut SymbolicState, idx: u16) -> Result<(), SymbolicError> {
    let mut v = Ops::pop(state)?;
    v = v.settled();
    let frame = state.frames.last_mut().ok_or_else(no_frame)?;
    let i = usize::from(idx);
    let wide = v.is_wide();
    let need = i + if wide { 2 } else { 1 };
    if frame.locals.len() < need {
        frame.locals.resize(need, Value::Top);
    }
    frame.locals[i] = v;
    if wide {
        frame.locals[i + 1] = Value::Top;
    }
    Ok(())
}

/// pop, pop2, dup*, swap: long and double count as two slots.
fn stack_op(state: &mut SymbolicState, op: Opcode) -> Result<(), SymbolicError> {
    let frame = state.frames.last_mut().ok_or_else(no_frame)?;
    let mut s = std::mem::take(&mut frame.stack);
    let ok = apply_stack_op(&mut s, op).is_some();
    frame.stack = s;
    if ok {
        Ok(())
    } else {
        Err(bytecode_error(frame, "operand stack underflow"))
    }
}

fn apply_stack_op(s: &mut Vec<Value>, op: Opcode) -> Option<()> {
    let n = s.len();
    let cat2 = |v: &Value| v.is_wide();
    match op {
        Opcode::POP => {
            s.pop()?;
        }
        Opcode::POP2 => {
            if !s.last().is_some_and(cat2) {
                s.pop()?;
            }
            s.pop()?;
        }
        Opcode::DUP => {
            let v = s.last()?.clone();
            s.push(v);
        }
        Opcode::DUP_X1 => {
            let v = s.get(n.checked_sub(1)?)?.clone();
            s.insert(n.checked_sub(2)?, v);
        }
        Opcode::DUP_X2 => {
            let v = s.get(n.checked_sub(1)?)?.clone();
            let at = if cat2(s.get(n.checked_sub(2)?)?) {
                n - 2
            } else {
                n.checked_sub(3)?
            };
            s.insert(at, v);
        }
        Opcode::DUP2 => {
            let top = s.last()?.clone();
            if cat2(&top) {
                s.push(top);
            } else {
                let a = s.get(n.checked_sub(2)?)?.clone();
                s.push(a);
                s.push(top);
            }
        }
        Opcode::DUP2_X1 => {
            let top = s.last()?.clone();
            if cat2(&top) {
                s.insert(n.checked_sub(2)?, top);
            } else {
                let a = s.get(n.checked_sub(2)?)?.clone();
                let at = n.checked_sub(3)?;
                s.insert(at, top);
                s.insert(at, a);
            }
        }
        Opcode::DUP2_X2 => {
            let top = s.last()?.clone();
            if cat2(&top) {
                let at = if cat2(s.get(n.checked_sub(2)?)?) {
                    n - 2
                } else {
                    n.checked_sub(3)?
                };
                s.insert(at, top);
            } else {
                let a = s.get(n.checked_sub(2)?)?.clone();
                let at = if cat2(s.get(n.checked_sub(3)?)?) {
                    n - 3
                } else {
                    n.checked_sub(4)?
                };
                s.insert(at, top);
                s.insert(at, a);
            }
        }
        _ => {
            if n < 2 {
                return None;
            }
            s.swap(n - 1, n - 2);
        }
    }
    Some(())
}
