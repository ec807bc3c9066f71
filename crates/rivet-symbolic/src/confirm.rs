//! Confirmation of an explored path by concrete replay: a model of its whole path condition
//! (the exploration's own model when the evaluator says it satisfies every numeric clause,
//! else the solver's, one independent part at a time), the input it describes run in
//! concrete mode, and whether that run took the path's branches and ended the same way.

use rivet_pc::{Clause, Concrete, Model, SymbolSort, SymbolTable, Term};
use rivet_solver::{SolveResult, Solver};

use crate::explorer::{Explorer, MethodSpec, PathRecord};
use crate::interp::PathEnd;

/// What concrete replay said of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replay {
    /// The replayed input took the same branches in the same order and ended the same way
    /// (for a path ended by a bound: took its branches first).
    Confirmed,
    /// It took other branches, ended otherwise, or met a decision on a symbol.
    Diverged,
    /// No model of the path condition was found (the solver gave up), or the replay failed.
    Unsolved,
}

impl Replay {
    pub fn as_str(self) -> &'static str {
        match self {
            Replay::Confirmed => "confirmed",
            Replay::Diverged => "diverged",
            Replay::Unsolved => "unsolved",
        }
    }
}

/// The confirmation of one path.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirmation {
    pub replay: Replay,
    /// The path condition has clauses over floats or doubles.
    pub fp: bool,
    /// The model's primitive values, readable (`{arg4} = 0.5`), in symbol order.
    pub values: Vec<String>,
}

/// True if a clause computes with floats or doubles.
pub fn is_fp_clause(clause: &Clause) -> bool {
    matches!(clause, Clause::Numeric(_)) && rivet_solver::z3_float::mentions_fp(clause.term())
}

/// A model of every clause of `numeric`, starting from `base`: each clause the model does
/// not satisfy is asked last (constraint independence then solves the part it depends on),
/// until all hold; None when the solver answers unsat or gives up.
pub fn solve_all(numeric: &[Term], base: &Model, solver: &mut dyn Solver) -> Option<Model> {
    let mut model = base.clone();
    for _ in 0..=numeric.len() {
        let Some(i) = numeric
            .iter()
            .position(|c| model.eval(c) != Concrete::Bool(true))
        else {
            return Some(model);
        };
        let mut query: Vec<Term> = numeric.to_vec();
        let last = query.remove(i);
        query.push(last);
        match solver.check(&query) {
            SolveResult::Sat(m) => model.merge(&m),
            SolveResult::Unsat | SolveResult::Unknown(_) => return None,
        }
    }
    model.satisfies(numeric).then_some(model)
}

/// A symbol's value as Java would write it.
fn readable(sort: SymbolSort, v: i64) -> String {
    let v = sort.normalize(v);
    match sort {
        SymbolSort::Boolean => (v != 0).to_string(),
        SymbolSort::Double => format!("{:?}", f64::from_bits(v as u64)),
        SymbolSort::Float => format!("{:?}f", f32::from_bits(v as u32)),
        SymbolSort::Long => format!("{v}L"),
        SymbolSort::Char => match char::from_u32(v as u32) {
            Some(c) if !c.is_control() && c != '\'' && c != '\\' => format!("'{c}'"),
            _ => format!("{v}"),
        },
        _ => v.to_string(),
    }
}

impl Explorer {
    /// Solves `path`'s whole path condition and replays the input it describes concretely.
    pub fn confirm(
        &self,
        spec: &MethodSpec,
        path: &PathRecord,
        symbols: &SymbolTable,
        solver: &mut dyn Solver,
    ) -> Confirmation {
        let fp = path.pc.iter().any(is_fp_clause);
        let numeric: Vec<Term> = path
            .pc
            .iter()
            .filter(|c| matches!(c, Clause::Numeric(_)))
            .map(|c| c.term().clone())
            .collect();
        let Some(model) = solve_all(&numeric, &path.model, solver) else {
            return Confirmation {
                replay: Replay::Unsolved,
                fp,
                values: Vec::new(),
            };
        };
        let mut values: Vec<(u32, String)> = model
            .iter()
            .filter_map(|(s, v)| {
                let info = symbols.info(s)?;
                (info.sort != SymbolSort::Ref)
                    .then(|| (s.0, format!("{} = {}", info.path, readable(info.sort, v))))
            })
            .collect();
        values.extend(model.strings().filter_map(|(s, v)| {
            let info = symbols.info(s)?;
            Some((s.0, format!("{} = {}", info.path, v.literal())))
        }));
        values.sort();
        let values = values.into_iter().map(|(_, text)| text).collect();
        let solved = PathRecord {
            model,
            ..path.clone()
        };
        let replay = match self.replay(spec, &solved.input(symbols)) {
            Ok(run) if !run.forked && run.trace == path.trace && run.end == path.end => {
                Replay::Confirmed
            }
            // A path ended by a bound is a prefix: the replay goes on past it.
            Ok(run)
                if !run.forked
                    && matches!(path.end, PathEnd::Bound(_))
                    && run.trace.starts_with(&path.trace) =>
            {
                Replay::Confirmed
            }
            Ok(run) => {
                tracing::debug!(path = path.id, ?run, "replay diverged");
                Replay::Diverged
            }
            Err(e) => {
                tracing::debug!(path = path.id, error = %e, "replay failed");
                Replay::Unsolved
            }
        };
        Confirmation { replay, fp, values }
    }
}
