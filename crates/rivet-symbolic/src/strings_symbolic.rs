//! Strings as terms (with `ExploreConfig::symbolic_strings`, the concolic strategy's view): an
//! input string is a string symbol named by its access path, and `java.lang.String`'s
//! `length`, `isEmpty`, `charAt`, `equals`, `equalsIgnoreCase`, `startsWith`, `endsWith`,
//! `contains`, `indexOf`, `substring`, `concat`, `toLowerCase`/`toUpperCase` (ASCII),
//! `String.valueOf`/`Integer.toString` of a symbolic number or char, `Integer.parseInt`,
//! string concatenation and `StringBuilder.append`/`toString`/`length` build string terms
//! and clauses (`rivet_pc::StrOp`), splitting on Java's bounds where it throws. Anything else
//! treats the string as opaque, as without the option.

use std::sync::Arc;

use rivet_pc::{BinaryOp, CmpOp, JavaString, StrOp, Term, UnaryOp};

use crate::error::SymbolicError;
use crate::heap::{Elements, HeapObject, ObjKind, StrValue};
use crate::interp::{self, Ctx, PathEnd, Split, Step};
use crate::natives::{finish, object_arg};
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};

const OUT_OF_BOUNDS: &str = "java/lang/StringIndexOutOfBoundsException";
const NUMBER_FORMAT: &str = "java/lang/NumberFormatException";

fn sort_error(e: rivet_pc::SortError) -> SymbolicError {
    SymbolicError::Bytecode {
        class: rivet_classfile::ClassName::from_internal("java/lang/String"),
        method: "?".into(),
        reason: format!("a string clause: {e}"),
    }
}

fn op(op: StrOp, args: Vec<Term>) -> Result<Term, SymbolicError> {
    Term::string_op(op, args).map_err(sort_error)
}

fn cmp(op: CmpOp, a: Term, b: Term) -> Result<Term, SymbolicError> {
    Term::compare(op, a, b).map_err(sort_error)
}

fn and(a: Term, b: Term) -> Result<Term, SymbolicError> {
    Term::binary(BinaryOp::And, a, b).map_err(sort_error)
}

/// A Java boolean (an `int` 0 or 1) from a condition.
fn as_int(cond: Term) -> Result<Value, SymbolicError> {
    Ok(Value::Int(
        Term::ite(cond, Term::int(1), Term::int(0)).map_err(sort_error)?,
    ))
}

/// The string term of a string object's contents (a constant for concrete contents); None
/// for opaque contents or an object that is not a string.
fn object_term(state: &SymbolicState, id: ObjectId) -> Option<Term> {
    match state.string_of(id)? {
        StrValue::Concrete(s) => Some(Term::str_const(s)),
        StrValue::Term(t) => Some(t.clone()),
        StrValue::Opaque => None,
    }
}

/// Is the value a string object whose contents are a (non-constant) term?
fn is_symbolic(state: &SymbolicState, v: Option<&Value>) -> bool {
    object_arg(state, v)
        .and_then(|id| state.string_of(id))
        .is_some_and(|s| matches!(s, StrValue::Term(_)))
}

/// The string `String.valueOf` gives a value of descriptor `desc`, as a term: a string's
/// contents (`"null"` for null), a number's or char's decimal or one-unit string, a boolean's
/// `"true"`/`"false"`; None when it has no term (opaque strings, other objects, symbolic
/// floats).
pub fn value_term(state: &SymbolicState, v: &Value, desc: &str) -> Option<Term> {
    match v {
        Value::Ref(r) => match state.deref(*r) {
            Reference::Null => Some(Term::str_const("null")),
            Reference::Object(id) => object_term(state, id),
            Reference::Symbolic(_) => None,
        },
        Value::Int(t) => match desc {
            "C" => Term::string_op(StrOp::FromChar, vec![t.clone()]).ok(),
            "Z" => {
                let yes = Term::compare(CmpOp::Ne, t.clone(), Term::int(0)).ok()?;
                Term::ite(yes, Term::str_const("true"), Term::str_const("false")).ok()
            }
            _ => Term::string_op(StrOp::FromInt, vec![t.clone()]).ok(),
        },
        Value::Long(t) => Term::string_op(StrOp::FromInt, vec![t.clone()]).ok(),
        other => crate::natives::display_value(state, other, desc).map(|s| Term::str_const(&s)),
    }
}

