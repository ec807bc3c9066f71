//! Does the last clause of a path condition contradict a structural invariant (not-null,
//! inverse, unshared), read off the clauses alone? For path conditions made outside an
//! exploration (TARDIS's alternatives of a test's path), which lazy initialization under the
//! invariants never saw: a null where a field is never null, an alias that would give an
//! object two owners through a back pointer, an alias through an unshared field.
//!
//! Objects are named by the path that first reached them (a fresh clause's path, or the root);
//! a path through an alias is renamed to its target's. The object `{this}` is of the class
//! given; any other object's class is its fresh clause's.

use std::collections::HashMap;

use rivet_pc::{AccessPath, Clause, PathCondition, Step};

use crate::invariants::{Invariant, Invariants, Scope};

/// The number of an invariant the last clause of `pc` contradicts, if any; `this_class` is
/// the internal name of the class of `{this}`.
pub fn contradicted(
    invariants: &Invariants,
    pc: &PathCondition,
    this_class: &str,
) -> Option<usize> {
    if invariants.is_empty() {
        return None;
    }
    let (last, prefix) = pc.clauses.split_last()?;
    let heap = Heap::new(prefix, this_class);
    match last {
        Clause::Null { path, .. } => {
            let (holder, class, field) = heap.holder(path)?;
            first(invariants, &class, field, |inv| match inv {
                Invariant::NotNull { scope, .. } => heap.applies(scope, &holder),
                _ => false,
            })
        }
        Clause::Alias { path, target, .. } => {
            let (holder, class, field) = heap.holder(path)?;
            let object = heap.canonical(target);
            for (n, inv) in invariants.of_field(&class, field) {
                match inv {
                    Invariant::Unshared { scope, .. } if heap.applies(scope, &holder) => {
                        return Some(n)
                    }
                    Invariant::Inverse { back, scope, .. }
                        if heap.applies(scope, &holder)
                            && (heap.owned_by_another(&object, &holder, &class, field, scope)
                                || heap.points_elsewhere(&object, back, &holder)) =>
                    {
                        return Some(n)
                    }
                    _ => {}
                }
            }
            // The target was reached through an unshared field: nothing else refers to it.
            let (owner, owner_class, owner_field) = heap.holder(&object)?;
            first(invariants, &owner_class, owner_field, |inv| match inv {
                Invariant::Unshared { scope, .. } => heap.applies(scope, &owner),
                _ => false,
            })
        }
        Clause::Numeric(_) | Clause::Fresh { .. } => None,
    }
}

/// The number of the first invariant of field (`class`, `field`) that `hit` picks.
fn first(
    invariants: &Invariants,
    class: &str,
    field: &str,
    hit: impl Fn(&Invariant) -> bool,
) -> Option<usize> {
    invariants
        .of_field(class, field)
        .find(|(_, inv)| hit(inv))
        .map(|(n, _)| n)
}

/// The input heap the prefix resolved.
struct Heap<'a> {
    this_class: &'a str,
    /// Alias clauses: reference path (its holder named by its object's path) → the object's
    /// path.
    aliases: HashMap<AccessPath, AccessPath>,
    /// Fresh clauses: object path → class.
    classes: HashMap<AccessPath, &'a str>,
    /// How each reference was resolved: reference path → object path (None: null).
    resolved: Vec<(AccessPath, Option<AccessPath>)>,
}

impl<'a> Heap<'a> {
    fn new(prefix: &'a [Clause], this_class: &'a str) -> Heap<'a> {
        let mut heap = Heap {
            this_class,
            aliases: HashMap::new(),
            classes: HashMap::new(),
            resolved: Vec::new(),
        };
        // In the order resolved, so that a path through an earlier alias is renamed.
        for c in prefix {
            match c {
                Clause::Alias { path, target, .. } => {
                    let reference = heap.canonical_reference(path);
                    let object = heap.canonical(target);
                    heap.aliases.insert(reference.clone(), object.clone());
                    heap.resolved.push((reference, Some(object)));
                }
                Clause::Fresh { path, class, .. } => {
                    let object = heap.canonical_reference(path);
                    heap.classes.insert(object.clone(), class);
                    heap.resolved.push((object.clone(), Some(object)));
                }
                Clause::Null { path, .. } => {
                    let reference = heap.canonical_reference(path);
                    heap.resolved.push((reference, None));
                }
                Clause::Numeric(_) => {}
            }
        }
        heap
    }

    /// The path of the object `path` reaches (aliases followed).
    fn canonical(&self, path: &AccessPath) -> AccessPath {
        let steps = path.steps();
        let Some(Step::Root(root)) = steps.first() else {
            return path.clone();
        };
        let mut at = AccessPath::root(root);
        for step in &steps[1..] {
            at = match step {
                Step::Field(f) => at.field(f),
                Step::Index(i) => at.index(i),
                Step::Length => at.length(),
                Step::Root(_) => return path.clone(),
            };
            if let Some(target) = self.aliases.get(&at) {
                at = target.clone();
            }
        }
        at
    }

    fn class_of(&self, object: &AccessPath) -> Option<&str> {
        match object.parent() {
            None if object.root_name() == "this" => Some(self.this_class),
            None => None,
            Some(_) => self.classes.get(object).copied(),
        }
    }

    /// The object holding reference `path`, its class and the field.
    fn holder<'p>(&self, path: &'p AccessPath) -> Option<(AccessPath, String, &'p str)> {
        let field = path.last_field()?;
        let holder = self.canonical(path.parent()?);
        let class = self.class_of(&holder)?.to_string();
        Some((holder, class, field))
    }

    /// Does `scope` speak of `object`: every object, or those first reached from `{this}`
    /// (of the scope's root class) through the scope's field?
    fn applies(&self, scope: &Scope, object: &AccessPath) -> bool {
        match scope {
            Scope::All => true,
            Scope::Within { root, field } => {
                let steps = object.steps();
                matches!(
                    (steps.first(), steps.get(1)),
                    (Some(Step::Root(r)), Some(Step::Field(f)))
                        if r == "this" && *root == self.this_class && f == field
                )
            }
        }
    }

    /// Does another object in scope, of the same class, already refer to `object` through
    /// the same field (so that its back field would need two values)?
    fn owned_by_another(
        &self,
        object: &AccessPath,
        holder: &AccessPath,
        class: &str,
        field: &str,
        scope: &Scope,
    ) -> bool {
        self.resolved.iter().any(|(reference, to)| {
            to.as_ref() == Some(object)
                && reference.last_field() == Some(field)
                && self
                    .holder(reference)
                    .is_some_and(|(h, c, _)| h != *holder && c == class && self.applies(scope, &h))
        })
    }

    /// Is `object`'s back field already resolved to something other than `holder`?
    fn points_elsewhere(&self, object: &AccessPath, back: &str, holder: &AccessPath) -> bool {
        let reference = object.field(back);
        self.resolved
            .iter()
            .find(|(r, _)| *r == reference)
            .is_some_and(|(_, to)| to.as_ref() != Some(holder))
    }

    /// A reference path with its holder renamed to the object's path.
    fn canonical_reference(&self, reference: &AccessPath) -> AccessPath {
        match (reference.parent(), reference.last_field()) {
            (Some(parent), Some(field)) => self.canonical(parent).field(field),
            _ => reference.clone(),
        }
    }
}
