//! How the executor applies the invariants beyond the choices of one reference: which scope an
//! input object is in, which choices of a reference the structural invariants (not-null,
//! inverse, unshared) leave, the assumed bounds of a fresh object's int fields (range), and
//! the clauses count invariants add when a path ends, where the input heap the path
//! resolved tells how many objects a count field counts (an equality when every reference
//! along the way is resolved, else a lower bound). Each application is counted per invariant
//! (`Counters::invariant_uses`).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use rivet_pc::{AccessPath, Clause, CmpOp, SymbolSort, Term};

use crate::context::Ctx;
use crate::invariants::{Invariant, Scope};
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference};

/// The root class (internal name) and first field of the access path by which an input
/// object was first reached; None for a root or an object that is no input.
pub fn region(state: &SymbolicState, obj: ObjectId) -> Option<(Arc<str>, Arc<str>)> {
    let origin = state.object(obj)?.origin.as_ref()?;
    let mut p = &origin.path;
    let root = loop {
        let parent = p.parent()?;
        if parent.parent().is_none() {
            break parent;
        }
        p = parent;
    };
    let first: Arc<str> = Arc::from(p.last_field()?);
    let root_obj = state.inputs.iter().find(|id| {
        state
            .object(**id)
            .and_then(|o| o.origin.as_ref())
            .is_some_and(|o| o.path == *root)
    })?;
    Some((state.object(*root_obj)?.type_name.clone(), first))
}

/// Does `scope` speak of an object in `region`?
pub fn applies(scope: &Scope, region: Option<&(Arc<str>, Arc<str>)>) -> bool {
    match scope {
        Scope::All => true,
        Scope::Within { root, field } => region.is_some_and(|(r, f)| root.is(r) && **f == **field),
    }
}

/// Counts a use of invariant `n`.
pub fn used(ctx: &mut Ctx<'_>, n: usize) {
    *ctx.counters.invariant_uses.entry(n).or_insert(0) += 1;
}

/// The input reference held in field `name` of input object `holder`, if it has one.
fn field_ref(state: &SymbolicState, holder: ObjectId, name: &str) -> Option<usize> {
    state.symrefs.iter().position(|r| {
        r.holder
            .as_ref()
            .is_some_and(|(h, _, n)| *h == holder && **n == *name)
    })
}

/// What the structural invariants say of one reference being resolved, held in field
/// (`owner`, `name`) of input object `holder`.
#[derive(Debug, Default)]
pub struct FieldRules {
    /// A not-null invariant applies (its number).
    pub not_null: Option<usize>,
    /// An unshared invariant applies: no alias of an earlier input.
    pub unshared: Option<usize>,
    /// Inverse invariants of this field: (number, back field); an alias candidate whose back
    /// field is resolved to another object than the holder is excluded.
    pub forward: Vec<(usize, Arc<str>)>,
    /// Inverse invariants of other fields that point here: the objects this reference must
    /// alias (by inverse invariant number).
    pub backward: Vec<(usize, ObjectId)>,
    /// Objects the same field of another input in the scope of an inverse invariant of this
    /// field already refers to: no alias candidates, as their back field cannot point to two
    /// owners (by inverse invariant number).
    pub taken: Vec<(usize, ObjectId)>,
}

