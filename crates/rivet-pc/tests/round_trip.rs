//! Path conditions survive serialisation: random terms, access paths, clauses, conditions
//! and models read back equal from JSON and evaluate the same; ill-formed input is refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rivet_pc::{
    AccessPath, BinaryOp, Clause, CmpOp, Model, PathCondition, SymbolId, SymbolSort, SymbolTable,
    Term, UnaryOp,
};

const SORTS: [SymbolSort; 6] = [
    SymbolSort::Int,
    SymbolSort::Byte,
    SymbolSort::Char,
    SymbolSort::Short,
    SymbolSort::Boolean,
    SymbolSort::Int,
];

fn int_term() -> impl Strategy<Value = Term> {
    let leaf = prop_oneof![
        any::<i32>().prop_map(Term::int),
        (0u32..6).prop_map(|i| Term::var(SymbolId(i), SORTS[i as usize])),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let ops = prop_oneof![
            Just(BinaryOp::Add),
            Just(BinaryOp::Sub),
            Just(BinaryOp::Mul),
            Just(BinaryOp::Div),
            Just(BinaryOp::Rem),
            Just(BinaryOp::Shl),
            Just(BinaryOp::Ushr),
            Just(BinaryOp::And),
            Just(BinaryOp::Xor),
        ];
        prop_oneof![
            (ops, inner.clone(), inner.clone())
                .prop_map(|(op, a, b)| Term::binary(op, a, b).unwrap()),
            inner
                .clone()
                .prop_map(|a| Term::unary(UnaryOp::Neg, a).unwrap()),
            inner.clone().prop_map(|a| {
                let l = Term::unary(UnaryOp::I2L, a).unwrap();
                let l = Term::binary(BinaryOp::Mul, l, Term::long(3_000_000_000)).unwrap();
                Term::unary(UnaryOp::L2I, l).unwrap()
            }),
            (inner.clone(), inner.clone(), inner).prop_map(|(c, a, b)| {
                let c = Term::compare(CmpOp::Lt, c, Term::int(7)).unwrap();
                Term::ite(c, a, b).unwrap()
            }),
        ]
    })
}

fn clause_term() -> impl Strategy<Value = Term> {
    let op = prop_oneof![
        Just(CmpOp::Eq),
        Just(CmpOp::Ne),
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ];
    (op, int_term(), int_term()).prop_map(|(op, a, b)| Term::compare(op, a, b).unwrap())
}

fn access_path() -> impl Strategy<Value = AccessPath> {
    let root = prop_oneof![
        Just("this".to_string()),
        Just("arg1".to_string()),
        Just("size#3".to_string())
    ];
    let step = prop_oneof![
        "[a-z]{1,6}".prop_map(|f| (0u8, f)),
        (0u32..20).prop_map(|i| (1u8, i.to_string())),
        Just((2u8, String::new())),
    ];
    (root, proptest::collection::vec(step, 0..5)).prop_map(|(root, steps)| {
        let mut p = AccessPath::root(&root);
        for (kind, s) in steps {
            p = match kind {
                0 => p.field(&s),
                1 => p.index(&s),
                _ => p.length(),
            };
        }
        p
    })
}

fn clause() -> impl Strategy<Value = Clause> {
    let r = |i: u32| Term::var(SymbolId(10 + i), SymbolSort::Ref);
    prop_oneof![
        clause_term().prop_map(Clause::Numeric),
        access_path().prop_map(move |path| Clause::Null {
            path,
            term: Term::compare(CmpOp::Eq, r(0), Term::int(0)).unwrap(),
        }),
        (access_path(), access_path()).prop_map(move |(path, target)| Clause::Alias {
            path,
            target,
            term: Term::compare(CmpOp::Eq, r(1), r(2)).unwrap(),
        }),
        (access_path(), "[a-z]{1,4}(/[A-Z][a-z]{0,5}){1,2}").prop_map(move |(path, class)| {
            Clause::Fresh {
                path,
                class: class.into(),
                term: Term::compare(CmpOp::Eq, r(3), Term::int(4)).unwrap(),
            }
        }),
    ]
}

