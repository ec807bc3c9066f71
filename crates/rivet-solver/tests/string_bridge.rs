//! The string bridge: Rust's evaluation of string terms (`rivet_pc::string`) and their
//! translation to Z3's sequence theory agree on random terms over random inputs (ASCII,
//! digits, signs, and surrogate-free Unicode of the basic plane), and Z3's models of string
//! clauses satisfy them by Rust's reading.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use proptest::prelude::*;
use rivet_pc::{CmpOp, Concrete, JavaString, Model, StrOp, SymbolId, SymbolSort, Term};
use rivet_solver::{SolveResult, Solver, Z3Solver};

/// One UTF-16 unit: mostly ASCII letters, digits and signs (what parsers look at), some
/// Latin-1 and other basic-plane characters, never a surrogate.
fn unit() -> impl Strategy<Value = u16> {
    prop_oneof![
        4 => prop::sample::select(b"aAzZ09-+ .x".to_vec()).prop_map(u16::from),
        3 => 0x20u16..0x7f,
        1 => 0x80u16..0x100,
        1 => 0x100u16..0xd800,
        1 => 0xe000u16..=0xffff,
    ]
}

fn java_string() -> impl Strategy<Value = JavaString> {
    prop::collection::vec(unit(), 0..6).prop_map(|u| JavaString::from_units(&u))
}

fn small_int() -> impl Strategy<Value = i32> {
    prop_oneof![
        4 => -2..8i32,
        1 => Just(i32::MIN),
        1 => Just(i32::MAX),
        1 => any::<i32>(),
        1 => 40..130i32,
    ]
}

/// Symbols 0 and 1 are strings, 2 an int.
fn inputs() -> impl Strategy<Value = Model> {
    (java_string(), java_string(), small_int()).prop_map(|(a, b, i)| {
        let mut m = Model::new();
        m.set_string(SymbolId(0), a);
        m.set_string(SymbolId(1), b);
        m.set(SymbolId(2), i64::from(i));
        m
    })
}

fn op(op: StrOp, args: Vec<Term>) -> Term {
    Term::string_op(op, args).expect("well-sorted")
}

fn str_leaf() -> BoxedStrategy<Term> {
    prop_oneof![
        (0u32..2).prop_map(|i| Term::var(SymbolId(i), SymbolSort::Str)),
        java_string().prop_map(Term::string),
    ]
    .boxed()
}

fn int_leaf() -> BoxedStrategy<Term> {
    prop_oneof![
        small_int().prop_map(Term::int),
        Just(Term::var(SymbolId(2), SymbolSort::Int)),
    ]
    .boxed()
}

/// String terms, `depth` operations deep at most (short enough for case mapping's bound).
/// `String.valueOf` takes no parsed number: Z3 4.8 gives up on `str.from_int` of a narrowed
/// `str.to_int` even with every input fixed.
fn str_term(depth: u32) -> BoxedStrategy<Term> {
    if depth == 0 {
        return str_leaf();
    }
    let s = str_term(depth - 1);
    let i = int_term(depth - 1, true);
    let unparsed = int_term(depth - 1, false);
    prop_oneof![
        2 => str_leaf(),
        1 => (s.clone(), s.clone()).prop_map(|(a, b)| op(StrOp::Concat, vec![a, b])),
        1 => (s.clone(), i.clone(), i.clone()).prop_map(|(a, o, n)| op(StrOp::Substr, vec![a, o, n])),
        1 => unparsed.prop_map(|n| op(StrOp::FromInt, vec![n])),
        1 => i.prop_map(|c| op(StrOp::FromChar, vec![c])),
        1 => s.clone().prop_map(|a| op(StrOp::ToLowerAscii, vec![a])),
        1 => s.prop_map(|a| op(StrOp::ToUpperAscii, vec![a])),
    ]
    .boxed()
}

fn int_term(depth: u32, parse: bool) -> BoxedStrategy<Term> {
    if depth == 0 {
        return int_leaf();
    }
    let s = str_term(depth - 1);
    let i = int_term(depth - 1, parse);
    let parsed = s.clone().prop_map(|a| {
        // Narrowed to an int as Java's parseInt does after its range check.
        Term::unary(rivet_pc::UnaryOp::L2I, op(StrOp::ParseDigits, vec![a])).unwrap()
    });
    let plain = prop_oneof![
        2 => int_leaf(),
        1 => s.clone().prop_map(|a| op(StrOp::Length, vec![a])),
        1 => (s.clone(), i.clone()).prop_map(|(a, k)| op(StrOp::CharAt, vec![a, k])),
        1 => (s, i).prop_map(|(a, k)| op(StrOp::IndexOf, vec![a.clone(), a, k])),
    ]
    .boxed();
    if parse {
        prop_oneof![4 => plain, 1 => parsed].boxed()
    } else {
        plain
    }
}

fn bool_term() -> BoxedStrategy<Term> {
    let s = str_term(2);
    let i = int_term(2, true);
    prop_oneof![
        (s.clone(), s.clone()).prop_map(|(a, b)| Term::compare(CmpOp::Eq, a, b).unwrap()),
        (s.clone(), s.clone()).prop_map(|(a, b)| op(StrOp::Contains, vec![a, b])),
        (s.clone(), s.clone()).prop_map(|(a, b)| op(StrOp::StartsWith, vec![a, b])),
        (s.clone(), s).prop_map(|(a, b)| op(StrOp::EndsWith, vec![a, b])),
        (i.clone(), i).prop_map(|(a, b)| Term::compare(CmpOp::Le, a, b).unwrap()),
    ]
    .boxed()
}

fn any_term() -> BoxedStrategy<Term> {
    prop_oneof![str_term(2), int_term(2, true), bool_term()].boxed()
}

