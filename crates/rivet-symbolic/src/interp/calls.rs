//! Method invocation (static, special, virtual and interface dispatch on the receiver's
//! class, after resolving a symbolic receiver), returns, `invokedynamic` string
//! concatenation, models of native and hard methods, and fresh symbols for calls that are
//! not followed.

use std::sync::Arc;

use rivet_classfile::{AttributeBody, Constant, Opcode, Operand};

use super::{advance, control, method_error, objects, Ctx, Ops, PathEnd, Step};
use crate::error::SymbolicError;
use crate::lazy;
use crate::natives;
use crate::program::MethodBody;
use crate::state::{Frame, FrameKind, InitState, SymbolicState};
use crate::value::{Reference, Value};
use rivet_pc::AccessPath;

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
        args.push(Ops::pop(state)?.settled());
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
    *ctx.counters
        .not_followed_members
        .entry(format!(
            "{}.{name}",
            rivet_classfile::ClassName::from_internal(class)
        ))
        .or_insert(0) += 1;
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
    invoke_ref(state, ctx, method, op, &mref)
}

/// An invoke instruction of `method` (named in errors) calling `mref`, with the receiver
/// and arguments on the top frame's stack: dispatch, models, black boxes, then a new frame.
/// Also the driver of whole-test replay, which calls the test's methods this way.
pub fn invoke_ref(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    op: Opcode,
    mref: &crate::program::MemberRefInfo,
) -> Result<Step, SymbolicError> {
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
                if let Some(crate::heap::ObjKind::VarHandle(vh)) = state.object(id).map(|o| &o.kind)
                {
                    if &*mref.owner == "java/lang/invoke/VarHandle" {
                        let vh = vh.clone();
                        return super::varhandles::access(state, ctx, mref, &vh, n);
                    }
                }
                let lambda = match state.object(id).map(|o| &o.kind) {
                    Some(crate::heap::ObjKind::Lambda(t)) if *t.method == *mref.name => {
                        Some(t.clone())
                    }
                    _ => None,
                };
                if let Some(target) = lambda {
                    let args = pop_args(state, n + 1)?;
                    return call_lambda(state, ctx, &target, &mref.descriptor, args);
                }
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
    if let Some(model) = natives::model_of(&target) {
        return natives::run(model, state, ctx, &target, args);
    }
    if ctx.config.black_box_jdk && target.is_static() && is_jdk_class(&target.class_name) {
        return not_followed(
            state,
            ctx,
            &target.class_name,
            &target.name,
            &target.descriptor,
        );
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

/// A `LambdaMetafactory` call site: a lambda object of the functional interface holding its
/// implementation method and captured values.
fn lambda(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    method: &Arc<MethodBody>,
    bsm: &rivet_classfile::BootstrapMethod,
    name: &str,
    descriptor: &str,
) -> Result<Step, SymbolicError> {
    let info = ctx.program.class_by_id(method.class).clone();
    let cp = &info.file.constant_pool;
    let sam = bsm.arguments.first().and_then(|i| match cp.get(*i) {
        Some(Constant::MethodType { descriptor }) => {
            cp.utf8(*descriptor).ok().map(Arc::<str>::from)
        }
        _ => None,
    });
    let implementation = bsm.arguments.get(1).and_then(|i| match cp.get(*i) {
        Some(Constant::MethodHandle { kind, reference }) => {
            cp.member_ref(*reference).ok().map(|r| {
                (
                    *kind,
                    Arc::<str>::from(r.owner),
                    Arc::<str>::from(r.name),
                    Arc::<str>::from(r.descriptor),
                )
            })
        }
        _ => None,
    });
    let interface = return_descriptor(descriptor)
        .strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
        .map(Arc::<str>::from);
    let (Some(sam), Some((kind, owner, impl_name, impl_desc)), Some(interface)) =
        (sam, implementation, interface)
    else {
        return Err(method_error(
            method,
            "malformed LambdaMetafactory call site",
        ));
    };
    let captured = pop_args(state, arg_count(descriptor))?;
    let class = ctx.program.require(&interface)?;
    let id = state.alloc(crate::heap::HeapObject {
        type_name: interface.clone(),
        class: Some(class.id),
        kind: crate::heap::ObjKind::Lambda(Arc::new(crate::heap::LambdaTarget {
            method: Arc::from(name),
            method_descriptor: sam,
            kind,
            owner,
            name: impl_name,
            descriptor: impl_desc,
            captured,
        })),
        origin: None,
    });
    Ops::push(state, Value::Ref(Reference::Object(id)))?;
    advance(state);
    Ok(Step::Continue)
}

/// True if two descriptors' parameters and results agree in kind (primitive types equal,
/// references with references, void with void): then no boxing adapts the call.
fn compatible(call: &str, target: &str, leading: usize) -> bool {
    let (Ok(c), Ok(t)) = (
        rivet_classfile::MethodDescriptor::parse(call),
        rivet_classfile::MethodDescriptor::parse(target),
    ) else {
        return false;
    };
    let primitive = |f: &rivet_classfile::FieldType| {
        !matches!(
            f,
            rivet_classfile::FieldType::Object(_) | rivet_classfile::FieldType::Array(_)
        )
    };
    let same = |a: &rivet_classfile::FieldType, b: &rivet_classfile::FieldType| {
        if primitive(a) || primitive(b) {
            a == b
        } else {
            true
        }
    };
    let results = match (&c.ret, &t.ret) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    };
    results
        && c.params.len() + leading == t.params.len()
        && c.params
            .iter()
            .zip(t.params.iter().skip(leading))
            .all(|(a, b)| same(a, b))
}

/// Calls a lambda's implementation for a call of its interface method with `args`
/// (receiver first).
fn call_lambda(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &crate::heap::LambdaTarget,
    call_descriptor: &str,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    let mut all = target.captured.clone();
    all.extend(args.into_iter().skip(1));
    let instance = matches!(target.kind, 5 | 7 | 9);
    // Parameters the implementation takes before the call's own: the captured ones (the
    // receiver counts for instance methods).
    let leading = target.captured.len() - usize::from(instance && !target.captured.is_empty());
    let call_ok = if instance && target.captured.is_empty() {
        // An unbound method reference: the first call argument is the receiver.
        let Ok(c) = rivet_classfile::MethodDescriptor::parse(call_descriptor) else {
            return not_followed(state, ctx, &target.owner, &target.name, call_descriptor);
        };
        c.params.len() == arg_count(&target.descriptor) + 1
    } else {
        compatible(call_descriptor, &target.descriptor, leading)
    };
    if !call_ok || target.kind == 8 {
        return not_followed(state, ctx, &target.owner, &target.name, call_descriptor);
    }
    let body = match target.kind {
        6 | 7 => ctx
            .program
            .resolve_method(&target.owner, &target.name, &target.descriptor)?,
        _ => match all.first() {
            Some(Value::Ref(r)) => match state.deref(*r) {
                Reference::Object(id) => {
                    let class = match state.object(id).and_then(|o| o.class) {
                        Some(c) => c,
                        None => ctx.program.require("java/lang/Object")?.id,
                    };
                    ctx.program
                        .dispatch(class, &target.name, &target.descriptor)?
                }
                Reference::Null => {
                    control::throw_new(state, ctx, "java/lang/NullPointerException")?;
                    return Ok(Step::Continue);
                }
                Reference::Symbolic(_) => None,
            },
            _ => None,
        },
    };
    let Some(body) = body else {
        return not_followed(state, ctx, &target.owner, &target.name, call_descriptor);
    };
    if let Some(model) = natives::model_of(&body) {
        return natives::run(model, state, ctx, &body, all);
    }
    if body.insns.is_empty() || state.frames.len() >= ctx.config.max_frames {
        return not_followed(state, ctx, &target.owner, &target.name, call_descriptor);
    }
    enter_method(state, body, all);
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
        Some(Ops::pop(state)?.settled())
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
    if owner == "java/lang/invoke/LambdaMetafactory" {
        return lambda(state, ctx, method, &bsm, name, descriptor);
    }
    if owner != "java/lang/invoke/StringConcatFactory" {
        return Ok(Step::End(PathEnd::Unsupported(format!(
            "invokedynamic {name} via {}.{bsm_name}",
            rivet_classfile::ClassName::from_internal(&owner)
        ))));
    }
    super::concat::string_concat(state, ctx, cp, &bsm, &bsm_name, descriptor)
}

/// A class of the JDK (whose static methods black-box mode does not follow).
fn is_jdk_class(internal: &str) -> bool {
    ["java/", "javax/", "jdk/", "sun/", "com/sun/"]
        .iter()
        .any(|p| internal.starts_with(p))
}
