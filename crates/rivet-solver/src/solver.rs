//! The `Solver` trait: satisfiability of an ordered list of clauses, with `Unsat` and
//! `Unknown` as values; and the statistics every solver keeps.

use std::time::Duration;

use rivet_pc::Model;
use rivet_pc::Term;

/// The answer of a solver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SolveResult {
    /// Satisfiable, with values for (at least) the symbols of the clauses that were solved.
    Sat(Model),
    Unsat,
    /// The solver gave up (timeout, incompleteness); the reason as the solver gave it.
    Unknown(String),
}

impl SolveResult {
    pub fn is_sat(&self) -> bool {
        matches!(self, SolveResult::Sat(_))
    }

    pub fn is_unsat(&self) -> bool {
        matches!(self, SolveResult::Unsat)
    }
}

/// Counters of a solver stack; each decorator adds its own to its inner solver's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolverStats {
    /// Queries asked of the outermost solver.
    pub queries: u64,
    /// Queries that reached the backend (Z3).
    pub backend_calls: u64,
    /// Time spent in the backend.
    pub backend_time: Duration,
    pub cache_hits: u64,
    /// Queries answered `Unsat` by the fast unsatisfiability check.
    pub fast_unsat: u64,
    /// Clauses left out by constraint independence, summed over queries.
    pub sliced_away: u64,
    /// Queries decided by the interval procedure.
    pub interval_decided: u64,
    /// Backend queries translated to linear integer arithmetic.
    pub linear_calls: u64,
    /// `Unknown` answers the alternating variable method searched a model for (`avm`).
    pub avm_attempts: u64,
    /// Of those, the ones it solved (a model the evaluator confirmed).
    pub avm_successes: u64,
    /// Fitness evaluations of the alternating variable method.
    pub avm_evaluations: u64,
    /// Time in the alternating variable method.
    pub avm_time: Duration,
}

/// Decides the conjunction of `clauses`. The last clause is the newest: decorators use that
/// (constraint independence keeps the clauses sharing symbols with it, the fast check
/// compares it with the earlier ones), so callers that extend a path condition by one clause
/// should put the new clause last.
pub trait Solver {
    fn check(&mut self, clauses: &[Term]) -> SolveResult;

    fn stats(&self) -> SolverStats;
}

impl<S: Solver + ?Sized> Solver for Box<S> {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        (**self).check(clauses)
    }

    fn stats(&self) -> SolverStats {
        (**self).stats()
    }
}
