//! Why the API of a class could not be modelled; each error names the class (and method).

use rivet_classfile::ClassName;
use rivet_classpath::{ClasspathError, HierarchyError};

/// The class under test cannot be modelled, or cannot be tested through what a test may use.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("class {class} was not found on the classpath")]
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
    #[error(
        "{class} is an interface: Rivet generates tests for classes (name a class implementing it)"
    )]
    Interface { class: ClassName },
    #[error("{class} is an annotation type: it has no behaviour to test")]
    Annotation { class: ClassName },
    #[error(
        "{class} is not public: with --access public, generated tests call only the public API"
    )]
    NotPublic { class: ClassName },
    #[error("{class} cannot be named by a test in its package (a private, local or anonymous class, or nested in one)")]
    NotNameable { class: ClassName },
    #[error("{class} is a JDK class: a test cannot be placed in its package (the JVM forbids splitting a module's package)")]
    JdkPackage { class: ClassName },
    #[error("{class} cannot be tested: {reason}")]
    Untestable { class: ClassName, reason: String },
    #[error("class {class} has no public method named {method}")]
    MethodNotFound { class: ClassName, method: String },
}
