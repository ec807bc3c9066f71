//! The observation sections of the protocol (path-condition goals): the targets a `BATCH` asks
//! the harness to observe, after its tests, and the calls a `RESULT` reports, after its probes.
//! Both are absent when nothing is observed, so ordinary runs pay nothing.
//!
//! Batch section: `u32` t, t × (`u32` member index, `u32` p, p × path); a path is `u8` root
//! (0 receiver, 1 argument), `u8` argument index, `u32` s, s × step; a step is `u8` kind and
//! 0 field `str` name, 1 index `u32`, 2 length; then `u8` flags (bit 0: trace the calls; bit
//! 1: a snapshot part follows, see `snapshot_wire.rs`).
//! Result section: `u32` c, c × (`u32` statement, `u32` target, `u32` v, v × value, `u8`
//! truncated, `u32` n, n × `u32` probe); a value is `u8` tag: 0 undefined, 1 null, 2 int
//! `i64` (booleans, chars, bytes, shorts, ints, longs), 3 object `u32` identity (per test,
//! from 1) and `str` class (binary name), 4 float `u32` bits, 5 double `u64` bits (the raw
//! IEEE bits, so NaN payloads, -0.0 and subnormals arrive exactly and a float symbol's value is
//! never rounded through a double); the probes are the call's trace (empty unless the batch
//! asked for traces).

use std::collections::BTreeMap;

use rivet_testcase::{
    CallObservation, MemberRef, Observation, ObservationSpec, ObservedPath, ObservedRoot,
    ObservedStep, ObservedValue,
};

use super::{Dec, Enc, ProtocolError};

/// Path roots, steps and value tags, as `Observer.java` has them.
pub mod tag {
    pub const ROOT_RECEIVER: u8 = 0;
    pub const ROOT_ARGUMENT: u8 = 1;
    pub const STEP_FIELD: u8 = 0;
    pub const STEP_INDEX: u8 = 1;
    pub const STEP_LENGTH: u8 = 2;
    pub const OBS_UNDEFINED: u8 = 0;
    pub const OBS_NULL: u8 = 1;
    pub const OBS_INT: u8 = 2;
    pub const OBS_OBJECT: u8 = 3;
    pub const OBS_FLOAT: u8 = 4;
    pub const OBS_DOUBLE: u8 = 5;
}

/// One observed call as the wire carries it: values in the order of its target's paths.
#[derive(Debug, Clone, PartialEq)]
pub struct RawCall {
    pub statement: u32,
    pub target: u32,
    pub values: Vec<ObservedValue>,
    pub trace: Vec<u32>,
    pub truncated: bool,
}

/// Bit of the spec's flags byte: trace the calls of targets.
pub const FLAG_TRACE: u8 = 1;

pub(super) fn encode_spec<'a>(
    e: &mut Enc,
    spec: &'a ObservationSpec,
    member: &mut impl FnMut(&'a MemberRef) -> u32,
) {
    e.len(spec.targets.len());
    for t in &spec.targets {
        e.u32(member(&t.member));
        e.len(t.paths.len());
        for p in &t.paths {
            match p.root {
                ObservedRoot::Receiver => {
                    e.u8(tag::ROOT_RECEIVER);
                    e.u8(0);
                }
                ObservedRoot::Argument(i) => {
                    e.u8(tag::ROOT_ARGUMENT);
                    e.u8(i);
                }
            }
            e.len(p.steps.len());
            for s in &p.steps {
                match s {
                    ObservedStep::Field(f) => {
                        e.u8(tag::STEP_FIELD);
                        e.str(f);
                    }
                    ObservedStep::Index(i) => {
                        e.u8(tag::STEP_INDEX);
                        e.u32(*i);
                    }
                    ObservedStep::Length => e.u8(tag::STEP_LENGTH),
                }
            }
        }
    }
    let mut flags = if spec.trace { FLAG_TRACE } else { 0 };
    if spec.snapshot.is_some() {
        flags |= super::snapshot_wire::FLAG_SNAPSHOT;
    }
    e.u8(flags);
    if let Some(s) = &spec.snapshot {
        super::snapshot_wire::encode_spec(e, s, member);
    }
}

