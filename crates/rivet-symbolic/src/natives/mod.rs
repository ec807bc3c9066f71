//! Models of native and hard JDK methods, run in Rust instead of being interpreted. The
//! list (everything else of the JDK is interpreted from its class files; natives without
//! a model return a fresh unconstrained symbol):
//!
//! - `Object`: `hashCode` and `System.identityHashCode` (a per-object constant),
//!   `getClass`, `clone` (shallow copy), `notify`/`notifyAll`/`wait` (no-ops);
//!   `registerNatives`/`initIDs` of any class (no-ops);
//! - `Throwable.fillInStackTrace(int)` (returns the exception);
//! - `System.arraycopy` (bounds, null and concrete copies; symbolic positions are made
//!   concrete by the model's values);
//! - `Class`: `desiredAssertionStatus` (false), `getName`, `getSimpleName`, `isArray`,
//!   `isPrimitive`, `isInterface`, `getComponentType`, `isInstance`, `hashCode`;
//!   `reflect.Array.newInstance(Class, int)`;
//! - boxing: `Integer`/`Long`/`Short`/`Byte`/`Character`.`valueOf` (a new box, no cache);
//!   `Integer.toString(int)`, `Long.toString(long)`; `Integer.parseInt(String)` (a string
//!   term as `strings_symbolic` says; concrete text as Java parses it, an opaque string as a
//!   fresh symbol);
//! - `Float.floatToRawIntBits`/`intBitsToFloat`, `Double.doubleToRawLongBits`/
//!   `longBitsToDouble` (the raw bits of a symbolic value are its `floatToIntBits`: a
//!   symbolic NaN is the canonical one);
//! - `Math`/`StrictMath` `sqrt`, and `abs`, `min`, `max` of floats and doubles: terms
//!   (symbolic floats stay symbolic); the other `StrictMath` natives computed on concrete
//!   doubles, symbolic arguments concretized first (the path condition pins their values);
//! - `java.lang.String`, `StringBuilder`, `StringBuffer`: see `strings`;
//! - `jdk.internal.misc.Unsafe` as its static initializer and array code need it:
//!   `arrayBaseOffset0` (16), `arrayIndexScale0` (by element type), `addressSize0` (8),
//!   `pageSize` (4096), fences (no-ops), `objectFieldOffset(Class, String)` (the field's
//!   slot, `16 + 8 × slot`; by `Field`, a constant no access follows), and the reads, writes
//!   and compare-and-sets of fields and array elements by those offsets (`unsafe_memory`);
//! - `System.currentTimeMillis`/`nanoTime`: fresh symbols (explicitly not followed), but 0
//!   within a static initializer (`ImmutableCollections`' salt);
//! - system properties (`properties`): all unset but the separators, `System.getProperties()`
//!   an object of its own, `System.lineSeparator()` `"\n"`;
//! - `MethodHandles.lookup()` and `Lookup.find(Static)VarHandle`: handles of fields, whose
//!   calls `interp::varhandles` runs; `VarHandle`'s fences (no-ops);
//! - the running thread and its stack (`threads`): `Thread.currentThread()` one `main`
//!   thread, `Reflection.getCallerClass()` the asking method's caller's class, the access
//!   controller's contexts and protection domains null; `Runtime.availableProcessors()` one
//!   (a symbol split `ConcurrentHashMap`'s sizing on the machine);
//! - `jdk.internal.misc.CDS`: class-data sharing off (its queries false, zero; archive
//!   initialization a no-op), as a JVM without an archive (`Locale`'s classes initialize
//!   through it).

mod chars;
mod class;
mod numbers;
mod properties;
mod threads;
mod unsafe_memory;

use std::sync::Arc;

use rivet_pc::{Term, TermKind};

use crate::error::SymbolicError;
use crate::heap::{ObjKind, StrValue};
use crate::interp::{self, Ctx, PathEnd, Step};
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::strings;
use crate::value::{Reference, Value};
use class::{array_new_instance, class_method, get_class};
use numbers::{box_value, float_bits, fp_math, number_to_string, parse_int, strict_math};

