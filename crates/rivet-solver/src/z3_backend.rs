//! The Z3 backend: translates terms to bit-vector formulas (floats and doubles to Z3's
//! floating-point theory, see `z3_float`) in the thread's own Z3 context (Z3 objects are per
//! thread), checks them under a timeout and reads the model back with each symbol sign- or
//! zero-extended as its Java type says (float symbols as their IEEE bits). Every query runs
//! on the process's one Z3 thread (`z3_thread`): Z3 4.8.12 is not safe with more than one.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use z3::ast::{Bool, Float, BV};
use z3::{Params, SatResult};

use crate::solver::{SolveResult, Solver, SolverStats};
use crate::z3_thread::{free, with_z3, BackendId, Kept};
use rivet_pc::Model;
use rivet_pc::{BinaryOp, CmpOp, Sort, SymbolId, SymbolSort, Term, TermKind, UnaryOp};

/// A translated term: a formula, a bit-vector or a floating-point value.
#[derive(Clone)]
pub(crate) enum Ast {
    Bool(Bool),
    Bv(BV),
    Fp(Float),
}

/// The Z3 backend: a handle whose Z3 solvers live on the Z3 thread. One solver is kept
/// there for it and each check runs between a push and a pop.
#[derive(Debug)]
pub struct Z3Solver {
    id: BackendId,
    stats: SolverStats,
    settings: Settings,
}

/// How a backend's queries are checked.
#[derive(Debug, Clone, Copy)]
struct Settings {
    timeout: Duration,
    /// Translate linear queries to integer arithmetic (on by default).
    linear: bool,
    /// The time limit of queries with floats or doubles, when not `timeout` (see
    /// `with_fp_timeout`).
    fp_timeout: Option<Duration>,
}

/// The most memory Z3 may take, in megabytes. Z3 4.8 can grow without bound inside one
/// query whatever its time limit (string queries with large constant offsets did, to 20 GB,
/// before the translation folded them); past this cap the query answers `Unknown`, and so
/// does every later query of the process (Z3 keeps its out-of-memory state): a lost solver
/// is better than a machine out of memory. The first such answer is logged.
const MEMORY_LIMIT_MB: &str = "6144";

impl Drop for Z3Solver {
    /// Its kept solvers are freed on the Z3 thread.
    fn drop(&mut self) {
        free(self.id);
    }
}

/// Sets Z3's process-wide memory cap once.
fn limit_memory() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| z3::set_global_param("memory_max_size", MEMORY_LIMIT_MB));
}

impl Z3Solver {
    /// A backend whose checks give up (`Unknown`) after `timeout`.
    pub fn new(timeout: Duration) -> Z3Solver {
        Z3Solver {
            id: BackendId::fresh(),
            stats: SolverStats::default(),
            settings: Settings {
                timeout,
                linear: true,
                fp_timeout: None,
            },
        }
    }

    /// Queries with floats or doubles give up after `timeout` instead (Z3's floating-point
    /// theory either answers fast or not for a long time; the AVM fallback takes over).
    pub fn with_fp_timeout(mut self, timeout: Duration) -> Z3Solver {
        self.settings.fp_timeout = Some(timeout);
        self
    }

    /// A backend that always uses bit-vectors (for comparing the two translations).
    pub fn bit_vectors_only(timeout: Duration) -> Z3Solver {
        let mut solver = Z3Solver::new(timeout);
        solver.settings.linear = false;
        solver
    }
}

impl Default for Z3Solver {
    fn default() -> Z3Solver {
        Z3Solver::new(Duration::from_secs(5))
    }
}

pub(crate) struct Translation {
    memo: HashMap<Term, Ast>,
    symbols: HashMap<(SymbolId, SymbolSort), BV>,
    /// Float and double symbols.
    pub(crate) floats: HashMap<(SymbolId, SymbolSort), Float>,
    /// Set when a term could not be translated faithfully (ill-sorted, or Z3 refused an
    /// operation): the query's answer is then `Unknown`.
    pub(crate) unsupported: bool,
}

impl Translation {
    pub(crate) fn new() -> Translation {
        Translation {
            memo: HashMap::new(),
            symbols: HashMap::new(),
            floats: HashMap::new(),
            unsupported: false,
        }
    }

