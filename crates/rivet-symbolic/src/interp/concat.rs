//! `invokedynamic` string concatenation (`StringConcatFactory`): the recipe's pieces, each
//! argument's text when concrete; otherwise an opaque string, or with symbolic strings the
//! concatenation of the pieces as string terms.

use std::sync::Arc;

use rivet_classfile::{BootstrapMethod, Constant, ConstantPool};
use rivet_pc::Term;

use super::calls::{arg_count, pop_args};
use super::{advance, objects, Ctx, Ops, Step};
use crate::error::SymbolicError;
use crate::heap::StrValue;
use crate::natives;
use crate::state::SymbolicState;
use crate::value::{Reference, Value};

/// The recipe's tag of an argument.
const ARGUMENT: char = '\u{1}';
/// The recipe's tag of a constant.
const CONSTANT: char = '\u{2}';

/// A call site of `StringConcatFactory.bsm_name` with bootstrap method `bsm`: pops the
/// arguments of `descriptor` and pushes their concatenation.
pub(super) fn string_concat(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    cp: &ConstantPool,
    bsm: &BootstrapMethod,
    bsm_name: &str,
    descriptor: &str,
) -> Result<Step, SymbolicError> {
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
    let recipe = recipe.unwrap_or_else(|| ARGUMENT.to_string().repeat(n));
    let value = concatenation(state, ctx, &recipe, &constants, &params, &args);
    let id = objects::alloc_string(state, ctx, value)?;
    Ops::push(state, Value::Ref(Reference::Object(id)))?;
    advance(state);
    Ok(Step::Continue)
}

/// The string `recipe` makes of `args` (of descriptors `params`) and `constants`.
fn concatenation(
    state: &SymbolicState,
    ctx: &Ctx<'_>,
    recipe: &str,
    constants: &[String],
    params: &[String],
    args: &[Value],
) -> StrValue {
    let mut out = String::new();
    let mut opaque = false;
    // The same pieces as terms, for symbolic strings.
    let mut pieces: Vec<Option<Term>> = Vec::new();
    let (mut next_arg, mut next_const) = (0usize, 0usize);
    for c in recipe.chars() {
        match c {
            ARGUMENT => {
                let desc = params
                    .get(next_arg)
                    .map(String::as_str)
                    .unwrap_or("Ljava/lang/Object;");
                match args
                    .get(next_arg)
                    .and_then(|a| natives::display_value(state, a, desc))
                {
                    Some(text) => {
                        pieces.push(Some(Term::str_const(&text)));
                        out.push_str(&text);
                    }
                    None => {
                        opaque = true;
                        pieces.push(
                            args.get(next_arg)
                                .and_then(|a| crate::strings_symbolic::value_term(state, a, desc)),
                        );
                    }
                }
                next_arg += 1;
            }
            CONSTANT => {
                let text = constants.get(next_const).map(String::as_str).unwrap_or("");
                pieces.push(Some(Term::str_const(text)));
                out.push_str(text);
                next_const += 1;
            }
            other => {
                pieces.push(Some(Term::str_const(other.encode_utf8(&mut [0; 4]))));
                out.push(other);
            }
        }
    }
    let as_terms = || pieces.into_iter().collect::<Option<Vec<Term>>>();
    match (opaque, ctx.config.symbolic_strings) {
        (false, _) => StrValue::Concrete(Arc::from(out)),
        (true, true) => as_terms()
            .and_then(crate::strings_symbolic::concatenation)
            .unwrap_or(StrValue::Opaque),
        (true, false) => StrValue::Opaque,
    }
}
