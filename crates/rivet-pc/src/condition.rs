//! A path condition that stands alone: its clauses in order of assumption with the symbols
//! they mention, so it can be written to an artifact, sent to a worker, or read by a fitness
//! function without the exploration that produced it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::path::{AccessPath, Clause, SymbolInfo, SymbolTable};
use crate::term::SymbolId;

/// Clauses in order of assumption and what each of their symbols stands for. Equality and
/// hashing are structural (a term hashes by its cached hash, so hashing is cheap).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PathCondition {
    pub clauses: Vec<Clause>,
    pub symbols: BTreeMap<SymbolId, SymbolInfo>,
}

impl PathCondition {
    /// The condition of `clauses`, keeping from `table` the symbols they mention.
    pub fn new(clauses: Vec<Clause>, table: &SymbolTable) -> PathCondition {
        let mut symbols = BTreeMap::new();
        for clause in &clauses {
            for s in clause.term().symbols() {
                if let Some(info) = table.info(*s) {
                    symbols.insert(*s, info.clone());
                }
            }
        }
        PathCondition { clauses, symbols }
    }

    /// The access path a symbol stands for.
    pub fn path_of(&self, symbol: SymbolId) -> Option<&AccessPath> {
        self.symbols.get(&symbol).map(|i| &i.path)
    }

    /// The symbol's name: its access path, or `{sN}` for a symbol the condition does not know.
    pub fn name(&self, symbol: SymbolId) -> String {
        match self.path_of(symbol) {
            Some(p) => p.to_string(),
            None => format!("{{s{}}}", symbol.0),
        }
    }

    /// The readable clauses, in order.
    pub fn texts(&self) -> Vec<String> {
        self.clauses
            .iter()
            .map(|c| c.text_with(&|s| self.name(s)))
            .collect()
    }

    /// Every access path the condition mentions (clause paths, alias targets and the paths
    /// of its symbols), each once, in order of first mention.
    pub fn access_paths(&self) -> Vec<AccessPath> {
        let mut out: Vec<AccessPath> = Vec::new();
        let mut add = |p: &AccessPath| {
            if !out.contains(p) {
                out.push(p.clone());
            }
        };
        for clause in &self.clauses {
            match clause {
                Clause::Numeric(_) => {}
                Clause::Null { path, .. } | Clause::Fresh { path, .. } => add(path),
                Clause::Alias { path, target, .. } => {
                    add(path);
                    add(target);
                }
            }
            for s in clause.term().symbols() {
                if let Some(p) = self.path_of(*s) {
                    add(p);
                }
            }
        }
        out
    }

    pub fn len(&self) -> usize {
        self.clauses.len()
    }

    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty()
    }
}
