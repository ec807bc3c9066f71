//! LCT's concolic strategy and EvoSuite's adaptive DSE step (brief §4.2), as a plug-in: tests
//! run with branch traces, an execution tree of the outcomes seen, unvisited outcomes solved
//! into new tests or path-condition goals, and the search's requests explored.

mod inputs;
mod node;
mod patience;
mod plugin;
mod slots;
mod strategy;
mod whole;

pub use plugin::{concolic_report, ConcolicPlugin};
pub use strategy::{ConcolicConfig, ConcolicStats, ConcolicStrategy, Divergence, NodeOrder};