    pub(crate) fn bv(&mut self, t: &Term) -> BV {
        let width = if t.sort() == Sort::Long { 64 } else { 32 };
        let out = match self.ast(t) {
            Ast::Bv(b) => b,
            // Booleans used as integers (never built by well-sorted constructors).
            Ast::Bool(b) => b.ite(&BV::from_i64(1, width), &BV::from_i64(0, width)),
            Ast::Fp(f) => {
                self.unsupported = true;
                f.to_ieee_bv()
            }
        };
        // A term this backend does not translate (a string operation, a float's bits) may
        // come out at another width than its sort's: the query is unsupported, and the
        // vector is cut or extended so that Z3 is never handed mismatched operands (it
        // returns no term then, and the z3 crate panics).
        let size = out.get_size();
        if size == width {
            out
        } else {
            self.unsupported = true;
            if size > width {
                out.extract(width - 1, 0)
            } else {
                out.sign_ext(width - size)
            }
        }
    }

    pub(crate) fn boolean(&mut self, t: &Term) -> Bool {
        match self.ast(t) {
            Ast::Bool(b) => b,
            Ast::Bv(v) => {
                let zero = BV::from_i64(0, v.get_size());
                v.eq(&zero).not()
            }
            Ast::Fp(f) => {
                self.unsupported = true;
                f.is_zero().not()
            }
        }
    }

    pub(crate) fn ast(&mut self, t: &Term) -> Ast {
        if let Some(done) = self.memo.get(t) {
            return done.clone();
        }
        if crate::z3_float::handles(t) {
            let out = self.fp_ast(t);
            self.memo.insert(t.clone(), out.clone());
            return out;
        }
        let width = |t: &Term| if t.sort() == Sort::Long { 64 } else { 32 };
        let out = match t.kind() {
            TermKind::Bool(b) => Ast::Bool(Bool::from_bool(*b)),
            TermKind::Int(v) => Ast::Bv(BV::from_i64(i64::from(*v), 32)),
            TermKind::Long(v) => Ast::Bv(BV::from_i64(*v, 64)),
            // Float constants are translated by `fp_ast` (`handles` takes every float term).
            TermKind::Float(_) | TermKind::Double(_) => self.fp_ast(t),
            TermKind::Var(_, SymbolSort::Str) => {
                self.unsupported = true;
                Ast::Bool(Bool::from_bool(false))
            }
            TermKind::Var(s, sort) => {
                // Keyed by sort too, so that a symbol misused with two sorts cannot mix
                // bit-vector widths.
                let declared = self
                    .symbols
                    .entry((*s, *sort))
                    .or_insert_with(|| BV::new_const(format!("s{}_{:?}", s.0, sort), sort.width()))
                    .clone();
                let target = sort.term_sort();
                let full = if target == Sort::Long { 64 } else { 32 };
                let extra = full - sort.width();
                Ast::Bv(if extra == 0 {
                    declared
                } else if sort.signed() {
                    declared.sign_ext(extra)
                } else {
                    declared.zero_ext(extra)
                })
            }
            TermKind::Unary(op, a) => match op {
                UnaryOp::Not => Ast::Bool(self.boolean(a).not()),
                UnaryOp::Neg => Ast::Bv(self.bv(a).bvneg()),
                UnaryOp::I2L => Ast::Bv(self.bv(a).sign_ext(32)),
                UnaryOp::L2I => Ast::Bv(self.bv(a).extract(31, 0)),
                UnaryOp::I2B => Ast::Bv(self.bv(a).extract(7, 0).sign_ext(24)),
                UnaryOp::I2C => Ast::Bv(self.bv(a).extract(15, 0).zero_ext(16)),
                UnaryOp::I2S => Ast::Bv(self.bv(a).extract(15, 0).sign_ext(16)),
                // Float operations are translated by `fp_ast`.
                _ => {
                    self.unsupported = true;
                    Ast::Bv(self.bv(a))
                }
            },
            TermKind::Binary(op, a, b) if a.sort() == Sort::Bool => {
                let (x, y) = (self.boolean(a), self.boolean(b));
                Ast::Bool(match op {
                    BinaryOp::And => Bool::and(&[&x, &y]),
                    BinaryOp::Or => Bool::or(&[&x, &y]),
                    _ => x.xor(&y),
                })
            }
            TermKind::Binary(op, a, b) => {
                let w = width(a);
                let (x, y) = (self.bv(a), self.bv(b));
                let zero = BV::from_i64(0, w);
                Ast::Bv(match op {
                    BinaryOp::Add => x.bvadd(&y),
                    BinaryOp::Sub => x.bvsub(&y),
                    BinaryOp::Mul => x.bvmul(&y),
                    BinaryOp::Div => y.eq(&zero).ite(&zero, &x.bvsdiv(&y)),
                    BinaryOp::Rem => y.eq(&zero).ite(&zero, &x.bvsrem(&y)),
                    BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Ushr => {
                        let mask = BV::from_i64(i64::from(w) - 1, 32);
                        let count = y.bvand(&mask);
                        let count = if w == 64 { count.zero_ext(32) } else { count };
                        match op {
                            BinaryOp::Shl => x.bvshl(&count),
                            BinaryOp::Shr => x.bvashr(&count),
                            _ => x.bvlshr(&count),
                        }
                    }
                    BinaryOp::And => x.bvand(&y),
                    BinaryOp::Or => x.bvor(&y),
                    BinaryOp::Xor => x.bvxor(&y),
                    BinaryOp::Min | BinaryOp::Max => {
                        self.unsupported = true;
                        x
                    }
                })
            }
            TermKind::Compare(op, a, b) if a.sort() == Sort::Bool => {
                let (x, y) = (self.boolean(a), self.boolean(b));
                let eq = x.eq(&y);
                Ast::Bool(if *op == CmpOp::Eq { eq } else { eq.not() })
            }
            TermKind::Compare(op, a, b) => {
                let (x, y) = (self.bv(a), self.bv(b));
                Ast::Bool(match op {
                    CmpOp::Eq => x.eq(&y),
                    CmpOp::Ne => x.eq(&y).not(),
                    CmpOp::Lt => x.bvslt(&y),
                    CmpOp::Le => x.bvsle(&y),
                    CmpOp::Gt => x.bvsgt(&y),
                    CmpOp::Ge => x.bvsge(&y),
                })
            }
            TermKind::Ite(c, a, b) => {
                let c = self.boolean(c);
                match (self.ast(a), self.ast(b)) {
                    (Ast::Bool(x), Ast::Bool(y)) => Ast::Bool(c.ite(&x, &y)),
                    _ => {
                        let (x, y) = (self.bv(a), self.bv(b));
                        Ast::Bv(c.ite(&x, &y))
                    }
                }
            }
            // Strings are translated with integer arithmetic (`z3_linear`); a query that
            // mixes them with bit-vector operations is not supported.
            TermKind::Str(_) | TermKind::StrOp(..) => {
                self.unsupported = true;
                Ast::Bool(Bool::from_bool(false))
            }
        };
        self.memo.insert(t.clone(), out.clone());
        out
    }
}