/// A new string object holding `t` (concrete when `t` is a constant).
pub fn new_string(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    t: Term,
) -> Result<Value, SymbolicError> {
    let value = match t.as_string() {
        Some(s) => StrValue::Concrete(Arc::from(s.to_text_lossy())),
        None => StrValue::Term(t),
    };
    Ok(Value::Ref(Reference::Object(interp::alloc_string(
        state, ctx, value,
    )?)))
}

/// How a bounds check went: the state goes on inside, or ended outside, or forked with the
/// outside state (which throws) to be returned beside it.
enum Guard {
    Inside,
    Outside(Step),
    Fork(Box<SymbolicState>),
}

/// Splits on `inside`; the outside throws `exception`.
fn guard(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    inside: Term,
    exception: &str,
) -> Result<Guard, SymbolicError> {
    Ok(match ctx.split(state, inside) {
        Split::True => Guard::Inside,
        Split::False => {
            interp::throw_new(state, ctx, exception)?;
            Guard::Outside(Step::Continue)
        }
        Split::Bound => Guard::Outside(Step::End(PathEnd::Bound("depth".into()))),
        Split::Both(other) => {
            let mut outside = *other;
            interp::throw_new(&mut outside, ctx, exception)?;
            Guard::Fork(Box::new(outside))
        }
    })
}

/// Pushes `value` and continues, beside the forked outside state if there is one.
fn done(
    state: &mut SymbolicState,
    guard: Guard,
    value: Value,
) -> Result<Option<Step>, SymbolicError> {
    let step = finish(state, Some(value))?;
    Ok(Some(match guard {
        Guard::Fork(outside) => Step::Fork(vec![std::mem::take(state), *outside]),
        _ => step,
    }))
}

fn int_of(v: Option<&Value>) -> Option<Term> {
    match v? {
        Value::Int(t) => Some(t.clone()),
        _ => None,
    }
}

