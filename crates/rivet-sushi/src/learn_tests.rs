//! The learner on snapshots built by hand as the worker would take them: a circular doubly
//! linked list with a sentinel header and a node cache (structures.NodeCachingList) and a
//! search tree (structures.AvlTree); what it learns, what it must not, and what a snapshot
//! contradicts.

use std::collections::BTreeMap;
use std::sync::Arc;

use rivet_symbolic::{Invariant, Invariants, Scope};
use rivet_testcase::{
    HeapSnapshot, MemberRef, ObservedValue, SnapshotClass, SnapshotField, SnapshotObject,
};

use super::{LearnConfig, Learner};

/// A heap under construction.
#[derive(Default)]
struct Heap {
    objects: BTreeMap<u32, SnapshotObject>,
}

fn class(name: &str, fields: &[(&str, &str)]) -> Arc<SnapshotClass> {
    Arc::new(SnapshotClass {
        name: name.into(),
        fields: fields
            .iter()
            .map(|(n, d)| SnapshotField {
                owner: name.into(),
                name: (*n).into(),
                descriptor: (*d).into(),
            })
            .collect(),
    })
}

impl Heap {
    fn new_object(&mut self, class: &Arc<SnapshotClass>) -> u32 {
        let id = self.objects.len() as u32 + 1;
        self.objects.insert(
            id,
            SnapshotObject {
                class: class.clone(),
                values: Some(vec![ObservedValue::Null; class.fields.len()]),
            },
        );
        id
    }

    fn reference(&self, id: u32) -> ObservedValue {
        ObservedValue::Object {
            id,
            class: self.objects[&id].class.name.clone(),
        }
    }

    fn set(&mut self, id: u32, field: &str, value: ObservedValue) {
        let o = self.objects.get_mut(&id).expect("an object");
        let i = o
            .class
            .fields
            .iter()
            .position(|f| &*f.name == field)
            .expect("a field");
        if let Some(vs) = o.values.as_mut() {
            vs[i] = value;
        }
    }

    fn link(&mut self, from: u32, field: &str, to: Option<u32>) {
        let v = to.map_or(ObservedValue::Null, |t| self.reference(t));
        self.set(from, field, v);
    }

    fn snapshot(self, member: &str, receiver: u32, arguments: Vec<ObservedValue>) -> HeapSnapshot {
        let receiver = Some(self.reference(receiver));
        HeapSnapshot {
            member: MemberRef::new("structures/X", member, "(I)I"),
            statement: 1,
            receiver,
            arguments,
            objects: self.objects,
            truncated: false,
        }
    }
}

const LIST: &str = "structures.NodeCachingList";
const NODE: &str = "structures.NodeCachingList$Node";
const NODE_DESC: &str = "Lstructures/NodeCachingList$Node;";

/// A list holding `values` and `cached` recycled nodes (previous null, chained by next).
pub(crate) fn list(values: &[i64], cached: usize) -> HeapSnapshot {
    let list_class = class(
        LIST,
        &[
            ("header", NODE_DESC),
            ("size", "I"),
            ("firstCached", NODE_DESC),
            ("cacheSize", "I"),
        ],
    );
    let node = class(
        NODE,
        &[("value", "I"), ("previous", NODE_DESC), ("next", NODE_DESC)],
    );
    let mut h = Heap::default();
    let l = h.new_object(&list_class);
    let header = h.new_object(&node);
    h.set(header, "value", ObservedValue::Int(0));
    h.link(l, "header", Some(header));
    let mut last = header;
    for v in values {
        let n = h.new_object(&node);
        h.set(n, "value", ObservedValue::Int(*v));
        h.link(last, "next", Some(n));
        h.link(n, "previous", Some(last));
        last = n;
    }
    h.link(last, "next", Some(header));
    h.link(header, "previous", Some(last));
    h.set(l, "size", ObservedValue::Int(values.len() as i64));
    let mut first = None;
    for _ in 0..cached {
        let n = h.new_object(&node);
        h.set(n, "value", ObservedValue::Int(-7));
        h.link(n, "next", first);
        first = Some(n);
    }
    h.link(l, "firstCached", first);
    h.set(l, "cacheSize", ObservedValue::Int(cached as i64));
    h.snapshot("removeAt", l, vec![ObservedValue::Int(0)])
}

