//! The running thread and its stack as the JDK's own code asks about them:
//! `Thread.currentThread()` is one `main` thread of normal priority in a `main` group (made on
//! first use; the JDK's initializers start threads, which take their group and priority from
//! it); `Reflection.getCallerClass()` is the class of the caller of the method that asks; the
//! access controller's natives say that no context restricts anything (null), as without a
//! security manager.

use std::sync::Arc;

use super::{finish, not_followed};
use crate::context::{Ctx, Step};
use crate::error::SymbolicError;
use crate::heap::StrValue;
use crate::interp;
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};

/// `Thread.NORM_PRIORITY` and `Thread.MAX_PRIORITY`.
const NORM_PRIORITY: i32 = 5;
const MAX_PRIORITY: i32 = 10;

/// `Thread.currentThread()`.
pub(super) fn current_thread(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
) -> Result<Step, SymbolicError> {
    let id = match state.current_thread {
        Some(id) => id,
        None => {
            let id = main_thread(state, ctx)?;
            state.current_thread = Some(id);
            id
        }
    };
    finish(state, Some(Value::Ref(Reference::Object(id))))
}

/// A `Thread` named `main`, of normal priority, in a group `main` of the highest priority;
/// its constructor not run.
fn main_thread(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<ObjectId, SymbolicError> {
    let name = |state: &mut SymbolicState, ctx: &mut Ctx<'_>| {
        interp::alloc_string(state, ctx, StrValue::Concrete(Arc::from("main")))
            .map(|id| Value::Ref(Reference::Object(id)))
    };
    let group = interp::alloc_instance(state, ctx, "java/lang/ThreadGroup")?;
    let thread = interp::alloc_instance(state, ctx, "java/lang/Thread")?;
    let (group_name, thread_name) = (name(state, ctx)?, name(state, ctx)?);
    let fields = [
        (group, "java/lang/ThreadGroup", "name", group_name),
        (
            group,
            "java/lang/ThreadGroup",
            "maxPriority",
            Value::int(MAX_PRIORITY),
        ),
        (thread, "java/lang/Thread", "name", thread_name),
        (
            thread,
            "java/lang/Thread",
            "priority",
            Value::int(NORM_PRIORITY),
        ),
        (
            thread,
            "java/lang/Thread",
            "group",
            Value::Ref(Reference::Object(group)),
        ),
    ];
    for (id, owner, field, v) in fields {
        set(state, ctx, id, (owner, field), v)?;
    }
    Ok(thread)
}

/// Writes field `owner.name` of object `id` (nothing when the class has no such field).
fn set(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    id: ObjectId,
    (owner, name): (&str, &str),
    v: Value,
) -> Result<(), SymbolicError> {
    let Some(class) = state.object(id).and_then(|o| o.class) else {
        return Ok(());
    };
    let Some(slot) = interp::field_slot(ctx, class, owner, name)? else {
        return Ok(());
    };
    interp::write_slot(state, id, slot, v);
    Ok(())
}

/// `Reflection.getCallerClass()`: the class of the frame below the one that asks.
pub(super) fn caller_class(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
) -> Result<Step, SymbolicError> {
    let caller = state
        .frames
        .len()
        .checked_sub(2)
        .and_then(|i| state.frames.get(i))
        .map(|f| f.method.class_name.clone());
    match caller {
        Some(class) => {
            let id = interp::mirror(state, ctx, &class)?;
            finish(state, Some(Value::Ref(Reference::Object(id))))
        }
        None => not_followed(state, ctx, target),
    }
}
