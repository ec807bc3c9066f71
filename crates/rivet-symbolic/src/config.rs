//! The one configuration of an exploration, passed down to every part of the executor.

use std::collections::HashMap;
use std::time::Duration;

use crate::invariants::Invariants;

/// Which strategy picks the next state to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearcherKind {
    DepthFirst,
    BreadthFirst,
    /// Uniformly random among pending states, seeded.
    Random,
    /// States that covered a branch no finished path covered first, then depth-first.
    NewCoverageFirst,
}

impl SearcherKind {
    pub fn parse(text: &str) -> Option<SearcherKind> {
        Some(match text {
            "dfs" | "depth-first" => SearcherKind::DepthFirst,
            "bfs" | "breadth-first" => SearcherKind::BreadthFirst,
            "random" => SearcherKind::Random,
            "new-coverage" | "coverage-new-first" | "new-coverage-first" => {
                SearcherKind::NewCoverageFirst
            }
            _ => return None,
        })
    }
}

/// A concrete run's branches of the target class, in the order it took them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    /// The branch ids.
    pub branches: Vec<u32>,
    /// The trace is a prefix: paths that followed all of it go on freely (the concolic
    /// strategy's negated branch is the prefix's last element). Otherwise a path that takes
    /// a branch past its end is dropped too.
    pub prefix: bool,
}

impl Trace {
    /// A whole trace: every branch of the target class a path takes must be its next one.
    pub fn whole(branches: Vec<u32>) -> Trace {
        Trace {
            branches,
            prefix: false,
        }
    }

    /// A prefix: a path follows it, then goes on freely.
    pub fn prefix(branches: Vec<u32>) -> Trace {
        Trace {
            branches,
            prefix: true,
        }
    }
}

/// How a run is guided at its branches.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Guidance {
    /// Every feasible side of every branch is explored.
    #[default]
    Free,
    /// Trace-guided: branches of the target class follow the trace; paths that take another
    /// branch are dropped.
    Trace(Trace),
    /// Concolic replay, model-guided: a split takes the side the state's model satisfies
    /// without asking the solver about the other (the model holds a concrete run's inputs).
    /// With a trace, branches of the target class still ask where the trace wants the
    /// other side, and paths off the trace are dropped.
    Model { trace: Option<Trace> },
}

impl Guidance {
    /// The trace branches of the target class follow, if any.
    pub fn trace(&self) -> Option<&Trace> {
        match self {
            Guidance::Free => None,
            Guidance::Trace(t) => Some(t),
            Guidance::Model { trace } => trace.as_ref(),
        }
    }

    /// True if splits take the model's side without asking about the other.
    pub fn follows_model(&self) -> bool {
        matches!(self, Guidance::Model { .. })
    }
}

/// Bounds, invariants and strategy of one exploration.
#[derive(Debug, Clone)]
pub struct ExploreConfig {
    /// Maximum number of decisions (forks) along a path; deeper paths end as "bound".
    pub depth: u32,
    /// Maximum number of paths reported; exploration stops there.
    pub max_paths: u64,
    /// Maximum number of fresh symbolic objects per class (internal name) on a path;
    /// classes not listed are unbounded (the depth bounds them).
    pub heap_scope: HashMap<String, u32>,
    /// Maximum number of instructions run along one path (bounds concrete loops).
    pub max_steps: u64,
    /// Maximum call-stack height; deeper calls end the path as "bound".
    pub max_frames: usize,
    /// Maximum number of clauses of a path condition; longer paths end as "bound".
    pub max_clauses: usize,
    pub invariants: Invariants,
    pub searcher: SearcherKind,
    /// Seed of every random choice.
    pub seed: u64,
    /// Time limit of one solver check.
    pub solver_timeout: Duration,
    /// Time limit of one solver check with floats or doubles (then the AVM takes over).
    pub fp_timeout: Duration,
    /// The alternating variable method the solver falls back on when Z3 answers unknown.
    pub avm: rivet_solver::AvmConfig,
    /// How the run is guided at its branches: freely, by a concrete run's trace, or by the
    /// state's model (concolic replay).
    pub guidance: Guidance,
    // The options below are independent of the guidance and of each other.
    /// Static JDK methods without a model are black boxes: their results are fresh symbols
    /// and the path imprecise (LCT's view of code it does not trace; the concolic strategy's
    /// runs on the JVM tell whether a prediction through them held).
    pub black_box_jdk: bool,
    /// Strings are terms instead of opaque: an input string is a string symbol, and `String`'s
    /// methods, concatenation, builders, `parseInt` and `valueOf` build string clauses
    /// (`strings_symbolic`).
    pub symbolic_strings: bool,
    /// Budget of the whole exploration, on the explorer's clock.
    pub time_budget: Option<Duration>,
    /// Keep up to this many of the queries the solver proved unsatisfiable (the numeric path
    /// condition with the clause that could not be added), as `ExploreSummary::unsat`: the
    /// learned feasibility's infeasible examples. Zero keeps none.
    pub record_unsat: usize,
    /// Classes (internal names) beyond the target whose branches the paths record too, with
    /// the ids `program::covered_branch` gives (`rivet explore --cover`).
    pub cover: Vec<std::sync::Arc<str>>,
}

impl Default for ExploreConfig {
    fn default() -> ExploreConfig {
        ExploreConfig {
            depth: 60,
            max_paths: 100_000,
            heap_scope: HashMap::new(),
            max_steps: 200_000,
            max_frames: 200,
            max_clauses: 2_000,
            invariants: Invariants::default(),
            searcher: SearcherKind::DepthFirst,
            seed: 0,
            solver_timeout: Duration::from_secs(5),
            fp_timeout: rivet_solver::DEFAULT_FP_TIMEOUT,
            avm: rivet_solver::AvmConfig::default(),
            guidance: Guidance::Free,
            black_box_jdk: false,
            symbolic_strings: false,
            time_budget: None,
            record_unsat: 0,
            cover: Vec::new(),
        }
    }
}

impl ExploreConfig {
    /// The solver stack this configuration describes: Z3 with `solver_timeout` (and
    /// `fp_timeout`, at most that, for floats and doubles) behind the usual decorators, with
    /// the AVM fallback `avm`.
    pub fn solver(&self) -> rivet_solver::DefaultSolver {
        rivet_solver::solver_with(
            self.solver_timeout,
            self.fp_timeout.min(self.solver_timeout),
            self.avm,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guidance_says_which_trace_branches_follow_and_whether_splits_follow_the_model() {
        let trace = Trace::prefix(vec![3, 1]);
        assert_eq!(Guidance::Free.trace(), None);
        assert!(!Guidance::Free.follows_model());
        let traced = Guidance::Trace(trace.clone());
        assert_eq!(traced.trace(), Some(&trace));
        assert!(!traced.follows_model());
        let replay = Guidance::Model { trace: None };
        assert_eq!(replay.trace(), None);
        assert!(replay.follows_model());
        let steered = Guidance::Model {
            trace: Some(trace.clone()),
        };
        assert_eq!(steered.trace(), Some(&trace));
        assert!(steered.follows_model());
        assert!(!Trace::whole(vec![1]).prefix);
        assert_eq!(ExploreConfig::default().guidance, Guidance::Free);
    }
}
