//! Java spellings: literals with escapes, source names of classes, variable names by type,
//! and the imports a test class needs.

use std::collections::{BTreeMap, BTreeSet};

use rivet_testcase::{JType, PrimitiveValue};

/// A Java string literal.
pub fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        escape_char(c, '"', &mut out);
    }
    out.push('"');
    out
}

fn escape_char(c: char, quote: char, out: &mut String) {
    match c {
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
            out.push_str(&format!("\\u{:04x}", c as u32));
        }
        c if (c as u32) > 0xFFFF => {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{:04x}", unit));
            }
        }
        c => out.push(c),
    }
}

/// An empty array of `component` (a Java type name): `new int[0]`, and for a component that
/// is an array itself the length goes first, `new int[0][]` (`new int[][0]` does not compile).
pub(crate) fn empty_array(component: &str) -> String {
    let base = component.trim_end_matches("[]");
    let dims = (component.len() - base.len()) / 2;
    format!("new {base}[0]{}", "[]".repeat(dims))
}

/// A Java char literal of a UTF-16 unit.
pub fn char_literal(unit: u16) -> String {
    match char::from_u32(unit as u32) {
        Some(c) if !(0xD800..=0xDFFF).contains(&unit) => {
            let mut out = String::from("'");
            escape_char(c, '\'', &mut out);
            out.push('\'');
            out
        }
        _ => format!("'\\u{unit:04x}'"),
    }
}

fn double_literal(v: f64) -> String {
    if v.is_nan() {
        "Double.NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "Double.POSITIVE_INFINITY".into()
        } else {
            "Double.NEGATIVE_INFINITY".into()
        }
    } else {
        let s = format!("{v:?}");
        if s.contains('.') || s.contains('e') || s.contains('E') {
            s
        } else {
            format!("{s}.0")
        }
    }
}

fn float_literal(v: f32) -> String {
    if v.is_nan() {
        "Float.NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "Float.POSITIVE_INFINITY".into()
        } else {
            "Float.NEGATIVE_INFINITY".into()
        }
    } else {
        format!("{v:?}F")
    }
}

/// A literal of exactly the value's type (`5`, `5L`, `(short) 5`, `'a'`, `1.5F`).
pub fn primitive_literal(v: PrimitiveValue) -> String {
    match v {
        PrimitiveValue::Boolean(b) => b.to_string(),
        PrimitiveValue::Byte(x) => format!("(byte) {x}"),
        PrimitiveValue::Short(x) => format!("(short) {x}"),
        PrimitiveValue::Char(x) => char_literal(x),
        PrimitiveValue::Int(x) => x.to_string(),
        PrimitiveValue::Long(x) => format!("{x}L"),
        PrimitiveValue::Float(x) => float_literal(x),
        PrimitiveValue::Double(x) => double_literal(x),
    }
}

/// `a/b/Outer$Inner` → `a.b.Outer.Inner`.
pub fn source_name(internal: &str) -> String {
    internal.replace(['/', '$'], ".")
}

/// The top-level class of a class (`a/b/Outer` for `a/b/Outer$Inner`).
pub fn top_level(internal: &str) -> &str {
    internal.split('$').next().unwrap_or(internal)
}

/// The package of a class, as internal name (`a/b`; empty for the unnamed package).
pub fn package_of(internal: &str) -> &str {
    internal.rsplit_once('/').map_or("", |(p, _)| p)
}

fn simple_of(internal: &str) -> &str {
    internal.rsplit_once('/').map_or(internal, |(_, s)| s)
}

/// How classes are written in one test class: imported ones by simple name, others in full.
#[derive(Debug, Clone, Default)]
pub struct Names {
    /// Top-level internal name → how it is written.
    written: BTreeMap<String, String>,
    pub imports: Vec<String>,
}

impl Names {
    /// Decides imports for the top-level classes used from package `package` (internal).
    pub fn new(package: &str, used: &BTreeSet<String>, reserved: &BTreeSet<String>) -> Names {
        let mut names = Names::default();
        let mut taken: BTreeMap<String, String> = BTreeMap::new();
        for r in reserved {
            taken.insert(r.clone(), String::new());
        }
        // Same-package and java.lang classes first: they need no import.
        let mut order: Vec<&String> = used.iter().collect();
        order.sort_by_key(|c| {
            (
                package_of(c) != package && package_of(c) != "java/lang",
                (*c).clone(),
            )
        });
        for c in order {
            let simple = simple_of(c).to_string();
            let free = !taken.contains_key(&simple);
            let implicit = package_of(c) == package || package_of(c) == "java/lang";
            if free {
                taken.insert(simple.clone(), c.clone());
                if !implicit {
                    names.imports.push(source_name(c));
                }
                names.written.insert(c.clone(), simple);
            } else {
                names.written.insert(c.clone(), source_name(c));
            }
        }
        names.imports.sort();
        names
    }