fn table() -> SymbolTable {
    let mut t = SymbolTable::default();
    for i in 0..14u32 {
        let sort = if i < 6 {
            SORTS[i as usize]
        } else {
            SymbolSort::Ref
        };
        t.fresh(AccessPath::root("this").field(&format!("f{i}")), sort);
    }
    t
}

fn back<T: serde::Serialize + serde::de::DeserializeOwned>(v: &T) -> T {
    let json = serde_json::to_string(v).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn terms_read_back_equal_and_evaluate_the_same(t in clause_term(), values in proptest::collection::vec(any::<i64>(), 6)) {
        let read = back(&t);
        prop_assert_eq!(&read, &t);
        prop_assert_eq!(read.sort(), t.sort());
        let mut m = Model::new();
        for (i, v) in values.iter().enumerate() {
            m.set(SymbolId(i as u32), SORTS[i].normalize(*v));
        }
        prop_assert_eq!(m.eval(&read), m.eval(&t));
        prop_assert_eq!(back(&m), m);
    }

    #[test]
    fn access_paths_read_back_equal(p in access_path()) {
        let read = back(&p);
        prop_assert_eq!(read.to_string(), p.to_string());
        prop_assert_eq!(read, p);
    }

    #[test]
    fn conditions_read_back_equal(clauses in proptest::collection::vec(clause(), 0..6)) {
        let pc = PathCondition::new(clauses, &table());
        let read = back(&pc);
        prop_assert_eq!(read.texts(), pc.texts());
        prop_assert_eq!(read, pc);
    }
}

#[test]
fn a_condition_keeps_only_the_symbols_it_mentions_and_names_them() {
    let x = Term::var(SymbolId(2), SymbolSort::Short);
    let c = Term::compare(CmpOp::Ge, x, Term::int(15)).unwrap();
    let null = Clause::Null {
        path: AccessPath::root("this").field("head"),
        term: Term::compare(
            CmpOp::Eq,
            Term::var(SymbolId(7), SymbolSort::Ref),
            Term::int(0),
        )
        .unwrap(),
    };
    let pc = PathCondition::new(vec![Clause::Numeric(c), null], &table());
    assert_eq!(
        pc.symbols.keys().copied().collect::<Vec<_>>(),
        vec![SymbolId(2), SymbolId(7)]
    );
    assert_eq!(pc.texts(), vec!["{this}.f2 >= 15", "{this}.head == null"]);
    let paths: Vec<String> = pc.access_paths().iter().map(|p| p.to_string()).collect();
    assert_eq!(paths, vec!["{this}.f2", "{this}.head", "{this}.f7"]);
}

#[test]
fn serialised_forms_are_readable_and_ill_formed_input_is_refused() {
    let p = AccessPath::root("this").field("head").index("2").length();
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        r#"[{"root":"this"},{"field":"head"},{"index":"2"},"length"]"#
    );
    let c = Clause::Numeric(
        Term::compare(
            CmpOp::Lt,
            Term::var(SymbolId(0), SymbolSort::Int),
            Term::int(3),
        )
        .unwrap(),
    );
    assert_eq!(
        serde_json::to_string(&c).unwrap(),
        r#"{"kind":"numeric","term":{"Compare":["Lt",{"Var":[0,"Int"]},{"Int":3}]}}"#
    );
    // A comparison of an int with a boolean, a path without a root, a path with two roots.
    assert!(serde_json::from_str::<Term>(r#"{"Compare":["Lt",{"Int":1},{"Bool":true}]}"#).is_err());
    assert!(serde_json::from_str::<AccessPath>(r#"[{"field":"head"}]"#).is_err());
    assert!(serde_json::from_str::<AccessPath>(r#"[{"root":"a"},{"root":"b"}]"#).is_err());
}
