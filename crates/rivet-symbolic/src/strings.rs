//! The model of `java.lang.String`, `StringBuilder` and `StringBuffer`: concrete contents
//! are computed exactly (equals, length, charAt, hashCode, concatenation, comparisons,
//! substrings); contents depending on symbols (or input strings) are opaque, and their
//! operations return fresh symbols. Builder operations without a model make the builder
//! opaque and return it.

use std::sync::Arc;

use rivet_pc::{CmpOp, Term};

use crate::error::SymbolicError;
use crate::heap::{ObjKind, StrValue};
use crate::interp::{self, Ctx, Step};
use crate::natives::{display_value, finish, object_arg};
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};
use rivet_pc::Clause;

/// Java's `String.hashCode` over UTF-16 code units.
pub fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

fn text_of(state: &SymbolicState, v: Option<&Value>) -> Option<Arc<str>> {
    match state.string_of(object_arg(state, v)?)? {
        StrValue::Concrete(s) => Some(s.clone()),
        StrValue::Opaque | StrValue::Term(_) => None,
    }
}

fn new_string(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    text: Option<String>,
) -> Result<Value, SymbolicError> {
    let value = match text {
        Some(t) => StrValue::Concrete(Arc::from(t)),
        None => StrValue::Opaque,
    };
    Ok(Value::Ref(Reference::Object(interp::alloc_string(
        state, ctx, value,
    )?)))
}

fn int_arg(v: Option<&Value>) -> Option<i32> {
    match v? {
        Value::Int(t) => t.as_int(),
        _ => None,
    }
}