/// A Rust model standing in for a JDK method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    Nop,
    FillInStackTrace,
    IdentityHash,
    GetClass,
    Clone,
    ArrayCopy,
    ClassMethod,
    ArrayNewInstance,
    Box,
    NumberToString,
    ParseInt,
    FloatBits,
    FpMath,
    StrictMath,
    String,
    Builder,
    Unsafe,
    CharClass,
    NotFollowed,
    /// `System.currentTimeMillis`/`nanoTime`: not followed, but 0 in a static initializer.
    Clock,
    /// `MethodHandles.lookup()` and its `find(Static)VarHandle` (see `interp::varhandles`).
    Lookup,
    CurrentThread,
    /// `Runtime.availableProcessors()`: one.
    Processors,
    CallerClass,
    /// `Unsafe.objectFieldOffset(Class, String)` and the accesses by offset
    /// (`unsafe_memory`).
    UnsafeFieldOffset,
    UnsafeMemory,
    FindVarHandle,
    FindStaticVarHandle,
    /// A static property lookup, its key the first argument.
    StaticProperty,
    /// `Properties.getProperty`, its key the argument after the receiver.
    PropertiesLookup,
    Properties,
    LineSeparator,
}

/// The model of method `class.name descriptor`, if it has one.
pub fn lookup(class: &str, name: &str, descriptor: &str) -> Option<Model> {
    Some(match (class, name, descriptor) {
        (_, "registerNatives" | "initIDs", "()V") => Model::Nop,
        ("java/lang/Object", "notify" | "notifyAll" | "wait", _) => Model::Nop,
        ("java/lang/Object", "hashCode", "()I") => Model::IdentityHash,
        ("java/lang/System", "identityHashCode", _) => Model::IdentityHash,
        ("java/lang/Object", "getClass", _) => Model::GetClass,
        ("java/lang/Object", "clone", _) => Model::Clone,
        ("java/lang/Throwable", "fillInStackTrace", "(I)Ljava/lang/Throwable;") => {
            Model::FillInStackTrace
        }
        ("java/lang/System", "arraycopy", _) => Model::ArrayCopy,
        ("java/lang/System", "currentTimeMillis" | "nanoTime", _) => Model::Clock,
        ("java/lang/System" | "sun/security/action/GetPropertyAction", name, d)
            if (name == "getProperty" || name == "privilegedGetProperty")
                && d.starts_with("(Ljava/lang/String;")
                && d.ends_with(")Ljava/lang/String;") =>
        {
            Model::StaticProperty
        }
        ("java/util/Properties", "getProperty", _) => Model::PropertiesLookup,
        (
            "java/lang/System" | "sun/security/action/GetPropertyAction",
            "getProperties" | "privilegedGetProperties",
            "()Ljava/util/Properties;",
        ) => Model::Properties,
        ("java/lang/System", "lineSeparator", "()Ljava/lang/String;") => Model::LineSeparator,
        ("java/lang/Thread", "currentThread", "()Ljava/lang/Thread;") => Model::CurrentThread,
        ("java/lang/Runtime", "availableProcessors", "()I") => Model::Processors,
        ("jdk/internal/reflect/Reflection", "getCallerClass", "()Ljava/lang/Class;") => {
            Model::CallerClass
        }
        (
            "java/security/AccessController",
            "getProtectionDomain"
            | "getStackAccessControlContext"
            | "getInheritedAccessControlContext",
            _,
        ) => Model::Nop,
        (
            "java/lang/invoke/MethodHandles",
            "lookup",
            "()Ljava/lang/invoke/MethodHandles$Lookup;",
        ) => Model::Lookup,
        ("java/lang/invoke/MethodHandles$Lookup", "findVarHandle", _) => Model::FindVarHandle,
        ("java/lang/invoke/MethodHandles$Lookup", "findStaticVarHandle", _) => {
            Model::FindStaticVarHandle
        }
        (
            "java/lang/invoke/VarHandle",
            "fullFence" | "acquireFence" | "releaseFence" | "loadLoadFence" | "storeStoreFence",
            "()V",
        ) => Model::Nop,
        // Class-data sharing off, as in a JVM started without an archive: nothing dumped,
        // nothing archived to initialize from.
        (
            "jdk/internal/misc/CDS",
            "isDumpingClassList0"
            | "isDumpingArchive0"
            | "isSharingEnabled0"
            | "initializeFromArchive"
            | "getRandomSeedForDumping"
            | "defineArchivedModules"
            | "logLambdaFormInvoker",
            _,
        ) => Model::Nop,
        ("java/lang/Class", _, _) => Model::ClassMethod,
        ("java/lang/reflect/Array", "newInstance", "(Ljava/lang/Class;I)Ljava/lang/Object;") => {
            Model::ArrayNewInstance
        }
        (
            "java/lang/Integer"
            | "java/lang/Long"
            | "java/lang/Short"
            | "java/lang/Byte"
            | "java/lang/Character",
            "valueOf",
            d,
        ) if !d.starts_with("(Ljava/lang/String;") => Model::Box,
        ("java/lang/Integer", "toString", "(I)Ljava/lang/String;")
        | ("java/lang/Long", "toString", "(J)Ljava/lang/String;") => Model::NumberToString,
        ("java/lang/Integer", "parseInt", "(Ljava/lang/String;)I") => Model::ParseInt,
        ("java/lang/Character", "isDigit" | "isWhitespace", "(C)Z") => Model::CharClass,
        ("java/lang/Math" | "java/lang/StrictMath", "sqrt", "(D)D")
        | (
            "java/lang/Math" | "java/lang/StrictMath",
            "abs" | "min" | "max",
            "(D)D" | "(F)F" | "(DD)D" | "(FF)F",
        ) => Model::FpMath,
        ("java/lang/Float", "floatToRawIntBits" | "intBitsToFloat", _)
        | ("java/lang/Double", "doubleToRawLongBits" | "longBitsToDouble", _) => Model::FloatBits,
        (
            "java/lang/StrictMath",
            "sin" | "cos" | "tan" | "asin" | "acos" | "atan" | "exp" | "log" | "log10" | "sqrt"
            | "cbrt" | "pow" | "atan2" | "hypot" | "sinh" | "cosh" | "tanh" | "expm1" | "log1p",
            _,
        ) => Model::StrictMath,
        (
            "jdk/internal/misc/Unsafe",
            "arrayBaseOffset0" | "arrayIndexScale0" | "addressSize0" | "pageSize" | "storeFence"
            | "loadFence" | "fullFence" | "objectFieldOffset0",
            _,
        ) => Model::Unsafe,
        ("jdk/internal/misc/Unsafe", "objectFieldOffset1", _) => Model::UnsafeFieldOffset,
        ("jdk/internal/misc/Unsafe", name, _) if unsafe_memory::is_access(name) => {
            Model::UnsafeMemory
        }
        ("java/lang/String", _, _) => Model::String,
        (
            "java/lang/StringBuilder"
            | "java/lang/StringBuffer"
            | "java/lang/AbstractStringBuilder",
            _,
            _,
        ) => Model::Builder,
        _ => return None,
    })
}

