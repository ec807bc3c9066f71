//! The solver bridge: Rust's evaluator and Z3 agree on random terms, including overflow,
//! division and shift edge cases, and Z3's models satisfy the clauses by Rust's reading.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use proptest::prelude::*;
use rivet_pc::{
    BinaryOp, CmpOp, Concrete, Model, Sort, SymbolId, SymbolSort, Term, TermKind, UnaryOp,
};
use rivet_solver::{SolveResult, Solver, Z3Solver};

const SORTS: [SymbolSort; 6] = [
    SymbolSort::Int,
    SymbolSort::Long,
    SymbolSort::Byte,
    SymbolSort::Char,
    SymbolSort::Short,
    SymbolSort::Boolean,
];

fn edge_int() -> impl Strategy<Value = i32> {
    prop_oneof![
        Just(0),
        Just(1),
        Just(-1),
        Just(i32::MIN),
        Just(i32::MAX),
        Just(31),
        Just(32),
        Just(63),
        Just(64),
        -1000..1000i32,
        any::<i32>(),
    ]
}

fn edge_long() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(0),
        Just(1),
        Just(-1),
        Just(i64::MIN),
        Just(i64::MAX),
        Just(i64::from(i32::MIN)),
        -1000..1000i64,
        any::<i64>(),
    ]
}

/// Symbol i has sort SORTS[i % 6].
fn sym(i: u32) -> Term {
    Term::var(SymbolId(i), SORTS[(i % 6) as usize])
}

fn int_term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        edge_int().prop_map(Term::int),
        prop_oneof![
            Just(0u32),
            Just(2),
            Just(3),
            Just(4),
            Just(5),
            Just(6),
            Just(8)
        ]
        .prop_map(sym),
    ];
    leaf.prop_recursive(3, 16, 2, |inner| {
        let ops = prop_oneof![
            Just(BinaryOp::Add),
            Just(BinaryOp::Sub),
            Just(BinaryOp::Mul),
            Just(BinaryOp::Div),
            Just(BinaryOp::Rem),
            Just(BinaryOp::Shl),
            Just(BinaryOp::Shr),
            Just(BinaryOp::Ushr),
            Just(BinaryOp::And),
            Just(BinaryOp::Or),
            Just(BinaryOp::Xor),
        ];
        let unops = prop_oneof![
            Just(UnaryOp::Neg),
            Just(UnaryOp::I2B),
            Just(UnaryOp::I2C),
            Just(UnaryOp::I2S)
        ];
        prop_oneof![
            (ops, inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| Term::binary(op, a, b).unwrap_or_else(|e| panic!("{e}"))),
            (unops, inner.clone())
                .prop_map(|(op, a)| Term::unary(op, a).unwrap_or_else(|e| panic!("{e}"))),
            (edge_long(), inner.clone()).prop_map(|(k, a)| {
                let l = Term::unary(UnaryOp::I2L, a).unwrap_or_else(|e| panic!("{e}"));
                let l =
                    Term::binary(BinaryOp::Mul, l, Term::long(k)).unwrap_or_else(|e| panic!("{e}"));
                let l = Term::binary(BinaryOp::Add, l, sym(1)).unwrap_or_else(|e| panic!("{e}"));
                let l =
                    Term::binary(BinaryOp::Shr, l, Term::int(33)).unwrap_or_else(|e| panic!("{e}"));
                Term::unary(UnaryOp::L2I, l).unwrap_or_else(|e| panic!("{e}"))
            }),
        ]
    })
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ]
}

fn clause() -> impl Strategy<Value = Term> {
    (cmp_op(), int_term(), int_term())
        .prop_map(|(op, a, b)| Term::compare(op, a, b).unwrap_or_else(|e| panic!("{e}")))
}

fn assignment() -> impl Strategy<Value = Vec<i64>> {
    proptest::collection::vec(edge_long(), 9)
}

fn model_of(values: &[i64]) -> Model {
    let mut m = Model::new();
    for (i, v) in values.iter().enumerate() {
        let sort = SORTS[i % 6];
        m.set(SymbolId(i as u32), sort.normalize(*v));
    }
    m
}

