//! The class file as a whole: header, members, attributes; parsing and writing.

use crate::attribute::{parse_attributes, write_attributes, Attribute, AttributeBody, Code};
use crate::bytes::{count_u16, ByteReader, ByteWriter};
use crate::constant_pool::{ConstantPool, CpIndex};
use crate::error::{ParseError, ParseErrorKind, WriteError};
use crate::ClassName;

/// Highest class-file major version Rivet reads (Java 25).
pub const MAX_MAJOR_VERSION: u16 = 69;
/// Lowest class-file major version Rivet reads (Java 1.1).
pub const MIN_MAJOR_VERSION: u16 = 45;

/// Access flags of a class, field or method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AccessFlags(pub u16);

impl AccessFlags {
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const STATIC: u16 = 0x0008;
    pub const FINAL: u16 = 0x0010;
    /// ACC_SYNCHRONIZED on methods, ACC_SUPER on classes.
    pub const SYNCHRONIZED: u16 = 0x0020;
    /// ACC_BRIDGE on methods, ACC_VOLATILE on fields.
    pub const BRIDGE: u16 = 0x0040;
    /// ACC_VARARGS on methods, ACC_TRANSIENT on fields.
    pub const VARARGS: u16 = 0x0080;
    pub const NATIVE: u16 = 0x0100;
    pub const INTERFACE: u16 = 0x0200;
    pub const ABSTRACT: u16 = 0x0400;
    pub const STRICT: u16 = 0x0800;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const ANNOTATION: u16 = 0x2000;
    pub const ENUM: u16 = 0x4000;
    /// ACC_MODULE on classes, ACC_MANDATED on parameters.
    pub const MODULE: u16 = 0x8000;

    pub fn has(self, flag: u16) -> bool {
        self.0 & flag != 0
    }
    pub fn is_public(self) -> bool {
        self.has(Self::PUBLIC)
    }
    pub fn is_private(self) -> bool {
        self.has(Self::PRIVATE)
    }
    pub fn is_static(self) -> bool {
        self.has(Self::STATIC)
    }
    pub fn is_abstract(self) -> bool {
        self.has(Self::ABSTRACT)
    }
    pub fn is_interface(self) -> bool {
        self.has(Self::INTERFACE)
    }
    pub fn is_synthetic(self) -> bool {
        self.has(Self::SYNTHETIC)
    }
    pub fn is_native(self) -> bool {
        self.has(Self::NATIVE)
    }
    pub fn is_enum(self) -> bool {
        self.has(Self::ENUM)
    }
}

/// A field or a method.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub access_flags: AccessFlags,
    pub name: CpIndex,
    pub descriptor: CpIndex,
    pub attributes: Vec<Attribute>,
}

impl Member {
    /// The Code attribute, for methods that have one.
    pub fn code(&self) -> Option<&Code> {
        self.attributes.iter().find_map(|a| match &a.body {
            AttributeBody::Code(c) => Some(c),
            _ => None,
        })
    }

    pub fn code_mut(&mut self) -> Option<&mut Code> {
        self.attributes.iter_mut().find_map(|a| match &mut a.body {
            AttributeBody::Code(c) => Some(c),
            _ => None,
        })
    }

    /// Synthetic by flag or by the (pre-Java 5) Synthetic attribute.
    pub fn is_synthetic(&self) -> bool {
        self.access_flags.is_synthetic()
            || self
                .attributes
                .iter()
                .any(|a| matches!(a.body, AttributeBody::Synthetic))
    }
}

/// A parsed class file.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFile {
    pub minor_version: u16,
    pub major_version: u16,
    pub constant_pool: ConstantPool,
    pub access_flags: AccessFlags,
    pub this_class: CpIndex,
    /// 0 for java.lang.Object and module-info.
    pub super_class: CpIndex,
    pub interfaces: Vec<CpIndex>,
    pub fields: Vec<Member>,
    pub methods: Vec<Member>,
    pub attributes: Vec<Attribute>,
}

fn parse_members(
    r: &mut ByteReader<'_>,
    cp: &ConstantPool,
    kind: &str,
) -> Result<Vec<Member>, ParseError> {
    let n = r.u16("member count")?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let access_flags = AccessFlags(r.u16("member access flags")?);
        let name = CpIndex(r.u16("member name")?);
        let descriptor = CpIndex(r.u16("member descriptor")?);
        let attributes = parse_attributes(r, cp).map_err(|e| {
            let n = cp.utf8(name).unwrap_or("?");
            let d = cp.utf8(descriptor).unwrap_or("");
            e.in_member(format!("{kind} {n}{d}"))
        })?;
        out.push(Member {
            access_flags,
            name,
            descriptor,
            attributes,
        });
    }
    Ok(out)
}

