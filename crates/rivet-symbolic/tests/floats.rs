//! Symbolic floats and doubles: float parameters and fields of lazily initialized objects are
//! symbols, float branches add IEEE clauses to the path condition, every reported path's
//! condition is satisfiable by Z3, and the input built from Z3's model replays concretely
//! along the same branches to the same end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::time::Duration;

use rivet_solver::{SolveResult, Solver, Z3Solver};
use rivet_symbolic::{ExploreConfig, Explorer, MethodSpec, PathEnd, PathRecord, SymbolTable};
use support::fx17;

/// Explores `method`, solves each path's condition with Z3, checks that the model satisfies
/// it (by the Rust evaluator), builds the input from Z3's model and replays it concretely.
/// Returns each path's end and clauses.
fn explore_and_replay(method: &str) -> Vec<(String, Vec<String>)> {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let spec = MethodSpec::parse(method).unwrap();
    let mut paths: Vec<(PathRecord, SymbolTable)> = Vec::new();
    explorer
        .explore(&spec, &mut |p: &PathRecord, symbols: &SymbolTable| {
            paths.push((p.clone(), symbols.clone()));
        })
        .unwrap();
    assert!(!paths.is_empty(), "{method}: no paths");
    let mut z3 = Z3Solver::new(Duration::from_secs(20));
    let mut out = Vec::new();
    for (record, symbols) in &paths {
        let terms: Vec<_> = record.pc.iter().map(|c| c.term().clone()).collect();
        let texts: Vec<String> = record.pc.iter().map(|c| c.text(symbols)).collect();
        let model = match z3.check(&terms) {
            SolveResult::Sat(m) => m,
            other => panic!(
                "{method} path {}: Z3 says {other:?} for {texts:?}",
                record.id
            ),
        };
        let numeric: Vec<_> = record
            .pc
            .iter()
            .filter(|c| c.kind() == rivet_symbolic::ClauseKind::Numeric)
            .map(|c| c.term().clone())
            .collect();
        assert!(
            model.satisfies(&numeric),
            "{method} path {}: the model {model:?} does not satisfy {texts:?}",
            record.id
        );
        // The input from Z3's model (not the explorer's own) takes the same path.
        let mut with_z3 = record.clone();
        with_z3.model.merge(&model);
        let input = with_z3.input(symbols);
        let run = explorer.replay(&spec, &input).unwrap();
        assert!(
            !run.forked,
            "{method} path {}: the replay was not concrete",
            record.id
        );
        assert_eq!(
            (&run.trace, &run.end),
            (&record.trace, &record.end),
            "{method} path {}: the concrete run of {input:?} diverged from {texts:?}",
            record.id
        );
        out.push((record.end_text(), texts));
    }
    out
}

#[test]
fn float_branches_are_symbolic_and_their_paths_replay() {
    let paths = explore_and_replay("fx17.Floats.classify(DF)Ljava/lang/String;");
    let all: Vec<String> = paths.iter().flat_map(|(_, pc)| pc.clone()).collect();
    // NaN, -0.0 and the saturating cast each have a path.
    assert!(all.contains(&"{arg1} != {arg1}".to_string()), "{all:#?}");
    assert!(
        all.iter().any(|c| c.contains("1.0 / {arg1} < 0.0")),
        "{all:#?}"
    );
    assert!(
        all.iter().any(|c| c.contains("(int) {arg1} == 2147483647")),
        "{all:#?}"
    );
    assert!(
        all.iter()
            .any(|c| c.contains("Math.sqrt({arg1} + 1.0) > 10.0")),
        "{all:#?}"
    );
    assert!(
        all.iter()
            .any(|c| c.contains("Math.min({arg1}, (double) {arg2}) < -3.0")),
        "{all:#?}"
    );
    let ends: BTreeSet<&str> = paths.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(ends, BTreeSet::from(["return"]), "{paths:#?}");
    // Every return value's path is there: nan, negative zero, saturated, far, low, odd, other.
    assert!(paths.len() >= 7, "{paths:#?}");
}

#[test]
fn fields_of_lazily_initialized_objects_are_float_symbols() {
    let paths = explore_and_replay("fx17.Floats.inside(Lfx17/Floats$Vec;F)I");
    let all: Vec<String> = paths.iter().flat_map(|(_, pc)| pc.clone()).collect();
    assert!(
        all.iter()
            .any(|c| c == "{arg1}.x * {arg1}.x + {arg1}.y * {arg1}.y <= {arg2} * {arg2}"),
        "{all:#?}"
    );
    assert!(all.iter().any(|c| c == "{arg1}.weight > 1.0"), "{all:#?}");
    // null, inside light, inside heavy, NaN distance, outside.
    assert!(paths.len() >= 5, "{paths:#?}");
}

#[test]
fn an_unmodelled_math_function_concretizes_its_argument() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let (paths, _) = support::explore_with(&explorer, "fx17.Floats.unmodelled(D)D");
    // sin is computed on the model's value of x, which the path condition pins exactly.
    assert_eq!(paths.len(), 1, "{paths:#?}");
    let pc = paths[0].pc_texts();
    assert!(
        pc.contains(&"Double.doubleToLongBits({arg1}) == 0L".to_string()),
        "{pc:?}"
    );
    assert_eq!(paths[0].record.end, PathEnd::Return);
}
