//! Statements on the wire: the encoder and decoder of one test statement (the tag table is
//! the parent module's documentation).

use rivet_testcase::{
    is_scratch_path, ClassName, LambdaBody, MemberRef, PrimitiveValue, ScratchEntry, Statement,
    StatementId,
};

use super::{Dec, Enc, ProtocolError, NONE};

pub(super) fn encode_statement<'a>(
    e: &mut Enc,
    s: &'a Statement,
    member: &mut impl FnMut(&'a MemberRef) -> u32,
) {
    let refs = |e: &mut Enc, ids: &[StatementId]| {
        e.len(ids.len());
        for id in ids {
            e.u32(id.0);
        }
    };
    match s {
        Statement::Primitive(p) => {
            e.u8(0);
            e.u8(p.descriptor().as_bytes()[0]);
            match *p {
                PrimitiveValue::Boolean(v) => e.u8(v as u8),
                PrimitiveValue::Byte(v) => e.u8(v as u8),
                PrimitiveValue::Char(v) => e.u16(v),
                PrimitiveValue::Short(v) => e.u16(v as u16),
                PrimitiveValue::Int(v) => e.u32(v as u32),
                PrimitiveValue::Long(v) => e.u64(v as u64),
                PrimitiveValue::Float(v) => e.u32(v.to_bits()),
                PrimitiveValue::Double(v) => e.u64(v.to_bits()),
            }
        }
        Statement::String(v) => {
            e.u8(1);
            e.str(v);
        }
        Statement::Null { descriptor } => {
            e.u8(2);
            e.str(descriptor);
        }
        Statement::Array {
            component,
            elements,
        } => {
            e.u8(3);
            e.str(component);
            refs(e, elements);
        }
        Statement::Construct { constructor, args } => {
            e.u8(4);
            e.u32(member(constructor));
            refs(e, args);
        }
        Statement::Call {
            method,
            receiver,
            args,
        } => {
            e.u8(5);
            e.u32(member(method));
            e.u32(receiver.map_or(NONE, |r| r.0));
            refs(e, args);
        }
        Statement::FieldWrite {
            field,
            receiver,
            value,
        } => {
            e.u8(6);
            e.u32(member(field));
            e.u32(receiver.map_or(NONE, |r| r.0));
            e.u32(value.0);
        }
        Statement::ClassLiteral { descriptor } => {
            e.u8(7);
            e.str(descriptor);
        }
        Statement::Constant { field } => {
            e.u8(9);
            e.u32(member(field));
        }
        Statement::Lambda {
            interface,
            method,
            body,
        } => {
            e.u8(8);
            e.str(interface.internal());
            e.u32(member(method));
            let (kind, value) = match body {
                LambdaBody::Returns(v) => (0, v.0),
                LambdaBody::Identity => (1, NONE),
                LambdaBody::Nothing => (2, NONE),
                LambdaBody::Throws => (3, NONE),
            };
            e.u8(kind);
            e.u32(value);
        }
        Statement::Scratch {
            descriptor,
            path,
            entry,
        } => {
            e.u8(10);
            e.str(descriptor);
            e.str(path);
            match entry {
                ScratchEntry::Missing => e.u8(0),
                ScratchEntry::File { content } => {
                    e.u8(1);
                    e.str(content);
                }
                ScratchEntry::Dir { files } => {
                    e.u8(2);
                    e.len(files.len());
                    for (name, content) in files {
                        e.str(name);
                        e.str(content);
                    }
                }
            }
        }
    }
}

pub(super) fn decode_statement(
    d: &mut Dec,
    at: u32,
    members: &[MemberRef],
) -> Result<Statement, ProtocolError> {
    let reference = |d: &mut Dec| -> Result<StatementId, ProtocolError> {
        let r = d.u32()?;
        if r >= at {
            return d.err(format!("statement {at} refers to {r}"));
        }
        Ok(StatementId(r))
    };
    let optional = |d: &mut Dec| -> Result<Option<StatementId>, ProtocolError> {
        let r = d.u32()?;
        if r == NONE {
            return Ok(None);
        }
        if r >= at {
            return d.err(format!("statement {at} refers to {r}"));
        }
        Ok(Some(StatementId(r)))
    };
    let refs = |d: &mut Dec| -> Result<Vec<StatementId>, ProtocolError> {
        let n = d.count(4)?;
        (0..n).map(|_| reference(d)).collect()
    };
    let member = |d: &mut Dec| -> Result<MemberRef, ProtocolError> {
        let m = d.u32()? as usize;
        match members.get(m) {
            Some(m) => Ok(m.clone()),
            None => d.err(format!("member {m} is not in the table")),
        }
    };
    Ok(match d.u8()? {
        0 => Statement::Primitive(match d.u8()? {
            b'Z' => PrimitiveValue::Boolean(d.u8()? != 0),
            b'B' => PrimitiveValue::Byte(d.u8()? as i8),
            b'C' => PrimitiveValue::Char(d.u16()?),
            b'S' => PrimitiveValue::Short(d.u16()? as i16),
            b'I' => PrimitiveValue::Int(d.u32()? as i32),
            b'J' => PrimitiveValue::Long(d.u64()? as i64),
            b'F' => PrimitiveValue::Float(f32::from_bits(d.u32()?)),
            b'D' => PrimitiveValue::Double(f64::from_bits(d.u64()?)),
            t => return d.err(format!("unknown primitive type {t}")),
        }),
        1 => Statement::String(d.str()?),
        2 => Statement::Null {
            descriptor: d.str()?,
        },
        3 => Statement::Array {
            component: d.str()?,
            elements: refs(d)?,
        },
        4 => Statement::Construct {
            constructor: member(d)?,
            args: refs(d)?,
        },
        5 => Statement::Call {
            method: member(d)?,
            receiver: optional(d)?,
            args: refs(d)?,
        },
        6 => Statement::FieldWrite {
            field: member(d)?,
            receiver: optional(d)?,
            value: reference(d)?,
        },
        7 => Statement::ClassLiteral {
            descriptor: d.str()?,
        },
        9 => Statement::Constant { field: member(d)? },
        8 => {
            let interface = ClassName::from_internal(&d.str()?);
            let method = member(d)?;
            let body = match d.u8()? {
                0 => LambdaBody::Returns(reference(d)?),
                k @ 1..=3 => {
                    if d.u32()? != NONE {
                        return d.err(format!("lambda body {k} takes no value"));
                    }
                    match k {
                        1 => LambdaBody::Identity,
                        2 => LambdaBody::Nothing,
                        _ => LambdaBody::Throws,
                    }
                }
                k => return d.err(format!("unknown lambda body {k}")),
            };
            Statement::Lambda {
                interface,
                method,
                body,
            }
        }
        10 => {
            let descriptor = d.str()?;
            let path = d.str()?;
            if !is_scratch_path(&path) {
                return d.err(format!("scratch path {path:?} leaves its directory"));
            }
            let entry = match d.u8()? {
                0 => ScratchEntry::Missing,
                1 => ScratchEntry::File { content: d.str()? },
                2 => {
                    let n = d.count(8)?;
                    let mut files = Vec::with_capacity(n);
                    for _ in 0..n {
                        files.push((d.str()?, d.str()?));
                    }
                    ScratchEntry::Dir { files }
                }
                k => return d.err(format!("unknown scratch entry {k}")),
            };
            Statement::Scratch {
                descriptor,
                path,
                entry,
            }
        }
        t => return d.err(format!("unknown statement tag {t}")),
    })
}
