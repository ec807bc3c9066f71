//! Access paths naming input values from the roots (`{this}`, `{arg1}`, ...), the clauses of
//! a path condition (numeric, null, alias, fresh) in order of assumption, and the table of
//! symbols with their names.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::term::{SymbolId, SymbolSort, Term};

#[derive(Debug, PartialEq, Eq, Hash)]
pub enum PathNode {
    /// `{this}`, `{arg1}`, ...; or `{NAME}` for values of calls that were not followed.
    Root(Arc<str>),
    Field(AccessPath, Arc<str>),
    Index(AccessPath, Arc<str>),
    Length(AccessPath),
}

/// The name of an input value: how it is reached from a root. Serialised as its steps from
/// the root, e.g. `[{"root":"this"},{"field":"head"},{"index":"2"},"length"]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AccessPath(pub Arc<PathNode>);

/// One step of an access path as it is serialised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    Root(String),
    Field(String),
    Index(String),
    Length,
}

impl AccessPath {
    /// The steps from the root to this path, the root first.
    pub fn steps(&self) -> Vec<Step> {
        let mut out = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            out.push(match &*p.0 {
                PathNode::Root(name) => Step::Root(name.to_string()),
                PathNode::Field(_, name) => Step::Field(name.to_string()),
                PathNode::Index(_, i) => Step::Index(i.to_string()),
                PathNode::Length(_) => Step::Length,
            });
            at = p.parent();
        }
        out.reverse();
        out
    }

    /// The path these steps spell, if they start with a root and have no other root.
    pub fn from_steps(steps: &[Step]) -> Option<AccessPath> {
        let (Step::Root(root), rest) = steps.split_first()? else {
            return None;
        };
        let mut path = AccessPath::root(root);
        for step in rest {
            path = match step {
                Step::Root(_) => return None,
                Step::Field(f) => path.field(f),
                Step::Index(i) => path.index(i),
                Step::Length => path.length(),
            };
        }
        Some(path)
    }

    /// The root's name (`this`, `arg1`, ...).
    pub fn root_name(&self) -> &str {
        let mut at = self;
        loop {
            match &*at.0 {
                PathNode::Root(name) => return name,
                PathNode::Field(p, _) | PathNode::Index(p, _) | PathNode::Length(p) => at = p,
            }
        }
    }
}

impl Serialize for AccessPath {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.steps().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for AccessPath {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<AccessPath, D::Error> {
        let steps = Vec::<Step>::deserialize(deserializer)?;
        AccessPath::from_steps(&steps)
            .ok_or_else(|| serde::de::Error::custom("an access path starts with its one root"))
    }
}

impl AccessPath {
    pub fn root(name: &str) -> AccessPath {
        AccessPath(Arc::new(PathNode::Root(Arc::from(name))))
    }

    pub fn field(&self, name: &str) -> AccessPath {
        AccessPath(Arc::new(PathNode::Field(self.clone(), Arc::from(name))))
    }

    pub fn index(&self, index: &str) -> AccessPath {
        AccessPath(Arc::new(PathNode::Index(self.clone(), Arc::from(index))))
    }

    pub fn length(&self) -> AccessPath {
        AccessPath(Arc::new(PathNode::Length(self.clone())))
    }

    /// The path this one extends by a field, index or length (None for a root).
    pub fn parent(&self) -> Option<&AccessPath> {
        match &*self.0 {
            PathNode::Root(_) => None,
            PathNode::Field(p, _) | PathNode::Index(p, _) | PathNode::Length(p) => Some(p),
        }
    }

    /// The field name of the last step, if it is a field.
    pub fn last_field(&self) -> Option<&str> {
        match &*self.0 {
            PathNode::Field(_, f) => Some(f),
            _ => None,
        }
    }
}

impl fmt::Display for AccessPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            PathNode::Root(name) => write!(f, "{{{name}}}"),
            PathNode::Field(p, name) => write!(f, "{p}.{name}"),
            PathNode::Index(p, i) => write!(f, "{p}[{i}]"),
            PathNode::Length(p) => write!(f, "{p}.length"),
        }
    }
}

/// The kind of a clause, as `paths.jsonl` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClauseKind {
    Numeric,
    Null,
    Alias,
    Fresh,
}

