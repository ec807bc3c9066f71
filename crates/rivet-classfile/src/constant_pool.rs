//! The constant pool: entries, typed look-ups and modified-UTF-8 strings.

use crate::bytes::{ByteReader, ByteWriter};
use crate::error::{ParseError, ParseErrorKind, WriteError};

/// Index of a constant-pool entry (1-based, as in the class file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct CpIndex(pub u16);

/// A CONSTANT_Utf8 string: decoded text, plus the original bytes when they are not the
/// plain UTF-8 encoding of the text (NUL, surrogates), so that writing is byte-exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utf8Const {
    pub text: String,
    raw: Option<Box<[u8]>>,
}

impl Utf8Const {
    /// Builds a constant from text, encoding it as modified UTF-8 when written.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let plain = !text.bytes().any(|b| b == 0) && !text.chars().any(|c| c as u32 > 0xFFFF);
        let raw = if plain {
            None
        } else {
            Some(encode_modified_utf8(&text).into_boxed_slice())
        };
        Utf8Const { text, raw }
    }

    fn from_bytes(bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(s) if !bytes.contains(&0) => Utf8Const {
                text: s.to_string(),
                raw: None,
            },
            _ => Utf8Const {
                text: decode_modified_utf8(bytes),
                raw: Some(bytes.into()),
            },
        }
    }

    /// The bytes as stored in the class file.
    pub fn bytes(&self) -> &[u8] {
        self.raw.as_deref().unwrap_or(self.text.as_bytes())
    }
}

/// Decodes Java's modified UTF-8; malformed sequences and lone surrogates become U+FFFD.
pub fn decode_modified_utf8(bytes: &[u8]) -> String {
    let mut units: Vec<u16> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b & 0x80 == 0 {
            units.push(b as u16);
            i += 1;
        } else if b & 0xE0 == 0xC0 && i + 1 < bytes.len() {
            units.push((((b & 0x1F) as u16) << 6) | (bytes[i + 1] & 0x3F) as u16);
            i += 2;
        } else if b & 0xF0 == 0xE0 && i + 2 < bytes.len() {
            units.push(
                (((b & 0x0F) as u16) << 12)
                    | (((bytes[i + 1] & 0x3F) as u16) << 6)
                    | (bytes[i + 2] & 0x3F) as u16,
            );
            i += 3;
        } else {
            units.push(0xFFFD);
            i += 1;
        }
    }
    String::from_utf16_lossy(&units)
}

/// Encodes text as Java's modified UTF-8 (NUL as C0 80, supplementary characters as surrogate pairs).
pub fn encode_modified_utf8(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for unit in text.encode_utf16() {
        match unit {
            1..=0x7F => out.push(unit as u8),
            0 | 0x80..=0x7FF => {
                out.push(0xC0 | (unit >> 6) as u8);
                out.push(0x80 | (unit & 0x3F) as u8);
            }
            _ => {
                out.push(0xE0 | (unit >> 12) as u8);
                out.push(0x80 | ((unit >> 6) & 0x3F) as u8);
                out.push(0x80 | (unit & 0x3F) as u8);
            }
        }
    }
    out
}

/// One constant-pool entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// Index 0 and the slot after a Long or Double.
    Unusable,
    Utf8(Utf8Const),
    Integer(i32),
    /// Raw IEEE bits, so that NaN payloads round-trip.
    Float(u32),
    Long(i64),
    /// Raw IEEE bits.
    Double(u64),
    Class {
        name: CpIndex,
    },
    String {
        string: CpIndex,
    },
    Fieldref {
        class: CpIndex,
        name_and_type: CpIndex,
    },
    Methodref {
        class: CpIndex,
        name_and_type: CpIndex,
    },
    InterfaceMethodref {
        class: CpIndex,
        name_and_type: CpIndex,
    },
    NameAndType {
        name: CpIndex,
        descriptor: CpIndex,
    },
    MethodHandle {
        kind: u8,
        reference: CpIndex,
    },
    MethodType {
        descriptor: CpIndex,
    },
    Dynamic {
        bootstrap: u16,
        name_and_type: CpIndex,
    },
    InvokeDynamic {
        bootstrap: u16,
        name_and_type: CpIndex,
    },
    Module {
        name: CpIndex,
    },
    Package {
        name: CpIndex,
    },
}

