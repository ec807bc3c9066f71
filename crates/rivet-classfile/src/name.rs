//! Class names as a type: one value with both spellings, the internal form the class file
//! uses (`a/b/Outer$Inner`) and the binary form users and Java source use (`a.b.Outer$Inner`).

use std::fmt;

/// A class name. Built from either form; stored in the internal form.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassName(String);

impl ClassName {
    /// From the internal form (`a/b/C`); a binary name (`a.b.C`) is accepted too.
    pub fn from_internal(name: &str) -> ClassName {
        ClassName(name.replace('.', "/"))
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
    fn default_package_and_nesting() {
        let c = ClassName::from_binary("Top");
        assert_eq!((c.package(), c.simple()), ("", "Top"));
        let outer = ClassName::from_binary("p.Outer");
        assert!(ClassName::from_binary("p.Outer$In$Deep").is_nested_in(&outer));
        assert!(!ClassName::from_binary("p.OuterX").is_nested_in(&outer));
        assert!(!outer.is_nested_in(&outer));
    }
}
