//! Models of `java.lang.Class` and the mirrors: `Object.getClass`, `Class`'s queries
//! (`getName`, `getSimpleName`, `isArray`, `isPrimitive`, `isInterface`,
//! `getComponentType`, `isInstance`, `hashCode`, `desiredAssertionStatus`,
//! `getPrimitiveClass`) and `reflect.Array.newInstance`.

use std::sync::Arc;

use super::{finish, identity_hash, not_followed, object_arg};
use crate::context::{Ctx, Step};
use crate::error::SymbolicError;
use crate::heap::{ObjKind, StrValue};
use crate::interp;
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{Reference, Value};

/// The names of the primitive types' mirrors.
fn is_primitive_name(name: &str) -> bool {
    matches!(
        name,
        "int" | "long" | "boolean" | "byte" | "char" | "short" | "float" | "double" | "void"
    )
}

/// `Object.getClass`: the mirror of the object's class.
pub(super) fn get_class(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let ty = object_arg(state, args.first())
        .and_then(|id| state.object(id))
        .map(|o| o.type_name.clone());
    match ty {
        Some(ty) => {
            let m = interp::mirror(state, ctx, &ty)?;
            finish(state, Some(Value::Ref(Reference::Object(m))))
        }
        None => not_followed(state, ctx, target),
    }
}

/// `Array.newInstance(component, length)` with a concrete length.
pub(super) fn array_new_instance(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let component = object_arg(state, args.first()).and_then(|id| match &state.object(id)?.kind {
        ObjKind::Mirror(t) => Some(t.clone()),
        _ => None,
    });
    let len = match args.get(1) {
        Some(Value::Int(t)) => ctx.concretize(state, &t.clone()),
        _ => 0,
    };
    match component {
        Some(c) if (0..1 << 20).contains(&len) => {
            let element = descriptor_of(&c);
            let id = interp::alloc_array(state, &element, len as i32);
            finish(state, Some(Value::Ref(Reference::Object(id))))
        }
        _ => not_followed(state, ctx, target),
    }
}

/// The field descriptor of a type named by internal name, descriptor or primitive name.
fn descriptor_of(ty: &str) -> String {
    match ty {
        "int" => "I".into(),
        "long" => "J".into(),
        "boolean" => "Z".into(),
        "byte" => "B".into(),
        "char" => "C".into(),
        "short" => "S".into(),
        "float" => "F".into(),
        "double" => "D".into(),
        t if t.starts_with('[') => t.to_string(),
        t => format!("L{t};"),
    }
}

/// `Class`'s methods: `getPrimitiveClass` by name, the others on the receiver's mirror;
/// what is not modelled is not followed.
pub(super) fn class_method(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    if &*target.name == "getPrimitiveClass" {
        if let Some(step) = primitive_class(state, ctx, &args)? {
            return Ok(step);
        }
    }
    let ty = object_arg(state, args.first()).and_then(|id| match &state.object(id)?.kind {
        ObjKind::Mirror(t) => Some(t.clone()),
        _ => None,
    });
    let Some(ty) = ty else {
        return not_followed(state, ctx, target);
    };
    match class_query(state, ctx, target, &args, &ty)? {
        Some(result) => finish(state, Some(result)),
        None => not_followed(state, ctx, target),
    }
}

/// `Class.getPrimitiveClass("int")` (static; from the static initializers of the boxes):
/// the primitive type's mirror; None if the name is not a concrete primitive name.
fn primitive_class(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let name = object_arg(state, args.first())
        .and_then(|id| match state.string_of(id)? {
            StrValue::Concrete(s) => Some(s.to_string()),
            StrValue::Opaque | StrValue::Term(_) => None,
        })
        .filter(|n| is_primitive_name(n));
    let Some(name) = name else {
        return Ok(None);
    };
    let id = interp::mirror(state, ctx, &name)?;
    interp::Ops::push(state, Value::Ref(Reference::Object(id)))?;
    interp::advance(state);
    Ok(Some(Step::Continue))
}

/// The answer of `Class` method `target` on the mirror of `ty`; None if not modelled.
fn class_query(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &MethodBody,
    args: &[Value],
    ty: &Arc<str>,
) -> Result<Option<Value>, SymbolicError> {
    let primitive = is_primitive_name(ty);
    Ok(Some(match (&*target.name, &*target.descriptor) {
        ("desiredAssertionStatus", _) => Value::int(0),
        ("isArray", _) => Value::int(i32::from(ty.starts_with('['))),
        ("isPrimitive", _) => Value::int(i32::from(primitive)),
        ("isInterface", _) => {
            let i = !primitive
                && !ty.starts_with('[')
                && ctx.program.load(ty)?.is_some_and(|c| c.is_interface());
            Value::int(i32::from(i))
        }
        ("hashCode", "()I") => Value::int(
            object_arg(state, args.first())
                .map(identity_hash)
                .unwrap_or(0),
        ),
        ("getName" | "getTypeName" | "getSimpleName", _) => {
            let text = class_name_text(ty, &*target.name == "getSimpleName");
            let id = interp::alloc_string(state, ctx, StrValue::Concrete(Arc::from(text)))?;
            Value::Ref(Reference::Object(id))
        }
        ("getComponentType", _) => match ty.strip_prefix('[') {
            Some(c) => Value::Ref(Reference::Object(interp::mirror(
                state,
                ctx,
                component_name(c),
            )?)),
            None => Value::null(),
        },
        ("isInstance", _) => {
            let of = object_arg(state, args.get(1))
                .and_then(|id| state.object(id))
                .map(|o| o.type_name.clone());
            let fits = match of {
                Some(t) => ctx.program.is_assignable(&t, ty),
                None => false,
            };
            Value::int(i32::from(fits))
        }
        _ => return Ok(None),
    }))
}

/// `Class.getName` (binary name) or `getSimpleName` of the class named `ty`.
fn class_name_text(ty: &str, simple: bool) -> String {
    let binary = rivet_classfile::ClassName::from_internal(ty).binary();
    if simple {
        binary
            .rsplit(['.', '$'])
            .next()
            .unwrap_or(&binary)
            .to_string()
    } else {
        binary
    }
}

/// The mirror name of an array's component, from the descriptor after its `[`.
fn component_name(descriptor: &str) -> &str {
    let name = descriptor
        .strip_prefix('L')
        .and_then(|c| c.strip_suffix(';'))
        .unwrap_or(descriptor);
    match name {
        "I" => "int",
        "J" => "long",
        "Z" => "boolean",
        "B" => "byte",
        "C" => "char",
        "S" => "short",
        "F" => "float",
        "D" => "double",
        other => other,
    }
}
