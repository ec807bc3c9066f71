//! Lazy initialization (JBSE): a symbolic reference is resolved at its first use into null,
//! an alias of each earlier-resolved input object of a compatible type, or a fresh object of
//! each compatible concrete class, within the heap scope and the invariants. Each choice is
//! a clause of the path condition; a fresh object's fields are new symbols named by access
//! path.

use std::sync::Arc;

use rivet_pc::{CmpOp, StrOp, SymbolSort, Term};

use crate::context::{Ctx, PathEnd, Step};
use crate::error::SymbolicError;
use crate::heap::{Elements, HeapObject, ObjKind, Origin, StrValue};
use crate::invariant_use::{self, FieldRules};
use crate::invariants::{AliasStep, Invariant};
use crate::state::{SymRef, SymbolicState};
use crate::value::{ObjectId, Reference, SymRefId, Value};
use rivet_pc::{AccessPath, Clause};

/// One way to resolve a symbolic reference.
#[derive(Debug, Clone)]
enum Choice {
    Null,
    Alias(ObjectId),
    Fresh(Arc<str>),
}

/// The sort of a symbol for a primitive descriptor; None for references.
pub fn sort_of(descriptor: &str) -> Option<SymbolSort> {
    Some(match descriptor.as_bytes().first()? {
        b'Z' => SymbolSort::Boolean,
        b'B' => SymbolSort::Byte,
        b'C' => SymbolSort::Char,
        b'S' => SymbolSort::Short,
        b'I' => SymbolSort::Int,
        b'J' => SymbolSort::Long,
        b'F' => SymbolSort::Float,
        b'D' => SymbolSort::Double,
        _ => return None,
    })
}

/// A new input value of descriptor `descriptor` named `path`: a symbol for primitives
/// (ints, longs, floats, doubles and the narrower types), an unresolved symbolic reference
/// for references.
pub fn input_value(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    descriptor: &str,
    path: AccessPath,
    holder: Option<(ObjectId, Arc<str>, Arc<str>)>,
) -> Result<Value, SymbolicError> {
    if let Some(sort) = sort_of(descriptor) {
        let id = ctx.symbols.fresh(path, sort);
        let t = Term::var(id, sort);
        return Ok(match sort {
            SymbolSort::Long => Value::Long(t),
            SymbolSort::Float => Value::Float(t),
            SymbolSort::Double => Value::Double(t),
            _ => Value::Int(t),
        });
    }
    let ty: Arc<str> = match descriptor
        .strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
    {
        Some(name) => Arc::from(name),
        None => Arc::from(descriptor),
    };
    let symbol = ctx.symbols.fresh(path.clone(), SymbolSort::Ref);
    Ok(Value::Ref(Reference::Symbolic(
        state.new_symref(path, ty, symbol, holder),
    )))
}

/// The object an alias-only path designates, from the holder of the field being resolved.
fn alias_target(
    state: &SymbolicState,
    holder: ObjectId,
    steps: &[AliasStep],
    ctx: &mut Ctx<'_>,
) -> Option<ObjectId> {
    let mut current = holder;
    for step in steps {
        current = match step {
            AliasStep::This => current,
            AliasStep::Up => {
                let path = state
                    .object(current)?
                    .origin
                    .as_ref()?
                    .path
                    .parent()?
                    .clone();
                *state.inputs.iter().find(|id| {
                    state
                        .object(**id)
                        .and_then(|o| o.origin.as_ref())
                        .is_some_and(|o| o.path == path)
                })?
            }
            AliasStep::Field(name) => {
                let obj = state.object(current)?;
                let class = ctx.program.class_by_id(obj.class?).clone();
                let slot = class.field_by_name(name)?;
                match &obj.kind {
                    ObjKind::Instance(fields) => match fields.get(slot)? {
                        Value::Ref(r) => match state.deref(*r) {
                            Reference::Object(id) => id,
                            _ => return None,
                        },
                        _ => return None,
                    },
                    _ => return None,
                }
            }
        };
    }
    Some(current)
}

/// The ways to resolve a reference and the invariants (by number) that removed one.
#[derive(Debug, Default)]
struct Choices {
    choices: Vec<Choice>,
    used: Vec<usize>,
}

