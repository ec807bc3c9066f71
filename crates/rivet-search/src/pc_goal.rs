//! Path-condition goals (SUSHI): a test is at distance 0 from a path condition when, at the
//! entry of some call of the target method, the receiver and arguments satisfy every clause.
//! The distance is SUSHI's: the sum over the clauses in order of `δ ∈ [0, 1]`: numeric
//! clauses `1 − 1/(1 + |a − b| + ε)` when false (a comparison or a negated one; for float and
//! double operands `|a − b|` in `f64`, and 1 when an operand is NaN or the gap is not finite),
//! 1 when a value is undefined or not of the symbol's kind (floats and doubles enter the model
//! by their IEEE bits); reference equality 0/1; `fresh` 0 when the object is defined, of the
//! clause's class, and not one referred by an earlier `fresh` clause. The best call counts; a test that never calls the
//! method is at the maximal distance.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rivet_pc::{
    AccessPath, Clause, Concrete, Model, PathCondition, Step, SymbolId, SymbolInfo, SymbolSort,
    Term, TermKind, UnaryOp,
};
use rivet_testcase::{
    CallObservation, Execution, MemberRef, Observation, ObservedPath, ObservedRoot, ObservedStep,
    ObservedValue, TestCase,
};

use crate::goal::Objective;

/// SUSHI's ε: a false comparison of equal values still counts a little.
const EPSILON: f64 = 1e-3;

/// The observed path an access path names, if the worker can read it at a call (a root of
/// `this` or `argN`, then fields, numeric indices and lengths).
pub fn observed_path(path: &AccessPath) -> Option<ObservedPath> {
    let steps = path.steps();
    let (first, rest) = steps.split_first()?;
    let root = match first {
        Step::Root(r) if r == "this" => ObservedRoot::Receiver,
        Step::Root(r) => {
            let n: u8 = r.strip_prefix("arg")?.parse().ok()?;
            ObservedRoot::Argument(n.checked_sub(1)?)
        }
        _ => return None,
    };
    let mut out = Vec::with_capacity(rest.len());
    for s in rest {
        out.push(match s {
            Step::Root(_) => return None,
            Step::Field(f) => ObservedStep::Field(f.clone()),
            Step::Index(i) => ObservedStep::Index(i.parse().ok()?),
            Step::Length => ObservedStep::Length,
        });
    }
    Some(ObservedPath { root, steps: out })
}

/// The observed path of a symbol, if the worker can read its value at a call: strings are
/// not observed (their contents are not numbers), other symbols as `observed_path` says.
pub fn observed_symbol(info: &SymbolInfo) -> Option<ObservedPath> {
    if info.sort == SymbolSort::Str {
        return None;
    }
    observed_path(&info.path)
}

/// A path condition of a target method as a search goal.
#[derive(Debug, Clone)]
pub struct PathConditionObjective {
    pub member: MemberRef,
    pub pc: Arc<PathCondition>,
    /// The observed path of each symbol (None: not observable, so undefined).
    symbols: BTreeMap<SymbolId, Option<ObservedPath>>,
    /// Per clause, the observed paths of its reference paths (`path`, and `target` of aliases).
    clause_paths: Vec<(Option<ObservedPath>, Option<ObservedPath>)>,
    /// The integer constants its numeric clauses compare against, and their neighbours.
    literals: Vec<i64>,
}

impl PathConditionObjective {
    pub fn new(member: MemberRef, pc: Arc<PathCondition>) -> PathConditionObjective {
        let symbols = pc
            .symbols
            .iter()
            .map(|(s, info)| (*s, observed_symbol(info)))
            .collect();
        let clause_paths = pc
            .clauses
            .iter()
            .map(|c| match c {
                Clause::Numeric(_) => (None, None),
                Clause::Null { path, .. } | Clause::Fresh { path, .. } => {
                    (observed_path(path), None)
                }
                Clause::Alias { path, target, .. } => (observed_path(path), observed_path(target)),
            })
            .collect();
        let mut literals = BTreeSet::new();
        for c in &pc.clauses {
            if let Clause::Numeric(term) = c {
                int_literals(term, &mut literals);
            }
        }
        PathConditionObjective {
            member,
            pc,
            symbols,
            clause_paths,
            literals: literals.into_iter().collect(),
        }
    }

