//! TARDIS's path selection (brief §4.4; seed tardis-dse-ml-search §4): which pending path
//! conditions (PCs) look feasible, learned from the PCs whose search succeeded or failed and
//! from those a solver proved unsatisfiable, and a probabilistic pick that favours them.
//!
//! * [`slice`]: the clauses that share, transitively, a variable or an object with the last
//!   clause (the part of a PC its feasibility turns on);
//! * [`forms`]: each clause's concrete form (its readable text) and abstract form (numbers and
//!   array indices removed);
//! * [`Fingerprint`]: the 64 × 16 multidimensional Bloom filter with 3 hash functions
//!   (abstract clauses set bits of the first row, each concrete clause bits in the columns
//!   under its abstract clause's bits) and the Jaccard similarity `a11 / (a11 + a10 + a01)`;
//! * [`Fingerprinter`]: the same fingerprints for many PCs, each shared clause rendered once;
//! * [`Classifier`]: the training set, growing as a run goes, and KNN with k = 3;
//! * [`Selector`]: the PCs waiting to be tried, bucketed by (label, votes) and picked as the
//!   paper says (50/30/15/5 %, fall-through, a pick proportional to the neighbours' mean
//!   similarity), reclassified when the training set has grown by a threshold.
//!
//! It knows no solver, worker or engine: only `rivet-pc`'s path conditions.

mod feasibility;
pub mod fingerprint;
pub mod fingerprinter;
pub mod forms;
pub mod knn;
pub mod select;
pub mod slice;

pub use feasibility::Feasibility;
pub use fingerprint::{Fingerprint, COLUMNS, HASHES, ROWS};
pub use fingerprinter::Fingerprinter;
pub use forms::{clause_forms, ClauseForms};
pub use knn::{Classifier, ClassifierStats, Label, Prediction, Source, K};
pub use select::{preference, Bucket, Pick, Selector, SelectorConfig, SelectorStats};
pub use slice::{clause_keys, slice, slice_by_keys, Key};
