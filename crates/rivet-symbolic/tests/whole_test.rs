//! Whole-test replay (mode (a)): a test's primitives are symbols, the test runs along its
//! concrete path, and the call of interest is steered to another outcome; the solver's new
//! values must take it there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_classfile::ClassName;
use rivet_pc::{Concrete, SymbolSort};
use rivet_symbolic::{
    ExploreConfig, Explorer, MethodSpec, PathRecord, SymbolTable, TestStep, WholeTest,
};
use support::fx17;

/// The trace (branch ids of `Gauge`) of `check` returning `want`, from exploring it.
fn check_trace(explorer: &Explorer, want: i64) -> Vec<u32> {
    trace_of(explorer, "fx17.Gauge.check(I)I", want)
}

/// The trace (branch ids of `Gauge`) of `method` returning `want`, from exploring it.
fn trace_of(explorer: &Explorer, method: &str, want: i64) -> Vec<u32> {
    let spec = MethodSpec::parse(method).unwrap();
    let mut out = None;
    explorer
        .explore(&spec, &mut |p: &PathRecord, _: &SymbolTable| {
            let returns = p
                .result
                .as_ref()
                .map(|t| p.model.eval(t) == Concrete::Int(want as i32));
            if returns == Some(true) && out.is_none() {
                out = Some(p.trace.clone());
            }
        })
        .unwrap();
    out.expect("a path of check returning the value")
}

/// `Gauge g = new Gauge(start); g.add(delta); g.check(x);` as replay steps.
fn gauge_test(start: i32, delta: i32, x: i32, prefix: Vec<u32>) -> WholeTest {
    let class = ClassName::from_binary("fx17.Gauge");
    let int = |v: i32| TestStep::Primitive {
        sort: SymbolSort::Int,
        value: i64::from(v),
    };
    WholeTest {
        class: class.clone(),
        steps: vec![
            int(start),
            TestStep::New {
                class: class.clone(),
                descriptor: "(I)V".into(),
                args: vec![0],
            },
            int(delta),
            TestStep::Call {
                class: class.clone(),
                name: "add".into(),
                descriptor: "(I)V".into(),
                receiver: Some(1),
                args: vec![2],
            },
            int(x),
            TestStep::Call {
                class,
                name: "check".into(),
                descriptor: "(I)I".into(),
                receiver: Some(1),
                args: vec![4],
            },
        ],
        target: 5,
        prefix,
    }
}

/// The test's `start`, `delta` and `x` (statements 0, 2 and 4) after the solution's
/// changes to `gauge_test(5, 7, 1, _)`.
fn gauge_values(changed: &[(usize, i64)]) -> (i32, i32, i32) {
    let value = |k: usize, old: i32| {
        changed
            .iter()
            .find(|(s, _)| *s == k)
            .map_or(old, |(_, v)| *v as i32)
    };
    (value(0, 5), value(2, 7), value(4, 1))
}

#[test]
fn values_set_before_the_call_are_solved_for_through_the_constructor_and_calls() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let hit = check_trace(&explorer, 1);
    // The concrete run (5, 7, 1) misses: level 22 is not 4001.
    let test = gauge_test(5, 7, 1, hit);
    let solution = explorer
        .replay_test(&test)
        .unwrap()
        .expect("values that make check return 1");
    let (start, delta, x) = gauge_values(&solution.changed);
    assert!(!solution.changed.is_empty());
    // The constructor's branch keeps the side the concrete run took (start >= 0), and the
    // new values reach the hit.
    assert!(start >= 0, "start {start}");
    assert_eq!(
        start.wrapping_mul(3).wrapping_add(delta),
        x.wrapping_add(4000),
        "{:?}",
        solution.changed
    );
    let texts: Vec<String> = solution
        .pc
        .iter()
        .map(|c| c.text(&solution.symbols))
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("{s0}") && t.contains("{s4}")),
        "{texts:?}"
    );
}

#[test]
fn the_outcome_the_run_took_needs_no_new_values() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let miss = check_trace(&explorer, 0);
    let solution = explorer
        .replay_test(&gauge_test(5, 7, 1, miss))
        .unwrap()
        .expect("the concrete run's own path");
    assert!(solution.changed.is_empty(), "{:?}", solution.changed);
}

#[test]
fn a_primitive_passed_where_a_box_is_expected_is_boxed_and_solved_for() {
    // `g.checkBoxed(int0)` with `int0` an int: javac boxes it, and so must the replay (it
    // failed with "expected a reference" before), so that the solver can change the value.
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let hit = trace_of(&explorer, "fx17.Gauge.checkBoxed(Ljava/lang/Integer;)I", 1);
    let mut test = gauge_test(5, 7, 1, hit);
    if let Some(TestStep::Call {
        name, descriptor, ..
    }) = test.steps.get_mut(5)
    {
        *name = "checkBoxed".into();
        *descriptor = "(Ljava/lang/Integer;)I".into();
    }
    let solution = explorer
        .replay_test(&test)
        .unwrap()
        .expect("values that make checkBoxed return 1");
    let (start, delta, x) = gauge_values(&solution.changed);
    assert_eq!(
        start.wrapping_mul(3).wrapping_add(delta),
        x.wrapping_add(4000),
        "{:?}",
        solution.changed
    );
}
