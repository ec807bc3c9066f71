//! What the JVM's start-up sets, in the symbolic world where it never ran: system properties
//! (unset but the separators) and class-data sharing (off), so that code reading a property or
//! touching `Locale` explores as on a real JVM instead of ending in an exception that a real
//! run never throws.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_symbolic::{ExploreConfig, Explorer};
use support::{explore_with, fx17};

/// Every path of `method` returns, and together they take both outcomes of its first branch.
fn both_returns(method: &str) {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let (paths, summary) = explore_with(&explorer, method);
    let ends: Vec<&str> = paths.iter().map(|p| p.end.as_str()).collect();
    assert!(ends.iter().all(|e| *e == "return"), "{method}: {ends:?}");
    assert_eq!(
        summary.exceptions + summary.unsupported,
        0,
        "{method}: {ends:?}"
    );
    let first: Vec<u32> = paths
        .iter()
        .filter_map(|p| p.branches.first().copied())
        .collect();
    assert!(
        first.iter().any(|b| b % 2 == 0) && first.iter().any(|b| b % 2 == 1),
        "{method}: {first:?}"
    );
    // The path through the whole condition: the separator read and the default returned.
    assert!(
        paths.iter().any(|p| p.branches.len() > 1),
        "{method}: {ends:?}"
    );
}

#[test]
fn system_properties_are_unset_but_the_separators() {
    both_returns("fx17.Env.separators(I)I");
}

#[test]
fn locales_initialize_with_class_data_sharing_off() {
    both_returns("fx17.Env.root(I)I");
}

#[test]
fn the_clock_is_a_constant_in_a_static_initializer_and_an_input_elsewhere() {
    // `ImmutableCollections` salts `Set.of`'s order with `System.nanoTime()`: as a symbol, every
    // step of the iteration split on it (8 paths, none precise); as 0, the method has its two.
    both_returns("fx17.Env.firstOfSet(I)I");
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let (paths, _) = explore_with(&explorer, "fx17.Env.firstOfSet(I)I");
    assert_eq!(
        paths.len(),
        2,
        "{:?}",
        paths.iter().map(|p| &p.pc).collect::<Vec<_>>()
    );
    assert!(paths
        .iter()
        .all(|p| p.pc.iter().all(|(_, text)| !text.contains("nanoTime"))));
    let (paths, _) = explore_with(&explorer, "fx17.Env.late(I)I");
    assert_eq!(paths.len(), 2);
    assert!(paths.iter().all(|p| p
        .pc
        .iter()
        .any(|(_, text)| text.contains("System.nanoTime"))));
}

#[test]
fn atomics_use_their_var_handles_and_threads_their_parent() {
    // AtomicReference's VarHandle: before, its initializer's lookup was unsupported (150
    // paths in 20 s); `new Thread(…)` asked a symbolic current thread for its group and
    // priority (100,000 paths, most cut by bounds). Now each method has its two paths.
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    for method in ["fx17.Env.atomic(I)I", "fx17.Env.thread(I)I"] {
        both_returns(method);
        let (paths, summary) = explore_with(&explorer, method);
        assert_eq!(paths.len(), 2, "{method}");
        assert_eq!(summary.precise, 2, "{method}");
    }
}

#[test]
fn concurrent_maps_reach_their_table_through_unsafe_offsets() {
    // Before: Unsafe's reads and compare-and-sets not followed, 18,003 paths in 20 s, none
    // precise (most cut by bounds in retry loops); now the method's two, precise.
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    both_returns("fx17.Env.concurrentMap(I)I");
    let (paths, summary) = explore_with(&explorer, "fx17.Env.concurrentMap(I)I");
    assert_eq!((paths.len(), summary.precise), (2, 2));
}
