//! What the worker observes at calls of target methods, for path-condition goals: values read
//! from the receiver and the arguments along access paths (fields, array elements, lengths),
//! as primitive values (floats and doubles by their exact IEEE bits), object identities, null,
//! or undefined where a path runs through null.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::MemberRef;

/// Where an observed path starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObservedRoot {
    /// The receiver of an instance method.
    Receiver,
    /// The argument at this index (0 is the first declared parameter).
    Argument(u8),
}

/// One step of an observed path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObservedStep {
    /// A field by name, declared in the object's class or a superclass, of any access.
    Field(String),
    /// An array element.
    Index(u32),
    /// An array's length.
    Length,
}

/// A path from the receiver or an argument, read at the entry of a call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObservedPath {
    pub root: ObservedRoot,
    pub steps: Vec<ObservedStep>,
}

/// The paths to read at every call of one method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    pub member: MemberRef,
    pub paths: Vec<ObservedPath>,
}

/// Everything the worker is asked to observe in a batch (empty: nothing).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ObservationSpec {
    pub targets: Vec<Observation>,
    /// Also record, during each call of a target, the branch probes taken, in order (the
    /// concolic strategy's traces).
    pub trace: bool,
    /// Snapshot the objects at calls of these methods (learned invariants).
    pub snapshot: Option<crate::SnapshotSpec>,
}

impl ObservationSpec {
    pub fn is_empty(&self) -> bool {
        let traced = self.trace && !self.targets.is_empty();
        let snapshots = self
            .snapshot
            .as_ref()
            .is_some_and(|s| !s.members.is_empty() && s.max_per_test > 0);
        !traced && !snapshots && self.targets.iter().all(|t| t.paths.is_empty())
    }
}

/// Most branch outcomes one traced call records; a longer trace is cut and marked truncated.
pub const MAX_TRACE: usize = 100_000;

/// A value read along a path.
#[derive(Debug, Clone, PartialEq)]
pub enum ObservedValue {
    /// The path runs through null, a missing field or index, or a value that cannot be read.
    Undefined,
    Null,
    /// A boolean (0/1), char, byte, short, int or long, widened.
    Int(i64),
    /// A float by its IEEE bits, exactly as read (`Float.floatToRawIntBits`).
    Float(u32),
    /// A double by its IEEE bits, exactly as read (`Double.doubleToRawLongBits`).
    Double(u64),
    /// An object: its identity within the test (equal ids are the same object) and its class
    /// (binary name).
    Object {
        id: u32,
        class: Arc<str>,
    },
}

impl ObservedValue {
    /// A float's value, kept by its bits.
    pub fn float(v: f32) -> ObservedValue {
        ObservedValue::Float(v.to_bits())
    }

    /// A double's value, kept by its bits.
    pub fn double(v: f64) -> ObservedValue {
        ObservedValue::Double(v.to_bits())
    }

    /// A float's or double's value as a double (a float widens exactly); None otherwise.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ObservedValue::Float(bits) => Some(f64::from(f32::from_bits(*bits))),
            ObservedValue::Double(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }
}

/// The values read at one call of a target method.
#[derive(Debug, Clone, PartialEq)]
pub struct CallObservation {
    pub member: MemberRef,
    /// The statement that made the call.
    pub statement: u32,
    pub values: BTreeMap<ObservedPath, ObservedValue>,
    /// With [`ObservationSpec::trace`]: the branch probes taken during the call, in order
    /// (for a jump its True or False probe, for a switch the probe of the chosen target).
    pub trace: Vec<crate::ProbeId>,
    /// The trace reached [`MAX_TRACE`] and was cut there.
    pub trace_truncated: bool,
}

impl CallObservation {
    /// The value read along `path`; undefined if it was not observed.
    pub fn value(&self, path: &ObservedPath) -> &ObservedValue {
        self.values.get(path).unwrap_or(&ObservedValue::Undefined)
    }
}
