//! SUSHI behind rivet-strategy's `Strategy` (brief §4.1, §4.4): the class's methods explored
//! symbolically with lazily initialized heap inputs, a minimal set of path conditions covering
//! the branches selected (`select`, under a `PcPolicy`: FIFO, set cover, TARDIS, or both),
//! each a fitness goal for the search; TARDIS's alternatives of the tests' own paths; and the
//! likely heap invariants learned from the tests' snapshots (`learn`) that prune exploration.

mod alternatives;
mod artifacts;
mod learn;
mod learned;
mod plugin;
mod policy;
mod select;
mod symbolic;

pub use plugin::{symbolic_report, SushiPlugin};
pub use policy::{PcPolicy, PIPELINE_SLOTS};
pub use select::{select, Candidate, Selection, SelectionMethod};
pub use symbolic::{SymbolicSchedule, SymbolicStats, SymbolicStrategy};
