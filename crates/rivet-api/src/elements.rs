//! Which calls of a test store an element in a collection or map, which look one up, and which
//! values of a test are elements: a lookup (`contains`, `containsKey`, `remove`, `indexOf`,
//! `subMap` …) mostly reaches its interesting branches with an element the collection holds,
//! which a value drawn from everything the test holds rarely is.

use rivet_testcase::{JType, Statement, TypedTest};

use crate::model::ApiModel;

/// Methods of the JDK's collections and maps that store an argument as an element.
const ELEMENT_INSERTS: &[&str] = &[
    "add",
    "addFirst",
    "addLast",
    "addElement",
    "insertElementAt",
    "setElementAt",
    "offer",
    "offerFirst",
    "offerLast",
    "push",
    "put",
    "putIfAbsent",
    "replace",
    "set",
];

/// Does a method of this name store an argument as an element of its collection or map?
pub fn inserts_elements(method: &str) -> bool {
    ELEMENT_INSERTS.contains(&method)
}

/// Methods of the JDK's collections and maps (and the like methods of a class under test) that
/// look an argument up among the elements: given one the collection holds they go past its
/// `instanceof`, range and hash checks into the branches that compare it.
const ELEMENT_QUERIES: &[&str] = &[
    "contains",
    "containsKey",
    "containsValue",
    "containsAll",
    "get",
    "getOrDefault",
    "remove",
    "removeFirstOccurrence",
    "removeLastOccurrence",
    "indexOf",
    "lastIndexOf",
    "ceiling",
    "floor",
    "higher",
    "lower",
    "ceilingKey",
    "floorKey",
    "higherKey",
    "lowerKey",
    "ceilingEntry",
    "floorEntry",
    "higherEntry",
    "lowerEntry",
    "headMap",
    "tailMap",
    "subMap",
    "headSet",
    "tailSet",
    "subSet",
    "nextKey",
    "previousKey",
    "prefixMap",
    "select",
    "selectKey",
    "selectValue",
];

/// Does a method of this name look an argument up among its collection's or map's elements?
pub fn queries_elements(method: &str) -> bool {
    ELEMENT_QUERIES.contains(&method)
}

/// Iterators: what their calls return are elements of the collection they came from, and
/// they are none themselves.
const ITERATORS: &[&str] = &["java/util/Iterator", "java/util/Enumeration"];

/// Calls on a collection whose results are no elements of it.
const NOT_ELEMENTS: &[&str] = &["toString", "getClass", "comparator", "hashCode"];

impl ApiModel {
    /// Does a value of `ty` hold elements (a `Collection` or a `Map`)? Such a value is never
    /// given itself as an element: one that holds itself hides every mix-up of its elements
    /// (they all print as `(this Collection)`).
    pub fn holds_elements(&self, ty: &JType) -> bool {
        ["java/util/Collection", "java/util/Map"]
            .iter()
            .any(|c| self.assignable(ty, &JType::class(c)))
    }

    /// Takes out of `t` every call that makes a collection or map an element of itself
    /// (`list.add(list)`, `map.put(k, map)`), with what depends on it; queries that take the
    /// collection itself (`list.equals(list)`, `list.addAll(list)`) stay.
    pub fn drop_self_insertions(&self, t: &mut TypedTest) {
        let doomed: Vec<usize> = t
            .statements()
            .iter()
            .enumerate()
            .filter(|(_, s)| match s {
                Statement::Call {
                    method,
                    receiver: Some(r),
                    args,
                } => {
                    inserts_elements(&method.name)
                        && args.contains(r)
                        && t.types
                            .get(r.0 as usize)
                            .and_then(|ty| ty.as_ref())
                            .is_some_and(|ty| self.holds_elements(ty))
                }
                _ => false,
            })
            .map(|(i, _)| i)
            .collect();
        if !doomed.is_empty() {
            t.remove_with_dependents(&doomed);
        }
    }

    /// Is statement `at` of `t` a lookup among the elements of a collection or map
    /// (`set.contains(x)`, `map.subMap(a, b)`)?
    pub fn is_lookup(&self, t: &TypedTest, at: usize) -> bool {
        match t.statements().get(at) {
            Some(Statement::Call {
                method,
                receiver: Some(r),
                ..
            }) => {
                queries_elements(&method.name)
                    && t.types
                        .get(r.0 as usize)
                        .and_then(|ty| ty.as_ref())
                        .is_some_and(|ty| self.holds_elements(ty))
            }
            _ => false,
        }
    }

    /// The values of `t` before statement `before` that are elements: arguments an insertion
    /// stored in a collection or map, and values a call on a collection, map, iterator or
    /// entry returned (`iterator().next()`, `get(k)`, `firstKey()`, `getKey()`), themselves
    /// neither holding elements nor iterating over them.
    pub fn element_values(&self, t: &TypedTest, before: usize) -> Vec<usize> {
        let holds = |id: usize| {
            t.types
                .get(id)
                .and_then(|ty| ty.as_ref())
                .is_some_and(|ty| self.holds_elements(ty))
        };
        let is_a = |id: usize, types: &[&str]| {
            t.types
                .get(id)
                .and_then(|ty| ty.as_ref())
                .is_some_and(|ty| types.iter().any(|s| self.assignable(ty, &JType::class(s))))
        };
        let iterator = |id: usize| is_a(id, ITERATORS);
        let entry = |id: usize| is_a(id, &["java/util/Map$Entry"]);
        let mut out = Vec::new();
        for (i, s) in t.statements().iter().enumerate().take(before) {
            let Statement::Call {
                method,
                receiver: Some(r),
                args,
            } = s
            else {
                continue;
            };
            let r = r.0 as usize;
            if inserts_elements(&method.name) && holds(r) {
                out.extend(args.iter().map(|a| a.0 as usize).filter(|a| *a != r));
            } else if (holds(r) || iterator(r) || entry(r))
                && !holds(i)
                && !iterator(i)
                && !NOT_ELEMENTS.contains(&method.name.as_str())
                && t.types
                    .get(i)
                    .and_then(|ty| ty.as_ref())
                    .is_some_and(|ty| ty.is_reference())
            {
                out.push(i);
            }
        }
        out.retain(|i| {
            !matches!(t.statements().get(*i), Some(Statement::Null { .. }))
                && t.types
                    .get(*i)
                    .and_then(|ty| ty.as_ref())
                    .is_some_and(|ty| ty.is_reference())
        });
        out.sort_unstable();
        out.dedup();
        out
    }
}
