//! Values beyond constructors: lambdas for functional interfaces, class literals for `Class`
//! parameters (enums for an enum bound, with the generic method's type variable bound by the
//! literal), and producers that are other classes' methods (a builder's `create()`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use rivet_api::{ApiModel, GenConfig, Generator, Rng};
use rivet_testcase::{JType, LambdaBody, Statement};

fn model(jar: &str, class: &str) -> ApiModel {
    common::model_in_jars(&[jar], class)
}

#[test]
fn functional_interfaces_are_found_with_their_single_abstract_method() {
    let m = model("commons-lang3", "org.apache.commons.lang3.Validate");
    // (interface, expected method, its descriptor) or None when not functional.
    let cases: [(&str, Option<(&str, &str)>); 7] = [
        (
            "java/util/function/Predicate",
            Some(("test", "(Ljava/lang/Object;)Z")),
        ),
        (
            "java/util/function/Supplier",
            Some(("get", "()Ljava/lang/Object;")),
        ),
        // Comparator redeclares equals(Object): still functional.
        (
            "java/util/Comparator",
            Some(("compare", "(Ljava/lang/Object;Ljava/lang/Object;)I")),
        ),
        // UnaryOperator declares nothing itself: apply comes from Function.
        (
            "java/util/function/UnaryOperator",
            Some(("apply", "(Ljava/lang/Object;)Ljava/lang/Object;")),
        ),
        ("java/lang/Runnable", Some(("run", "()V"))),
        // Two abstract methods; and a type Rivet builds otherwise.
        ("java/util/Iterator", None),
        ("java/lang/Iterable", None),
    ];
    for (iface, expect) in cases {
        let got = m
            .functional(iface)
            .map(|s| (s.member.name.clone(), s.member.descriptor.clone()));
        let expect = expect.map(|(n, d)| (n.to_string(), d.to_string()));
        assert_eq!(got, expect, "{iface}");
    }
    let unary = m.functional("java/util/function/UnaryOperator").unwrap();
    assert_eq!(unary.member.owner.internal(), "java/util/function/Function");
}

#[test]
fn enum_bound_class_parameters_get_enum_literals_and_bind_the_type_variable() {
    let m = model("commons-lang3", "org.apache.commons.lang3.EnumUtils");
    let enum_bound = JType::Var {
        name: "E".into(),
        erasure: Box::new(JType::class("java/lang/Enum")),
    };
    let literals = m.class_literals(Some(&enum_bound));
    assert!(
        literals.contains(&"Lorg/apache/commons/lang3/JavaVersion;".to_string()),
        "{literals:?}"
    );
    assert!(literals.contains(&"Ljava/util/concurrent/TimeUnit;".to_string()));
    assert!(
        !literals
            .iter()
            .any(|l| l == "I" || l == "Ljava/lang/String;"),
        "{literals:?}"
    );
    let any = m.class_literals(None);
    for d in [
        "I",
        "V",
        "Ljava/lang/String;",
        "[I",
        "Lorg/apache/commons/lang3/EnumUtils;",
    ] {
        assert!(any.contains(&d.to_string()), "{d} in {any:?}");
    }
    // generateBitVector(Class<E>, E...): the array's elements are constants of the literal's enum.
    let g = Generator::new(&m, GenConfig::default());
    let target = m
        .targets
        .iter()
        .find(|c| {
            c.member.name == "generateBitVector"
                && c.member.descriptor.contains("[Ljava/lang/Enum;")
        })
        .unwrap()
        .clone();
    let mut rng = Rng::new(5);
    let mut agreeing = 0;
    for _ in 0..200 {
        let mut t = rivet_testcase::TypedTest::new();
        let Some(call) = g.call(&mut rng, &mut t, &target, 0) else {
            continue;
        };
        let Statement::Call { args, .. } = &t.statements()[call.0 as usize] else {
            panic!()
        };
        let class_ty = t.types[args[0].0 as usize].clone().unwrap();
        let array_ty = t.types[args[1].0 as usize].clone().unwrap();
        if let (Some(JType::Class { name, .. }), JType::Array(element)) =
            (class_ty.args().first(), &array_ty)
        {
            if matches!(
                t.statements()[args[0].0 as usize],
                Statement::ClassLiteral { .. }
            ) {
                assert_eq!(element.class_name(), Some(&**name), "{t:?}");
                agreeing += 1;
            }
        }
    }
    assert!(agreeing > 20, "{agreeing} calls with a class literal");
}

