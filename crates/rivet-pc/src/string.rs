//! Java strings as path-condition values: `JavaString` (UTF-16 code units, as the JVM holds
//! them) and the string operations of terms (`StrOp`) with their exact semantics, the
//! reference the solver's sequence translation is tested against. The operations are total
//! (SMT-LIB's string theory: an index out of range reads as -1 or the empty string); the
//! symbolic executor splits on Java's bounds before it uses them, so inside Java's domain
//! they are Java's.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::eval::Concrete;

/// A Java string: its UTF-16 code units. Serialised as text when it is well-formed UTF-16,
/// else as the list of units.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct JavaString(Arc<[u16]>);

impl JavaString {
    pub fn from_units(units: &[u16]) -> JavaString {
        JavaString(Arc::from(units))
    }

    pub fn units(&self) -> &[u16] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The text, if the units are well-formed UTF-16.
    pub fn to_text(&self) -> Option<String> {
        String::from_utf16(&self.0).ok()
    }

    /// The text, lone surrogates replaced by U+FFFD.
    pub fn to_text_lossy(&self) -> String {
        String::from_utf16_lossy(&self.0)
    }

    /// The string as a Java literal (`"a\n\u00e9"`): printable ASCII as is, the rest escaped.
    pub fn literal(&self) -> String {
        let mut out = String::with_capacity(self.0.len() + 2);
        out.push('"');
        for &u in self.0.iter() {
            match u {
                0x22 => out.push_str("\\\""),
                0x5c => out.push_str("\\\\"),
                0x0a => out.push_str("\\n"),
                0x09 => out.push_str("\\t"),
                0x0d => out.push_str("\\r"),
                0x20..=0x7e => out.push(char::from(u as u8)),
                _ => out.push_str(&format!("\\u{u:04x}")),
            }
        }
        out.push('"');
        out
    }
}

impl From<&str> for JavaString {
    fn from(s: &str) -> JavaString {
        JavaString(s.encode_utf16().collect())
    }
}

impl fmt::Debug for JavaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.literal())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum StringForm {
    Text(String),
    Units(Vec<u16>),
}

impl Serialize for JavaString {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.to_text() {
            Some(t) => StringForm::Text(t),
            None => StringForm::Units(self.0.to_vec()),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for JavaString {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<JavaString, D::Error> {
        Ok(match StringForm::deserialize(deserializer)? {
            StringForm::Text(t) => JavaString::from(t.as_str()),
            StringForm::Units(u) => JavaString::from_units(&u),
        })
    }
}

/// The string operations of terms. Operand and result sorts are given by `StrOp::sorts`;
/// the semantics by `eval_str_op` (below, exact and total).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StrOp {
    /// `s.length()`.
    Length,
    /// `s.charAt(i)` as an `int`; -1 when `i` is out of range.
    CharAt,
    /// `a + b`.
    Concat,
    /// SMT-LIB's `str.substr(s, offset, count)`: the empty string when `offset` is outside
    /// `[0, len)` or `count <= 0`, else up to `count` units from `offset` (Java's
    /// `s.substring(b, e)` is `substr(s, b, e - b)` within its bounds).
    Substr,
    /// SMT-LIB's `str.indexof(s, t, from)`: -1 when `from` is outside `[0, len]`, else the
    /// first position at or after `from` where `t` occurs (`from` itself for an empty `t`),
    /// or -1.
    IndexOf,
    Contains,
    /// `s.startsWith(t)` (`StartsWith(s, t)`).
    StartsWith,
    EndsWith,
    /// `Integer.toString(i)` / `Long.toString(l)` of an `int` or `long` operand.
    FromInt,
    /// The value (a `long`) of a non-empty string of ASCII digits up to `Long.MAX_VALUE`;
    /// -1 for any other string. Java's `Integer.parseInt` is built from it.
    ParseDigits,
    /// The one-unit string of a char code in `[0, 0xFFFF]`; empty otherwise.
    FromChar,
    /// ASCII case mapping (`A`–`Z` to `a`–`z`); other units unchanged.
    ToLowerAscii,
    /// ASCII case mapping (`a`–`z` to `A`–`Z`); other units unchanged.
    ToUpperAscii,
}

/// Which sort a string operation takes or makes (operands checked by `Term::string_op`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrArg {
    Str,
    Int,
    /// An `int` or a `long`.
    Integral,
}