pub(crate) fn lists() -> Vec<HeapSnapshot> {
    let mut out = Vec::new();
    for round in 0..3 {
        for n in 0..5 {
            for cached in 0..6 {
                let values: Vec<i64> = (0..n).map(|i| i * 37 - 50 + round).collect();
                out.push(list(&values, cached));
            }
        }
    }
    out
}

const TREE: &str = "structures.AvlTree";
const TNODE: &str = "structures.AvlTree$Node";
const TNODE_DESC: &str = "Lstructures/AvlTree$Node;";

/// A search tree of `keys` inserted in order (unbalanced; heights as AvlTree keeps them).
fn tree(keys: &[i64]) -> HeapSnapshot {
    let tree_class = class(TREE, &[("root", TNODE_DESC), ("size", "I")]);
    let node = class(
        TNODE,
        &[
            ("key", "I"),
            ("height", "I"),
            ("left", TNODE_DESC),
            ("right", TNODE_DESC),
        ],
    );
    let mut h = Heap::default();
    let t = h.new_object(&tree_class);
    // Children per node: (key, left, right).
    let mut nodes: Vec<(i64, Option<usize>, Option<usize>)> = Vec::new();
    let mut root: Option<usize> = None;
    for k in keys {
        let mut at = root;
        let mut parent: Option<(usize, bool)> = None;
        let mut duplicate = false;
        while let Some(i) = at {
            if *k == nodes[i].0 {
                duplicate = true;
                break;
            }
            let left = *k < nodes[i].0;
            parent = Some((i, left));
            at = if left { nodes[i].1 } else { nodes[i].2 };
        }
        if duplicate {
            continue;
        }
        nodes.push((*k, None, None));
        let new = nodes.len() - 1;
        match parent {
            None => root = Some(new),
            Some((p, true)) => nodes[p].1 = Some(new),
            Some((p, false)) => nodes[p].2 = Some(new),
        }
    }
    fn height(nodes: &[(i64, Option<usize>, Option<usize>)], i: Option<usize>) -> i64 {
        i.map_or(0, |i| {
            1 + height(nodes, nodes[i].1).max(height(nodes, nodes[i].2))
        })
    }
    let ids: Vec<u32> = nodes.iter().map(|_| h.new_object(&node)).collect();
    for (i, (k, l, r)) in nodes.iter().enumerate() {
        h.set(ids[i], "key", ObservedValue::Int(*k));
        h.set(
            ids[i],
            "height",
            ObservedValue::Int(height(&nodes, Some(i))),
        );
        h.link(ids[i], "left", l.map(|l| ids[l]));
        h.link(ids[i], "right", r.map(|r| ids[r]));
    }
    h.link(t, "root", root.map(|r| ids[r]));
    h.set(t, "size", ObservedValue::Int(nodes.len() as i64));
    h.snapshot("insert", t, vec![ObservedValue::Int(3)])
}

fn trees() -> Vec<HeapSnapshot> {
    let mut out = Vec::new();
    let mut x: i64 = 17;
    for n in 0..90 {
        let keys: Vec<i64> = (0..n % 7)
            .map(|_| {
                x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
                x % 100 - 50
            })
            .collect();
        out.push(tree(&keys));
    }
    out
}

fn learn(snapshots: &[HeapSnapshot]) -> Vec<Invariant> {
    let mut l = Learner::new(LearnConfig::default(), vec!["structures".into()]);
    for s in snapshots {
        l.absorb(s);
    }
    l.infer().into_iter().map(|(i, _)| i).collect()
}

