//! An unvisited node of the execution tree and the executor's answer about it, as a unit of
//! work that runs in the strategy's turn or on the solving thread beside the search: the
//! question (`NodeQuestion`), what came of it (`NodeAnswer`), and a question in flight
//! (`NodeInFlight`).

use std::time::Duration;

use rivet_clock::ClockStop;
use rivet_pc::PathCondition;
use rivet_search::observed_symbol;
use rivet_solver::SolverJob;
use rivet_symbolic::{ExploreConfig, Explorer, Guidance, MethodSpec, PathEnd, SearcherKind, Trace};
use rivet_testcase::TypedTest;
use tracing::debug;

use crate::inputs::{arguments_only, with_arguments};
use crate::whole::{whole_test, with_values};

/// An unvisited node: the outcome `prefix.last()` in place of the one a run took, after the
/// outcomes before it, in a call of `target` made by `statement` of `test`.
pub(crate) struct Node {
    pub target: usize,
    pub test: TypedTest,
    pub statement: usize,
    pub prefix: Vec<u32>,
    /// No test covered the outcome when the node was picked.
    pub uncovered: bool,
}

/// A node to ask the executor about: the target's `spec`, explored by `explorer` within
/// `node_time` per exploration.
pub(crate) struct NodeQuestion {
    pub node: Node,
    pub spec: MethodSpec,
    pub explorer: Explorer,
    pub node_time: Duration,
    pub seed: u64,
    /// Negated outcomes the solver ruled out kept per node (TARDIS's infeasible examples).
    pub unsat_examples: usize,
}

/// What the executor said about a node.
#[derive(Default)]
pub(crate) struct NodeAnswer {
    /// A new test with the index of its call to the target.
    pub built: Option<(TypedTest, usize)>,
    /// A path the test's values cannot take and a heap shape could: a goal for the search.
    pub goal: Option<PathCondition>,
    /// Negated outcomes the solver proved unsatisfiable.
    pub unsat: Vec<PathCondition>,
    /// The solver found inputs for the node, and found them by replaying the whole test.
    pub solved: bool,
    pub whole: bool,
    /// The executor's time.
    pub took: Duration,
}

impl NodeQuestion {
    /// Follows the node's prefix with its outcome and solves for the path: new argument
    /// values, else the whole test's values, else a path-condition goal.
    pub fn answer(self) -> (Node, NodeAnswer) {
        let started = self.explorer.clock().now();
        let mut answer = NodeAnswer::default();
        self.solve(&mut answer);
        answer.took = self.explorer.clock().since(started);
        (self.node, answer)
    }

    fn solve(&self, answer: &mut NodeAnswer) {
        let node = &self.node;
        let explorer = self.explorer.with_config(ExploreConfig {
            depth: (node.prefix.len() as u32 + 40).min(400),
            searcher: SearcherKind::DepthFirst,
            max_paths: 8,
            time_budget: Some(self.node_time),
            solver_timeout: Duration::from_millis(250),
            guidance: Guidance::Trace(Trace::prefix(node.prefix.clone())),
            black_box_jdk: true,
            symbolic_strings: true,
            seed: self.seed,
            record_unsat: self.unsat_examples,
            ..ExploreConfig::default()
        });
        let mut found: Option<(PathCondition, rivet_pc::Model, bool)> = None;
        let explored = explorer.explore(&self.spec, &mut |path, symbols| {
            let ended = matches!(path.end, PathEnd::Return | PathEnd::Exception(_));
            let reaches = path.trace.starts_with(&node.prefix);
            if found.is_none() && ended && reaches {
                let pc = PathCondition::new(path.pc.clone(), symbols);
                found = Some((pc, path.model.clone(), path.imprecise));
            }
        });
        let Some((pc, model, imprecise)) = found else {
            let summary = explored.as_ref().ok();
            debug!(
                method = %self.spec.name,
                prefix = ?node.prefix,
                paths = summary.map(|s| s.paths),
                off_trace = summary.map(|s| s.pruned),
                unsat = summary.map(|s| s.unsat.len()),
                unsupported = summary.map(|s| s.unsupported),
                bounded = summary.map(|s| s.bounded),
                not_followed = summary.map(|s| s.not_followed),
                truncated = summary.map(|s| s.truncated),
                "concolic node: no path"
            );
            answer.unsat = explored.map(|s| s.unsat).unwrap_or_default();
            answer.built = self.solve_whole(answer);
            answer.solved = answer.built.is_some();
            return;
        };
        answer.solved = true;
        debug!(method = %self.spec.name, pc = ?pc.texts(), ?model, imprecise, prefix = ?node.prefix, "concolic node solved");
        if let Some(args) = arguments_only(&pc) {
            if let Some(built) = with_arguments(&node.test, node.statement, &args, &model) {
                debug!(test = ?built.0.test, "concolic test");
                answer.built = Some(built);
                return;
            }
        }
        // The condition needs more than the call's arguments: the whole test's values.
        answer.built = self.solve_whole(answer);
        let observable = pc.symbols.values().all(|s| observed_symbol(s).is_some());
        if answer.built.is_none() && !imprecise && observable {
            answer.goal = Some(pc);
        }
    }

    /// Mode (a): the node's test replayed whole, its primitives as symbols; new values for
    /// them become a test (the test expanded, each use of a value its own statement).
    fn solve_whole(&self, answer: &mut NodeAnswer) -> Option<(TypedTest, usize)> {
        let node = &self.node;
        let (whole, expanded, at) =
            whole_test(&self.spec.class, &node.test, node.statement, &node.prefix)?;
        let explorer = self.explorer.with_config(ExploreConfig {
            depth: 400,
            max_paths: 8,
            time_budget: Some(self.node_time),
            solver_timeout: Duration::from_millis(250),
            // The test's strings are symbols too.
            symbolic_strings: true,
            seed: self.seed,
            ..ExploreConfig::default()
        });
        let solution = match explorer.replay_test(&whole) {
            Ok(Some(s)) if !s.changed.is_empty() || !s.changed_strings.is_empty() => s,
            Ok(_) => return None,
            Err(e) => {
                debug!(error = %e, "whole-test replay failed");
                return None;
            }
        };
        answer.whole = true;
        debug!(method = %self.spec.name, changed = ?solution.changed, strings = ?solution.changed_strings, prefix = ?node.prefix, "whole-test replay solved");
        Some((
            with_values(&expanded, &solution.changed, &solution.changed_strings),
            at,
        ))
    }

    /// Starts the question on the solving thread; the returned handle's drop ends its
    /// explorations at their next deadline check.
    pub fn start(mut self) -> NodeInFlight {
        let (clock, stop) = self.explorer.clock().stoppable();
        self.explorer = self.explorer.on_clock(clock);
        NodeInFlight {
            answer: SolverJob::start(move || self.answer()),
            stop,
        }
    }
}

/// A node's question on the solving thread.
pub(crate) struct NodeInFlight {
    answer: SolverJob<(Node, NodeAnswer)>,
    stop: ClockStop,
}

impl NodeInFlight {
    /// Is the executor still at it?
    pub fn running(&self) -> bool {
        self.answer.running()
    }

    /// Its answer, waiting for it (None when the job panicked).
    pub fn answer(&self) -> Option<(Node, NodeAnswer)> {
        self.answer.wait()
    }
}

impl Drop for NodeInFlight {
    /// A question nobody waits for any more ends at its next deadline check.
    fn drop(&mut self) {
        self.stop.stop();
    }
}
