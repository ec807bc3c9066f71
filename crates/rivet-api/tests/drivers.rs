//! Drivers: the package's classes built around an instance of the class under test, whose
//! methods run it the way the program does (Closure Compiler's `PeepholeOptimizationsPass`
//! over a `PeepholeFoldConstants`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use rivet_api::{ApiModel, CallableKind, GenConfig, Generator, Rng};
use rivet_testcase::{JType, Statement};

fn closure_model(class: &str) -> ApiModel {
    common::model_in_jars(&["closure-compiler", "guava"], class)
}

/// The methods among the targets owned by neither the class under test nor one of its
/// superclasses.
fn drivers(m: &ApiModel) -> Vec<String> {
    let cut = JType::class(m.class.internal());
    m.targets
        .iter()
        .filter(|t| {
            t.kind == CallableKind::Method
                && !m.assignable(&cut, &JType::class(t.member.owner.internal()))
        })
        .map(|t| format!("{}.{}", t.member.owner.simple(), t.member.name))
        .collect()
}

#[test]
fn a_pass_built_around_the_optimization_runs_it_over_a_tree() {
    let m = closure_model("com.google.javascript.jscomp.PeepholeFoldConstants");
    let drivers = drivers(&m);
    for want in [
        "PeepholeOptimizationsPass.process",
        "PeepholeOptimizationsPass.visit",
    ] {
        assert!(
            drivers.iter().any(|d| d == want),
            "{want} not in {drivers:?}"
        );
    }
    // The pass's constructor takes `AbstractPeepholeOptimization...`: its array mostly holds
    // the class under test, not one of its eleven sibling optimizations.
    let process = m
        .targets
        .iter()
        .find(|t| t.member.name == "process")
        .unwrap()
        .clone();
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(5);
    let (mut built, mut holding) = (0, 0);
    let (mut arrays, mut single) = (0, 0);
    for _ in 0..300 {
        let mut t = rivet_testcase::TypedTest::new();
        if g.call(&mut rng, &mut t, &process, 0).is_none() {
            continue;
        }
        let s = t.statements();
        let has = |owner: &str| {
            s.iter().any(|st| {
                matches!(st, Statement::Construct { constructor, .. }
                    if constructor.owner.simple() == owner)
            })
        };
        if has("PeepholeOptimizationsPass") {
            built += 1;
            holding += usize::from(has("PeepholeFoldConstants"));
        }
        for st in s {
            if let Statement::Array {
                component,
                elements,
            } = st
            {
                if component.contains("AbstractPeepholeOptimization") {
                    arrays += 1;
                    single += usize::from(elements.len() == 1);
                }
            }
        }
    }
    // One optimization mostly: two that undo each other's rewrites loop over a tree.
    assert!(
        single * 3 > arrays * 2,
        "{single} of {arrays} arrays hold one"
    );
    assert!(built > 200, "{built} of 300 calls built the pass");
    assert!(
        holding * 2 > built,
        "{holding} of {built} passes hold the class"
    );
}

#[test]
fn a_pass_nothing_is_built_around_has_no_drivers() {
    // Callbacks are handed to a traversal as the interface `Callback`, which any callback
    // implements: no class of the package is built around this pass in particular.
    let m = closure_model("com.google.javascript.jscomp.DeadAssignmentsElimination");
    assert_eq!(drivers(&m), Vec::<String>::new());
}

#[test]
fn wrappers_of_the_same_kind_and_views_are_no_drivers() {
    // `MultiKeyMap(AbstractHashedMap)` decorates a map, `CloseShieldReader.wrap(Reader)` a
    // reader, `AbstractReferenceMap.ReferenceEntrySet(AbstractHashedMap)` is a view: each
    // forwards what a test calls on the class itself.
    for (jar, class) in [
        (
            "commons-collections4",
            "org.apache.commons.collections4.map.LRUMap",
        ),
        ("commons-io", "org.apache.commons.io.input.BoundedReader"),
        ("guava", "com.google.common.collect.TreeMultiset"),
    ] {
        let m = common::model_in_jars(&[jar], class);
        assert_eq!(drivers(&m), Vec::<String>::new(), "{class}");
    }
}