/// Clauses fixing every symbol to the model's value.
fn pin(model: &Model) -> Vec<Term> {
    model
        .iter()
        .map(|(s, v)| {
            let sort = SORTS[(s.0 % 6) as usize];
            let k = if sort.term_sort() == Sort::Long {
                Term::long(v)
            } else {
                Term::int(v as i32)
            };
            Term::compare(CmpOp::Eq, Term::var(s, sort), k).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Under a fixed assignment, Z3 agrees with Rust's evaluation of an int term.
    #[test]
    fn z3_and_rust_agree_on_values(t in int_term(), values in assignment()) {
        let model = model_of(&values);
        let expected = model.eval(&t);
        let Concrete::Int(k) = expected else { panic!("int term evaluated to {expected:?}") };
        let mut clauses = pin(&model);
        clauses.push(Term::compare(CmpOp::Ne, t.clone(), Term::int(k)).unwrap_or_else(|e| panic!("{e}")));
        let mut z3 = Z3Solver::new(Duration::from_secs(10));
        prop_assert_eq!(z3.check(&clauses), SolveResult::Unsat, "term {:?} = {}", t, k);
    }

    /// A model Z3 finds satisfies the clauses by Rust's evaluation.
    #[test]
    fn z3_models_satisfy_clauses_in_rust(a in clause(), b in clause()) {
        let clauses = [a, b];
        let mut z3 = Z3Solver::new(Duration::from_secs(10));
        if let SolveResult::Sat(model) = z3.check(&clauses) {
            prop_assert!(model.satisfies(&clauses), "model {:?} of {:?}", model, clauses);
        }
    }
}

fn atom_sort() -> impl Strategy<Value = SymbolSort> {
    prop_oneof![
        Just(SymbolSort::Int),
        Just(SymbolSort::Byte),
        Just(SymbolSort::Char),
        Just(SymbolSort::Long)
    ]
}

fn atom(sort: SymbolSort) -> impl Strategy<Value = Term> {
    (cmp_op(), edge_int(), edge_int(), any::<bool>()).prop_map(move |(op, c, k, swap)| {
        let x = Term::var(SymbolId(0), sort);
        let (c, k) = if sort == SymbolSort::Long {
            (Term::long(i64::from(c) * 3), Term::long(i64::from(k) * 5))
        } else {
            (Term::int(c), Term::int(k))
        };
        let side = Term::binary(BinaryOp::Add, x, c).unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = if swap { (k, side) } else { (side, k) };
        Term::compare(op, a, b).unwrap_or_else(|e| panic!("{e}"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The interval procedure agrees with Z3 on single-symbol queries, and its models hold.
    #[test]
    fn intervals_agree_with_z3(atoms in atom_sort().prop_flat_map(|s| proptest::collection::vec(atom(s), 1..4)), extra in clause()) {
        let mut atoms = atoms;
        atoms.push(extra);
        // A symbol has one sort in a real path condition; the generators may give s0 two.
        prop_assume!(one_sort_per_symbol(&atoms));
        let Some(decided) = rivet_solver::interval::decide(&atoms) else { return Ok(()) };
        let mut z3 = Z3Solver::new(Duration::from_secs(10));
        let reference = z3.check(&atoms);
        if !matches!(reference, SolveResult::Unknown(_)) {
            prop_assert_eq!(decided.is_sat(), reference.is_sat(), "{:?}", atoms);
        }
        if let SolveResult::Sat(m) = decided {
            prop_assert!(m.satisfies(&atoms), "model {:?} of {:?}", m, atoms);
        }
    }
}

fn one_sort_per_symbol(terms: &[Term]) -> bool {
    fn walk(t: &Term, seen: &mut std::collections::HashMap<SymbolId, SymbolSort>) -> bool {
        match t.kind() {
            TermKind::Var(s, sort) => *seen.entry(*s).or_insert(*sort) == *sort,
            TermKind::Unary(_, a) => walk(a, seen),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                walk(a, seen) && walk(b, seen)
            }
            TermKind::Ite(c, a, b) => walk(c, seen) && walk(a, seen) && walk(b, seen),
            _ => true,
        }
    }
    let mut seen = std::collections::HashMap::new();
    terms.iter().all(|t| walk(t, &mut seen))
}

fn linear_term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        edge_int().prop_map(Term::int),
        prop_oneof![Just(0u32), Just(2), Just(3), Just(4), Just(5)].prop_map(sym),
    ];
    leaf.prop_recursive(3, 12, 2, |inner| {
        let ops = prop_oneof![Just(BinaryOp::Add), Just(BinaryOp::Sub)];
        prop_oneof![
            (ops, inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| Term::binary(op, a, b).unwrap_or_else(|e| panic!("{e}"))),
            (edge_int(), inner.clone()).prop_map(|(k, a)| Term::binary(
                BinaryOp::Mul,
                a,
                Term::int(k)
            )
            .unwrap_or_else(|e| panic!("{e}"))),
            inner
                .clone()
                .prop_map(|a| Term::unary(UnaryOp::Neg, a).unwrap_or_else(|e| panic!("{e}"))),
        ]
    })
}

fn linear_clause() -> impl Strategy<Value = Term> {
    (cmp_op(), linear_term(), linear_term())
        .prop_map(|(op, a, b)| Term::compare(op, a, b).unwrap_or_else(|e| panic!("{e}")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The linear-integer translation (wrapping explicit) agrees with the bit-vector one,
    /// and its models satisfy the clauses by Rust's evaluation.
    #[test]
    fn linear_translation_agrees_with_bit_vectors(clauses in proptest::collection::vec(linear_clause(), 1..4)) {
        let mut linear = Z3Solver::new(Duration::from_secs(10));
        let mut bits = Z3Solver::bit_vectors_only(Duration::from_secs(10));
        let (l, b) = (linear.check(&clauses), bits.check(&clauses));
        prop_assert_eq!(linear.stats().linear_calls, 1);
        if !matches!(l, SolveResult::Unknown(_)) && !matches!(b, SolveResult::Unknown(_)) {
            prop_assert_eq!(l.is_sat(), b.is_sat(), "{:?}", clauses);
        }
        if let SolveResult::Sat(m) = l {
            prop_assert!(m.satisfies(&clauses), "model {:?} of {:?}", m, clauses);
        }
    }
}

#[test]
fn overflow_and_division_edges() {
    let x = Term::var(SymbolId(0), SymbolSort::Int);
    let mut z3 = Z3Solver::new(Duration::from_secs(10));
    // x + 1 < x has a solution only through overflow: x = MAX.
    let plus =
        Term::binary(BinaryOp::Add, x.clone(), Term::int(1)).unwrap_or_else(|e| panic!("{e}"));
    let c = Term::compare(CmpOp::Lt, plus, x.clone()).unwrap_or_else(|e| panic!("{e}"));
    match z3.check(&[c]) {
        SolveResult::Sat(m) => assert_eq!(m.get(SymbolId(0)), Some(i64::from(i32::MAX))),
        other => panic!("{other:?}"),
    }
    // x / -1 == x with x != 0: only MIN.
    let div =
        Term::binary(BinaryOp::Div, x.clone(), Term::int(-1)).unwrap_or_else(|e| panic!("{e}"));
    let c1 = Term::compare(CmpOp::Eq, div, x.clone()).unwrap_or_else(|e| panic!("{e}"));
    let c2 = Term::compare(CmpOp::Ne, x.clone(), Term::int(0)).unwrap_or_else(|e| panic!("{e}"));
    match z3.check(&[c1, c2]) {
        SolveResult::Sat(m) => assert_eq!(m.get(SymbolId(0)), Some(i64::from(i32::MIN))),
        other => panic!("{other:?}"),
    }
    // Negative values come back signed.
    let c = Term::compare(CmpOp::Eq, x, Term::int(-5)).unwrap_or_else(|e| panic!("{e}"));
    match z3.check(&[c]) {
        SolveResult::Sat(m) => assert_eq!(m.get(SymbolId(0)), Some(-5)),
        other => panic!("{other:?}"),
    }
}