/// Resolves symbolic reference `s`: the state continues with the only choice, or forks
/// into one successor per choice. The current instruction runs again afterwards.
pub fn resolve(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    s: SymRefId,
) -> Result<Step, SymbolicError> {
    let Some(sr) = state.symrefs.get(s.0 as usize).cloned() else {
        return Ok(Step::End(PathEnd::Unsupported(
            "unknown symbolic reference".into(),
        )));
    };
    let _span = tracing::trace_span!("lazy_init", path = %sr.path, ty = %sr.ty).entered();
    let Choices { choices, mut used } = choices_for(state, ctx, &sr)?;
    used.sort_unstable();
    used.dedup();
    for n in &used {
        invariant_use::used(ctx, *n);
    }
    match choices.len() {
        // The invariants left no choice: not a path of a legal input.
        0 if !used.is_empty() => {
            ctx.counters.pruned += 1;
            Ok(Step::End(PathEnd::Dropped))
        }
        0 => Ok(Step::End(PathEnd::Bound(format!(
            "no way to initialize {} within the bounds",
            sr.path
        )))),
        1 => {
            apply(state, ctx, s, &choices[0])?;
            if closes(&choices[0]) && !invariant_use::check_closed(state, ctx) {
                return Ok(Step::End(PathEnd::Dropped));
            }
            Ok(Step::Continue)
        }
        _ => fork(state, ctx, s, &choices),
    }
}

/// The choices for reference `sr` within the heap scope and the invariants: the back
/// pointer an inverse invariant names, or null (unless not-null), the aliases and the
/// fresh objects.
fn choices_for(
    state: &SymbolicState,
    ctx: &mut Ctx<'_>,
    sr: &SymRef,
) -> Result<Choices, SymbolicError> {
    let invariants = &ctx.config.invariants;
    let alias_only = sr.holder.as_ref().and_then(|(_, owner, name)| {
        invariants.of_field(owner, name).find_map(|(_, i)| match i {
            Invariant::AliasOnly { path, .. } => Some(path.clone()),
            _ => None,
        })
    });
    let rules = match &sr.holder {
        Some((holder, owner, name)) => invariant_use::field_rules(state, ctx, *holder, owner, name),
        None => FieldRules::default(),
    };
    let mut out = Choices::default();
    if let Some((first_n, x)) = rules.backward.first() {
        // Back pointers: the reference is the object whose field points at its holder.
        out.used.push(*first_n);
        let same = rules.backward.iter().all(|(_, y)| y == x);
        if same && is_alias_candidate(state, ctx, *x, &sr.ty) {
            out.choices.push(Choice::Alias(*x));
        }
        return Ok(out);
    }
    match rules.not_null {
        Some(n) => out.used.push(n),
        None => out.choices.push(Choice::Null),
    }
    match (&alias_only, &sr.holder) {
        (Some(steps), Some((holder, _, _))) => {
            if let Some(target) = alias_target(state, *holder, steps, ctx) {
                if is_alias_candidate(state, ctx, target, &sr.ty) {
                    out.choices.push(Choice::Alias(target));
                }
            }
        }
        _ => alias_choices(state, ctx, sr, &rules, &mut out),
    }
    if alias_only.is_none() {
        fresh_choices(state, ctx, sr, &mut out)?;
    }
    if let Some(cast) = &sr.cast {
        one_that_throws(state, ctx, cast, &mut out.choices);
    }
    Ok(out)
}

/// Keeps, of the choices a cast to `cast` rejects, only the first: each throws the same
/// `ClassCastException` at the cast, so the rest add paths and no behaviour. (An element of
/// an `Object[]` cast to its list's element type would otherwise alias each earlier input of
/// any class, and a loop over nine elements fork at each of them.)
fn one_that_throws(
    state: &SymbolicState,
    ctx: &mut Ctx<'_>,
    cast: &Arc<str>,
    choices: &mut Vec<Choice>,
) {
    let mut seen_rejected = false;
    choices.retain(|c| {
        let fits = match c {
            Choice::Null => true,
            Choice::Alias(id) => state
                .object(*id)
                .is_some_and(|o| ctx.program.is_assignable(&o.type_name, cast)),
            Choice::Fresh(class) => ctx.program.is_assignable(class, cast),
        };
        let keep = fits || !seen_rejected;
        seen_rejected |= !fits;
        keep
    });
}

/// Is `id` an input whose type a reference of type `ty` may hold?
fn is_alias_candidate(state: &SymbolicState, ctx: &mut Ctx<'_>, id: ObjectId, ty: &str) -> bool {
    match state.object(id) {
        Some(o) => state.inputs.contains(&id) && ctx.program.is_assignable(&o.type_name, ty),
        None => false,
    }
}

