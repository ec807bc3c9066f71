//! Unit tests of term construction: constant folding with Java overflow, reassociation,
//! negation, display and sort errors.

use super::*;

fn x() -> Term {
    Term::var(SymbolId(1), SymbolSort::Int)
}

fn show(t: &Term) -> String {
    t.display(&|s: SymbolId| format!("v{}", s.0)).to_string()
}

#[test]
fn constants_fold_with_java_overflow() {
    let t = Term::binary(BinaryOp::Add, Term::int(i32::MAX), Term::int(1))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.as_int(), Some(i32::MIN));
    let d = Term::binary(BinaryOp::Div, Term::int(i32::MIN), Term::int(-1))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.as_int(), Some(i32::MIN));
}

#[test]
fn constants_reassociate() {
    let t = Term::binary(BinaryOp::Add, x(), Term::int(1)).unwrap_or_else(|e| panic!("{e}"));
    let t = Term::binary(BinaryOp::Sub, t, Term::int(1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t, x());
    let t = Term::binary(BinaryOp::Add, x(), Term::int(5)).unwrap_or_else(|e| panic!("{e}"));
    let t = Term::binary(BinaryOp::Sub, t, Term::int(7)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(show(&t), "v1 - 2");
}

#[test]
fn negation_flips_comparisons() {
    let c = Term::compare(CmpOp::Lt, x(), Term::int(3)).unwrap_or_else(|e| panic!("{e}"));
    let n = Term::negation(c.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(show(&n), "v1 >= 3");
    assert_eq!(Term::negation(n).unwrap_or_else(|e| panic!("{e}")), c);
}

#[test]
fn display_parenthesizes_by_precedence() {
    let a = Term::binary(BinaryOp::Add, x(), Term::int(5)).unwrap_or_else(|e| panic!("{e}"));
    let m = Term::binary(BinaryOp::Mul, a, Term::int(2)).unwrap_or_else(|e| panic!("{e}"));
    let c = Term::compare(CmpOp::Gt, m, Term::int(2)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(show(&c), "(v1 + 5) * 2 > 2");
}

#[test]
fn ill_sorted_terms_are_errors() {
    assert!(Term::binary(BinaryOp::Add, x(), Term::long(1)).is_err());
    assert!(Term::compare(CmpOp::Lt, Term::bool(true), Term::bool(false)).is_err());
}

#[test]
fn a_java_boolean_compared_with_a_constant_is_its_condition() {
    let c = Term::compare(CmpOp::Gt, x(), Term::int(3)).unwrap_or_else(|e| panic!("{e}"));
    let b = Term::ite(c.clone(), Term::int(1), Term::int(0)).unwrap_or_else(|e| panic!("{e}"));
    let is_false =
        Term::compare(CmpOp::Eq, b.clone(), Term::int(0)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(show(&is_false), "v1 <= 3");
    let is_true =
        Term::compare(CmpOp::Ne, Term::int(0), b.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(is_true, c);
    let never = Term::compare(CmpOp::Gt, b, Term::int(1)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(never, Term::bool(false));
}
