//! Field and method descriptors (`I`, `[Ljava/lang/String;`, `(IJ)V`).

use std::fmt;

/// A field type as written in a descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FieldType {
    Byte,
    Char,
    Double,
    Float,
    Int,
    Long,
    Short,
    Boolean,
    /// Internal name, e.g. `java/lang/String`.
    Object(String),
    Array(Box<FieldType>),
}

/// A parsed method descriptor; `ret` is None for void.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodDescriptor {
    pub params: Vec<FieldType>,
    pub ret: Option<FieldType>,
}

/// A descriptor string that is not well formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed descriptor {0:?}")]
pub struct DescriptorError(pub String);

impl FieldType {
    fn parse_prefix(s: &str) -> Option<(FieldType, &str)> {
        let c = s.chars().next()?;
        let rest = &s[c.len_utf8()..];
        Some(match c {
            'B' => (FieldType::Byte, rest),
            'C' => (FieldType::Char, rest),
            'D' => (FieldType::Double, rest),
            'F' => (FieldType::Float, rest),
            'I' => (FieldType::Int, rest),
            'J' => (FieldType::Long, rest),
            'S' => (FieldType::Short, rest),
            'Z' => (FieldType::Boolean, rest),
            'L' => {
                let end = rest.find(';')?;
                if end == 0 {
                    return None;
                }
                (FieldType::Object(rest[..end].to_string()), &rest[end + 1..])
            }
            '[' => {
                let (inner, rest) = FieldType::parse_prefix(rest)?;
                (FieldType::Array(Box::new(inner)), rest)
            }
            _ => return None,
        })
    }

    /// Parses a whole field descriptor.
    pub fn parse(s: &str) -> Result<FieldType, DescriptorError> {
        match FieldType::parse_prefix(s) {
            Some((t, "")) => Ok(t),
            _ => Err(DescriptorError(s.to_string())),
        }
    }

    /// Number of local-variable slots (2 for long and double).
    pub fn slots(&self) -> u16 {
        match self {
            FieldType::Long | FieldType::Double => 2,
            _ => 1,
        }
    }

    /// The Java source spelling (`int`, `java.lang.String[]`).
    pub fn java_name(&self) -> String {
        match self {
            FieldType::Byte => "byte".into(),
            FieldType::Char => "char".into(),
            FieldType::Double => "double".into(),
            FieldType::Float => "float".into(),
            FieldType::Int => "int".into(),
            FieldType::Long => "long".into(),
            FieldType::Short => "short".into(),
            FieldType::Boolean => "boolean".into(),
            FieldType::Object(n) => crate::ClassName::from_internal(n).binary(),
            FieldType::Array(t) => format!("{}[]", t.java_name()),
        }
    }
}

impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldType::Byte => f.write_str("B"),
            FieldType::Char => f.write_str("C"),
            FieldType::Double => f.write_str("D"),
            FieldType::Float => f.write_str("F"),
            FieldType::Int => f.write_str("I"),
            FieldType::Long => f.write_str("J"),
            FieldType::Short => f.write_str("S"),
            FieldType::Boolean => f.write_str("Z"),
            FieldType::Object(n) => write!(f, "L{n};"),
            FieldType::Array(t) => write!(f, "[{t}"),
        }
    }
}

impl MethodDescriptor {
    /// Parses a method descriptor such as `(I[Ljava/lang/Object;)Z`.
    pub fn parse(s: &str) -> Result<MethodDescriptor, DescriptorError> {
        let err = || DescriptorError(s.to_string());
        let mut rest = s.strip_prefix('(').ok_or_else(err)?;
        let mut params = Vec::new();
        while !rest.starts_with(')') {
            let (t, r) = FieldType::parse_prefix(rest).ok_or_else(err)?;
            params.push(t);
            rest = r;
        }
        rest = &rest[1..];
        let ret = if rest == "V" {
            None
        } else {
            Some(FieldType::parse(rest).map_err(|_| err())?)
        };
        Ok(MethodDescriptor { params, ret })
    }

    /// Slots taken by the parameters (not counting `this`).
    pub fn param_slots(&self) -> u16 {
        self.params.iter().map(FieldType::slots).sum()
    }
}

impl fmt::Display for MethodDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for p in &self.params {
            write!(f, "{p}")?;
        }
        f.write_str(")")?;
        match &self.ret {
            Some(t) => write!(f, "{t}"),
            None => f.write_str("V"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_descriptor_round_trips() {
        for d in ["()V", "(IJ)Z", "([[Ljava/lang/String;D)Ljava/lang/Object;"] {
            assert_eq!(MethodDescriptor::parse(d).unwrap().to_string(), d);
        }
        assert_eq!(MethodDescriptor::parse("(IJ)V").unwrap().param_slots(), 3);
        assert!(MethodDescriptor::parse("(L;)V").is_err());
        assert!(MethodDescriptor::parse("(I").is_err());
        assert!(FieldType::parse("II").is_err());
    }
}