/// An alias of each earlier input of a compatible type the invariants do not exclude.
fn alias_choices(
    state: &SymbolicState,
    ctx: &mut Ctx<'_>,
    sr: &SymRef,
    rules: &FieldRules,
    out: &mut Choices,
) {
    for &id in &state.inputs {
        let ty = match state.object(id) {
            Some(o) => o.type_name.clone(),
            None => continue,
        };
        if !ctx.program.is_assignable(&ty, &sr.ty) {
            continue;
        }
        let excluded = sr.holder.as_ref().and_then(|(holder, _, _)| {
            invariant_use::excludes_alias(state, ctx, rules, *holder, id)
        });
        match excluded {
            Some(n) => out.used.push(n),
            None => out.choices.push(Choice::Alias(id)),
        }
    }
}

/// A fresh object of each concrete class the reference's type (or an `expand-only`
/// invariant, or a cast) allows, within the heap scope; choices beyond it are pruned.
fn fresh_choices(
    state: &SymbolicState,
    ctx: &mut Ctx<'_>,
    sr: &SymRef,
    out: &mut Choices,
) -> Result<(), SymbolicError> {
    let mut classes: Vec<Arc<str>> = match ctx.config.invariants.expand_only(&sr.ty) {
        Some((_, list)) => list.iter().map(|c| Arc::from(c.internal())).collect(),
        None => ctx.program.concrete_subtypes(&sr.ty)?.to_vec(),
    };
    if let Some(cast) = &sr.cast {
        if !classes.contains(cast) && ctx.program.concrete_subtypes(cast)?.contains(cast) {
            classes.insert(0, cast.clone());
        }
    }
    for class in classes {
        let used_scope = state.scope.get(&class).copied().unwrap_or(0);
        match ctx.config.heap_scope.get(&*class) {
            Some(&limit) if used_scope >= limit => ctx.counters.pruned += 1,
            _ => out.choices.push(Choice::Fresh(class)),
        }
    }
    Ok(())
}

/// One successor per choice, each a decision deeper (the depth bound ends the path).
fn fork(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    s: SymRefId,
    choices: &[Choice],
) -> Result<Step, SymbolicError> {
    if state.depth >= ctx.config.depth {
        return Ok(Step::End(PathEnd::Bound("depth".into())));
    }
    let mut out = Vec::with_capacity(choices.len());
    for (i, choice) in choices.iter().enumerate() {
        let mut next = if i + 1 == choices.len() {
            std::mem::take(state)
        } else {
            state.clone()
        };
        next.depth += 1;
        apply(&mut next, ctx, s, choice)?;
        if closes(choice) && !invariant_use::check_closed(&mut next, ctx) {
            continue;
        }
        out.push(next);
    }
    match out.len() {
        0 => Ok(Step::End(PathEnd::Dropped)),
        _ => Ok(Step::Fork(out)),
    }
}

/// Can resolving a reference this way close a counted structure (a fresh object's fields
/// are still unresolved)?
fn closes(choice: &Choice) -> bool {
    !matches!(choice, Choice::Fresh(_))
}

fn eq(a: Term, b: Term) -> Term {
    Term::compare(CmpOp::Eq, a, b).unwrap_or_else(|_| Term::bool(true))
}

fn apply(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    s: SymRefId,
    choice: &Choice,
) -> Result<(), SymbolicError> {
    let Some(sr) = state.symrefs.get(s.0 as usize).cloned() else {
        return Ok(());
    };
    let me = Term::var(sr.symbol, SymbolSort::Ref);
    let (resolved, clause) = match choice {
        Choice::Null => (
            Reference::Null,
            Clause::Null {
                path: sr.path.clone(),
                term: eq(me, Term::int(0)),
            },
        ),
        Choice::Alias(id) => {
            let origin = state.object(*id).and_then(|o| o.origin.clone());
            let Some(origin) = origin else { return Ok(()) };
            (
                Reference::Object(*id),
                Clause::Alias {
                    path: sr.path.clone(),
                    target: origin.path,
                    term: eq(me, Term::var(origin.symbol, SymbolSort::Ref)),
                },
            )
        }
        Choice::Fresh(class) => {
            let address = state.inputs.len() as u32 + 1;
            let id = fresh_object(state, ctx, class, &sr.path, sr.symbol, address)?;
            state.inputs.push(id);
            *state.scope.entry(class.clone()).or_insert(0) += 1;
            (
                Reference::Object(id),
                Clause::Fresh {
                    path: sr.path.clone(),
                    class: class.clone(),
                    term: eq(me, Term::int(address as i32)),
                },
            )
        }
    };
    if let Some(slot) = state.symrefs.get_mut(s.0 as usize) {
        slot.resolved = Some(resolved);
    }
    state.assume(clause);
    // An input array's length is not negative.
    if let Reference::Object(id) = resolved {
        if matches!(choice, Choice::Fresh(_)) {
            if let Some(ObjKind::Array { length, .. }) = state.object(id).map(|o| &o.kind) {
                let c = Term::compare(CmpOp::Ge, length.clone(), Term::int(0))
                    .unwrap_or_else(|_| Term::bool(true));
                state.assume(Clause::Numeric(c));
            }
        }
    }
    Ok(())
}

