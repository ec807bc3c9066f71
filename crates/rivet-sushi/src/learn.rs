//! Likely heap invariants inferred from snapshots of real objects (the objects the search's
//! tests built, at calls of the class's methods): per candidate invariant of the class's own
//! data, how many observed objects support it and whether any contradicts it. Candidates, over
//! the fields whose type is a class of the class's own packages:
//!
//! * `not-null C.f`: the field was never null;
//! * `inverse C.f g`: a back pointer, `o.f.g == o` whenever `o.f` is non-null;
//! * `unshared C.f`: the object `o.f` refers to has no other reference (a tree edge);
//!
//! each over every object of the class, or only over those reachable from a root's field (the
//! nodes of a list's `header` chain but not those of its node cache); and over any object:
//!
//! * `range C.f MIN..`: an integer field never seen below a non-negative minimum (a size, a
//!   height; upper bounds are never learned: the branches that are hard to reach are exactly
//!   those needing values beyond what the search saw);
//! * `count R.s F S* K`: an integer field of a root equal to the number of objects reached
//!   from its field `F` through the fields `S` plus `K`, for every snapshot where that
//!   structure was read whole, over at least `min_variety` structure sizes.
//!
//! An invariant is learned when at least `min_support` observations support it, none
//! contradicts it, and at least `min_snapshots` snapshots were seen. Small structures fit
//! invariants that larger ones break, and the first tests a search builds are small: in a
//! header-and-one-node cycle `n.next.next == n` holds of every node, and with caches of at
//! most one node a count through a cached node's `previous` fits. So a back pointer or a tree
//! edge must also have held in a snapshot with at least `min_variety` objects of the class it
//! points to (in its scope), and a count over `min_variety` structure sizes. They stay
//! hypotheses: `contradicted` tells which a snapshot refutes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use rivet_classfile::ClassName;
use rivet_symbolic::{Invariant, Scope};
use rivet_testcase::{HeapSnapshot, ObservedValue, SnapshotField, SnapshotObject};

/// When a candidate counts as learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LearnConfig {
    /// Observations supporting it, at least.
    pub min_support: u64,
    /// Snapshots seen before anything is learned.
    pub min_snapshots: u64,
    /// Objects of the pointed-to class in the largest snapshot where a back pointer or a
    /// tree edge held, and structure sizes a count held over, at least.
    pub min_variety: u32,
}

