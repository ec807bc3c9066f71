//! Errors of the instrumenter; every one names the class (and the method, where there is one)
//! or the file concerned.

use rivet_classfile::ClassName;
use std::path::PathBuf;

use rivet_analysis::AnalysisError;
use rivet_classfile::{ParseError, WriteError};
use rivet_classpath::ClasspathError;
use thiserror::Error;

/// Why a class, a classpath or a probe map could not be instrumented, written or read.
#[derive(Debug, Error)]
pub enum InstrumentError {
    /// The class file does not parse.
    #[error("{}{source}", class.as_ref().map(|c| format!("class {c}: ")).unwrap_or_default())]
    Parse {
        /// None when not even the class file's own name could be read.
        class: Option<ClassName>,
        #[source]
        source: Box<ParseError>,
    },
    /// Branch analysis failed.
    #[error("class {class}: branch analysis failed: {source}")]
    Analysis {
        class: ClassName,
        #[source]
        source: Box<AnalysisError>,
    },
    /// The class already calls Rivet's runtime.
    #[error("class {class} is already instrumented by Rivet")]
    AlreadyInstrumented { class: ClassName },
    /// A method could not be instrumented as planned.
    #[error("class {class}, method {method}: {reason}")]
    Method {
        class: ClassName,
        method: String,
        reason: String,
    },
    /// The instrumented class could not be laid out or written (the error names the method).
    #[error("class {class}: {source}")]
    Write {
        class: ClassName,
        #[source]
        source: Box<WriteError>,
    },
    /// More probes or switches than Java `int` ids can number.
    #[error("too many {what} to number ({count}; the limit is 2^31 - 1)")]
    TooManyProbes { what: &'static str, count: u64 },
    /// A classpath entry could not be opened or read.
    #[error(transparent)]
    Classpath(#[from] Box<ClasspathError>),
    /// A jar entry could not be read.
    #[error("cannot read {entry} from {jar}: {reason}")]
    JarEntry {
        jar: PathBuf,
        entry: String,
        reason: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `rivet-probes.tsv` is malformed.
    #[error("{path}, line {line}: {reason}")]
    ProbeMap {
        path: PathBuf,
        line: usize,
        reason: String,
    },
    /// build.rs found no javac, so the runtime classes are missing from this build.
    #[error("the Java runtime classes (rivet/runtime) were not compiled into this build of Rivet: no javac was found (JAVA_HOME or PATH) when rivet-instrument was built")]
    NoRuntime,
}

impl From<ClasspathError> for InstrumentError {
    fn from(e: ClasspathError) -> Self {
        InstrumentError::Classpath(Box::new(e))
    }
}

impl InstrumentError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        InstrumentError::Io {
            path: path.into(),
            source,
        }
    }
}