/// The clauses that pin every symbol to its value in `m`.
fn pins(m: &Model) -> Vec<Term> {
    let mut out = Vec::new();
    for s in 0..2 {
        let v = m.get_string(SymbolId(s)).cloned().unwrap_or_default();
        let x = Term::var(SymbolId(s), SymbolSort::Str);
        out.push(Term::compare(CmpOp::Eq, x, Term::string(v)).unwrap());
    }
    let i = Term::var(SymbolId(2), SymbolSort::Int);
    let v = m.get(SymbolId(2)).unwrap_or(0) as i32;
    out.push(Term::compare(CmpOp::Eq, i, Term::int(v)).unwrap());
    out
}

/// Checks `clauses` with a fresh Z3 backend on the process's solving thread. The proptests
/// make hundreds of solvers, and the test harness runs each test on a thread that exits at its
/// end, freeing that thread's Z3 context outside the query lock: with another test checking
/// at that moment, Z3 4.8.12 once ended this binary with SIGSEGV. The solving thread never
/// exits.
fn check_on_solver_thread(clauses: Vec<Term>, timeout: Duration) -> SolveResult {
    rivet_solver::on_solver_thread(move || Z3Solver::new(timeout).check(&clauses))
        .recv()
        .expect("the check panicked")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// With the inputs pinned, Z3 proves that the term has no value but Rust's.
    #[test]
    fn rust_and_z3_agree_on_string_terms(t in any_term(), m in inputs()) {
        let rust = m.eval(&t);
        let differs = Term::compare(CmpOp::Ne, t.clone(), Term::from_concrete(rust.clone())).unwrap();
        let mut clauses = pins(&m);
        clauses.push(differs);
        match check_on_solver_thread(clauses, Duration::from_secs(10)) {
            SolveResult::Unsat => {}
            other => prop_assert!(false, "{:?} under {:?}: Rust says {:?}, Z3 {:?}", t, m, rust, other),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Z3's models of a string clause (inputs free) satisfy it as Rust reads them.
    #[test]
    fn z3_models_of_string_clauses_satisfy_them(c in bool_term(), want in any::<bool>()) {
        let clause = if want { c } else { Term::negation(c).unwrap() };
        // Some random clauses are beyond Z3 4.8 (`Unknown` after the limit): only models count.
        if let SolveResult::Sat(model) = check_on_solver_thread(vec![clause.clone()], Duration::from_secs(2)) {
            prop_assert!(model.satisfies(std::slice::from_ref(&clause)), "{:?}: {:?}", clause, model);
        }
    }
}

#[test]
fn a_date_and_a_number_are_solved_from_their_clauses() {
    // s.length() == 10 && s.charAt(4) == '-' && parseDigits(s.substr(0, 4)) % 4 == 0
    //   && s.startsWith("20") && !s.contains(" ")
    let s = Term::var(SymbolId(0), SymbolSort::Str);
    let len = op(StrOp::Length, vec![s.clone()]);
    let dash = op(StrOp::CharAt, vec![s.clone(), Term::int(4)]);
    let year = op(StrOp::Substr, vec![s.clone(), Term::int(0), Term::int(4)]);
    let value = op(StrOp::ParseDigits, vec![year]);
    let leap = Term::binary(rivet_pc::BinaryOp::Rem, value.clone(), Term::long(4)).unwrap();
    let clauses = vec![
        Term::compare(CmpOp::Eq, len, Term::int(10)).unwrap(),
        Term::compare(CmpOp::Eq, dash, Term::int(i32::from(b'-'))).unwrap(),
        Term::compare(CmpOp::Ge, value, Term::long(0)).unwrap(),
        Term::compare(CmpOp::Eq, leap, Term::long(0)).unwrap(),
        op(StrOp::StartsWith, vec![s.clone(), Term::str_const("20")]),
        Term::negation(op(StrOp::Contains, vec![s, Term::str_const(" ")])).unwrap(),
    ];
    let SolveResult::Sat(model) = check_on_solver_thread(clauses.clone(), Duration::from_secs(10))
    else {
        panic!("the date clauses are satisfiable");
    };
    assert!(model.satisfies(&clauses), "{model:?}");
    let text = model.get_string(SymbolId(0)).expect("a value for s");
    assert_eq!(text.len(), 10);
    assert!(matches!(
        model.eval(&Term::var(SymbolId(0), SymbolSort::Str)),
        Concrete::Str(_)
    ));
}

#[test]
fn an_unsatisfiable_string_query_is_unsat() {
    let s = Term::var(SymbolId(0), SymbolSort::Str);
    let clauses = vec![
        op(StrOp::StartsWith, vec![s.clone(), Term::str_const("ab")]),
        Term::compare(CmpOp::Lt, op(StrOp::Length, vec![s]), Term::int(2)).unwrap(),
    ];
    assert_eq!(
        check_on_solver_thread(clauses, Duration::from_secs(10)),
        SolveResult::Unsat
    );
}

#[test]
fn the_bit_vector_backend_gives_up_on_a_long_string_operation_without_panicking() {
    // `parseDigits(s) >= 10L` (a long) in the bit-vector translation, which does not take
    // strings: once a 32-bit stand-in compared with a 64-bit constant, and the z3 crate
    // panicked on the term Z3 refused.
    let s = Term::var(SymbolId(0), SymbolSort::Str);
    let digits = op(StrOp::ParseDigits, vec![s]);
    let clause = Term::compare(CmpOp::Ge, digits, Term::long(10)).expect("well-sorted");
    let answer = rivet_solver::on_solver_thread(move || {
        Z3Solver::bit_vectors_only(Duration::from_secs(5)).check(&[clause])
    })
    .recv()
    .expect("the check panicked");
    assert!(matches!(answer, SolveResult::Unknown(_)));
}
