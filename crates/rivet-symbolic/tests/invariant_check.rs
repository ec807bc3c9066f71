//! The check of a path condition's last clause against structural invariants agrees with lazy
//! initialization under them: no prefix of a path explored with the invariants contradicts
//! them, while the prefixes explored without them that end in a null inside the list or in
//! an alias into the middle of its chain do.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_pc::{Clause, PathCondition};
use rivet_symbolic::invariant_check::contradicted;
use rivet_symbolic::{ExploreConfig, Explorer, Invariants, MethodSpec};

const CLASS: &str = "structures/NodeCachingList";

fn learned() -> Invariants {
    let path = format!(
        "{}/tests/fixtures/learned/NodeCachingList.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    Invariants::parse(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Every prefix ending in a reference clause of every path of `method`.
fn prefixes(invariants: Invariants, method: &str) -> Vec<PathCondition> {
    let mut config = ExploreConfig {
        invariants,
        ..ExploreConfig::default()
    };
    config
        .heap_scope
        .insert("structures/NodeCachingList$Node".into(), 4);
    let explorer = Explorer::new(support::classpath(), config);
    let spec = MethodSpec::parse(method).unwrap();
    let mut out = Vec::new();
    explorer
        .explore(&spec, &mut |p, symbols| {
            for k in 0..p.pc.len() {
                if !matches!(p.pc[k], Clause::Numeric(_)) {
                    out.push(PathCondition::new(p.pc[..=k].to_vec(), symbols));
                }
            }
        })
        .unwrap();
    out
}

fn last(pc: &PathCondition) -> String {
    pc.texts().last().cloned().unwrap_or_default()
}

#[test]
fn nothing_explored_under_the_invariants_contradicts_them() {
    let inv = learned();
    for method in [
        "structures.NodeCachingList.clear()V",
        "structures.NodeCachingList.removeAt(I)I",
    ] {
        let all = prefixes(inv.clone(), method);
        assert!(!all.is_empty());
        for pc in &all {
            assert_eq!(contradicted(&inv, pc, CLASS), None, "{:?}", pc.texts());
        }
    }
}

#[test]
fn nulls_in_the_chain_and_aliases_into_its_middle_contradict_them() {
    let inv = learned();
    let all = prefixes(Invariants::default(), "structures.NodeCachingList.clear()V");
    let null_in_chain = |t: &str| t.starts_with("{this}.header.") && t.ends_with("== null");
    // `{this}.header.next.next.next == {this}.header.next`, on a chain built by next (the
    // first node's previous the header, as unlinking it reads): the node aliased already has
    // its predecessor.
    let next_chain = |t: &str| {
        t.strip_prefix("{this}.header")
            .is_some_and(|rest| !rest.is_empty() && rest.split(".next").all(str::is_empty))
    };
    let into_middle = |pc: &PathCondition| {
        let text = last(pc);
        let by_next_only = pc.texts().iter().all(|c| {
            !c.contains("previous") || c == "{this}.header.next.previous == {this}.header"
        });
        by_next_only
            && text
                .split_once(" == ")
                .is_some_and(|(a, b)| next_chain(a) && next_chain(b))
    };
    let mut seen = (0, 0);
    for pc in &all {
        let text = last(pc);
        if null_in_chain(&text) {
            seen.0 += 1;
            assert!(contradicted(&inv, pc, CLASS).is_some(), "{:?}", pc.texts());
        }
        if into_middle(pc) {
            seen.1 += 1;
            assert!(contradicted(&inv, pc, CLASS).is_some(), "{:?}", pc.texts());
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0, "{seen:?}");
    // Not everything is contradicted: the chain closing on the header is the list's shape.
    assert!(all.iter().any(
        |pc| last(pc).ends_with("== {this}.header") && contradicted(&inv, pc, CLASS).is_none()
    ));
}
