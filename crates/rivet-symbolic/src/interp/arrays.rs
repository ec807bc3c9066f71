//! Arrays: allocation (a symbolic length splits on negative and stays symbolic for one
//! dimension), element loads and stores with bounds checks as paths of their own, input
//! arrays whose elements are named by access path, and `arraylength`.

use rivet_classfile::ClassName;
use std::sync::Arc;

use rivet_classfile::{Opcode, Operand};
use rivet_pc::{BinaryOp, CmpOp, SymbolSort, Term};

use super::objects::{class_operand, peek_ref};
use super::{advance, bytecode_error, control, method_error, Ctx, Ops, PathEnd, Split, Step};
use crate::error::SymbolicError;
use crate::heap::{Elements, HeapObject, ObjKind};
use crate::lazy;
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};

/// Allocates a concrete array of `length` elements of descriptor `element`.
pub fn alloc_array(state: &mut SymbolicState, element: &str, length: i32) -> ObjectId {
    // Large arrays keep only the elements written.
    let dense = (length <= DENSE_LIMIT).then(|| length.max(0) as usize);
    fresh_array(state, element, Term::int(length), dense)
}

/// A new one-dimensional array of `element`s of `length`, every element the default value:
/// stored densely with `dense` cells, or sparsely (only the elements written) without.
fn fresh_array(
    state: &mut SymbolicState,
    element: &str,
    length: Term,
    dense: Option<usize>,
) -> ObjectId {
    let default = Value::default_for(element.as_bytes().first().copied().unwrap_or(b'I'));
    let elements = match dense {
        Some(n) => Elements::Dense(vec![default; n]),
        None => Elements::Filled {
            entries: Vec::new(),
            default,
        },
    };
    state.alloc(HeapObject {
        type_name: Arc::from(format!("[{element}")),
        class: None,
        kind: ObjKind::Array {
            element: Arc::from(element),
            length,
            elements,
        },
        origin: None,
    })
}

/// Arrays longer than this are stored sparsely.
const DENSE_LIMIT: i32 = 4096;

const MAX_ARRAY: i64 = 1 << 20;

/// `newarray`, `anewarray`, `multianewarray` (a symbolic length splits on negative, then
/// is made concrete).
pub fn new_array(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    op: Opcode,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let (element, dims) = allocated_element(ctx, method, op, operand)?;
    // Lengths, outermost first.
    let mut lengths = Vec::new();
    for _ in 0..dims {
        lengths.push(Ops::pop_int(state)?);
    }
    lengths.reverse();
    let mut concrete = Vec::new();
    for len in &lengths {
        if len.as_int().is_none() {
            let negative = Term::compare(CmpOp::Lt, len.clone(), Term::int(0))
                .map_err(|e| method_error(method, e.to_string()))?;
            match ctx.split(state, negative) {
                Split::True => {
                    control::throw_new(state, ctx, "java/lang/NegativeArraySizeException")?;
                    return Ok(Step::Continue);
                }
                Split::False => {}
                Split::Bound => return Ok(Step::End(PathEnd::Bound("depth".into()))),
                Split::Both(other) => {
                    // The state took the negative side; the other continues and retries.
                    let mut other = *other;
                    for l in &lengths {
                        Ops::push(&mut other, Value::Int(l.clone()))?;
                    }
                    control::throw_new(state, ctx, "java/lang/NegativeArraySizeException")?;
                    return Ok(control::fork(state, other));
                }
            }
        }
        if dims == 1 && len.as_int().is_none() {
            // A one-dimensional array keeps its symbolic length.
            let id = fresh_array(state, &element, len.clone(), None);
            Ops::push(state, Value::Ref(Reference::Object(id)))?;
            advance(state);
            return Ok(Step::Continue);
        }
        let v = ctx.concretize_small(state, len);
        if v < 0 {
            control::throw_new(state, ctx, "java/lang/NegativeArraySizeException")?;
            return Ok(Step::Continue);
        }
        if v > MAX_ARRAY {
            return Ok(Step::End(PathEnd::Bound(format!("array of {v} elements"))));
        }
        concrete.push(v as i32);
    }
    let id = build_array(state, &element, &concrete);
    Ops::push(state, Value::Ref(Reference::Object(id)))?;
    advance(state);
    Ok(Step::Continue)
}

