//! What a test may call on a JDK-typed value that the class under test handed out: a list
//! backed by an array, a view of a map, an iterator over the class's own nodes. Such a value's
//! runtime class is usually one of the class's nested classes, whose branches only the JDK
//! type's queries and updates reach (`get`, `indexOf`, `set`, `subList`, `hasNext`, `next`,
//! `remove`, `containsKey` …), not only the methods that fill a collection.

use std::sync::Arc;

use rivet_testcase::{JType, Statement, TypedTest, OBJECT};

use crate::class_api::Callable;
use crate::model::{ApiModel, NEVER_CALL};

/// JDK methods a generated test does not call on a handed-out value: they take callbacks or
/// hand out streams whose use says nothing more about the class, or they never end on some
/// values (`Iterator.forEachRemaining` on a cyclic view). Nor any other method that takes a
/// callback (`toArray(IntFunction)`, [`takes_callback`]); `toArray()` and `toArray(T[])` are
/// called: a view may have its own (`CompactHashMap`'s key set and values, 12 branches).
/// (Beside the methods no generated test calls, `model::NEVER_CALL`.)
const NOT_ON_VIEWS: &[&str] = &[
    "stream",
    "parallelStream",
    "spliterator",
    "forEach",
    "forEachRemaining",
    "removeIf",
    "replaceAll",
    "compute",
    "computeIfAbsent",
    "computeIfPresent",
    "merge",
];

/// Does a method of this descriptor take a callback (a `java.util.function` parameter)?
fn takes_callback(descriptor: &str) -> bool {
    descriptor
        .split(')')
        .next()
        .is_some_and(|params| params.contains("Ljava/util/function/"))
}

impl ApiModel {
    /// The instance methods of JDK type `ty` (`java.util` only, with its supertypes) a test
    /// may call on a value the class under test returned; for any other type what
    /// [`ApiModel::methods_on`] gives.
    pub fn methods_on_handed_out(&self, ty: &JType) -> Arc<Vec<Callable>> {
        let Some(name) = ty.class_name().map(str::to_string) else {
            return Arc::new(Vec::new());
        };
        if !name.starts_with("java/util/") {
            return self.methods_on(ty);
        }
        if let Some(hit) = self.views_on.borrow().get(&name) {
            return hit.clone();
        }
        let mut types = vec![name.clone()];
        types.extend(self.hierarchy().supertypes(&name).unwrap_or_default());
        let mut out: Vec<Callable> = Vec::new();
        for t in types.iter().filter(|t| *t != OBJECT) {
            let Some(api) = self.class_api(t) else {
                continue;
            };
            for m in &api.methods {
                let wanted = !m.is_static
                    && m.params.len() <= 2
                    && !NOT_ON_VIEWS.contains(&m.member.name.as_str())
                    && !takes_callback(&m.member.descriptor)
                    && !NEVER_CALL.contains(&m.member.name.as_str())
                    && !out.iter().any(|o| {
                        o.member.name == m.member.name && o.member.descriptor == m.member.descriptor
                    });
                if wanted {
                    out.push(m.clone());
                }
            }
        }
        out.sort_by_key(|a| a.member.to_string());
        let out = Arc::new(out);
        self.views_on.borrow_mut().insert(name, out.clone());
        out
    }

    /// Did the class under test (or a nested class of it) hand out the value of statement
    /// `at`: its result, or the result of a call on such a value?
    pub fn handed_out(&self, t: &TypedTest, at: usize) -> bool {
        let mut current = at;
        // A chain of calls, each on the result of the one before, back to the class's own.
        for _ in 0..t.len() {
            let Some(Statement::Call {
                method, receiver, ..
            }) = t.statements().get(current)
            else {
                return false;
            };
            let owner = method.owner.internal();
            if owner == self.class.internal()
                || owner.starts_with(&format!("{}$", self.class.internal()))
            {
                return true;
            }
            match receiver {
                Some(r) => current = r.0 as usize,
                None => return false,
            }
        }
        false
    }
}
