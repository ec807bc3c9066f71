//! Every path condition Rivet reports is satisfiable by Z3 (reference clauses included, as
//! logical addresses), its model satisfies its numeric clauses, and the concrete input
//! built from it by direct heap setup follows the same branches to the same end when run
//! concretely by the interpreter.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use rivet_solver::{SolveResult, Solver, Z3Solver};
use rivet_symbolic::concrete::PathInput;
use rivet_symbolic::{ExploreConfig, Explorer, MethodSpec, PathEnd, PathRecord, SymbolTable};

struct Case {
    method: &'static str,
    scope: &'static [(&'static str, u32)],
    max_paths: u64,
}

const CASES: &[Case] = &[
    Case {
        method: "lct.Examples.figure1(II)I",
        scope: &[],
        max_paths: 100,
    },
    Case {
        method: "lct.Examples.figure3(ILlct/SimpleList;)V",
        scope: &[],
        max_paths: 100,
    },
    Case {
        method: "lct.Examples.figure12(Llct/SimpleList;Llct/SimpleList;I)I",
        scope: &[],
        max_paths: 100,
    },
    Case {
        method: "lct.Examples.figure15(II)I",
        scope: &[],
        max_paths: 100,
    },
    Case {
        method: "sushi.Sample.sample(Ljava/util/LinkedList;Ljava/lang/Object;)Z",
        scope: &[("java/util/LinkedList$Node", 2)],
        max_paths: 300,
    },
    Case {
        method: "structures.AvlTree.insert(I)Z",
        scope: &[("structures/AvlTree$Node", 3)],
        max_paths: 300,
    },
    Case {
        method: "structures.AvlTree.remove(I)Z",
        scope: &[("structures/AvlTree$Node", 3)],
        max_paths: 300,
    },
    Case {
        method: "structures.NodeCachingList.removeAt(I)I",
        scope: &[("structures/NodeCachingList$Node", 3)],
        max_paths: 300,
    },
];

fn explore(explorer: &Explorer, method: &str) -> Vec<(PathRecord, PathInput)> {
    let spec = MethodSpec::parse(method).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    explorer
        .explore(&spec, &mut |p: &PathRecord, symbols: &SymbolTable| {
            out.push((p.clone(), p.input(symbols)));
        })
        .unwrap_or_else(|e| panic!("{method}: {e}"));
    out
}

#[test]
fn reported_paths_are_feasible_and_replay_concretely() {
    let classpath = support::classpath();
    let mut z3 = Z3Solver::new(Duration::from_secs(10));
    let mut checked = 0;
    let mut replayed = 0;
    for case in CASES {
        let mut config = ExploreConfig {
            max_paths: case.max_paths,
            ..ExploreConfig::default()
        };
        for (class, n) in case.scope {
            config.heap_scope.insert(class.to_string(), *n);
        }
        let explorer = Explorer::new(classpath.clone(), config);
        let spec = MethodSpec::parse(case.method).unwrap_or_else(|e| panic!("{e}"));
        let paths = explore(&explorer, case.method);
        assert!(!paths.is_empty(), "{}: no paths", case.method);
        for (record, input) in &paths {
            let terms: Vec<_> = record.pc.iter().map(|c| c.term().clone()).collect();
            let numeric: Vec<_> = record
                .pc
                .iter()
                .filter(|c| c.kind() == rivet_symbolic::ClauseKind::Numeric)
                .map(|c| c.term().clone())
                .collect();
            assert!(
                record.model.satisfies(&numeric),
                "{} path {}: its model does not satisfy its numeric clauses",
                case.method,
                record.id
            );
            match z3.check(&terms) {
                SolveResult::Sat(_) => checked += 1,
                other => panic!(
                    "{} path {}: Z3 says {other:?} for {terms:?}",
                    case.method, record.id
                ),
            }
            // Bound paths stop early; imprecise ones used values of calls that were not
            // followed (LCT's figure 15 is such a case): both are not expected to replay.
            if matches!(record.end, PathEnd::Bound(_)) || record.imprecise {
                continue;
            }
            let run = explorer
                .replay(&spec, input)
                .unwrap_or_else(|e| panic!("{} path {}: replay: {e}", case.method, record.id));
            assert_eq!(
                (&run.trace, &run.end),
                (&record.trace, &record.end),
                "{} path {}: the concrete run diverged (input {input:?})",
                case.method,
                record.id
            );
            replayed += 1;
        }
    }
    assert!(
        checked > 500 && replayed > 500,
        "checked {checked}, replayed {replayed}"
    );
}

