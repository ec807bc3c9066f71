//! Attributes of classes, members and code: the ones later stages read are parsed, others kept as bytes.

use crate::bytes::{count_u16, ByteReader, ByteWriter};
use crate::constant_pool::{ConstantPool, CpIndex};
use crate::error::{ParseError, ParseErrorKind, WriteError};
use crate::insn::{self, Instruction};
use crate::stackmap::StackMapFrame;

/// An attribute: its name (a Utf8 index) and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: CpIndex,
    pub body: AttributeBody,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineNumber {
    pub start_pc: u16,
    pub line: u16,
}

/// An entry of LocalVariableTable (descriptor) or LocalVariableTypeTable (signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalVariable {
    pub start_pc: u16,
    pub length: u16,
    pub name: CpIndex,
    pub descriptor: CpIndex,
    pub index: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InnerClass {
    pub inner_class: CpIndex,
    /// 0 when not a member class.
    pub outer_class: CpIndex,
    /// 0 when anonymous.
    pub inner_name: CpIndex,
    pub access_flags: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootstrapMethod {
    pub method_ref: CpIndex,
    pub arguments: Vec<CpIndex>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RecordComponent {
    pub name: CpIndex,
    pub descriptor: CpIndex,
    pub attributes: Vec<Attribute>,
}

/// An exception-table entry; `catch_type` 0 catches everything (finally).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExceptionHandler {
    pub start_pc: u32,
    pub end_pc: u32,
    pub handler_pc: u32,
    pub catch_type: CpIndex,
}

/// A method's Code attribute with decoded instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct Code {
    pub max_stack: u16,
    pub max_locals: u16,
    pub instructions: Vec<Instruction>,
    /// Length of the code in bytes.
    pub code_length: u32,
    pub exception_table: Vec<ExceptionHandler>,
    pub attributes: Vec<Attribute>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AttributeBody {
    Code(Code),
    StackMapTable(Vec<StackMapFrame>),
    LineNumberTable(Vec<LineNumber>),
    LocalVariableTable(Vec<LocalVariable>),
    LocalVariableTypeTable(Vec<LocalVariable>),
    Signature(CpIndex),
    SourceFile(CpIndex),
    ConstantValue(CpIndex),
    Exceptions(Vec<CpIndex>),
    InnerClasses(Vec<InnerClass>),
    EnclosingMethod {
        class: CpIndex,
        method: CpIndex,
    },
    BootstrapMethods(Vec<BootstrapMethod>),
    Record(Vec<RecordComponent>),
    PermittedSubclasses(Vec<CpIndex>),
    NestHost(CpIndex),
    NestMembers(Vec<CpIndex>),
    Synthetic,
    Deprecated,
    /// Any other attribute, kept byte for byte.
    Raw(Vec<u8>),
}

fn bad(name: &str, reason: impl Into<String>) -> ParseError {
    ParseErrorKind::BadAttribute {
        name: name.to_string(),
        reason: reason.into(),
    }
    .into()
}

fn cp_list(r: &mut ByteReader<'_>, what: &'static str) -> Result<Vec<CpIndex>, ParseError> {
    let n = r.u16(what)?;
    (0..n).map(|_| r.u16(what).map(CpIndex)).collect()
}

fn local_vars(r: &mut ByteReader<'_>) -> Result<Vec<LocalVariable>, ParseError> {
    let n = r.u16("local variable count")?;
    (0..n)
        .map(|_| {
            Ok(LocalVariable {
                start_pc: r.u16("local variable")?,
                length: r.u16("local variable")?,
                name: CpIndex(r.u16("local variable")?),
                descriptor: CpIndex(r.u16("local variable")?),
                index: r.u16("local variable")?,
            })
        })
        .collect()
}

/// Parses an attribute list (count, then attributes).
pub(crate) fn parse_attributes(
    r: &mut ByteReader<'_>,
    cp: &ConstantPool,
) -> Result<Vec<Attribute>, ParseError> {
    let n = r.u16("attributes count")?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let name = CpIndex(r.u16("attribute name")?);
        let len = r.u32("attribute length")? as usize;
        let data = r.bytes(len, "attribute body")?;
        let name_text = cp.utf8(name)?;
        out.push(Attribute {
            name,
            body: parse_body(name_text, data, cp)?,
        });
    }
    Ok(out)
}

