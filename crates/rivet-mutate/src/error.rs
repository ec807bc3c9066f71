//! Why a class could not be mutated.

use rivet_classfile::{ClassName, ParseError, WriteError};

/// A class that cannot be read, or a mutant that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    #[error("cannot read the class file{}: {source}", class.as_ref().map(|c| format!(" of {c}")).unwrap_or_default())]
    Parse {
        class: Option<ClassName>,
        #[source]
        source: ParseError,
    },
    #[error("cannot write mutant {mutant} of {class}: {source}")]
    Write {
        class: ClassName,
        mutant: u32,
        #[source]
        source: WriteError,
    },
    #[error("mutant {mutant} of {class} does not fit its class file: {reason}")]
    Mismatch {
        class: ClassName,
        mutant: u32,
        reason: String,
    },
}
