//! What a statement did when a worker ran it: a summary of its value, or the exception it threw.

use crate::ClassName;

/// A summary of a value a statement produced, as the worker observed it.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueSummary {
    /// A void call, a field write.
    Void,
    Boolean(bool),
    Byte(i8),
    Char(u16),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Null,
    String(String),
    /// An object: its identity within the test (objects numbered in order of first sight) and
    /// its runtime class.
    Object {
        identity: u32,
        class: ClassName,
    },
}

/// The outcome of one statement.
#[derive(Debug, Clone, PartialEq)]
pub enum StatementOutcome {
    Normal(ValueSummary),
    /// The statement threw (the throwable's class, and its message).
    Threw {
        class: ClassName,
        message: Option<String>,
    },
    /// An earlier statement threw or the test was stopped before this one.
    NotRun,
}