fn parse_body(name: &str, data: &[u8], cp: &ConstantPool) -> Result<AttributeBody, ParseError> {
    let mut r = ByteReader::new(data);
    let r = &mut r;
    let body = match name {
        "Code" => AttributeBody::Code(parse_code(r, cp)?),
        "StackMapTable" => {
            let n = r.u16("frame count")?;
            AttributeBody::StackMapTable(
                (0..n)
                    .map(|_| StackMapFrame::parse(r))
                    .collect::<Result<_, _>>()?,
            )
        }
        "LineNumberTable" => {
            let n = r.u16("line count")?;
            AttributeBody::LineNumberTable(
                (0..n)
                    .map(|_| {
                        Ok(LineNumber {
                            start_pc: r.u16("line start")?,
                            line: r.u16("line number")?,
                        })
                    })
                    .collect::<Result<_, ParseError>>()?,
            )
        }
        "LocalVariableTable" => AttributeBody::LocalVariableTable(local_vars(r)?),
        "LocalVariableTypeTable" => AttributeBody::LocalVariableTypeTable(local_vars(r)?),
        "Signature" => AttributeBody::Signature(CpIndex(r.u16("signature")?)),
        "SourceFile" => AttributeBody::SourceFile(CpIndex(r.u16("source file")?)),
        "ConstantValue" => AttributeBody::ConstantValue(CpIndex(r.u16("constant value")?)),
        "Exceptions" => AttributeBody::Exceptions(cp_list(r, "exceptions")?),
        "InnerClasses" => {
            let n = r.u16("inner class count")?;
            AttributeBody::InnerClasses(
                (0..n)
                    .map(|_| {
                        Ok(InnerClass {
                            inner_class: CpIndex(r.u16("inner class")?),
                            outer_class: CpIndex(r.u16("inner class")?),
                            inner_name: CpIndex(r.u16("inner class")?),
                            access_flags: r.u16("inner class")?,
                        })
                    })
                    .collect::<Result<_, ParseError>>()?,
            )
        }
        "EnclosingMethod" => AttributeBody::EnclosingMethod {
            class: CpIndex(r.u16("enclosing class")?),
            method: CpIndex(r.u16("enclosing method")?),
        },
        "BootstrapMethods" => {
            let n = r.u16("bootstrap method count")?;
            AttributeBody::BootstrapMethods(
                (0..n)
                    .map(|_| {
                        Ok(BootstrapMethod {
                            method_ref: CpIndex(r.u16("bootstrap method")?),
                            arguments: cp_list(r, "bootstrap arguments")?,
                        })
                    })
                    .collect::<Result<_, ParseError>>()?,
            )
        }
        "Record" => {
            let n = r.u16("record component count")?;
            AttributeBody::Record(
                (0..n)
                    .map(|_| {
                        Ok(RecordComponent {
                            name: CpIndex(r.u16("record component")?),
                            descriptor: CpIndex(r.u16("record component")?),
                            attributes: parse_attributes(r, cp)?,
                        })
                    })
                    .collect::<Result<_, ParseError>>()?,
            )
        }
        "PermittedSubclasses" => {
            AttributeBody::PermittedSubclasses(cp_list(r, "permitted subclasses")?)
        }
        "NestHost" => AttributeBody::NestHost(CpIndex(r.u16("nest host")?)),
        "NestMembers" => AttributeBody::NestMembers(cp_list(r, "nest members")?),
        "Synthetic" => AttributeBody::Synthetic,
        "Deprecated" => AttributeBody::Deprecated,
        _ => return Ok(AttributeBody::Raw(data.to_vec())),
    };
    if r.remaining() != 0 {
        return Err(bad(
            name,
            format!("{} byte(s) left over after the body", r.remaining()),
        ));
    }
    Ok(body)
}

fn parse_code(r: &mut ByteReader<'_>, cp: &ConstantPool) -> Result<Code, ParseError> {
    let max_stack = r.u16("max_stack")?;
    let max_locals = r.u16("max_locals")?;
    let len = r.u32("code_length")? as usize;
    let bytes = r.bytes(len, "code")?;
    let instructions = insn::decode(bytes)?;
    let n = r.u16("exception table length")?;
    let exception_table = (0..n)
        .map(|_| {
            Ok(ExceptionHandler {
                start_pc: r.u16("exception table")? as u32,
                end_pc: r.u16("exception table")? as u32,
                handler_pc: r.u16("exception table")? as u32,
                catch_type: CpIndex(r.u16("exception table")?),
            })
        })
        .collect::<Result<_, ParseError>>()?;
    let attributes = parse_attributes(r, cp)?;
    Ok(Code {
        max_stack,
        max_locals,
        instructions,
        code_length: len as u32,
        exception_table,
        attributes,
    })
}

/// Writes an attribute list (count, then attributes). `method` names the owner for errors.
pub(crate) fn write_attributes(
    attrs: &[Attribute],
    w: &mut ByteWriter,
    method: &dyn Fn() -> String,
) -> Result<(), WriteError> {
    w.u16(count_u16(attrs.len(), "attributes")?);
    for a in attrs {
        w.u16(a.name.0);
        let slot = w.len_slot();
        write_body(&a.body, w, method)?;
        w.patch_len(slot);
    }
    Ok(())
}

fn write_list(w: &mut ByteWriter, items: &[CpIndex], what: &str) -> Result<(), WriteError> {
    w.u16(count_u16(items.len(), what)?);
    for i in items {
        w.u16(i.0);
    }
    Ok(())
}

