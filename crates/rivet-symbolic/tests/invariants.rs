//! Declarative invariants restrict lazy initialization: a field never null, a field that
//! only aliases an object reached by a path from its owner, a class that expands only to
//! the listed classes; heap scope bounds fresh objects.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_symbolic::{ExploreConfig, Invariants};

fn config(text: &str) -> ExploreConfig {
    ExploreConfig {
        invariants: Invariants::parse(text).unwrap_or_else(|e| panic!("{e}")),
        ..ExploreConfig::default()
    }
}

fn all_clauses(paths: &[support::Rendered]) -> Vec<String> {
    paths.iter().flat_map(|p| p.pc_texts()).collect()
}

const FIGURE3: &str = "lct.Examples.figure3(ILlct/SimpleList;)V";

#[test]
fn without_invariants_next_may_be_null_alias_or_fresh() {
    let (paths, _) = support::explore(FIGURE3, ExploreConfig::default());
    let clauses = all_clauses(&paths);
    assert!(clauses.contains(&"{arg2}.next == null".to_string()));
    assert!(clauses.contains(&"{arg2}.next == {arg2}".to_string()));
    assert!(clauses.contains(&"fresh({arg2}.next) : lct.SimpleList".to_string()));
}

#[test]
fn not_null_removes_the_null_choice() {
    let (paths, _) = support::explore(FIGURE3, config("not-null lct.SimpleList.next\n"));
    let clauses = all_clauses(&paths);
    assert!(
        !clauses.contains(&"{arg2}.next == null".to_string()),
        "{clauses:?}"
    );
    assert!(clauses.contains(&"{arg2}.next == {arg2}".to_string()));
}

#[test]
fn alias_only_allows_just_the_object_on_the_path() {
    let (paths, _) = support::explore(FIGURE3, config("alias-only lct.SimpleList.next this\n"));
    let clauses = all_clauses(&paths);
    assert!(clauses.contains(&"{arg2}.next == {arg2}".to_string()));
    assert!(
        !clauses.iter().any(|c| c.starts_with("fresh({arg2}.next)")),
        "{clauses:?}"
    );
}

#[test]
fn expand_only_picks_the_listed_classes() {
    let method = "sushi.Sample.sample(Ljava/util/LinkedList;Ljava/lang/Object;)Z";
    let mut cfg = config("expand-only java.lang.Object lct.SimpleList\n");
    cfg.heap_scope.insert("java/util/LinkedList$Node".into(), 1);
    let (paths, _) = support::explore(method, cfg);
    let clauses = all_clauses(&paths);
    assert!(
        clauses.iter().any(|c| c.ends_with(": lct.SimpleList")),
        "{clauses:?}"
    );
    assert!(
        !clauses.iter().any(|c| c.ends_with(": java.lang.Object")),
        "{clauses:?}"
    );
}

#[test]
fn heap_scope_bounds_fresh_objects_per_class() {
    let method = "sushi.Sample.sample(Ljava/util/LinkedList;Ljava/lang/Object;)Z";
    for n in [1u32, 2] {
        let mut cfg = ExploreConfig::default();
        cfg.heap_scope.insert("java/util/LinkedList$Node".into(), n);
        let (paths, summary) = support::explore(method, cfg);
        assert!(!summary.truncated);
        let most = paths
            .iter()
            .map(|p| {
                p.pc_texts()
                    .iter()
                    .filter(|c| c.ends_with(": java.util.LinkedList$Node"))
                    .count()
            })
            .max()
            .unwrap_or(0);
        assert_eq!(most, n as usize);
    }
}
