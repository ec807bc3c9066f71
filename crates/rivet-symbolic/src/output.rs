//! What `rivet explore` writes, as typed records: one `PathLine` per explored path
//! (`paths.jsonl`) and the `SummaryFile` (`summary.json`).

use serde::{Deserialize, Serialize};

use crate::explorer::{ExploreSummary, PathRecord};
use rivet_pc::SymbolTable;

/// One clause of a path condition: its kind (`numeric`, `null`, `alias`, `fresh`) and text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseLine {
    pub kind: String,
    pub text: String,
}

/// One explored path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathLine {
    pub id: u64,
    /// The path condition in order of assumption.
    pub pc: Vec<ClauseLine>,
    /// Branch ids (as `rivet branches` numbers them) the path covers.
    pub branches: Vec<u32>,
    /// `return`, `exception C`, `bound` or `unsupported: WHAT`.
    pub end: String,
    /// Why a bounded path ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The path used results of calls that were not followed: its PC may not describe what
    /// a concrete run does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub imprecise: bool,
}

impl PathLine {
    pub fn new(path: &PathRecord, symbols: &SymbolTable) -> PathLine {
        PathLine {
            id: path.id,
            pc: path
                .pc
                .iter()
                .map(|c| ClauseLine {
                    kind: c.kind().name().to_string(),
                    text: c.text(symbols),
                })
                .collect(),
            branches: path.branches.clone(),
            end: path.end_text(),
            reason: path.bound_reason().map(str::to_string),
            imprecise: path.imprecise,
        }
    }
}

/// A call that was not followed, and how often.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotFollowed {
    pub member: String,
    pub calls: u64,
}

/// The totals of one exploration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryFile {
    pub method: String,
    pub paths: u64,
    /// Paths that used no result of a call not followed.
    pub precise: u64,
    pub pruned: u64,
    pub elapsed_s: f64,
    pub solver_calls: u64,
    pub solver_s: f64,
    pub paths_per_s: f64,
    pub returns: u64,
    pub exceptions: u64,
    pub bounded: u64,
    /// Paths ended by a feature or model the executor lacks.
    pub unsupported: u64,
    pub truncated: bool,
    pub backend_calls: u64,
    pub backend_s: f64,
    pub cache_hits: u64,
    pub fast_unsat: u64,
    pub interval_decided: u64,
    pub model_searches: u64,
    pub unknown: u64,
    pub not_followed: u64,
    /// The members whose calls were not followed, most frequent first.
    pub not_followed_members: Vec<NotFollowed>,
}

impl SummaryFile {
    pub fn new(method: &str, s: &ExploreSummary) -> SummaryFile {
        SummaryFile {
            method: method.to_string(),
            paths: s.paths,
            precise: s.precise,
            pruned: s.pruned,
            elapsed_s: s.elapsed.as_secs_f64(),
            solver_calls: s.solver_calls,
            solver_s: s.solver_time.as_secs_f64(),
            paths_per_s: s.paths_per_s(),
            returns: s.returns,
            exceptions: s.exceptions,
            bounded: s.bounded,
            unsupported: s.unsupported,
            truncated: s.truncated,
            backend_calls: s.backend_calls,
            backend_s: s.backend_time.as_secs_f64(),
            cache_hits: s.cache_hits,
            fast_unsat: s.fast_unsat,
            interval_decided: s.interval_decided,
            model_searches: s.model_searches,
            unknown: s.unknown,
            not_followed: s.not_followed,
            not_followed_members: s
                .not_followed_members
                .iter()
                .map(|(member, calls)| NotFollowed {
                    member: member.clone(),
                    calls: *calls,
                })
                .collect(),
        }
    }
}