impl ClauseKind {
    pub fn name(self) -> &'static str {
        match self {
            ClauseKind::Numeric => "numeric",
            ClauseKind::Null => "null",
            ClauseKind::Alias => "alias",
            ClauseKind::Fresh => "fresh",
        }
    }
}

/// One clause of a path condition. `term` is its solver form: numeric clauses as they are;
/// reference clauses over `Ref` symbols (logical addresses: 0 is null, a fresh object has
/// its own positive address).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "ClauseRepr", into = "ClauseRepr")]
pub enum Clause {
    Numeric(Term),
    /// The input reference at `path` is null.
    Null {
        path: AccessPath,
        term: Term,
    },
    /// The input reference at `path` is the object first reached at `target`.
    Alias {
        path: AccessPath,
        target: AccessPath,
        term: Term,
    },
    /// The input reference at `path` is an object of `class` distinct from all earlier ones.
    Fresh {
        path: AccessPath,
        class: Arc<str>,
        term: Term,
    },
}

/// A clause as it is serialised: tagged by its kind, the term under `term`.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ClauseRepr {
    Numeric {
        term: Term,
    },
    Null {
        path: AccessPath,
        term: Term,
    },
    Alias {
        path: AccessPath,
        target: AccessPath,
        term: Term,
    },
    Fresh {
        path: AccessPath,
        class: Arc<str>,
        term: Term,
    },
}

impl From<ClauseRepr> for Clause {
    fn from(r: ClauseRepr) -> Clause {
        match r {
            ClauseRepr::Numeric { term } => Clause::Numeric(term),
            ClauseRepr::Null { path, term } => Clause::Null { path, term },
            ClauseRepr::Alias { path, target, term } => Clause::Alias { path, target, term },
            ClauseRepr::Fresh { path, class, term } => Clause::Fresh { path, class, term },
        }
    }
}

impl From<Clause> for ClauseRepr {
    fn from(c: Clause) -> ClauseRepr {
        match c {
            Clause::Numeric(term) => ClauseRepr::Numeric { term },
            Clause::Null { path, term } => ClauseRepr::Null { path, term },
            Clause::Alias { path, target, term } => ClauseRepr::Alias { path, target, term },
            Clause::Fresh { path, class, term } => ClauseRepr::Fresh { path, class, term },
        }
    }
}

impl Clause {
    pub fn kind(&self) -> ClauseKind {
        match self {
            Clause::Numeric(_) => ClauseKind::Numeric,
            Clause::Null { .. } => ClauseKind::Null,
            Clause::Alias { .. } => ClauseKind::Alias,
            Clause::Fresh { .. } => ClauseKind::Fresh,
        }
    }

    pub fn term(&self) -> &Term {
        match self {
            Clause::Numeric(t) => t,
            Clause::Null { term, .. } | Clause::Alias { term, .. } | Clause::Fresh { term, .. } => {
                term
            }
        }
    }

    /// The readable form, with symbols named by their access paths.
    pub fn text(&self, symbols: &SymbolTable) -> String {
        self.text_with(&|s| symbols.name(s))
    }

    /// The readable form, with symbols named by `name`.
    pub fn text_with(&self, name: &dyn Fn(SymbolId) -> String) -> String {
        match self {
            Clause::Numeric(t) => t.display(name).to_string(),
            Clause::Null { path, .. } => format!("{path} == null"),
            Clause::Alias { path, target, .. } => format!("{path} == {target}"),
            Clause::Fresh { path, class, .. } => {
                format!(
                    "fresh({path}) : {}",
                    rivet_classfile::ClassName::from_internal(class)
                )
            }
        }
    }
}

/// What a symbol stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SymbolInfo {
    pub path: AccessPath,
    pub sort: SymbolSort,
}

/// All symbols of an exploration; ids are unique across states.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct SymbolTable {
    symbols: Vec<SymbolInfo>,
}

impl SymbolTable {
    pub fn fresh(&mut self, path: AccessPath, sort: SymbolSort) -> SymbolId {
        let id = SymbolId(self.symbols.len() as u32);
        self.symbols.push(SymbolInfo { path, sort });
        id
    }

    pub fn info(&self, id: SymbolId) -> Option<&SymbolInfo> {
        self.symbols.get(id.0 as usize)
    }

    pub fn name(&self, id: SymbolId) -> String {
        match self.info(id) {
            Some(i) => i.path.to_string(),
            None => format!("{{s{}}}", id.0),
        }
    }

    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }
}
