//! Class names as a type: one value with both spellings, the internal form the class file
//! uses (`a/b/Outer$Inner`) and the binary form users and Java source use (`a.b.Outer$Inner`).

use std::fmt;
use std::sync::Arc;

/// A class name. Built from either form; stored in the internal form, shared: every call of
/// a test names its owner, and the search copies tests by the hundred thousand.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassName(Arc<str>);

impl ClassName {
    /// From the internal form (`a/b/C`); a binary name (`a.b.C`) is accepted too.
    pub fn from_internal(name: &str) -> ClassName {
        if name.contains('.') {
            ClassName(name.replace('.', "/").into())
        } else {
            ClassName(name.into())
        }
    }

    /// From the binary form (`a.b.C`, nested `a.b.C$D`); an internal name is accepted too.
    pub fn from_binary(name: &str) -> ClassName {
        ClassName::from_internal(name)
    }

    /// `a/b/C`.
    pub fn internal(&self) -> &str {
        &self.0
    }

    /// `a.b.C`.
    pub fn binary(&self) -> String {
        self.0.replace('/', ".")
    }

    /// The package in internal form (`a/b`; empty for the default package).
    pub fn package(&self) -> &str {
        self.0.rsplit_once('/').map_or("", |(p, _)| p)
    }

    /// The name after the package (`Outer$Inner`).
    pub fn simple(&self) -> &str {
        self.0.rsplit_once('/').map_or(&self.0, |(_, s)| s)
    }

    /// Is this the class `name` (either form)? For comparisons with names the JVM or Rivet's
    /// runtime spell as constants.
    pub fn is(&self, name: &str) -> bool {
        self.0.len() == name.len()
            && self
                .0
                .bytes()
                .zip(name.bytes())
                .all(|(a, b)| a == b || (a == b'/' && b == b'.'))
    }

    /// Is `self` nested (at any depth) in `outer`?
    pub fn is_nested_in(&self, outer: &ClassName) -> bool {
        self.0
            .strip_prefix(outer.internal())
            .is_some_and(|rest| rest.starts_with('$'))
    }
}

impl fmt::Display for ClassName {
    /// The binary form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.binary())
    }
}

/// Written as the binary form (`a.b.C`), the spelling reports and users read.
impl serde::Serialize for ClassName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.binary())
    }
}

/// Read from either form.
impl<'de> serde::Deserialize<'de> for ClassName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(ClassName::from_binary(&name))
    }
}

/// Equal to a spelling of the same class, in either form.
impl PartialEq<str> for ClassName {
    fn eq(&self, other: &str) -> bool {
        self.is(other)
    }
}

impl PartialEq<&str> for ClassName {
    fn eq(&self, other: &&str) -> bool {
        self.is(other)
    }
}

impl From<&str> for ClassName {
    /// Either form.
    fn from(name: &str) -> ClassName {
        ClassName::from_internal(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_name_the_same_class() {
        let a = ClassName::from_binary("a.b.Outer$Inner");
        let b = ClassName::from_internal("a/b/Outer$Inner");
        assert_eq!(a, b);
        assert_eq!(a.internal(), "a/b/Outer$Inner");
        assert_eq!(a.binary(), "a.b.Outer$Inner");
        assert_eq!(a.to_string(), "a.b.Outer$Inner");
        assert_eq!(a.package(), "a/b");
        assert_eq!(a.simple(), "Outer$Inner");
    }

    #[test]
    fn serde_writes_the_binary_form_and_reads_either() {
        let name = ClassName::from_internal("a/b/C$D");
        let json = serde_json::to_string(&name).expect("serializes");
        assert_eq!(json, "\"a.b.C$D\"");
        let back: ClassName = serde_json::from_str("\"a/b/C$D\"").expect("reads internal");
        assert_eq!(back, name);
        let back: ClassName = serde_json::from_str(&json).expect("reads binary");
        assert_eq!(back, name);
    }

    #[test]
    fn is_compares_with_either_form() {
        let c = ClassName::from_binary("java.lang.Error");
        assert!(c.is("java.lang.Error") && c.is("java/lang/Error"));
        assert!(
            !c.is("java.lang.ErrorX") && !c.is("java.lang.Erro") && !c.is("java.lang.Exception")
        );
    }

    #[test]
    fn default_package_and_nesting() {
        let c = ClassName::from_binary("Top");
        assert_eq!((c.package(), c.simple()), ("", "Top"));
        let outer = ClassName::from_binary("p.Outer");
        assert!(ClassName::from_binary("p.Outer$In$Deep").is_nested_in(&outer));
        assert!(!ClassName::from_binary("p.OuterX").is_nested_in(&outer));
        assert!(!outer.is_nested_in(&outer));
    }
}
