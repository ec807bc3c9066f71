//! Input strings as symbols (with `ExploreConfig::symbolic_strings`, the concolic strategy's
//! view): a string reached from an input has a symbolic length `{p}.length` (0 to
//! `MAX_SYMBOLIC_STRING`) and a `char` symbol `{p}[i]` per character read. `length`,
//! `isEmpty`, `charAt` at a known index (splitting on the bounds), and `equals`/`startsWith`
//! against a known string become clauses; anything else treats the string as opaque (fresh
//! symbols), as without the option.

use std::sync::Arc;

use rivet_pc::{BinaryOp, CmpOp, SymbolSort, Term};

use crate::error::SymbolicError;
use crate::heap::{ObjKind, StrValue, SymbolicString};
use crate::interp::{self, Ctx, PathEnd, Split, Step};
use crate::natives::{finish, object_arg};
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};

const OUT_OF_BOUNDS: &str = "java/lang/StringIndexOutOfBoundsException";

fn symbolic_of(state: &SymbolicState, id: Option<ObjectId>) -> Option<Arc<SymbolicString>> {
    match state.string_of(id?)? {
        StrValue::Symbolic(s) => Some(s.clone()),
        _ => None,
    }
}

fn concrete_of(state: &SymbolicState, v: Option<&Value>) -> Option<Vec<u16>> {
    match state.string_of(object_arg(state, v)?)? {
        StrValue::Concrete(s) => Some(s.encode_utf16().collect()),
        _ => None,
    }
}

fn sort_error(e: rivet_pc::SortError) -> SymbolicError {
    SymbolicError::Bytecode {
        class: rivet_classfile::ClassName::from_internal("java/lang/String"),
        method: "?".into(),
        reason: format!("a string clause: {e}"),
    }
}

/// The term of character `i` of the string object `id` (a new symbol on first read).
fn char_at(state: &mut SymbolicState, ctx: &mut Ctx<'_>, id: ObjectId, i: u32) -> Option<Term> {
    let s = symbolic_of(state, Some(id))?;
    if let Some(t) = s.chars.get(&i) {
        return Some(t.clone());
    }
    let symbol = ctx
        .symbols
        .fresh(s.path.index(&i.to_string()), SymbolSort::Char);
    let term = Term::var(symbol, SymbolSort::Char);
    let mut next = (*s).clone();
    next.chars.insert(i, term.clone());
    if let Some(o) = state.object_mut(id) {
        o.kind = ObjKind::Str(StrValue::Symbolic(Arc::new(next)));
    }
    Some(term)
}

/// `len == text.len() && s[0] == text[0] && ...` (`prefix`: `len >= text.len()` instead).
fn matches_text(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    id: ObjectId,
    text: &[u16],
    prefix: bool,
) -> Result<Option<Term>, SymbolicError> {
    let Some(s) = symbolic_of(state, Some(id)) else {
        return Ok(None);
    };
    let op = if prefix { CmpOp::Ge } else { CmpOp::Eq };
    let n = Term::int(text.len() as i32);
    let mut cond = Term::compare(op, s.length.clone(), n).map_err(sort_error)?;
    for (i, unit) in text.iter().enumerate() {
        let Some(c) = char_at(state, ctx, id, i as u32) else {
            return Ok(None);
        };
        let eq = Term::compare(CmpOp::Eq, c, Term::int(i32::from(*unit))).map_err(sort_error)?;
        cond = Term::binary(BinaryOp::And, cond, eq).map_err(sort_error)?;
    }
    Ok(Some(cond))
}

fn as_int(cond: Term) -> Result<Value, SymbolicError> {
    Ok(Value::Int(
        Term::ite(cond, Term::int(1), Term::int(0)).map_err(sort_error)?,
    ))
}

/// A `java.lang.String` method on a symbolic input string; None when the model does not
/// cover the call (the caller then treats the string as opaque).
pub fn string_method(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Option<Step>, SymbolicError> {
    let this = object_arg(state, args.first());
    let other = object_arg(state, args.get(1));
    let name = &*target.name;
    let desc = &*target.descriptor;
    // `"literal".equals(input)` is `input.equals("literal")`.
    let (subject, text) = match (symbolic_of(state, this), symbolic_of(state, other)) {
        (Some(_), _) => (this, concrete_of(state, args.get(1))),
        (None, Some(_)) if name == "equals" => (other, concrete_of(state, args.first())),
        _ => return Ok(None),
    };
    let Some(id) = subject else {
        return Ok(None);
    };
    let Some(s) = symbolic_of(state, Some(id)) else {
        return Ok(None);
    };
    let value = match (name, desc) {
        ("length", "()I") => Value::Int(s.length.clone()),
        ("isEmpty", "()Z") => {
            as_int(Term::compare(CmpOp::Eq, s.length.clone(), Term::int(0)).map_err(sort_error)?)?
        }
        ("charAt", "(I)C") => {
            let Some(i) = (match args.get(1) {
                Some(Value::Int(t)) => t.as_int(),
                _ => None,
            }) else {
                return Ok(None);
            };
            if i < 0 {
                interp::throw_new(state, ctx, OUT_OF_BOUNDS)?;
                return Ok(Some(Step::Continue));
            }
            let inside =
                Term::compare(CmpOp::Lt, Term::int(i), s.length.clone()).map_err(sort_error)?;
            match ctx.split(state, inside) {
                Split::True => {}
                Split::False => {
                    interp::throw_new(state, ctx, OUT_OF_BOUNDS)?;
                    return Ok(Some(Step::Continue));
                }
                Split::Bound => return Ok(Some(Step::End(PathEnd::Bound("depth".into())))),
                Split::Both(other) => {
                    let mut outside = *other;
                    interp::throw_new(&mut outside, ctx, OUT_OF_BOUNDS)?;
                    let Some(c) = char_at(state, ctx, id, i as u32) else {
                        return Ok(None);
                    };
                    finish(state, Some(Value::Int(c)))?;
                    return Ok(Some(Step::Fork(vec![std::mem::take(state), outside])));
                }
            }
            let Some(c) = char_at(state, ctx, id, i as u32) else {
                return Ok(None);
            };
            Value::Int(c)
        }
        ("equals", "(Ljava/lang/Object;)Z") => {
            let other_null =
                matches!(args.get(1), Some(Value::Ref(r)) if state.deref(*r) == Reference::Null);
            if other_null {
                Value::int(0)
            } else {
                let Some(text) = text else {
                    return Ok(None);
                };
                match matches_text(state, ctx, id, &text, false)? {
                    Some(c) => as_int(c)?,
                    None => return Ok(None),
                }
            }
        }
        ("startsWith", "(Ljava/lang/String;)Z") => {
            let Some(text) = text else {
                return Ok(None);
            };
            match matches_text(state, ctx, id, &text, true)? {
                Some(c) => as_int(c)?,
                None => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    finish(state, Some(value)).map(Some)
}
