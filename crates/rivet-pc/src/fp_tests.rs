//! Unit tests of Java's floating-point semantics on known values, of float terms' folding,
//! display and sort rules, and property tests of their JSON round trip.

use proptest::prelude::*;

use super::*;
use crate::term::{Sort, SymbolId, SymbolSort, Term, TermKind};
use crate::Model;

fn d(v: f64) -> Term {
    Term::double(v)
}

fn un(op: UnaryOp, a: Term) -> Term {
    Term::unary(op, a).unwrap_or_else(|e| panic!("{e}"))
}

fn bin(op: BinaryOp, a: Term, b: Term) -> Term {
    Term::binary(op, a, b).unwrap_or_else(|e| panic!("{e}"))
}

fn cmp(op: CmpOp, a: Term, b: Term) -> Term {
    Term::compare(op, a, b).unwrap_or_else(|e| panic!("{e}"))
}

fn show(t: &Term) -> String {
    t.display(&|s: SymbolId| format!("{{arg{}}}", s.0))
        .to_string()
}

#[test]
fn java_conversions_saturate_and_map_nan_to_zero() {
    assert_eq!(un(UnaryOp::D2I, d(f64::NAN)).as_int(), Some(0));
    assert_eq!(un(UnaryOp::D2I, d(1e20)).as_int(), Some(i32::MAX));
    assert_eq!(un(UnaryOp::D2I, d(-1e20)).as_int(), Some(i32::MIN));
    assert_eq!(un(UnaryOp::D2I, d(-2.9)).as_int(), Some(-2));
    assert_eq!(un(UnaryOp::D2L, d(f64::INFINITY)).as_long(), Some(i64::MAX));
    assert_eq!(un(UnaryOp::F2L, Term::float(f32::NAN)).as_long(), Some(0));
    assert_eq!(
        un(UnaryOp::F2I, Term::float(f32::NEG_INFINITY)).as_int(),
        Some(i32::MIN)
    );
    // (float) 16777217 rounds to even: 16777216.
    assert_eq!(
        un(UnaryOp::I2F, Term::int(16_777_217)).as_float(),
        Some(16_777_216.0)
    );
    // (float) of a long near 2^63 and (double) of i64::MAX round to 2^63.
    assert_eq!(
        un(UnaryOp::L2D, Term::long(i64::MAX)).as_double(),
        Some(9.223_372_036_854_776e18)
    );
    assert_eq!(un(UnaryOp::D2F, d(1e300)).as_float(), Some(f32::INFINITY));
    assert_eq!(un(UnaryOp::D2F, d(0.1)).as_float(), Some(0.1f32));
}

#[test]
fn java_min_max_and_abs_rules() {
    let min = bin(BinaryOp::Min, d(-0.0), d(0.0));
    assert_eq!(min.as_double().map(f64::to_bits), Some((-0.0f64).to_bits()));
    let min = bin(BinaryOp::Min, d(0.0), d(-0.0));
    assert_eq!(min.as_double().map(f64::to_bits), Some((-0.0f64).to_bits()));
    let max = bin(BinaryOp::Max, d(-0.0), d(0.0));
    assert_eq!(max.as_double().map(f64::to_bits), Some(0.0f64.to_bits()));
    assert!(bin(BinaryOp::Min, d(f64::NAN), d(1.0))
        .as_double()
        .is_some_and(f64::is_nan));
    assert!(bin(BinaryOp::Max, d(1.0), d(f64::NAN))
        .as_double()
        .is_some_and(f64::is_nan));
    let abs = un(UnaryOp::Abs, d(-0.0));
    assert_eq!(abs.as_double().map(f64::to_bits), Some(0.0f64.to_bits()));
    assert_eq!(
        un(UnaryOp::Sqrt, d(-1.0)).as_double().map(f64::is_nan),
        Some(true)
    );
    assert_eq!(
        un(UnaryOp::Sqrt, d(2.0)).as_double(),
        Some(std::f64::consts::SQRT_2)
    );
}

