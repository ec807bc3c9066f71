//! What `rivet explore` writes, as typed records: one `PathLine` per explored path
//! (`paths.jsonl`) and the `SummaryFile` (`summary.json`).

use serde::{Deserialize, Serialize};

use std::sync::Arc;

use crate::confirm::Confirmation;
use crate::explorer::{ExploreSummary, PathRecord};
use crate::program::split_covered_branch;
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
    /// The path condition has clauses over floats or doubles.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fp: bool,
    /// The model of the whole path condition that was replayed, readable
    /// (`{arg4} = 0.5`); empty when not confirmed or no model was found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model: Vec<String>,
    /// `confirmed`, `diverged` or `unsolved` (see `confirm::Replay`); absent when the path
    /// was not replayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<String>,
    /// Branches of the classes `--cover` named the path covers, as `a.b.C#id` (`rivet
    /// branches` numbering of that class).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covered_branches: Vec<String>,
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
            branches: path
                .branches
                .iter()
                .copied()
                .filter(|id| split_covered_branch(*id).is_none())
                .collect(),
            end: path.end_text(),
            reason: path.bound_reason().map(str::to_string),
            imprecise: path.imprecise,
            fp: path.pc.iter().any(crate::confirm::is_fp_clause),
            model: Vec::new(),
            replay: None,
            covered_branches: Vec::new(),
        }
    }

    /// The line with the branches of the `covered` classes (internal names, in the order of
    /// `ExploreConfig::cover`) the path covers.
    pub fn covering(mut self, path: &PathRecord, covered: &[Arc<str>]) -> PathLine {
        self.covered_branches = path
            .branches
            .iter()
            .filter_map(|id| split_covered_branch(*id))
            .filter_map(|(k, b)| {
                covered
                    .get(k)
                    .map(|c| format!("{}#{b}", c.replace('/', ".")))
            })
            .collect();
        self
    }

    /// The line with what concrete replay said of the path.
    pub fn with_confirmation(mut self, c: &Confirmation) -> PathLine {
        self.fp = c.fp;
        self.model = c.values.clone();
        self.replay = Some(c.replay.as_str().to_string());
        self
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
    /// States not kept because the frontier was full (four per path of `--max-paths`, at
    /// least 10,000).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub frontier_cut: u64,
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
    /// Z3's `Unknown` answers the alternating variable method searched a model for, and
    /// those it solved.
    #[serde(default)]
    pub avm_attempts: u64,
    #[serde(default)]
    pub avm_successes: u64,
    #[serde(default)]
    pub avm_s: f64,
    /// Paths whose path condition has floating-point clauses.
    #[serde(default)]
    pub fp_paths: u64,
    /// Paths whose whole path condition was solved for replay, and those whose replay
    /// followed the same branches (`confirmed`); all paths, then the floating-point ones.
    #[serde(default)]
    pub solved: u64,
    #[serde(default)]
    pub confirmed: u64,
    #[serde(default)]
    pub fp_solved: u64,
    #[serde(default)]
    pub fp_confirmed: u64,
    /// Invariants that removed a lazy-initialization choice or added a clause, with how many
    /// times (absent: none given or none used).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants_used: Vec<InvariantUse>,
    /// Per class `--cover` named: its branches, and how many of them some path covered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covered_classes: Vec<CoveredClassLine>,
}

/// The branches of a covered class over all the paths of an exploration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoveredClassLine {
    pub class: String,
    pub branches: usize,
    pub reached: usize,
}

/// Per covered class (internal names, in the order of `ExploreConfig::cover`): its branch
/// count (as JaCoCo counts them) and how many of the recorded ids `reached` are its.
pub fn covered_classes(
    classpath: &rivet_classpath::Classpath,
    covered: &[Arc<str>],
    reached: &std::collections::BTreeSet<u32>,
) -> Vec<CoveredClassLine> {
    covered
        .iter()
        .enumerate()
        .map(|(k, class)| CoveredClassLine {
            class: class.replace('/', "."),
            branches: classpath
                .class_file(class)
                .ok()
                .flatten()
                .and_then(|cf| rivet_analysis::analyze_class(&cf).ok())
                .map_or(0, |a| a.branches().count()),
            reached: reached
                .iter()
                .filter(|id| split_covered_branch(**id).is_some_and(|(j, _)| j == k))
                .count(),
        })
        .collect()
}

/// An invariant as the file spells it and how many times the exploration used it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvariantUse {
    pub invariant: String,
    pub uses: u64,
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
            frontier_cut: s.frontier_cut,
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
            avm_attempts: s.avm_attempts,
            avm_successes: s.avm_successes,
            avm_s: s.avm_time.as_secs_f64(),
            fp_paths: s.fp_paths,
            solved: s.solved,
            confirmed: s.confirmed,
            fp_solved: s.fp_solved,
            fp_confirmed: s.fp_confirmed,
            invariants_used: s
                .invariant_uses
                .iter()
                .map(|(invariant, uses)| InvariantUse {
                    invariant: invariant.clone(),
                    uses: *uses,
                })
                .collect(),
            covered_classes: Vec::new(),
        }
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
