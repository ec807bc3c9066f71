//! The alternating variable method (Korel; EvoSuite's AVM for numbers and decimals) as the
//! solver's fallback: when the inner solver answers `Unknown` (Z3's floating-point theory
//! timing out on nested `sqrt` and division, or a term it cannot translate), `Avm` searches
//! values of the clauses' numeric symbols (booleans as 0/1, bytes, chars, shorts, ints,
//! longs, floats, doubles) that minimise the summed branch distance (`distance::fitness`).
//! Each variable in turn gets exploratory moves of ±1 step and, while they improve, pattern
//! moves doubling the step; integers step by 1, floats and doubles by one ulp (moves over
//! the ordered IEEE bits, so doubling crosses magnitudes) and in value space by decimal steps
//! from 1 down to 1e-12; when the first descent is stuck, each variable's special values
//! (NaN, infinities, -0.0, which no move reaches), then moves again. Restarts from seeded
//! random values, bounded by evaluations and time. String symbols get length and unit moves
//! (`avm_strings`).
//! It answers `Sat` only with a model the Rust evaluator confirms; otherwise the inner
//! solver's `Unknown` goes on.

pub use rivet_rng::SplitMix;
use std::time::{Duration, Instant};

use rivet_pc::{Model, SymbolId, SymbolSort, Term, TermKind};

use crate::distance::fitness;
use crate::solver::{SolveResult, Solver, SolverStats};

/// Bounds and seed of the alternating variable method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AvmConfig {
    /// Off: `Unknown` passes through untouched.
    pub enabled: bool,
    /// Fitness evaluations per query, over all restarts.
    pub max_evaluations: u64,
    /// Wall-clock limit per query.
    pub time_limit: Duration,
    /// Restarts from random values after the first start (the remembered values) stalls.
    pub restarts: u32,
    /// Seed of the restarts' random values.
    pub seed: u64,
}

impl Default for AvmConfig {
    fn default() -> AvmConfig {
        AvmConfig {
            enabled: true,
            max_evaluations: 20_000,
            time_limit: Duration::from_millis(200),
            restarts: 8,
            seed: 0,
        }
    }
}

/// How one move changes a variable.
#[derive(Debug, Clone, Copy, PartialEq)]
enum MoveKind {
    /// Integers: add the step.
    Add,
    /// Floats and doubles: the step in ulps, over the ordered bits.
    Ulps,
    /// Floats and doubles: the step times this scale, in value space.
    Scaled(f64),
}

const DOUBLE_SCALES: [f64; 6] = [1.0, 1e-2, 1e-4, 1e-6, 1e-9, 1e-12];
const FLOAT_SCALES: [f64; 4] = [1.0, 1e-2, 1e-4, 1e-6];

fn kinds(sort: SymbolSort) -> Vec<MoveKind> {
    match sort {
        SymbolSort::Double => std::iter::once(MoveKind::Ulps)
            .chain(DOUBLE_SCALES.iter().map(|s| MoveKind::Scaled(*s)))
            .collect(),
        SymbolSort::Float => std::iter::once(MoveKind::Ulps)
            .chain(FLOAT_SCALES.iter().map(|s| MoveKind::Scaled(*s)))
            .collect(),
        _ => vec![MoveKind::Add],
    }
}

/// The range of an integer sort's values.
fn int_range(sort: SymbolSort) -> (i64, i64) {
    match sort {
        SymbolSort::Boolean => (0, 1),
        SymbolSort::Byte => (i64::from(i8::MIN), i64::from(i8::MAX)),
        SymbolSort::Char => (0, i64::from(u16::MAX)),
        SymbolSort::Short => (i64::from(i16::MIN), i64::from(i16::MAX)),
        SymbolSort::Long => (i64::MIN, i64::MAX),
        _ => (i64::from(i32::MIN), i64::from(i32::MAX)),
    }
}

/// Doubles ordered as integers (-0.0 and 0.0 both 0), NaN excluded by the clamp.
fn double_ord(bits: u64) -> i64 {
    let magnitude = (bits & !(1 << 63)) as i64;
    if bits >> 63 == 1 {
        -magnitude
    } else {
        magnitude
    }
}

