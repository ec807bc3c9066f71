//! What every technique plugs into, below the engine and the techniques' own crates:
//!
//! * [`Strategy`]: a way of finding tests, one unit of work per step on the run's shared goals
//!   and archive (an `Arena`: goals, archive, executor); the search ([`SearchStrategy`]) is one;
//! * [`StrategyPlugin`]: what a technique registers: its name, the properties the driver
//!   needs (whether it retires the branch goals for the search when it runs alone with it) and
//!   `build`, from a [`BuildContext`] (the class's plan, the generator, the classpath, the
//!   strategies' time, the run's shared feasibility classifier) to a boxed strategy; a built
//!   strategy names its own report sections ([`Strategy::report_sections`]);
//! * [`ClassPlan`]: one class's API model, its goals and the place of every branch goal (of the
//!   class, its nested classes, and the classes `--cover` names: [`resolve_cover`]);
//! * [`drive`] gives strategies turns within a [`Budget`]; [`watch`] runs them on a thread of
//!   their own and stops waiting for a turn that does not end.

mod cover;
mod drive;
mod error;
mod plan;
mod plugin;
pub mod schedule;
mod strategy;
pub mod watch;

pub use cover::{match_cover, resolve_cover, CoverPattern, CoveredClass};
pub use drive::{
    drive, overrun_grace, Budget, DriveOptions, DriveProgress, DriveResult, StrategyFailure,
    StrategyValue,
};
pub use error::PlanError;
pub use plan::{goal_classes, ClassPlan};
pub use plugin::{BuildContext, SearchPlugin, StrategyPlugin};
pub use strategy::{SearchStrategy, StepOutcome, Strategy};
