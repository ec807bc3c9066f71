//! The context of one exploration step and its outcomes: what the interpreter, lazy
//! initialization and the invariants work with besides the state (the program, the symbol
//! table, the solver, the configuration and the counters), how a step ends (`Step`,
//! `PathEnd`), and the feasibility questions a state asks (`Ctx::feasible`, `split`,
//! `follow`, `concretize`). It sits on the ground floor with `program`, `state`, `heap`,
//! `value` and `lazy`: nothing here knows the interpreter or the native models.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use std::sync::Arc;

use rivet_pc::{Clause, Model, SymbolTable, Term};
use rivet_solver::{SolveResult, Solver};

use crate::config::ExploreConfig;
use crate::program::Program;
use crate::state::SymbolicState;

/// Counters the interpreter keeps across states.
#[derive(Debug, Default)]
pub struct Counters {
    /// Successor states dropped: infeasible, over the heap scope, off the trace.
    pub pruned: u64,
    pub solver_calls: u64,
    pub solver_time: Duration,
    /// Checks the solver could not decide (the side is dropped).
    pub unknown: u64,
    /// Checks the backend gave up on, decided later or not (`unknown`, and those the
    /// alternating variable method then solved): each may have taken the solver's whole time
    /// limit, which a virtual clock is charged (`RunClock::spent`).
    pub gave_up: u64,
    /// Calls not followed (natives without a model and the like): fresh symbols returned.
    pub not_followed: u64,
    /// Calls not followed, by member (`a.b.C.name`).
    pub not_followed_members: HashMap<String, u64>,
    /// Branches covered by reported paths.
    pub covered: HashSet<u32>,
    pub next_call_symbol: u32,
    /// Queries answered by the model search without the solver.
    pub model_searches: u64,
    /// Questions answered `Unsat` because the clause negates an earlier one.
    pub fast_unsat: u64,
    /// Time spent in the model search (also counted in `solver_time`).
    pub search_time: Duration,
    /// Queries proved unsatisfiable, kept when `ExploreConfig::record_unsat` asks for them.
    pub unsat: Vec<rivet_pc::PathCondition>,
    /// Times each invariant (by number) removed a choice or added a clause.
    pub invariant_uses: HashMap<usize, u64>,
}

/// What the interpreter works with besides the state.
pub struct Ctx<'a> {
    pub program: &'a mut Program,
    pub symbols: &'a mut SymbolTable,
    pub solver: &'a mut dyn Solver,
    pub config: &'a ExploreConfig,
    pub counters: &'a mut Counters,
}

/// Why a path ended.
#[derive(Debug, Clone, PartialEq)]
pub enum PathEnd {
    Return,
    /// An exception no frame caught; its class (internal name).
    Exception(Arc<str>),
    /// A bound (depth, steps, frames, heap scope, array size); the reason.
    Bound(String),
    /// A feature or model the executor lacks (the member or instruction named): the path
    /// says nothing about the program, and is never taken for a program exception.
    Unsupported(String),
    /// Not a path: dropped (off the trace in trace-guided mode).
    Dropped,
}

/// The outcome of one step.
#[derive(Debug)]
pub enum Step {
    Continue,
    /// The state split: these are its successors (the stepped state is spent).
    Fork(Vec<SymbolicState>),
    End(PathEnd),
}

/// The outcome of splitting a state on a condition.
pub enum Split {
    /// Only the condition holds (its clause is added unless it is constant).
    True,
    /// Only its negation holds.
    False,
    /// Both are feasible: the stepped state takes the true side, this one the false side.
    Both(Box<SymbolicState>),
    /// Both are feasible but the depth bound is reached.
    Bound,
}