fn double_from_ord(ord: i64) -> u64 {
    let inf = f64::INFINITY.to_bits() as i64;
    let ord = ord.clamp(-inf, inf);
    if ord < 0 {
        ord.unsigned_abs() | (1 << 63)
    } else {
        ord as u64
    }
}

fn float_ord(bits: u32) -> i64 {
    let magnitude = i64::from(bits & !(1 << 31));
    if bits >> 31 == 1 {
        -magnitude
    } else {
        magnitude
    }
}

fn float_from_ord(ord: i64) -> u32 {
    let inf = i64::from(f32::INFINITY.to_bits());
    let ord = ord.clamp(-inf, inf);
    if ord < 0 {
        (ord.unsigned_abs() as u32) | (1 << 31)
    } else {
        ord as u32
    }
}

/// The model value of `sort` after a move of `step` of `kind` from `value`.
fn moved(sort: SymbolSort, kind: MoveKind, value: i64, step: i64) -> i64 {
    match (sort, kind) {
        (SymbolSort::Double, MoveKind::Ulps) => {
            double_from_ord(double_ord(value as u64).saturating_add(step)) as i64
        }
        (SymbolSort::Float, MoveKind::Ulps) => {
            i64::from(float_from_ord(float_ord(value as u32).saturating_add(step)))
        }
        (SymbolSort::Double, MoveKind::Scaled(scale)) => {
            (f64::from_bits(value as u64) + step as f64 * scale).to_bits() as i64
        }
        (SymbolSort::Float, MoveKind::Scaled(scale)) => {
            let v = f64::from(f32::from_bits(value as u32)) + step as f64 * scale;
            i64::from((v as f32).to_bits())
        }
        _ => {
            let (lo, hi) = int_range(sort);
            value.saturating_add(step).clamp(lo, hi)
        }
    }
}

/// A random value of `sort`: mostly small, sometimes anywhere in range.
fn random_value(sort: SymbolSort, rng: &mut SplitMix) -> i64 {
    let wide = rng.unit() < 0.2;
    match sort {
        SymbolSort::Double | SymbolSort::Float => {
            let magnitude = 10f64.powf(rng.unit() * if wide { 12.0 } else { 6.0 } - 3.0);
            let sign = if rng.unit() < 0.5 { -1.0 } else { 1.0 };
            let v = sign * magnitude * rng.unit();
            if sort == SymbolSort::Double {
                v.to_bits() as i64
            } else {
                i64::from((v as f32).to_bits())
            }
        }
        _ => {
            let (lo, hi) = int_range(sort);
            let v = if wide {
                rng.next_u64() as i64
            } else {
                (rng.next_u64() % 201) as i64 - 100
            };
            v.clamp(lo, hi)
        }
    }
}

/// What one search did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AvmRun {
    pub evaluations: u64,
    pub restarts: u32,
}