    /// What the worker must read at calls of the target method for this goal.
    pub fn observation(&self) -> Observation {
        let mut paths: BTreeSet<ObservedPath> = self.symbols.values().flatten().cloned().collect();
        for (a, b) in &self.clause_paths {
            paths.extend(a.iter().cloned());
            paths.extend(b.iter().cloned());
        }
        Observation {
            member: self.member.clone(),
            paths: paths.into_iter().collect(),
        }
    }

    /// The distance of a test that never calls the method: more than any call's.
    pub fn max_distance(&self) -> f64 {
        self.pc.clauses.len() as f64 + 1.0
    }

    /// The distance of the state observed at one call.
    pub fn distance(&self, call: &CallObservation) -> f64 {
        self.distance_below(call, f64::INFINITY)
    }

    /// The distance at one call, or any value of at least `bound` once the clauses so far add
    /// up to `bound` (the fitness keeps the best call, so the rest need not be read).
    fn distance_below(&self, call: &CallObservation, bound: f64) -> f64 {
        let value = |p: &Option<ObservedPath>| match p {
            Some(p) => call.value(p),
            None => &ObservedValue::Undefined,
        };
        let mut referred: BTreeSet<u32> = BTreeSet::new();
        let mut total = 0.0;
        for (clause, paths) in self.pc.clauses.iter().zip(&self.clause_paths) {
            total += match clause {
                Clause::Numeric(term) => self.numeric(term, call),
                Clause::Null { .. } => match value(&paths.0) {
                    ObservedValue::Null => 0.0,
                    _ => 1.0,
                },
                Clause::Alias { .. } => match (value(&paths.0), value(&paths.1)) {
                    (ObservedValue::Null, ObservedValue::Null) => 0.0,
                    (ObservedValue::Object { id: a, .. }, ObservedValue::Object { id: b, .. })
                        if a == b =>
                    {
                        0.0
                    }
                    _ => 1.0,
                },
                Clause::Fresh { class, .. } => match value(&paths.0) {
                    ObservedValue::Object { id, class: c } => {
                        let new = referred.insert(*id);
                        if new && same_class(class, c) {
                            0.0
                        } else {
                            1.0
                        }
                    }
                    _ => 1.0,
                },
            };
            if total >= bound {
                break;
            }
        }
        total
    }

    /// δ of a numeric clause: 0 when it holds, 1 when a symbol is undefined, else how far the
    /// sides of its comparison (or negated comparison) are apart.
    fn numeric(&self, term: &Term, call: &CallObservation) -> f64 {
        let mut model = Model::new();
        for s in term.symbols() {
            let Some(Some(path)) = self.symbols.get(s) else {
                return 1.0;
            };
            let sort = self.pc.symbols.get(s).map(|i| i.sort);
            let Some(v) = model_value(sort, call.value(path)) else {
                return 1.0;
            };
            model.set(*s, v);
        }
        if model.satisfies(std::slice::from_ref(term)) {
            return 0.0;
        }
        let (a, b) = match term.kind() {
            TermKind::Compare(_, a, b) => (a, b),
            // The float language keeps `!(a < b)` (false on NaN both ways) as a negation.
            TermKind::Unary(UnaryOp::Not, inner) => match inner.kind() {
                TermKind::Compare(_, a, b) => (a, b),
                _ => return 1.0,
            },
            _ => return 1.0,
        };
        gap_distance(model.eval(a), model.eval(b))
    }
}

/// Most literals one goal offers (a long path condition repeats a few).
const MAX_LITERALS: usize = 64;