#[test]
fn java_arithmetic_and_remainder() {
    let sum = bin(BinaryOp::Add, d(0.1), d(0.2));
    assert_ne!(sum.as_double(), Some(0.3));
    assert_eq!(cmp(CmpOp::Eq, sum, d(0.3)).as_bool(), Some(false));
    // drem is fmod: the dividend's sign, truncated quotient.
    assert_eq!(bin(BinaryOp::Rem, d(-7.5), d(2.0)).as_double(), Some(-1.5));
    assert_eq!(bin(BinaryOp::Rem, d(7.5), d(-2.0)).as_double(), Some(1.5));
    assert_eq!(
        bin(BinaryOp::Rem, d(5.0), d(f64::INFINITY)).as_double(),
        Some(5.0)
    );
    assert!(bin(BinaryOp::Rem, d(5.0), d(0.0))
        .as_double()
        .is_some_and(f64::is_nan));
    let neg_zero_rem = bin(BinaryOp::Rem, d(-4.0), d(2.0));
    assert_eq!(
        neg_zero_rem.as_double().map(f64::to_bits),
        Some((-0.0f64).to_bits())
    );
    assert_eq!(
        bin(BinaryOp::Div, d(1.0), d(-0.0)).as_double(),
        Some(f64::NEG_INFINITY)
    );
    let f = bin(
        BinaryOp::Mul,
        Term::float(16_777_216.0),
        Term::float(1.0000001),
    );
    assert_eq!(f.as_float(), Some(16_777_218.0));
}

#[test]
fn nan_comparisons_are_false_except_not_equal() {
    let nan = d(f64::NAN);
    for op in [CmpOp::Eq, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
        assert_eq!(
            cmp(op, nan.clone(), d(1.0)).as_bool(),
            Some(false),
            "{op:?}"
        );
    }
    assert_eq!(cmp(CmpOp::Ne, nan.clone(), nan).as_bool(), Some(true));
    assert_eq!(cmp(CmpOp::Eq, d(-0.0), d(0.0)).as_bool(), Some(true));
    assert_eq!(java_cmp(f64::NAN, 1.0, -1), -1);
    assert_eq!(java_cmp(f64::NAN, 1.0, 1), 1);
    assert_eq!(java_cmp(-0.0, 0.0, 1), 0);
}

#[test]
fn float_comparisons_do_not_fold_or_flip_unsoundly() {
    let x = Term::var(SymbolId(1), SymbolSort::Double);
    // x == x is false for NaN: not folded.
    let same = cmp(CmpOp::Eq, x.clone(), x.clone());
    assert_eq!(same.as_bool(), None);
    // !(x < 1.0) is not x >= 1.0 (NaN): the negation stays.
    let lt = cmp(CmpOp::Lt, x.clone(), d(1.0));
    let not = Term::negation(lt.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(not.kind(), TermKind::Unary(UnaryOp::Not, _)));
    let mut m = Model::new();
    m.set(SymbolId(1), f64::NAN.to_bits() as i64);
    assert_eq!(m.eval(&lt), crate::Concrete::Bool(false));
    assert_eq!(m.eval(&not), crate::Concrete::Bool(true));
    assert_eq!(m.eval(&same), crate::Concrete::Bool(false));
}

