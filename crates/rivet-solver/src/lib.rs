//! Rivet's solver layer over the path-condition language of `rivet-pc`: the `Solver` trait (`Sat(Model)`,
//! `Unsat`, `Unknown` as values), a Z3 backend (bit-vectors, linear integer arithmetic, and
//! IEEE floating point for floats and doubles), and decorators for the fast
//! unsatisfiability check, constraint independence and caching.
//!
//! ```
//! use rivet_pc::{BinaryOp, CmpOp, SymbolId, SymbolSort, Term};
//! use rivet_solver::{default_solver, SolveResult, Solver};
//! # fn main() -> Result<(), rivet_pc::SortError> {
//! let x = Term::var(SymbolId(0), SymbolSort::Int);
//! let clause = Term::compare(CmpOp::Gt, Term::binary(BinaryOp::Add, x, Term::int(5))?, Term::int(2))?;
//! let mut solver = default_solver(std::time::Duration::from_secs(1));
//! assert!(matches!(solver.check(&[clause]), SolveResult::Sat(_)));
//! # Ok(()) }
//! ```

pub mod avm;
mod avm_strings;
mod char_level;
pub mod decorators;
pub mod distance;
pub mod interval;
mod job_thread;
mod ranges;
pub mod search;
pub mod solver;
pub mod solver_thread;
pub mod z3_backend;
pub mod z3_float;
pub mod z3_linear;
pub mod z3_string;
mod z3_thread;

use std::time::Duration;

pub use avm::{avm_search, Avm, AvmConfig};
pub use decorators::{dependent_slice, trivially_unsat, Cache, FastUnsat, Independence};
pub use interval::Intervals;
pub use search::search_model;
pub use solver::{SolveResult, Solver, SolverStats};
pub use solver_thread::{on_solver_thread, SolverJob};
pub use z3_backend::Z3Solver;

/// The usual stack with the default AVM fallback, `timeout` for every query (see
/// `solver_with`).
pub fn default_solver(timeout: Duration) -> DefaultSolver {
    solver_with(timeout, timeout, AvmConfig::default())
}

/// The time limit of Z3 on queries with floats or doubles that exploration uses
/// (`rivet_symbolic::ExploreConfig::fp_timeout`): on `geometry.Conformance.check` Z3 times
/// out on the distance clauses at 100 ms and at 1 s alike, while the AVM fallback solves
/// most of them in milliseconds; a longer limit only slows the exploration down (it loses
/// Z3's slower unsatisfiability proofs: those sides are dropped as unknown).
pub const DEFAULT_FP_TIMEOUT: Duration = Duration::from_millis(50);

/// The usual stack's type.
pub type DefaultSolver = FastUnsat<Independence<Avm<Intervals<Cache<Z3Solver>>>>>;

/// The usual stack: fast unsatisfiability check, then constraint independence, then the
/// alternating variable method on `Unknown` answers (`avm`, configured by `avm`), then the
/// interval procedure, then the cache, then Z3 with `timeout` per check (`fp_timeout` for
/// checks with floats or doubles).
pub fn solver_with(timeout: Duration, fp_timeout: Duration, avm: AvmConfig) -> DefaultSolver {
    FastUnsat::new(Independence::new(Avm::new(
        Intervals::new(Cache::new(
            Z3Solver::new(timeout).with_fp_timeout(fp_timeout),
            1 << 16,
        )),
        avm,
    )))
}
