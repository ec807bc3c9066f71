//! A quick read of a class file's header (name, superclass, interfaces, access flags)
//! without decoding members or code: what the type hierarchy needs, about ten times
//! cheaper than a full `ClassFile::parse`.

use rivet_classfile::constant_pool::decode_modified_utf8;
use rivet_classfile::{AccessFlags, ParseError, ParseErrorKind};

/// The part of a class file that places the class in the type hierarchy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassHeader {
    pub major_version: u16,
    pub access_flags: AccessFlags,
    /// Internal name (`java/util/ArrayList`).
    pub name: String,
    /// None for `java/lang/Object` and `module-info`.
    pub super_name: Option<String>,
    /// Directly implemented (or, for interfaces, extended) interfaces.
    pub interfaces: Vec<String>,
}

impl ClassHeader {
    pub fn is_interface(&self) -> bool {
        self.access_flags.is_interface()
    }

    /// Reads the header of a class file.
    pub fn parse(data: &[u8]) -> Result<ClassHeader, ParseError> {
        let mut r = Cursor { data, pos: 0 };
        let magic = r.u32("magic")?;
        if magic != 0xCAFE_BABE {
            return Err(ParseErrorKind::BadMagic(magic).into());
        }
        let _minor = r.u16("minor version")?;
        let major_version = r.u16("major version")?;
        let pool = ConstantPoolIndex::read(&mut r)?;
        let access_flags = AccessFlags(r.u16("access flags")?);
        let name = pool.class_name(data, r.u16("this_class")?)?;
        let super_index = r.u16("super_class")?;
        let super_name = if super_index == 0 {
            None
        } else {
            Some(pool.class_name(data, super_index)?)
        };
        let count = r.u16("interfaces count")?;
        let mut interfaces = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            interfaces.push(pool.class_name(data, r.u16("interface")?)?);
        }
        Ok(ClassHeader {
            major_version,
            access_flags,
            name,
            super_name,
            interfaces,
        })
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], ParseError> {
        match self.data.get(self.pos..self.pos + n) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(ParseErrorKind::Truncated {
                what,
                offset: self.pos,
                needed: self.pos + n - self.data.len(),
            }
            .into()),
        }
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, ParseError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, ParseError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, ParseError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Where each constant-pool entry of interest is: Utf8 entries as byte ranges, Class
/// entries as the index of their name.
enum Slot {
    Other,
    Utf8 { start: usize, len: usize },
    Class { name: u16 },
}

struct ConstantPoolIndex {
    slots: Vec<Slot>,
}

impl ConstantPoolIndex {
    fn read(r: &mut Cursor<'_>) -> Result<ConstantPoolIndex, ParseError> {
        let count = r.u16("constant pool count")?;
        let mut slots = Vec::with_capacity(usize::from(count));
        slots.push(Slot::Other);
        let mut index = 1u16;
        while index < count {
            let tag = r.u8("constant tag")?;
            let size = match tag {
                1 => {
                    let len = usize::from(r.u16("utf8 length")?);
                    let start = r.pos;
                    r.take(len, "utf8 bytes")?;
                    slots.push(Slot::Utf8 { start, len });
                    index += 1;
                    continue;
                }
                7 => {
                    let name = r.u16("class name")?;
                    slots.push(Slot::Class { name });
                    index += 1;
                    continue;
                }
                3 | 4 | 9 | 10 | 11 | 12 | 17 | 18 => 4,
                5 | 6 => 8,
                8 | 16 | 19 | 20 => 2,
                15 => 3,
                _ => return Err(ParseErrorKind::BadConstantTag { index, tag }.into()),
            };
            r.take(size, "constant")?;
            slots.push(Slot::Other);
            if tag == 5 || tag == 6 {
                slots.push(Slot::Other);
                index += 1;
            }
            index += 1;
        }
        Ok(ConstantPoolIndex { slots })
    }

    fn class_name(&self, data: &[u8], index: u16) -> Result<String, ParseError> {
        let bad = |expected| ParseErrorKind::BadConstantIndex { index, expected };
        let Some(Slot::Class { name }) = self.slots.get(usize::from(index)) else {
            return Err(bad("Class").into());
        };
        match self.slots.get(usize::from(*name)) {
            Some(Slot::Utf8 { start, len }) => {
                let bytes = &data[*start..*start + *len];
                Ok(match std::str::from_utf8(bytes) {
                    Ok(s) if !bytes.contains(&0) => s.to_string(),
                    _ => decode_modified_utf8(bytes),
                })
            }
            _ => Err(ParseErrorKind::BadConstantIndex {
                index: *name,
                expected: "Utf8",
            }
            .into()),
        }
    }
}
