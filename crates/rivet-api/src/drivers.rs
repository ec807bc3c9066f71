//! Drivers of the class under test: the other classes of its package built around an instance
//! of it (a compiler pass that runs the optimizations handed to its constructor). Their methods
//! run the class's code the way the program does, with the state the program gives it first
//! (`PeepholeOptimizationsPass.process` hands each optimization the compiler, then every node
//! of the tree); a test calls them as it calls the class's own methods.

use rivet_testcase::{JType, OBJECT};

use crate::class_api::{Callable, CallableKind};
use crate::model::{ApiModel, NEVER_CALL};

/// Most driver calls among the targets (a package of many consumers does not crowd out the
/// class's own methods).
const MAX_DRIVER_CALLS: usize = 16;

impl ApiModel {
    /// Is `name` a class a parameter of which takes an instance of the class under test and
    /// few others: the class itself or one of its superclasses outside the JDK? (An interface
    /// or a JDK class such as `Reader` is too wide a door: any of its implementations would
    /// do, and a package's every wrapper would become a driver.)
    pub(crate) fn holds_the_class(&self, name: &str) -> bool {
        let cut = self.class.internal();
        if name == cut {
            return true;
        }
        name != OBJECT
            && !self.is_jdk(name)
            && self
                .class_api(name)
                .is_some_and(|api| !api.flags.is_interface())
            && self.assignable(&JType::class(cut), &JType::class(name))
    }

    /// Does a parameter of type `ty` take an instance of the class under test (see
    /// [`ApiModel::holds_the_class`]), alone or as an array's element?
    fn takes_the_class(&self, ty: &JType) -> bool {
        let element = match ty.erased() {
            JType::Array(c) => *c,
            t => t,
        };
        element
            .class_name()
            .is_some_and(|n| self.holds_the_class(n))
    }

    /// The calls through which other classes of the package run the class under test: for a
    /// top-level class one of whose constructors takes an instance of it, its instance
    /// methods; and static methods of the package's top-level classes that take one. Not the
    /// class itself, no nested class (views and iterators: a map's entry set, built around any
    /// map of its kind, which the maps' own methods hand out) and no class of the class's own
    /// kind (sharing a supertype other than `Object`). Sorted by member, at most
    /// [`MAX_DRIVER_CALLS`].
    pub(crate) fn driver_calls(&self) -> Vec<Callable> {
        let cut = self.class.internal();
        // A wrapper of the class's own kind (a map decorating a map, a reader wrapping a
        // reader) forwards what a test can call on the class itself: no driver.
        let kinds: Vec<String> = self
            .hierarchy()
            .supertypes(cut)
            .unwrap_or_default()
            .into_iter()
            .filter(|s| s != OBJECT)
            .collect();
        let mut out: Vec<Callable> = Vec::new();
        for api in self.package_apis() {
            if api.name == cut || api.name.contains('$') || api.flags.is_abstract() {
                continue;
            }
            let wrapper = kinds
                .iter()
                .any(|k| self.assignable(&JType::class(&api.name), &JType::class(k)));
            if wrapper {
                continue;
            }
            let built_around = api
                .constructors
                .iter()
                .any(|c| c.params.iter().any(|p| self.takes_the_class(p)));
            for m in &api.methods {
                let runs = if m.is_static {
                    m.params.iter().any(|p| self.takes_the_class(p))
                } else {
                    built_around
                };
                if runs
                    && m.kind == CallableKind::Method
                    && !NEVER_CALL.contains(&m.member.name.as_str())
                {
                    out.push(m.clone());
                }
            }
        }
        out.sort_by_key(|a| a.member.to_string());
        out.dedup_by(|a, b| a.member == b.member);
        out.truncate(MAX_DRIVER_CALLS);
        out
    }
}