impl StrOp {
    /// The operand sorts.
    pub fn operands(self) -> &'static [StrArg] {
        use StrArg::*;
        match self {
            StrOp::Length | StrOp::ParseDigits | StrOp::ToLowerAscii | StrOp::ToUpperAscii => {
                &[Str]
            }
            StrOp::CharAt => &[Str, Int],
            StrOp::Concat | StrOp::Contains | StrOp::StartsWith | StrOp::EndsWith => &[Str, Str],
            StrOp::Substr => &[Str, Int, Int],
            StrOp::IndexOf => &[Str, Str, Int],
            StrOp::FromInt => &[Integral],
            StrOp::FromChar => &[Int],
        }
    }

    /// The result sort.
    pub fn result(self) -> crate::term::Sort {
        use crate::term::Sort;
        match self {
            StrOp::Length | StrOp::CharAt | StrOp::IndexOf => Sort::Int,
            StrOp::ParseDigits => Sort::Long,
            StrOp::Contains | StrOp::StartsWith | StrOp::EndsWith => Sort::Bool,
            StrOp::Concat
            | StrOp::Substr
            | StrOp::FromInt
            | StrOp::FromChar
            | StrOp::ToLowerAscii
            | StrOp::ToUpperAscii => Sort::Str,
        }
    }

    /// The name it is displayed with (a Java method where there is one).
    pub fn name(self) -> &'static str {
        match self {
            StrOp::Length => "length",
            StrOp::CharAt => "charAt",
            StrOp::Concat => "concat",
            StrOp::Substr => "substr",
            StrOp::IndexOf => "indexOf",
            StrOp::Contains => "contains",
            StrOp::StartsWith => "startsWith",
            StrOp::EndsWith => "endsWith",
            StrOp::FromInt => "String.valueOf",
            StrOp::ParseDigits => "parseDigits",
            StrOp::FromChar => "String.valueOf",
            StrOp::ToLowerAscii => "toLowerCase",
            StrOp::ToUpperAscii => "toUpperCase",
        }
    }
}

fn find(s: &[u16], t: &[u16], from: usize) -> Option<usize> {
    if t.is_empty() {
        return (from <= s.len()).then_some(from);
    }
    (from..=s.len().saturating_sub(t.len()))
        .find(|&i| i + t.len() <= s.len() && &s[i..i + t.len()] == t)
}

fn ascii_map(s: &[u16], lower: bool) -> JavaString {
    let units: Vec<u16> = s
        .iter()
        .map(|&u| match (lower, u) {
            (true, 0x41..=0x5a) => u + 32,
            (false, 0x61..=0x7a) => u - 32,
            _ => u,
        })
        .collect();
    JavaString::from_units(&units)
}

/// The digits' value, if `s` is a non-empty string of ASCII digits up to `i64::MAX`.
pub fn parse_digits(s: &[u16]) -> Option<i64> {
    if s.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &u in s {
        if !(0x30..=0x39).contains(&u) {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(u - 0x30))?;
    }
    Some(v)
}