impl Constant {
    fn tag(&self) -> u8 {
        match self {
            Constant::Unusable => 0,
            Constant::Utf8(_) => 1,
            Constant::Integer(_) => 3,
            Constant::Float(_) => 4,
            Constant::Long(_) => 5,
            Constant::Double(_) => 6,
            Constant::Class { .. } => 7,
            Constant::String { .. } => 8,
            Constant::Fieldref { .. } => 9,
            Constant::Methodref { .. } => 10,
            Constant::InterfaceMethodref { .. } => 11,
            Constant::NameAndType { .. } => 12,
            Constant::MethodHandle { .. } => 15,
            Constant::MethodType { .. } => 16,
            Constant::Dynamic { .. } => 17,
            Constant::InvokeDynamic { .. } => 18,
            Constant::Module { .. } => 19,
            Constant::Package { .. } => 20,
        }
    }
}

/// A resolved member reference: owner class, name and descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberRef<'a> {
    pub owner: &'a str,
    pub name: &'a str,
    pub descriptor: &'a str,
    pub interface: bool,
}

/// The constant pool of one class file; entry 0 is `Unusable`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ConstantPool {
    entries: Vec<Constant>,
}

impl ConstantPool {
    pub fn new() -> Self {
        ConstantPool {
            entries: vec![Constant::Unusable],
        }
    }

    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, ParseError> {
        let count = r.u16("constant_pool_count")?;
        let mut entries = Vec::with_capacity(count as usize);
        entries.push(Constant::Unusable);
        let mut i: u16 = 1;
        while i < count {
            let tag = r.u8("constant tag")?;
            let idx = |r: &mut ByteReader<'_>| r.u16("constant index").map(CpIndex);
            let c = match tag {
                1 => {
                    let len = r.u16("utf8 length")? as usize;
                    Constant::Utf8(Utf8Const::from_bytes(r.bytes(len, "utf8 bytes")?))
                }
                3 => Constant::Integer(r.i32("integer")?),
                4 => Constant::Float(r.u32("float")?),
                5 => Constant::Long(r.u64("long")? as i64),
                6 => Constant::Double(r.u64("double")?),
                7 => Constant::Class { name: idx(r)? },
                8 => Constant::String { string: idx(r)? },
                9 => Constant::Fieldref {
                    class: idx(r)?,
                    name_and_type: idx(r)?,
                },
                10 => Constant::Methodref {
                    class: idx(r)?,
                    name_and_type: idx(r)?,
                },
                11 => Constant::InterfaceMethodref {
                    class: idx(r)?,
                    name_and_type: idx(r)?,
                },
                12 => Constant::NameAndType {
                    name: idx(r)?,
                    descriptor: idx(r)?,
                },
                15 => Constant::MethodHandle {
                    kind: r.u8("method handle kind")?,
                    reference: idx(r)?,
                },
                16 => Constant::MethodType {
                    descriptor: idx(r)?,
                },
                17 => Constant::Dynamic {
                    bootstrap: r.u16("bootstrap index")?,
                    name_and_type: idx(r)?,
                },
                18 => Constant::InvokeDynamic {
                    bootstrap: r.u16("bootstrap index")?,
                    name_and_type: idx(r)?,
                },
                19 => Constant::Module { name: idx(r)? },
                20 => Constant::Package { name: idx(r)? },
                _ => return Err(ParseErrorKind::BadConstantTag { index: i, tag }.into()),
            };
            let wide = matches!(c, Constant::Long(_) | Constant::Double(_));
            entries.push(c);
            i += 1;
            if wide {
                entries.push(Constant::Unusable);
                i += 1;
            }
        }
        // A Long/Double in the last slot claims one slot past the declared count.
        entries.truncate(count.max(1) as usize);
        Ok(ConstantPool { entries })
    }