impl Ctx<'_> {
    /// Decides whether `numeric` plus `clause` is satisfiable: first by a cheap search
    /// around `base` (a model of `numeric`), then by the solver. The model returned holds
    /// the values that change.
    pub fn feasible(&mut self, numeric: &[Term], clause: &Term, base: &Model) -> Option<Model> {
        // The fast unsatisfiability check, before building and slicing the query.
        if let Ok(negated) = Term::negation(clause.clone()) {
            if clause.as_bool() == Some(false) || numeric.contains(&negated) {
                self.counters.solver_calls += 1;
                self.counters.fast_unsat += 1;
                self.record_unsat(numeric, clause);
                return None;
            }
        }
        let mut query = Vec::with_capacity(numeric.len() + 1);
        query.extend_from_slice(numeric);
        query.push(clause.clone());
        let started = Instant::now();
        let found = rivet_solver::search_model(base, &query);
        self.counters.search_time += started.elapsed();
        if let Some(m) = found {
            self.counters.model_searches += 1;
            self.counters.solver_time += started.elapsed();
            return Some(m);
        }
        self.counters.solver_calls += 1;
        let searched = self.solver.stats().avm_attempts;
        let r = self.solver.check(&query);
        self.counters.solver_time += started.elapsed();
        if matches!(r, SolveResult::Unknown(_)) || self.solver.stats().avm_attempts > searched {
            self.counters.gave_up += 1;
        }
        match r {
            SolveResult::Sat(m) => Some(m),
            SolveResult::Unsat => {
                self.record_unsat(numeric, clause);
                None
            }
            SolveResult::Unknown(reason) => {
                tracing::debug!(reason, "solver gave up; dropping the branch");
                self.counters.unknown += 1;
                None
            }
        }
    }

    /// Keeps an unsatisfiable query when asked to (`ExploreConfig::record_unsat`).
    fn record_unsat(&mut self, numeric: &[Term], clause: &Term) {
        if self.counters.unsat.len() < self.config.record_unsat {
            let clauses = numeric
                .iter()
                .chain(std::iter::once(clause))
                .map(|t| Clause::Numeric(t.clone()))
                .collect();
            let pc = rivet_pc::PathCondition::new(clauses, self.symbols);
            self.counters.unsat.push(pc);
        }
    }

    /// Splits `state` on boolean term `cond`.
    pub fn split(&mut self, state: &mut SymbolicState, cond: Term) -> Split {
        if let Some(b) = cond.as_bool() {
            return if b { Split::True } else { Split::False };
        }
        let negated = match Term::negation(cond.clone()) {
            Ok(n) => n,
            Err(_) => return Split::True,
        };
        let holds = state.model.eval(&cond) == rivet_pc::Concrete::Bool(true);
        let (model_side, other_side) = if holds {
            (cond.clone(), negated.clone())
        } else {
            (negated.clone(), cond.clone())
        };
        if self.config.guidance.follows_model() {
            // Concolic replay: the model is the concrete run's input; its side is taken
            // without asking about the other.
            if !state.numeric.contains(&model_side) {
                state.assume(Clause::Numeric(model_side));
            }
            return if holds { Split::True } else { Split::False };
        }
        let other_model = self.feasible(&state.numeric, &other_side, &state.model);
        match other_model {
            None => {
                self.counters.pruned += 1;
                if !state.numeric.contains(&model_side) {
                    state.assume(Clause::Numeric(model_side));
                }
                if holds {
                    Split::True
                } else {
                    Split::False
                }
            }
            Some(m) => {
                if state.depth >= self.config.depth {
                    return Split::Bound;
                }
                state.depth += 1;
                let mut other = state.clone();
                state.assume(Clause::Numeric(model_side));
                other.assume(Clause::Numeric(other_side));
                other.model.merge(&m);
                if !holds {
                    std::mem::swap(state, &mut other);
                }
                Split::Both(Box::new(other))
            }
        }
    }

    /// Assumes `cond` (`want`) or its negation (not `want`) without considering the other
    /// side (trace-guided replay: the run already decided); false when that side is
    /// infeasible. One solver call at most, only when the model does not satisfy it.
    pub fn follow(&mut self, state: &mut SymbolicState, cond: Term, want: bool) -> bool {
        let side = if want {
            cond
        } else {
            match Term::negation(cond) {
                Ok(n) => n,
                Err(_) => return false,
            }
        };
        if let Some(b) = side.as_bool() {
            return b;
        }
        if state.model.eval(&side) != rivet_pc::Concrete::Bool(true) {
            match self.feasible(&state.numeric, &side, &state.model) {
                Some(m) => state.model.merge(&m),
                None => {
                    self.counters.pruned += 1;
                    return false;
                }
            }
        }
        if !state.numeric.contains(&side) {
            state.assume(Clause::Numeric(side));
        }
        true
    }

    /// As `concretize`, but when the model's value is large, first tries a few small values
    /// the path allows (sizes and positions of arrays).
    pub fn concretize_small(&mut self, state: &mut SymbolicState, term: &Term) -> i64 {
        if term.as_const().is_none() && state.model.eval(term).as_i64().abs() > 64 {
            for small in [0i64, 1, 2, 3, 10, 16, 64] {
                let k = if term.sort() == rivet_pc::Sort::Long {
                    Term::long(small)
                } else {
                    Term::int(small as i32)
                };
                let Ok(eq) = Term::compare(rivet_pc::CmpOp::Eq, term.clone(), k) else {
                    break;
                };
                if let Some(m) = self.feasible(&state.numeric, &eq, &state.model.clone()) {
                    state.model.merge(&m);
                    state.assume(Clause::Numeric(eq));
                    return small;
                }
            }
        }
        self.concretize(state, term)
    }

    /// Makes `term` concrete: its value in the state's model, with the clause `term == v`
    /// (for a float or double, the clause that pins its exact value, see `Term::fp_is`;
    /// the value returned is then its bits).
    pub fn concretize(&mut self, state: &mut SymbolicState, term: &Term) -> i64 {
        pin_value(state, term).as_i64()
    }

    /// As `concretize`, the value as a constant term.
    pub fn concretize_term(&mut self, state: &mut SymbolicState, term: &Term) -> Term {
        Term::from_concrete(pin_value(state, term))
    }
}

/// Makes `term` concrete in `state`: its value in the state's model, assumed by a clause
/// (`Ctx::concretize`).
pub(crate) fn pin_value(state: &mut SymbolicState, term: &Term) -> rivet_pc::Concrete {
    if let Some(v) = term.as_concrete() {
        return v;
    }
    let v = state.model.eval(term);
    let clause = if term.sort().is_fp() {
        term.fp_is(v.clone())
    } else {
        Term::compare(
            rivet_pc::CmpOp::Eq,
            term.clone(),
            Term::from_concrete(v.clone()),
        )
        .ok()
    };
    if let Some(eq) = clause {
        if !state.numeric.contains(&eq) {
            state.assume(Clause::Numeric(eq));
        }
    }
    v
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