/// A string operation on values of the sorts it takes (`None` for ill-sorted operands).
pub fn eval_str_op(op: StrOp, args: &[Concrete]) -> Option<Concrete> {
    use Concrete as V;
    let len = |s: &JavaString| s.len() as i64;
    let int = |v: i64| V::Int(v as i32);
    Some(match (op, args) {
        (StrOp::Length, [V::Str(s)]) => int(len(s)),
        (StrOp::CharAt, [V::Str(s), V::Int(i)]) => int(usize::try_from(*i)
            .ok()
            .and_then(|i| s.units().get(i))
            .map_or(-1, |u| i64::from(*u))),
        (StrOp::Concat, [V::Str(a), V::Str(b)]) => {
            let mut u = a.units().to_vec();
            u.extend_from_slice(b.units());
            V::Str(JavaString::from_units(&u))
        }
        (StrOp::Substr, [V::Str(s), V::Int(offset), V::Int(count)]) => {
            let (offset, count) = (i64::from(*offset), i64::from(*count));
            if offset < 0 || offset >= len(s) || count <= 0 {
                V::Str(JavaString::default())
            } else {
                let end = (offset + count).min(len(s)) as usize;
                V::Str(JavaString::from_units(&s.units()[offset as usize..end]))
            }
        }
        (StrOp::IndexOf, [V::Str(s), V::Str(t), V::Int(from)]) => {
            let from = i64::from(*from);
            if from < 0 || from > len(s) {
                int(-1)
            } else {
                int(find(s.units(), t.units(), from as usize).map_or(-1, |p| p as i64))
            }
        }
        (StrOp::Contains, [V::Str(s), V::Str(t)]) => {
            V::Bool(find(s.units(), t.units(), 0).is_some())
        }
        (StrOp::StartsWith, [V::Str(s), V::Str(t)]) => V::Bool(s.units().starts_with(t.units())),
        (StrOp::EndsWith, [V::Str(s), V::Str(t)]) => V::Bool(s.units().ends_with(t.units())),
        (StrOp::FromInt, [V::Int(i)]) => V::Str(JavaString::from(i.to_string().as_str())),
        (StrOp::FromInt, [V::Long(i)]) => V::Str(JavaString::from(i.to_string().as_str())),
        (StrOp::ParseDigits, [V::Str(s)]) => V::Long(parse_digits(s.units()).unwrap_or(-1)),
        (StrOp::FromChar, [V::Int(c)]) => V::Str(match u16::try_from(*c) {
            Ok(u) => JavaString::from_units(&[u]),
            Err(_) => JavaString::default(),
        }),
        (StrOp::ToLowerAscii, [V::Str(s)]) => V::Str(ascii_map(s.units(), true)),
        (StrOp::ToUpperAscii, [V::Str(s)]) => V::Str(ascii_map(s.units(), false)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Concrete {
        Concrete::Str(JavaString::from(t))
    }

    #[test]
    fn smt_semantics_at_the_edges() {
        let at = |t, i| eval_str_op(StrOp::CharAt, &[s(t), Concrete::Int(i)]);
        assert_eq!(at("ab", 1), Some(Concrete::Int(98)));
        assert_eq!(at("ab", 2), Some(Concrete::Int(-1)));
        assert_eq!(at("ab", -1), Some(Concrete::Int(-1)));
        let sub = |t, o, n| eval_str_op(StrOp::Substr, &[s(t), Concrete::Int(o), Concrete::Int(n)]);
        assert_eq!(sub("hello", 1, 3), Some(s("ell")));
        assert_eq!(sub("hello", 3, 10), Some(s("lo")));
        assert_eq!(sub("hello", 5, 1), Some(s("")));
        assert_eq!(sub("hello", -1, 2), Some(s("")));
        let idx = |t, u, f| eval_str_op(StrOp::IndexOf, &[s(t), s(u), Concrete::Int(f)]);
        assert_eq!(idx("abcabc", "c", 3), Some(Concrete::Int(5)));
        assert_eq!(idx("abc", "", 3), Some(Concrete::Int(3)));
        assert_eq!(idx("abc", "", 4), Some(Concrete::Int(-1)));
        assert_eq!(idx("abc", "a", -1), Some(Concrete::Int(-1)));
        let digits = |t| eval_str_op(StrOp::ParseDigits, &[s(t)]);
        assert_eq!(digits("0042"), Some(Concrete::Long(42)));
        assert_eq!(digits("-1"), Some(Concrete::Long(-1)));
        assert_eq!(digits(""), Some(Concrete::Long(-1)));
        assert_eq!(digits("99999999999999999999"), Some(Concrete::Long(-1)));
        assert_eq!(
            eval_str_op(StrOp::FromInt, &[Concrete::Int(-12)]),
            Some(s("-12"))
        );
        assert_eq!(
            eval_str_op(StrOp::ToUpperAscii, &[s("aZé")]),
            Some(s("AZé"))
        );
    }

    #[test]
    fn strings_serialise_as_text_unless_ill_formed() {
        let ok = JavaString::from("a\"é");
        let text = serde_json::to_string(&ok).unwrap_or_default();
        assert_eq!(text, "\"a\\\"é\"");
        let lone = JavaString::from_units(&[0x61, 0xd800]);
        let units = serde_json::to_string(&lone).unwrap_or_default();
        assert_eq!(units, "[97,55296]");
        assert_eq!(serde_json::from_str::<JavaString>(&units).ok(), Some(lone));
        assert_eq!(ok.literal(), "\"a\\\"\\u00e9\"");
    }
}