/// The symbols of `clauses` with their sorts, in order of first occurrence.
fn variables(clauses: &[Term]) -> Vec<(SymbolId, SymbolSort)> {
    fn walk(t: &Term, out: &mut Vec<(SymbolId, SymbolSort)>) {
        match t.kind() {
            TermKind::Var(s, sort) if !out.iter().any(|(o, _)| o == s) => {
                out.push((*s, *sort));
            }
            TermKind::Unary(_, a) => walk(a, out),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                walk(a, out);
                walk(b, out);
            }
            TermKind::Ite(c, a, b) => {
                walk(c, out);
                walk(a, out);
                walk(b, out);
            }
            TermKind::StrOp(_, args) => args.iter().for_each(|a| walk(a, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for c in clauses {
        walk(c, &mut out);
    }
    out
}

/// The longest string the search builds.
const MAX_STRING: usize = 64;

/// A random short string of printable ASCII.
fn random_string(rng: &mut SplitMix) -> rivet_pc::JavaString {
    let len = (rng.next_u64() % 9) as usize;
    let units: Vec<u16> = (0..len)
        .map(|_| 0x20 + (rng.next_u64() % 95) as u16)
        .collect();
    rivet_pc::JavaString::from_units(&units)
}

struct Search<'a> {
    clauses: &'a [Term],
    deadline: Instant,
    evaluations: u64,
    /// The evaluations the current descent may reach (each start gets its share, so a slow
    /// descent leaves room for restarts).
    limit: u64,
    model: Model,
    best: f64,
}

impl Search<'_> {
    fn exhausted(&self) -> bool {
        self.evaluations >= self.limit
            || (self.evaluations.is_multiple_of(64) && Instant::now() > self.deadline)
    }

    /// Sets `s` to `value` if that lowers the fitness (else leaves it).
    fn try_value(&mut self, s: SymbolId, value: i64) -> bool {
        let before = self.model.get(s).unwrap_or(0);
        if value == before {
            return false;
        }
        self.model.set(s, value);
        self.evaluations += 1;
        let f = fitness(&self.model, self.clauses);
        if f < self.best {
            self.best = f;
            true
        } else {
            self.model.set(s, before);
            false
        }
    }

    /// Exploratory then pattern moves of one kind on one variable, until neither improves.
    fn improve(&mut self, s: SymbolId, sort: SymbolSort, kind: MoveKind) -> bool {
        let mut improved = false;
        while !self.exhausted() && self.best > 0.0 {
            let current = self.model.get(s).unwrap_or(0);
            let Some(dir) = [1i64, -1]
                .into_iter()
                .find(|d| self.try_value(s, moved(sort, kind, current, *d)))
            else {
                break;
            };
            improved = true;
            let mut step = dir.saturating_mul(2);
            while !self.exhausted() && self.best > 0.0 {
                let current = self.model.get(s).unwrap_or(0);
                if !self.try_value(s, moved(sort, kind, current, step)) {
                    break;
                }
                step = step.saturating_mul(2);
            }
        }
        improved
    }

    /// Tries the special values (0, -0.0, ±1, NaN, ±infinity for floats and doubles) of each
    /// variable in turn, keeping those that lower the fitness: values no move reaches.
    fn probe(&mut self, vars: &[(SymbolId, SymbolSort)]) {
        for &(s, sort) in vars {
            if sort == SymbolSort::Str {
                continue;
            }
            let specials: Vec<i64> = match sort {
                SymbolSort::Double => [
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                ]
                .iter()
                .map(|v| v.to_bits() as i64)
                .collect(),
                SymbolSort::Float => [
                    0.0f32,
                    -0.0,
                    1.0,
                    -1.0,
                    f32::NAN,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                ]
                .iter()
                .map(|v| i64::from(v.to_bits()))
                .collect(),
                _ => vec![0, 1, -1],
            };
            for v in specials {
                if self.best == 0.0 || self.exhausted() {
                    return;
                }
                self.try_value(s, sort.normalize(v));
            }
        }
    }

    /// Rounds over all variables and move kinds from the current model until a round
    /// improves nothing; true if the model then satisfies every clause.
    fn descend(&mut self, vars: &[(SymbolId, SymbolSort)]) -> bool {
        self.evaluations += 1;
        self.best = fitness(&self.model, self.clauses);
        loop {
            if self.best == 0.0 && self.model.satisfies(self.clauses) {
                return true;
            }
            if self.exhausted() {
                return false;
            }
            let mut any = false;
            for &(s, sort) in vars {
                if sort == SymbolSort::Str {
                    let deadline = self.deadline;
                    let limit = self.limit;
                    let stop = move |evaluations: u64| {
                        evaluations >= limit
                            || (evaluations.is_multiple_of(64) && Instant::now() > deadline)
                    };
                    any |= crate::avm_strings::StringMoves {
                        clauses: self.clauses,
                        model: &mut self.model,
                        best: &mut self.best,
                        evaluations: &mut self.evaluations,
                    }
                    .improve(s, MAX_STRING, &stop);
                    if self.best == 0.0 {
                        break;
                    }
                    continue;
                }
                for kind in kinds(sort) {
                    any |= self.improve(s, sort, kind);
                    if self.best == 0.0 {
                        break;
                    }
                }
                if self.best == 0.0 {
                    break;
                }
            }
            if !any {
                return self.best == 0.0 && self.model.satisfies(self.clauses);
            }
        }
    }
}

/// Searches values of the numeric symbols of `clauses` that satisfy them all, starting from
/// `start` (symbols it lacks start at 0, doubles at 1.0) then from random values; reference
/// symbols keep their `start` values. Returns a model of every symbol of the clauses, which
/// the evaluator has confirmed.
pub fn avm_search(
    clauses: &[Term],
    start: &Model,
    config: &AvmConfig,
    rng: &mut SplitMix,
) -> (Option<Model>, AvmRun) {
    let vars = variables(clauses);
    let mut model = Model::new();
    for &(s, sort) in &vars {
        if sort == SymbolSort::Str {
            model.set_string(s, start.get_string(s).cloned().unwrap_or_default());
            continue;
        }
        let initial = start.get(s).unwrap_or(match sort {
            SymbolSort::Double => 1f64.to_bits() as i64,
            SymbolSort::Float => i64::from(1f32.to_bits()),
            _ => 0,
        });
        model.set(s, sort.normalize(initial));
    }
    let numeric: Vec<(SymbolId, SymbolSort)> = vars
        .iter()
        .copied()
        .filter(|(_, sort)| *sort != SymbolSort::Ref)
        .collect();
    let mut search = Search {
        clauses,
        deadline: Instant::now() + config.time_limit,
        evaluations: 0,
        limit: 0,
        model,
        best: f64::INFINITY,
    };
    let share = (config.max_evaluations / (u64::from(config.restarts) + 1)).max(1);
    let mut run = AvmRun::default();
    for attempt in 0..=config.restarts {
        search.limit = (search.evaluations + share).min(config.max_evaluations);
        if attempt > 0 {
            if search.exhausted() || numeric.is_empty() {
                break;
            }
            run.restarts += 1;
            for &(s, sort) in &numeric {
                if sort == SymbolSort::Str {
                    search.model.set_string(s, random_string(rng));
                } else {
                    search.model.set(s, random_value(sort, rng));
                }
            }
        }
        if search.descend(&numeric) {
            run.evaluations = search.evaluations;
            return (Some(search.model), run);
        }
        if attempt == 0 {
            // Stuck: the special values, then the moves again from there.
            search.probe(&numeric);
            if search.descend(&numeric) {
                run.evaluations = search.evaluations;
                return (Some(search.model), run);
            }
        }
    }
    run.evaluations = search.evaluations;
    (None, run)
}

/// The AVM fallback around an inner solver: `Unknown` answers get a bounded search, started
/// from the values the latest satisfiable answers gave the same symbols.
#[derive(Debug)]
pub struct Avm<S> {
    inner: S,
    config: AvmConfig,
    rng: SplitMix,
    /// Values of symbols in the latest `Sat` answers (a search's first start).
    remembered: Model,
    attempts: u64,
    successes: u64,
    evaluations: u64,
    time: Duration,
}

impl<S: Solver> Avm<S> {
    pub fn new(inner: S, config: AvmConfig) -> Avm<S> {
        Avm {
            inner,
            rng: SplitMix::new(config.seed),
            config,
            remembered: Model::new(),
            attempts: 0,
            successes: 0,
            evaluations: 0,
            time: Duration::ZERO,
        }
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn remember(&mut self, model: &Model) {
        if self.remembered.len() > 1 << 16 {
            self.remembered = Model::new();
        }
        self.remembered.merge(model);
    }
}

impl<S: Solver> Solver for Avm<S> {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        match self.inner.check(clauses) {
            SolveResult::Sat(m) => {
                self.remember(&m);
                SolveResult::Sat(m)
            }
            SolveResult::Unknown(reason) if self.config.enabled => {
                self.attempts += 1;
                let started = Instant::now();
                let (found, run) =
                    avm_search(clauses, &self.remembered, &self.config, &mut self.rng);
                self.evaluations += run.evaluations;
                self.time += started.elapsed();
                tracing::debug!(
                    solved = found.is_some(),
                    evaluations = run.evaluations,
                    restarts = run.restarts,
                    elapsed = ?started.elapsed(),
                    "avm after unknown"
                );
                match found {
                    Some(m) => {
                        self.successes += 1;
                        self.remember(&m);
                        SolveResult::Sat(m)
                    }
                    None => SolveResult::Unknown(reason),
                }
            }
            other => other,
        }
    }

    fn stats(&self) -> SolverStats {
        let mut s = self.inner.stats();
        s.avm_attempts += self.attempts;
        s.avm_successes += self.successes;
        s.avm_evaluations += self.evaluations;
        s.avm_time += self.time;
        s
    }
}

#[cfg(test)]
#[path = "avm_tests.rs"]
mod tests;
