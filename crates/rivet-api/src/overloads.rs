//! Overloads as the emitter needs them: which calls get casts on their arguments, and which
//! parameters, declared with a type variable, must not.

use std::collections::BTreeSet;

use rivet_testcase::JType;

use crate::model::ApiModel;

impl ApiModel {
    /// The positions of a method's or constructor's parameters declared with a type variable
    /// or an array of one (`E`, `E...`); none when it is not known.
    pub fn type_variable_params(&self, c: &rivet_testcase::MemberRef) -> BTreeSet<usize> {
        let Some(api) = self.class_api(c.owner.internal()) else {
            return BTreeSet::new();
        };
        let list = if c.name == "<init>" {
            &api.constructors
        } else {
            &api.methods
        };
        // The generic parameters line up with the descriptor's (an inner class's constructor
        // may leave its enclosing instance out of its signature: then none is known).
        let arity = rivet_classfile::MethodDescriptor::parse(&c.descriptor)
            .map(|d| d.params.len())
            .ok();
        let mut out = BTreeSet::new();
        for m in list
            .iter()
            .filter(|m| m.member == *c && Some(m.params.len()) == arity)
        {
            for (k, p) in m.params.iter().enumerate() {
                let mut ty = p;
                while let JType::Array(component) = ty {
                    ty = component;
                }
                if matches!(ty, JType::Var { .. }) {
                    out.insert(k);
                }
            }
        }
        out
    }

    /// Is the callable overloaded (another public method or constructor of its owner with
    /// the same name and arity)? The emitter casts arguments of overloaded calls.
    pub fn is_overloaded(&self, c: &rivet_testcase::MemberRef) -> bool {
        let Some(api) = self.class_api(c.owner.internal()) else {
            return true;
        };
        let arity = |d: &str| {
            rivet_classfile::MethodDescriptor::parse(d)
                .map(|m| m.params.len())
                .unwrap_or(usize::MAX)
        };
        let n = arity(&c.descriptor);
        let list = if c.name == "<init>" {
            &api.constructors
        } else {
            &api.methods
        };
        let own = list
            .iter()
            .filter(|m| m.member.name == c.name && arity(&m.member.descriptor) == n)
            .count();
        own > 1 || (c.name != "<init>" && self.is_jdk(c.owner.internal()))
    }
}
