//! Declarative invariants that restrict lazy initialization, read from a small line-based
//! file (none unless given):
//!
//! ```text
//! # a field is never null
//! not-null  java.util.LinkedList$Node.item
//! # a field only aliases the object reached by PATH from its owner: steps separated by '.',
//! # each `this` (the owner itself), `^` (the object whose field holds the owner on its
//! # access path) or a field name
//! alias-only java.util.LinkedList$Node.prev ^
//! # a class (as a field's or parameter's static type) expands only to the listed classes
//! expand-only java.util.List java.util.ArrayList java.util.LinkedList
//! ```
//!
//! Class names are binary names (`a.b.Outer$Inner`); they are kept as internal names.

use rivet_classfile::ClassName;
use std::collections::HashMap;

use crate::error::SymbolicError;

/// A step of an alias path, from the owner of the field being resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AliasStep {
    /// The owner itself.
    This,
    /// The object whose field led to the current object on its access path.
    Up,
    Field(String),
}

/// The invariants of one run, keyed by internal class name and field name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invariants {
    pub not_null: HashMap<(String, String), ()>,
    pub alias_only: HashMap<(String, String), Vec<AliasStep>>,
    pub expand_only: HashMap<String, Vec<String>>,
}

/// The internal form of a class named in the file (binary names are accepted).
fn internal(class: &str) -> String {
    ClassName::from_binary(class).internal().to_string()
}

fn split_field(text: &str, line: usize) -> Result<(String, String), SymbolicError> {
    let (class, field) = text
        .rsplit_once('.')
        .ok_or_else(|| SymbolicError::Invariants {
            line,
            reason: format!("expected CLASS.FIELD, found {text:?}"),
        })?;
    Ok((internal(class), field.to_string()))
}

impl Invariants {
    pub fn is_empty(&self) -> bool {
        self.not_null.is_empty() && self.alias_only.is_empty() && self.expand_only.is_empty()
    }

    /// Parses the invariants file format (see the module documentation).
    pub fn parse(text: &str) -> Result<Invariants, SymbolicError> {
        let mut inv = Invariants::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let words: Vec<&str> = content.split_whitespace().collect();
            let bad = |reason: String| SymbolicError::Invariants { line, reason };
            match words.as_slice() {
                ["not-null", field] => {
                    inv.not_null.insert(split_field(field, line)?, ());
                }
                ["alias-only", field, path] => {
                    let steps = path
                        .split('.')
                        .map(|s| match s {
                            "this" => Ok(AliasStep::This),
                            "^" => Ok(AliasStep::Up),
                            "" => Err(bad(format!("empty step in path {path:?}"))),
                            f => Ok(AliasStep::Field(f.to_string())),
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    inv.alias_only.insert(split_field(field, line)?, steps);
                }
                ["expand-only", class, subclasses @ ..] if !subclasses.is_empty() => {
                    inv.expand_only.insert(
                        internal(class),
                        subclasses.iter().map(|s| internal(s)).collect(),
                    );
                }
                _ => {
                    return Err(bad(format!(
                        "expected `not-null CLASS.FIELD`, `alias-only CLASS.FIELD PATH` or `expand-only CLASS SUBCLASS...`, found {content:?}"
                    )))
                }
            }
        }
        Ok(inv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_kinds() {
        let inv = Invariants::parse(
            "# list\nnot-null java.util.LinkedList$Node.item\nalias-only a.N.prev ^.next\nexpand-only java.util.List java.util.ArrayList\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(inv
            .not_null
            .contains_key(&("java/util/LinkedList$Node".into(), "item".into())));
        assert_eq!(
            inv.alias_only.get(&("a/N".into(), "prev".into())),
            Some(&vec![AliasStep::Up, AliasStep::Field("next".into())])
        );
        assert_eq!(
            inv.expand_only.get("java/util/List"),
            Some(&vec!["java/util/ArrayList".to_string()])
        );
    }

    #[test]
    fn rejects_unknown_lines_with_their_number() {
        let err = Invariants::parse("\nnever x.y")
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("line 2")));
    }
}
