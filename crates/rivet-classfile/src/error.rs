//! Errors raised while reading, writing or editing a class file.

use thiserror::Error;

/// What went wrong while parsing a class file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseErrorKind {
    #[error("not a class file (magic 0x{0:08X}, expected 0xCAFEBABE)")]
    BadMagic(u32),
    #[error(
        "unsupported class-file version {major}.{minor} (Rivet reads 45.0 to 69.x, Java 1.1 to 25)"
    )]
    UnsupportedVersion { major: u16, minor: u16 },
    #[error("truncated class file: {what} at byte {offset} needs {needed} more byte(s)")]
    Truncated {
        what: &'static str,
        offset: usize,
        needed: usize,
    },
    #[error("constant pool entry #{index} has unknown tag {tag}")]
    BadConstantTag { index: u16, tag: u8 },
    #[error("constant pool index #{index} is invalid or of the wrong kind (expected {expected})")]
    BadConstantIndex { index: u16, expected: &'static str },
    #[error("unknown opcode 0x{opcode:02X} at code offset {offset}")]
    BadOpcode { offset: u32, opcode: u8 },
    #[error("jump at code offset {offset} targets {target}, outside the code")]
    BadJumpTarget { offset: u32, target: i64 },
    #[error("switch at code offset {offset} is malformed: {reason}")]
    BadSwitch { offset: u32, reason: &'static str },
    #[error("attribute {name} is malformed: {reason}")]
    BadAttribute { name: String, reason: String },
    #[error("{0} trailing byte(s) after the class file")]
    TrailingBytes(usize),
}

/// A class file could not be parsed; names the class (once known) and the method.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub struct ParseError {
    pub class: Option<crate::ClassName>,
    pub member: Option<String>,
    pub kind: ParseErrorKind,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.class, &self.member) {
            (Some(c), Some(m)) => write!(f, "class {c}, {m}: {}", self.kind),
            (Some(c), None) => write!(f, "class {c}: {}", self.kind),
            (None, Some(m)) => write!(f, "{m}: {}", self.kind),
            (None, None) => write!(f, "{}", self.kind),
        }
    }
}

impl From<ParseErrorKind> for ParseError {
    fn from(kind: ParseErrorKind) -> Self {
        ParseError {
            class: None,
            member: None,
            kind,
        }
    }
}

impl ParseError {
    /// Attaches the class name if none is known yet.
    pub fn in_class(mut self, class: &str) -> Self {
        if self.class.is_none() {
            self.class = Some(crate::ClassName::from_internal(class));
        }
        self
    }

    /// Attaches the member (method or field) name if none is known yet.
    pub fn in_member(mut self, member: impl Into<String>) -> Self {
        if self.member.is_none() {
            self.member = Some(member.into());
        }
        self
    }
}

/// A class file could not be written (or an edit could not be laid out).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WriteError {
    #[error("{method}: code is {length} bytes, over the 65535-byte limit")]
    CodeTooLarge { method: String, length: usize },
    #[error("{method}: jump at offset {offset} to {target} does not fit a 16-bit offset")]
    JumpOutOfRange {
        method: String,
        offset: u32,
        target: u32,
    },
    #[error("{what}: {count} entries exceed the class-file limit of 65535")]
    TooMany { what: String, count: usize },
    #[error("{method}: {reason}")]
    BadEdit { method: String, reason: String },
    #[error("{owner}: {what} {value} does not fit its class-file field")]
    OutOfRange {
        owner: String,
        what: &'static str,
        value: u64,
    },
}