impl Default for LearnConfig {
    fn default() -> LearnConfig {
        LearnConfig {
            min_support: 50,
            min_snapshots: 10,
            min_variety: 3,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    holds: u64,
    violated: u64,
    /// The most objects of the pointed-to class in a snapshot where it held.
    widest: u32,
}

impl Tally {
    /// One observation, in a snapshot with `population` objects of the pointed-to class.
    fn record(&mut self, holds: bool, population: u32) {
        if holds {
            self.holds += 1;
            self.widest = self.widest.max(population);
        } else {
            self.violated += 1;
        }
    }
}

/// Observed values of an integer field.
#[derive(Debug, Clone, Default)]
struct RangeTally {
    min: i64,
    n: u64,
    /// Up to three distinct values seen.
    distinct: BTreeSet<i64>,
}

/// Observed offsets of a count candidate, and the structure sizes seen (up to
/// [`MAX_SIZES`]).
#[derive(Debug, Clone, Default)]
struct CountTally {
    offsets: BTreeMap<i64, u64>,
    sizes: BTreeSet<usize>,
}

impl CountTally {
    fn record(&mut self, offset: i64, size: usize) {
        *self.offsets.entry(offset).or_insert(0) += 1;
        if self.sizes.len() < MAX_SIZES {
            self.sizes.insert(size);
        }
    }
}

/// Structure sizes a count tally keeps (more than any `min_variety` in use).
const MAX_SIZES: usize = 8;

/// A class or field name as snapshots carry it (classes by binary name), shared.
type Name = Arc<str>;

/// A structural candidate; classes by binary name, the scope by its number in
/// `Learner::scopes`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    NotNull(Name, Name, u32),
    Unshared(Name, Name, u32),
    Inverse(Name, Name, Name, u32),
}

/// A count candidate without its offset: class and field counted, start field, step fields.
type CountKey = (Name, Name, Name, Vec<Name>);

/// What the snapshots seen so far say of each candidate.
#[derive(Debug, Clone)]
pub struct Learner {
    config: LearnConfig,
    /// Packages (binary names) whose classes are the class's own data.
    packages: Vec<String>,
    snapshots: u64,
    /// Scopes by number; 0 is every object.
    scopes: Vec<Scope>,
    scope_numbers: HashMap<(Name, Name), u32>,
    /// Per reference descriptor: is it a class of the own packages?
    own: HashMap<Name, bool>,
    tallies: HashMap<Key, Tally>,
    ranges: HashMap<(Name, Name), RangeTally>,
    counts: HashMap<CountKey, CountTally>,
    /// Count structures seen with a null start: (class, field, start) → the field's values.
    null_starts: HashMap<(Name, Name, Name), CountTally>,
}

fn internal(binary: &str) -> ClassName {
    ClassName::from_binary(binary)
}

fn binary(class: &ClassName) -> Name {
    Arc::from(class.binary())
}

fn object_id(v: &ObservedValue) -> Option<u32> {
    match v {
        ObservedValue::Object { id, .. } => Some(*id),
        _ => None,
    }
}

fn is_reference_value(v: &ObservedValue) -> bool {
    matches!(v, ObservedValue::Null | ObservedValue::Object { .. })
}

/// The objects of a snapshot whose fields were read.
fn read<'a>(s: &'a HeapSnapshot, v: &ObservedValue) -> Option<(u32, &'a SnapshotObject)> {
    s.object(v).filter(|(_, o)| o.values.is_some())
}

impl Learner {
    pub fn new(config: LearnConfig, packages: Vec<String>) -> Learner {
        Learner {
            config,
            packages,
            snapshots: 0,
            scopes: vec![Scope::All],
            scope_numbers: HashMap::new(),
            own: HashMap::new(),
            tallies: HashMap::new(),
            ranges: HashMap::new(),
            counts: HashMap::new(),
            null_starts: HashMap::new(),
        }
    }

    /// Snapshots absorbed so far.
    pub fn snapshots(&self) -> u64 {
        self.snapshots
    }

    /// Is a reference field's declared type a class of the own packages?
    fn own_reference(&mut self, f: &SnapshotField) -> bool {
        if let Some(own) = self.own.get(&f.descriptor) {
            return *own;
        }
        let own = match f
            .descriptor
            .strip_prefix('L')
            .and_then(|d| d.strip_suffix(';'))
        {
            Some(class) => {
                let package = class
                    .rsplit_once('/')
                    .map_or("", |(p, _)| p)
                    .replace('/', ".");
                self.packages.contains(&package)
            }
            None => false,
        };
        self.own.insert(f.descriptor.clone(), own);
        own
    }

    /// The number of the scope of objects reachable from a root of class `root` through
    /// `field`.
    fn scope_number(&mut self, root: &Name, field: &Name) -> u32 {
        if let Some(n) = self.scope_numbers.get(&(root.clone(), field.clone())) {
            return *n;
        }
        let n = self.scopes.len() as u32;
        self.scopes.push(Scope::Within {
            root: internal(root),
            field: field.to_string(),
        });
        self.scope_numbers.insert((root.clone(), field.clone()), n);
        n
    }

