//! Objects and statics: `new`, field access (resolving symbolic references first,
//! null dereference as its own path), static initialization, strings and class mirrors,
//! `checkcast`/`instanceof`, monitors and constants.

use rivet_classfile::ClassName;
use std::sync::Arc;

use rivet_classfile::{Constant, CpIndex, Opcode, Operand};
use rivet_pc::Term;

use super::{advance, bytecode_error, control, method_error, Ctx, Ops, PathEnd, Step};
use crate::error::SymbolicError;
use crate::heap::{is_string_class, HeapObject, ObjKind, StrValue};
use crate::lazy;
use crate::program::{ClassId, MemberRefInfo, MethodBody};
use crate::state::{ClassStatics, Frame, FrameKind, InitState, SymbolicState};
use crate::value::{ObjectId, Reference, SymRefId, Value};

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
                .map(|f| Value::default_for(f.ty.to_string().bytes().next().unwrap_or(b'I')))
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

/// A new box of wrapper class `class` (`java/lang/Integer`, …) holding `value`, as
/// `Integer.valueOf` or javac's boxing make it.
pub fn alloc_box(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    class: &str,
    value: Value,
) -> Result<ObjectId, SymbolicError> {
    let id = alloc_instance(state, ctx, class)?;
    let slot = ctx.program.require(class)?.field_by_name("value");
    if let (Some(slot), Some(ObjKind::Instance(fields))) =
        (slot, state.object_mut(id).map(|o| &mut o.kind))
    {
        if let Some(cell) = fields.get_mut(slot) {
            *cell = value;
        }
    }
    Ok(id)
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
        Constant::Float(bits) => Value::float(f32::from_bits(*bits)),
        Constant::Double(bits) => Value::double(f64::from_bits(*bits)),
        Constant::String { string } => {
            let text = cp.utf8(*string).map_err(|e| SymbolicError::BadClass {
                class: ClassName::from_internal(&info.name),
                reason: e.to_string(),
            })?;
            Value::Ref(Reference::Object(literal(state, ctx, text)?))
        }
        Constant::Class { name } => {
            let text = cp.utf8(*name).map_err(|e| SymbolicError::BadClass {
                class: ClassName::from_internal(&info.name),
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
        None => Ok(Step::End(PathEnd::Unsupported(format!("ldc of {c:?}")))),
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
            values.push(v.unwrap_or_else(|| {
                Value::default_for(f.ty.to_string().bytes().next().unwrap_or(b'I'))
            }));
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
            if crate::natives::model_of(&m).is_none() {
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
pub(super) fn static_owner(
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
pub fn field_slot(
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

/// Field `slot` of instance `id`, when it is one and has it.
pub fn read_slot(state: &SymbolicState, id: ObjectId, slot: usize) -> Option<Value> {
    match &state.object(id)?.kind {
        ObjKind::Instance(fields) => fields.get(slot).cloned(),
        _ => None,
    }
}

/// Writes field `slot` of instance `id` (nothing when it is not one or lacks it).
pub fn write_slot(state: &mut SymbolicState, id: ObjectId, slot: usize, v: Value) {
    if let Some(ObjKind::Instance(fields)) = state.object_mut(id).map(|o| &mut o.kind) {
        if let Some(cell) = fields.get_mut(slot) {
            *cell = v;
        }
    }
}

/// The reference `depth` slots down the stack, with resolutions applied.
pub(super) fn peek_ref(state: &SymbolicState, depth: usize) -> Result<Reference, SymbolicError> {
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
    match op {
        Opcode::GETSTATIC | Opcode::PUTSTATIC => static_field_op(state, ctx, op, &fref),
        _ => instance_field_op(state, ctx, op, &fref),
    }
}

/// `getstatic`, `putstatic`: the owner's statics, once it is initialized.
fn static_field_op(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    op: Opcode,
    fref: &MemberRefInfo,
) -> Result<Step, SymbolicError> {
    let Some((class, slot)) = static_owner(ctx, &fref.owner, &fref.name)? else {
        return Ok(Step::End(PathEnd::Unsupported(format!(
            "no static field {}.{}",
            ClassName::from_internal(&fref.owner),
            fref.name
        ))));
    };
    let cname = ctx.program.class_by_id(class).name.clone();
    if !ensure_initialized(state, ctx, &cname)? {
        return Ok(Step::Continue);
    }
    if op == Opcode::GETSTATIC {
        let desc0 = fref.descriptor.as_bytes().first().copied().unwrap_or(b'I');
        let v = state
            .statics
            .get(&class)
            .and_then(|s| s.values.get(slot).cloned())
            .unwrap_or_else(|| Value::default_for(desc0));
        Ops::push(state, v)?;
    } else {
        let v = Ops::pop(state)?.settled();
        if let Some(s) = state.statics_mut().get_mut(&class) {
            if let Some(cell) = s.values.get_mut(slot) {
                *cell = v;
            }
        }
    }
    advance(state);
    Ok(Step::Continue)
}

/// `getfield`, `putfield`: a symbolic receiver is resolved first, a null one throws; a
/// field the object lacks reads as a fresh value (and is not written).
fn instance_field_op(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    op: Opcode,
    fref: &MemberRefInfo,
) -> Result<Step, SymbolicError> {
    let depth = usize::from(op == Opcode::PUTFIELD);
    let id = match peek_ref(state, depth)? {
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
        let v = Ops::pop(state)?.settled();
        Ops::pop(state)?;
        if let Some(s) = slot {
            if let Some(ObjKind::Instance(fields)) = state.object_mut(id).map(|o| &mut o.kind) {
                if let Some(cell) = fields.get_mut(s) {
                    *cell = v;
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

pub(super) fn class_operand(
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
        Reference::Symbolic(s) => {
            // An unresolved input cast to a subtype of its static type: a fresh object of the
            // subtype becomes one of its choices (the others stay, and throw).
            if op == Opcode::CHECKCAST {
                narrow(state, ctx, s, &target);
            }
            return lazy::resolve(state, ctx, s);
        }
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

/// Records that an unresolved symbolic reference is cast to `target`, a proper subtype of its
/// static type.
fn narrow(state: &mut SymbolicState, ctx: &mut Ctx<'_>, s: SymRefId, target: &Arc<str>) {
    let Some(sr) = state.symrefs.get(s.0 as usize) else {
        return;
    };
    if sr.resolved.is_some() || *sr.ty == **target {
        return;
    }
    if ctx.program.is_assignable(target, &sr.ty) {
        if let Some(sr) = state.symrefs.get_mut(s.0 as usize) {
            sr.cast = Some(target.clone());
        }
    }
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
