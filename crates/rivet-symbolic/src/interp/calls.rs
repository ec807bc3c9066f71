//! Method invocation (static, special, virtual and interface dispatch on the receiver's
//! class, after resolving a symbolic receiver), returns, `invokedynamic` string
//! concatenation, models of native and hard methods, and fresh symbols for calls that are
//! not followed.

use std::sync::Arc;

use rivet_classfile::{AttributeBody, Constant, Opcode, Operand};

use super::{advance, control, method_error, objects, Ctx, Ops, PathEnd, Step};
use crate::error::SymbolicError;
use crate::heap::StrValue;
use crate::lazy;
use crate::natives;
use crate::path::AccessPath;
use crate::program::MethodBody;
use crate::state::{Frame, FrameKind, InitState, SymbolicState};
use crate::value::{Reference, Value};

/// Pushes a frame running `body` with `args` (the receiver first for instance methods).
pub fn enter_method(state: &mut SymbolicState, body: Arc<MethodBody>, args: Vec<Value>) {
    let mut locals = Vec::with_capacity(body.max_locals.max(args.len() * 2));
    for a in args {
        let wide = a.is_wide();
        locals.push(a);
        if wide {
            locals.push(Value::Top);
        }
    }
    if locals.len() < body.max_locals {
        locals.resize(body.max_locals, Value::Top);
    }
    state.frames.push(Frame {
        method: body,
        pc: 0,
        locals,
        stack: Vec::new(),
        kind: FrameKind::Call,
    });
}

/// A fresh unconstrained value of field descriptor `descriptor` for a call or read that
/// was not followed, named `{label#n}`.
pub fn fresh_value(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    descriptor: &str,
    label: &str,
) -> Result<Value, SymbolicError> {
    ctx.counters.next_call_symbol += 1;
    state.imprecise = true;
    let path = AccessPath::root(&format!("{label}#{}", ctx.counters.next_call_symbol));
    lazy::input_value(state, ctx, descriptor, path, None)
}

/// The return descriptor of a method descriptor (`V` for void).
pub fn return_descriptor(descriptor: &str) -> &str {
    descriptor.rsplit_once(')').map(|(_, r)| r).unwrap_or("V")
}

/// Number of arguments (not slots) of a method descriptor.
pub fn arg_count(descriptor: &str) -> usize {
    let mut n = 0;
    let mut chars = descriptor.trim_start_matches('(').chars();
    while let Some(c) = chars.next() {
        match c {
            ')' => break,
            '[' => continue,
            'L' => {
                for c in chars.by_ref() {
                    if c == ';' {
                        break;
                    }
                }
                n += 1;
            }
            _ => n += 1,
        }
    }
    n
}

/// Pops `n` values, returned in argument order.
pub(crate) fn pop_args(state: &mut SymbolicState, n: usize) -> Result<Vec<Value>, SymbolicError> {
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        args.push(Ops::pop(state)?);
    }
    args.reverse();
    Ok(args)
}

/// Finishes a call that is not followed: its result is a fresh symbol.
pub fn not_followed(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    class: &str,
    name: &str,
    descriptor: &str,
) -> Result<Step, SymbolicError> {
    ctx.counters.not_followed += 1;
    tracing::debug!(class, name, descriptor, "call not followed: fresh result");
    let ret = return_descriptor(descriptor);
    if ret != "V" {
        let simple = class.rsplit('/').next().unwrap_or(class);
        let v = fresh_value(state, ctx, ret, &format!("{simple}.{name}"))?;
        Ops::push(state, v)?;
    }
    advance(state);
    Ok(Step::Continue)
}

/// `invokevirtual`, `invokespecial`, `invokestatic`, `invokeinterface`.
pub fn invoke(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    op: Opcode,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let index = match operand {
        Operand::Constant(i) | Operand::InvokeInterface { index: i, .. } => *i,
        _ => return Err(method_error(method, "invoke without a method reference")),
    };
    let mref = ctx.program.member_ref(method.class, index)?;
    let n = arg_count(&mref.descriptor);
    let target = if op == Opcode::INVOKESTATIC {
        let target = ctx
            .program
            .resolve_method(&mref.owner, &mref.name, &mref.descriptor)?;
        if let Some(t) = &target {
            let class = t.class_name.clone();
            if !objects::ensure_initialized(state, ctx, &class)? {
                return Ok(Step::Continue);
            }
        }
        target
    } else {
        let receiver = match Ops::peek(state, n)? {
            Value::Ref(r) => state.deref(*r),
            other => {
                return Err(method_error(
                    method,
                    format!("receiver {other:?} of {}.{}", mref.owner, mref.name),
                ))
            }
        };
        match receiver {
            Reference::Symbolic(s) => return lazy::resolve(state, ctx, s),
            Reference::Null => {
                pop_args(state, n + 1)?;
                control::throw_new(state, ctx, "java/lang/NullPointerException")?;
                return Ok(Step::Continue);
            }
            Reference::Object(id) => {
                if op == Opcode::INVOKESPECIAL {
                    ctx.program
                        .resolve_method(&mref.owner, &mref.name, &mref.descriptor)?
                } else {
                    let class = match state.object(id).and_then(|o| o.class) {
                        Some(c) => c,
                        None => ctx.program.require("java/lang/Object")?.id,
                    };
                    ctx.program.dispatch(class, &mref.name, &mref.descriptor)?
                }
            }
        }
    };
    let Some(target) = target else {
        pop_args(state, n + usize::from(op != Opcode::INVOKESTATIC))?;
        return not_followed(state, ctx, &mref.owner, &mref.name, &mref.descriptor);
    };
    let args = pop_args(state, n + usize::from(!target.is_static()))?;
    if let Some(model) = target.model {
        return natives::run(model, state, ctx, &target, args);
    }
    if target.access.is_native() || target.access.is_abstract() || target.insns.is_empty() {
        return not_followed(
            state,
            ctx,
            &target.class_name,
            &target.name,
            &target.descriptor,
        );
    }
    if state.frames.len() >= ctx.config.max_frames {
        return Ok(Step::End(PathEnd::Bound("call depth".into())));
    }
    enter_method(state, target, args);
    Ok(Step::Continue)
}