    /// Takes one snapshot's observations into the tallies.
    pub fn absorb(&mut self, s: &HeapSnapshot) {
        self.snapshots += 1;
        let roots: BTreeSet<u32> = s.roots().filter_map(object_id).collect();
        // References to each object: from the roots and from the fields read.
        let mut indegree: HashMap<u32, u32> = HashMap::new();
        for id in s.roots().filter_map(object_id) {
            *indegree.entry(id).or_insert(0) += 1;
        }
        for o in s.objects.values() {
            for (_, v) in o.fields() {
                if let Some(t) = object_id(v) {
                    *indegree.entry(t).or_insert(0) += 1;
                }
            }
        }
        let regions = self.regions(s, &roots);
        // Objects read per class and scope, for the variety a structural candidate held over.
        let mut population: HashMap<(&Name, u32), u32> = HashMap::new();
        for (id, o) in s.objects.iter().filter(|(_, o)| o.values.is_some()) {
            let within = regions.get(id).into_iter().flatten().copied();
            for scope in std::iter::once(0).chain(within) {
                *population.entry((&o.class.name, scope)).or_insert(0) += 1;
            }
        }
        let mut scopes: Vec<u32> = Vec::new();
        for (&id, o) in &s.objects {
            if o.values.is_none() {
                continue;
            }
            scopes.clear();
            scopes.push(0);
            scopes.extend(regions.get(&id).into_iter().flatten().copied());
            for (f, v) in o.fields() {
                if f.is_integer() {
                    if let ObservedValue::Int(x) = v {
                        let r = self
                            .ranges
                            .entry((f.owner.clone(), f.name.clone()))
                            .or_default();
                        r.min = if r.n == 0 { *x } else { r.min.min(*x) };
                        r.n += 1;
                        if r.distinct.len() < 3 {
                            r.distinct.insert(*x);
                        }
                    }
                    continue;
                }
                if !is_reference_value(v) || !self.own_reference(f) {
                    continue;
                }
                let target = object_id(v);
                let target_class = target
                    .and_then(|t| s.objects.get(&t))
                    .map(|o| &o.class.name);
                let width = |scope: u32| {
                    target_class
                        .and_then(|c| population.get(&(c, scope)))
                        .copied()
                        .unwrap_or(0)
                };
                let alone = target.map(|t| indegree.get(&t) == Some(&1) && !roots.contains(&t));
                let back: Vec<(Name, bool)> = match target.and_then(|t| s.objects.get(&t)) {
                    Some(to) if to.values.is_some() => to
                        .fields()
                        .filter(|(g, gv)| is_reference_value(gv) && g.is_reference())
                        .map(|(g, gv)| (g.clone(), object_id(gv) == Some(id)))
                        .collect::<Vec<_>>()
                        .into_iter()
                        .filter(|(g, _)| self.own_reference(g))
                        .map(|(g, holds)| (g.name, holds))
                        .collect(),
                    _ => Vec::new(),
                };
                for &scope in &scopes {
                    self.tallies
                        .entry(Key::NotNull(f.owner.clone(), f.name.clone(), scope))
                        .or_default()
                        .record(target.is_some(), width(scope));
                    if let (Some(alone), false) = (alone, s.truncated) {
                        self.tallies
                            .entry(Key::Unshared(f.owner.clone(), f.name.clone(), scope))
                            .or_default()
                            .record(alone, width(scope));
                    }
                    for (g, holds) in &back {
                        self.tallies
                            .entry(Key::Inverse(
                                f.owner.clone(),
                                f.name.clone(),
                                g.clone(),
                                scope,
                            ))
                            .or_default()
                            .record(*holds, width(scope));
                    }
                }
            }
        }
        self.absorb_counts(s, &roots);
    }

