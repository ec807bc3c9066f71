//! Classes covered beyond the class under test (`--cover PATTERN`): the patterns, the classes
//! of the user classpath they match, and which of those the class under test can reach at all.
//!
//! A pattern is a class name (the class and its nested classes), a package (its classes, not
//! its subpackages), or a binary name with `*` wildcards, each matching any run of characters
//! (`com.x.Pass*` is `com.x.Pass`, its nested classes and `com.x.PassTwo`).

use std::collections::{BTreeSet, VecDeque};
use std::fmt;

use rivet_classfile::{ClassName, Constant};
use rivet_classpath::Classpath;

use crate::error::PlanError;

/// One `--cover` pattern, as the user wrote it (binary form).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CoverPattern(String);

impl CoverPattern {
    /// A pattern from its text; None for an empty one or one with characters no binary name
    /// has (`/`, `;`, `[`, whitespace).
    pub fn parse(text: &str) -> Option<CoverPattern> {
        let t = text.trim();
        let bad = |c: char| c == '/' || c == ';' || c == '[' || c.is_whitespace();
        (!t.is_empty() && !t.contains(bad)).then(|| CoverPattern(t.to_string()))
    }

    /// The pattern's text.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// Whether the pattern matches the class (binary name `a.b.C$D`): as a glob, or as the
    /// class itself, one nested in it, or one of the package it names.
    fn matches(&self, class: &ClassName) -> bool {
        if self.0.contains('*') {
            return glob(&self.0, &class.binary());
        }
        let own = ClassName::from_binary(&self.0);
        *class == own || class.is_nested_in(&own) || class.package() == own.internal()
    }
}

impl fmt::Display for CoverPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `text` matches `pattern`, where `*` is any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = match parts.split_first() {
        Some(x) => x,
        None => return text.is_empty(),
    };
    let Some(mut left) = text.strip_prefix(first) else {
        return false;
    };
    let Some((last, middle)) = rest.split_last() else {
        return left.is_empty();
    };
    for part in middle {
        match left.find(part) {
            Some(at) => left = &left[at + part.len()..],
            None => return false,
        }
    }
    left.len() >= last.len() && left.ends_with(last)
}

/// A class whose branches are goals because a pattern matched it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoveredClass {
    pub class: ClassName,
    /// Whether the class under test's code refers to it, directly or through the user classes
    /// it refers to (its methods' calls, fields, parameter types); when not, no test of the
    /// class under test can run its code.
    pub reachable: bool,
}

/// The user classes `patterns` match, in name order, without `class` and its nested classes
/// (their branches are goals anyway); an error names the first pattern that matches no class
/// of the user classpath.
pub fn match_cover(
    classpath: &Classpath,
    class: &ClassName,
    patterns: &[CoverPattern],
) -> Result<Vec<ClassName>, PlanError> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let user = user_classes(classpath, class)?;
    let mut matched = BTreeSet::new();
    for p in patterns {
        let found: Vec<&ClassName> = user.iter().filter(|c| p.matches(c)).collect();
        if found.is_empty() {
            return Err(PlanError::NoCoveredClass {
                pattern: p.text().to_string(),
            });
        }
        matched.extend(found.into_iter().cloned());
    }
    matched.retain(|c| c != class && !c.is_nested_in(class));
    Ok(matched.into_iter().collect())
}

/// [`match_cover`]'s classes, each with whether the class under test can reach it.
pub fn resolve_cover(
    classpath: &Classpath,
    class: &ClassName,
    patterns: &[CoverPattern],
) -> Result<Vec<CoveredClass>, PlanError> {
    let matched = match_cover(classpath, class, patterns)?;
    if matched.is_empty() {
        return Ok(Vec::new());
    }
    let user = user_classes(classpath, class)?;
    let wanted: BTreeSet<ClassName> = matched.iter().cloned().collect();
    let reached = reached_from(classpath, class, &user, &wanted);
    Ok(matched
        .into_iter()
        .map(|c| CoveredClass {
            reachable: reached.contains(&c),
            class: c,
        })
        .collect())
}

/// The classes of the user classpath (not `module-info` or `package-info`).
fn user_classes(classpath: &Classpath, class: &ClassName) -> Result<Vec<ClassName>, PlanError> {
    let names = classpath
        .user_classes()
        .map_err(|source| PlanError::Classpath {
            class: class.clone(),
            source: Box::new(source),
        })?;
    Ok(names
        .iter()
        .map(|n| ClassName::from_internal(n))
        .filter(|c| c.simple() != "module-info" && c.simple() != "package-info")
        .collect())
}

