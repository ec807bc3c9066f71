//! An array result asserted as an array: the text `Arrays.toString` gave for a one-dimensional
//! primitive array, read back element by element, becomes
//! `assertArrayEquals(new int[] {1, 2}, actual)` (floating point compared exactly, as single
//! values are).

use rivet_testcase::{MemberRef, PrimitiveValue, ValueSummary};

use crate::java::primitive_literal;

/// The `assertArrayEquals` line for an `Arrays.toString` observer of `array` that returned
/// `value`, or None when the observer is another one or its text does not read back.
pub(crate) fn array_equals(
    method: &MemberRef,
    value: &ValueSummary,
    array: &str,
) -> Option<String> {
    if method.owner.internal() != "java/util/Arrays" || method.name != "toString" {
        return None;
    }
    let ValueSummary::String(text) = value else {
        return None;
    };
    let component = method
        .descriptor
        .strip_prefix("([")?
        .strip_suffix(")Ljava/lang/String;")?;
    let (java, elements) = read_elements(component, text)?;
    let items: Vec<String> = elements.into_iter().map(primitive_literal).collect();
    let expected = if items.is_empty() {
        format!("new {java}[0]")
    } else {
        format!("new {java}[] {{{}}}", items.join(", "))
    };
    let delta = match component {
        "F" => ", 0.0F",
        "D" => ", 0.0",
        _ => "",
    };
    Some(format!("assertArrayEquals({expected}, {array}{delta});"))
}

/// The Java name of a primitive component and the elements `Arrays.toString`'s text lists.
fn read_elements(component: &str, text: &str) -> Option<(&'static str, Vec<PrimitiveValue>)> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    if component == "C" {
        return Some(("char", read_chars(inner)?));
    }
    let parts: Vec<&str> = if inner.is_empty() {
        Vec::new()
    } else {
        inner.split(", ").collect()
    };
    let read = |f: fn(&str) -> Option<PrimitiveValue>| parts.iter().map(|p| f(p)).collect();
    let (java, values): (&str, Option<Vec<PrimitiveValue>>) = match component {
        "Z" => (
            "boolean",
            read(|p| p.parse().ok().map(PrimitiveValue::Boolean)),
        ),
        "B" => ("byte", read(|p| p.parse().ok().map(PrimitiveValue::Byte))),
        "S" => ("short", read(|p| p.parse().ok().map(PrimitiveValue::Short))),
        "I" => ("int", read(|p| p.parse().ok().map(PrimitiveValue::Int))),
        "J" => ("long", read(|p| p.parse().ok().map(PrimitiveValue::Long))),
        "F" => ("float", read(|p| java_float(p).map(PrimitiveValue::Float))),
        "D" => (
            "double",
            read(|p| java_float(p).map(PrimitiveValue::Double)),
        ),
        _ => return None,
    };
    Some((java, values?))
}

/// A float or double as `Float.toString`/`Double.toString` print it (`1.0E-5`, `NaN`,
/// `-Infinity`).
fn java_float<T: std::str::FromStr>(p: &str) -> Option<T> {
    let plain = p.strip_prefix('-').unwrap_or(p);
    let known = plain == "NaN"
        || plain == "Infinity"
        || plain
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'E' | '-'));
    known.then(|| p.parse().ok()).flatten()
}

/// The chars of `[a, b, c]`'s inside: one UTF-16 unit every three places, so that a comma or
/// a space among the elements reads back unambiguously.
fn read_chars(inner: &str) -> Option<Vec<PrimitiveValue>> {
    let units: Vec<u16> = inner.encode_utf16().collect();
    if units.is_empty() {
        return Some(Vec::new());
    }
    if units.len() % 3 != 1 {
        return None;
    }
    let mut out = Vec::new();
    for (i, chunk) in units.chunks(3).enumerate() {
        out.push(PrimitiveValue::Char(chunk[0]));
        let last = i == units.len() / 3;
        if !last && chunk[1..] != [u16::from(b','), u16::from(b' ')] {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_testcase::ClassName;

    fn to_string(descriptor: &str) -> MemberRef {
        MemberRef {
            owner: ClassName::from_internal("java/util/Arrays"),
            name: "toString".into(),
            descriptor: descriptor.into(),
        }
    }

    fn line(descriptor: &str, text: &str) -> Option<String> {
        array_equals(
            &to_string(descriptor),
            &ValueSummary::String(text.into()),
            "a",
        )
    }

    #[test]
    fn primitive_arrays_read_back_as_literals() {
        assert_eq!(
            line("([I)Ljava/lang/String;", "[1, -2147483648]").as_deref(),
            Some("assertArrayEquals(new int[] {1, -2147483648}, a);")
        );
        assert_eq!(
            line("([J)Ljava/lang/String;", "[]").as_deref(),
            Some("assertArrayEquals(new long[0], a);")
        );
        assert_eq!(
            line("([B)Ljava/lang/String;", "[-1, 7]").as_deref(),
            Some("assertArrayEquals(new byte[] {(byte) -1, (byte) 7}, a);")
        );
        assert_eq!(
            line("([Z)Ljava/lang/String;", "[true, false]").as_deref(),
            Some("assertArrayEquals(new boolean[] {true, false}, a);")
        );
    }

    #[test]
    fn floating_point_is_compared_exactly_with_special_values() {
        let l = line("([D)Ljava/lang/String;", "[1.0E-5, NaN, -Infinity]").unwrap();
        assert!(l.starts_with("assertArrayEquals(new double[] {"), "{l}");
        assert!(l.ends_with(", a, 0.0);"), "{l}");
        assert!(l.contains("NaN") && l.contains("NEGATIVE_INFINITY"), "{l}");
        let f = line("([F)Ljava/lang/String;", "[0.5]").unwrap();
        assert!(f.ends_with(", a, 0.0F);"), "{f}");
    }

    #[test]
    fn chars_read_back_by_position_even_commas_and_spaces() {
        assert_eq!(
            line("([C)Ljava/lang/String;", "[,, a,  ]").as_deref(),
            Some("assertArrayEquals(new char[] {',', 'a', ' '}, a);")
        );
        assert_eq!(line("([C)Ljava/lang/String;", "[ab]"), None);
    }

    #[test]
    fn other_observers_and_unreadable_text_stay_text() {
        assert_eq!(line("([Ljava/lang/Object;)Ljava/lang/String;", "[a]"), None);
        assert_eq!(line("([I)Ljava/lang/String;", "[1, x]"), None);
        assert_eq!(line("([D)Ljava/lang/String;", "[0x1p3]"), None);
    }
}