/// The rules the invariants impose on field (`owner`, `name`) of `holder`.
pub fn field_rules(
    state: &SymbolicState,
    ctx: &Ctx<'_>,
    holder: ObjectId,
    owner: &str,
    name: &str,
) -> FieldRules {
    let invariants = &ctx.config.invariants;
    let mut rules = FieldRules::default();
    let mut region_of_holder = None;
    let mut region_known = false;
    for (n, inv) in invariants.of_field(owner, name) {
        let scope = match inv {
            Invariant::NotNull { scope, .. }
            | Invariant::Unshared { scope, .. }
            | Invariant::Inverse { scope, .. } => scope,
            _ => continue,
        };
        if !region_known {
            region_of_holder = region(state, holder);
            region_known = true;
        }
        if !applies(scope, region_of_holder.as_ref()) {
            continue;
        }
        match inv {
            Invariant::NotNull { .. } => rules.not_null = Some(n),
            Invariant::Unshared { .. } => rules.unshared = Some(n),
            Invariant::Inverse { back, scope, .. } => {
                rules.forward.push((n, Arc::from(back.as_str())));
                for r in &state.symrefs {
                    let (Some((x, x_owner, x_field)), Some(Reference::Object(target))) =
                        (&r.holder, r.resolved)
                    else {
                        continue;
                    };
                    if *x != holder
                        && **x_owner == *owner
                        && **x_field == *name
                        && applies(scope, region(state, *x).as_ref())
                    {
                        rules.taken.push((n, target));
                    }
                }
            }
            _ => {}
        }
    }
    // Inputs whose field refers to the holder, with an inverse invariant back through `name`.
    for r in &state.symrefs {
        let (Some((x, x_owner, x_field)), Some(Reference::Object(target))) =
            (&r.holder, r.resolved)
        else {
            continue;
        };
        if target != holder {
            continue;
        }
        for (n, inv) in invariants.of_field(x_owner, x_field) {
            if let Invariant::Inverse { back, scope, .. } = inv {
                if **back == *name && applies(scope, region(state, *x).as_ref()) {
                    rules.backward.push((n, *x));
                }
            }
        }
    }
    rules
}

/// May `candidate` be the alias chosen for the holder's field under these rules? Returns the
/// number of the invariant that excludes it.
pub fn excludes_alias(
    state: &SymbolicState,
    ctx: &Ctx<'_>,
    rules: &FieldRules,
    holder: ObjectId,
    candidate: ObjectId,
) -> Option<usize> {
    if let Some(n) = rules.unshared {
        return Some(n);
    }
    if let Some((n, _)) = rules.taken.iter().find(|(_, t)| *t == candidate) {
        return Some(*n);
    }
    for (n, back) in &rules.forward {
        if let Some(i) = field_ref(state, candidate, back) {
            if let Some(resolved) = state.symrefs[i].resolved {
                if resolved != Reference::Object(holder) {
                    return Some(*n);
                }
            }
        }
    }
    unshared_target(state, ctx, candidate)
}

/// The unshared invariant of the field through which `obj` was reached, if one applies: then
/// no other reference may alias it.
fn unshared_target(state: &SymbolicState, ctx: &Ctx<'_>, obj: ObjectId) -> Option<usize> {
    let invariants = &ctx.config.invariants;
    for r in &state.symrefs {
        let (Some((x, owner, field)), Some(Reference::Object(target))) = (&r.holder, r.resolved)
        else {
            continue;
        };
        if target != obj {
            continue;
        }
        for (n, inv) in invariants.of_field(owner, field) {
            if let Invariant::Unshared { scope, .. } = inv {
                if applies(scope, region(state, *x).as_ref()) {
                    return Some(n);
                }
            }
        }
    }
    None
}

fn bound_term(sort: SymbolSort, v: i64) -> Option<Term> {
    match sort {
        SymbolSort::Long => Some(Term::long(v)),
        SymbolSort::Int | SymbolSort::Short | SymbolSort::Byte | SymbolSort::Char => {
            i32::try_from(v).ok().map(Term::int)
        }
        _ => None,
    }
}

/// The clauses range invariants assume of a fresh input object's int field (declaring class
/// `owner`, `name`) holding `value`, with the invariants' numbers.
pub fn range_clauses(
    ctx: &Ctx<'_>,
    owner: &str,
    name: &str,
    sort: SymbolSort,
    value: &Term,
) -> Vec<(usize, Term)> {
    let mut out = Vec::new();
    for (n, inv) in ctx.config.invariants.of_field(owner, name) {
        let Invariant::Range { min, max, .. } = inv else {
            continue;
        };
        for (op, b) in [(CmpOp::Ge, min), (CmpOp::Le, max)] {
            let Some(k) = b.and_then(|b| bound_term(sort, b)) else {
                continue;
            };
            if let Ok(c) = Term::compare(op, value.clone(), k) {
                out.push((n, c));
            }
        }
    }
    out
}