    /// Count candidates: per root, integer field and reference field of its own data.
    fn absorb_counts(&mut self, s: &HeapSnapshot, roots: &BTreeSet<u32>) {
        for root in s.roots() {
            let Some((rid, r)) = read(s, root) else {
                continue;
            };
            let class = r.class.name.clone();
            let ints: Vec<(Name, i64)> = r
                .fields()
                .filter(|(f, _)| f.is_integer())
                .filter_map(|(f, v)| match v {
                    ObservedValue::Int(x) => Some((f.name.clone(), *x)),
                    _ => None,
                })
                .collect();
            if ints.is_empty() {
                continue;
            }
            for (f, v) in r.fields() {
                if !f.is_reference() || !self.own_reference(f) {
                    continue;
                }
                let start = f.name.clone();
                match v {
                    ObservedValue::Null => {
                        for (field, x) in &ints {
                            self.null_starts
                                .entry((class.clone(), field.clone(), start.clone()))
                                .or_default()
                                .record(*x, 0);
                        }
                    }
                    ObservedValue::Object { id, .. } => {
                        for steps in self.step_sets(s, *id, rid, roots) {
                            let Some(size) = reach(s, *id, rid, &steps) else {
                                continue;
                            };
                            for (field, x) in &ints {
                                self.counts
                                    .entry((
                                        class.clone(),
                                        field.clone(),
                                        start.clone(),
                                        steps.clone(),
                                    ))
                                    .or_default()
                                    .record(*x - size as i64, size);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The candidate step sets of a structure starting at `start`: each reference field to
    /// the own data declared by the classes of the objects in it, and all of them together.
    fn step_sets(
        &mut self,
        s: &HeapSnapshot,
        start: u32,
        root: u32,
        roots: &BTreeSet<u32>,
    ) -> Vec<Vec<Name>> {
        let mut names: BTreeSet<Name> = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut queue = vec![start];
        while let Some(id) = queue.pop() {
            if id == root || (roots.contains(&id) && id != start) || !seen.insert(id) {
                continue;
            }
            let Some(o) = s.objects.get(&id) else {
                continue;
            };
            for f in &o.class.fields {
                if self.own_reference(f) {
                    names.insert(f.name.clone());
                }
            }
            queue.extend(references(o).map(|(_, t)| t));
        }
        let mut out: Vec<Vec<Name>> = names.iter().map(|n| vec![n.clone()]).collect();
        if names.len() > 1 {
            out.push(names.into_iter().collect());
        }
        out
    }

    /// Per object (not a root), the scopes it is in: reachable from a root of class R through
    /// R's field F.
    fn regions(&mut self, s: &HeapSnapshot, roots: &BTreeSet<u32>) -> HashMap<u32, Vec<u32>> {
        let mut out: HashMap<u32, Vec<u32>> = HashMap::new();
        for root in s.roots() {
            let Some((_, r)) = read(s, root) else {
                continue;
            };
            for (f, start) in references(r) {
                let scope = self.scope_number(&r.class.name, &f.name);
                let mut seen = BTreeSet::new();
                let mut queue = vec![start];
                while let Some(id) = queue.pop() {
                    if roots.contains(&id) || !seen.insert(id) {
                        continue;
                    }
                    let list = out.entry(id).or_default();
                    if !list.contains(&scope) {
                        list.push(scope);
                    }
                    if let Some(o) = s.objects.get(&id) {
                        queue.extend(references(o).map(|(_, t)| t));
                    }
                }
            }
        }
        out
    }

    fn invariant(&self, key: &Key) -> Option<Invariant> {
        Some(match key {
            Key::NotNull(class, field, scope) => Invariant::NotNull {
                class: internal(class),
                field: field.to_string(),
                scope: self.scopes.get(*scope as usize)?.clone(),
            },
            Key::Unshared(class, field, scope) => Invariant::Unshared {
                class: internal(class),
                field: field.to_string(),
                scope: self.scopes.get(*scope as usize)?.clone(),
            },
            Key::Inverse(class, field, back, scope) => Invariant::Inverse {
                class: internal(class),
                field: field.to_string(),
                back: back.to_string(),
                scope: self.scopes.get(*scope as usize)?.clone(),
            },
        })
    }

    /// The key of a structural invariant, if this learner has a number for its scope.
    fn key(&self, inv: &Invariant) -> Option<Key> {
        let scope = |s: &Scope| -> Option<u32> {
            match s {
                Scope::All => Some(0),
                Scope::Within { root, field } => self
                    .scope_numbers
                    .get(&(binary(root), Arc::from(field.as_str())))
                    .copied(),
            }
        };
        Some(match inv {
            Invariant::NotNull {
                class,
                field,
                scope: sc,
            } => Key::NotNull(binary(class), Arc::from(field.as_str()), scope(sc)?),
            Invariant::Unshared {
                class,
                field,
                scope: sc,
            } => Key::Unshared(binary(class), Arc::from(field.as_str()), scope(sc)?),
            Invariant::Inverse {
                class,
                field,
                back,
                scope: sc,
            } => Key::Inverse(
                binary(class),
                Arc::from(field.as_str()),
                Arc::from(back.as_str()),
                scope(sc)?,
            ),
            _ => return None,
        })
    }

    /// The invariants learned so far, with the observations supporting each, in order.
    pub fn infer(&self) -> Vec<(Invariant, u64)> {
        let mut out = Vec::new();
        if self.snapshots < self.config.min_snapshots {
            return out;
        }
        let min = self.config.min_support;
        let mut learned: Vec<(Invariant, u64)> = self
            .tallies
            .iter()
            .filter(|(_, t)| t.violated == 0 && t.holds >= min)
            .filter(|(k, t)| matches!(k, Key::NotNull(..)) || t.widest >= self.config.min_variety)
            .filter_map(|(k, t)| Some((self.invariant(k)?, t.holds)))
            .collect();
        learned.sort();
        let everywhere: BTreeSet<Invariant> = learned
            .iter()
            .filter(|(i, _)| scope_of(i) == Some(&Scope::All))
            .map(|(i, _)| i.clone())
            .collect();
        for (inv, support) in learned {
            // An invariant learned of every object makes its scoped versions redundant.
            if scope_of(&inv) != Some(&Scope::All)
                && everywhere.contains(&with_scope(&inv, Scope::All))
            {
                continue;
            }
            out.push((inv, support));
        }
        let mut ranges: Vec<(Invariant, u64)> = self
            .ranges
            .iter()
            .filter(|(_, r)| r.n >= min && r.min >= 0 && r.distinct.len() >= 2)
            .map(|((class, field), r)| {
                (
                    Invariant::Range {
                        class: internal(class),
                        field: field.to_string(),
                        min: Some(r.min),
                        max: None,
                    },
                    r.n,
                )
            })
            .collect();
        ranges.sort();
        out.extend(ranges);
        let mut counts: Vec<(usize, Invariant, u64)> = Vec::new();
        for ((class, field, start, steps), t) in &self.counts {
            let Some((offset, n, sizes)) = self.count_of(class, field, start, t) else {
                continue;
            };
            if n >= min && sizes >= self.config.min_variety as usize {
                counts.push((
                    steps.len(),
                    Invariant::Count {
                        class: internal(class),
                        field: field.to_string(),
                        start: start.to_string(),
                        steps: steps.iter().map(|s| s.to_string()).collect(),
                        offset,
                    },
                    n,
                ));
            }
        }
        // Through one field when one does; through several only otherwise.
        counts.sort();
        let mut counted: BTreeSet<(ClassName, String, String)> = BTreeSet::new();
        for (k, inv, n) in counts {
            let Invariant::Count {
                class,
                field,
                start,
                ..
            } = &inv
            else {
                continue;
            };
            let key = (class.clone(), field.clone(), start.clone());
            if k > 1 && counted.contains(&key) {
                continue;
            }
            counted.insert(key);
            out.push((inv, n));
        }
        out
    }

    /// The single offset a count candidate was seen with (null starts included), its
    /// observations and the number of sizes seen; None when two offsets were seen.
    fn count_of(
        &self,
        class: &Name,
        field: &Name,
        start: &Name,
        t: &CountTally,
    ) -> Option<(i64, u64, usize)> {
        let mut offsets = t.offsets.clone();
        let mut sizes = t.sizes.clone();
        if let Some(nulls) = self
            .null_starts
            .get(&(class.clone(), field.clone(), start.clone()))
        {
            for (o, n) in &nulls.offsets {
                *offsets.entry(*o).or_insert(0) += n;
            }
            sizes.extend(&nulls.sizes);
        }
        if offsets.len() != 1 {
            return None;
        }
        let (offset, n) = offsets.into_iter().next()?;
        Some((offset, n, sizes.len()))
    }

    /// Does what this learner saw contradict `inv`?
    pub fn contradicts(&self, inv: &Invariant) -> bool {
        match inv {
            Invariant::NotNull { .. } | Invariant::Inverse { .. } | Invariant::Unshared { .. } => {
                self.key(inv)
                    .and_then(|k| self.tallies.get(&k))
                    .is_some_and(|t| t.violated > 0)
            }
            Invariant::Range {
                class,
                field,
                min,
                max,
            } => self
                .ranges
                .get(&(binary(class), Arc::from(field.as_str())))
                .is_some_and(|r| {
                    r.n > 0
                        && (min.is_some_and(|m| r.min < m)
                            || max.is_some_and(|m| r.distinct.iter().any(|v| *v > m)))
                }),
            Invariant::Count {
                class,
                field,
                start,
                steps,
                offset,
            } => {
                let (class, field, start) = (
                    binary(class),
                    Arc::<str>::from(field.as_str()),
                    Arc::<str>::from(start.as_str()),
                );
                let steps: Vec<Name> = steps.iter().map(|s| Arc::from(s.as_str())).collect();
                let key = (class.clone(), field.clone(), start.clone(), steps);
                let seen = self
                    .counts
                    .get(&key)
                    .into_iter()
                    .chain(self.null_starts.get(&(class, field, start)));
                seen.flat_map(|t| t.offsets.keys()).any(|o| o != offset)
            }
            Invariant::AliasOnly { .. } | Invariant::ExpandOnly { .. } => false,
        }
    }

    /// The invariants of `invariants` that snapshot `s` contradicts, by position.
    pub fn contradicted(&self, invariants: &[Invariant], s: &HeapSnapshot) -> Vec<usize> {
        let mut probe = Learner::new(self.config, self.packages.clone());
        probe.absorb(s);
        invariants
            .iter()
            .enumerate()
            .filter(|(_, i)| probe.contradicts(i))
            .map(|(n, _)| n)
            .collect()
    }
}

fn scope_of(inv: &Invariant) -> Option<&Scope> {
    match inv {
        Invariant::NotNull { scope, .. }
        | Invariant::Inverse { scope, .. }
        | Invariant::Unshared { scope, .. } => Some(scope),
        _ => None,
    }
}

fn with_scope(inv: &Invariant, to: Scope) -> Invariant {
    let mut out = inv.clone();
    match &mut out {
        Invariant::NotNull { scope, .. }
        | Invariant::Inverse { scope, .. }
        | Invariant::Unshared { scope, .. } => *scope = to,
        _ => {}
    }
    out
}

/// The fields an object refers to other objects through, with the objects.
fn references(o: &SnapshotObject) -> impl Iterator<Item = (&SnapshotField, u32)> {
    o.fields()
        .filter_map(|(f, v)| object_id(v).map(|id| (f, id)))
}

/// The number of distinct objects reached from `start` through `steps` (`root` not counted);
/// None when one of them was not read (another package, or past a bound).
fn reach(s: &HeapSnapshot, start: u32, root: u32, steps: &[Name]) -> Option<usize> {
    let mut seen = BTreeSet::new();
    let mut queue = vec![start];
    while let Some(id) = queue.pop() {
        if id == root || !seen.insert(id) {
            continue;
        }
        let o = s.objects.get(&id)?;
        o.values.as_ref()?;
        for (f, v) in o.fields() {
            if steps.contains(&f.name) {
                if let Some(t) = object_id(v) {
                    queue.push(t);
                }
            }
        }
    }
    Some(seen.len())
}

#[cfg(test)]
#[path = "learn_tests.rs"]
pub(crate) mod tests;