/// Reads a declared symbol's value from a Z3 model, as its sort reads it.
fn model_value(model: &z3::Model, sort: SymbolSort, bv: &BV) -> Option<i64> {
    let raw = model.eval(bv, true)?.as_u64()?;
    // `as_u64` is the unsigned reading: sign-cast by the declared width.
    Some(sort.normalize(raw as i64))
}

impl Solver for Z3Solver {
    fn check(&mut self, clauses: &[Term]) -> SolveResult {
        // Strings read only by length and constant indices: as numbers (printable first).
        if let Some(numbers) = crate::char_level::rewrite(clauses) {
            for printable in [true, false] {
                let mut query = numbers.clauses.clone();
                query.extend(numbers.ranges(printable));
                match self.check_terms(&query) {
                    SolveResult::Sat(m) => return SolveResult::Sat(numbers.model(&m)),
                    other if !printable => return other,
                    _ => {}
                }
            }
        }
        self.check_terms(clauses)
    }

    fn stats(&self) -> SolverStats {
        self.stats
    }
}

impl Z3Solver {
    /// One query as it is (see `check`), on the Z3 thread.
    fn check_terms(&mut self, clauses: &[Term]) -> SolveResult {
        let _span = tracing::trace_span!("z3_check", clauses = clauses.len()).entered();
        let started = Instant::now();
        self.stats.queries += 1;
        self.stats.backend_calls += 1;
        let settings = self.settings;
        let query = clauses.to_vec();
        let answer = with_z3(self.id, move |kept| {
            limit_memory();
            check_on_z3_thread(kept, settings, &query)
        });
        let (result, linear) = answer.unwrap_or_else(|| {
            let failed = "the solver failed on this query".to_string();
            (SolveResult::Unknown(failed), false)
        });
        self.stats.linear_calls += u64::from(linear);
        tracing::trace!(elapsed = ?started.elapsed(), sat = result.is_sat(), ?clauses, "z3 check");
        self.stats.backend_time += started.elapsed();
        result
    }
}