#[test]
fn builders_and_lambdas_produce_what_constructors_cannot() {
    let m = model("guava", "com.google.common.collect.MinMaxPriorityQueue");
    let producers = m.producers(&JType::class(
        "com/google/common/collect/MinMaxPriorityQueue",
    ));
    assert!(
        producers.iter().any(|p| p.member.owner.internal()
            == "com/google/common/collect/MinMaxPriorityQueue$Builder"
            && p.member.name == "create"),
        "{producers:?}"
    );
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(9);
    let (mut lambdas, mut bodies) = (0, std::collections::BTreeSet::new());
    for _ in 0..1000 {
        let t = g.random_test(&mut rng, 4);
        assert!(t.test.validate().is_ok());
        for s in t.statements() {
            if let Statement::Lambda {
                interface,
                method,
                body,
            } = s
            {
                if interface.internal() != "java/util/Comparator" {
                    continue;
                }
                assert_eq!(method.name, "compare");
                lambdas += 1;
                bodies.insert(match body {
                    LambdaBody::Returns(_) => "returns",
                    LambdaBody::Identity => "identity",
                    LambdaBody::Nothing => "nothing",
                    LambdaBody::Throws => "throws",
                });
            }
        }
    }
    assert!(lambdas > 30, "{lambdas} comparator lambdas");
    assert!(
        bodies.contains("returns") && bodies.contains("throws"),
        "{bodies:?}"
    );
}

#[test]
fn strings_seen_at_run_time_join_the_pool() {
    let m = model("commons-lang3", "org.apache.commons.lang3.EnumUtils");
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(2);
    let draw = |rng: &mut Rng| (0..500).map(|_| g.string(rng)).collect::<Vec<_>>();
    assert!(!draw(&mut rng).iter().any(|s| s == "NANOSECONDS"));
    m.observe_strings(&["NANOSECONDS".to_string(), "NANOSECONDS".to_string()]);
    assert_eq!(m.dynamic_string_count(), 1);
    let hits = draw(&mut rng)
        .iter()
        .filter(|s| *s == "NANOSECONDS")
        .count();
    assert!((40..200).contains(&hits), "{hits} of 500");
}

#[test]
fn inherited_methods_take_the_type_arguments_the_subclass_binds() {
    // PatriciaTrie<E> extends AbstractPatriciaTrie<String, E>: put(K, V) on a PatriciaTrie
    // takes a String key.
    let m = model(
        "commons-collections4",
        "org.apache.commons.collections4.trie.AbstractPatriciaTrie",
    );
    let trie = JType::class("org/apache/commons/collections4/trie/PatriciaTrie");
    let args = m.owner_args(
        &trie,
        "org/apache/commons/collections4/trie/AbstractPatriciaTrie",
    );
    assert_eq!(
        args.first(),
        Some(&JType::class("java/lang/String")),
        "{args:?}"
    );
    assert!(
        matches!(args.get(1), Some(JType::Var { name, .. }) if name == "E"),
        "{args:?}"
    );
    // Up the chain: AbstractBitwiseTrie<K, V> sees K = String too.
    let args = m.owner_args(
        &trie,
        "org/apache/commons/collections4/trie/AbstractBitwiseTrie",
    );
    assert_eq!(
        args.first(),
        Some(&JType::class("java/lang/String")),
        "{args:?}"
    );
    // Not a superclass: nothing.
    assert!(m.owner_args(&trie, "java/util/ArrayList").is_empty());
}

#[test]
fn code_that_looks_classes_up_by_name_gets_class_names_and_a_class_loader() {
    let m = model("commons-lang3", "org.apache.commons.lang3.ClassUtils");
    assert!(m.constants.names_classes);
    let names = m.class_name_strings();
    for n in [
        "int",
        "void",
        "java.lang.String",
        "[I",
        "int[]",
        "org.apache.commons.lang3.ClassUtils",
    ] {
        assert!(names.contains(&n.to_string()), "{n} in {names:?}");
    }
    let loaders = m.producers(&JType::class("java/lang/ClassLoader"));
    assert!(
        loaders
            .iter()
            .any(|p| p.member.name == "getSystemClassLoader"),
        "{loaders:?}"
    );
    // A class that looks nothing up by name does not get them.
    assert!(
        !model("commons-lang3", "org.apache.commons.lang3.text.WordUtils")
            .constants
            .names_classes
    );
}