fn write_body(
    body: &AttributeBody,
    w: &mut ByteWriter,
    method: &dyn Fn() -> String,
) -> Result<(), WriteError> {
    match body {
        AttributeBody::Code(code) => write_code(code, w, method)?,
        AttributeBody::StackMapTable(frames) => {
            w.u16(count_u16(frames.len(), "stack map frames")?);
            for f in frames {
                f.write(w).map_err(|what| WriteError::OutOfRange {
                    owner: method(),
                    what,
                    value: f.offset_delta() as u64,
                })?;
            }
        }
        AttributeBody::LineNumberTable(lines) => {
            w.u16(count_u16(lines.len(), "line numbers")?);
            for l in lines {
                w.u16(l.start_pc);
                w.u16(l.line);
            }
        }
        AttributeBody::LocalVariableTable(vars) | AttributeBody::LocalVariableTypeTable(vars) => {
            w.u16(count_u16(vars.len(), "local variables")?);
            for v in vars {
                w.u16(v.start_pc);
                w.u16(v.length);
                w.u16(v.name.0);
                w.u16(v.descriptor.0);
                w.u16(v.index);
            }
        }
        AttributeBody::Signature(i)
        | AttributeBody::SourceFile(i)
        | AttributeBody::ConstantValue(i)
        | AttributeBody::NestHost(i) => w.u16(i.0),
        AttributeBody::Exceptions(l) => write_list(w, l, "exceptions")?,
        AttributeBody::PermittedSubclasses(l) => write_list(w, l, "permitted subclasses")?,
        AttributeBody::NestMembers(l) => write_list(w, l, "nest members")?,
        AttributeBody::InnerClasses(ics) => {
            w.u16(count_u16(ics.len(), "inner classes")?);
            for ic in ics {
                w.u16(ic.inner_class.0);
                w.u16(ic.outer_class.0);
                w.u16(ic.inner_name.0);
                w.u16(ic.access_flags);
            }
        }
        AttributeBody::EnclosingMethod { class, method } => {
            w.u16(class.0);
            w.u16(method.0);
        }
        AttributeBody::BootstrapMethods(bms) => {
            w.u16(count_u16(bms.len(), "bootstrap methods")?);
            for bm in bms {
                w.u16(bm.method_ref.0);
                write_list(w, &bm.arguments, "bootstrap arguments")?;
            }
        }
        AttributeBody::Record(components) => {
            w.u16(count_u16(components.len(), "record components")?);
            for c in components {
                w.u16(c.name.0);
                w.u16(c.descriptor.0);
                write_attributes(&c.attributes, w, method)?;
            }
        }
        AttributeBody::Synthetic | AttributeBody::Deprecated => {}
        AttributeBody::Raw(bytes) => w.bytes(bytes),
    }
    Ok(())
}

fn write_code(
    code: &Code,
    w: &mut ByteWriter,
    method: &dyn Fn() -> String,
) -> Result<(), WriteError> {
    w.u16(code.max_stack);
    w.u16(code.max_locals);
    let slot = w.len_slot();
    let start = w.len();
    insn::encode(&code.instructions, w).map_err(|e| match e {
        insn::EncodeError::JumpOutOfRange { offset, target } => WriteError::JumpOutOfRange {
            method: method(),
            offset,
            target,
        },
    })?;
    let len = w.len() - start;
    if len > 65535 {
        return Err(WriteError::CodeTooLarge {
            method: method(),
            length: len,
        });
    }
    w.patch_len(slot);
    w.u16(count_u16(code.exception_table.len(), "exception table")?);
    for h in &code.exception_table {
        for pc in [h.start_pc, h.end_pc, h.handler_pc] {
            w.u16(u16::try_from(pc).map_err(|_| WriteError::OutOfRange {
                owner: method(),
                what: "exception-table offset",
                value: pc as u64,
            })?);
        }
        w.u16(h.catch_type.0);
    }
    write_attributes(&code.attributes, w, method)
}

impl Code {
    /// The first attribute body matching `pick`.
    pub fn attribute<'a, T>(&'a self, pick: impl Fn(&'a AttributeBody) -> Option<T>) -> Option<T> {
        self.attributes.iter().find_map(|a| pick(&a.body))
    }

    /// All LineNumberTable entries (a method may carry several tables).
    pub fn line_numbers(&self) -> impl Iterator<Item = &LineNumber> {
        self.attributes.iter().flat_map(|a| match &a.body {
            AttributeBody::LineNumberTable(l) => l.as_slice(),
            _ => &[],
        })
    }

    /// The StackMapTable frames, if any.
    pub fn stack_map(&self) -> Option<&[StackMapFrame]> {
        self.attribute(|b| match b {
            AttributeBody::StackMapTable(f) => Some(f.as_slice()),
            _ => None,
        })
    }

    /// Index of the instruction at a code offset.
    pub fn index_of(&self, offset: u32) -> Option<usize> {
        self.instructions
            .binary_search_by_key(&offset, |i| i.offset)
            .ok()
    }
}
