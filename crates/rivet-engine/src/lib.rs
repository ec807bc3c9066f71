//! Rivet's engine: the library that runs a generation, so that every strategy plugs into one
//! driver and the CLI only parses, prints and maps errors to exit codes.
//!
//! * a [`Session`] holds the JDK and the user's classpath, instruments the classes of a run and
//!   starts one pool of worker JVMs that they share;
//! * a [`ClassPlan`] holds one class's API model, its goals and the place of every branch goal;
//! * [`Strategy`] is what finds tests: the many-objective search ([`SearchStrategy`]) and
//!   SUSHI ([`SymbolicStrategy`]: exploration, path selection under a [`PcPolicy`] (FIFO,
//!   set cover, TARDIS, or both), path-condition goals for the search) and LCT's concolic loop ([`ConcolicStrategy`]: traced runs, an execution tree,
//!   negated outcomes solved into tests or goals, divergences); [`drive`] gives strategies turns on the shared goals and one archive within a
//!   budget;
//! * the finish stage ([`finish`]) minimizes, adds assertions, emits and verifies; the run's
//!   `rivet-report.json` is `rivet_report::Report`, filled here;
//! * [`generate`] does all of it for one class from a [`GenerateConfig`];
//!   [`generate_project`] for many classes (a list, a package, a jar; sharded) on one
//!   instrumentation, several classes at a time when cores allow (a worker pool per lane),
//!   with an index report.

mod alternatives;
mod archive_cursor;
mod artifacts;
mod class_report;
mod concolic;
mod concolic_inputs;
mod concolic_whole;
mod config;
mod error;
mod feasibility;
pub mod finish;
mod generate;
mod lanes;
mod learn;
mod learned;
mod mutation;
mod mutation_stage;
mod oracle;
mod plan;
mod policy;
mod project;
mod select;
mod session;
mod strategy;
mod strategy_phase;
mod symbolic;
mod watch;

pub use concolic::{ConcolicConfig, ConcolicStats, ConcolicStrategy, Divergence, NodeOrder};
pub use config::{AccessMode, GenerateConfig, StrategyChoice};
pub use error::EngineError;
pub use feasibility::Feasibility;
pub use generate::{generate, Event, Outcome};
pub use lanes::{default_lanes, lane_count, lane_workers};
pub use mutation::{mutate, MutateConfig};
pub use plan::{goal_classes, ClassPlan};
pub use policy::{PcPolicy, PIPELINE_SLOTS};
pub use project::{
    generate_project, ClassSelection, ProjectConfig, ProjectEvent, ProjectOutcome, Shard,
};
pub use select::{select, Candidate, Selection, SelectionMethod};
pub use session::{check_static_initializer, Session, Workers};
pub use strategy::{
    drive, Budget, DriveProgress, DriveResult, SearchStrategy, StepOutcome, Strategy,
};
pub use symbolic::{SymbolicSchedule, SymbolicStats, SymbolicStrategy};