#[test]
fn producers_that_always_throw_weigh_less() {
    use rivet_testcase::{MemberRef, StatementOutcome, TestCase, ValueSummary};
    let m = model("commons-lang3", "org.apache.commons.lang3.math.Fraction");
    let bad = MemberRef::new(
        "org/apache/commons/lang3/math/Fraction",
        "getFraction",
        "(II)Lorg/apache/commons/lang3/math/Fraction;",
    );
    let good = MemberRef::new(
        "org/apache/commons/lang3/math/Fraction",
        "getFraction",
        "(D)Lorg/apache/commons/lang3/math/Fraction;",
    );
    let call = |method: &MemberRef| Statement::Call {
        method: method.clone(),
        receiver: None,
        args: vec![],
    };
    let test = TestCase {
        statements: vec![call(&bad), call(&good)],
    };
    let threw = StatementOutcome::Threw {
        class: "java.lang.ArithmeticException".into(),
        message: None,
    };
    let fine = StatementOutcome::Normal(ValueSummary::Null);
    assert_eq!(m.producer_weight(&bad), 1.0);
    for _ in 0..3 {
        m.observe_outcomes(&test, &[threw.clone(), fine.clone()]);
    }
    // Not yet enough runs to judge.
    assert_eq!(m.producer_weight(&bad), 1.0);
    m.observe_outcomes(&test, &[threw.clone(), fine.clone()]);
    assert!(m.producer_weight(&bad) < 0.5);
    assert_eq!(m.producer_weight(&good), 1.0);
    // One success and it is back.
    let alone = TestCase {
        statements: vec![call(&bad)],
    };
    m.observe_outcomes(&alone, &[fine]);
    assert_eq!(m.producer_weight(&bad), 1.0);
    // Statements after a throw did not run: they are not counted.
    let after = TestCase {
        statements: vec![call(&bad), call(&good)],
    };
    m.observe_outcomes(&after, &[threw, StatementOutcome::NotRun]);
    assert_eq!(m.producer_weight(&good), 1.0);
}

#[test]
fn constants_of_a_type_are_offered() {
    let m = model("commons-lang3", "org.apache.commons.lang3.math.Fraction");
    let names =
        |ty: &str| -> Vec<String> { m.constants_of(ty).iter().map(|f| f.name.clone()).collect() };
    let fractions = names("org/apache/commons/lang3/math/Fraction");
    for c in ["ZERO", "ONE", "ONE_HALF"] {
        assert!(fractions.contains(&c.to_string()), "{fractions:?}");
    }
    let locales = names("java/util/Locale");
    assert!(locales.contains(&"ROOT".to_string()), "{locales:?}");
    // A JDK interface type gets the constants of the class under test that fit it (none here).
    assert!(names("java/lang/Runnable").is_empty());
    // Constants show up in generated tests.
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(4);
    let seen = (0..300).any(|_| {
        g.random_test(&mut rng, 4)
            .statements()
            .iter()
            .any(|s| matches!(s, Statement::Constant { field } if field.name == "ONE_HALF" || field.name == "ZERO"))
    });
    assert!(seen);
}

/// TreeList's nodes are made only by other nodes' methods: building one must give up after a
/// few levels rather than recurse without end (it overflowed the stack).
#[test]
fn types_whose_only_producers_need_an_instance_of_themselves_do_not_recurse_forever() {
    let m = model(
        "commons-collections4",
        "org.apache.commons.collections4.list.TreeList",
    );
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(3);
    let mut built = 0;
    for _ in 0..200 {
        let mut t = rivet_testcase::TypedTest::new();
        if g.call_target(&mut rng, &mut t) {
            built += 1;
        }
    }
    assert!(built > 0);
}

#[test]
fn the_current_goals_integers_join_the_constants() {
    let m = model("commons-lang3", "org.apache.commons.lang3.EnumUtils");
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(3);
    let draw = |rng: &mut Rng| {
        (0..1000)
            .map(|_| g.primitive(rng, rivet_testcase::Prim::Int))
            .filter(|v| *v == rivet_testcase::PrimitiveValue::Int(3001))
            .count()
    };
    assert_eq!(draw(&mut rng), 0);
    m.set_goal_ints(Arc::from(vec![2999, 3000, 3001]));
    let hits = draw(&mut rng);
    // A constant a third of the time, a goal's half of those, one of three values.
    assert!((25..100).contains(&hits), "{hits} of 1000");
    m.set_goal_ints(Arc::from(Vec::new()));
    assert_eq!(draw(&mut rng), 0);
}