/// The element descriptor and the dimensions `newarray`, `anewarray` or `multianewarray`
/// allocates.
fn allocated_element(
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    op: Opcode,
    operand: &Operand,
) -> Result<(String, u8), SymbolicError> {
    Ok(match (op, operand) {
        (Opcode::NEWARRAY, Operand::NewArray(code)) => {
            let e = match code {
                4 => "Z",
                5 => "C",
                6 => "F",
                7 => "D",
                8 => "B",
                9 => "S",
                10 => "I",
                _ => "J",
            };
            (e.to_string(), 1)
        }
        (Opcode::ANEWARRAY, Operand::Constant(i)) => {
            let name = class_operand(ctx, method, *i)?;
            let e = if name.starts_with('[') {
                name.to_string()
            } else {
                format!("L{name};")
            };
            (e, 1)
        }
        (_, Operand::MultiANewArray { index, dimensions }) => {
            let name = class_operand(ctx, method, *index)?;
            (name[1..].to_string(), *dimensions)
        }
        _ => return Err(method_error(method, "bad array allocation")),
    })
}

/// A (possibly multi-dimensional) array; `element` is the innermost-but-`lengths.len()-1`
/// element descriptor.
fn build_array(state: &mut SymbolicState, element: &str, lengths: &[i32]) -> ObjectId {
    match lengths {
        [] | [_] => alloc_array(state, element, lengths.first().copied().unwrap_or(0)),
        [n, rest @ ..] => {
            let inner = &element[1..];
            let children: Vec<Value> = (0..*n)
                .map(|_| Value::Ref(Reference::Object(build_array(state, inner, rest))))
                .collect();
            let id = alloc_array(state, element, *n);
            if let Some(ObjKind::Array {
                elements: Elements::Dense(e),
                ..
            }) = state.object_mut(id).map(|o| &mut o.kind)
            {
                *e = children;
            }
            id
        }
    }
}

/// Resolves the array reference `depth` down the stack: Ok(Some(id)) to go on; Ok(None)
/// with `step` set when resolution forked or null was dereferenced.
fn array_ref(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    depth: usize,
    pops: usize,
) -> Result<Result<ObjectId, Step>, SymbolicError> {
    match peek_ref(state, depth)? {
        Reference::Symbolic(s) => Ok(Err(lazy::resolve(state, ctx, s)?)),
        Reference::Null => {
            for _ in 0..pops {
                Ops::pop(state)?;
            }
            control::throw_new(state, ctx, "java/lang/NullPointerException")?;
            Ok(Err(Step::Continue))
        }
        Reference::Object(id) => Ok(Ok(id)),
    }
}

