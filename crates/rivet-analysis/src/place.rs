//! Where a branch is, in the words every later stage uses (the plan's goals, the report, the
//! comments of emitted tests): class, branch id, method, bytecode offset, source line, outcome.

use rivet_classfile::ClassName;

use crate::branch::{BranchId, BranchKind};
use crate::ClassAnalysis;

/// A branch's place in its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchPlace {
    pub class: ClassName,
    pub branch: BranchId,
    pub method: String,
    pub descriptor: String,
    /// Bytecode offset of the branching instruction.
    pub offset: u32,
    pub line: Option<u16>,
    pub kind: BranchKind,
}

impl BranchPlace {
    /// `Outer$Inner.method`: the class's simple name and the method.
    pub fn method_label(&self) -> String {
        format!("{}.{}", self.class.simple(), self.method)
    }
}

impl ClassAnalysis {
    /// The place of every counted branch of the class, in id order.
    pub fn places(&self) -> Vec<BranchPlace> {
        let class = self.class.clone();
        self.branches()
            .map(|(m, b)| BranchPlace {
                class: class.clone(),
                branch: b.id,
                method: m.name.clone(),
                descriptor: m.descriptor.clone(),
                offset: b.offset,
                line: b.line,
                kind: b.kind.clone(),
            })
            .collect()
    }
}
