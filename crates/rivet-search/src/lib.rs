//! Rivet's search engine: DynaMOSA-style many-objective search over method sequences.
//!
//! [`Goals`] are the branches of the class under test (by global probe id, with their
//! control-dependence parents) and its public methods; a test's fitness for a goal is 0 when
//! covered, else approach level + ν(branch distance) with ν(x) = x/(x+1). [`Search`] evolves a
//! population with the operators of [`operators`] (insert, delete, change, crossover) against
//! the current targets, keeping the shortest covering test per goal in an [`Archive`], within
//! a wall-clock budget and an optional execution cap, every choice drawn from one seeded
//! generator. Tests run through an [`Executor`] (the worker pool, or a fake). Afterwards
//! [`minimize`] shrinks the archived tests and picks a small suite, and [`add_assertions`]
//! observes each test twice to add stable regression assertions.

mod assertions;
mod goal;
mod minimize;
pub mod operators;
mod search;

pub use assertions::{add_assertions, Assertion, GeneratedTest};
pub use goal::{normalize, Goal, GoalId, GoalKind, Goals, UNREACHED};
pub use minimize::{distinct_tests, minimize, MinimizedTest};
pub use search::{Archive, Executor, Progress, Search, SearchConfig, SearchResult};