/// Checks `0 <= index < length`: Ok(index) in bounds; otherwise the step (the exception,
/// or a fork between both).
fn bounds(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    array: ObjectId,
    index: &Term,
    pops: usize,
) -> Result<Result<i32, Step>, SymbolicError> {
    let length = match state.object(array).map(|o| &o.kind) {
        Some(ObjKind::Array { length, .. }) => length.clone(),
        _ => {
            return Ok(Err(Step::End(PathEnd::Unsupported(
                "array operation on a non-array".into(),
            ))))
        }
    };
    let err = |e: rivet_pc::SortError| SymbolicError::Bytecode {
        class: ClassName::from_internal("?"),
        method: "?".into(),
        reason: e.to_string(),
    };
    let lower = Term::compare(CmpOp::Ge, index.clone(), Term::int(0)).map_err(err)?;
    let upper = Term::compare(CmpOp::Lt, index.clone(), length).map_err(err)?;
    let inside = Term::binary(BinaryOp::And, lower, upper).map_err(err)?;
    let throw = |s: &mut SymbolicState, ctx: &mut Ctx<'_>| -> Result<(), SymbolicError> {
        for _ in 0..pops {
            Ops::pop(s)?;
        }
        control::throw_new(s, ctx, "java/lang/ArrayIndexOutOfBoundsException")
    };
    match ctx.split(state, inside) {
        Split::True => {}
        Split::False => {
            throw(state, ctx)?;
            return Ok(Err(Step::Continue));
        }
        Split::Bound => return Ok(Err(Step::End(PathEnd::Bound("depth".into())))),
        Split::Both(other) => {
            // The in-bounds side retries the instruction (now decided); the other throws.
            let mut outside = *other;
            throw(&mut outside, ctx)?;
            return Ok(Err(control::fork(state, outside)));
        }
    }
    if index.as_int().is_none() {
        if let Some(step) = index_alternatives(state, ctx, array, index)? {
            return Ok(Err(step));
        }
    }
    Ok(Ok(ctx.concretize(state, index) as i32))
}

/// A symbolic index into an input array (JBSE): it is one of the indices read or written
/// so far, or another one. Forks when several are feasible (each successor runs the
/// instruction again, now with one alternative left); None when at most one is.
fn index_alternatives(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    array: ObjectId,
    index: &Term,
) -> Result<Option<Step>, SymbolicError> {
    let keys: Vec<i32> = match state.object(array).map(|o| &o.kind) {
        Some(ObjKind::Array {
            elements: Elements::Sparse(e),
            ..
        }) if !e.is_empty() => e.iter().map(|(k, _)| *k).collect(),
        _ => return Ok(None),
    };
    let err = |e: rivet_pc::SortError| SymbolicError::Bytecode {
        class: ClassName::from_internal("?"),
        method: "?".into(),
        reason: e.to_string(),
    };
    let mut alternatives = Vec::with_capacity(keys.len() + 1);
    let mut other = Term::bool(true);
    for k in &keys {
        alternatives.push(Term::compare(CmpOp::Eq, index.clone(), Term::int(*k)).map_err(err)?);
        let ne = Term::compare(CmpOp::Ne, index.clone(), Term::int(*k)).map_err(err)?;
        other = Term::binary(BinaryOp::And, other, ne).map_err(err)?;
    }
    alternatives.push(other);
    let mut feasible = Vec::new();
    for clause in alternatives {
        if state.numeric.contains(&clause) {
            // Already assumed: the only alternative.
            return Ok(None);
        }
        if state.model.eval(&clause) == rivet_pc::Concrete::Bool(true) {
            feasible.push((clause, None));
        } else if let Some(m) = ctx.feasible(&state.numeric, &clause, &state.model.clone()) {
            feasible.push((clause, Some(m)));
        }
    }
    if feasible.len() <= 1 {
        if let Some((clause, model)) = feasible.pop() {
            state.assume(rivet_pc::Clause::Numeric(clause));
            if let Some(m) = model {
                state.model.merge(&m);
            }
        }
        return Ok(None);
    }
    if state.depth >= ctx.config.depth {
        return Ok(Some(Step::End(PathEnd::Bound("depth".into()))));
    }
    let mut out = Vec::with_capacity(feasible.len());
    for (clause, model) in feasible {
        let mut s = state.clone();
        s.depth += 1;
        s.assume(rivet_pc::Clause::Numeric(clause));
        if let Some(m) = model {
            s.model.merge(&m);
        }
        out.push(s);
    }
    Ok(Some(Step::Fork(out)))
}

fn element_sort(element: &str) -> Option<SymbolSort> {
    Some(match element.as_bytes().first()? {
        b'Z' => SymbolSort::Boolean,
        b'B' => SymbolSort::Byte,
        b'C' => SymbolSort::Char,
        b'S' => SymbolSort::Short,
        b'I' => SymbolSort::Int,
        b'J' => SymbolSort::Long,
        _ => return None,
    })
}

