//! Declarative invariants that restrict lazy initialization and add assumed clauses, read from
//! a small line-based file (none unless given), hand-written or learned from real objects
//! (`rivet generate` writes the learned ones in this format; see `docs/invariants.md`):
//!
//! ```text
//! # a field is never null (on every object of its class, or only on the objects reachable
//! # from a root of class R through R's field F: `within R.F`)
//! not-null  java.util.LinkedList$Node.item
//! not-null  a.List$Node.next within a.List.header
//! # a field only aliases the object reached by PATH from its owner: steps separated by '.',
//! # each `this` (the owner itself), `^` (the object whose field holds the owner on its
//! # access path) or a field name
//! alias-only java.util.LinkedList$Node.prev ^
//! # a class (as a field's or parameter's static type) expands only to the listed classes
//! expand-only java.util.List java.util.ArrayList java.util.LinkedList
//! # a back pointer: for o of class C with o.next non-null, o.next.prev == o
//! inverse a.List$Node.next prev within a.List.header
//! # the object a field refers to is referred to by nothing else (no alias of another input)
//! unshared a.Tree$Node.left
//! # an int field's bounds (either side may be left open)
//! range a.Tree$Node.height 1..
//! # a count field: C.size equals the number of distinct objects reached from C's field
//! # `header` through `next` fields (the owner not counted), plus the offset
//! count a.List.size header next* -1
//! count a.Tree.size root (left|right)* +0
//! ```
//!
//! Class names are binary names (`a.b.Outer$Inner`); they are kept as internal names. The
//! text an `Invariants` writes (`to_text`) parses back to the same invariants.

use rivet_classfile::ClassName;
use std::collections::HashMap;
use std::fmt;

use crate::error::SymbolicError;

/// A step of an alias path, from the owner of the field being resolved.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AliasStep {
    /// The owner itself.
    This,
    /// The object whose field led to the current object on its access path.
    Up,
    Field(String),
}

/// The objects an invariant speaks of.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Every object of the invariant's class.
    All,
    /// The objects (other than the root) reachable from a root object of class `root`
    /// (internal name) through its field `field`; in the executor, the input objects whose
    /// access path starts at a root of that class with that field.
    Within { root: ClassName, field: String },
}

/// One invariant, a line of the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Invariant {
    NotNull {
        class: ClassName,
        field: String,
        scope: Scope,
    },
    AliasOnly {
        class: ClassName,
        field: String,
        path: Vec<AliasStep>,
    },
    ExpandOnly {
        class: ClassName,
        subclasses: Vec<ClassName>,
    },
    /// For an object `o` of `class` in scope with `o.field` non-null: `o.field.back == o`.
    Inverse {
        class: ClassName,
        field: String,
        back: String,
        scope: Scope,
    },
    /// The object `o.field` refers to is referred to by no other field and is no root: lazy
    /// initialization never makes it an alias of an earlier input.
    Unshared {
        class: ClassName,
        field: String,
        scope: Scope,
    },
    /// `min <= o.field <= max` for an int-like field.
    Range {
        class: ClassName,
        field: String,
        min: Option<i64>,
        max: Option<i64>,
    },
    /// `o.field` equals the number of distinct objects reached from `o.start` through the
    /// fields `steps` (`o` itself not counted) plus `offset`.
    Count {
        class: ClassName,
        field: String,
        start: String,
        steps: Vec<String>,
        offset: i64,
    },
}

/// A class as the file names it.
fn binary(class: &ClassName) -> String {
    class.binary()
}

/// A class named in the file (binary names; internal ones are accepted).
fn internal(class: &str) -> ClassName {
    ClassName::from_binary(class)
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::All => Ok(()),
            Scope::Within { root, field } => write!(f, " within {}.{field}", binary(root)),
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invariant::NotNull {
                class,
                field,
                scope,
            } => write!(f, "not-null {}.{field}{scope}", binary(class)),
            Invariant::AliasOnly { class, field, path } => {
                let steps: Vec<&str> = path
                    .iter()
                    .map(|s| match s {
                        AliasStep::This => "this",
                        AliasStep::Up => "^",
                        AliasStep::Field(name) => name,
                    })
                    .collect();
                write!(
                    f,
                    "alias-only {}.{field} {}",
                    binary(class),
                    steps.join(".")
                )
            }
            Invariant::ExpandOnly { class, subclasses } => {
                write!(f, "expand-only {}", binary(class))?;
                for s in subclasses {
                    write!(f, " {}", binary(s))?;
                }
                Ok(())
            }
            Invariant::Inverse {
                class,
                field,
                back,
                scope,
            } => write!(f, "inverse {}.{field} {back}{scope}", binary(class)),
            Invariant::Unshared {
                class,
                field,
                scope,
            } => write!(f, "unshared {}.{field}{scope}", binary(class)),
            Invariant::Range {
                class,
                field,
                min,
                max,
            } => {
                let side = |v: &Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
                write!(
                    f,
                    "range {}.{field} {}..{}",
                    binary(class),
                    side(min),
                    side(max)
                )
            }
            Invariant::Count {
                class,
                field,
                start,
                steps,
                offset,
            } => {
                let steps = if steps.len() == 1 {
                    format!("{}*", steps[0])
                } else {
                    format!("({})*", steps.join("|"))
                };
                write!(
                    f,
                    "count {}.{field} {start} {steps} {offset:+}",
                    binary(class)
                )
            }
        }
    }
}

