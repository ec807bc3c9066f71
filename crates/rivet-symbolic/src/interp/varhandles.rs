//! `VarHandle`s of fields, as the JDK's concurrent classes make them in their static
//! initializers (`MethodHandles.lookup().findVarHandle(C.class, "next", Node.class)`) and use
//! them (`NEXT.compareAndSet(this, expected, update)`): the lookup is an object of its own, a
//! found handle names its field (`ObjKind::VarHandle`), and its signature-polymorphic calls
//! read and write that field. A comparison the state cannot decide (a symbolic value against
//! the expected one) and the bitwise and numeric updates are not followed.

use std::sync::Arc;

use super::{advance, calls, objects, Ctx, Ops, Step};
use crate::error::SymbolicError;
use crate::heap::{HeapObject, ObjKind, StrValue, VarHandleTarget};
use crate::lazy;
use crate::program::MemberRefInfo;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};

/// The class of every handle object.
const VAR_HANDLE: &str = "java/lang/invoke/VarHandle";

/// `MethodHandles.lookup()`: a `Lookup` object, its constructor not run (its find methods
/// are modelled).
pub fn lookup_object(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<Step, SymbolicError> {
    let id = objects::alloc_instance(state, ctx, "java/lang/invoke/MethodHandles$Lookup")?;
    push(state, Value::Ref(Reference::Object(id)))
}

/// `Lookup.findVarHandle(Class, String, Class)` and `findStaticVarHandle`: `args` are the
/// lookup, the declaring class, the name and the type. Not followed when the class or the
/// name is not a constant.
pub fn find(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
    is_static: bool,
) -> Result<Step, SymbolicError> {
    let s: &SymbolicState = state;
    let mirror = |v: Option<&Value>| match v {
        Some(Value::Ref(r)) => match s.deref(*r) {
            Reference::Object(id) => match s.object(id).map(|o| &o.kind) {
                Some(ObjKind::Mirror(t)) => Some(t.clone()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let owner = mirror(args.get(1));
    let field_type = mirror(args.get(3));
    let name = match args.get(2) {
        Some(Value::Ref(r)) => match state.deref(*r) {
            Reference::Object(id) => match state.string_of(id) {
                Some(StrValue::Concrete(s)) => Some(s.clone()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    };
    let (Some(owner), Some(field), Some(field_type)) = (owner, name, field_type) else {
        let (class, method) = ("java/lang/invoke/MethodHandles$Lookup", "findVarHandle");
        let descriptor =
            "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/invoke/VarHandle;";
        return calls::not_followed(state, ctx, class, method, descriptor);
    };
    let descriptor: Arc<str> = match &*field_type {
        t if t.len() == 1 || t.starts_with('[') => Arc::from(t),
        t => Arc::from(format!("L{t};")),
    };
    let class = ctx.program.require(VAR_HANDLE)?;
    let id = state.alloc(HeapObject {
        type_name: class.name.clone(),
        class: Some(class.id),
        kind: ObjKind::VarHandle(Arc::new(VarHandleTarget {
            owner,
            field,
            descriptor,
            is_static,
        })),
        origin: None,
    });
    push(state, Value::Ref(Reference::Object(id)))
}

/// A call of handle `vh`'s method `mref` (name and call-site descriptor) with the handle and
/// its `n` arguments on the stack: the object whose field it is is resolved first (a lazy
/// input), the static field's class initialized.
pub(super) fn access(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    mref: &MemberRefInfo,
    vh: &VarHandleTarget,
    n: usize,
) -> Result<Step, SymbolicError> {
    // Where the field lives: an object (the first argument) or the class's statics.
    let place = if vh.is_static {
        let Some((class, slot)) = objects::static_owner(ctx, &vh.owner, &vh.field)? else {
            return skip(state, ctx, mref, n);
        };
        let name = ctx.program.class_by_id(class).name.clone();
        if !objects::ensure_initialized(state, ctx, &name)? {
            return Ok(Step::Continue);
        }
        Place::Static(class, slot)
    } else {
        let Some(Value::Ref(r)) = n.checked_sub(1).and_then(|d| Ops::peek(state, d).ok()) else {
            return skip(state, ctx, mref, n);
        };
        match state.deref(*r) {
            Reference::Symbolic(s) => return lazy::resolve(state, ctx, s),
            Reference::Null => return skip(state, ctx, mref, n),
            Reference::Object(id) => {
                let slot = match state.object(id).map(|o| (&o.kind, o.class)) {
                    Some((ObjKind::Instance(_), Some(c))) => {
                        objects::field_slot(ctx, c, &vh.owner, &vh.field)?
                    }
                    _ => None,
                };
                match slot {
                    Some(slot) => Place::Field(id, slot),
                    None => return skip(state, ctx, mref, n),
                }
            }
        }
    };
    let mut args = calls::pop_args(state, n + 1)?;
    // The handle and, for a field of an object, the object: what is left are the values.
    args.drain(..if vh.is_static { 1 } else { 2 });
    let current = place.read(state, &vh.descriptor);
    let name = &*mref.name;
    let result = match (name, args.as_slice()) {
        ("get" | "getVolatile" | "getAcquire" | "getOpaque", []) => Some(current),
        ("set" | "setVolatile" | "setRelease" | "setOpaque", [v]) => {
            place.write(state, v.clone().settled());
            None
        }
        ("getAndSet" | "getAndSetAcquire" | "getAndSetRelease", [v]) => {
            place.write(state, v.clone().settled());
            Some(current)
        }
        (cas, [expected, update]) if cas.contains("ompare") => {
            let exchange = cas.starts_with("compareAndExchange");
            match compare_and_set(state, current, (expected, update), exchange) {
                Some((write, result)) => {
                    if let Some(v) = write {
                        place.write(state, v);
                    }
                    Some(result)
                }
                None => return not_followed(state, ctx, mref),
            }
        }
        _ => return not_followed(state, ctx, mref),
    };
    if let Some(v) = result {
        if calls::return_descriptor(&mref.descriptor) != "V" {
            Ops::push(state, v)?;
        }
    }
    advance(state);
    Ok(Step::Continue)
}

/// Where a handle's field is.
enum Place {
    Static(crate::program::ClassId, usize),
    Field(ObjectId, usize),
}

impl Place {
    fn read(&self, state: &SymbolicState, descriptor: &str) -> Value {
        let default = || Value::default_for(descriptor.bytes().next().unwrap_or(b'I'));
        match self {
            Place::Static(class, slot) => state
                .statics
                .get(class)
                .and_then(|s| s.values.get(*slot).cloned())
                .unwrap_or_else(default),
            Place::Field(id, slot) => objects::read_slot(state, *id, *slot).unwrap_or_else(default),
        }
    }

    fn write(&self, state: &mut SymbolicState, v: Value) {
        match self {
            Place::Static(class, slot) => {
                if let Some(cell) = state
                    .statics_mut()
                    .get_mut(class)
                    .and_then(|s| s.values.get_mut(*slot))
                {
                    *cell = v;
                }
            }
            Place::Field(id, slot) => objects::write_slot(state, *id, *slot, v),
        }
    }
}

/// A compare-and-set of a cell holding `current`: what to write (the update, when `current`
/// is the expected value) and what the call returns (whether it wrote, or for an exchange the
/// value it found); None when the state cannot decide the comparison.
pub(crate) fn compare_and_set(
    state: &SymbolicState,
    current: Value,
    (expected, update): (&Value, &Value),
    exchange: bool,
) -> Option<(Option<Value>, Value)> {
    let equal = same(state, &current, expected)?;
    let write = equal.then(|| update.clone().settled());
    let result = if exchange {
        current
    } else {
        Value::int(i32::from(equal))
    };
    Some((write, result))
}

/// Whether two values are the same (`==`), when the state decides it: references resolved to
/// objects or null, numbers both constants.
fn same(state: &SymbolicState, a: &Value, b: &Value) -> Option<bool> {
    match (a, b) {
        (Value::Ref(x), Value::Ref(y)) => match (state.deref(*x), state.deref(*y)) {
            (Reference::Null, Reference::Null) => Some(true),
            (Reference::Object(p), Reference::Object(q)) => Some(p == q),
            (Reference::Null, Reference::Object(_)) | (Reference::Object(_), Reference::Null) => {
                Some(false)
            }
            _ => None,
        },
        (Value::Int(x), Value::Int(y)) => Some(x.as_int()? == y.as_int()?),
        (Value::Long(x), Value::Long(y)) => Some(x.as_long()? == y.as_long()?),
        _ => None,
    }
}

/// The call is not followed, its arguments on the stack.
fn skip(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    mref: &MemberRefInfo,
    n: usize,
) -> Result<Step, SymbolicError> {
    calls::pop_args(state, n + 1)?;
    not_followed(state, ctx, mref)
}

/// The call is not followed, its arguments popped.
fn not_followed(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    mref: &MemberRefInfo,
) -> Result<Step, SymbolicError> {
    calls::not_followed(state, ctx, VAR_HANDLE, &mref.name, &mref.descriptor)
}

fn push(state: &mut SymbolicState, v: Value) -> Result<Step, SymbolicError> {
    Ops::push(state, v)?;
    advance(state);
    Ok(Step::Continue)
}