/// `ireturn` .. `return`.
pub fn return_op(
    state: &mut SymbolicState,
    _ctx: &mut Ctx<'_>,
    op: Opcode,
) -> Result<Step, SymbolicError> {
    let value = if op == Opcode::RETURN {
        None
    } else {
        let mut v = Ops::pop(state)?;
        if let Value::Cmp(a, b) = &v {
            v = Value::Int(crate::value::cmp_as_int(a, b));
        }
        Some(v)
    };
    let Some(done) = state.frames.pop() else {
        return Ok(Step::End(PathEnd::Return));
    };
    if let FrameKind::Clinit(c) = done.kind {
        if let Some(s) = state.statics_mut().get_mut(&c) {
            s.init = InitState::Done;
        }
        return Ok(Step::Continue);
    }
    if state.frames.is_empty() {
        state.result = value;
        return Ok(Step::Continue);
    }
    if let Some(v) = value {
        Ops::push(state, v)?;
    }
    advance(state);
    Ok(Step::Continue)
}

/// `invokedynamic`: string concatenation (`StringConcatFactory`) is modelled; other call
/// sites (lambdas) end the path as a bound.
pub fn invokedynamic(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    operand: &Operand,
) -> Result<Step, SymbolicError> {
    let Operand::InvokeDynamic(index) = operand else {
        return Err(method_error(method, "invokedynamic without a call site"));
    };
    let info = ctx.program.class_by_id(method.class).clone();
    let cp = &info.file.constant_pool;
    let (bsm_index, name, descriptor) = cp
        .dynamic(*index)
        .map_err(|e| method_error(method, e.to_string()))?;
    let bsm = info
        .file
        .attribute(|a| match a {
            AttributeBody::BootstrapMethods(list) => list.get(usize::from(bsm_index)).cloned(),
            _ => None,
        })
        .ok_or_else(|| method_error(method, "missing bootstrap method"))?;
    let owner = match cp.get(bsm.method_ref) {
        Some(Constant::MethodHandle { reference, .. }) => cp
            .member_ref(*reference)
            .map(|r| (r.owner.to_string(), r.name.to_string()))
            .ok(),
        _ => None,
    };
    let Some((owner, bsm_name)) = owner else {
        return Err(method_error(method, "bad bootstrap method handle"));
    };
    if owner != "java/lang/invoke/StringConcatFactory" {
        return Ok(Step::End(PathEnd::Bound(format!(
            "invokedynamic {name} via {owner}.{bsm_name} is not supported"
        ))));
    }
    let n = arg_count(descriptor);
    let params: Vec<String> = rivet_classfile::MethodDescriptor::parse(descriptor)
        .map(|d| d.params.iter().map(|p| p.to_string()).collect())
        .unwrap_or_default();
    let recipe: Option<String> = if bsm_name == "makeConcatWithConstants" {
        bsm.arguments.first().and_then(|i| match cp.get(*i) {
            Some(Constant::String { string }) => cp.utf8(*string).ok().map(str::to_string),
            _ => None,
        })
    } else {
        None
    };
    let constants: Vec<String> = bsm
        .arguments
        .iter()
        .skip(1)
        .filter_map(|i| match cp.get(*i) {
            Some(Constant::String { string }) => cp.utf8(*string).ok().map(str::to_string),
            Some(Constant::Integer(v)) => Some(v.to_string()),
            _ => None,
        })
        .collect();
    let args = pop_args(state, n)?;
    let recipe = recipe.unwrap_or_else(|| "\u{1}".repeat(n));
    let mut out = String::new();
    let mut opaque = false;
    let (mut next_arg, mut next_const) = (0usize, 0usize);
    for c in recipe.chars() {
        match c {
            '\u{1}' => {
                let desc = params
                    .get(next_arg)
                    .map(String::as_str)
                    .unwrap_or("Ljava/lang/Object;");
                match args
                    .get(next_arg)
                    .and_then(|a| natives::display_value(state, a, desc))
                {
                    Some(text) => out.push_str(&text),
                    None => opaque = true,
                }
                next_arg += 1;
            }
            '\u{2}' => {
                out.push_str(constants.get(next_const).map(String::as_str).unwrap_or(""));
                next_const += 1;
            }
            other => out.push(other),
        }
    }
    let value = if opaque {
        StrValue::Opaque
    } else {
        StrValue::Concrete(Arc::from(out))
    };
    let id = objects::alloc_string(state, ctx, value)?;
    Ops::push(state, Value::Ref(Reference::Object(id)))?;
    advance(state);
    Ok(Step::Continue)
}
