//! What can stop a class's plan, naming the class.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum PlanError {
    #[error("class {class}: listing its package: {source}")]
    Classpath {
        class: String,
        #[source]
        source: Box<rivet_classpath::ClasspathError>,
    },
    #[error("class {class}: analysing its bytecode: {source}")]
    Analysis {
        class: String,
        #[source]
        source: Box<rivet_analysis::AnalysisError>,
    },
}