/// The model standing in for method `body`, if it has one (looked up at each call).
pub fn model_of(body: &MethodBody) -> Option<Model> {
    lookup(&body.class_name, &body.name, &body.descriptor)
}

/// Pushes a method's result (if any) and continues after the call.
pub fn finish(state: &mut SymbolicState, result: Option<Value>) -> Result<Step, SymbolicError> {
    if let Some(v) = result {
        interp::Ops::push(state, v)?;
    }
    interp::advance(state);
    Ok(Step::Continue)
}

/// The text `String.valueOf` gives a value of descriptor `desc`, if it is concrete.
pub fn display_value(state: &SymbolicState, v: &Value, desc: &str) -> Option<String> {
    match v {
        Value::Int(t) => {
            let k = t.as_int()?;
            Some(match desc {
                "C" => char::from_u32(k as u16 as u32)?.to_string(),
                "Z" => (k != 0).to_string(),
                _ => k.to_string(),
            })
        }
        Value::Long(t) => Some(t.as_long()?.to_string()),
        Value::Float(f) => Some(java_double(f64::from(f.as_float()?))),
        Value::Double(d) => Some(java_double(d.as_double()?)),
        Value::Ref(r) => match state.deref(*r) {
            Reference::Null => Some("null".into()),
            Reference::Object(id) => match state.string_of(id)? {
                StrValue::Concrete(s) => Some(s.to_string()),
                StrValue::Opaque | StrValue::Term(_) => None,
            },
            Reference::Symbolic(_) => None,
        },
        _ => None,
    }
}

fn java_double(d: f64) -> String {
    if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e7 {
        format!("{d:.1}")
    } else if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else {
        format!("{d}")
    }
}

/// The object a reference argument designates, if resolved and not null.
pub fn object_arg(state: &SymbolicState, v: Option<&Value>) -> Option<crate::value::ObjectId> {
    match v? {
        Value::Ref(r) => match state.deref(*r) {
            Reference::Object(id) => Some(id),
            _ => None,
        },
        _ => None,
    }
}

fn identity_hash(id: crate::value::ObjectId) -> i32 {
    (id.0 as i32)
        .wrapping_mul(0x61c8_8647)
        .wrapping_add(0x1234_5678)
        & 0x7fff_ffff
}