/// `iaload` .. `saload`.
pub fn array_load(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    _op: Opcode,
) -> Result<Step, SymbolicError> {
    let array = match array_ref(state, ctx, 1, 2)? {
        Ok(id) => id,
        Err(step) => return Ok(step),
    };
    let index = match Ops::peek(state, 0)? {
        Value::Int(t) => t.clone(),
        other => {
            return Err(bytecode_error(
                state.frames.last().ok_or_else(super::no_frame)?,
                format!("array index {other:?}"),
            ))
        }
    };
    let i = match bounds(state, ctx, array, &index, 2)? {
        Ok(i) => i,
        Err(step) => return Ok(step),
    };
    Ops::pop(state)?;
    Ops::pop(state)?;
    let existing = match state.object(array).map(|o| &o.kind) {
        Some(ObjKind::Array { elements, .. }) => elements.get(i),
        _ => None,
    };
    let v = match existing {
        Some(v) => v,
        None => {
            let (element, path) = match state.object(array) {
                Some(HeapObject {
                    kind: ObjKind::Array { element, .. },
                    origin: Some(o),
                    ..
                }) => (element.clone(), o.path.index(&i.to_string())),
                _ => return Ok(Step::End(PathEnd::Bound("array element missing".into()))),
            };
            let v = lazy::input_value(state, ctx, &element, path, None)?;
            if let Some(ObjKind::Array {
                elements: Elements::Sparse(e),
                ..
            }) = state.object_mut(array).map(|o| &mut o.kind)
            {
                e.push((i, v.clone()));
            }
            v
        }
    };
    Ops::push(state, v)?;
    advance(state);
    Ok(Step::Continue)
}

/// `iastore` .. `sastore`.
pub fn array_store(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    _op: Opcode,
) -> Result<Step, SymbolicError> {
    let array = match array_ref(state, ctx, 2, 3)? {
        Ok(id) => id,
        Err(step) => return Ok(step),
    };
    let index = match Ops::peek(state, 1)? {
        Value::Int(t) => t.clone(),
        other => {
            return Err(bytecode_error(
                state.frames.last().ok_or_else(super::no_frame)?,
                format!("array index {other:?}"),
            ))
        }
    };
    let i = match bounds(state, ctx, array, &index, 3)? {
        Ok(i) => i,
        Err(step) => return Ok(step),
    };
    let mut v = Ops::pop(state)?.settled();
    Ops::pop(state)?;
    Ops::pop(state)?;
    if let Some(ObjKind::Array {
        element, elements, ..
    }) = state.object_mut(array).map(|o| &mut o.kind)
    {
        // Narrow stores truncate.
        if let (Value::Int(t), Some(sort)) = (&v, element_sort(element)) {
            let op = match sort {
                SymbolSort::Byte => Some(rivet_pc::UnaryOp::I2B),
                SymbolSort::Char => Some(rivet_pc::UnaryOp::I2C),
                SymbolSort::Short => Some(rivet_pc::UnaryOp::I2S),
                _ => None,
            };
            if let Some(op) = op {
                if let Ok(n) = Term::unary(op, t.clone()) {
                    v = Value::Int(n);
                }
            }
        }
        elements.set(i, v);
    }
    advance(state);
    Ok(Step::Continue)
}

/// `arraylength`.
pub fn array_length(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<Step, SymbolicError> {
    let array = match array_ref(state, ctx, 0, 1)? {
        Ok(id) => id,
        Err(step) => return Ok(step),
    };
    Ops::pop(state)?;
    let len = match state.object(array).map(|o| &o.kind) {
        Some(ObjKind::Array { length, .. }) => length.clone(),
        _ => {
            return Ok(Step::End(PathEnd::Unsupported(
                "arraylength of a non-array".into(),
            )))
        }
    };
    Ops::push(state, Value::Int(len))?;
    advance(state);
    Ok(Step::Continue)
}
