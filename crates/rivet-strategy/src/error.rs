//! What can stop a class's plan, naming the class.

use rivet_classfile::ClassName;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum PlanError {
    #[error("class {class}: listing its package: {source}")]
    Classpath {
        class: ClassName,
        #[source]
        source: Box<rivet_classpath::ClasspathError>,
    },
    #[error("class {class}: analysing its bytecode: {source}")]
    Analysis {
        class: ClassName,
        #[source]
        source: Box<rivet_analysis::AnalysisError>,
    },
    #[error("--cover {pattern}: no class of the classpath matches it (a class, a package, or a name with * wildcards)")]
    NoCoveredClass { pattern: String },
}
