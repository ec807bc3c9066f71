//! Mutation analysis on Rivet's class-file model, as PIT does it by default.
//!
//! * [`MutableClass::parse`] reads a class and finds its mutants: one per instruction each
//!   of PIT's default operators ([`Operator`]) changes, with the method and line;
//! * [`MutableClass::mutant_bytes`] writes the class with one mutant applied (a changed
//!   opcode in place, or inserted code laid out again with its stack-map frames);
//! * [`MutableClass::reach_bytes`] writes the class with a call of `rivet.mutation.Reach.hit`
//!   before every mutated instruction, so that one run of the tests says which tests reach
//!   which mutants (only those run against it);
//! * [`MutationScore`] counts the outcome as PIT does.
//!
//! Running tests against mutants is process work, in `rivet-verify`.

mod apply;
mod error;
mod find;
mod operator;
mod score;

pub use apply::REACH_CLASS;
pub use error::MutateError;
pub use find::{Mutant, MutantId};
pub use operator::Operator;
pub use score::{MutantRow, MutantStatus, MutationScore};

use rivet_classfile::{ClassFile, ClassName};

/// A class and its mutants.
#[derive(Debug, Clone)]
pub struct MutableClass {
    pub class: ClassFile,
    pub name: ClassName,
    pub mutants: Vec<Mutant>,
}

impl MutableClass {
    /// Reads a class file and finds its mutants.
    pub fn parse(bytes: &[u8]) -> Result<MutableClass, MutateError> {
        let parse = |source| MutateError::Parse {
            class: None,
            source,
        };
        let class = ClassFile::parse(bytes).map_err(parse)?;
        let name = ClassName::from_internal(class.name().map_err(parse)?);
        let mutants = find::find_mutants(&class)?;
        Ok(MutableClass {
            class,
            name,
            mutants,
        })
    }

    /// The class file with mutant `id` applied.
    pub fn mutant_bytes(&self, id: MutantId) -> Result<Vec<u8>, MutateError> {
        let m = self
            .mutants
            .get(id.0 as usize)
            .ok_or_else(|| MutateError::Mismatch {
                class: self.name.clone(),
                mutant: id.0,
                reason: "no such mutant".into(),
            })?;
        apply::apply(&self.class, m)
    }

    /// The class file with a reach probe before each mutated instruction, reporting mutant
    /// `id` as `first + id` (several classes share one numbering).
    pub fn reach_bytes(&self, first: u32) -> Result<Vec<u8>, MutateError> {
        apply::reach_probes(&self.class, &self.mutants, first)
    }
}