#[test]
fn two_parameters_of_one_type_mostly_get_two_objects() {
    let m = model(
        "commons-collections4",
        "org.apache.commons.collections4.CollectionUtils",
    );
    let target = m
        .targets
        .iter()
        .find(|c| {
            c.member.name == "isEqualCollection"
                && c.member.descriptor == "(Ljava/util/Collection;Ljava/util/Collection;)Z"
        })
        .unwrap()
        .clone();
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(3);
    let (mut calls, mut same) = (0, 0);
    for _ in 0..300 {
        let mut t = rivet_testcase::TypedTest::new();
        let Some(call) = g.call(&mut rng, &mut t, &target, 0) else {
            continue;
        };
        let Statement::Call { args, .. } = &t.statements()[call.0 as usize] else {
            panic!("not a call: {t:?}")
        };
        let null = |i: usize| matches!(t.statements()[args[i].0 as usize], Statement::Null { .. });
        if null(0) || null(1) {
            continue;
        }
        calls += 1;
        same += usize::from(args[0] == args[1]);
    }
    // Reusing the first collection for the second is the generator's first pick more than
    // half the time; it is now mostly replaced, and still tried (an aliasing case).
    assert!(calls > 200, "{calls} calls without a null");
    assert!(
        same * 4 < calls,
        "{same} of {calls} calls pass one object twice"
    );
    assert!(same > 0, "no call passes one object twice");
}

#[test]
fn a_compilers_package_gives_program_texts_that_strings_are_drawn_from_and_mutated_within() {
    // Closure Compiler's package holds the JavaScript snippets it injects (JSCompiler_get …);
    // its messages and format patterns are not program text.
    let cp = common::classpath(vec![rivet_testkit::debian_jar("closure-compiler")]);
    let files: Vec<_> = cp
        .package_classes("com/google/javascript/jscomp")
        .unwrap()
        .iter()
        .filter_map(|n| cp.class_file(n).unwrap())
        .collect();
    // Its runtime library ships beside it (js/runtime_type_check.js): its top-level
    // statements, loops and conditionals among them, are program texts too.
    let scripts = cp
        .package_resources("com/google/javascript/jscomp")
        .unwrap();
    assert!(scripts
        .iter()
        .any(|r| r.path.ends_with("js/runtime_type_check.js")));
    let texts = rivet_api::Constants::source_texts_of(
        files.iter().map(|f| f.as_ref()),
        scripts.iter().map(|r| r.text.as_str()),
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("function JSCompiler_get(")),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("$jscomp.typecheck.") && t.contains("for (var ")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.contains("Licensed")), "{texts:?}");
    assert!(!texts.iter().any(|t| t.contains("{0}")), "{texts:?}");
    assert!(texts.windows(2).all(|w| w[0].len() <= w[1].len()));

    let mut m = model(
        "closure-compiler",
        "com.google.javascript.jscomp.DeadAssignmentsElimination",
    );
    m.constants.source_texts = texts.clone();
    let g = Generator::new(&m, GenConfig::default());
    let mut rng = Rng::new(3);
    let drawn: Vec<String> = (0..1000).map(|_| g.string(&mut rng)).collect();
    let verbatim = drawn.iter().filter(|s| texts.contains(s)).count();
    assert!((40..300).contains(&verbatim), "{verbatim} of 1000");
    // A mutation of a program text is mostly another program text (a statement moved in,
    // an identifier renamed), not a character flipped.
    let start = "function JSCompiler_get(n) {  return function() {return this[n]}}";
    let near: Vec<String> = (0..200).map(|_| g.mutate_string(&mut rng, start)).collect();
    let spliced = near
        .iter()
        .filter(|s| s.len() > start.len() + 3 && s.starts_with("function JSCompiler_get("))
        .count();
    assert!(spliced > 20, "{spliced} of 200: {near:?}");
    // The pass's `process(Node, Node)` gets trees parsed from those texts: the compiler's
    // package-private `parseTestCode(String)` is picked, mostly with a program as its text.
    let (mut parsed, mut programs) = (0, 0);
    for _ in 0..300 {
        let t = g.random_test(&mut rng, 3);
        for s in t.statements() {
            if let Statement::Call { method, args, .. } = s {
                if method.name == "parseTestCode" {
                    parsed += 1;
                    if let Some(Statement::String(text)) = t.statements().get(args[0].0 as usize) {
                        programs += usize::from(text.contains("function") || text.contains("var "));
                    }
                }
            }
        }
    }
    assert!(
        parsed >= 10,
        "parseTestCode called {parsed} times in 300 tests"
    );
    assert!(
        programs * 2 >= parsed,
        "{programs} of {parsed} texts are programs"
    );
}