fn split_field(text: &str) -> Result<(ClassName, String), String> {
    let (class, field) = text
        .rsplit_once('.')
        .ok_or_else(|| format!("expected CLASS.FIELD, found {text:?}"))?;
    if class.is_empty() || field.is_empty() {
        return Err(format!("expected CLASS.FIELD, found {text:?}"));
    }
    Ok((internal(class), field.to_string()))
}

/// `within R.F` at the end of a line, or nothing.
fn scope(words: &[&str]) -> Result<Scope, String> {
    match words {
        [] => Ok(Scope::All),
        ["within", root_field] => {
            let (root, field) = split_field(root_field)?;
            Ok(Scope::Within { root, field })
        }
        other => Err(format!(
            "expected `within CLASS.FIELD`, found {:?}",
            other.join(" ")
        )),
    }
}

fn bound(text: &str) -> Result<Option<i64>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|_| format!("expected a number, found {text:?}"))
}

/// `f*` or `(f|g)*`.
fn steps(text: &str) -> Result<Vec<String>, String> {
    let bad = || format!("expected FIELD* or (FIELD|FIELD...)*, found {text:?}");
    let inner = text.strip_suffix('*').ok_or_else(bad)?;
    let inner = match inner.strip_prefix('(') {
        Some(rest) => rest.strip_suffix(')').ok_or_else(bad)?,
        None => inner,
    };
    let fields: Vec<String> = inner.split('|').map(str::to_string).collect();
    if fields.iter().any(|f| f.is_empty()) {
        return Err(bad());
    }
    Ok(fields)
}

const KINDS: &str =
    "`not-null`, `alias-only`, `expand-only`, `inverse`, `unshared`, `range` or `count`";

impl Invariant {
    /// Parses one line of the file (without its comment); the error is the reason.
    pub fn parse(content: &str) -> Result<Invariant, String> {
        let words: Vec<&str> = content.split_whitespace().collect();
        Ok(match words.as_slice() {
            ["not-null", field, rest @ ..] => {
                let (class, field) = split_field(field)?;
                Invariant::NotNull {
                    class,
                    field,
                    scope: scope(rest)?,
                }
            }
            ["alias-only", field, path] => {
                let steps = path
                    .split('.')
                    .map(|s| match s {
                        "this" => Ok(AliasStep::This),
                        "^" => Ok(AliasStep::Up),
                        "" => Err(format!("empty step in path {path:?}")),
                        f => Ok(AliasStep::Field(f.to_string())),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let (class, field) = split_field(field)?;
                Invariant::AliasOnly {
                    class,
                    field,
                    path: steps,
                }
            }
            ["expand-only", class, subclasses @ ..] if !subclasses.is_empty() => {
                Invariant::ExpandOnly {
                    class: internal(class),
                    subclasses: subclasses.iter().map(|s| internal(s)).collect(),
                }
            }
            ["inverse", field, back, rest @ ..] if *back != "within" => {
                let (class, field) = split_field(field)?;
                Invariant::Inverse {
                    class,
                    field,
                    back: back.to_string(),
                    scope: scope(rest)?,
                }
            }
            ["unshared", field, rest @ ..] => {
                let (class, field) = split_field(field)?;
                Invariant::Unshared {
                    class,
                    field,
                    scope: scope(rest)?,
                }
            }
            ["range", field, range] => {
                let (class, field) = split_field(field)?;
                let (lo, hi) = range
                    .split_once("..")
                    .ok_or_else(|| format!("expected MIN..MAX, found {range:?}"))?;
                let (min, max) = (bound(lo)?, bound(hi)?);
                if min.is_none() && max.is_none() {
                    return Err(format!("a range needs a bound, found {range:?}"));
                }
                Invariant::Range {
                    class,
                    field,
                    min,
                    max,
                }
            }
            ["count", field, start, path, offset] => {
                let (class, field) = split_field(field)?;
                Invariant::Count {
                    class,
                    field,
                    start: start.to_string(),
                    steps: steps(path)?,
                    offset: offset.parse().map_err(|_| {
                        format!("expected an offset like +0 or -1, found {offset:?}")
                    })?,
                }
            }
            _ => return Err(format!("expected {KINDS}, found {content:?}")),
        })
    }
}

/// The invariants of one run, in the order given, with indexes for lazy initialization. An
/// invariant's number (its index in `items`) names it in the executor's use counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invariants {
    items: Vec<Invariant>,
    /// (class (internal name), field) → invariants of that field, by number.
    by_field: HashMap<(String, String), Vec<usize>>,
    /// Class (internal name) → its expand-only invariant.
    expand_only: HashMap<String, usize>,
    /// Count invariants by the class (internal name) of their counted field.
    counts: HashMap<String, Vec<usize>>,
}

impl Invariants {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The invariants, in the order given.
    pub fn items(&self) -> &[Invariant] {
        &self.items
    }