/// A fresh `int` symbol for an opaque operation, with `lower <= v` assumed.
fn fresh_int(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    label: &str,
    lower: Option<i32>,
) -> Result<Value, SymbolicError> {
    let v = interp::fresh_value(state, ctx, "I", label)?;
    if let (Value::Int(t), Some(lo)) = (&v, lower) {
        if let Ok(c) = Term::compare(CmpOp::Ge, t.clone(), Term::int(lo)) {
            state.assume(Clause::Numeric(c));
        }
    }
    Ok(v)
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

fn from_utf16(units: &[u16]) -> String {
    String::from_utf16_lossy(units)
}

/// A method of `java.lang.String` (receiver first in `args`).
pub fn string_method(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    if ctx.config.symbolic_strings {
        if let Some(step) = crate::strings_symbolic::string_method(state, ctx, target, &args)? {
            return Ok(step);
        }
    }
    let name = &*target.name;
    let desc = &*target.descriptor;
    let this = text_of(state, args.first());
    let label = |n: &str| format!("String.{n}");
    let result = match (name, desc) {
        ("<init>", "()V") | ("<init>", "(Ljava/lang/String;)V") => {
            init_string(state, desc, &args);
            None
        }
        ("length", _) => Some(match &this {
            Some(s) => Value::int(utf16(s).len() as i32),
            None => fresh_int(state, ctx, &label("length"), Some(0))?,
        }),
        ("isEmpty", _) => Some(match &this {
            Some(s) => Value::int(i32::from(s.is_empty())),
            None => interp::fresh_value(state, ctx, "Z", &label("isEmpty"))?,
        }),
        ("charAt", _) => match char_at(state, ctx, this.as_deref(), &args)? {
            Ok(v) => Some(v),
            Err(Thrown) => return Ok(Step::Continue),
        },
        ("toCharArray", "()[C") if this.is_some() => {
            let units: Vec<Value> = this
                .as_deref()
                .map(utf16)
                .unwrap_or_default()
                .into_iter()
                .map(|u| Value::int(i32::from(u)))
                .collect();
            let id = interp::alloc_array(state, "C", units.len() as i32);
            if let Some(ObjKind::Array { elements, .. }) = state.object_mut(id).map(|o| &mut o.kind)
            {
                for (i, v) in units.into_iter().enumerate() {
                    elements.set(i as i32, v);
                }
            }
            Some(Value::Ref(Reference::Object(id)))
        }
        ("hashCode", "()I") => Some(match &this {
            Some(s) => Value::int(java_hash(s)),
            None => interp::fresh_value(state, ctx, "I", &label("hashCode"))?,
        }),
        ("equals", _) | ("contentEquals", _) | ("equalsIgnoreCase", _) => {
            Some(string_equals(state, ctx, name, this.as_deref(), &args)?)
        }
        ("toString", _) | ("intern", _) => args.first().cloned(),
        ("concat" | "valueOf" | "copyValueOf", _)
        | ("trim" | "toUpperCase" | "toLowerCase", "()Ljava/lang/String;") => {
            let text = derived_text(state, name, desc, this.as_deref(), &args);
            Some(new_string(state, ctx, text)?)
        }
        ("compareTo" | "startsWith" | "endsWith" | "contains", _) => {
            Some(text_comparison(state, ctx, name, this.as_deref(), &args)?)
        }
        ("indexOf", "(I)I") | ("indexOf", "(Ljava/lang/String;)I") => {
            Some(index_of(state, ctx, this.as_deref(), desc, &args)?)
        }
        ("substring", _) => match substring(state, ctx, this.as_deref(), desc, &args)? {
            Ok(v) => Some(v),
            Err(Thrown) => return Ok(Step::Continue),
        },
        _ => {
            return interp::not_followed(
                state,
                ctx,
                &target.class_name,
                &target.name,
                &target.descriptor,
            )
        }
    };
    finish(state, result)
}

/// `new String()` and `new String(String)`: the receiver's text (opaque if the argument's
/// is not concrete).
fn init_string(state: &mut SymbolicState, desc: &str, args: &[Value]) {
    let text = if desc == "()V" {
        Some(Arc::from(""))
    } else {
        text_of(state, args.get(1))
    };
    if let Some(id) = object_arg(state, args.first()) {
        if let Some(o) = state.object_mut(id) {
            o.kind = ObjKind::Str(text.map(StrValue::Concrete).unwrap_or(StrValue::Opaque));
        }
    }
}

/// The text of the new string `concat`, `valueOf`, `copyValueOf`, `trim`, `toUpperCase` or
/// `toLowerCase` (`name`) returns, when the inputs' texts are concrete.
fn derived_text(
    state: &SymbolicState,
    name: &str,
    desc: &str,
    this: Option<&str>,
    args: &[Value],
) -> Option<String> {
    match name {
        "concat" => {
            let other = text_of(state, args.get(1));
            match (this, other) {
                (Some(a), Some(b)) => Some(format!("{a}{b}")),
                _ => None,
            }
        }
        "valueOf" | "copyValueOf" => {
            let param = desc.trim_start_matches('(').split(')').next().unwrap_or("");
            match param {
                "[C" => None,
                "Ljava/lang/Object;" => args
                    .first()
                    .and_then(|a| display_value(state, a, "Ljava/lang/Object;")),
                p => args.first().and_then(|a| display_value(state, a, p)),
            }
        }
        _ => this.map(|s| match name {
            "trim" => s.trim_matches(|c: char| c <= ' ').to_string(),
            "toUpperCase" => s.to_uppercase(),
            _ => s.to_lowercase(),
        }),
    }
}

/// `compareTo`, `startsWith`, `endsWith`, `contains` (`name`): the answer on concrete
/// texts, a fresh value otherwise.
fn text_comparison(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    name: &str,
    this: Option<&str>,
    args: &[Value],
) -> Result<Value, SymbolicError> {
    let other = text_of(state, args.get(1));
    let label = format!("String.{name}");
    Ok(match (this, other, name) {
        (Some(a), Some(b), "compareTo") => Value::int(compare_to(a, &b)),
        (_, _, "compareTo") => interp::fresh_value(state, ctx, "I", &label)?,
        (Some(a), Some(b), _) => Value::int(i32::from(match name {
            "startsWith" => a.starts_with(&*b),
            "endsWith" => a.ends_with(&*b),
            _ => a.contains(&*b),
        })),
        _ => interp::fresh_value(state, ctx, "Z", &label)?,
    })
}

/// The method threw (a Java exception is pending in the state): the step continues there.
struct Thrown;

/// `charAt(i)` of a known text at a concrete index; a fresh char otherwise.
fn char_at(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    this: Option<&str>,
    args: &[Value],
) -> Result<Result<Value, Thrown>, SymbolicError> {
    let index = match args.get(1) {
        Some(Value::Int(t)) => Some(t.clone()),
        _ => None,
    };
    Ok(Ok(match (this, index) {
        (Some(s), Some(i)) => {
            let units = utf16(s);
            let i = ctx.concretize(state, &i);
            match units.get(i as usize).filter(|_| i >= 0) {
                Some(c) => Value::int(i32::from(*c)),
                None => {
                    interp::throw_new(state, ctx, "java/lang/StringIndexOutOfBoundsException")?;
                    return Ok(Err(Thrown));
                }
            }
        }
        _ => interp::fresh_value(state, ctx, "C", "String.charAt")?,
    }))
}

/// `equals`, `contentEquals`, `equalsIgnoreCase`: the same object, null or another kind of
/// object, two known texts; a fresh boolean otherwise.
fn string_equals(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    name: &str,
    this: Option<&str>,
    args: &[Value],
) -> Result<Value, SymbolicError> {
    let same = object_arg(state, args.first()) == object_arg(state, args.get(1))
        && object_arg(state, args.first()).is_some();
    let other_is_null =
        matches!(args.get(1), Some(Value::Ref(r)) if state.deref(*r) == Reference::Null);
    let other_string = object_arg(state, args.get(1))
        .and_then(|id| state.string_of(id))
        .is_some();
    let other = text_of(state, args.get(1));
    Ok(if same {
        Value::int(1)
    } else if other_is_null || (object_arg(state, args.get(1)).is_some() && !other_string) {
        Value::int(0)
    } else {
        match (this, other.as_deref()) {
            (Some(a), Some(b)) if name == "equalsIgnoreCase" => {
                Value::int(i32::from(a.to_lowercase() == b.to_lowercase()))
            }
            (Some(a), Some(b)) => Value::int(i32::from(a == b)),
            _ => interp::fresh_value(state, ctx, "Z", &format!("String.{name}"))?,
        }
    })
}

/// `indexOf(char)` and `indexOf(String)` on a known text; a fresh index of at least -1
/// otherwise.
fn index_of(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    this: Option<&str>,
    desc: &str,
    args: &[Value],
) -> Result<Value, SymbolicError> {
    let found = match (this, desc) {
        (Some(s), "(I)I") => int_arg(args.get(1)).map(|c| {
            utf16(s)
                .iter()
                .position(|u| i32::from(*u) == c)
                .map(|p| p as i32)
                .unwrap_or(-1)
        }),
        (Some(s), _) => text_of(state, args.get(1)).map(|b| {
            s.find(&*b)
                .map(|p| utf16(&s[..p]).len() as i32)
                .unwrap_or(-1)
        }),
        _ => None,
    };
    match found {
        Some(i) => Ok(Value::int(i)),
        None => fresh_int(state, ctx, "String.indexOf", Some(-1)),
    }
}

/// `substring(begin)` and `substring(begin, end)` of a known text at concrete bounds (out of
/// bounds throws); an unknown string otherwise.
fn substring(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    this: Option<&str>,
    desc: &str,
    args: &[Value],
) -> Result<Result<Value, Thrown>, SymbolicError> {
    let begin = int_arg(args.get(1));
    let units = this.map(utf16);
    let end = if desc == "(I)Ljava/lang/String;" {
        units.as_ref().map(|u| u.len() as i32)
    } else {
        int_arg(args.get(2))
    };
    Ok(Ok(match (units, begin, end) {
        (Some(u), Some(b), Some(e)) => {
            if b < 0 || e > u.len() as i32 || b > e {
                interp::throw_new(state, ctx, "java/lang/StringIndexOutOfBoundsException")?;
                return Ok(Err(Thrown));
            }
            new_string(state, ctx, Some(from_utf16(&u[b as usize..e as usize])))?
        }
        _ => new_string(state, ctx, None)?,
    }))
}

fn compare_to(a: &str, b: &str) -> i32 {
    let (x, y) = (utf16(a), utf16(b));
    for (p, q) in x.iter().zip(y.iter()) {
        if p != q {
            return i32::from(*p) - i32::from(*q);
        }
    }
    x.len() as i32 - y.len() as i32
}

fn set_builder(state: &mut SymbolicState, id: ObjectId, value: StrValue) {
    if let Some(o) = state.object_mut(id) {
        o.kind = ObjKind::Str(value);
    }
}

/// A method of `StringBuilder`/`StringBuffer` (receiver first in `args`).
pub fn builder_method(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: Vec<Value>,
) -> Result<Step, SymbolicError> {
    let name = &*target.name;
    let desc = &*target.descriptor;
    let Some(this_id) = object_arg(state, args.first()) else {
        return interp::not_followed(state, ctx, &target.class_name, name, desc);
    };
    let current = match state.string_of(this_id) {
        Some(StrValue::Concrete(s)) => Some(s.clone()),
        _ => None,
    };
    if ctx.config.symbolic_strings {
        if let Some(step) = symbolic_builder(state, ctx, this_id, name, desc, &args)? {
            return Ok(step);
        }
    }
    let returns_this = desc.ends_with(&format!("L{};", target.class_name))
        || desc.ends_with("Ljava/lang/AbstractStringBuilder;");
    let this = Value::Ref(Reference::Object(this_id));
    let result = match (name, desc) {
        ("<init>", "()V") | ("<init>", "(I)V") => {
            set_builder(state, this_id, StrValue::Concrete(Arc::from("")));
            None
        }
        ("<init>", _) => {
            let text = text_of(state, args.get(1));
            set_builder(
                state,
                this_id,
                text.map(StrValue::Concrete).unwrap_or(StrValue::Opaque),
            );
            None
        }
        ("append", d) => {
            let param = d.trim_start_matches('(').split(')').next().unwrap_or("");
            let piece = match (param, args.get(1)) {
                ("[C", _) => None,
                (p, Some(v)) => display_value(state, v, p),
                _ => None,
            };
            let value = match (current, piece) {
                (Some(a), Some(b)) => StrValue::Concrete(Arc::from(format!("{a}{b}"))),
                _ => StrValue::Opaque,
            };
            set_builder(state, this_id, value);
            Some(this)
        }
        ("toString", _) => Some(new_string(state, ctx, current.map(|s| s.to_string()))?),
        ("length", _) => Some(match current {
            Some(s) => Value::int(utf16(&s).len() as i32),
            None => fresh_int(state, ctx, "StringBuilder.length", Some(0))?,
        }),
        ("charAt", _) => match (current, int_arg(args.get(1))) {
            (Some(s), Some(i)) => match utf16(&s).get(i as usize).filter(|_| i >= 0) {
                Some(c) => Some(Value::int(i32::from(*c))),
                None => {
                    interp::throw_new(state, ctx, "java/lang/StringIndexOutOfBoundsException")?;
                    return Ok(Step::Continue);
                }
            },
            _ => Some(interp::fresh_value(
                state,
                ctx,
                "C",
                "StringBuilder.charAt",
            )?),
        },
        ("reverse", _) => {
            let value = match current {
                Some(s) => StrValue::Concrete(Arc::from(s.chars().rev().collect::<String>())),
                None => StrValue::Opaque,
            };
            set_builder(state, this_id, value);
            Some(this)
        }
        _ if returns_this => {
            set_builder(state, this_id, StrValue::Opaque);
            Some(this)
        }
        _ => return interp::not_followed(state, ctx, &target.class_name, name, desc),
    };
    finish(state, result)
}

/// A builder method where the builder's or the piece's contents are string terms; None to
/// leave it to the concrete model.
fn symbolic_builder(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    this_id: ObjectId,
    name: &str,
    desc: &str,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let this = Value::Ref(Reference::Object(this_id));
    let result = match (name, desc) {
        ("append", d) => {
            let param = d.trim_start_matches('(').split(')').next().unwrap_or("");
            let Some(current) = state.string_of(this_id).cloned() else {
                return Ok(None);
            };
            let Some(next) = crate::strings_symbolic::appended(state, &current, args.get(1), param)
            else {
                return Ok(None);
            };
            set_builder(state, this_id, next);
            this
        }
        ("toString", "()Ljava/lang/String;") => {
            let Some(t) = crate::strings_symbolic::builder_term(state, this_id) else {
                return Ok(None);
            };
            crate::strings_symbolic::new_string(state, ctx, t)?
        }
        ("length", "()I") => {
            let Some(t) = crate::strings_symbolic::builder_term(state, this_id) else {
                return Ok(None);
            };
            match Term::string_op(rivet_pc::StrOp::Length, vec![t]) {
                Ok(len) => Value::Int(len),
                Err(_) => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    finish(state, Some(result)).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_java() {
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        assert_eq!(java_hash("hello"), 99_162_322);
        assert_eq!(compare_to("a", "b"), -1);
        assert_eq!(compare_to("ab", "a"), 1);
    }
}