/// A `java.lang.String` method where the receiver or the argument is a string term; None
/// when the model does not cover the call (the caller then treats the string as opaque).
pub fn string_method(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let name = &*target.name;
    let desc = &*target.descriptor;
    if name == "valueOf" || name == "copyValueOf" {
        return value_of(state, ctx, desc, args);
    }
    if !is_symbolic(state, args.first()) && !is_symbolic(state, args.get(1)) {
        return Ok(None);
    }
    let Some(s) = object_arg(state, args.first()).and_then(|id| object_term(state, id)) else {
        return Ok(None);
    };
    // The argument as a string term (a string object, else None).
    let other = object_arg(state, args.get(1)).and_then(|id| object_term(state, id));
    let other_null =
        matches!(args.get(1), Some(Value::Ref(r)) if state.deref(*r) == Reference::Null);
    let length = || op(StrOp::Length, vec![s.clone()]);
    let value = match (name, desc) {
        ("length", "()I") => Value::Int(length()?),
        ("isEmpty", "()Z") => as_int(cmp(CmpOp::Eq, length()?, Term::int(0))?)?,
        ("charAt", "(I)C") => return char_at(state, ctx, s, args),
        ("toCharArray", "()[C") => {
            let length = length()?;
            let id = state.alloc(HeapObject {
                type_name: Arc::from("[C"),
                class: None,
                kind: ObjKind::Array {
                    element: Arc::from("C"),
                    length,
                    elements: Elements::Chars {
                        entries: Vec::new(),
                        of: s,
                    },
                },
                origin: None,
            });
            Value::Ref(Reference::Object(id))
        }
        ("equals", "(Ljava/lang/Object;)Z")
        | ("contentEquals", "(Ljava/lang/CharSequence;)Z")
        | ("equalsIgnoreCase", "(Ljava/lang/String;)Z") => {
            match equality(state, name, s, other, other_null, args)? {
                Some(v) => v,
                None => return Ok(None),
            }
        }
        ("startsWith", "(Ljava/lang/String;)Z")
        | ("endsWith", "(Ljava/lang/String;)Z")
        | ("contains", "(Ljava/lang/CharSequence;)Z") => {
            let Some(t) = other else {
                return Ok(None);
            };
            let which = match name {
                "startsWith" => StrOp::StartsWith,
                "endsWith" => StrOp::EndsWith,
                _ => StrOp::Contains,
            };
            as_int(op(which, vec![s, t])?)?
        }
        ("indexOf", "(Ljava/lang/String;)I" | "(Ljava/lang/String;I)I" | "(I)I" | "(II)I") => {
            match index_of_call(desc, s, other, args)? {
                Some(v) => v,
                None => return Ok(None),
            }
        }
        ("substring", "(I)Ljava/lang/String;") | ("substring", "(II)Ljava/lang/String;") => {
            return substring(state, ctx, desc, s, args)
        }
        ("concat", "(Ljava/lang/String;)Ljava/lang/String;") => {
            let Some(t) = other else {
                return Ok(None);
            };
            new_string(state, ctx, op(StrOp::Concat, vec![s, t])?)?
        }
        ("toLowerCase", "()Ljava/lang/String;") => {
            new_string(state, ctx, op(StrOp::ToLowerAscii, vec![s])?)?
        }
        ("toUpperCase", "()Ljava/lang/String;") => {
            new_string(state, ctx, op(StrOp::ToUpperAscii, vec![s])?)?
        }
        _ => return Ok(None),
    };
    finish(state, Some(value)).map(Some)
}

/// `s.charAt(i)`: the unit at `i`, `StringIndexOutOfBoundsException` outside.
fn char_at(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    s: Term,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let Some(i) = int_of(args.get(1)) else {
        return Ok(None);
    };
    let length = op(StrOp::Length, vec![s.clone()])?;
    let inside = and(
        cmp(CmpOp::Ge, i.clone(), Term::int(0))?,
        cmp(CmpOp::Lt, i.clone(), length)?,
    )?;
    let g = guard(state, ctx, inside, OUT_OF_BOUNDS)?;
    if let Guard::Outside(step) = g {
        return Ok(Some(step));
    }
    done(state, g, Value::Int(op(StrOp::CharAt, vec![s, i])?))
}

/// `equals`, `contentEquals`, `equalsIgnoreCase` (`name`) of string term `s` with the
/// argument (`other` its term, if a string object); None if not modelled.
fn equality(
    state: &SymbolicState,
    name: &str,
    s: Term,
    other: Option<Term>,
    other_null: bool,
    args: &[Value],
) -> Result<Option<Value>, SymbolicError> {
    if name == "equalsIgnoreCase" {
        return Ok(match other {
            Some(t) => {
                let lower = |x| op(StrOp::ToLowerAscii, vec![x]);
                Some(as_int(cmp(CmpOp::Eq, lower(s)?, lower(t)?)?)?)
            }
            None if other_null => Some(Value::int(0)),
            None => None,
        });
    }
    Ok(match other {
        Some(t) => Some(as_int(cmp(CmpOp::Eq, s, t)?)?),
        None if other_null => Some(Value::int(0)),
        // An object that is not a string (or an opaque one).
        None => {
            let string_arg = object_arg(state, args.get(1))
                .and_then(|id| state.string_of(id))
                .is_some();
            if string_arg {
                None
            } else {
                Some(Value::int(0))
            }
        }
    })
}