pub(super) fn decode_spec(
    d: &mut Dec<'_>,
    members: &[MemberRef],
) -> Result<ObservationSpec, ProtocolError> {
    let n = d.count(8)?;
    let mut targets = Vec::with_capacity(n);
    for _ in 0..n {
        let m = d.u32()? as usize;
        let Some(member) = members.get(m) else {
            return d.err(format!("observed member {m} is not in the table"));
        };
        let p = d.count(6)?;
        let mut paths = Vec::with_capacity(p);
        for _ in 0..p {
            let root = match (d.u8()?, d.u8()?) {
                (tag::ROOT_RECEIVER, _) => ObservedRoot::Receiver,
                (tag::ROOT_ARGUMENT, i) => ObservedRoot::Argument(i),
                (r, _) => return d.err(format!("unknown path root {r}")),
            };
            let s = d.count(1)?;
            let mut steps = Vec::with_capacity(s);
            for _ in 0..s {
                steps.push(match d.u8()? {
                    tag::STEP_FIELD => ObservedStep::Field(d.str()?),
                    tag::STEP_INDEX => ObservedStep::Index(d.u32()?),
                    tag::STEP_LENGTH => ObservedStep::Length,
                    k => return d.err(format!("unknown path step {k}")),
                });
            }
            paths.push(ObservedPath { root, steps });
        }
        targets.push(Observation {
            member: member.clone(),
            paths,
        });
    }
    let flags = d.u8()?;
    let trace = flags & FLAG_TRACE != 0;
    let snapshot = if flags & super::snapshot_wire::FLAG_SNAPSHOT != 0 {
        Some(super::snapshot_wire::decode_spec(d, members)?)
    } else {
        None
    };
    Ok(ObservationSpec {
        targets,
        trace,
        snapshot,
    })
}

pub(super) fn encode_calls(e: &mut Enc, calls: &[RawCall]) {
    e.len(calls.len());
    for c in calls {
        e.u32(c.statement);
        e.u32(c.target);
        e.len(c.values.len());
        for v in &c.values {
            match v {
                ObservedValue::Undefined => e.u8(tag::OBS_UNDEFINED),
                ObservedValue::Null => e.u8(tag::OBS_NULL),
                ObservedValue::Int(i) => {
                    e.u8(tag::OBS_INT);
                    e.u64(*i as u64);
                }
                ObservedValue::Float(bits) => {
                    e.u8(tag::OBS_FLOAT);
                    e.u32(*bits);
                }
                ObservedValue::Double(bits) => {
                    e.u8(tag::OBS_DOUBLE);
                    e.u64(*bits);
                }
                ObservedValue::Object { id, class } => {
                    e.u8(tag::OBS_OBJECT);
                    e.u32(*id);
                    e.str(class);
                }
            }
        }
        e.u8(u8::from(c.truncated));
        e.len(c.trace.len());
        for p in &c.trace {
            e.u32(*p);
        }
    }
}

pub(super) fn decode_calls(d: &mut Dec<'_>) -> Result<Vec<RawCall>, ProtocolError> {
    let n = d.count(12)?;
    let mut calls = Vec::with_capacity(n);
    for _ in 0..n {
        let statement = d.u32()?;
        let target = d.u32()?;
        let v = d.count(1)?;
        let mut values = Vec::with_capacity(v);
        for _ in 0..v {
            values.push(match d.u8()? {
                tag::OBS_UNDEFINED => ObservedValue::Undefined,
                tag::OBS_NULL => ObservedValue::Null,
                tag::OBS_INT => ObservedValue::Int(d.u64()? as i64),
                tag::OBS_FLOAT => ObservedValue::Float(d.u32()?),
                tag::OBS_DOUBLE => ObservedValue::Double(d.u64()?),
                tag::OBS_OBJECT => ObservedValue::Object {
                    id: d.u32()?,
                    class: d.str()?.into(),
                },
                t => return d.err(format!("unknown observed value tag {t}")),
            });
        }
        let truncated = d.u8()? != 0;
        let t = d.count(4)?;
        let mut trace = Vec::with_capacity(t);
        for _ in 0..t {
            trace.push(d.u32()?);
        }
        calls.push(RawCall {
            statement,
            target,
            values,
            trace,
            truncated,
        });
    }
    Ok(calls)
}

/// The calls of a result, named by the spec their batch was sent with; calls that do not fit
/// the spec (an unknown target, a wrong number of values) are dropped.
pub fn observations(raw: Vec<RawCall>, spec: &ObservationSpec) -> Vec<CallObservation> {
    raw.into_iter()
        .filter_map(|c| {
            let target = spec.targets.get(c.target as usize)?;
            if target.paths.len() != c.values.len() {
                return None;
            }
            let values: BTreeMap<ObservedPath, ObservedValue> =
                target.paths.iter().cloned().zip(c.values).collect();
            Some(CallObservation {
                member: target.member.clone(),
                statement: c.statement,
                values,
                trace: c.trace.into_iter().map(rivet_testcase::ProbeId).collect(),
                trace_truncated: c.truncated,
            })
        })
        .collect()
}

#[cfg(test)]
#[path = "observe_wire_tests.rs"]
mod tests;
