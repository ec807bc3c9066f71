//! Rivet's concrete execution: a pool of long-lived JVM workers that run test cases (statement
//! sequences of `rivet-testcase`) by reflection and report each statement's outcome, the branch
//! probes covered, per-probe minimum distances and the duration.
//!
//! The only crate of Rivet that does process I/O. Each worker is a JVM running the harness in
//! `java/rivet/worker` (compiled by build.rs with `javac --release 8`, embedded in the binary and
//! written into the worker's own temporary directory), fed batches over a compact binary protocol
//! on stdin/stdout (see [`protocol`] and `docs/worker-protocol.md`). The safety net lives on the
//! Rust side: a per-test time limit (the JVM is killed and replaced, the test is `TimedOut`), a
//! JVM that dies is replaced and its test reported `WorkerCrashed`, and the rest of the batch
//! always goes on.
//!
//! ```no_run
//! use rivet_worker::{WorkerConfig, WorkerPool};
//! # fn tests() -> Vec<rivet_testcase::TestCase> { Vec::new() }
//! let config = WorkerConfig::with_classpath(["target/instrumented", "target/classes"]);
//! let mut pool = WorkerPool::new(&config)?;
//! for execution in pool.run(&tests()) {
//!     println!("{:?} covered {:?}", execution.status, execution.covered);
//! }
//! # Ok::<(), rivet_worker::WorkerError>(())
//! ```

mod config;
mod error;
mod frames;
mod harness;
mod limit;
mod pool;
pub mod protocol;
mod worker;

pub use config::{default_java, WorkerConfig};
pub use error::{Step, WorkerError};
pub use harness::harness_classes;
pub use limit::{TestLimit, CAPPED_PROBE_BUDGET};
pub use pool::{PoolEvents, WorkerPool};
pub use protocol::{EXIT_REQUESTED_CLASS, UNRUNNABLE_CLASS};
pub use worker::WorkerInfo;