/// `indexOf` of a string (`other`) or of a char, from 0 or from an argument; None if not
/// modelled.
fn index_of_call(
    desc: &str,
    s: Term,
    other: Option<Term>,
    args: &[Value],
) -> Result<Option<Value>, SymbolicError> {
    let from = match desc {
        "(Ljava/lang/String;)I" | "(I)I" => Term::int(0),
        _ => match int_of(args.get(2)) {
            Some(f) => f,
            None => return Ok(None),
        },
    };
    if desc.starts_with("(Ljava/lang/String;") {
        let Some(t) = other else {
            return Ok(None);
        };
        return Ok(Some(Value::Int(index_of(s, t, from)?)));
    }
    let Some(c) = int_of(args.get(1)) else {
        return Ok(None);
    };
    // A supplementary code point is two units: not modelled.
    if c.as_int().is_some_and(|k| !(0..=0xffff).contains(&k)) {
        return Ok(None);
    }
    let unit = op(StrOp::FromChar, vec![c])?;
    Ok(Some(Value::Int(index_of(s, unit, from)?)))
}

/// `substring(begin)` and `substring(begin, end)`: the piece,
/// `StringIndexOutOfBoundsException` outside `0 <= begin <= end <= length`.
fn substring(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    desc: &str,
    s: Term,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let Some(begin) = int_of(args.get(1)) else {
        return Ok(None);
    };
    let length = op(StrOp::Length, vec![s.clone()])?;
    let end = match desc {
        "(I)Ljava/lang/String;" => length.clone(),
        _ => match int_of(args.get(2)) {
            Some(e) => e,
            None => return Ok(None),
        },
    };
    let inside = and(
        and(
            cmp(CmpOp::Ge, begin.clone(), Term::int(0))?,
            cmp(CmpOp::Le, begin.clone(), end.clone())?,
        )?,
        cmp(CmpOp::Le, end.clone(), length)?,
    )?;
    let g = guard(state, ctx, inside, OUT_OF_BOUNDS)?;
    if let Guard::Outside(step) = g {
        return Ok(Some(step));
    }
    let count = Term::binary(BinaryOp::Sub, end, begin.clone()).map_err(sort_error)?;
    let piece = op(StrOp::Substr, vec![s, begin, count])?;
    let v = new_string(state, ctx, piece)?;
    done(state, g, v)
}

/// Java's `s.indexOf(t, from)`: `from` below 0 counts from 0; past the end, an empty `t` is
/// found at the end and any other is not.
fn index_of(s: Term, t: Term, from: Term) -> Result<Term, SymbolicError> {
    let len = op(StrOp::Length, vec![s.clone()])?;
    let start = Term::ite(
        cmp(CmpOp::Lt, from.clone(), Term::int(0))?,
        Term::int(0),
        from,
    )
    .map_err(sort_error)?;
    let past = cmp(CmpOp::Gt, start.clone(), len.clone())?;
    let t_empty = cmp(CmpOp::Eq, op(StrOp::Length, vec![t.clone()])?, Term::int(0))?;
    let beyond = Term::ite(t_empty, len, Term::int(-1)).map_err(sort_error)?;
    Term::ite(past, beyond, op(StrOp::IndexOf, vec![s, t, start])?).map_err(sort_error)
}

/// `String.valueOf(x)` of a symbolic number, char, boolean or string term.
fn value_of(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    desc: &str,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let param = desc.trim_start_matches('(').split(')').next().unwrap_or("");
    if !matches!(param, "I" | "J" | "C" | "Z" | "Ljava/lang/Object;") {
        return Ok(None);
    }
    let Some(v) = args.first() else {
        return Ok(None);
    };
    let symbolic = match v {
        Value::Int(t) | Value::Long(t) => !t.is_const(),
        Value::Ref(_) => is_symbolic(state, Some(v)),
        _ => false,
    };
    if !symbolic {
        return Ok(None);
    }
    let Some(t) = value_term(state, v, param) else {
        return Ok(None);
    };
    let out = new_string(state, ctx, t)?;
    finish(state, Some(out)).map(Some)
}

/// `Integer.toString(i)` / `Long.toString(l)` of a symbolic number; None for a constant.
pub fn number_to_string(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let t = match args.first() {
        Some(Value::Int(t) | Value::Long(t)) if !t.is_const() => t.clone(),
        _ => return Ok(None),
    };
    let out = new_string(state, ctx, op(StrOp::FromInt, vec![t])?)?;
    finish(state, Some(out)).map(Some)
}

