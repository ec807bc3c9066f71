//! Bytecode analysis for Rivet: per method a control-flow graph, branches numbered as JaCoCo
//! counts them, post-dominators, control dependence and source lines; per class the calls
//! between its methods that guide a search through them (`callees`).

use rivet_classfile::ClassName;
pub mod branch;
pub mod callees;
pub mod cfg;
pub mod dominance;
pub mod filter;
pub mod place;
pub mod probes;

pub use branch::{Branch, BranchId, BranchKind};
pub use callees::{BranchCallees, CallSite, CalleeOutcomes, CALLEE_DEPTH};
pub use cfg::{Block, BlockId, Cfg};
pub use dominance::{Dominators, PostDominators};
pub use place::BranchPlace;
pub use probes::{MethodProbes, ProbePoint};

use rivet_classfile::{ClassFile, ParseError};

/// Analysis failed; names the class and method concerned.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error("a class file whose own name cannot be read: {source}")]
    Nameless {
        #[source]
        source: ParseError,
    },
    #[error("class {class}: {source}")]
    Constant {
        class: ClassName,
        #[source]
        source: ParseError,
    },
}

/// The analysis of one method with code.
#[derive(Debug, Clone)]
pub struct MethodAnalysis {
    /// Index into `ClassFile::methods`.
    pub index: usize,
    pub name: String,
    pub descriptor: String,
    pub cfg: Cfg,
    pub postdom: PostDominators,
    pub branches: Vec<Branch>,
    /// Set when JaCoCo would not count this method at all (its `branches` are then empty).
    pub skipped: Option<&'static str>,
    /// JaCoCo's probes of the method, for methods with branches (None when not emulated).
    pub probes: Option<MethodProbes>,
}

/// The analysis of one class: its methods with code, in declaration order.
#[derive(Debug, Clone)]
pub struct ClassAnalysis {
    pub class: ClassName,
    pub skipped: Option<&'static str>,
    pub methods: Vec<MethodAnalysis>,
}

impl ClassAnalysis {
    /// All counted branches of the class, in id order.
    pub fn branches(&self) -> impl Iterator<Item = (&MethodAnalysis, &Branch)> {
        self.methods
            .iter()
            .flat_map(|m| m.branches.iter().map(move |b| (m, b)))
    }

    pub fn branch_count(&self) -> usize {
        self.methods.iter().map(|m| m.branches.len()).sum()
    }
}

/// Analyzes every method with code of a class.
pub fn analyze_class(cf: &ClassFile) -> Result<ClassAnalysis, AnalysisError> {
    let class = cf
        .name()
        .map_err(|source| AnalysisError::Nameless { source })
        .map(ClassName::from_internal)?;
    let err = |source| AnalysisError::Constant {
        class: class.clone(),
        source,
    };
    let class_skip = filter::skipped_class(cf);
    let mut methods = Vec::new();
    let mut next_id = 0u32;
    for (index, m) in cf.methods.iter().enumerate() {
        let Some(code) = m.code() else { continue };
        let name = cf.member_name(m).map_err(err)?.to_string();
        let descriptor = cf.member_descriptor(m).map_err(err)?.to_string();
        let cfg = Cfg::build(code);
        let postdom = PostDominators::compute(&cfg);
        let skipped = class_skip.or_else(|| filter::skipped_method(cf, m, code));
        let mut branches = if skipped.is_some() {
            Vec::new()
        } else {
            let f = filter::filter_method(cf, code);
            branch::enumerate(code, &cfg, &postdom, &f, next_id)
        };
        let probes = if branches.is_empty() {
            None
        } else {
            let raw = filter::RawCode::new(cf, code);
            MethodProbes::compute(code, raw.labels())
        };
        if let Some(p) = &probes {
            branch::confirm(code, p, &mut branches);
        }
        next_id += branches.len() as u32;
        methods.push(MethodAnalysis {
            index,
            name,
            descriptor,
            cfg,
            postdom,
            branches,
            skipped,
            probes,
        });
    }
    Ok(ClassAnalysis {
        class,
        skipped: class_skip,
        methods,
    })
}
