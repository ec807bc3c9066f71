//! Snapshots of the objects a test built, taken by the worker at calls of target methods (for
//! invariants learned from real objects): the receiver and the arguments, and the objects
//! reachable from them through fields, bounded by a number of objects and a depth. Only
//! objects of the packages asked for (the class under test's own data) have their fields
//! read; others are kept as references.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::{MemberRef, ObservedValue};

/// What to snapshot, and at calls of which methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotSpec {
    pub members: Vec<MemberRef>,
    /// Packages (binary names, `a.b`) whose objects have their fields read.
    pub packages: Vec<String>,
    /// Most objects whose fields one snapshot reads.
    pub max_objects: u32,
    /// Most field steps from a root to an object whose fields are read.
    pub max_depth: u32,
    /// Most calls snapshotted per test (the first ones).
    pub max_per_test: u32,
}

/// A field of a snapshotted class.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SnapshotField {
    /// The declaring class (binary name).
    pub owner: Arc<str>,
    pub name: Arc<str>,
    /// The field's JVM descriptor (`I`, `La/B;`).
    pub descriptor: Arc<str>,
}

impl SnapshotField {
    /// Does the field hold a reference?
    pub fn is_reference(&self) -> bool {
        self.descriptor.starts_with('L') || self.descriptor.starts_with('[')
    }

    /// Does the field hold a number counted in integers (`int`, `long`, `short`, `byte`)?
    pub fn is_integer(&self) -> bool {
        matches!(&*self.descriptor, "I" | "J" | "S" | "B")
    }
}

/// A class as a snapshot names it: its binary name and its instance fields (its own and its
/// superclasses'), in the order their values are listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotClass {
    pub name: Arc<str>,
    pub fields: Vec<SnapshotField>,
}

/// One object of a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotObject {
    pub class: Arc<SnapshotClass>,
    /// Its fields' values in the order of `class.fields` (objects as `ObservedValue::Object`,
    /// whose id is a key of the snapshot's `objects`); None when its fields were not read
    /// (another package, or past a bound).
    pub values: Option<Vec<ObservedValue>>,
}

impl SnapshotObject {
    /// The fields with their values (none when the fields were not read).
    pub fn fields(&self) -> impl Iterator<Item = (&SnapshotField, &ObservedValue)> {
        self.class.fields.iter().zip(self.values.iter().flatten())
    }

    /// The value of the field named `name` (the first one, from the object's own class up).
    pub fn field(&self, name: &str) -> Option<&ObservedValue> {
        self.fields()
            .find(|(f, _)| &*f.name == name)
            .map(|(_, v)| v)
    }
}

/// The objects at one call of a snapshotted method.
#[derive(Debug, Clone, PartialEq)]
pub struct HeapSnapshot {
    pub member: MemberRef,
    /// The statement that made the call.
    pub statement: u32,
    /// The receiver (None for a static method or a constructor).
    pub receiver: Option<ObservedValue>,
    pub arguments: Vec<ObservedValue>,
    /// Every object a root or a read field refers to, by its id within the snapshot.
    pub objects: BTreeMap<u32, SnapshotObject>,
    /// Some object of the packages asked for was left unread at a bound.
    pub truncated: bool,
}

impl HeapSnapshot {
    /// The object a value refers to, if it is one of the snapshot's.
    pub fn object(&self, value: &ObservedValue) -> Option<(u32, &SnapshotObject)> {
        match value {
            ObservedValue::Object { id, .. } => self.objects.get(id).map(|o| (*id, o)),
            _ => None,
        }
    }

    /// The roots: the receiver, then the arguments.
    pub fn roots(&self) -> impl Iterator<Item = &ObservedValue> {
        self.receiver.iter().chain(&self.arguments)
    }
}
