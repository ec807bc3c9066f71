//! Rivet's engine: the library that runs a generation, so that every strategy plugs into one
//! driver and the CLI only parses, prints and maps errors to exit codes.
//!
//! * a [`Session`] holds the JDK and the user's classpath, instruments the classes of a run and
//!   starts one pool of worker JVMs that they share;
//! * a [`ClassPlan`] holds one class's API model, its goals and the place of every branch goal;
//! * a [`Strategy`] (`rivet-strategy`) is what finds tests; each technique is a plug-in of its
//!   own crate, and the registry (`strategy_phase::registry`) is the one place that lists them:
//!   the many-objective search ([`SearchStrategy`]), SUSHI (`rivet-sushi`: exploration, path
//!   selection under a [`PcPolicy`], path-condition goals for the search) and LCT's concolic
//!   loop (`rivet-concolic`, its node order a [`NodeOrder`]); [`drive`] gives strategies turns
//!   on the shared goals and one archive within a budget, on a watched thread of their own;
//! * the finish stage ([`finish`]) minimizes, adds assertions, emits and verifies; the run's
//!   `rivet-report.json` is `rivet_report::Report`, filled here;
//! * [`generate`] does all of it for one class from a [`GenerateConfig`];
//!   [`generate_project`] for many classes (a list, a package, a jar; sharded) on one
//!   instrumentation, several classes at a time when cores allow (a worker pool per lane),
//!   with an index report;
//! * [`resolve_run`] settles what a `rivet generate` asks for ([`GenerateRequest`]: a project
//!   or a classpath, the classes, `--out`, `--junit`) into a [`RunPlan`] (where tests and
//!   reports go, the JUnit, how tests expect exceptions, the test classpath, one class or
//!   many), and [`generate_run`] runs it: one path for one class or many.

mod class_report;
mod config;
mod error;
pub mod finish;
mod generate;
mod lanes;
mod mutation;
mod mutation_stage;
mod oracle;
mod project;
mod request;
mod session;
mod strategy_phase;

pub use config::{AccessMode, GenerateConfig, StrategyChoice};
pub use error::EngineError;
pub use generate::{generate, Event, Outcome};
pub use lanes::{default_lanes, lane_count, lane_workers};
pub use mutation::{mutate, MutateConfig};
pub use project::{
    generate_project, ClassSelection, ProjectConfig, ProjectEvent, ProjectOutcome, Shard,
};
pub use request::{
    generate_run, resolve_run, GenerateRequest, ProjectFound, RunOutcome, RunPlan, RunShape,
};
pub use rivet_concolic::NodeOrder;
pub use rivet_junit::{ExpectedExceptions, JUnitVersion};
pub use rivet_project::{BuildTool, ClasspathSource};
pub use rivet_strategy::{
    drive, goal_classes, match_cover, Budget, ClassPlan, CoverPattern, DriveProgress, DriveResult,
    SearchStrategy, StepOutcome, Strategy,
};
pub use rivet_sushi::PcPolicy;
pub use session::{check_static_initializer, Session, Workers};
pub use strategy_phase::{registry, Registry, RegistryEntry};
