//! Rivet's path-condition language, free of any solver: access paths from the inputs'
//! roots, clauses (numeric, null, alias, fresh) in order of assumption, terms with Java's
//! exact integer semantics and symbolic floats and doubles with Java's IEEE 754 semantics
//! (`fp`, `term_float`), built by folding constructors, models and the evaluator, and a
//! standalone `PathCondition`. Everything serialises with serde, so the search, the worker
//! side of the distance and the artifacts can use it; only `rivet-solver` links Z3.
//!
//! ```
//! use rivet_pc::{CmpOp, BinaryOp, Concrete, Model, SymbolId, SymbolSort, Term};
//! # fn main() -> Result<(), rivet_pc::SortError> {
//! let x = Term::var(SymbolId(0), SymbolSort::Int);
//! let clause = Term::compare(CmpOp::Gt, Term::binary(BinaryOp::Add, x, Term::int(5))?, Term::int(2))?;
//! let mut model = Model::new();
//! model.set(SymbolId(0), i64::from(i32::MAX));
//! assert_eq!(model.eval(&clause), Concrete::Bool(false)); // MAX + 5 wraps
//! # Ok(()) }
//! ```

pub mod condition;
mod display;
pub mod eval;
pub mod fp;
mod ops;
pub mod path;
pub mod string;
pub mod term;
pub mod term_float;
mod term_string;

pub use condition::PathCondition;
pub use eval::{binary_value, unary_value, Concrete, Model};
pub use path::{AccessPath, Clause, ClauseKind, PathNode, Step, SymbolInfo, SymbolTable};
pub use string::{JavaString, StrOp};
pub use term::{
    BinaryOp, CmpOp, Sort, SortError, SymbolId, SymbolSort, Term, TermDisplay, TermKind, UnaryOp,
};
