//! Invariants learned from real objects (the files `rivet generate --keep-artifacts` wrote for
//! the subjects, in tests/fixtures/learned) prune lazy initialization and add clauses: far
//! fewer paths, no branch lost, every path condition solved whole and its model replayed
//! along the same branches; and each kind does what it says (a back pointer aliases the
//! owner, a count ties the size to the nodes, a tree edge never aliases, a range bounds).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;

use rivet_symbolic::{ExploreConfig, Explorer, Invariants, MethodSpec, Replay};

fn learned(name: &str) -> Invariants {
    let path = format!(
        "{}/tests/fixtures/learned/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Invariants::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn config(node: &str, scope: u32, invariants: Invariants) -> ExploreConfig {
    let mut c = ExploreConfig {
        invariants,
        ..ExploreConfig::default()
    };
    c.heap_scope.insert(node.into(), scope);
    c
}

fn branches(paths: &[support::Rendered]) -> BTreeSet<u32> {
    paths
        .iter()
        .flat_map(|p| p.branches.iter().copied())
        .collect()
}

/// Every path's condition solved whole and replayed concretely along the same branches.
fn all_confirmed(config: ExploreConfig, method: &str) -> Vec<support::Rendered> {
    let explorer = Explorer::new(support::classpath(), config);
    let spec = MethodSpec::parse(method).unwrap();
    let mut solver = explorer.config().solver();
    let mut out = Vec::new();
    explorer
        .explore(&spec, &mut |p, symbols| {
            let c = explorer.confirm(&spec, p, symbols, &mut solver);
            assert_eq!(
                c.replay,
                Replay::Confirmed,
                "path {}: {:?}",
                p.id,
                p.pc.iter().map(|c| c.text(symbols)).collect::<Vec<_>>()
            );
            out.push(support::Rendered {
                id: p.id,
                pc: p
                    .pc
                    .iter()
                    .map(|c| (c.kind().name().to_string(), c.text(symbols)))
                    .collect(),
                branches: p.branches.clone(),
                end: p.end_text(),
                record: p.clone(),
            });
        })
        .unwrap();
    out
}

const REMOVE_AT: &str = "structures.NodeCachingList.removeAt(I)I";
const LIST_NODE: &str = "structures/NodeCachingList$Node";

#[test]
fn a_caching_list_explores_a_third_of_the_paths_or_fewer_and_loses_no_branch() {
    let (without, summary) =
        support::explore(REMOVE_AT, config(LIST_NODE, 5, Invariants::default()));
    assert!(!summary.truncated);
    let with = all_confirmed(config(LIST_NODE, 5, learned("NodeCachingList")), REMOVE_AT);
    assert!(
        with.len() * 3 <= without.len(),
        "{} paths with, {} without",
        with.len(),
        without.len()
    );
    assert_eq!(branches(&with), branches(&without));
    let clauses: Vec<String> = with.iter().flat_map(|p| p.pc_texts()).collect();
    // The back pointer: a node reached by next points back to the one before.
    assert!(
        clauses.contains(&"{this}.header.next.previous == {this}.header".to_string()),
        "{clauses:?}"
    );
    // The count: a list closed after one node has size 1.
    assert!(
        clauses.contains(&"{this}.size == 1".to_string()),
        "{clauses:?}"
    );
    // Not null within the header's chain: no node of it is null.
    assert!(
        !clauses
            .iter()
            .any(|c| c.starts_with("{this}.header") && c.ends_with("== null")),
        "{clauses:?}"
    );
}

#[test]
fn a_count_is_assumed_as_soon_as_its_list_closes() {
    // Once the chain from the header is back at the header, the size is known, and the
    // branches on it are decided then instead of explored and dropped at the path's end: the
    // count's clause follows the alias that closed the list.
    let (with, _) = support::explore(REMOVE_AT, config(LIST_NODE, 5, learned("NodeCachingList")));
    let mut closed = 0;
    for p in &with {
        let texts = p.pc_texts();
        if let Some(i) = texts.iter().position(|c| c.starts_with("{this}.size == ")) {
            closed += 1;
            assert!(
                i > 0 && texts[i - 1].ends_with("== {this}.header"),
                "{}",
                p.show()
            );
        }
    }
    assert!(closed > 0, "no path closed its list");
}

const INSERT: &str = "structures.AvlTree.insert(I)Z";
const TREE_NODE: &str = "structures/AvlTree$Node";

#[test]
fn a_search_tree_explores_a_third_of_the_paths_or_fewer_and_loses_no_branch() {
    let (without, summary) = support::explore(INSERT, config(TREE_NODE, 2, Invariants::default()));
    assert!(!summary.truncated);
    let with = all_confirmed(config(TREE_NODE, 2, learned("AvlTree")), INSERT);
    assert!(
        with.len() * 3 <= without.len(),
        "{} paths with, {} without",
        with.len(),
        without.len()
    );
    assert_eq!(branches(&with), branches(&without));
    let clauses: Vec<String> = with.iter().flat_map(|p| p.pc_texts()).collect();
    // Tree edges never alias: no alias clause at all.
    let without_clauses: Vec<String> = without.iter().flat_map(|p| p.pc_texts()).collect();
    assert!(without_clauses
        .iter()
        .any(|c| c.starts_with("{this}.root.") && c.ends_with("== {this}.root")));
    assert!(
        !clauses.iter().any(|c| c.ends_with("== {this}.root")),
        "{clauses:?}"
    );
    // Heights are positive; the size counts the nodes read.
    assert!(
        clauses.contains(&"{this}.root.height >= 1".to_string()),
        "{clauses:?}"
    );
    assert!(
        clauses
            .iter()
            .any(|c| c == "{this}.size == 1" || c == "{this}.size >= 1"),
        "{clauses:?}"
    );
}

#[test]
fn a_count_the_heap_contradicts_drops_the_path_and_is_counted_as_used() {
    // size = nodes + 5, but at most 4: no list whose header the path read can be.
    let inv = Invariants::parse(
        "not-null structures.NodeCachingList.header\n\
         count structures.NodeCachingList.size header next* +5\n\
         range structures.NodeCachingList.size ..4\n",
    )
    .unwrap();
    let (paths, summary) = support::explore(REMOVE_AT, config(LIST_NODE, 2, inv));
    // Every list has at least the header: size >= 6 contradicts size <= 4, so only the paths
    // that never read the header (an index out of bounds) end.
    assert!(!paths.is_empty());
    for p in &paths {
        assert!(
            !p.pc_texts().iter().any(|c| c.contains("{this}.header")),
            "{}",
            p.show()
        );
    }
    assert!(summary.pruned > 0);
    assert!(summary
        .invariant_uses
        .iter()
        .any(|(text, n)| text.starts_with("count ") && *n > 0));
}

#[test]
fn a_back_pointer_lets_no_two_nodes_point_to_the_same_one() {
    // Without the inverse, a node's next may alias a node in the middle of the chain; with
    // it, that node's previous would have to be two nodes at once.
    let clear = "structures.NodeCachingList.clear()V";
    let into_middle = |paths: &[support::Rendered]| {
        paths
            .iter()
            .flat_map(|p| p.pc_texts())
            .filter(|c| c.contains(".next == {this}.header.next"))
            .count()
    };
    let (without, _) = support::explore(
        clear,
        config(
            LIST_NODE,
            5,
            Invariants::parse("not-null structures.NodeCachingList.header\n").unwrap(),
        ),
    );
    assert!(into_middle(&without) > 0);
    let inverse = Invariants::parse(
        "not-null structures.NodeCachingList.header\n\
         inverse structures.NodeCachingList$Node.next previous within structures.NodeCachingList.header\n",
    )
    .unwrap();
    let with = all_confirmed(config(LIST_NODE, 5, inverse), clear);
    assert_eq!(
        into_middle(&with),
        0,
        "{:?}",
        with.iter().map(|p| p.show()).collect::<Vec<_>>()
    );
    assert_eq!(branches(&with), branches(&without));
}