/// One query with a backend's kept solvers, on the Z3 thread; true when it went to linear
/// integer arithmetic.
fn check_on_z3_thread(
    kept: &mut Kept,
    settings: Settings,
    clauses: &[Term],
) -> (SolveResult, bool) {
    let mut tr = Translation::new();
    let limited = |limit: Duration| {
        let solver = z3::Solver::new();
        let mut params = Params::new();
        let ms = u32::try_from(limit.as_millis()).unwrap_or(u32::MAX).max(1);
        params.set_u32("timeout", ms);
        solver.set_params(&params);
        solver
    };
    // Linear queries go to integer arithmetic (wrapping explicit); others stay
    // bit-vectors.
    let linear = if settings.linear {
        crate::z3_linear::translate(clauses)
    } else {
        None
    };
    // Floating-point queries get a fresh solver, used once: after a push Z3 answers with
    // its incremental core, whose floating-point theory is far slower (minutes instead of
    // a second for `Math.sqrt(x + 1.0) > 10.0`) than the bit-blasting tactic it picks for
    // a solver that was never pushed.
    let fp = clauses.iter().any(crate::z3_float::mentions_fp);
    if fp && linear.is_none() {
        let solver = limited(settings.fp_timeout.unwrap_or(settings.timeout));
        for c in clauses {
            solver.assert(tr.boolean(c));
        }
        let status = (!tr.unsupported).then(|| solver.check());
        return (conclude(&solver, status, &tr, None), false);
    }
    let slot = if linear.is_some() {
        &mut kept.lia
    } else {
        &mut kept.solver
    };
    let solver = slot.get_or_insert_with(|| limited(settings.timeout));
    solver.push();
    match &linear {
        Some(q) => {
            for f in &q.assertions {
                solver.assert(f);
            }
        }
        None => {
            for c in clauses {
                solver.assert(tr.boolean(c));
            }
        }
    }
    // Scopes pushed beyond the query's own (the printable-strings attempt).
    let mut extra = 0;
    // The answer with any character, from a solver of its own.
    let mut again: Option<z3::Solver> = None;
    // A check of the kept solver gave up.
    let mut gave_up = false;
    let status = match &linear {
        _ if tr.unsupported => None,
        // Strings: printable ASCII first (readable tests), any character if that fails.
        Some(q) if !q.printable.is_empty() => {
            solver.push();
            extra = 1;
            for f in &q.printable {
                solver.assert(f);
            }
            match solver.check() {
                SatResult::Sat => Some(SatResult::Sat),
                first => {
                    // Not on the kept solver, popped: after a printable attempt that gave up,
                    // Z3 4.8.12 ended the process with SIGSEGV checking it again.
                    let any = limited(settings.timeout);
                    for f in &q.assertions {
                        any.assert(f);
                    }
                    let status = any.check();
                    again = Some(any);
                    gave_up = first == SatResult::Unknown;
                    Some(status)
                }
            }
        }
        _ => Some(solver.check()),
    };
    // A kept solver whose check gave up is never used again (its state after a cancel is
    // not to be trusted).
    gave_up |= again.is_none() && status == Some(SatResult::Unknown);
    let result = conclude(
        again.as_ref().unwrap_or(solver),
        status,
        &tr,
        linear.as_ref(),
    );
    if gave_up {
        *slot = None;
    } else {
        solver.pop(1 + extra);
    }
    (result, linear.is_some())
}

/// The query's answer from `solver`, which answered `status` (None: a term the translation
/// does not support).
fn conclude(
    solver: &z3::Solver,
    status: Option<SatResult>,
    tr: &Translation,
    linear: Option<&crate::z3_linear::LinearQuery>,
) -> SolveResult {
    match status {
        None => SolveResult::Unknown("a term the translation does not support".to_string()),
        Some(SatResult::Unsat) => SolveResult::Unsat,
        Some(SatResult::Unknown) => {
            let reason = solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".to_string());
            if reason.contains("memory") {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    tracing::warn!(
                        limit_mb = MEMORY_LIMIT_MB,
                        "Z3 ran out of its memory cap: later queries answer unknown"
                    )
                });
            }
            SolveResult::Unknown(reason)
        }
        Some(SatResult::Sat) => match solver.get_model() {
            Some(z3_model) => read_model(&z3_model, tr, linear),
            None => SolveResult::Unknown("no model".to_string()),
        },
    }
}

