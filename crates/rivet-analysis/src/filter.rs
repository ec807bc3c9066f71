//! Compiler-generated code that JaCoCo 0.8.6 does not count: which methods, instructions and
//! branches to skip, merge or replace, so that Rivet's branches match JaCoCo's.

use rivet_classfile::{ClassFile, Code, Member};
use std::collections::{HashMap, HashSet};

/// What the filters decided for one method's instructions (indices into `Code::instructions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterOutput {
    /// Instructions whose branches are not counted.
    pub ignored: HashSet<usize>,
    /// Duplicate instruction → representative: the duplicate's branches count as the representative's.
    pub merged_into: HashMap<usize, usize>,
    /// Branching instruction → the instructions its branches go to, counted in place of its own outcomes.
    pub replaced: HashMap<usize, Vec<usize>>,
}

/// Why a whole method is left out of branch counting, if it is.
pub fn skipped_method(cf: &ClassFile, method: &Member) -> Option<&'static str> {
    let name = cf.member_name(method).unwrap_or("");
    if method.access_flags.has(rivet_classfile::AccessFlags::BRIDGE) {
        return Some("bridge method");
    }
    if method.is_synthetic() && !name.starts_with("lambda$") {
        return Some("synthetic method");
    }
    None
}

/// Why a whole class is left out, if it is.
pub fn skipped_class(cf: &ClassFile) -> Option<&'static str> {
    if cf.access_flags.is_synthetic() {
        return Some("synthetic class");
    }
    if cf.access_flags.has(rivet_classfile::AccessFlags::MODULE) {
        return Some("module-info");
    }
    None
}

/// Runs every instruction-level filter over a method body.
pub fn filter_method(_cf: &ClassFile, _method: &Member, _code: &Code) -> FilterOutput {
    FilterOutput::default()
}