impl ClassFile {
    /// Parses a class file; the whole slice must be the class file.
    pub fn parse(data: &[u8]) -> Result<ClassFile, ParseError> {
        let mut r = ByteReader::new(data);
        let magic = r.u32("magic")?;
        if magic != 0xCAFE_BABE {
            return Err(ParseErrorKind::BadMagic(magic).into());
        }
        let minor_version = r.u16("minor version")?;
        let major_version = r.u16("major version")?;
        if !(MIN_MAJOR_VERSION..=MAX_MAJOR_VERSION).contains(&major_version) {
            return Err(ParseErrorKind::UnsupportedVersion {
                major: major_version,
                minor: minor_version,
            }
            .into());
        }
        let constant_pool = ConstantPool::parse(&mut r)?;
        let access_flags = AccessFlags(r.u16("access flags")?);
        let this_class = CpIndex(r.u16("this_class")?);
        let name = constant_pool.class_name(this_class)?.to_string();
        let rest = (|| {
            let super_class = CpIndex(r.u16("super_class")?);
            let ni = r.u16("interfaces count")?;
            let interfaces = (0..ni)
                .map(|_| r.u16("interface").map(CpIndex))
                .collect::<Result<Vec<_>, _>>()?;
            let fields = parse_members(&mut r, &constant_pool, "field")?;
            let methods = parse_members(&mut r, &constant_pool, "method")?;
            let attributes = parse_attributes(&mut r, &constant_pool)?;
            if r.remaining() != 0 {
                return Err(ParseErrorKind::TrailingBytes(r.remaining()).into());
            }
            Ok((super_class, interfaces, fields, methods, attributes))
        })()
        .map_err(|e: ParseError| e.in_class(&ClassName::from_internal(&name).binary()))?;
        let (super_class, interfaces, fields, methods, attributes) = rest;
        Ok(ClassFile {
            minor_version,
            major_version,
            constant_pool,
            access_flags,
            this_class,
            super_class,
            interfaces,
            fields,
            methods,
            attributes,
        })
    }

    /// Writes the class file. An unmodified parsed class writes back to the same bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let mut w = ByteWriter::with_capacity(4096);
        w.u32(0xCAFE_BABE);
        w.u16(self.minor_version);
        w.u16(self.major_version);
        self.constant_pool.write(&mut w)?;
        w.u16(self.access_flags.0);
        w.u16(self.this_class.0);
        w.u16(self.super_class.0);
        w.u16(count_u16(self.interfaces.len(), "interfaces")?);
        for i in &self.interfaces {
            w.u16(i.0);
        }
        let class = self.name().unwrap_or("?").to_string();
        for (members, kind) in [(&self.fields, "fields"), (&self.methods, "methods")] {
            w.u16(count_u16(members.len(), kind)?);
            for m in members.iter() {
                w.u16(m.access_flags.0);
                w.u16(m.name.0);
                w.u16(m.descriptor.0);
                let label = || {
                    format!(
                        "{}.{}{}",
                        ClassName::from_internal(&class),
                        self.constant_pool.utf8(m.name).unwrap_or("?"),
                        self.constant_pool.utf8(m.descriptor).unwrap_or("")
                    )
                };
                write_attributes(&m.attributes, &mut w, &label)?;
            }
        }
        let label = || ClassName::from_internal(&class).binary();
        write_attributes(&self.attributes, &mut w, &label)?;
        Ok(w.buf)
    }

    /// Internal name of this class (`java/util/Map$Entry`).
    pub fn name(&self) -> Result<&str, ParseError> {
        self.constant_pool.class_name(self.this_class)
    }

    /// Internal name of the superclass, None for java.lang.Object and module-info.
    pub fn super_name(&self) -> Result<Option<&str>, ParseError> {
        if self.super_class.0 == 0 {
            Ok(None)
        } else {
            self.constant_pool.class_name(self.super_class).map(Some)
        }
    }

    /// Internal names of the directly implemented interfaces.
    pub fn interface_names(&self) -> Result<Vec<&str>, ParseError> {
        self.interfaces
            .iter()
            .map(|i| self.constant_pool.class_name(*i))
            .collect()
    }

    pub fn member_name(&self, m: &Member) -> Result<&str, ParseError> {
        self.constant_pool.utf8(m.name)
    }

    pub fn member_descriptor(&self, m: &Member) -> Result<&str, ParseError> {
        self.constant_pool.utf8(m.descriptor)
    }

    /// The method with this name and descriptor.
    pub fn find_method(&self, name: &str, descriptor: &str) -> Option<&Member> {
        self.methods.iter().find(|m| {
            self.member_name(m).ok() == Some(name)
                && self.member_descriptor(m).ok() == Some(descriptor)
        })
    }

    /// The class's SourceFile, if recorded.
    pub fn source_file(&self) -> Option<&str> {
        self.attributes.iter().find_map(|a| match a.body {
            AttributeBody::SourceFile(i) => self.constant_pool.utf8(i).ok(),
            _ => None,
        })
    }

    /// A top-level class attribute body matching `pick`.
    pub fn attribute<'a, T>(&'a self, pick: impl Fn(&'a AttributeBody) -> Option<T>) -> Option<T> {
        self.attributes.iter().find_map(|a| pick(&a.body))
    }
}