/// The Java values of a query's symbols in Z3's model.
fn read_model(
    z3_model: &z3::Model,
    tr: &Translation,
    linear: Option<&crate::z3_linear::LinearQuery>,
) -> SolveResult {
    let mut model = Model::new();
    for ((s, sort), bv) in &tr.symbols {
        if let Some(v) = model_value(z3_model, *sort, bv) {
            model.set(*s, v);
        }
    }
    for ((s, sort), x) in &tr.floats {
        if let Some(v) = crate::z3_float::model_bits(z3_model, *sort, x) {
            model.set(*s, v);
        }
    }
    let mut unreadable = false;
    if let Some(q) = linear {
        for ((s, sort), x) in &q.symbols {
            if let Some(v) = z3_model.eval(x, true).and_then(|v| v.as_i64()) {
                model.set(*s, sort.normalize(v));
            }
        }
        for (s, x) in &q.strings {
            match crate::z3_string::read(z3_model, x) {
                Some(v) => model.set_string(*s, v),
                None => unreadable = true,
            }
        }
    }
    if unreadable {
        SolveResult::Unknown(
            "a string Java cannot hold (a unit above 0xFFFF, or too long)".to_string(),
        )
    } else {
        SolveResult::Sat(model)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::z3_thread::BackendId;
    use rivet_pc::{StrOp, SymbolId, SymbolSort};

    /// `s.length() == n && s.charAt(4) == '-' && parseDigits(s.substr(0, 4)) % 4 == 0`, a
    /// linear string query with a printable attempt.
    fn date(n: i32) -> Vec<Term> {
        let op = |o, args| Term::string_op(o, args).expect("well-sorted");
        let s = Term::var(SymbolId(0), SymbolSort::Str);
        let year = op(StrOp::Substr, vec![s.clone(), Term::int(0), Term::int(4)]);
        let value = op(StrOp::ParseDigits, vec![year]);
        let leap = Term::binary(BinaryOp::Rem, value.clone(), Term::long(4)).unwrap();
        vec![
            Term::compare(CmpOp::Eq, op(StrOp::Length, vec![s.clone()]), Term::int(n)).unwrap(),
            Term::compare(
                CmpOp::Eq,
                op(StrOp::CharAt, vec![s, Term::int(4)]),
                Term::int(i32::from(b'-')),
            )
            .unwrap(),
            Term::compare(CmpOp::Ge, value, Term::long(1000)).unwrap(),
            Term::compare(CmpOp::Eq, leap, Term::long(0)).unwrap(),
        ]
    }

    #[test]
    fn a_kept_solver_whose_check_gave_up_is_dropped_and_later_queries_get_a_fresh_one() {
        let settings = |ms| Settings {
            timeout: Duration::from_millis(ms),
            linear: true,
            fp_timeout: None,
        };
        let (gave_up, solved) = with_z3(BackendId::fresh(), move |kept| {
            let mut gave_up = 0;
            for n in 8..40 {
                let clauses = date(n);
                match check_on_z3_thread(kept, settings(1), &clauses) {
                    (SolveResult::Unknown(_), true) => {
                        assert!(kept.lia.is_none(), "kept after giving up, length {n}");
                        gave_up += 1;
                    }
                    (SolveResult::Sat(m), true) => {
                        assert!(m.satisfies(&clauses), "{m:?}");
                        assert!(kept.lia.is_some(), "length {n}");
                    }
                    other => panic!("length {n}: {other:?}"),
                }
            }
            let clauses = date(12);
            let solved = match check_on_z3_thread(kept, settings(10_000), &clauses) {
                (SolveResult::Sat(m), true) => m.satisfies(&clauses) && kept.lia.is_some(),
                _ => false,
            };
            (gave_up, solved)
        })
        .expect("no panic on the Z3 thread");
        assert!(gave_up >= 1, "1 ms is too short for some of these");
        assert!(solved, "the backend answers after its solver was dropped");
    }
}
