//! Errors of the symbolic executor; each names the class (and method) concerned.

use rivet_classfile::ClassName;
use rivet_classpath::{ClasspathError, HierarchyError};

#[derive(Debug, thiserror::Error)]
pub enum SymbolicError {
    #[error("class {class} not found on the classpath")]
    ClassNotFound { class: ClassName },
    #[error("class {class}: {source}")]
    Classpath {
        class: ClassName,
        #[source]
        source: ClasspathError,
    },
    #[error("class {class}: {source}")]
    Hierarchy {
        class: ClassName,
        #[source]
        source: HierarchyError,
    },
    #[error("class {class}: malformed class file: {reason}")]
    BadClass { class: ClassName, reason: String },
    #[error("method {class}.{method}: not found (the class has {available})")]
    MethodNotFound {
        class: ClassName,
        method: String,
        available: String,
    },
    #[error("method {class}.{method}{descriptor}: no method of that name has this descriptor (it has {available})")]
    DescriptorMismatch {
        class: ClassName,
        method: String,
        descriptor: String,
        available: String,
    },
    #[error("method {class}.{method}{descriptor} is {what}: it has no bytecode to explore")]
    NoCode {
        class: ClassName,
        method: String,
        descriptor: String,
        what: &'static str,
    },
    #[error("bad method name {text:?}: expected FQN.name(DESCRIPTOR), e.g. 'a.b.C.m(I)Z'")]
    BadMethodName { text: String },
    #[error("method {class}.{method}: {reason}")]
    Bytecode {
        class: ClassName,
        method: String,
        reason: String,
    },
    #[error("the static initializer of {class} threw {exception} ({origin})")]
    InitializerThrew {
        class: ClassName,
        exception: ClassName,
        /// The method and offset that threw it.
        origin: String,
    },
    #[error("invariants file, line {line}: {reason}")]
    Invariants { line: usize, reason: String },
}
