//! The floating-point bridge: Rust's evaluator (Java's semantics) and Z3's floating-point
//! encoding agree bit for bit (all NaNs equal) on random float and double terms over
//! special and random inputs, and Z3's models of float clauses satisfy them by Rust's reading.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use proptest::prelude::*;
use rivet_pc::{BinaryOp, CmpOp, Concrete, Model, SymbolId, SymbolSort, Term, TermKind, UnaryOp};
use rivet_solver::z3_float::z3_value;
use rivet_solver::{default_solver, SolveResult, Solver, Z3Solver};

fn any_double() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(0.0),
        Just(-0.0),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MIN_POSITIVE),
        Just(f64::MAX),
        Just(f64::MIN),
        Just(f64::from_bits(1)),
        Just(2f64.powi(31)),
        Just(-(2f64.powi(63))),
        Just(1.0),
        any::<f64>(),
        any::<u64>().prop_map(f64::from_bits),
        (-1000i32..1000).prop_map(|v| f64::from(v) / 8.0),
    ]
}

fn any_float() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(f32::NAN),
        Just(0.0f32),
        Just(-0.0f32),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(f32::MIN_POSITIVE),
        Just(f32::MAX),
        Just(f32::MIN),
        Just(f32::from_bits(1)),
        Just(2f32.powi(31)),
        any::<f32>(),
        any::<u32>().prop_map(f32::from_bits),
        (-1000i32..1000).prop_map(|v| v as f32 / 8.0),
    ]
}

fn edge_int() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(i32::MIN),
        Just(i32::MAX),
        Just(16_777_217),
        -100..100i32,
        any::<i32>()
    ]
}

fn edge_long() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just((1 << 53) + 1),
        any::<i64>()
    ]
}

/// Symbols: 0 and 1 doubles, 2 and 3 floats, 4 an int, 5 a long.
fn var(i: u32) -> Term {
    let sort = match i {
        0 | 1 => SymbolSort::Double,
        2 | 3 => SymbolSort::Float,
        4 => SymbolSort::Int,
        _ => SymbolSort::Long,
    };
    Term::var(SymbolId(i), sort)
}

fn node(kind: TermKind) -> Term {
    Term::from_kind(kind).unwrap_or_else(|e| panic!("{e}"))
}

fn un(op: UnaryOp, a: Term) -> Term {
    node(TermKind::Unary(op, a))
}

const BINARY: [BinaryOp; 7] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::Min,
    BinaryOp::Max,
];

/// A float (`double` false) or double term, unfolded (`from_kind`), so Z3 sees every
/// operation on the values the Rust evaluator sees.
fn fp_term(double: bool) -> BoxedStrategy<Term> {
    fp_term_deep(double, 3)
}

fn fp_term_deep(double: bool, depth: u32) -> BoxedStrategy<Term> {
    let int_leaf = prop_oneof![edge_int().prop_map(Term::int), Just(var(4))];
    let long_leaf = prop_oneof![edge_long().prop_map(Term::long), Just(var(5))];
    let leaf = if double {
        prop_oneof![
            any_double().prop_map(Term::double),
            (0u32..2).prop_map(var),
            any_float().prop_map(|f| un(UnaryOp::F2D, Term::float(f))),
            (2u32..4).prop_map(|i| un(UnaryOp::F2D, var(i))),
            int_leaf.prop_map(|t| un(UnaryOp::I2D, t)),
            long_leaf.prop_map(|t| un(UnaryOp::L2D, t)),
        ]
        .boxed()
    } else {
        prop_oneof![
            any_float().prop_map(Term::float),
            (2u32..4).prop_map(var),
            (0u32..2).prop_map(|i| un(UnaryOp::D2F, var(i))),
            any_double().prop_map(|d| un(UnaryOp::D2F, Term::double(d))),
            int_leaf.prop_map(|t| un(UnaryOp::I2F, t)),
            long_leaf.prop_map(|t| un(UnaryOp::L2F, t)),
        ]
        .boxed()
    };
    leaf.prop_recursive(depth, 12, 2, move |inner| {
        let unary = if double {
            vec![UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sqrt]
        } else {
            vec![UnaryOp::Neg, UnaryOp::Abs]
        };
        prop_oneof![
            (inner.clone(), inner.clone(), 0usize..BINARY.len())
                .prop_map(|(a, b, k)| node(TermKind::Binary(BINARY[k], a, b))),
            (inner, proptest::sample::select(unary)).prop_map(|(a, op)| un(op, a)),
        ]
    })
    .boxed()
}

/// Terms of every sort built from float terms: the float terms themselves, conversions to
/// integers, bits, and comparisons.
fn any_term() -> impl Strategy<Value = Term> {
    let cmp = proptest::sample::select(vec![
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ]);
    prop_oneof![
        fp_term(true),
        fp_term(false),
        fp_term(true).prop_map(|t| un(UnaryOp::D2I, t)),
        fp_term(true).prop_map(|t| un(UnaryOp::D2L, t)),
        fp_term(false).prop_map(|t| un(UnaryOp::F2I, t)),
        fp_term(false).prop_map(|t| un(UnaryOp::F2L, t)),
        fp_term(true).prop_map(|t| un(UnaryOp::D2Bits, t)),
        fp_term(false).prop_map(|t| un(UnaryOp::F2Bits, t)),
        (fp_term(true), fp_term(true), cmp.clone())
            .prop_map(|(a, b, op)| node(TermKind::Compare(op, a, b))),
        (fp_term(false), fp_term(false), cmp)
            .prop_map(|(a, b, op)| node(TermKind::Compare(op, a, b))),
    ]
}

