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
//!   structure was read whole, over at least two structure sizes.
//!
//! An invariant is learned when at least `min_support` observations support it, none
//! contradicts it, and at least `min_snapshots` snapshots were seen. They stay hypotheses:
//! `contradicted` tells which a snapshot refutes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

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
}

impl Default for LearnConfig {
    fn default() -> LearnConfig {
        LearnConfig {
            min_support: 20,
            min_snapshots: 10,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    holds: u64,
    violated: u64,
}

impl Tally {
    fn record(&mut self, holds: bool) {
        if holds {
            self.holds += 1;
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

/// A count candidate without its offset: class and field counted, start field, step fields.
type CountKey = (String, String, String, Vec<String>);

/// Observed offsets of a count candidate, and the structure sizes seen (up to three).
#[derive(Debug, Clone, Default)]
struct CountTally {
    offsets: BTreeMap<i64, u64>,
    sizes: BTreeSet<usize>,
}

impl CountTally {
    fn record(&mut self, offset: i64, size: usize) {
        *self.offsets.entry(offset).or_insert(0) += 1;
        if self.sizes.len() < 3 {
            self.sizes.insert(size);
        }
    }
}

/// What the snapshots seen so far say of each candidate.
#[derive(Debug, Clone)]
pub struct Learner {
    config: LearnConfig,
    /// Packages (binary names) whose classes are the class's own data.
    packages: Vec<String>,
    snapshots: u64,
    tallies: BTreeMap<Invariant, Tally>,
    ranges: BTreeMap<(String, String), RangeTally>,
    counts: BTreeMap<CountKey, CountTally>,
    /// Count structures seen with a null start: (class, field, start) → the field's values.
    null_starts: BTreeMap<(String, String, String), CountTally>,
}

fn internal(binary: &str) -> String {
    ClassName::from_binary(binary).internal().to_string()
}

fn object_id(v: &ObservedValue) -> Option<u32> {
    match v {
        ObservedValue::Object { id, .. } => Some(*id),
        _ => None,
    }
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
            tallies: BTreeMap::new(),
            ranges: BTreeMap::new(),
            counts: BTreeMap::new(),
            null_starts: BTreeMap::new(),
        }
    }

    /// Snapshots absorbed so far.
    pub fn snapshots(&self) -> u64 {
        self.snapshots
    }

    /// Is a reference field's declared type a class of the own packages?
    fn own_reference(&self, f: &SnapshotField) -> bool {
        let Some(class) = f
            .descriptor
            .strip_prefix('L')
            .and_then(|d| d.strip_suffix(';'))
        else {
            return false;
        };
        let binary = class.replace('/', ".");
        let package = binary.rsplit_once('.').map_or("", |(p, _)| p);
        self.packages.iter().any(|p| p == package)
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
        let regions = regions(s, &roots);
        for (&id, o) in &s.objects {
            if o.values.is_none() {
                continue;
            }
            let mut scopes = vec![Scope::All];
            scopes.extend(regions.get(&id).into_iter().flatten().cloned());
            for (f, v) in o.fields() {
                let owner = internal(&f.owner);
                let name = f.name.to_string();
                if f.is_integer() {
                    if let ObservedValue::Int(x) = v {
                        let r = self.ranges.entry((owner, name)).or_default();
                        r.min = if r.n == 0 { *x } else { r.min.min(*x) };
                        r.n += 1;
                        if r.distinct.len() < 3 {
                            r.distinct.insert(*x);
                        }
                    }
                    continue;
                }
                if !self.own_reference(f)
                    || !matches!(v, ObservedValue::Null | ObservedValue::Object { .. })
                {
                    continue;
                }
                let target = object_id(v);
                for scope in &scopes {
                    self.tallies
                        .entry(Invariant::NotNull {
                            class: owner.clone(),
                            field: name.clone(),
                            scope: scope.clone(),
                        })
                        .or_default()
                        .record(target.is_some());
                    let Some(t) = target else { continue };
                    if !s.truncated {
                        let alone = indegree.get(&t) == Some(&1) && !roots.contains(&t);
                        self.tallies
                            .entry(Invariant::Unshared {
                                class: owner.clone(),
                                field: name.clone(),
                                scope: scope.clone(),
                            })
                            .or_default()
                            .record(alone);
                    }
                    let Some(to) = s.objects.get(&t).filter(|o| o.values.is_some()) else {
                        continue;
                    };
                    for (g, gv) in to.fields() {
                        if !self.own_reference(g)
                            || !matches!(gv, ObservedValue::Null | ObservedValue::Object { .. })
                        {
                            continue;
                        }
                        self.tallies
                            .entry(Invariant::Inverse {
                                class: owner.clone(),
                                field: name.clone(),
                                back: g.name.to_string(),
                                scope: scope.clone(),
                            })
                            .or_default()
                            .record(object_id(gv) == Some(id));
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
            let class = internal(&r.class.name);
            let ints: Vec<(String, i64)> = r
                .fields()
                .filter(|(f, _)| f.is_integer())
                .filter_map(|(f, v)| match v {
                    ObservedValue::Int(x) => Some((f.name.to_string(), *x)),
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
                let start = f.name.to_string();
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
        &self,
        s: &HeapSnapshot,
        start: u32,
        root: u32,
        roots: &BTreeSet<u32>,
    ) -> Vec<Vec<String>> {
        let mut names: BTreeSet<String> = BTreeSet::new();
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
                    names.insert(f.name.to_string());
                }
            }
            queue.extend(references(o).map(|(_, t)| t));
        }
        let mut out: Vec<Vec<String>> = names.iter().map(|n| vec![n.clone()]).collect();
        if names.len() > 1 {
            out.push(names.into_iter().collect());
        }
        out
    }

    /// The invariants learned so far, with the observations supporting each.
    pub fn infer(&self) -> Vec<(Invariant, u64)> {
        let mut out = Vec::new();
        if self.snapshots < self.config.min_snapshots {
            return out;
        }
        let min = self.config.min_support;
        let learned: Vec<(&Invariant, u64)> = self
            .tallies
            .iter()
            .filter(|(_, t)| t.violated == 0 && t.holds >= min)
            .map(|(i, t)| (i, t.holds))
            .collect();
        let everywhere: BTreeSet<Invariant> = learned
            .iter()
            .filter(|(i, _)| scope_of(i) == Some(&Scope::All))
            .map(|(i, _)| with_scope(i, Scope::All))
            .collect();
        for (inv, support) in learned {
            // An invariant learned of every object makes its scoped versions redundant.
            if scope_of(inv) != Some(&Scope::All)
                && everywhere.contains(&with_scope(inv, Scope::All))
            {
                continue;
            }
            out.push((inv.clone(), support));
        }
        for ((class, field), r) in &self.ranges {
            if r.n >= min && r.min >= 0 && r.distinct.len() >= 2 {
                out.push((
                    Invariant::Range {
                        class: class.clone(),
                        field: field.clone(),
                        min: Some(r.min),
                        max: None,
                    },
                    r.n,
                ));
            }
        }
        let mut counted: BTreeSet<(String, String, String)> = BTreeSet::new();
        let mut counts: Vec<(Invariant, u64, usize)> = Vec::new();
        for ((class, field, start, steps), t) in &self.counts {
            let Some((offset, n, sizes)) = self.count_of(class, field, start, t) else {
                continue;
            };
            if n >= min && sizes >= 2 {
                counts.push((
                    Invariant::Count {
                        class: class.clone(),
                        field: field.clone(),
                        start: start.clone(),
                        steps: steps.clone(),
                        offset,
                    },
                    n,
                    steps.len(),
                ));
            }
        }
        // Through one field when one does; through several only otherwise.
        counts.sort_by_key(|(_, _, k)| *k);
        for (inv, n, k) in counts {
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
        class: &str,
        field: &str,
        start: &str,
        t: &CountTally,
    ) -> Option<(i64, u64, usize)> {
        let mut offsets = t.offsets.clone();
        let mut sizes = t.sizes.clone();
        if let Some(nulls) =
            self.null_starts
                .get(&(class.to_string(), field.to_string(), start.to_string()))
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
                self.tallies.get(inv).is_some_and(|t| t.violated > 0)
            }
            Invariant::Range {
                class,
                field,
                min,
                max,
            } => self
                .ranges
                .get(&(class.clone(), field.clone()))
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
                let key = (class.clone(), field.clone(), start.clone(), steps.clone());
                let seen = self
                    .counts
                    .get(&key)
                    .into_iter()
                    .chain(
                        self.null_starts
                            .get(&(class.clone(), field.clone(), start.clone())),
                    );
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

/// Per object (not a root), the scopes it is in: reachable from a root of class R through
/// R's field F.
fn regions(s: &HeapSnapshot, roots: &BTreeSet<u32>) -> HashMap<u32, Vec<Scope>> {
    let mut out: HashMap<u32, Vec<Scope>> = HashMap::new();
    for root in s.roots() {
        let Some((_, r)) = read(s, root) else {
            continue;
        };
        let class = internal(&r.class.name);
        for (f, start) in references(r) {
            let scope = Scope::Within {
                root: class.clone(),
                field: f.name.to_string(),
            };
            let mut seen = BTreeSet::new();
            let mut queue = vec![start];
            while let Some(id) = queue.pop() {
                if roots.contains(&id) || !seen.insert(id) {
                    continue;
                }
                let list = out.entry(id).or_default();
                if !list.contains(&scope) {
                    list.push(scope.clone());
                }
                if let Some(o) = s.objects.get(&id) {
                    queue.extend(references(o).map(|(_, t)| t));
                }
            }
        }
    }
    out
}

/// The number of distinct objects reached from `start` through `steps` (`root` not counted);
/// None when one of them was not read (another package, or past a bound).
fn reach(s: &HeapSnapshot, start: u32, root: u32, steps: &[String]) -> Option<usize> {
    let mut seen = BTreeSet::new();
    let mut queue = vec![start];
    while let Some(id) = queue.pop() {
        if id == root || !seen.insert(id) {
            continue;
        }
        let o = s.objects.get(&id)?;
        o.values.as_ref()?;
        for (f, v) in o.fields() {
            if steps.iter().any(|st| **st == *f.name) {
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
