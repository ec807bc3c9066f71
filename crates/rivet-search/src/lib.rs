//! Rivet's search engine: DynaMOSA-style many-objective search over method sequences.
//!
//! [`Goals`] are what a run tries to cover, each behind the open [`Objective`] interface:
//! branches of the class under test (by global probe id, with their control-dependence
//! parents; fitness = approach level + ν(branch distance), ν(x) = x/(x+1), refined on its
//! plateaus by the progress made in the class's methods called before or after the branch,
//! [`CalleeGuidance`]), its methods, and
//! whatever other strategies add (path conditions); goals can be added and retired during a
//! run. [`Search`] advances one generation per [`Search::step`], evolving a population with the
//! operators of [`operators`] (insert, delete, change, crossover) against the current targets
//! and updating the run's shared [`Archive`] (the shortest covering test per goal); a driver
//! interleaves steps with other strategies and hands in seed tests. Tests run through the
//! `rivet_testcase::Executor` trait (the worker pool, or a fake). Afterwards [`minimize`]
//! shrinks the archived tests and picks a small suite, and [`add_assertions`] observes each
//! test twice to add stable regression assertions.

mod archive;
mod archive_cursor;
mod assertions;
mod callee;
mod carried;
mod discriminate;
mod goal;
mod minimize;
pub mod operators;
mod output_goal;
mod pc_goal;
mod rank;
mod relations;
mod search;
mod weak_goal;

pub use archive::{Archive, MAX_PENDING_SNAPSHOTS};
pub use archive_cursor::ArchiveCursor;
pub use assertions::add_assertions;
pub use callee::{guided_fitness, unconfirmed_fitness, CalleeGuidance, CalleeOutcomes};
pub use carried::{as_checked, screen_carried_state, screen_pass, CarriedScreen};
pub use discriminate::discriminate;
pub use goal::{
    normalize, BranchObjective, Goal, Goals, MethodObjective, Objective, SnapshotSampling, HELD,
    UNCONFIRMED, UNREACHED,
};
pub use minimize::{distinct_tests, minimize, MinimizedTest};
pub use output_goal::{OutputCategory, OutputObjective};
pub use pc_goal::{observed_path, observed_symbol, PathConditionObjective};
pub use rank::{dominates, rank, Scored};
pub use search::{Arena, Progress, Search, SearchConfig, SearchResult};
pub use weak_goal::{equality_probe, BoundaryObjective};