fn inputs() -> impl Strategy<Value = Model> {
    (
        any_double(),
        any_double(),
        any_float(),
        any_float(),
        edge_int(),
        edge_long(),
    )
        .prop_map(|(d0, d1, f2, f3, i4, l5)| {
            let mut m = Model::new();
            m.set(SymbolId(0), d0.to_bits() as i64);
            m.set(SymbolId(1), d1.to_bits() as i64);
            m.set(SymbolId(2), i64::from(f2.to_bits()));
            m.set(SymbolId(3), i64::from(f3.to_bits()));
            m.set(SymbolId(4), i64::from(i4));
            m.set(SymbolId(5), l5);
            m
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rust_and_z3_agree_on_float_terms(t in any_term(), m in inputs()) {
        let rust = m.eval(&t);
        let z3 = z3_value(&t, &m);
        prop_assert!(z3.is_some(), "no Z3 value for {:?}", t);
        let z3 = z3.unwrap();
        prop_assert!(rust.same(&z3), "{:?}: Rust {:?}, Z3 {:?}", t, rust, z3);
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn z3_models_of_float_clauses_satisfy_them(t in fp_term_deep(true, 1), k in any_double(), op in 0usize..3) {
        // One operation over leaves: deeper non-linear queries often time out.
        let op = [CmpOp::Lt, CmpOp::Eq, CmpOp::Gt][op];
        let clause = Term::compare(op, t, Term::double(k)).unwrap();
        let mut z3 = Z3Solver::new(Duration::from_secs(3));
        match z3.check(std::slice::from_ref(&clause)) {
            SolveResult::Sat(model) => prop_assert!(model.satisfies(std::slice::from_ref(&clause)), "{:?} {:?}", clause, model),
            SolveResult::Unsat => {
                // Nothing satisfies it: in particular not the special values.
                for v in [0.0, -0.0, 1.0, f64::NAN, f64::INFINITY] {
                    let mut m = Model::new();
                    for s in 0..6 {
                        m.set(SymbolId(s), if s < 2 { v.to_bits() as i64 } else { 0 });
                    }
                    prop_assert!(!m.satisfies(std::slice::from_ref(&clause)), "{:?} unsat, yet {:?} satisfies it", clause, v);
                }
            }
            SolveResult::Unknown(_) => {}
        }
    }
}

fn d(i: u32) -> Term {
    Term::var(SymbolId(i), SymbolSort::Double)
}

fn expect_sat(clauses: &[Term]) -> Model {
    let mut solver = default_solver(Duration::from_secs(20));
    match solver.check(clauses) {
        SolveResult::Sat(m) => {
            assert!(m.satisfies(clauses), "{clauses:?}: {m:?}");
            m
        }
        other => panic!("{clauses:?}: {other:?}"),
    }
}

#[test]
fn the_solver_finds_nan_and_negative_zero() {
    let x = d(0);
    let is_nan = Term::compare(CmpOp::Ne, x.clone(), x.clone()).unwrap();
    let m = expect_sat(&[is_nan]);
    assert!(f64::from_bits(m.get(SymbolId(0)).unwrap() as u64).is_nan());
    // 1 / x < 0 and x == 0: x is -0.0.
    let inv = Term::binary(BinaryOp::Div, Term::double(1.0), x.clone()).unwrap();
    let c1 = Term::compare(CmpOp::Lt, inv, Term::double(0.0)).unwrap();
    let c2 = Term::compare(CmpOp::Eq, x, Term::double(0.0)).unwrap();
    let m = expect_sat(&[c1, c2]);
    assert_eq!(m.get(SymbolId(0)), Some((-0.0f64).to_bits() as i64));
}

#[test]
fn the_solver_knows_rounding() {
    // x + 1.0 == x holds for large x (and infinities), never for small ones.
    let x = d(0);
    let plus = Term::binary(BinaryOp::Add, x.clone(), Term::double(1.0)).unwrap();
    let same = Term::compare(CmpOp::Eq, plus, x.clone()).unwrap();
    let small = Term::compare(
        CmpOp::Lt,
        Term::unary(UnaryOp::Abs, x.clone()).unwrap(),
        Term::double(1e15),
    )
    .unwrap();
    expect_sat(std::slice::from_ref(&same));
    let mut solver = default_solver(Duration::from_secs(20));
    assert_eq!(solver.check(&[same, small]), SolveResult::Unsat);
    // No float squares to exactly 2 (doubles take Z3 far longer to refute).
    let f = Term::var(SymbolId(1), SymbolSort::Float);
    let sq = Term::binary(BinaryOp::Mul, f.clone(), f).unwrap();
    let two = Term::compare(CmpOp::Eq, sq, Term::float(2.0)).unwrap();
    assert_eq!(solver.check(&[two]), SolveResult::Unsat);
}

#[test]
fn float_clauses_mix_with_integer_ones() {
    // (int) x == i, i > 3, x < 4.5, x is not an integer value.
    let x = d(0);
    let i = Term::var(SymbolId(1), SymbolSort::Int);
    let conv = Term::unary(UnaryOp::D2I, x.clone()).unwrap();
    let clauses = [
        Term::compare(CmpOp::Eq, conv, i.clone()).unwrap(),
        Term::compare(CmpOp::Gt, i, Term::int(3)).unwrap(),
        Term::compare(CmpOp::Lt, x.clone(), Term::double(4.5)).unwrap(),
        Term::compare(
            CmpOp::Ne,
            Term::unary(UnaryOp::I2D, Term::unary(UnaryOp::D2I, x.clone()).unwrap()).unwrap(),
            x,
        )
        .unwrap(),
    ];
    let m = expect_sat(&clauses);
    assert_eq!(m.get(SymbolId(1)), Some(4));
    assert_eq!(
        Concrete::Double(m.get(SymbolId(0)).unwrap() as u64)
            .as_f64()
            .map(|v| v > 4.0),
        Some(true)
    );
}
