//! Objects, arrays and statics: `new`, field access (resolving symbolic references first,
//! null dereference as its own path), static initialization, arrays with bounds and
//! negative-size checks, `checkcast`/`instanceof`, monitors and constants.

use std::sync::Arc;

use rivet_classfile::{Constant, CpIndex, Opcode, Operand};
use rivet_solver::{BinaryOp, CmpOp, SymbolSort, Term};

use super::{advance, bytecode_error, control, method_error, Ctx, Ops, PathEnd, Split, Step};
use crate::error::SymbolicError;
use crate::heap::{Elements, HeapObject, ObjKind, StrValue};
use crate::lazy;
use crate::program::{ClassId, MethodBody};
use crate::state::{ClassStatics, Frame, FrameKind, InitState, SymbolicState};
use crate::value::{ObjectId, Reference, Value};

/// Classes whose instances are modelled as strings.
pub fn is_string_class(name: &str) -> bool {
    matches!(
        name,
        "java/lang/String" | "java/lang/StringBuilder" | "java/lang/StringBuffer"
    )
}

/// Allocates an instance of `class` with default field values (no constructor runs).
pub fn alloc_instance(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    class: &str,
) -> Result<ObjectId, SymbolicError> {
    let info = ctx.program.require(class)?;
    let kind = if is_string_class(class) {
        ObjKind::Str(StrValue::Concrete(Arc::from("")))
    } else {
        ObjKind::Instance(
            info.fields
                .iter()
                .map(|f| Value::default_for(f.ty.to_string().as_bytes()[0]))
                .collect(),
        )
    };
    Ok(state.alloc(HeapObject {
        type_name: info.name.clone(),
        class: Some(info.id),
        kind,
        origin: None,
    }))
}

/// Allocates a `java.lang.String` with the given contents.
pub fn alloc_string(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    value: StrValue,
) -> Result<ObjectId, SymbolicError> {
    let info = ctx.program.require("java/lang/String")?;
    Ok(state.alloc(HeapObject {
        type_name: info.name.clone(),
        class: Some(info.id),
        kind: ObjKind::Str(value),
        origin: None,
    }))
}