#[test]
fn queries_proved_unsatisfiable_are_kept_when_asked_for_and_are_unsatisfiable() {
    let classpath = support::classpath();
    let method = "lct.Examples.figure1(II)I";
    let spec = MethodSpec::parse(method).unwrap_or_else(|e| panic!("{e}"));
    let config = |record_unsat| ExploreConfig {
        record_unsat,
        ..ExploreConfig::default()
    };
    let sink = &mut |_: &PathRecord, _: &SymbolTable| {};
    let none = Explorer::new(classpath.clone(), config(0))
        .explore(&spec, sink)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(none.unsat.is_empty());
    // `x + 5 > 2` after `x + 5 <= 0` cannot hold.
    let kept = Explorer::new(classpath, config(8))
        .explore(&spec, sink)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!kept.unsat.is_empty() && kept.unsat.len() <= 8);
    let mut z3 = Z3Solver::new(Duration::from_secs(10));
    for pc in &kept.unsat {
        let terms: Vec<_> = pc.clauses.iter().map(|c| c.term().clone()).collect();
        assert_eq!(z3.check(&terms), SolveResult::Unsat, "{:?}", pc.texts());
        assert!(pc
            .texts()
            .iter()
            .all(|t| t.contains("{arg1}") || t.contains("{arg2}")));
    }
}

#[test]
fn the_solver_refutes_a_path_with_one_of_its_clauses_negated_and_no_path() {
    let mut config = ExploreConfig {
        max_paths: 40,
        ..ExploreConfig::default()
    };
    config
        .heap_scope
        .insert("structures/NodeCachingList$Node".into(), 3);
    let explorer = Explorer::new(support::classpath(), config);
    let method = "structures.NodeCachingList.removeAt(I)I";
    let spec = MethodSpec::parse(method).unwrap_or_else(|e| panic!("{e}"));
    let mut conditions = Vec::new();
    explorer
        .explore(&spec, &mut |p: &PathRecord, symbols: &SymbolTable| {
            conditions.push(rivet_symbolic::PathCondition::new(p.pc.clone(), symbols));
        })
        .unwrap_or_else(|e| panic!("{method}: {e}"));
    let mut contradicted = Vec::new();
    for pc in &conditions {
        let Some(term) = pc.clauses.iter().rev().find_map(|c| match c {
            rivet_symbolic::Clause::Numeric(t) if !t.is_const() => Some(t.clone()),
            _ => None,
        }) else {
            continue;
        };
        let mut bad = pc.clone();
        bad.clauses.push(rivet_symbolic::Clause::Numeric(
            rivet_pc::Term::negation(term).unwrap(),
        ));
        contradicted.push(bad);
    }
    assert!(conditions.len() >= 10 && contradicted.len() >= 10);
    let deadline = explorer.clock().deadline(Duration::from_secs(60));
    let paths: Vec<_> = conditions.iter().collect();
    assert!(explorer.refuted(&paths, deadline).iter().all(|r| !r));
    let bad: Vec<_> = contradicted.iter().collect();
    assert!(explorer.refuted(&bad, deadline).iter().all(|r| *r));
    // Past the deadline nothing is checked, so nothing is refuted.
    let past = explorer.clock().now();
    assert!(explorer.refuted(&bad, past).iter().all(|r| !r));
}
