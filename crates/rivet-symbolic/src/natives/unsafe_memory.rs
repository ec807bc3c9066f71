//! `jdk.internal.misc.Unsafe`'s reads, writes and compare-and-sets of fields and array
//! elements, as `ConcurrentHashMap` and the atomics use them. An object's field has the
//! offset `16 + 8 × slot` (what `objectFieldOffset(Class, String)` answers), an array's
//! element `16 + index × scale` (the base and scales the other Unsafe models give); an offset
//! that is not a constant, or names no cell of a resolved object, is not followed, nor is a
//! comparison the state cannot decide.

use std::sync::Arc;

use rivet_pc::Term;

use super::{finish, not_followed, object_arg};
use crate::context::{Ctx, Step};
use crate::error::SymbolicError;
use crate::heap::ObjKind;
use crate::interp;
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};

/// Where fields and elements start.
const BASE: i64 = 16;
/// The distance between two fields' offsets.
const FIELD_STRIDE: i64 = 8;

/// Offsets given when the field cannot be named (`objectFieldOffset(Field)`): far from any
/// cell, so that an access with one is not followed rather than read from the wrong field.
pub(super) const UNNAMED_FIELD_BASE: i64 = 1 << 40;

/// The scale of an array of element descriptor `element` (as `arrayIndexScale0` answers).
pub(super) fn scale_of(element: &str) -> i64 {
    match element.bytes().next() {
        Some(b'Z' | b'B') => 1,
        Some(b'C' | b'S') => 2,
        Some(b'J' | b'D') => 8,
        _ => 4,
    }
}

/// Is `name` one of the natives [`access`] models?
pub(super) fn is_access(name: &str) -> bool {
    let kind = [
        "Reference",
        "Int",
        "Long",
        "Boolean",
        "Byte",
        "Short",
        "Char",
    ];
    let op = |prefix: &str| {
        name.strip_prefix(prefix)
            .map(|rest| rest.strip_suffix("Volatile").unwrap_or(rest))
            .is_some_and(|k| kind.contains(&k))
    };
    op("get")
        || op("put")
        || ["compareAndSet", "compareAndExchange"]
            .iter()
            .any(|p| name.strip_prefix(p).is_some_and(|k| kind.contains(&k)))
}

/// `objectFieldOffset1(Class, String)`: the field's slot in its class's objects.
pub(super) fn field_offset(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let class = object_arg(state, args.get(1)).and_then(|id| match &state.object(id)?.kind {
        ObjKind::Mirror(t) => Some(t.clone()),
        _ => None,
    });
    let name = object_arg(state, args.get(2)).and_then(|id| match state.string_of(id)? {
        crate::heap::StrValue::Concrete(s) => Some(s.clone()),
        _ => None,
    });
    let slot = match (class, name) {
        (Some(class), Some(name)) => match ctx.program.load(&class)? {
            Some(info) => interp::field_slot(ctx, info.id, &class, &name)?,
            None => None,
        },
        _ => None,
    };
    let offset = match slot {
        Some(slot) => BASE + FIELD_STRIDE * slot as i64,
        None => UNNAMED_FIELD_BASE + 4 * i64::from(ctx.counters.next_call_symbol % 64),
    };
    finish(state, Some(Value::Long(Term::long(offset))))
}

/// A cell of an object.
enum Cell {
    Field(ObjectId, usize),
    Element(ObjectId, i32),
}

/// The cell `offset` names in the object `object` refers to, if any.
fn cell(state: &SymbolicState, object: Option<&Value>, offset: Option<&Value>) -> Option<Cell> {
    let Some(Value::Ref(r)) = object else {
        return None;
    };
    let Reference::Object(id) = state.deref(*r) else {
        return None;
    };
    let Some(Value::Long(t)) = offset else {
        return None;
    };
    let off = t.as_long()?.checked_sub(BASE).filter(|o| *o >= 0)?;
    match &state.object(id)?.kind {
        ObjKind::Instance(fields) => {
            let slot = usize::try_from(off / FIELD_STRIDE).ok()?;
            (off % FIELD_STRIDE == 0 && slot < fields.len()).then_some(Cell::Field(id, slot))
        }
        ObjKind::Array {
            element, length, ..
        } => {
            let scale = scale_of(element);
            let index = i32::try_from(off / scale).ok()?;
            let in_bounds = length.as_int().is_some_and(|n| index < n);
            (off % scale == 0 && in_bounds).then_some(Cell::Element(id, index))
        }
        _ => None,
    }
}

impl Cell {
    fn read(&self, state: &SymbolicState) -> Option<Value> {
        match (self, state) {
            (Cell::Field(id, slot), s) => interp::read_slot(s, *id, *slot),
            (Cell::Element(id, index), s) => match &s.object(*id)?.kind {
                ObjKind::Array { elements, .. } => elements.get(*index),
                _ => None,
            },
        }
    }

    fn write(&self, state: &mut SymbolicState, v: Value) {
        match self {
            Cell::Field(id, slot) => interp::write_slot(state, *id, *slot, v),
            Cell::Element(id, index) => {
                if let Some(ObjKind::Array { elements, .. }) =
                    state.object_mut(*id).map(|o| &mut o.kind)
                {
                    elements.set(*index, v);
                }
            }
        }
    }
}

/// `get*`, `put*`, `compareAndSet*`, `compareAndExchange*` (and their volatile forms) of
/// `(Unsafe, Object, long offset, values…)`.
pub(super) fn access(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let Some(cell) = cell(state, args.get(1), args.get(2)) else {
        return not_followed(state, ctx, target);
    };
    let name = &*target.name;
    let result = if name.starts_with("get") {
        match cell.read(state) {
            Some(v) => Some(v),
            None => return not_followed(state, ctx, target),
        }
    } else if name.starts_with("put") {
        match args.get(3) {
            Some(v) => cell.write(state, v.clone().settled()),
            None => return not_followed(state, ctx, target),
        }
        None
    } else {
        let (Some(current), Some(expected), Some(update)) =
            (cell.read(state), args.get(3), args.get(4))
        else {
            return not_followed(state, ctx, target);
        };
        let exchange = name.starts_with("compareAndExchange");
        let Some((write, result)) =
            interp::varhandles::compare_and_set(state, current, (expected, update), exchange)
        else {
            return not_followed(state, ctx, target);
        };
        if let Some(v) = write {
            cell.write(state, v);
        }
        Some(result)
    };
    finish(state, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_natives_modelled_are_the_plain_and_volatile_accesses_and_the_compare_and_sets() {
        for n in [
            "getReference",
            "getIntVolatile",
            "putLongVolatile",
            "putReference",
            "compareAndSetInt",
            "compareAndExchangeReference",
        ] {
            assert!(is_access(n), "{n}");
        }
        for n in [
            "getAndAddInt",
            "weakCompareAndSetInt",
            "getReferenceAcquire",
            "putAddress",
        ] {
            assert!(!is_access(n), "{n}");
        }
    }
}
