//! Verification of emitted tests outside Rivet, the way a user will run them: the test class
//! is compiled with `javac` against the user's classpath and JUnit, then run twice by the
//! JUnit console launcher, each time in a fresh JVM in a fresh working directory. A test that
//! does not compile is dropped; a failing assertion is dropped (it was not a stable oracle);
//! a test failing elsewhere, or differently on the two runs, is dropped; until both runs pass.
//!
//! It also runs test suites against mutants ([`MutationRunner`]), the way PIT does.
//!
//! Like `rivet-worker`, this crate runs processes (javac, java); no other Rivet crate does.

mod any_order;
mod archives;
mod junit;
mod mutation;
mod process;
mod runs;
mod triage;
mod verify;

pub use junit::{locate_junit, JUnitSetup, DEBIAN_JAVA};
pub use mutation::{CompiledSuite, MatrixRow, MutantJob, MutantResult, MutationRunner, TestReach};
pub use process::{CompileError, RunReport, TestOutcome};
pub use triage::{triage, Verdict};
pub use verify::{Verified, Verifier, VerifyError};