/// The integer constants of `term` and their neighbours (`c - 1`, `c`, `c + 1`): a clause
/// `x > 3000` is met by 3001, which the generator would rarely try on its own.
fn int_literals(term: &Term, out: &mut BTreeSet<i64>) {
    if out.len() >= MAX_LITERALS {
        return;
    }
    match term.kind() {
        TermKind::Int(c) => out.extend([i64::from(*c) - 1, i64::from(*c), i64::from(*c) + 1]),
        TermKind::Long(c) => out.extend([c.saturating_sub(1), *c, c.saturating_add(1)]),
        TermKind::Unary(_, a) => int_literals(a, out),
        TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
            int_literals(a, out);
            int_literals(b, out);
        }
        TermKind::Ite(c, a, b) => {
            int_literals(c, out);
            int_literals(a, out);
            int_literals(b, out);
        }
        _ => {}
    }
}

/// SUSHI's δ of a false comparison between `a` and `b`: `1 − 1/(1 + |a − b| + ε)`, exact on
/// integers; on floats and doubles the gap is taken in `f64`, and a NaN operand or a gap that
/// is not finite is the maximal 1.
fn gap_distance(a: Concrete, b: Concrete) -> f64 {
    let gap = match (a.as_f64(), b.as_f64()) {
        (None, None) => (i128::from(a.as_i64()) - i128::from(b.as_i64())).unsigned_abs() as f64,
        _ => {
            let gap = (a.as_number() - b.as_number()).abs();
            if !gap.is_finite() {
                return 1.0;
            }
            gap
        }
    };
    1.0 - 1.0 / (1.0 + gap + EPSILON)
}

/// An observed value as the model holds a symbol of `sort` (see `SymbolSort`): integers in
/// the sort's range, references by identity (null 0), floats and doubles by their IEEE bits
/// (a float read for a double symbol widens exactly). None when it is undefined or of the
/// wrong kind: an integer, null or object for a float or double symbol, a float or double for
/// an integer or reference one, a double for a float one (narrowing would round).
fn model_value(sort: Option<SymbolSort>, v: &ObservedValue) -> Option<i64> {
    let fp = matches!(sort, Some(SymbolSort::Float | SymbolSort::Double));
    match v {
        ObservedValue::Undefined => None,
        ObservedValue::Int(_) | ObservedValue::Null | ObservedValue::Object { .. } if fp => None,
        ObservedValue::Int(v) => Some(sort.map_or(*v, |so| so.normalize(*v))),
        ObservedValue::Null => Some(0),
        ObservedValue::Object { id, .. } => Some(i64::from(*id)),
        ObservedValue::Float(bits) => match sort {
            Some(SymbolSort::Float) | None => Some(i64::from(*bits)),
            Some(SymbolSort::Double) => Some(f64::from(f32::from_bits(*bits)).to_bits() as i64),
            Some(_) => None,
        },
        ObservedValue::Double(bits) => match sort {
            Some(SymbolSort::Double) | None => Some(*bits as i64),
            Some(_) => None,
        },
    }
}

/// Does an observed class (binary name) match a clause's class (internal name)?
fn same_class(internal: &str, binary: &str) -> bool {
    internal.len() == binary.len()
        && internal
            .bytes()
            .zip(binary.bytes())
            .all(|(a, b)| a == b || (a == b'/' && b == b'.'))
}

impl Objective for PathConditionObjective {
    fn fitness(&self, _test: &TestCase, e: &Execution) -> f64 {
        e.observations
            .iter()
            .filter(|c| c.member == self.member)
            .fold(self.max_distance(), |best, c| {
                best.min(self.distance_below(c, best))
            })
    }

    fn observation(&self) -> Option<Observation> {
        Some(PathConditionObjective::observation(self))
    }

    fn literals(&self) -> &[i64] {
        &self.literals
    }
}

#[cfg(test)]
#[path = "pc_goal_tests.rs"]
mod tests;