    pub(crate) fn write(&self, w: &mut ByteWriter) -> Result<(), WriteError> {
        w.u16(crate::bytes::count_u16(
            self.entries.len(),
            "constant pool",
        )?);
        let mut skip = false;
        for c in self.entries.iter().skip(1) {
            if skip {
                skip = false;
                continue;
            }
            w.u8(c.tag());
            match c {
                Constant::Unusable => {}
                Constant::Utf8(u) => {
                    let b = u.bytes();
                    w.u16(crate::bytes::count_u16(b.len(), "utf8 constant length")?);
                    w.bytes(b);
                }
                Constant::Integer(v) => w.i32(*v),
                Constant::Float(v) => w.u32(*v),
                Constant::Long(v) => {
                    w.u64(*v as u64);
                    skip = true;
                }
                Constant::Double(v) => {
                    w.u64(*v);
                    skip = true;
                }
                Constant::Class { name: a }
                | Constant::String { string: a }
                | Constant::MethodType { descriptor: a }
                | Constant::Module { name: a }
                | Constant::Package { name: a } => w.u16(a.0),
                Constant::Fieldref {
                    class: a,
                    name_and_type: b,
                }
                | Constant::Methodref {
                    class: a,
                    name_and_type: b,
                }
                | Constant::InterfaceMethodref {
                    class: a,
                    name_and_type: b,
                }
                | Constant::NameAndType {
                    name: a,
                    descriptor: b,
                } => {
                    w.u16(a.0);
                    w.u16(b.0);
                }
                Constant::MethodHandle { kind, reference } => {
                    w.u8(*kind);
                    w.u16(reference.0);
                }
                Constant::Dynamic {
                    bootstrap,
                    name_and_type,
                }
                | Constant::InvokeDynamic {
                    bootstrap,
                    name_and_type,
                } => {
                    w.u16(*bootstrap);
                    w.u16(name_and_type.0);
                }
            }
        }
        Ok(())
    }

