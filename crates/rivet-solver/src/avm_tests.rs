//! Tests of the alternating variable method: it solves what Z3's floating-point theory finds
//! hard, answers only with confirmed models (a proptest over random clauses), and passes
//! `Unknown` on when it finds nothing.

use super::*;
use proptest::prelude::*;
use rivet_pc::{BinaryOp, CmpOp, UnaryOp};

fn t(r: Result<Term, rivet_pc::SortError>) -> Term {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn dv(i: u32) -> Term {
    Term::var(SymbolId(i), SymbolSort::Double)
}

fn iv(i: u32) -> Term {
    Term::var(SymbolId(i), SymbolSort::Int)
}

fn cmp(op: CmpOp, a: Term, b: Term) -> Term {
    t(Term::compare(op, a, b))
}

fn bin(op: BinaryOp, a: Term, b: Term) -> Term {
    t(Term::binary(op, a, b))
}

/// Always `Unknown`, counting calls.
struct GivesUp(u64);

impl Solver for GivesUp {
    fn check(&mut self, _clauses: &[Term]) -> SolveResult {
        self.0 += 1;
        SolveResult::Unknown("timeout".into())
    }
    fn stats(&self) -> SolverStats {
        SolverStats {
            backend_calls: self.0,
            ..SolverStats::default()
        }
    }
}

/// sqrt(dx*dx + dy*dy) in a window, and (x*dx + y*dy) / (|v| * |d|) > 0.999: the shape of
/// `geometry.Conformance`'s heading check.
fn heading_clauses() -> Vec<Term> {
    let (x, y, dx, dy) = (dv(0), dv(1), dv(2), dv(3));
    let sq = |a: &Term| bin(BinaryOp::Mul, a.clone(), a.clone());
    let speed = t(Term::unary(
        UnaryOp::Sqrt,
        bin(BinaryOp::Add, sq(&dx), sq(&dy)),
    ));
    let len = t(Term::unary(
        UnaryOp::Sqrt,
        bin(BinaryOp::Add, sq(&x), sq(&y)),
    ));
    let dot = bin(
        BinaryOp::Add,
        bin(BinaryOp::Mul, x.clone(), dx.clone()),
        bin(BinaryOp::Mul, y.clone(), dy.clone()),
    );
    let cos = bin(BinaryOp::Div, dot, bin(BinaryOp::Mul, len, speed.clone()));
    vec![
        cmp(CmpOp::Ge, speed.clone(), Term::double(1e-9)),
        cmp(CmpOp::Le, speed, Term::double(600.0)),
        cmp(CmpOp::Gt, x, Term::double(3.0)),
        cmp(CmpOp::Lt, y, Term::double(-2.0)),
        cmp(CmpOp::Gt, cos, Term::double(0.999)),
    ]
}

#[test]
fn solves_nonlinear_double_clauses_after_unknown() {
    let clauses = heading_clauses();
    let mut avm = Avm::new(GivesUp(0), AvmConfig::default());
    match avm.check(&clauses) {
        SolveResult::Sat(m) => assert!(m.satisfies(&clauses)),
        other => panic!("expected a model, got {other:?}"),
    }
    let s = avm.stats();
    assert_eq!((s.avm_attempts, s.avm_successes), (1, 1));
    assert!(s.avm_evaluations > 0);
}

#[test]
fn finds_an_exact_double_equality_and_integer_targets() {
    // x * 3.0 == 7.5 and i * 7 == 91 and c (a char) > 'x'.
    let c = Term::var(SymbolId(2), SymbolSort::Char);
    let clauses = vec![
        cmp(
            CmpOp::Eq,
            bin(BinaryOp::Mul, dv(0), Term::double(3.0)),
            Term::double(7.5),
        ),
        cmp(
            CmpOp::Eq,
            bin(BinaryOp::Mul, iv(1), Term::int(7)),
            Term::int(91),
        ),
        cmp(CmpOp::Gt, c, Term::int(i32::from(b'x'))),
    ];
    let mut rng = SplitMix::new(1);
    let (found, _) = avm_search(&clauses, &Model::new(), &AvmConfig::default(), &mut rng);
    let m = found.unwrap_or_else(|| panic!("no model"));
    assert!(m.satisfies(&clauses));
}

#[test]
fn special_values_are_probed() {
    // x != x needs NaN, and 1 / y < 0 with y == 0 needs -0.0: no move reaches them.
    let clauses = vec![
        cmp(CmpOp::Ne, dv(0), dv(0)),
        cmp(
            CmpOp::Lt,
            bin(BinaryOp::Div, Term::double(1.0), dv(1)),
            Term::double(0.0),
        ),
        cmp(CmpOp::Eq, dv(1), Term::double(0.0)),
    ];
    let mut avm = Avm::new(GivesUp(0), AvmConfig::default());
    match avm.check(&clauses) {
        SolveResult::Sat(m) => assert!(m.satisfies(&clauses)),
        other => panic!("expected a model, got {other:?}"),
    }
}

#[test]
fn passes_unknown_on_for_unsatisfiable_clauses_within_bounds() {
    let clauses = vec![
        cmp(CmpOp::Gt, dv(0), Term::double(1.0)),
        cmp(CmpOp::Lt, dv(0), Term::double(0.0)),
    ];
    let config = AvmConfig {
        max_evaluations: 2_000,
        time_limit: Duration::from_millis(50),
        ..AvmConfig::default()
    };
    let mut avm = Avm::new(GivesUp(0), config);
    let started = Instant::now();
    assert!(matches!(avm.check(&clauses), SolveResult::Unknown(_)));
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(avm.stats().avm_attempts, 1);
}

#[test]
fn disabled_passes_unknown_through() {
    let config = AvmConfig {
        enabled: false,
        ..AvmConfig::default()
    };
    let mut avm = Avm::new(GivesUp(0), config);
    let c = [cmp(CmpOp::Gt, dv(0), Term::double(1.0))];
    assert!(matches!(avm.check(&c), SolveResult::Unknown(_)));
    assert_eq!(avm.stats().avm_attempts, 0);
}

#[test]
fn same_seed_same_model() {
    let clauses = heading_clauses();
    let run = || {
        let mut rng = SplitMix::new(7);
        avm_search(&clauses, &Model::new(), &AvmConfig::default(), &mut rng).0
    };
    assert_eq!(run(), run());
}

#[test]
fn ordered_bits_round_trip() {
    for v in [
        0.0f64,
        -0.0,
        1.5,
        -1.5,
        f64::MAX,
        f64::MIN_POSITIVE,
        -1e-300,
    ] {
        let back = f64::from_bits(double_from_ord(double_ord(v.to_bits())));
        assert!(back == v, "{v}");
    }
    let up =
        f64::from_bits(moved(SymbolSort::Double, MoveKind::Ulps, 1f64.to_bits() as i64, 1) as u64);
    assert!(up > 1.0 && up - 1.0 < 1e-15);
    let f = f32::from_bits(moved(
        SymbolSort::Float,
        MoveKind::Ulps,
        i64::from((-0.0f32).to_bits()),
        -1,
    ) as u32);
    assert!(f < 0.0);
}

fn leaf() -> impl Strategy<Value = Term> {
    prop_oneof![
        (0u32..3).prop_map(dv),
        (-50i32..50).prop_map(|v| Term::double(f64::from(v) / 4.0)),
        Just(Term::double(f64::NAN)),
    ]
}

fn double_term() -> impl Strategy<Value = Term> {
    leaf().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone(), 0usize..6).prop_map(|(a, b, k)| {
                let op = [
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::Div,
                    BinaryOp::Min,
                    BinaryOp::Max,
                ][k];
                bin(op, a, b)
            }),
            inner.clone().prop_map(|a| t(Term::unary(UnaryOp::Sqrt, a))),
            inner.prop_map(|a| t(Term::unary(UnaryOp::Abs, a))),
        ]
    })
}

fn clause() -> impl Strategy<Value = Term> {
    (double_term(), double_term(), 0usize..6, any::<bool>()).prop_map(|(a, b, k, negate)| {
        let op = [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ][k];
        let c = cmp(op, a, b);
        if negate {
            t(Term::negation(c))
        } else {
            c
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whenever the AVM says `Sat`, the model satisfies the clauses by Rust's evaluation.
    #[test]
    fn sat_models_satisfy_the_clauses(
        clauses in proptest::collection::vec(clause(), 1..4),
        seed in any::<u64>(),
    ) {
        let config = AvmConfig {
            max_evaluations: 3_000,
            time_limit: Duration::from_millis(100),
            seed,
            ..AvmConfig::default()
        };
        let mut avm = Avm::new(GivesUp(0), config);
        if let SolveResult::Sat(m) = avm.check(&clauses) {
            prop_assert!(m.satisfies(&clauses));
        }
    }
}