/// The interned literal string `text`.
pub fn literal(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<ObjectId, SymbolicError> {
    if let Some(id) = state.literals.get(text) {
        return Ok(*id);
    }
    let id = alloc_string(state, ctx, StrValue::Concrete(Arc::from(text)))?;
    state.literals.insert(Arc::from(text), id);
    Ok(id)
}

/// The `java.lang.Class` object of a type (internal name or descriptor), one per type.
pub fn mirror(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    type_name: &str,
) -> Result<ObjectId, SymbolicError> {
    if let Some(id) = state.mirrors.get(type_name) {
        return Ok(*id);
    }
    let info = ctx.program.require("java/lang/Class")?;
    let id = state.alloc(HeapObject {
        type_name: info.name.clone(),
        class: Some(info.id),
        kind: ObjKind::Mirror(Arc::from(type_name)),
        origin: None,
    });
    state.mirrors.insert(Arc::from(type_name), id);
    Ok(id)
}

fn constant_value(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    class: &ClassId,
    c: &Constant,
) -> Result<Option<Value>, SymbolicError> {
    let info = ctx.program.class_by_id(*class).clone();
    let cp = &info.file.constant_pool;
    Ok(Some(match c {
        Constant::Integer(v) => Value::int(*v),
        Constant::Long(v) => Value::Long(Term::long(*v)),
        Constant::Float(bits) => Value::Float(f32::from_bits(*bits)),
        Constant::Double(bits) => Value::Double(f64::from_bits(*bits)),
        Constant::String { string } => {
            let text = cp.utf8(*string).map_err(|e| SymbolicError::BadClass {
                class: info.name.replace('/', "."),
                reason: e.to_string(),
            })?;
            Value::Ref(Reference::Object(literal(state, ctx, text)?))
        }
        Constant::Class { name } => {
            let text = cp.utf8(*name).map_err(|e| SymbolicError::BadClass {
                class: info.name.replace('/', "."),
                reason: e.to_string(),
            })?;
            Value::Ref(Reference::Object(mirror(state, ctx, text)?))
        }
        _ => return Ok(None),
    }))
}

/// `ldc`, `ldc_w`, `ldc2_w`.
pub fn ldc(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let Operand::Constant(index) = operand else {
        return Err(method_error(method, "ldc without a constant"));
    };
    let info = ctx.program.class_by_id(method.class).clone();
    let Some(c) = info.file.constant_pool.get(*index).cloned() else {
        return Err(method_error(
            method,
            format!("ldc of missing constant {}", index.0),
        ));
    };
    match constant_value(state, ctx, &method.class, &c)? {
        Some(v) => {
            Ops::push(state, v)?;
            advance(state);
            Ok(Step::Continue)
        }
        None => Ok(Step::End(PathEnd::Bound(format!(
            "ldc of {c:?} is not supported"
        )))),
    }
}

/// Makes sure class `name`'s statics exist in the state; if static initializers must run
/// first, pushes their frames and returns false (the current instruction runs again).
pub fn ensure_initialized(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    name: &str,
) -> Result<bool, SymbolicError> {
    let info = ctx.program.require(name)?;
    if state.statics.contains_key(&info.id) {
        return Ok(true);
    }
    let mut chain = vec![info];
    while let Some(sup) = chain.last().and_then(|c| c.super_name.clone()) {
        let s = ctx.program.require(&sup)?;
        if state.statics.contains_key(&s.id) {
            break;
        }
        chain.push(s);
    }
    let mut pushed = false;
    for class in chain {
        let mut values = Vec::with_capacity(class.statics.len());
        for f in &class.statics {
            let v = match &f.constant {
                Some(c) => constant_value(state, ctx, &class.id, c)?,
                None => None,
            };
            values.push(v.unwrap_or_else(|| Value::default_for(f.ty.to_string().as_bytes()[0])));
        }
        let clinit = ctx.program.declared_method(&class, "<clinit>", "()V")?;
        let init = if clinit.is_some() {
            InitState::Running
        } else {
            InitState::Done
        };
        state
            .statics_mut()
            .insert(class.id, ClassStatics { init, values });
        if let Some(m) = clinit {
            if m.model.is_none() {
                let locals = vec![Value::Top; m.max_locals];
                state.frames.push(Frame {
                    method: m,
                    pc: 0,
                    locals,
                    stack: Vec::new(),
                    kind: FrameKind::Clinit(class.id),
                });
                pushed = true;
            } else if let Some(s) = state.statics_mut().get_mut(&class.id) {
                s.init = InitState::Done;
            }
        }
    }
    Ok(!pushed)
}

/// The class declaring static field `name`, searching `owner`, its interfaces and superclasses.
fn static_owner(
    ctx: &mut Ctx<'_>,
    owner: &str,
    name: &str,
) -> Result<Option<(ClassId, usize)>, SymbolicError> {
    let mut queue: Vec<Arc<str>> = vec![Arc::from(owner)];
    while let Some(c) = queue.pop() {
        let Some(info) = ctx.program.load(&c)? else {
            continue;
        };
        if let Some(slot) = info.static_slot(name) {
            return Ok(Some((info.id, slot)));
        }
        if let Some(s) = &info.super_name {
            queue.push(s.clone());
        }
        queue.extend(info.interfaces.iter().rev().cloned());
    }
    Ok(None)
}

/// The slot of instance field `owner.name` in an object of class `class`.
fn field_slot(
    ctx: &mut Ctx<'_>,
    class: ClassId,
    owner: &str,
    name: &str,
) -> Result<Option<usize>, SymbolicError> {
    let info = ctx.program.class_by_id(class).clone();
    let mut current: Option<Arc<str>> = Some(Arc::from(owner));
    while let Some(c) = current {
        if let Some(slot) = info.field_slot(&c, name) {
            return Ok(Some(slot));
        }
        current = ctx.program.load(&c)?.and_then(|i| i.super_name.clone());
    }
    Ok(info.field_by_name(name))
}

/// The reference `depth` slots down the stack, with resolutions applied.
fn peek_ref(state: &SymbolicState, depth: usize) -> Result<Reference, SymbolicError> {
    match Ops::peek(state, depth)? {
        Value::Ref(r) => Ok(state.deref(*r)),
        other => Err(bytecode_error(
            state.frames.last().ok_or_else(super::no_frame)?,
            format!("expected a reference, found {other:?}"),
        )),
    }
}

/// `getstatic`, `putstatic`, `getfield`, `putfield`.
pub fn field_op(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    op: Opcode,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let Operand::Constant(index) = operand else {
        return Err(method_error(method, "field access without a reference"));
    };
    let fref = ctx.program.member_ref(method.class, *index)?;
    let desc0 = fref.descriptor.as_bytes().first().copied().unwrap_or(b'I');
    match op {
        Opcode::GETSTATIC | Opcode::PUTSTATIC => {
            let Some((class, slot)) = static_owner(ctx, &fref.owner, &fref.name)? else {
                return Ok(Step::End(PathEnd::Bound(format!(
                    "no static field {}.{}",
                    fref.owner, fref.name
                ))));
            };
            let cname = ctx.program.class_by_id(class).name.clone();
            if !ensure_initialized(state, ctx, &cname)? {
                return Ok(Step::Continue);
            }
            if op == Opcode::GETSTATIC {
                let v = state
                    .statics
                    .get(&class)
                    .and_then(|s| s.values.get(slot).cloned())
                    .unwrap_or_else(|| Value::default_for(desc0));
                Ops::push(state, v)?;
            } else {
                let v = Ops::pop(state)?;
                if let Some(s) = state.statics_mut().get_mut(&class) {
                    if let Some(cell) = s.values.get_mut(slot) {
                        *cell = v;
                    }
                }
            }
        }
        _ => {
            let depth = usize::from(op == Opcode::PUTFIELD);
            let target = peek_ref(state, depth)?;
            let id = match target {
                Reference::Symbolic(s) => return lazy::resolve(state, ctx, s),
                Reference::Null => {
                    Ops::pop(state)?;
                    if depth == 1 {
                        Ops::pop(state)?;
                    }
                    control::throw_new(state, ctx, "java/lang/NullPointerException")?;
                    return Ok(Step::Continue);
                }
                Reference::Object(id) => id,
            };
            let class = state.object(id).and_then(|o| o.class);
            let slot = match class {
                Some(c)
                    if matches!(
                        state.object(id).map(|o| &o.kind),
                        Some(ObjKind::Instance(_))
                    ) =>
                {
                    field_slot(ctx, c, &fref.owner, &fref.name)?
                }
                _ => None,
            };
            if op == Opcode::GETFIELD {
                Ops::pop(state)?;
                let v = match slot.and_then(|s| match &state.object(id)?.kind {
                    ObjKind::Instance(f) => f.get(s).cloned(),
                    _ => None,
                }) {
                    Some(v) => v,
                    None => super::calls::fresh_value(
                        state,
                        ctx,
                        &fref.descriptor,
                        &format!(
                            "{}.{}",
                            fref.owner.rsplit('/').next().unwrap_or(""),
                            fref.name
                        ),
                    )?,
                };
                Ops::push(state, v)?;
            } else {
                let v = Ops::pop(state)?;
                Ops::pop(state)?;
                if let Some(s) = slot {
                    if let Some(ObjKind::Instance(fields)) =
                        state.object_mut(id).map(|o| &mut o.kind)
                    {
                        if let Some(cell) = fields.get_mut(s) {
                            *cell = v;
                        }
                    }
                }
            }
        }
    }
    advance(state);
    Ok(Step::Continue)
}

/// `new`.
pub fn new_object(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let Operand::Constant(index) = operand else {
        return Err(method_error(method, "new without a class"));
    };
    let name = class_operand(ctx, method, *index)?;
    if !ensure_initialized(state, ctx, &name)? {
        return Ok(Step::Continue);
    }
    let id = alloc_instance(state, ctx, &name)?;
    Ops::push(state, Value::Ref(Reference::Object(id)))?;
    advance(state);
    Ok(Step::Continue)
}

fn class_operand(
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    index: CpIndex,
) -> Result<Arc<str>, SymbolicError> {
    let info = ctx.program.class_by_id(method.class).clone();
    info.file
        .constant_pool
        .class_name(index)
        .map(Arc::from)
        .map_err(|e| method_error(method, e.to_string()))
}

/// Allocates a concrete array of `length` elements of descriptor `element`.
pub fn alloc_array(state: &mut SymbolicState, element: &str, length: i32) -> ObjectId {
    let default = Value::default_for(element.as_bytes().first().copied().unwrap_or(b'I'));
    state.alloc(HeapObject {
        type_name: Arc::from(format!("[{element}")),
        class: None,
        kind: ObjKind::Array {
            element: Arc::from(element),
            length: Term::int(length),
            elements: Elements::Dense(vec![default; length.max(0) as usize]),
        },
        origin: None,
    })
}

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
    let (element, dims): (String, u8) = match (op, operand) {
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
    };
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
            let default = Value::default_for(element.as_bytes().first().copied().unwrap_or(b'I'));
            let id = state.alloc(HeapObject {
                type_name: Arc::from(format!("[{element}")),
                class: None,
                kind: ObjKind::Array {
                    element: Arc::from(element.as_str()),
                    length: len.clone(),
                    elements: Elements::Filled {
                        entries: Vec::new(),
                        default,
                    },
                },
                origin: None,
            });
            Ops::push(state, Value::Ref(Reference::Object(id)))?;
            advance(state);
            return Ok(Step::Continue);
        }
        let v = ctx.concretize(state, len);
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
            return Ok(Err(Step::End(PathEnd::Bound(
                "array operation on a non-array".into(),
            ))))
        }
    };
    let err = |e: rivet_solver::SortError| SymbolicError::Bytecode {
        class: "?".into(),
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
    Ok(Ok(ctx.concretize(state, index) as i32))
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
    let mut v = Ops::pop(state)?;
    Ops::pop(state)?;
    Ops::pop(state)?;
    if let Some(ObjKind::Array {
        element, elements, ..
    }) = state.object_mut(array).map(|o| &mut o.kind)
    {
        // Narrow stores truncate.
        if let (Value::Int(t), Some(sort)) = (&v, element_sort(element)) {
            let op = match sort {
                SymbolSort::Byte => Some(rivet_solver::UnaryOp::I2B),
                SymbolSort::Char => Some(rivet_solver::UnaryOp::I2C),
                SymbolSort::Short => Some(rivet_solver::UnaryOp::I2S),
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
            return Ok(Step::End(PathEnd::Bound(
                "arraylength of a non-array".into(),
            )))
        }
    };
    Ops::push(state, Value::Int(len))?;
    advance(state);
    Ok(Step::Continue)
}

/// `checkcast` and `instanceof`.
pub fn type_check(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    op: Opcode,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let Operand::Constant(index) = operand else {
        return Err(method_error(method, "type check without a class"));
    };
    let target = class_operand(ctx, method, *index)?;
    let r = peek_ref(state, 0)?;
    let fits = match r {
        Reference::Symbolic(s) => return lazy::resolve(state, ctx, s),
        Reference::Null => None,
        Reference::Object(id) => {
            let ty = state
                .object(id)
                .map(|o| o.type_name.clone())
                .unwrap_or_else(|| Arc::from("java/lang/Object"));
            Some(ctx.program.is_assignable(&ty, &target))
        }
    };
    if op == Opcode::INSTANCEOF {
        Ops::pop(state)?;
        Ops::push(state, Value::int(i32::from(fits == Some(true))))?;
    } else if fits == Some(false) {
        Ops::pop(state)?;
        control::throw_new(state, ctx, "java/lang/ClassCastException")?;
        return Ok(Step::Continue);
    }
    advance(state);
    Ok(Step::Continue)
}

/// `monitorenter`, `monitorexit`: only the null check matters to a single thread.
pub fn monitor(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<Step, SymbolicError> {
    match peek_ref(state, 0)? {
        Reference::Symbolic(s) => lazy::resolve(state, ctx, s),
        Reference::Null => {
            Ops::pop(state)?;
            control::throw_new(state, ctx, "java/lang/NullPointerException")?;
            Ok(Step::Continue)
        }
        Reference::Object(_) => {
            Ops::pop(state)?;
            advance(state);
            Ok(Step::Continue)
        }
    }
}