/// Runs model `model` for a call of `target` with `args` (receiver first).
pub fn run(
    model: Model,
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    match model {
        Model::Nop => finish(state, default_result(target)),
        Model::StaticProperty => properties::get_property(state, ctx, &args, 0),
        Model::PropertiesLookup => properties::get_property(state, ctx, &args, 1),
        Model::Properties => properties::get_properties(state, ctx),
        Model::LineSeparator => properties::line_separator(state, ctx),
        Model::Lookup => interp::varhandles::lookup_object(state, ctx),
        Model::CurrentThread => threads::current_thread(state, ctx),
        Model::Processors => finish(state, Some(Value::int(1))),
        Model::CallerClass => threads::caller_class(state, ctx, target),
        Model::FindVarHandle => interp::varhandles::find(state, ctx, &args, false),
        Model::FindStaticVarHandle => interp::varhandles::find(state, ctx, &args, true),
        Model::FillInStackTrace => finish(state, args.first().cloned()),
        Model::IdentityHash => identity_hash_code(state, ctx, target, &args),
        Model::GetClass => get_class(state, ctx, target, &args),
        Model::Clone => clone_object(state, ctx, target, &args),
        Model::ArrayCopy => array_copy(state, ctx, args),
        Model::ClassMethod => class_method(state, ctx, target, args),
        Model::ArrayNewInstance => array_new_instance(state, ctx, target, &args),
        Model::Box => box_value(state, ctx, target, &args),
        Model::NumberToString => number_to_string(state, ctx, &args),
        Model::FloatBits => float_bits(state, ctx, target, &args),
        Model::FpMath => fp_math(state, target, args),
        Model::StrictMath => strict_math(state, ctx, target, &args),
        Model::ParseInt => parse_int(state, ctx, target, args),
        Model::String => strings::string_method(state, ctx, target, args),
        Model::Builder => strings::builder_method(state, ctx, target, args),
        Model::Unsafe => unsafe_value(state, ctx, target, &args),
        Model::UnsafeFieldOffset => unsafe_memory::field_offset(state, ctx, &args),
        Model::UnsafeMemory => unsafe_memory::access(state, ctx, target, &args),
        Model::CharClass => chars::char_class(state, ctx, target, &args),
        // The clock read by a static initializer (the salt of `Set.of`'s iteration order) is
        // a constant: a symbol there would split every later iteration on the JVM's choice.
        Model::Clock if in_static_initializer(state) => finish(state, default_result(target)),
        Model::NotFollowed | Model::Clock => not_followed(state, ctx, target),
    }
}

/// Is a static initializer running (on the stack below the current call)?
fn in_static_initializer(state: &SymbolicState) -> bool {
    state
        .frames
        .iter()
        .any(|f| matches!(f.kind, crate::state::FrameKind::Clinit(_)))
}

/// The call is not followed (a model that cannot answer for these arguments).
fn not_followed(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
) -> Result<Step, SymbolicError> {
    interp::not_followed(
        state,
        ctx,
        &target.class_name,
        &target.name,
        &target.descriptor,
    )
}

/// The zero of the method's return type (None for void).
fn default_result(target: &MethodBody) -> Option<Value> {
    let ret = interp::return_descriptor(&target.descriptor);
    if ret == "V" {
        None
    } else {
        Some(Value::default_for(ret.bytes().next().unwrap_or(b'V')))
    }
}

/// `System.identityHashCode` and `Object.hashCode`: a fixed hash per object, 0 for null.
fn identity_hash_code(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    match object_arg(state, args.first()) {
        Some(id) => finish(state, Some(Value::int(identity_hash(id)))),
        None if matches!(args.first(), Some(Value::Ref(Reference::Null))) => {
            finish(state, Some(Value::int(0)))
        }
        None => not_followed(state, ctx, target),
    }
}

/// `Object.clone`: a shallow copy, a new object of no input's.
fn clone_object(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let Some(id) = object_arg(state, args.first()) else {
        return not_followed(state, ctx, target);
    };
    let mut copy = match state.object(id) {
        Some(o) => o.clone(),
        None => return finish(state, default_result(target)),
    };
    copy.origin = None;
    let new = state.alloc(copy);
    finish(state, Some(Value::Ref(Reference::Object(new))))
}