/// The user classes among `wanted` that `from` refers to, transitively through the user
/// classes it refers to (every class name in their constant pools, descriptors included).
/// Stops once every wanted class is found.
fn reached_from(
    classpath: &Classpath,
    from: &ClassName,
    user: &[ClassName],
    wanted: &BTreeSet<ClassName>,
) -> BTreeSet<ClassName> {
    let user: BTreeSet<&ClassName> = user.iter().collect();
    let mut seen: BTreeSet<ClassName> = BTreeSet::from([from.clone()]);
    let mut queue = VecDeque::from([from.clone()]);
    let mut found = BTreeSet::new();
    while let Some(c) = queue.pop_front() {
        if found.len() == wanted.len() {
            break;
        }
        let Ok(Some(cf)) = classpath.class_file(c.internal()) else {
            continue;
        };
        for name in referenced_names(&cf.constant_pool.entries().iter().collect::<Vec<_>>()) {
            let next = ClassName::from_internal(&name);
            if user.contains(&next) && seen.insert(next.clone()) {
                if wanted.contains(&next) {
                    found.insert(next.clone());
                }
                queue.push_back(next);
            }
        }
    }
    found
}

/// Every internal class name a constant pool spells: its UTF-8 constants whole (the names of
/// class constants) and each `L…;` inside them (descriptors and signatures).
fn referenced_names(entries: &[&Constant]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in entries {
        let Constant::Utf8(u) = e else { continue };
        let text = u.text.as_str();
        out.insert(text.trim_start_matches('[').to_string());
        for token in text.split(['(', ')', ';', '[', '<', '>', ':', '^', '+', '-', '*']) {
            let token = token.trim_start_matches(['B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z', 'V']);
            if let Some(name) = token.strip_prefix('L').filter(|n| !n.is_empty()) {
                out.insert(name.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_star_matches_any_run_of_characters_nested_classes_included() {
        assert!(glob("a.b.Pass*", "a.b.Pass"));
        assert!(glob("a.b.Pass*", "a.b.Pass$Inner"));
        assert!(glob("a.b.Pass*", "a.b.PassTwo"));
        assert!(!glob("a.b.Pass*", "a.b.Other"));
        assert!(glob("a.*.Pass", "a.x.y.Pass"));
        assert!(!glob("a.*.Pass", "a.x.PassTwo"));
        assert!(glob("*", "anything"));
        assert!(glob("a*b*c", "abc"));
        assert!(!glob("a*b*c", "acb"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn a_name_matches_its_class_with_the_nested_ones_or_its_package_without_subpackages() {
        let p = CoverPattern::parse("a.b.Pass").expect("a valid pattern");
        assert!(p.matches(&ClassName::from_binary("a.b.Pass")));
        assert!(p.matches(&ClassName::from_binary("a.b.Pass$1")));
        assert!(!p.matches(&ClassName::from_binary("a.b.PassTwo")));
        let package = CoverPattern::parse("a.b").expect("a valid pattern");
        assert!(package.matches(&ClassName::from_binary("a.b.Pass")));
        assert!(!package.matches(&ClassName::from_binary("a.b.c.Deeper")));
    }

    #[test]
    fn patterns_with_characters_no_binary_name_has_are_refused() {
        for bad in ["", "  ", "a/b/C", "a.b C", "[La.B;"] {
            assert_eq!(CoverPattern::parse(bad), None, "{bad:?}");
        }
        assert_eq!(
            CoverPattern::parse(" a.b.* ").map(|p| p.text().to_string()),
            Some("a.b.*".to_string())
        );
    }

    #[test]
    fn names_come_from_class_constants_and_from_descriptors() {
        let utf8 = |s: &str| Constant::Utf8(rivet_classfile::Utf8Const::new(s));
        let entries = [
            utf8("a/b/C"),
            utf8("(La/b/Node;I[Lx/Y;)Ljava/lang/String;"),
            utf8("Ljava/util/List<La/b/Tree;>;"),
            utf8("[La/b/Arr;"),
        ];
        let names = referenced_names(&entries.iter().collect::<Vec<_>>());
        for n in [
            "a/b/C",
            "a/b/Node",
            "x/Y",
            "java/lang/String",
            "a/b/Tree",
            "a/b/Arr",
        ] {
            assert!(names.contains(n), "{n} missing from {names:?}");
        }
    }
}
