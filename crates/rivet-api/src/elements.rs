//! Which calls of a test store an element in a collection or map, which look one up, and which
//! values of a test are elements: a lookup (`contains`, `containsKey`, `remove`, `indexOf`
//! …) mostly reaches its interesting branches with an element the collection holds,
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
/// `instanceof` and hash checks into the branches that compare it. Not the navigating ones
/// (`subMap`, `ceiling`, a trie's `prefixMap`): their interesting arguments lie between the
/// elements, and on commons-collections4's AbstractPatriciaTrie (`search`, seeds 0-2) elements
/// there cost 11 branches (a prefix map of an element's whole key holds one entry, never the
/// two its iterator's `remove` needs).
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
];

/// Does a method of this name look an argument up among its collection's or map's elements?
pub fn queries_elements(method: &str) -> bool {
    ELEMENT_QUERIES.contains(&method)
}

/// Iterators: what their calls return are elements of the collection they came from, and
/// they are none themselves.
const ITERATORS: &[&str] = &["java/util/Iterator", "java/util/Enumeration"];

/// Calls whose behaviour the collection interfaces leave undefined when given the receiver.
const SELF_UNDEFINED: &[&str] = &["addAll", "putAll"];

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
    /// (`list.add(list)`, `map.put(k, map)`) or adds it to itself (`list.addAll(list)`,
    /// `map.putAll(map)`: undefined, `Collection.addAll` says, and a sorted multiset whose
    /// comparator never answers 0 grows under its own iterator until the test's time is up:
    /// 63 of 66 time-outs on guava's TreeMultiset, `all`, seed 2), with what depends on it;
    /// queries that take the collection itself (`list.equals(list)`,
    /// `list.containsAll(list)`) stay.
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
                    (inserts_elements(&method.name)
                        || SELF_UNDEFINED.contains(&method.name.as_str()))
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

    /// When statement `at` of `t` is a lookup among the elements of a collection or map
    /// (`set.contains(x)`, `map.get(k)`): that collection's statement.
    pub fn lookup_in(&self, t: &TypedTest, at: usize) -> Option<usize> {
        match t.statements().get(at) {
            Some(Statement::Call {
                method,
                receiver: Some(r),
                ..
            }) if queries_elements(&method.name)
                && t.types
                    .get(r.0 as usize)
                    .and_then(|ty| ty.as_ref())
                    .is_some_and(|ty| self.holds_elements(ty)) =>
            {
                Some(r.0 as usize)
            }
            _ => None,
        }
    }

    /// The values of `t` before statement `before` that are elements of the collection or
    /// map of statement `of`: arguments an insertion into it stored, values a call on it
    /// returned (`get(k)`, `firstKey()`), and what its iterators handed out (`next()`), none
    /// of them holding elements or iterating over them. A view's own (`entrySet()`'s entries
    /// from its iterator) are not its map's keys: `entrySet().contains(e)` wants an entry.
    pub fn element_values(&self, t: &TypedTest, before: usize, of: usize) -> Vec<usize> {
        let type_of = |id: usize| t.types.get(id).and_then(|ty| ty.as_ref());
        let holds = |id: usize| type_of(id).is_some_and(|ty| self.holds_elements(ty));
        let iterator = |id: usize| {
            type_of(id).is_some_and(|ty| {
                ITERATORS
                    .iter()
                    .any(|s| self.assignable(ty, &JType::class(s)))
            })
        };
        let receiver_of = |id: usize| match t.statements().get(id) {
            Some(Statement::Call {
                receiver: Some(r), ..
            }) => Some(r.0 as usize),
            _ => None,
        };
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
            let from_it = iterator(r) && receiver_of(r) == Some(of);
            if r == of && inserts_elements(&method.name) {
                out.extend(args.iter().map(|a| a.0 as usize).filter(|a| *a != of));
            } else if (r == of || from_it)
                && !holds(i)
                && !iterator(i)
                && !NOT_ELEMENTS.contains(&method.name.as_str())
            {
                out.push(i);
            }
        }
        out.retain(|i| {
            !matches!(t.statements().get(*i), Some(Statement::Null { .. }))
                && type_of(*i).is_some_and(|ty| ty.is_reference())
        });
        out.sort_unstable();
        out.dedup();
        out
    }
}