    /// How class `internal` is written (nested classes through their top-level class).
    pub fn class(&self, internal: &str) -> String {
        let top = top_level(internal);
        let base = self
            .written
            .get(top)
            .cloned()
            .unwrap_or_else(|| source_name(top));
        match internal.strip_prefix(top) {
            Some(rest) if !rest.is_empty() => format!("{base}{}", rest.replace('$', ".")),
            _ => base,
        }
    }

    /// How an (erased) type is written.
    pub fn ty(&self, t: &JType) -> String {
        match t {
            JType::Prim(p) => p.java_name().to_string(),
            JType::Class { name, .. } => self.class(name),
            JType::Array(c) => format!("{}[]", self.ty(c)),
            JType::Var { erasure, .. } => self.ty(erasure),
        }
    }
}

/// The top-level classes a type mentions.
pub fn classes_of(t: &JType, out: &mut BTreeSet<String>) {
    match t {
        JType::Class { name, .. } => {
            out.insert(top_level(name).to_string());
        }
        JType::Array(c) => classes_of(c, out),
        JType::Var { erasure, .. } => classes_of(erasure, out),
        JType::Prim(_) => {}
    }
}

/// The base of variable names for a type: `avlTree`, `int`, `stringArray`.
pub fn variable_base(t: &JType) -> String {
    match t {
        JType::Prim(p) => p.java_name().to_string(),
        JType::Class { name, .. } => {
            let simple = name.rsplit(['/', '$']).next().unwrap_or(name);
            lower_camel(simple)
        }
        JType::Array(c) => format!("{}Array", variable_base(c)),
        JType::Var { erasure, .. } => variable_base(erasure),
    }
}

fn lower_camel(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let mut chars = cleaned.chars();
    let mut out = match chars.next() {
        Some(c) if c.is_ascii_digit() => format!("v{c}"),
        Some(c) => c.to_ascii_lowercase().to_string(),
        None => "value".to_string(),
    };
    // Leading capitals run together (`URLParser` → `urlParser`).
    let rest: Vec<char> = chars.collect();
    let mut i = 0;
    while i < rest.len()
        && rest[i].is_ascii_uppercase()
        && rest.get(i + 1).is_none_or(|n| n.is_ascii_uppercase())
    {
        out.push(rest[i].to_ascii_lowercase());
        i += 1;
    }
    out.extend(&rest[i..]);
    out
}

/// A method name made a Java identifier part (`<init>` → `Constructor`).
pub fn method_part(name: &str) -> String {
    match name {
        "<init>" => "Constructor".into(),
        "<clinit>" => "StaticInitializer".into(),
        _ => {
            let cleaned: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
            let mut c = cleaned.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => "Method".into(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_testcase::Prim;

    #[test]
    fn literals_and_names() {
        assert_eq!(
            string_literal("a\"b\\\n\u{1}é"),
            "\"a\\\"b\\\\\\n\\u0001é\""
        );
        assert_eq!(char_literal('\'' as u16), "'\\''");
        assert_eq!(char_literal(0xD800), "'\\ud800'");
        assert_eq!(primitive_literal(PrimitiveValue::Double(1.0)), "1.0");
        assert_eq!(primitive_literal(PrimitiveValue::Double(1e300)), "1e300");
        assert_eq!(
            primitive_literal(PrimitiveValue::Float(f32::NAN)),
            "Float.NaN"
        );
        assert_eq!(
            primitive_literal(PrimitiveValue::Long(i64::MIN)),
            "-9223372036854775808L"
        );
        assert_eq!(
            variable_base(&JType::class("structures/AvlTree")),
            "avlTree"
        );
        assert_eq!(variable_base(&JType::class("a/URLParser")), "urlParser");
        assert_eq!(
            variable_base(&JType::Array(Box::new(JType::Prim(Prim::Int)))),
            "intArray"
        );
        let used: BTreeSet<String> = [
            "java/util/List",
            "a/List",
            "structures/AvlTree",
            "java/lang/String",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let names = Names::new("structures", &used, &BTreeSet::new());
        assert_eq!(names.imports, vec!["a.List".to_string()]);
        assert_eq!(names.class("java/util/List"), "java.util.List");
        assert_eq!(names.class("structures/AvlTree$Node"), "AvlTree.Node");
    }

    #[test]
    fn an_empty_array_of_arrays_puts_its_length_first() {
        assert_eq!(empty_array("int"), "new int[0]");
        assert_eq!(empty_array("int[]"), "new int[0][]");
        assert_eq!(empty_array("String[][]"), "new String[0][][]");
    }
}
