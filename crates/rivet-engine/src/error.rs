//! What can stop a generation, each error naming the class it concerns; [`EngineError::is_bad_input`]
//! tells the user's mistakes (exit 2) from Rivet's own failures (exit 1).

use std::path::PathBuf;

use rivet_classfile::ClassName;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum EngineError {
    /// The user's input is wrong: a flag, a path, a class that cannot be tested.
    #[error("{0}")]
    BadInput(String),
    /// The API error names the class itself.
    #[error("{source}")]
    Api {
        class: ClassName,
        #[source]
        source: Box<rivet_api::ApiError>,
    },
    #[error("instrumenting the classpath{}: {source}", for_class(class))]
    Instrument {
        /// The first of the classes it was instrumented for (none when it had none).
        class: Option<ClassName>,
        #[source]
        source: Box<rivet_instrument::InstrumentError>,
    },
    #[error("starting the worker JVMs{}: {source}", for_class(class))]
    Worker {
        /// The first of the classes they were started for (none when they had none).
        class: Option<ClassName>,
        #[source]
        source: Box<rivet_worker::WorkerError>,
    },
    #[error("verifying the tests of {class}: {source}")]
    Verify {
        class: ClassName,
        #[source]
        source: Box<rivet_verify::VerifyError>,
    },
    /// The project of a run (its directory, build file, compiled classes).
    #[error(transparent)]
    Project(#[from] rivet_project::ProjectError),
    /// A class's plan (its package listed, its bytecode analysed).
    #[error(transparent)]
    Plan(#[from] rivet_strategy::PlanError),
    /// A bug of Rivet's while generating for a class.
    #[error("class {class}: {reason}")]
    Internal { class: ClassName, reason: String },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// ` for a.b.C`, or nothing.
fn for_class(class: &Option<ClassName>) -> String {
    class
        .as_ref()
        .map(|c| format!(" for {c}"))
        .unwrap_or_default()
}

impl EngineError {
    /// Is this the user's mistake (bad flag, missing or untestable class) rather than Rivet's?
    pub fn is_bad_input(&self) -> bool {
        match self {
            EngineError::BadInput(_) | EngineError::Project(_) => true,
            EngineError::Api { source, .. } => match &**source {
                // A class file that does not parse, or holds another class, is the user's input.
                rivet_api::ApiError::Classpath { source, .. } => matches!(
                    source,
                    rivet_classpath::ClasspathError::BadClass { .. }
                        | rivet_classpath::ClasspathError::WrongName { .. }
                ),
                rivet_api::ApiError::Hierarchy { .. } => false,
                _ => true,
            },
            _ => false,
        }
    }
}
