//! One exploration pass as a unit of work that can run here or on the solving thread beside
//! the search: what it explores (`Pass`), what it found (`PassOutcome`), and a pass in flight
//! (`Background`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use rivet_clock::ClockStop;
use rivet_pc::PathCondition;
use rivet_search::observed_symbol;
use rivet_solver::SolverJob;
use rivet_symbolic::{ExploreSummary, Explorer, MethodSpec, PathEnd, SearcherKind, SymbolicError};
use rivet_testcase::GoalId;

use crate::artifacts::ExploredPath;

/// A pass ready to run: `method`'s `spec` explored by `explorer` (its bounds and searcher
/// set) within `share`.
pub(super) struct Pass {
    pub method: usize,
    pub searcher: SearcherKind,
    pub depth: u32,
    pub share: Duration,
    pub explorer: Explorer,
    pub spec: MethodSpec,
    /// Branch id of the class under test → its goal.
    pub branch_goals: BTreeMap<u32, GoalId>,
    /// Keep every path's record for the artifacts.
    pub recording: bool,
}

/// What a pass found.
pub(super) struct PassOutcome {
    pub method: usize,
    pub searcher: SearcherKind,
    pub depth: u32,
    pub share: Duration,
    pub spec: MethodSpec,
    pub took: Duration,
    pub total: u64,
    pub precise: u64,
    /// Paths that ended at a bound.
    pub bounded: u64,
    /// The precise, observable, ended paths through some branch, with those branches.
    pub kept: Vec<(Arc<PathCondition>, BTreeSet<GoalId>)>,
    pub records: Vec<ExploredPath>,
    pub result: Result<ExploreSummary, SymbolicError>,
}

impl Pass {
    /// Explores, keeping what selection can use.
    pub fn run(self) -> PassOutcome {
        let started = self.explorer.clock().now();
        let (mut kept, mut records) = (Vec::new(), Vec::new());
        let (mut total, mut precise, mut bounded) = (0u64, 0u64, 0u64);
        let branch_goals = &self.branch_goals;
        let recording = self.recording;
        let result = self.explorer.explore(&self.spec, &mut |path, symbols| {
            total += 1;
            let ended = matches!(path.end, PathEnd::Return | PathEnd::Exception(_));
            if !ended {
                bounded += 1;
            }
            if !path.imprecise {
                precise += 1;
            }
            let branches: BTreeSet<GoalId> = path
                .branches
                .iter()
                .filter_map(|b| branch_goals.get(b).copied())
                .collect();
            let pc = PathCondition::new(path.pc.clone(), symbols);
            let observable = pc.symbols.values().all(|s| observed_symbol(s).is_some());
            if recording {
                records.push(ExploredPath {
                    id: path.id,
                    pc: pc.texts(),
                    branches: branches.iter().map(|g| g.0).collect(),
                    end: path.end_text(),
                    precise: !path.imprecise,
                    observable,
                });
            }
            if ended && !path.imprecise && observable && !branches.is_empty() {
                kept.push((Arc::new(pc), branches));
            }
        });
        PassOutcome {
            method: self.method,
            searcher: self.searcher,
            depth: self.depth,
            share: self.share,
            took: self.explorer.clock().since(started),
            spec: self.spec,
            total,
            precise,
            bounded,
            kept,
            records,
            result,
        }
    }

    /// Starts the pass on the solving thread, its deadlines ended early by the returned
    /// handle's `stop`.
    pub fn start(mut self) -> Background {
        let (clock, stop) = self.explorer.clock().stoppable();
        self.explorer = self.explorer.on_clock(clock);
        Background {
            method: self.method,
            outcome: SolverJob::start(move || self.run()),
            stop,
        }
    }
}

/// A pass running on the solving thread.
pub(super) struct Background {
    /// The method it explores.
    pub method: usize,
    outcome: SolverJob<PassOutcome>,
    stop: ClockStop,
}

impl Background {
    /// Is it still running?
    pub fn running(&self) -> bool {
        self.outcome.running()
    }

    /// Ends it at its next deadline check and waits for its outcome (None when the pass
    /// panicked).
    pub fn finish(self) -> Option<PassOutcome> {
        self.stop.stop();
        self.outcome.wait()
    }
}

impl Drop for Background {
    /// A pass nobody waits for any more ends at its next deadline check.
    fn drop(&mut self) {
        self.stop.stop();
    }
}