/// The few `Unsafe` queries the JDK's collections make while they start.
fn unsafe_value(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let v = match &*target.name {
        "arrayBaseOffset0" => Some(Value::int(16)),
        "addressSize0" => Some(Value::int(8)),
        "pageSize" => Some(Value::int(4096)),
        "arrayIndexScale0" => {
            let ty = object_arg(state, args.get(1)).and_then(|id| match &state.object(id)?.kind {
                ObjKind::Mirror(t) => Some(t.clone()),
                _ => None,
            });
            let element = ty
                .as_deref()
                .and_then(|t| t.strip_prefix('['))
                .unwrap_or("I");
            Some(Value::int(unsafe_memory::scale_of(element) as i32))
        }
        "objectFieldOffset0" => Some(Value::Long(Term::long(
            unsafe_memory::UNNAMED_FIELD_BASE + 4 * i64::from(ctx.counters.next_call_symbol % 64),
        ))),
        _ => None,
    };
    finish(state, v)
}

fn array_copy(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    let refs = |v: Option<&Value>| match v {
        Some(Value::Ref(r)) => Some(state.deref(*r)),
        _ => None,
    };
    let (src, dst) = (refs(args.first()), refs(args.get(2)));
    if matches!(src, Some(Reference::Null)) || matches!(dst, Some(Reference::Null)) {
        interp::throw_new(state, ctx, "java/lang/NullPointerException")?;
        return Ok(Step::Continue);
    }
    let (Some(Reference::Object(src)), Some(Reference::Object(dst))) = (src, dst) else {
        return Ok(Step::End(PathEnd::Unsupported(
            "System.arraycopy of unresolved arrays".into(),
        )));
    };
    let mut ints = Vec::new();
    for i in [1usize, 3, 4] {
        match args.get(i) {
            Some(Value::Int(t)) => ints.push(ctx.concretize_small(state, &t.clone())),
            _ => {
                return Ok(Step::End(PathEnd::Unsupported(
                    "System.arraycopy arguments".into(),
                )))
            }
        }
    }
    let (sp, dp, len) = (ints[0], ints[1], ints[2]);
    let length_of = |state: &mut SymbolicState, ctx: &mut Ctx<'_>, id| -> Option<i64> {
        let t = match &state.object(id)?.kind {
            ObjKind::Array { length, .. } => length.clone(),
            _ => return None,
        };
        Some(ctx.concretize_small(state, &t))
    };
    let (Some(sl), Some(dl)) = (length_of(state, ctx, src), length_of(state, ctx, dst)) else {
        interp::throw_new(state, ctx, "java/lang/ArrayStoreException")?;
        return Ok(Step::Continue);
    };
    if sp < 0 || dp < 0 || len < 0 || sp + len > sl || dp + len > dl {
        interp::throw_new(state, ctx, "java/lang/ArrayIndexOutOfBoundsException")?;
        return Ok(Step::Continue);
    }
    if len > 1 << 20 {
        return Ok(Step::End(PathEnd::Bound(format!(
            "System.arraycopy of {len} elements"
        ))));
    }
    let mut values = Vec::with_capacity(len as usize);
    for i in sp..sp + len {
        let v = match state.object(src).map(|o| &o.kind) {
            Some(ObjKind::Array { elements, .. }) => elements.get(i as i32),
            _ => None,
        };
        match v {
            Some(v) => values.push(v),
            None => {
                // An input array's element not read yet: a new input named by its path.
                let origin = state.object(src).and_then(|o| match (&o.kind, &o.origin) {
                    (ObjKind::Array { element, .. }, Some(origin)) => {
                        Some((element.clone(), origin.path.index(&i.to_string())))
                    }
                    _ => None,
                });
                let Some((element, path)) = origin else {
                    return Ok(Step::End(PathEnd::Unsupported(
                        "System.arraycopy from a missing element".into(),
                    )));
                };
                let v = crate::lazy::input_value(state, ctx, &element, path, None)?;
                if let Some(ObjKind::Array { elements, .. }) =
                    state.object_mut(src).map(|o| &mut o.kind)
                {
                    elements.set(i as i32, v.clone());
                }
                values.push(v);
            }
        }
    }
    if let Some(ObjKind::Array { elements, .. }) = state.object_mut(dst).map(|o| &mut o.kind) {
        for (k, v) in values.into_iter().enumerate() {
            elements.set(dp as i32 + k as i32, v);
        }
    }
    finish(state, None)
}

/// True if a term is a constant or a symbol (used by string models to name results).
pub fn is_simple(t: &Term) -> bool {
    matches!(t.kind(), TermKind::Int(_) | TermKind::Var(..))
}