/// Assumes what range invariants say of a fresh input's int field, keeping the state's model
/// a model of its clauses (the field's symbol is new, so a value in range always exists).
fn assume_ranges(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    owner: &str,
    name: &str,
    sort: SymbolSort,
    value: &Term,
) {
    for (n, clause) in invariant_use::range_clauses(ctx, owner, name, sort, value) {
        if state.model.eval(&clause) != rivet_pc::Concrete::Bool(true) {
            match ctx.feasible(&state.numeric, &clause, &state.model) {
                Some(m) => state.model.merge(&m),
                None => continue,
            }
        }
        invariant_use::used(ctx, n);
        state.assume(Clause::Numeric(clause));
    }
}

/// The longest input string considered (symbolic strings).
pub const MAX_SYMBOLIC_STRING: i32 = 256;

/// Creates the input object of `class` first reached at `path`, its fields new inputs.
pub fn fresh_object(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    class: &Arc<str>,
    path: &AccessPath,
    symbol: rivet_pc::SymbolId,
    address: u32,
) -> Result<ObjectId, SymbolicError> {
    let origin = Some(Origin {
        path: path.clone(),
        symbol,
        address,
    });
    if let Some(element) = class.strip_prefix('[') {
        let len = ctx.symbols.fresh(path.length(), SymbolSort::Int);
        return Ok(state.alloc(HeapObject {
            type_name: class.clone(),
            class: None,
            kind: ObjKind::Array {
                element: Arc::from(element),
                length: Term::var(len, SymbolSort::Int),
                elements: Elements::Sparse(Vec::new()),
            },
            origin,
        }));
    }
    let info = ctx.program.require(class)?;
    if crate::heap::is_string_class(class) {
        let value = if ctx.config.symbolic_strings && &**class == "java/lang/String" {
            // The contents: a string symbol named by the object's path.
            let text = ctx.symbols.fresh(path.clone(), SymbolSort::Str);
            let text = Term::var(text, SymbolSort::Str);
            let length = Term::string_op(StrOp::Length, vec![text.clone()]);
            let bound =
                length.and_then(|l| Term::compare(CmpOp::Le, l, Term::int(MAX_SYMBOLIC_STRING)));
            if let Ok(c) = bound {
                state.assume(Clause::Numeric(c));
            }
            StrValue::Term(text)
        } else {
            StrValue::Opaque
        };
        return Ok(state.alloc(HeapObject {
            type_name: class.clone(),
            class: Some(info.id),
            kind: ObjKind::Str(value),
            origin,
        }));
    }
    let id = ObjectId(state.heap.len() as u32);
    let mut fields = Vec::with_capacity(info.fields.len());
    for f in &info.fields {
        let desc = f.ty.to_string();
        let holder = Some((id, f.owner.clone(), f.name.clone()));
        let field_path = path.field(&f.name);
        let value = input_value(state, ctx, &desc, field_path.clone(), holder)?;
        if let (Some(sort), Value::Int(t) | Value::Long(t)) = (sort_of(&desc), &value) {
            if !ctx.config.invariants.is_empty() {
                invariant_use::note_input_prim(state, ctx, &f.owner, &f.name, &field_path, t);
                assume_ranges(state, ctx, &f.owner, &f.name, sort, t);
            }
        }
        fields.push(value);
    }
    Ok(state.alloc(HeapObject {
        type_name: class.clone(),
        class: Some(info.id),
        kind: ObjKind::Instance(fields),
        origin,
    }))
}

#[cfg(test)]
#[path = "lazy_tests.rs"]
mod tests;