    pub fn get(&self, number: usize) -> Option<&Invariant> {
        self.items.get(number)
    }

    /// The invariants given, without repeats.
    pub fn from_items(items: impl IntoIterator<Item = Invariant>) -> Invariants {
        let mut out = Invariants::default();
        for i in items {
            out.push(i);
        }
        out
    }

    /// Adds an invariant (unless it is already there); an expand-only invariant overrides an
    /// earlier one of the same class in lazy initialization. Returns its number.
    pub fn push(&mut self, inv: Invariant) -> usize {
        if let Some(n) = self.items.iter().position(|i| *i == inv) {
            return n;
        }
        let n = self.items.len();
        match &inv {
            Invariant::NotNull { class, field, .. }
            | Invariant::AliasOnly { class, field, .. }
            | Invariant::Inverse { class, field, .. }
            | Invariant::Unshared { class, field, .. }
            | Invariant::Range { class, field, .. } => self
                .by_field
                .entry((class.internal().to_string(), field.clone()))
                .or_default()
                .push(n),
            Invariant::ExpandOnly { class, .. } => {
                self.expand_only.insert(class.internal().to_string(), n);
            }
            Invariant::Count { class, .. } => self
                .counts
                .entry(class.internal().to_string())
                .or_default()
                .push(n),
        }
        self.items.push(inv);
        n
    }

    /// The invariants of a field (declaring class, name), with their numbers.
    pub fn of_field<'a>(
        &'a self,
        class: &str,
        field: &str,
    ) -> impl Iterator<Item = (usize, &'a Invariant)> + 'a {
        self.by_field
            .get(&(class.to_string(), field.to_string()))
            .into_iter()
            .flatten()
            .filter_map(|n| self.items.get(*n).map(|i| (*n, i)))
    }

    /// The classes `class` expands to, if an expand-only invariant lists them.
    pub fn expand_only(&self, class: &str) -> Option<(usize, &[ClassName])> {
        let n = *self.expand_only.get(class)?;
        match self.items.get(n)? {
            Invariant::ExpandOnly { subclasses, .. } => Some((n, subclasses)),
            _ => None,
        }
    }

    /// The count invariants of fields of `class`, with their numbers.
    pub fn counts_of<'a>(&'a self, class: &str) -> impl Iterator<Item = (usize, &'a Invariant)> {
        self.counts
            .get(class)
            .into_iter()
            .flatten()
            .filter_map(|n| self.items.get(*n).map(|i| (*n, i)))
    }

    /// Whether some count invariant counts field `field` of `class`.
    pub fn is_counted(&self, class: &str, field: &str) -> bool {
        self.counts_of(class)
            .any(|(_, i)| matches!(i, Invariant::Count { field: f, .. } if f == field))
    }

    pub fn has_counts(&self) -> bool {
        !self.counts.is_empty()
    }

    /// Parses the invariants file format (see the module documentation).
    pub fn parse(text: &str) -> Result<Invariants, SymbolicError> {
        let mut inv = Invariants::default();
        for (i, raw) in text.lines().enumerate() {
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let item = Invariant::parse(content).map_err(|reason| SymbolicError::Invariants {
                line: i + 1,
                reason,
            })?;
            inv.push(item);
        }
        Ok(inv)
    }

    /// The file text of these invariants, one per line, in order.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for i in &self.items {
            out.push_str(&i.to_string());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
#[path = "invariants_tests.rs"]
mod tests;