    /// Number of slots, including slot 0 (the class file's `constant_pool_count`).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() <= 1
    }

    pub fn get(&self, index: CpIndex) -> Option<&Constant> {
        self.entries.get(index.0 as usize)
    }

    pub fn entries(&self) -> &[Constant] {
        &self.entries
    }

    fn bad(index: CpIndex, expected: &'static str) -> ParseError {
        ParseErrorKind::BadConstantIndex {
            index: index.0,
            expected,
        }
        .into()
    }

    /// The text of a Utf8 entry.
    pub fn utf8(&self, index: CpIndex) -> Result<&str, ParseError> {
        match self.get(index) {
            Some(Constant::Utf8(u)) => Ok(&u.text),
            _ => Err(Self::bad(index, "Utf8")),
        }
    }

    /// The internal name of a Class entry.
    pub fn class_name(&self, index: CpIndex) -> Result<&str, ParseError> {
        match self.get(index) {
            Some(Constant::Class { name }) => self.utf8(*name),
            _ => Err(Self::bad(index, "Class")),
        }
    }

    /// Name and descriptor of a NameAndType entry.
    pub fn name_and_type(&self, index: CpIndex) -> Result<(&str, &str), ParseError> {
        match self.get(index) {
            Some(Constant::NameAndType { name, descriptor }) => {
                Ok((self.utf8(*name)?, self.utf8(*descriptor)?))
            }
            _ => Err(Self::bad(index, "NameAndType")),
        }
    }

    /// A Fieldref, Methodref or InterfaceMethodref resolved to names.
    pub fn member_ref(&self, index: CpIndex) -> Result<MemberRef<'_>, ParseError> {
        let (class, nat, interface) = match self.get(index) {
            Some(Constant::Fieldref {
                class,
                name_and_type,
            })
            | Some(Constant::Methodref {
                class,
                name_and_type,
            }) => (*class, *name_and_type, false),
            Some(Constant::InterfaceMethodref {
                class,
                name_and_type,
            }) => (*class, *name_and_type, true),
            _ => return Err(Self::bad(index, "Fieldref or Methodref")),
        };
        let (name, descriptor) = self.name_and_type(nat)?;
        Ok(MemberRef {
            owner: self.class_name(class)?,
            name,
            descriptor,
            interface,
        })
    }

    /// Name and descriptor of an InvokeDynamic or Dynamic entry, with its bootstrap index.
    pub fn dynamic(&self, index: CpIndex) -> Result<(u16, &str, &str), ParseError> {
        match self.get(index) {
            Some(Constant::InvokeDynamic {
                bootstrap,
                name_and_type,
            })
            | Some(Constant::Dynamic {
                bootstrap,
                name_and_type,
            }) => {
                let (n, d) = self.name_and_type(*name_and_type)?;
                Ok((*bootstrap, n, d))
            }
            _ => Err(Self::bad(index, "InvokeDynamic")),
        }
    }

    /// Replaces the entry at `index` by one of the same width (not Long/Double, not the
    /// unusable slots); false when that is not possible.
    pub fn replace(&mut self, index: CpIndex, c: Constant) -> bool {
        let wide = |c: &Constant| matches!(c, Constant::Long(_) | Constant::Double(_));
        match self.entries.get_mut(index.0 as usize) {
            Some(slot) if !wide(slot) && !wide(&c) && !matches!(slot, Constant::Unusable) => {
                *slot = c;
                true
            }
            _ => false,
        }
    }

    /// Appends an entry (two slots for Long/Double) and returns its index.
    pub fn push(&mut self, c: Constant) -> CpIndex {
        let idx = CpIndex(self.entries.len() as u16);
        let wide = matches!(c, Constant::Long(_) | Constant::Double(_));
        self.entries.push(c);
        if wide {
            self.entries.push(Constant::Unusable);
        }
        idx
    }

    /// Finds or adds a Utf8 entry.
    pub fn intern_utf8(&mut self, text: &str) -> CpIndex {
        for (i, c) in self.entries.iter().enumerate() {
            if let Constant::Utf8(u) = c {
                if u.text == text {
                    return CpIndex(i as u16);
                }
            }
        }
        self.push(Constant::Utf8(Utf8Const::new(text)))
    }

    /// Finds or adds a Class entry.
    pub fn intern_class(&mut self, internal_name: &str) -> CpIndex {
        let name = self.intern_utf8(internal_name);
        self.intern(Constant::Class { name })
    }

    /// Finds or adds a NameAndType entry.
    pub fn intern_name_and_type(&mut self, name: &str, descriptor: &str) -> CpIndex {
        let name = self.intern_utf8(name);
        let descriptor = self.intern_utf8(descriptor);
        self.intern(Constant::NameAndType { name, descriptor })
    }

    /// Finds or adds a Methodref (or InterfaceMethodref) entry.
    pub fn intern_method_ref(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
        interface: bool,
    ) -> CpIndex {
        let class = self.intern_class(owner);
        let name_and_type = self.intern_name_and_type(name, descriptor);
        self.intern(if interface {
            Constant::InterfaceMethodref {
                class,
                name_and_type,
            }
        } else {
            Constant::Methodref {
                class,
                name_and_type,
            }
        })
    }

    /// Finds or adds a Fieldref entry.
    pub fn intern_field_ref(&mut self, owner: &str, name: &str, descriptor: &str) -> CpIndex {
        let class = self.intern_class(owner);
        let name_and_type = self.intern_name_and_type(name, descriptor);
        self.intern(Constant::Fieldref {
            class,
            name_and_type,
        })
    }

    /// Finds or adds an Integer entry.
    pub fn intern_integer(&mut self, v: i32) -> CpIndex {
        self.intern(Constant::Integer(v))
    }

    /// Finds or adds a String entry.
    pub fn intern_string(&mut self, text: &str) -> CpIndex {
        let string = self.intern_utf8(text);
        self.intern(Constant::String { string })
    }

    fn intern(&mut self, c: Constant) -> CpIndex {
        match self.entries.iter().position(|e| *e == c) {
            Some(i) => CpIndex(i as u16),
            None => self.push(c),
        }
    }
}