fn parse(line: &str) -> Invariant {
    Invariant::parse(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn a_caching_list_yields_its_links_back_pointers_counts_and_bounds() {
    let learned = learn(&lists());
    let text = Invariants::from_items(learned.clone()).to_text();
    for expected in [
        "not-null structures.NodeCachingList.header",
        "not-null structures.NodeCachingList$Node.next within structures.NodeCachingList.header",
        "not-null structures.NodeCachingList$Node.previous within structures.NodeCachingList.header",
        "inverse structures.NodeCachingList$Node.next previous within structures.NodeCachingList.header",
        // Cached nodes have no previous node: this one holds of every node.
        "inverse structures.NodeCachingList$Node.previous next",
        "unshared structures.NodeCachingList.firstCached",
        "unshared structures.NodeCachingList$Node.next within structures.NodeCachingList.firstCached",
        "range structures.NodeCachingList.size 0..",
        "range structures.NodeCachingList.cacheSize 0..",
        "count structures.NodeCachingList.size header next* -1",
        "count structures.NodeCachingList.size header previous* -1",
        "count structures.NodeCachingList.cacheSize firstCached next* +0",
    ] {
        assert!(learned.contains(&parse(expected)), "{expected} missing from\n{text}");
    }
    for unexpected in [
        // The cached nodes break these outside the header's chain.
        "inverse structures.NodeCachingList$Node.next previous",
        "inverse structures.NodeCachingList$Node.previous next within structures.NodeCachingList.header",
        "not-null structures.NodeCachingList$Node.next",
        // Values are data, some negative; the header's value is never compared.
        "range structures.NodeCachingList$Node.value 0..",
        // Both ends of the list are the header's neighbours: shared.
        "unshared structures.NodeCachingList.header",
        // A count through both fields is redundant with the single-field ones.
        "count structures.NodeCachingList.size header (next|previous)* -1",
    ] {
        assert!(!learned.contains(&parse(unexpected)), "{unexpected} learned:\n{text}");
    }
    // The scoped back pointer speaks of the header's region.
    for inv in &learned {
        if let Invariant::Inverse { scope, field, .. } = inv {
            if field != "next" {
                continue;
            }
            assert_eq!(
                scope,
                &Scope::Within {
                    root: "structures/NodeCachingList".into(),
                    field: "header".into()
                }
            );
        }
    }
}

#[test]
fn a_search_tree_yields_tree_edges_a_node_count_and_positive_heights() {
    let learned = learn(&trees());
    let text = Invariants::from_items(learned.clone()).to_text();
    for expected in [
        "unshared structures.AvlTree.root",
        "unshared structures.AvlTree$Node.left",
        "unshared structures.AvlTree$Node.right",
        "range structures.AvlTree$Node.height 1..",
        "range structures.AvlTree.size 0..",
        "count structures.AvlTree.size root (left|right)* +0",
    ] {
        assert!(
            learned.contains(&parse(expected)),
            "{expected} missing from\n{text}"
        );
    }
    for unexpected in [
        "count structures.AvlTree.size root left* +0",
        "range structures.AvlTree$Node.key 0..",
        "not-null structures.AvlTree$Node.left",
    ] {
        assert!(
            !learned.contains(&parse(unexpected)),
            "{unexpected} learned:\n{text}"
        );
    }
}

#[test]
fn too_few_observations_teach_nothing() {
    let all = lists();
    assert!(learn(&all[..5]).is_empty());
    // Enough snapshots but a count seen with one size only is no count.
    let same: Vec<HeapSnapshot> = (0..30).map(|_| list(&[1, 2], 0)).collect();
    let learned = learn(&same);
    assert!(!learned.iter().any(|i| matches!(i, Invariant::Count { .. })));
    // Without a cache, the back pointer holds of every node.
    assert!(learned.contains(&parse(
        "inverse structures.NodeCachingList$Node.next previous"
    )));
}

#[test]
fn lists_of_one_node_teach_no_back_pointer_that_only_a_two_node_cycle_has() {
    // Header and one node: `n.next.next == n` holds of both, and so does the real back
    // pointer; a full cache beside them does not make the chain itself any longer.
    let small: Vec<HeapSnapshot> = (0..60).map(|i| list(&[i % 7], (i % 4) as usize)).collect();
    let learned = learn(&small);
    let text = Invariants::from_items(learned.clone()).to_text();
    let inverses: Vec<&Invariant> = learned
        .iter()
        .filter(|i| matches!(i, Invariant::Inverse { .. }))
        .filter(|i| {
            i.to_string()
                .contains("within structures.NodeCachingList.header")
        })
        .collect();
    assert!(inverses.is_empty(), "learned from one-node chains:\n{text}");
    // Lists of three nodes and more show the chain's real back pointer, and only it.
    let mut varied = small;
    varied.extend((0..20).map(|i| list(&[i, i + 1, i + 2], 0)));
    let learned = learn(&varied);
    let text = Invariants::from_items(learned.clone()).to_text();
    assert!(
        learned.contains(&parse(
            "inverse structures.NodeCachingList$Node.next previous within structures.NodeCachingList.header"
        )),
        "{text}"
    );
    assert!(
        !learned.contains(&parse(
            "inverse structures.NodeCachingList$Node.next next within structures.NodeCachingList.header"
        )),
        "{text}"
    );
}

#[test]
fn caches_of_at_most_one_node_teach_no_count_of_the_cache() {
    // Cache sizes 0 and 1: the count through `next` fits, and so does the one through a cached
    // node's `previous` (always null): two sizes are too few to tell them apart.
    let small: Vec<HeapSnapshot> = (0..60)
        .map(|i| list(&[1, 2, 3][..(i % 4) as usize], (i % 2) as usize))
        .collect();
    let learned = learn(&small);
    let text = Invariants::from_items(learned.clone()).to_text();
    assert!(
        !text.contains("count structures.NodeCachingList.cacheSize"),
        "{text}"
    );
    // The list's own count saw four sizes.
    assert!(learned.contains(&parse(
        "count structures.NodeCachingList.size header next* -1"
    )));
    let mut varied = small;
    varied.extend((0..10).map(|i| list(&[i], 2 + (i % 3) as usize)));
    let learned = learn(&varied);
    let text = Invariants::from_items(learned.clone()).to_text();
    assert!(
        learned.contains(&parse(
            "count structures.NodeCachingList.cacheSize firstCached next* +0"
        )),
        "{text}"
    );
    assert!(!text.contains("firstCached previous*"), "{text}");
}

#[test]
fn a_snapshot_that_breaks_an_invariant_contradicts_it_and_only_it() {
    let mut l = Learner::new(LearnConfig::default(), vec!["structures".into()]);
    for s in lists() {
        l.absorb(&s);
    }
    let learned: Vec<Invariant> = l.infer().into_iter().map(|(i, _)| i).collect();
    // A legal list contradicts nothing.
    assert!(l.contradicted(&learned, &list(&[4, 5, 6], 1)).is_empty());
    // A size that is not the node count.
    let mut wrong_size = list(&[4, 5], 0);
    let receiver = wrong_size.receiver.clone().expect("a receiver");
    let (rid, _) = wrong_size.object(&receiver).expect("the list");
    let list_obj = wrong_size.objects.get_mut(&rid).expect("the list");
    if let Some(vs) = list_obj.values.as_mut() {
        vs[1] = ObservedValue::Int(7);
    }
    let hit: Vec<String> = l
        .contradicted(&learned, &wrong_size)
        .into_iter()
        .map(|n| learned[n].to_string())
        .collect();
    assert_eq!(
        hit,
        vec![
            "count structures.NodeCachingList.size header next* -1".to_string(),
            "count structures.NodeCachingList.size header previous* -1".to_string(),
        ]
    );
    // A negative cache size breaks the range (and the count).
    let mut negative = list(&[4], 0);
    if let Some(vs) = negative
        .objects
        .get_mut(&rid)
        .and_then(|o| o.values.as_mut())
    {
        vs[3] = ObservedValue::Int(-1);
    }
    let hit: Vec<String> = l
        .contradicted(&learned, &negative)
        .into_iter()
        .map(|n| learned[n].to_string())
        .collect();
    assert!(
        hit.contains(&"range structures.NodeCachingList.cacheSize 0..".to_string()),
        "{hit:?}"
    );
    // Learning on, the aggregate contradicts what it saw contradicted.
    l.absorb(&wrong_size);
    assert!(l.contradicts(&parse(
        "count structures.NodeCachingList.size header next* -1"
    )));
    assert!(!l.contradicts(&parse("range structures.NodeCachingList.size 0..")));
}

#[test]
fn truncated_snapshots_count_no_structure_and_no_sharing() {
    let mut l = Learner::new(LearnConfig::default(), vec!["structures".into()]);
    for mut s in lists() {
        s.truncated = true;
        // The last node unread, as past a bound.
        if let Some(o) = s.objects.values_mut().last() {
            o.values = None;
        }
        l.absorb(&s);
    }
    let learned: Vec<Invariant> = l.infer().into_iter().map(|(i, _)| i).collect();
    assert!(!learned
        .iter()
        .any(|i| matches!(i, Invariant::Unshared { .. })));
    // Counts come only from structures read whole: the last cached node is unread in every
    // snapshot with a cache, so the cache is never counted; the header's chain is whole in
    // those snapshots, so the list is.
    assert!(!learned
        .iter()
        .any(|i| matches!(i, Invariant::Count { field, .. } if field == "cacheSize")));
    assert!(learned.contains(&parse(
        "count structures.NodeCachingList.size header next* -1"
    )));
}