/// The objects reached from field `start` of `owner` through fields `steps` in the input heap
/// the state resolved (`owner` not counted), and whether every reference along the way is
/// resolved; None when `start` itself is not resolved.
fn reach(
    state: &SymbolicState,
    refs: &HashMap<(ObjectId, &str), usize>,
    owner: ObjectId,
    start: &str,
    steps: &[String],
) -> Option<(usize, bool)> {
    let first = state.symrefs[*refs.get(&(owner, start))?].resolved?;
    let mut seen = BTreeSet::new();
    let mut closed = true;
    let mut queue = Vec::new();
    if let Reference::Object(x) = first {
        if x != owner {
            seen.insert(x);
            queue.push(x);
        }
    }
    while let Some(obj) = queue.pop() {
        for step in steps {
            let Some(i) = refs.get(&(obj, step.as_str())) else {
                continue;
            };
            match state.symrefs[*i].resolved {
                None | Some(Reference::Symbolic(_)) => closed = false,
                Some(Reference::Null) => {}
                Some(Reference::Object(next)) => {
                    if next != owner && seen.insert(next) {
                        queue.push(next);
                    }
                }
            }
        }
    }
    Some((seen.len(), closed))
}

/// The clauses the count invariants add: per input object of a counted class,
/// `field == n + offset` when the counted structure is fully resolved, else (unless
/// `closed_only`) `field >= n + offset`, over the field's input symbol. Clauses already
/// assumed are left out.
fn count_clauses(state: &SymbolicState, ctx: &Ctx<'_>, closed_only: bool) -> Vec<(usize, Term)> {
    let invariants = &ctx.config.invariants;
    let mut out = Vec::new();
    if !invariants.has_counts() {
        return out;
    }
    let mut refs: HashMap<(ObjectId, &str), usize> = HashMap::new();
    for (i, r) in state.symrefs.iter().enumerate() {
        if let Some((h, _, name)) = &r.holder {
            refs.insert((*h, name), i);
        }
    }
    for &obj in &state.inputs {
        let Some(o) = state.object(obj) else { continue };
        let Some(origin) = &o.origin else { continue };
        for (n, inv) in invariants.counts_of(&o.type_name) {
            let Invariant::Count {
                field,
                start,
                steps,
                offset,
                ..
            } = inv
            else {
                continue;
            };
            let Some(value) = state.input_prims.get(&origin.path.field(field)) else {
                continue;
            };
            let Some((k, closed)) = reach(state, &refs, obj, start, steps) else {
                continue;
            };
            if closed_only && !closed {
                continue;
            }
            let sort = match value.sort() {
                rivet_pc::Sort::Long => SymbolSort::Long,
                _ => SymbolSort::Int,
            };
            let Some(bound) = bound_term(sort, k as i64 + offset) else {
                continue;
            };
            let op = if closed { CmpOp::Eq } else { CmpOp::Ge };
            if let Ok(c) = Term::compare(op, value.clone(), bound) {
                if !state.numeric.contains(&c) {
                    out.push((n, c));
                }
            }
        }
    }
    out
}

/// Applies the count invariants to a state whose path ended: true when the path stays (its
/// clauses assumed, its model extended), false when they make it infeasible.
pub fn check_at_end(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> bool {
    check_counts(state, ctx, false)
}

/// Applies the count invariants to the structures a lazy initialization has just closed (a
/// reference resolved to null or to an object already there): true when the state stays.
/// A structure's size is then known, and the branches that depend on it are decided at once
/// instead of being explored and dropped when the path ends.
pub fn check_closed(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> bool {
    check_counts(state, ctx, true)
}

fn check_counts(state: &mut SymbolicState, ctx: &mut Ctx<'_>, closed_only: bool) -> bool {
    for (n, clause) in count_clauses(state, ctx, closed_only) {
        used(ctx, n);
        if state.model.eval(&clause) != rivet_pc::Concrete::Bool(true) {
            match ctx.feasible(&state.numeric, &clause, &state.model) {
                Some(m) => state.model.merge(&m),
                None => {
                    ctx.counters.pruned += 1;
                    return false;
                }
            }
        }
        state.assume(Clause::Numeric(clause));
    }
    true
}

/// Records a fresh input object's primitive input value at `path` when a count invariant
/// counts that field (the value the path's end compares with the structure).
pub fn note_input_prim(
    state: &mut SymbolicState,
    ctx: &Ctx<'_>,
    class: &str,
    field: &str,
    path: &AccessPath,
    value: &Term,
) {
    if ctx.config.invariants.is_counted(class, field) {
        state.input_prims.insert(path.clone(), value.clone());
    }
}
