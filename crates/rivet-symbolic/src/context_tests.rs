//! How a split is guided, on hand-built states (no JVM, no solver): freely both feasible
//! sides, under `Guidance::Model` only the model's side without a question asked.

use rivet_pc::{CmpOp, SymbolId, SymbolSort, SymbolTable, Term};
use rivet_solver::{SolveResult, Solver, SolverStats};

use super::*;
use crate::config::{ExploreConfig, Guidance};
use crate::test_classes;

/// A solver that must not be needed: it answers unknown and counts the questions.
#[derive(Default)]
struct Unknowing {
    asked: u32,
}

impl Solver for Unknowing {
    fn check(&mut self, _clauses: &[Term]) -> SolveResult {
        self.asked += 1;
        SolveResult::Unknown("not in these tests".into())
    }

    fn stats(&self) -> SolverStats {
        SolverStats::default()
    }
}

fn x() -> Term {
    Term::var(SymbolId(0), SymbolSort::Int)
}

fn x_above(k: i32) -> Term {
    Term::compare(CmpOp::Gt, x(), Term::int(k)).expect("clause")
}

/// A state whose model has `x = 5`.
fn state_with_x_5() -> SymbolicState {
    let mut state = SymbolicState::new();
    state.model.set(SymbolId(0), 5);
    state
}

/// Splits `state` on `cond` under `config`; the split, the counters and the solver's count.
fn split_with(
    config: &ExploreConfig,
    state: &mut SymbolicState,
    cond: Term,
    tag: &str,
) -> (Split, Counters, u32) {
    let (mut program, _classes) = test_classes::program(tag);
    let mut symbols = SymbolTable::default();
    let mut solver = Unknowing::default();
    let mut counters = Counters::default();
    let split = {
        let mut ctx = Ctx {
            program: &mut program,
            symbols: &mut symbols,
            solver: &mut solver,
            config,
            counters: &mut counters,
        };
        ctx.split(state, cond)
    };
    (split, counters, solver.asked)
}

#[test]
fn a_free_split_keeps_both_feasible_sides_the_model_side_in_place() {
    let mut state = state_with_x_5();
    let (split, counters, _) = split_with(
        &ExploreConfig::default(),
        &mut state,
        x_above(3),
        "context-free",
    );
    let Split::Both(other) = split else {
        panic!("expected both sides");
    };
    // The stepped state keeps the side its model satisfies; the other side has a model of
    // its own, found by the search around the first (no solver needed for `x <= 3`).
    assert_eq!(state.numeric, vec![x_above(3)]);
    let negated = Term::negation(x_above(3)).expect("negation");
    assert_eq!(other.numeric, vec![negated.clone()]);
    assert_eq!(other.model.eval(&negated), rivet_pc::Concrete::Bool(true));
    assert_eq!((state.depth, other.depth), (1, 1));
    assert_eq!(counters.model_searches, 1);
}

#[test]
fn a_model_guided_split_takes_the_model_side_without_a_question() {
    let config = ExploreConfig {
        guidance: Guidance::Model { trace: None },
        ..ExploreConfig::default()
    };
    let mut state = state_with_x_5();
    let (split, counters, asked) = split_with(&config, &mut state, x_above(3), "context-model");
    assert!(matches!(split, Split::True));
    assert_eq!(state.numeric, vec![x_above(3)]);
    assert_eq!(state.depth, 0, "no decision was made");
    assert_eq!(
        (counters.solver_calls, counters.model_searches, asked),
        (0, 0, 0)
    );
    // The false side, when the model says so.
    let mut state = state_with_x_5();
    let (split, _, _) = split_with(&config, &mut state, x_above(7), "context-model-false");
    assert!(matches!(split, Split::False));
    assert_eq!(
        state.numeric,
        vec![Term::negation(x_above(7)).expect("negation")]
    );
}

#[test]
fn a_side_that_negates_an_assumed_clause_is_pruned_without_the_solver() {
    let mut state = state_with_x_5();
    let negated = Term::negation(x_above(3)).expect("negation");
    state.assume(rivet_pc::Clause::Numeric(x_above(3)));
    // Splitting on `x <= 3`: the model takes the false side, and the true side negates a
    // clause of the path, answered by the fast check.
    let (split, counters, asked) = split_with(
        &ExploreConfig::default(),
        &mut state,
        negated,
        "context-fast-unsat",
    );
    assert!(matches!(split, Split::False));
    assert_eq!((counters.pruned, counters.fast_unsat), (1, 1));
    assert_eq!(asked, 0, "the solver was not asked");
    assert_eq!(
        state.numeric,
        vec![x_above(3)],
        "the clause is not added twice"
    );
    assert_eq!(state.depth, 0);
}

#[test]
fn the_depth_bound_stops_a_split_with_two_feasible_sides() {
    let config = ExploreConfig {
        depth: 2,
        ..ExploreConfig::default()
    };
    let mut state = state_with_x_5();
    state.depth = 2;
    let (split, _, _) = split_with(&config, &mut state, x_above(3), "context-depth");
    assert!(matches!(split, Split::Bound));
    assert!(state.numeric.is_empty());
}
