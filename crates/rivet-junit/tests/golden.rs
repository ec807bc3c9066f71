//! Golden tests of the emitter: JUnit 5, JUnit 4 and JUnit 4.12 classes for hand-built tests covering
//! literals, inlining, overload casts, inspectors, expected exceptions and imports.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// A hand-built test fixture reads best as one function; the 150-line rule is for library code.
#![allow(clippy::too_many_lines)]

use std::collections::{BTreeMap, BTreeSet};

use rivet_junit::{emit, ExpectedExceptions, JUnitVersion, TestClass, TestSource};
use rivet_testcase::{
    Assertion, GeneratedTest, GoalId, JType, MemberRef, Prim, PrimitiveValue, Statement,
    StatementId, TypedTest, ValueSummary,
};

fn avl_tests() -> Vec<TestSource> {
    let avl = "structures/AvlTree";
    let mut t = TypedTest::new();
    let tree = t.push(
        Statement::Construct {
            constructor: MemberRef::new(avl, "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class(avl)),
    );
    let k = t.push(
        Statement::Primitive(PrimitiveValue::Int(7)),
        Some(JType::Prim(Prim::Int)),
    );
    let inserted = t.push(
        Statement::Call {
            method: MemberRef::new(avl, "insert", "(I)Z"),
            receiver: Some(tree),
            args: vec![k],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new(avl, "remove", "(I)Z"),
            receiver: Some(tree),
            args: vec![k],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    let first = GeneratedTest {
        test: t,
        goals: vec![GoalId(3)],
        assertions: vec![
            Assertion::Equals {
                of: inserted,
                value: ValueSummary::Boolean(true),
            },
            Assertion::Inspector {
                of: tree,
                method: MemberRef::new(avl, "size", "()I"),
                value: ValueSummary::Int(0),
            },
        ],
    };

    let mut t = TypedTest::new();
    let tree = t.push(
        Statement::Construct {
            constructor: MemberRef::new(avl, "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class(avl)),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new(avl, "min", "()I"),
            receiver: Some(tree),
            args: vec![],
        },
        Some(JType::Prim(Prim::Int)),
    );
    let second = GeneratedTest {
        test: t,
        goals: vec![GoalId(9)],
        assertions: vec![Assertion::Throws {
            at: StatementId(1),
            class: "java.lang.IllegalStateException".into(),
            message: Some("empty".into()),
        }],
    };

    // Strings, chars, longs, doubles, null, arrays, a JDK list, an overloaded call.
    let mut t = TypedTest::new();
    let list = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::Class {
            name: "java/util/ArrayList".into(),
            args: vec![JType::class("java/lang/String")],
        }),
    );
    let s = t.push(
        Statement::String("a \"quoted\"\n\\ line".into()),
        Some(JType::class("java/lang/String")),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "add", "(Ljava/lang/Object;)Z"),
            receiver: Some(list),
            args: vec![s],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    let c = t.push(
        Statement::Primitive(PrimitiveValue::Char('\'' as u16)),
        Some(JType::Prim(Prim::Char)),
    );
    let l = t.push(
        Statement::Primitive(PrimitiveValue::Long(-3)),
        Some(JType::Prim(Prim::Long)),
    );
    let d = t.push(
        Statement::Primitive(PrimitiveValue::Double(0.5)),
        Some(JType::Prim(Prim::Double)),
    );
    let n = t.push(
        Statement::Null {
            descriptor: "Lorg/example/Widget;".into(),
        },
        Some(JType::class("org/example/Widget")),
    );
    let arr = t.push(
        Statement::Array {
            component: "J".into(),
            elements: vec![l, l],
        },
        Some(JType::Array(Box::new(JType::Prim(Prim::Long)))),
    );
    let r = t.push(
        Statement::Call {
            method: MemberRef::new(
                "structures/Util",
                "mix",
                "(Ljava/lang/Object;CD[JLorg/example/Widget;)Ljava/lang/String;",
            ),
            receiver: None,
            args: vec![list, c, d, arr, n],
        },
        Some(JType::class("java/lang/String")),
    );
    let third = GeneratedTest {
        test: t,
        goals: vec![GoalId(1), GoalId(2)],
        assertions: vec![Assertion::Equals {
            of: r,
            value: ValueSummary::String("mixed".into()),
        }],
    };
    vec![
        TestSource {
            generated: first,
            covers: vec!["AvlTree.insert line 64 (true)".into()],
            subject: "insert".into(),
        },
        TestSource {
            generated: second,
            covers: vec!["AvlTree.min line 42 (true)".into()],
            subject: "min".into(),
        },
        TestSource {
            generated: third,
            covers: vec![
                "Util.mix line 3 (true)".into(),
                "Util.mix line 5 (false)".into(),
            ],
            subject: "mix".into(),
        },
    ]
}

fn class(junit: JUnitVersion) -> TestClass {
    TestClass {
        class_under_test: "structures/AvlTree".into(),
        junit,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: avl_tests(),
        overloaded: BTreeMap::from([(
            MemberRef::new(
                "structures/Util",
                "mix",
                "(Ljava/lang/Object;CD[JLorg/example/Widget;)Ljava/lang/String;",
            ),
            BTreeSet::new(),
        )]),
        inner_classes: BTreeSet::new(),
    }
}

#[test]
fn junit5_golden() {
    let e = emit(&class(JUnitVersion::Five));
    assert_eq!(e.relative_path(), "structures/AvlTreeRivetTest.java");
    assert_eq!(e.tests.len(), 3);
    assert_eq!(e.test_at(e.tests[1].start + 2), Some(1));
    insta::assert_snapshot!(e.source);
}

#[test]
fn junit4_golden() {
    insta::assert_snapshot!(emit(&class(JUnitVersion::Four)).source);
}

/// JUnit 4.12 and earlier have no `assertThrows`: the `try`/`fail`/`catch` idiom.
#[test]
fn junit4_12_golden() {
    let mut c = class(JUnitVersion::Four);
    c.expected_exceptions = ExpectedExceptions::TryCatch;
    let e = emit(&c);
    assert!(!e.source.contains("assertThrows"), "{}", e.source);
    // The throwing call and the message check map to the expected exception (assertion 0 of
    // the second test).
    let lines: Vec<&str> = e.source.lines().collect();
    let mapped: Vec<&str> = e.tests[1]
        .assertions
        .iter()
        .map(|(_, l)| lines[*l as usize - 1].trim())
        .collect();
    assert_eq!(
        mapped,
        [
            "avlTree0.min();",
            "assertEquals(\"empty\", exception.getMessage());"
        ]
    );
    insta::assert_snapshot!(e.source);
}

#[test]
fn emission_is_deterministic() {
    assert_eq!(
        emit(&class(JUnitVersion::Five)),
        emit(&class(JUnitVersion::Five))
    );
}

/// A test of `new AvlTree().name(arg)` whose result is asserted as `value` (none: not
/// asserted).
fn one_call(
    name: &str,
    descriptor: &str,
    arg: PrimitiveValue,
    value: Option<ValueSummary>,
) -> TestSource {
    let avl = "structures/AvlTree";
    let mut t = TypedTest::new();
    let tree = t.push(
        Statement::Construct {
            constructor: MemberRef::new(avl, "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class(avl)),
    );
    let k = t.push(Statement::Primitive(arg), Some(JType::Prim(Prim::Int)));
    let call = t.push(
        Statement::Call {
            method: MemberRef::new(avl, name, descriptor),
            receiver: Some(tree),
            args: vec![k],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    let assertions = value
        .map(|value| Assertion::Equals { of: call, value })
        .into_iter()
        .collect();
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![GoalId(1)],
            assertions,
        },
        covers: Vec::new(),
        subject: name.into(),
    }
}

#[test]
fn test_names_say_the_call_its_outcome_and_the_condition_and_stay_unique() {
    let mut tests = vec![
        one_call(
            "insert",
            "(I)Z",
            PrimitiveValue::Int(-3),
            Some(ValueSummary::Boolean(true)),
        ),
        one_call(
            "insert",
            "(I)Z",
            PrimitiveValue::Int(-4),
            Some(ValueSummary::Boolean(true)),
        ),
        one_call(
            "contains",
            "(I)Z",
            PrimitiveValue::Int(0),
            Some(ValueSummary::Boolean(false)),
        ),
        one_call(
            "rank",
            "(I)I",
            PrimitiveValue::Int(5),
            Some(ValueSummary::Int(-1)),
        ),
        one_call("remove", "(I)Z", PrimitiveValue::Int(5), None),
        // A name that would clash with Object's or JUnit's methods keeps its prefix.
        one_call("equals", "(I)Z", PrimitiveValue::Int(5), None),
        one_call("assertBalanced", "(I)Z", PrimitiveValue::Int(5), None),
    ];
    tests.extend(avl_tests().into_iter().skip(1).take(1));
    let mut c = class(JUnitVersion::Five);
    c.tests = tests;
    let names: Vec<String> = emit(&c).tests.iter().map(|t| t.name.clone()).collect();
    assert_eq!(
        names,
        [
            "insert_returnsTrue_forNegative",
            "insert_returnsTrue_forNegative_2",
            "contains_returnsFalse_forZero",
            "rank_returnsMinusOne",
            "remove",
            "testEquals",
            "testAssertBalanced",
            "min_throwsIllegalStateException",
        ]
    );
}

#[test]
fn a_negative_literal_cast_to_a_reference_type_is_parenthesized() {
    // map.put((Object) (-9), map): `(Object) -9` would be a subtraction from a variable.
    let mut t = TypedTest::new();
    let map = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/TreeMap", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class("java/util/TreeMap")),
    );
    let k = t.push(
        Statement::Primitive(PrimitiveValue::Int(-9)),
        Some(JType::Prim(Prim::Int)),
    );
    let put = "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;";
    t.push(
        Statement::Call {
            method: MemberRef::new("java/util/TreeMap", "put", put),
            receiver: Some(map),
            args: vec![k, map],
        },
        Some(JType::class("java/lang/Object")),
    );
    let class = TestClass {
        class_under_test: "sushi/Ledger".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![TestSource {
            generated: GeneratedTest {
                test: t,
                goals: vec![GoalId(0)],
                assertions: vec![],
            },
            covers: vec!["Ledger.settle line 15 (true)".into()],
            subject: "settle".into(),
        }],
        overloaded: BTreeMap::from([(
            MemberRef::new("java/util/TreeMap", "put", put),
            BTreeSet::new(),
        )]),
        inner_classes: BTreeSet::new(),
    };
    let source = emit(&class).source;
    assert!(source.contains("(Object) (-9)"), "{source}");
    assert!(!source.contains("(Object) -9"), "{source}");
}

#[test]
fn class_literals_and_lambdas() {
    use rivet_testcase::{ClassName, LambdaBody};
    let mut t = TypedTest::new();
    let class_of = |name: &str| JType::Class {
        name: "java/lang/Class".into(),
        args: vec![JType::class(name)],
    };
    // Used twice: declared with its type argument, so generic methods infer their result.
    let unit = t.push(
        Statement::ClassLiteral {
            descriptor: "Ljava/util/concurrent/TimeUnit;".into(),
        },
        Some(class_of("java/util/concurrent/TimeUnit")),
    );
    let name = t.push(
        Statement::String("SECONDS".into()),
        Some(JType::class("java/lang/String")),
    );
    let get = "(Ljava/lang/Class;Ljava/lang/String;)Ljava/lang/Enum;";
    for _ in 0..2 {
        t.push(
            Statement::Call {
                method: MemberRef::new("org/example/Enums", "get", get),
                receiver: None,
                args: vec![unit, name],
            },
            Some(JType::class("java/util/concurrent/TimeUnit")),
        );
    }
    // Used once: inlined.
    let int = t.push(
        Statement::ClassLiteral {
            descriptor: "I".into(),
        },
        Some(class_of("java/lang/Integer")),
    );
    let void = t.push(
        Statement::ClassLiteral {
            descriptor: "V".into(),
        },
        Some(class_of("java/lang/Void")),
    );
    let names = "(Ljava/lang/Class;Ljava/lang/Class;)V";
    t.push(
        Statement::Call {
            method: MemberRef::new("org/example/Enums", "names", names),
            receiver: None,
            args: vec![int, void],
        },
        None,
    );
    let seven = t.push(
        Statement::Primitive(PrimitiveValue::Int(7)),
        Some(JType::Prim(Prim::Int)),
    );
    let lambdas = [
        (
            "java/util/Comparator",
            "compare",
            "(Ljava/lang/Object;Ljava/lang/Object;)I",
            LambdaBody::Returns(seven),
        ),
        (
            "java/util/function/Function",
            "apply",
            "(Ljava/lang/Object;)Ljava/lang/Object;",
            LambdaBody::Identity,
        ),
        ("java/lang/Runnable", "run", "()V", LambdaBody::Nothing),
        (
            "java/util/function/Supplier",
            "get",
            "()Ljava/lang/Object;",
            LambdaBody::Throws,
        ),
    ];
    for (iface, m, d, body) in lambdas {
        let l = t.push(
            Statement::Lambda {
                interface: ClassName::from_internal(iface),
                method: MemberRef::new(iface, m, d),
                body,
            },
            Some(JType::class(iface)),
        );
        t.push(
            Statement::Call {
                method: MemberRef::new("org/example/Enums", "use", "(Ljava/lang/Object;)V"),
                receiver: None,
                args: vec![l],
            },
            None,
        );
    }
    let class = TestClass {
        class_under_test: "org/example/Enums".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![TestSource {
            generated: GeneratedTest {
                test: t,
                goals: vec![GoalId(0)],
                assertions: vec![],
            },
            covers: vec!["Enums.get line 3 (true)".into()],
            subject: "get".into(),
        }],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    insta::assert_snapshot!(emit(&class).source);
}

/// The source of one test `t` of class `owner`, whose `method` is overloaded (its arguments
/// may need casts to pick it).
fn emit_overloaded(owner: &str, method: MemberRef, t: TypedTest) -> String {
    emit_overloaded_with(owner, method, t, BTreeSet::new())
}

/// As [`emit_overloaded`], with the positions of `method`'s type-variable parameters.
fn emit_overloaded_with(
    owner: &str,
    method: MemberRef,
    t: TypedTest,
    variables: BTreeSet<usize>,
) -> String {
    let subject = method.name.clone();
    let mut c = class(JUnitVersion::Five);
    c.class_under_test = owner.into();
    c.tests = vec![TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![GoalId(1)],
            assertions: Vec::new(),
        },
        covers: Vec::new(),
        subject,
    }];
    c.overloaded = BTreeMap::from([(method, variables)]);
    emit(&c).source
}

/// `BooleanUtils.toBoolean(Integer, Integer, Integer)` beside `toBoolean(int, int, int)`: a
/// boxed value used once is written inline, and as a bare literal javac would find both
/// overloads applicable; it gets its cast.
#[test]
fn boxed_literals_keep_their_type_among_int_and_integer_overloads() {
    let owner = "org/apache/commons/lang3/BooleanUtils";
    let method = MemberRef::new(
        owner,
        "toBoolean",
        "(Ljava/lang/Integer;Ljava/lang/Integer;Ljava/lang/Integer;)Z",
    );
    let mut t = TypedTest::new();
    let boxed = Some(JType::class("java/lang/Integer"));
    let shared = t.push(Statement::Primitive(PrimitiveValue::Int(5)), boxed.clone());
    let once = t.push(Statement::Primitive(PrimitiveValue::Int(6)), boxed);
    t.push(
        Statement::Call {
            method: method.clone(),
            receiver: None,
            args: vec![shared, once, shared],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    let source = emit_overloaded(owner, method, t);
    assert!(
        source.contains("BooleanUtils.toBoolean(integer0, (Integer) 6, integer0);"),
        "{source}"
    );
}

#[test]
fn an_inline_string_made_for_a_generic_parameter_is_cast_for_the_overload() {
    // Validate.inclusiveBetween(T, T, Comparable<T>) among (long, long, long) and (double,
    // double, double): an inline "b" is a String to javac, which then infers T = String and
    // rejects the Object arguments; the cast to the erased parameter type compiles.
    let owner = "org/apache/commons/lang3/Validate";
    let method = MemberRef::new(
        owner,
        "inclusiveBetween",
        "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/Comparable;)V",
    );
    let mut t = TypedTest::new();
    let object = Some(JType::object());
    let start = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/lang/Object", "<init>", "()V"),
            args: Vec::new(),
        },
        object.clone(),
    );
    let value = t.push(
        Statement::String("b".into()),
        Some(JType::class("java/lang/Comparable")),
    );
    t.push(
        Statement::Call {
            method: method.clone(),
            receiver: None,
            args: vec![start, start, value],
        },
        None,
    );
    let source = emit_overloaded(owner, method, t);
    assert!(
        source.contains("Validate.inclusiveBetween(object0, object0, (Comparable) \"b\");"),
        "{source}"
    );
}

#[test]
fn a_type_variable_parameter_of_an_overload_is_not_cast_to_its_erasure() {
    // EnumUtils.generateBitVector(Class<E>, E...) beside (Class<E>, Iterable<? extends E>):
    // `(Enum[]) dayOfWeekArray0` would stop javac inferring E = DayOfWeek from the class
    // literal, and the call would not compile. The parameter of `Iterable` type keeps its cast.
    let owner = "org/apache/commons/lang3/EnumUtils";
    let varargs = MemberRef::new(
        owner,
        "generateBitVector",
        "(Ljava/lang/Class;[Ljava/lang/Enum;)J",
    );
    let mut t = TypedTest::new();
    let class_literal = t.push(
        Statement::ClassLiteral {
            descriptor: "Ljava/time/DayOfWeek;".into(),
        },
        Some(JType::Class {
            name: "java/lang/Class".into(),
            args: vec![JType::class("java/time/DayOfWeek")],
        }),
    );
    let array = t.push(
        Statement::Array {
            component: "Ljava/time/DayOfWeek;".into(),
            elements: Vec::new(),
        },
        Some(JType::Array(Box::new(JType::class("java/time/DayOfWeek")))),
    );
    t.push(
        Statement::Call {
            method: varargs.clone(),
            receiver: None,
            args: vec![class_literal, array],
        },
        Some(JType::Prim(Prim::Long)),
    );
    let source = emit_overloaded_with(owner, varargs.clone(), t.clone(), BTreeSet::from([1]));
    assert!(
        source.contains("EnumUtils.generateBitVector(DayOfWeek.class, dayOfWeekArray0);"),
        "{source}"
    );
    // Without the type variable known, the array is cast (what did not compile).
    let cast = emit_overloaded(owner, varargs, t);
    assert!(
        cast.contains("EnumUtils.generateBitVector(DayOfWeek.class, (Enum[]) dayOfWeekArray0);"),
        "{cast}"
    );
}