/// `Integer.parseInt(s)` of a string term: an optional sign, then decimal ASCII digits within
/// `int`'s range; any other string throws `NumberFormatException`.
pub fn parse_int(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    if !is_symbolic(state, args.first()) {
        return Ok(None);
    }
    let Some(s) = object_arg(state, args.first()).and_then(|id| object_term(state, id)) else {
        return Ok(None);
    };
    let len = op(StrOp::Length, vec![s.clone()])?;
    let starts = |sign: &str| op(StrOp::StartsWith, vec![s.clone(), Term::str_const(sign)]);
    let negative = starts("-")?;
    let signed = Term::binary(BinaryOp::Or, negative.clone(), starts("+")?).map_err(sort_error)?;
    let rest = Term::binary(BinaryOp::Sub, len, Term::int(1)).map_err(sort_error)?;
    let body = Term::ite(
        signed,
        op(StrOp::Substr, vec![s.clone(), Term::int(1), rest])?,
        s,
    )
    .map_err(sort_error)?;
    let digits = op(StrOp::ParseDigits, vec![body])?;
    let limit = Term::ite(
        negative.clone(),
        Term::long(1i64 << 31),
        Term::long(i64::from(i32::MAX)),
    )
    .map_err(sort_error)?;
    let valid = and(
        cmp(CmpOp::Ge, digits.clone(), Term::long(0))?,
        cmp(CmpOp::Le, digits.clone(), limit)?,
    )?;
    let g = guard(state, ctx, valid, NUMBER_FORMAT)?;
    if let Guard::Outside(step) = g {
        return Ok(Some(step));
    }
    let magnitude = Term::unary(UnaryOp::L2I, digits).map_err(sort_error)?;
    let minus = Term::unary(UnaryOp::Neg, magnitude.clone()).map_err(sort_error)?;
    let value = Term::ite(negative, minus, magnitude).map_err(sort_error)?;
    done(state, g, Value::Int(value))
}

/// The builder's contents after `append` of `piece` (descriptor `param`), when the builder's
/// or the piece's contents are terms; None otherwise.
pub fn appended(
    state: &SymbolicState,
    current: &StrValue,
    piece: Option<&Value>,
    param: &str,
) -> Option<StrValue> {
    let piece_symbolic = match piece? {
        Value::Int(t) | Value::Long(t) => !t.is_const(),
        v @ Value::Ref(_) => is_symbolic(state, Some(v)),
        _ => false,
    };
    let current_term = match current {
        StrValue::Concrete(s) => Term::str_const(s),
        StrValue::Term(t) => t.clone(),
        StrValue::Opaque => return None,
    };
    if !piece_symbolic && !matches!(current, StrValue::Term(_)) {
        return None;
    }
    let piece = value_term(state, piece?, param)?;
    let joined = Term::string_op(StrOp::Concat, vec![current_term, piece]).ok()?;
    Some(match joined.as_string() {
        Some(s) => StrValue::Concrete(Arc::from(s.to_text_lossy())),
        None => StrValue::Term(joined),
    })
}

/// A string concatenation (`makeConcatWithConstants`) as a term, when a piece is a term.
pub fn concatenation(pieces: Vec<Term>) -> Option<StrValue> {
    let mut out = Term::string(JavaString::default());
    for p in pieces {
        out = Term::string_op(StrOp::Concat, vec![out, p]).ok()?;
    }
    Some(match out.as_string() {
        Some(s) => StrValue::Concrete(Arc::from(s.to_text_lossy())),
        None => StrValue::Term(out),
    })
}

/// The contents of a builder as a term, for `toString` and `length`.
pub fn builder_term(state: &SymbolicState, id: ObjectId) -> Option<Term> {
    match &state.object(id)?.kind {
        ObjKind::Str(StrValue::Term(t)) => Some(t.clone()),
        _ => None,
    }
}
