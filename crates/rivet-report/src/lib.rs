//! Rivet's reports as typed data, read and written with serde: `rivet-report.json` of one
//! class ([`Report`]: what the run did, every branch with its covering test, the mutation
//! score and the strategies' sections), the index of a run over many classes
//! ([`ProjectReport`]), and `rivet report merge` ([`merge_reports`]). The engine fills them,
//! the HTML report and the CLI read them; nothing here runs anything.

mod class;
mod merge;
mod project;

pub use class::{
    seconds, AlternativesReport, BranchRow, ClassCoverage, ClassifierReport, ConcolicReport,
    DroppedTestRow, LearnedInvariantRow, LearnedInvariantsReport, OracleReport, PcAttempt,
    PcOutcome, PcSelectionReport, Report, RunEvents, StrategyFailureRow, SymbolicReport,
    TechniqueRow,
};
pub use merge::{merge_reports, MergeError};
pub use project::{ClassEntry, ClassStatus, ProjectReport};
pub use rivet_mutate::{MutantRow, MutantStatus, MutationScore, Operator};