#[test]
fn float_terms_display_as_java() {
    let x = Term::var(SymbolId(1), SymbolSort::Double);
    let sq = bin(BinaryOp::Mul, x.clone(), x.clone());
    let t = bin(BinaryOp::Add, sq, d(0.1));
    let c = cmp(CmpOp::Lt, un(UnaryOp::Sqrt, t), d(1e300));
    assert_eq!(show(&c), "Math.sqrt({arg1} * {arg1} + 0.1) < 1.0E300");
    let n = Term::negation(cmp(CmpOp::Gt, x.clone(), d(-0.0))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(show(&n), "!({arg1} > -0.0)");
    let f = Term::var(SymbolId(2), SymbolSort::Float);
    let m = bin(BinaryOp::Min, f.clone(), Term::float(f32::NAN));
    assert_eq!(show(&m), "Math.min({arg2}, Float.NaN)");
    let i = un(UnaryOp::F2I, bin(BinaryOp::Mul, f, Term::float(2.5)));
    assert_eq!(show(&i), "(int) ({arg2} * 2.5f)");
    assert_eq!(show(&d(f64::NEG_INFINITY)), "Double.NEGATIVE_INFINITY");
    assert_eq!(show(&Term::float(1e-45)), "1.0E-45f");
}

#[test]
fn fp_is_pins_values_exactly() {
    let x = Term::var(SymbolId(0), SymbolSort::Double);
    for v in [0.0, -0.0, f64::NAN, 1.5, f64::INFINITY] {
        let clause = x
            .fp_is(Concrete::double(v))
            .unwrap_or_else(|| panic!("{v}"));
        for w in [0.0, -0.0, f64::NAN, 1.5, f64::INFINITY, -1.5] {
            let mut m = Model::new();
            m.set(SymbolId(0), w.to_bits() as i64);
            let same = v.to_bits() == w.to_bits() || (v.is_nan() && w.is_nan());
            assert_eq!(m.eval(&clause), Concrete::Bool(same), "{v} vs {w}");
        }
    }
}

#[test]
fn ill_sorted_float_terms_are_errors() {
    let x = Term::var(SymbolId(1), SymbolSort::Double);
    assert!(Term::binary(BinaryOp::Add, x.clone(), Term::float(1.0)).is_err());
    assert!(Term::binary(BinaryOp::Shl, x.clone(), Term::int(1)).is_err());
    assert!(Term::binary(BinaryOp::Min, Term::int(1), Term::int(2)).is_err());
    assert!(Term::unary(UnaryOp::Sqrt, Term::float(1.0)).is_err());
    assert!(Term::unary(UnaryOp::I2F, x.clone()).is_err());
    assert!(Term::compare(CmpOp::Lt, x, Term::long(1)).is_err());
    assert_eq!(Term::float(1.0).sort(), Sort::Float);
}

/// Doubles with the special values well represented.
pub fn any_double() -> impl Strategy<Value = f64> {
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
        Just(1.0),
        any::<f64>(),
        any::<u64>().prop_map(f64::from_bits),
        (-1000i32..1000).prop_map(|v| f64::from(v) / 8.0),
    ]
}

pub fn any_float() -> impl Strategy<Value = f32> {
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
        any::<f32>(),
        any::<u32>().prop_map(f32::from_bits),
        (-1000i32..1000).prop_map(|v| v as f32 / 8.0),
    ]
}

fn fp_term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        any_double().prop_map(Term::double),
        (0u32..3).prop_map(|s| Term::var(SymbolId(s), SymbolSort::Double)),
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone(), 0usize..7).prop_map(|(a, b, k)| {
                let ops = [
                    BinaryOp::Add,
                    BinaryOp::Sub,
                    BinaryOp::Mul,
                    BinaryOp::Div,
                    BinaryOp::Rem,
                    BinaryOp::Min,
                    BinaryOp::Max,
                ];
                Term::from_kind(TermKind::Binary(ops[k], a, b)).unwrap_or_else(|e| panic!("{e}"))
            }),
            (inner, 0usize..3).prop_map(|(a, k)| {
                let ops = [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sqrt];
                Term::from_kind(TermKind::Unary(ops[k], a)).unwrap_or_else(|e| panic!("{e}"))
            }),
        ]
    })
}

proptest! {
    #[test]
    fn float_terms_round_trip_through_json(t in fp_term(), k in any_float()) {
        let c = Term::compare(CmpOp::Le, un(UnaryOp::F2D, Term::float(k)), t.clone())
            .unwrap_or_else(|e| panic!("{e}"));
        for term in [t, c] {
            let json = serde_json::to_string(&term).unwrap_or_else(|e| panic!("{e}"));
            let back: Term = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
            prop_assert_eq!(&back, &term);
        }
    }

    #[test]
    fn folding_agrees_with_evaluation(t in fp_term(), xs in proptest::collection::vec(any_double(), 3)) {
        // Substituting the symbols' values and rebuilding with the folding constructors
        // gives the value the evaluator computes on the unfolded term.
        let mut m = Model::new();
        for (i, v) in xs.iter().enumerate() {
            m.set(SymbolId(i as u32), v.to_bits() as i64);
        }
        fn fold(t: &Term, xs: &[f64]) -> Term {
            match t.kind() {
                TermKind::Var(s, _) => Term::double(xs[s.0 as usize]),
                TermKind::Unary(op, a) => Term::unary(*op, fold(a, xs)).unwrap_or_else(|e| panic!("{e}")),
                TermKind::Binary(op, a, b) => Term::binary(*op, fold(a, xs), fold(b, xs)).unwrap_or_else(|e| panic!("{e}")),
                _ => t.clone(),
            }
        }
        let folded = fold(&t, &xs).as_concrete().unwrap_or_else(|| panic!("not folded"));
        prop_assert!(folded.same(&m.eval(&t)), "{:?} vs {:?}", folded, m.eval(&t));
    }
}
