//! The exploration's time budget holds on a path that asks the solver at every branch and
//! never forks (each query may take the solver's whole time limit).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use rivet_pc::Term;
use rivet_solver::{SolveResult, Solver, SolverStats};
use rivet_symbolic::{ExploreConfig, ExploreSummary, Explorer, MethodSpec, PathEnd};
use support::fx17;

/// A solver that spends its time limit on every query and gives up, as Z3 does on a hard one.
struct GivesUp {
    calls: u64,
}

impl Solver for GivesUp {
    fn check(&mut self, _clauses: &[Term]) -> SolveResult {
        self.calls += 1;
        std::thread::sleep(Duration::from_millis(20));
        SolveResult::Unknown("timeout".into())
    }

    fn stats(&self) -> SolverStats {
        SolverStats::default()
    }
}

/// Explores `fx17.Slow.count` (200 branches on one path, each a query) with a solver that
/// always gives up; the summary and each path's end.
fn explore_slow_count(explorer: &Explorer) -> (ExploreSummary, Vec<PathEnd>) {
    let spec = MethodSpec::parse("fx17.Slow.count(I)I").unwrap();
    let mut ends = Vec::new();
    let summary = explorer
        .explore_with(&spec, Box::new(GivesUp { calls: 0 }), &mut |p, _| {
            ends.push(p.end.clone())
        })
        .unwrap();
    (summary, ends)
}

#[test]
fn a_path_that_asks_the_solver_at_every_branch_stops_at_the_time_budget() {
    let explorer = Explorer::new(
        fx17(),
        ExploreConfig {
            time_budget: Some(Duration::from_millis(200)),
            ..ExploreConfig::default()
        },
    );
    let (summary, ends) = explore_slow_count(&explorer);
    // 200 branches, each a query of 20 ms: the budget of 200 ms allows about ten.
    assert!(
        summary.solver_calls < 100,
        "{} queries after the budget of 200 ms",
        summary.solver_calls
    );
    assert!(summary.solver_calls >= 1, "{summary:?}");
    assert_eq!(summary.returns, 0, "{ends:?}");
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0], PathEnd::Bound("time budget".into()), "{ends:?}");
}

#[test]
fn an_exploration_on_a_stopped_clock_ends_at_its_next_deadline_check() {
    // The same path, with time for all its 200 queries (4 s): stopped from another thread
    // after a few, it ends at the budget's bound instead of returning.
    let (clock, stop) = rivet_clock::RunClock::wall().stoppable();
    let explorer = Explorer::new(
        fx17(),
        ExploreConfig {
            time_budget: Some(Duration::from_secs(600)),
            ..ExploreConfig::default()
        },
    )
    .on_clock(clock);
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        stop.stop();
    });
    let (summary, ends) = explore_slow_count(&explorer);
    stopper.join().unwrap();
    assert_eq!(summary.returns, 0, "{ends:?}");
    assert_eq!(ends, vec![PathEnd::Bound("time budget".into())]);
    assert!(summary.solver_calls < 200, "{summary:?}");
}

#[test]
fn on_a_virtual_clock_each_query_the_solver_gave_up_on_costs_its_time_limit() {
    // A cap of 1,000 tests in 100 s: the path's few thousand steps are a fraction of a second
    // of virtual time, so without the queries' cost the path would ask all its 200 queries,
    // each of which took the solver's limit (250 ms here) on the wall clock.
    let clock = rivet_clock::RunClock::for_budget(Duration::from_secs(100), Some(1_000));
    let explorer = Explorer::new(
        fx17(),
        ExploreConfig {
            time_budget: Some(Duration::from_secs(1)),
            solver_timeout: Duration::from_millis(250),
            ..ExploreConfig::default()
        },
    )
    .on_clock(clock.clone());
    let (summary, ends) = explore_slow_count(&explorer);
    assert_eq!(ends, vec![PathEnd::Bound("time budget".into())]);
    // Four give-ups take the budget of a second; the fifth is found past it.
    assert!(
        (4..=5).contains(&summary.solver_calls),
        "{} queries in a budget of four",
        summary.solver_calls
    );
    assert!(clock.now() >= Duration::from_secs(1), "{:?}", clock.now());
}
