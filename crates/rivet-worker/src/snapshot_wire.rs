//! The snapshot parts of the observation sections (learned invariants): what a `BATCH` asks
//! the harness to snapshot, after the observation section's flags byte when its bit 1 is set,
//! and the snapshots a `RESULT` reports, after its observed calls. `Snapshots.java` is the
//! Java side.
//!
//! Batch part: `u32` m, m × `u32` member index; `u32` k, k × `str` package; `u32` most objects
//! read, `u32` most depth, `u32` most snapshots per test.
//! Result part: `u32` c, c × class (`str` binary name, `u32` f, f × (`str` declaring class,
//! `str` name, `str` descriptor)); `u32` s, s × snapshot (`u32` statement, `u32` target, `u8`
//! receiver present, [value], `u32` a, a × value, `u32` o, o × (`u32` id, `u32` class, `u8`
//! read, [f × value]), `u8` truncated); a value is `u8` tag: 0 undefined, 1 null, 2 int `i64`,
//! 3 object `u32` id, 4 float `u32` bits, 5 double `u64` bits.

use std::collections::BTreeMap;
use std::sync::Arc;

use rivet_testcase::{
    HeapSnapshot, MemberRef, ObservationSpec, ObservedValue, SnapshotClass, SnapshotField,
    SnapshotObject, SnapshotSpec,
};

use super::{Dec, Enc, ProtocolError};

/// Value tags, as `Snapshots.java` has them.
pub mod tag {
    pub const V_UNDEFINED: u8 = 0;
    pub const V_NULL: u8 = 1;
    pub const V_INT: u8 = 2;
    pub const V_OBJECT: u8 = 3;
    pub const V_FLOAT: u8 = 4;
    pub const V_DOUBLE: u8 = 5;
}

/// Bit of the observation section's flags byte: a snapshot part follows.
pub const FLAG_SNAPSHOT: u8 = 2;

/// A value as the wire carries it: objects by id only.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RawValue {
    Undefined,
    Null,
    Int(i64),
    Object(u32),
    Float(u32),
    Double(u64),
}

/// One object: its id, its class (index in the table), its field values if read.
#[derive(Debug, Clone, PartialEq)]
pub struct RawObject {
    pub id: u32,
    pub class: u32,
    pub values: Option<Vec<RawValue>>,
}

/// One snapshot as the wire carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSnapshot {
    pub statement: u32,
    pub target: u32,
    pub receiver: Option<RawValue>,
    pub arguments: Vec<RawValue>,
    pub objects: Vec<RawObject>,
    pub truncated: bool,
}

/// The snapshots of one test with their class table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RawSnapshots {
    pub classes: Vec<Arc<SnapshotClass>>,
    pub snapshots: Vec<RawSnapshot>,
}

impl RawSnapshots {
    pub fn is_empty(&self) -> bool {
        self.snapshots.is_empty()
    }
}

pub(super) fn encode_spec<'a>(
    e: &mut Enc,
    spec: &'a SnapshotSpec,
    member: &mut impl FnMut(&'a MemberRef) -> u32,
) {
    e.len(spec.members.len());
    for m in &spec.members {
        e.u32(member(m));
    }
    e.len(spec.packages.len());
    for p in &spec.packages {
        e.str(p);
    }
    e.u32(spec.max_objects);
    e.u32(spec.max_depth);
    e.u32(spec.max_per_test);
}

pub(super) fn decode_spec(
    d: &mut Dec<'_>,
    members: &[MemberRef],
) -> Result<SnapshotSpec, ProtocolError> {
    let n = d.count(4)?;
    let mut list = Vec::with_capacity(n);
    for _ in 0..n {
        let m = d.u32()? as usize;
        match members.get(m) {
            Some(member) => list.push(member.clone()),
            None => return d.err(format!("snapshot member {m} is not in the table")),
        }
    }
    let k = d.count(4)?;
    let mut packages = Vec::with_capacity(k);
    for _ in 0..k {
        packages.push(d.str()?);
    }
    Ok(SnapshotSpec {
        members: list,
        packages,
        max_objects: d.u32()?,
        max_depth: d.u32()?,
        max_per_test: d.u32()?,
    })
}

fn encode_value(e: &mut Enc, v: &RawValue) {
    match v {
        RawValue::Undefined => e.u8(tag::V_UNDEFINED),
        RawValue::Null => e.u8(tag::V_NULL),
        RawValue::Int(i) => {
            e.u8(tag::V_INT);
            e.u64(*i as u64);
        }
        RawValue::Object(id) => {
            e.u8(tag::V_OBJECT);
            e.u32(*id);
        }
        RawValue::Float(bits) => {
            e.u8(tag::V_FLOAT);
            e.u32(*bits);
        }
        RawValue::Double(bits) => {
            e.u8(tag::V_DOUBLE);
            e.u64(*bits);
        }
    }
}

fn decode_value(d: &mut Dec<'_>) -> Result<RawValue, ProtocolError> {
    Ok(match d.u8()? {
        tag::V_UNDEFINED => RawValue::Undefined,
        tag::V_NULL => RawValue::Null,
        tag::V_INT => RawValue::Int(d.u64()? as i64),
        tag::V_OBJECT => RawValue::Object(d.u32()?),
        tag::V_FLOAT => RawValue::Float(d.u32()?),
        tag::V_DOUBLE => RawValue::Double(d.u64()?),
        t => return d.err(format!("unknown snapshot value tag {t}")),
    })
}

