//! Rivet's symbolic executor (after JBSE): a JVM bytecode interpreter over symbolic states
//! with lazy initialization of input references, path conditions as ordered clauses
//! (numeric over symbolic ints, longs, floats and doubles; null, alias, fresh), bounds (depth, heap scope, paths, steps) and declarative
//! invariants, exploration strategies behind a `Searcher` trait, a trace-guided mode, and a
//! concrete mode that replays a path's inputs.
//!
//! ```no_run
//! use std::sync::Arc;
//! use rivet_classpath::{Classpath, JdkImage};
//! use rivet_symbolic::{ExploreConfig, Explorer, MethodSpec};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let jdk = Arc::new(JdkImage::locate()?);
//! let classpath = Arc::new(Classpath::parse("target/subjects", Some(jdk))?);
//! let explorer = Explorer::new(classpath, ExploreConfig::default());
//! let spec = MethodSpec::parse("lct.Examples.figure1(II)I")?;
//! let summary = explorer.explore(&spec, &mut |path, symbols| {
//!     let pc: Vec<String> = path.pc.iter().map(|c| c.text(symbols)).collect();
//!     eprintln!("{} {:?} {}", path.id, pc, path.end_text());
//! })?;
//! eprintln!("{} paths", summary.paths);
//! # Ok(()) }
//! ```

pub mod concrete;
pub mod config;
pub mod confirm;
pub mod context;
pub mod error;
pub mod explorer;
pub mod heap;
pub mod interp;
pub mod invariant_check;
pub mod invariant_use;
pub mod invariants;
pub mod lazy;
pub mod natives;
pub mod output;
pub mod program;
pub mod searcher;
pub mod state;
pub mod strings;
pub mod strings_symbolic;
#[cfg(test)]
mod test_classes;
pub mod test_replay;
pub mod value;

pub use config::{ExploreConfig, Guidance, SearcherKind, Trace};
pub use confirm::{Confirmation, Replay};
pub use error::SymbolicError;
pub use explorer::{ExploreSummary, Explorer, MethodSpec, PathRecord};
pub use interp::PathEnd;
pub use invariants::{AliasStep, Invariant, Invariants, Scope};
pub use output::{covered_classes, CoveredClassLine, PathLine, SummaryFile};
pub use rivet_pc::{AccessPath, Clause, ClauseKind, PathCondition, SymbolTable};
pub use searcher::{Searcher, StateId, StateMeta};
pub use test_replay::{TestStep, WholeTest, WholeTestSolution};
