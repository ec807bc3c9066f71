//! Models of boxing and numbers: the boxes' `valueOf`, `Integer.toString`/`Long.toString`,
//! `Integer.parseInt`, the raw bits of floats and doubles, `Math`/`StrictMath`'s float
//! functions as terms and `StrictMath`'s natives on concrete values.

use std::sync::Arc;

use rivet_pc::Term;

use super::{display_value, finish, not_followed, object_arg};
use crate::context::{Ctx, PathEnd, Step};
use crate::error::SymbolicError;
use crate::heap::StrValue;
use crate::interp;
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{Reference, Value};

/// `Integer.valueOf` and the other boxing factories: a new box holding the value.
pub(super) fn box_value(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let id = match args.first() {
        Some(value) => interp::alloc_box(state, ctx, &target.class_name, value.clone())?,
        None => interp::alloc_instance(state, ctx, &target.class_name)?,
    };
    finish(state, Some(Value::Ref(Reference::Object(id))))
}

/// `Integer.toString` and friends: the text of a concrete value, a string term under
/// symbolic strings, an opaque string otherwise.
pub(super) fn number_to_string(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    if ctx.config.symbolic_strings {
        if let Some(step) = crate::strings_symbolic::number_to_string(state, ctx, args)? {
            return Ok(step);
        }
    }
    let text = args.first().and_then(|a| display_value(state, a, "I"));
    let value = match text {
        Some(t) => StrValue::Concrete(Arc::from(t)),
        None => StrValue::Opaque,
    };
    let id = interp::alloc_string(state, ctx, value)?;
    finish(state, Some(Value::Ref(Reference::Object(id))))
}

/// `Float.floatToRawIntBits`, `Double.doubleToRawLongBits` and their inverses.
pub(super) fn float_bits(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let bits = |op, t: &Term| -> Option<Term> { Term::unary(op, t.clone()).ok() };
    let v = match (&*target.name, args.first()) {
        ("floatToRawIntBits", Some(Value::Float(f))) => match f.as_float() {
            Some(k) => Value::int(k.to_bits() as i32),
            None => match bits(rivet_pc::UnaryOp::F2Bits, f) {
                Some(t) => Value::Int(t),
                None => return Ok(Step::End(PathEnd::Unsupported("floatToRawIntBits".into()))),
            },
        },
        ("doubleToRawLongBits", Some(Value::Double(d))) => match d.as_double() {
            Some(k) => Value::Long(Term::long(k.to_bits() as i64)),
            None => match bits(rivet_pc::UnaryOp::D2Bits, d) {
                Some(t) => Value::Long(t),
                None => {
                    return Ok(Step::End(PathEnd::Unsupported(
                        "doubleToRawLongBits".into(),
                    )))
                }
            },
        },
        ("intBitsToFloat", Some(Value::Int(t))) => {
            Value::float(f32::from_bits(ctx.concretize(state, &t.clone()) as u32))
        }
        ("longBitsToDouble", Some(Value::Long(t))) => {
            Value::double(f64::from_bits(ctx.concretize(state, &t.clone()) as u64))
        }
        _ => return not_followed(state, ctx, target),
    };
    finish(state, Some(v))
}

/// `StrictMath`'s functions on concrete doubles.
pub(super) fn strict_math(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let mut d: Vec<f64> = Vec::with_capacity(args.len());
    for a in args {
        d.push(match a {
            Value::Double(t) => {
                let k = ctx.concretize_term(state, t);
                k.as_double().unwrap_or(f64::NAN)
            }
            _ => 0.0,
        });
    }
    let x = d.first().copied().unwrap_or(0.0);
    let y = d.get(1).copied().unwrap_or(0.0);
    let r = match &*target.name {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        "exp" => x.exp(),
        "log" => x.ln(),
        "log10" => x.log10(),
        "sqrt" => x.sqrt(),
        "cbrt" => x.cbrt(),
        "pow" => x.powf(y),
        "atan2" => x.atan2(y),
        "hypot" => x.hypot(y),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "expm1" => x.exp_m1(),
        _ => x.ln_1p(),
    };
    finish(state, Some(Value::double(r)))
}

/// `Math.sqrt` and `abs`/`min`/`max` of floats and doubles as terms.
pub(super) fn fp_math(
    state: &mut SymbolicState,
    target: &Arc<MethodBody>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    use rivet_pc::{BinaryOp, UnaryOp};
    let term = |v: Option<&Value>| match v {
        Some(Value::Float(t) | Value::Double(t)) => Some(t.clone()),
        _ => None,
    };
    let (a, b) = (term(args.first()), term(args.get(1)));
    let result = match (&*target.name, a, b) {
        ("sqrt", Some(a), None) => Term::unary(UnaryOp::Sqrt, a),
        ("abs", Some(a), None) => Term::unary(UnaryOp::Abs, a),
        ("min", Some(a), Some(b)) => Term::binary(BinaryOp::Min, a, b),
        ("max", Some(a), Some(b)) => Term::binary(BinaryOp::Max, a, b),
        _ => {
            return Ok(Step::End(PathEnd::Unsupported(format!(
                "{}.{}{} on these arguments",
                target.class_name, target.name, target.descriptor
            ))))
        }
    };
    let t = result.map_err(|e| interp::method_error(target, e.to_string()))?;
    let v = if t.sort() == rivet_pc::Sort::Float {
        Value::Float(t)
    } else {
        Value::Double(t)
    };
    finish(state, Some(v))
}

/// `Integer.parseInt(String)`.
pub(super) fn parse_int(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    if ctx.config.symbolic_strings {
        if let Some(step) = crate::strings_symbolic::parse_int(state, ctx, &args)? {
            return Ok(step);
        }
    }
    let text = object_arg(state, args.first()).and_then(|id| match state.string_of(id)? {
        StrValue::Concrete(s) => Some(s.clone()),
        _ => None,
    });
    let null = matches!(args.first(), Some(Value::Ref(r)) if state.deref(*r) == Reference::Null);
    match text {
        // ASCII text: Java's parse and Rust's agree (an optional sign, then digits in range).
        Some(t) if t.is_ascii() => match t.parse::<i32>() {
            Ok(v) => finish(state, Some(Value::int(v))),
            Err(_) => {
                interp::throw_new(state, ctx, "java/lang/NumberFormatException")?;
                Ok(Step::Continue)
            }
        },
        _ if null => {
            interp::throw_new(state, ctx, "java/lang/NumberFormatException")?;
            Ok(Step::Continue)
        }
        // Other digits (Java accepts any Unicode decimal digit) and opaque strings: not
        // modelled.
        _ => interp::not_followed(
            state,
            ctx,
            &target.class_name,
            &target.name,
            &target.descriptor,
        ),
    }
}