pub(super) fn encode_snapshots(e: &mut Enc, s: &RawSnapshots) {
    e.len(s.classes.len());
    for c in &s.classes {
        e.str(&c.name);
        e.len(c.fields.len());
        for f in &c.fields {
            e.str(&f.owner);
            e.str(&f.name);
            e.str(&f.descriptor);
        }
    }
    e.len(s.snapshots.len());
    for snap in &s.snapshots {
        e.u32(snap.statement);
        e.u32(snap.target);
        e.u8(u8::from(snap.receiver.is_some()));
        if let Some(r) = &snap.receiver {
            encode_value(e, r);
        }
        e.len(snap.arguments.len());
        for a in &snap.arguments {
            encode_value(e, a);
        }
        e.len(snap.objects.len());
        for o in &snap.objects {
            e.u32(o.id);
            e.u32(o.class);
            e.u8(u8::from(o.values.is_some()));
            for v in o.values.iter().flatten() {
                encode_value(e, v);
            }
        }
        e.u8(u8::from(snap.truncated));
    }
}

pub(super) fn decode_snapshots(d: &mut Dec<'_>) -> Result<RawSnapshots, ProtocolError> {
    let c = d.count(8)?;
    let mut classes = Vec::with_capacity(c);
    for _ in 0..c {
        let name: Arc<str> = d.str()?.into();
        let f = d.count(12)?;
        let mut fields = Vec::with_capacity(f);
        for _ in 0..f {
            fields.push(SnapshotField {
                owner: d.str()?.into(),
                name: d.str()?.into(),
                descriptor: d.str()?.into(),
            });
        }
        classes.push(Arc::new(SnapshotClass { name, fields }));
    }
    let s = d.count(14)?;
    let mut snapshots = Vec::with_capacity(s);
    for _ in 0..s {
        let statement = d.u32()?;
        let target = d.u32()?;
        let receiver = if d.u8()? != 0 {
            Some(decode_value(d)?)
        } else {
            None
        };
        let a = d.count(1)?;
        let mut arguments = Vec::with_capacity(a);
        for _ in 0..a {
            arguments.push(decode_value(d)?);
        }
        let o = d.count(9)?;
        let mut objects = Vec::with_capacity(o);
        for _ in 0..o {
            let id = d.u32()?;
            let class = d.u32()?;
            let Some(table) = classes.get(class as usize) else {
                return d.err(format!("snapshot class {class} is not in the table"));
            };
            let values = if d.u8()? != 0 {
                let mut vs = Vec::with_capacity(table.fields.len());
                for _ in 0..table.fields.len() {
                    vs.push(decode_value(d)?);
                }
                Some(vs)
            } else {
                None
            };
            objects.push(RawObject { id, class, values });
        }
        let truncated = d.u8()? != 0;
        snapshots.push(RawSnapshot {
            statement,
            target,
            receiver,
            arguments,
            objects,
            truncated,
        });
    }
    Ok(RawSnapshots { classes, snapshots })
}

/// The snapshots of a result, named by the spec their batch was sent with; a snapshot of an
/// unknown target, or whose references name objects it does not list, is dropped.
pub fn snapshots(raw: RawSnapshots, spec: &ObservationSpec) -> Vec<HeapSnapshot> {
    let Some(snap_spec) = &spec.snapshot else {
        return Vec::new();
    };
    raw.snapshots
        .into_iter()
        .filter_map(|s| {
            let member = snap_spec.members.get(s.target as usize)?.clone();
            let class_of: BTreeMap<u32, Arc<SnapshotClass>> = s
                .objects
                .iter()
                .filter_map(|o| Some((o.id, raw.classes.get(o.class as usize)?.clone())))
                .collect();
            let value = |v: &RawValue| -> Option<ObservedValue> {
                Some(match *v {
                    RawValue::Undefined => ObservedValue::Undefined,
                    RawValue::Null => ObservedValue::Null,
                    RawValue::Int(i) => ObservedValue::Int(i),
                    RawValue::Float(b) => ObservedValue::Float(b),
                    RawValue::Double(b) => ObservedValue::Double(b),
                    RawValue::Object(id) => ObservedValue::Object {
                        id,
                        class: class_of.get(&id)?.name.clone(),
                    },
                })
            };
            let receiver = match &s.receiver {
                Some(r) => Some(value(r)?),
                None => None,
            };
            let arguments = s.arguments.iter().map(value).collect::<Option<Vec<_>>>()?;
            let mut objects = BTreeMap::new();
            for o in &s.objects {
                let class = class_of.get(&o.id)?.clone();
                let values = match &o.values {
                    Some(vs) => Some(vs.iter().map(value).collect::<Option<Vec<_>>>()?),
                    None => None,
                };
                objects.insert(o.id, SnapshotObject { class, values });
            }
            Some(HeapSnapshot {
                member,
                statement: s.statement,
                receiver,
                arguments,
                objects,
                truncated: s.truncated,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "snapshot_wire_tests.rs"]
mod tests;
