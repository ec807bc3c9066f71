//! Errors of the symbolic executor; each names the class (and method) concerned.

use rivet_classpath::{ClasspathError, HierarchyError};

#[derive(Debug, thiserror::Error)]
pub enum SymbolicError {
    #[error("class {class} not found on the classpath")]
    ClassNotFound { class: String },
    #[error("class {class}: {source}")]
    Classpath {
        class: String,
        #[source]
        source: ClasspathError,
    },
    #[error("class {class}: {source}")]
    Hierarchy {
        class: String,
        #[source]
        source: HierarchyError,
    },
    #[error("class {class}: malformed class file: {reason}")]
    BadClass { class: String, reason: String },
    #[error("method {class}.{method}: not found (the class has {available})")]
    MethodNotFound {
        class: String,
        method: String,
        available: String,
    },
    #[error("method {class}.{method}{descriptor}: no method of that name has this descriptor (it has {available})")]
    DescriptorMismatch {
        class: String,
        method: String,
        descriptor: String,
        available: String,
    },
    #[error("method {class}.{method}{descriptor} is {what}: it has no bytecode to explore")]
    NoCode {
        class: String,
        method: String,
        descriptor: String,
        what: &'static str,
    },
    #[error("bad method name {text:?}: expected FQN.name(DESCRIPTOR), e.g. 'a.b.C.m(I)Z'")]
    BadMethodName { text: String },
    #[error("method {class}.{method}: {reason}")]
    Bytecode {
        class: String,
        method: String,
        reason: String,
    },
    #[error("invariants file, line {line}: {reason}")]
    Invariants { line: usize, reason: String },
}
