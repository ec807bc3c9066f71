//! The API model and generators on the bundled subjects and on commons-lang3.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use rivet_api::{AccessMode, ApiError, ApiModel, GenConfig, Generator, Rng};
use rivet_testcase::JType;

#[test]
fn scheduler_lists_get_process_elements() {
    let model = model_of(&[], "sushi.Scheduler");
    let names: Vec<String> = model
        .targets
        .iter()
        .map(|c| c.member.name.clone())
        .collect();
    assert_eq!(
        names,
        ["<init>", "deferredCount", "execPool", "executedCount"]
    );
    let exec = model
        .targets
        .iter()
        .find(|c| c.member.name == "execPool")
        .unwrap();
    assert_eq!(exec.params[0].to_string(), "java.util.List<sushi.Process>");
    let producers = model.producers(&exec.params[0]);
    assert_eq!(producers[0].member.owner.internal(), "java/util/ArrayList");
    let generator = Generator::new(&model, GenConfig::default());
    let mut rng = Rng::new(3);
    let mut saw_process_added = false;
    for _ in 0..50 {
        let t = generator.random_test(&mut rng, 4);
        assert!(t.test.validate().is_ok());
        assert_eq!(t.types.len(), t.len());
        saw_process_added |= t.statements().iter().zip(&t.types).any(|(s, _)| {
            matches!(s, rivet_testcase::Statement::Call { method, .. } if method.name == "add")
        }) && t.statements().iter().any(|s| matches!(s, rivet_testcase::Statement::Construct { constructor, .. } if constructor.owner.internal() == "sushi/Process"));
    }
    assert!(saw_process_added, "lists of processes are built with add()");
    // Inspectors: read-only getters only.
    let inspectors: Vec<String> = model
        .inspectors(&JType::class("sushi/Scheduler"))
        .iter()
        .map(|c| c.member.name.clone())
        .collect();
    assert_eq!(inspectors, ["deferredCount", "executedCount"]);
    let avl = avl_model();
    let inspectors: Vec<String> = avl
        .inspectors(&JType::class("structures/AvlTree"))
        .iter()
        .map(|c| c.member.name.clone())
        .collect();
    assert_eq!(inspectors, ["height", "min", "size"]);
}

#[test]
fn constants_and_generation_are_seeded() {
    let model = model_of(&[], "lct.Examples");
    assert!(model.constants.ints.contains(&2789));
    let bar = model_of(&[], "evodse.Bar");
    assert!(bar.constants.strings.contains(&"baz".to_string()));
    let generator = Generator::new(&model, GenConfig::default());
    let a = generator.random_test(&mut Rng::new(9), 6);
    let b = generator.random_test(&mut Rng::new(9), 6);
    assert_eq!(a, b);
}

#[test]
fn untestable_classes_are_errors_naming_the_class() {
    let cp = common::classpath(vec![rivet_testkit::compiled_subjects(11)]);
    assert!(matches!(
        ApiModel::build(
            cp.clone(),
            &rivet_classfile::ClassName::from_binary("no.Such"),
            None,
            AccessMode::SamePackage
        ),
        Err(ApiError::ClassNotFound { .. })
    ));
    assert!(matches!(
        ApiModel::build(
            cp.clone(),
            &rivet_classfile::ClassName::from_binary("java.util.List"),
            None,
            AccessMode::SamePackage
        ),
        Err(ApiError::Interface { .. })
    ));
    let e = ApiModel::build(
        cp,
        &rivet_classfile::ClassName::from_binary("structures.AvlTree"),
        Some("nope"),
        AccessMode::SamePackage,
    )
    .unwrap_err();
    assert!(e.to_string().contains("structures.AvlTree"), "{e}");
}

#[test]
fn fraction_has_static_factories() {
    let model = model_of(
        &[rivet_testkit::debian_jar("commons-lang3")],
        "org.apache.commons.lang3.math.Fraction",
    );
    let producers = model.producers(&JType::class("org/apache/commons/lang3/math/Fraction"));
    assert!(producers.iter().any(|p| p.member.name == "getFraction"));
    assert!(!producers.iter().any(|p| p.member.name == "<init>"));
    let generator = Generator::new(&model, GenConfig::default());
    let mut rng = Rng::new(1);
    for _ in 0..100 {
        let t = generator.random_test(&mut rng, 5);
        assert!(t.test.validate().is_ok());
    }
}

#[test]
fn values_of_types_a_test_cannot_name_are_declared_by_an_accessible_supertype() {
    let model = avl_model();
    // A package-private iterator class of java.util: declared as the interface it implements.
    assert_eq!(
        model.declarable(&JType::class("java/util/HashMap$KeyIterator")),
        JType::class("java/util/Iterator")
    );
    let list = JType::Class {
        name: "java/util/ArrayList".into(),
        args: vec![JType::class("java/lang/String")],
    };
    assert_eq!(model.declarable(&list), list);
    assert_eq!(
        model.declarable(&JType::class("structures/AvlTree")),
        JType::class("structures/AvlTree")
    );
}

#[test]
fn abstract_io_and_text_types_get_in_memory_stand_ins() {
    let model = avl_model();
    let made = |ty: &str| -> Vec<String> {
        model
            .producers(&JType::class(ty))
            .iter()
            .map(|c| c.member.to_string())
            .collect()
    };
    let reader = made("java/io/Reader");
    assert!(
        reader.contains(&"java.io.StringReader.<init>(Ljava/lang/String;)V".to_string()),
        "{reader:?}"
    );
    // Code branches on `instanceof BufferedReader` and on a Readable that is no Reader.
    assert!(
        reader.contains(&"java.io.BufferedReader.<init>(Ljava/io/Reader;)V".to_string()),
        "{reader:?}"
    );
    let readable = made("java/lang/Readable");
    assert!(
        readable.contains(
            &"java.nio.CharBuffer.wrap(Ljava/lang/CharSequence;)Ljava/nio/CharBuffer;".to_string()
        ),
        "{readable:?}"
    );
    assert!(readable.contains(&"java.io.StringReader.<init>(Ljava/lang/String;)V".to_string()));
    let input = made("java/io/InputStream");
    assert!(
        input.contains(&"java.io.ByteArrayInputStream.<init>([B)V".to_string()),
        "{input:?}"
    );
    let text = made("java/lang/CharSequence");
    assert!(
        text.contains(&"java.lang.StringBuilder.<init>(Ljava/lang/String;)V".to_string()),
        "{text:?}"
    );
    // Collections still start empty and are filled by calls.
    assert_eq!(
        made("java/util/List"),
        vec!["java.util.ArrayList.<init>()V".to_string()]
    );
    // A generated test can build each.
    let generator = Generator::new(&model, GenConfig::default());
    let mut rng = Rng::new(3);
    for ty in [
        "java/io/Reader",
        "java/lang/Readable",
        "java/io/InputStream",
        "java/lang/CharSequence",
    ] {
        let mut t = rivet_testcase::TypedTest::default();
        let built = (0..20).any(|_| {
            generator
                .value(&mut rng, &mut t, &JType::class(ty), 0)
                .is_some_and(|id| {
                    !matches!(
                        t.statements()[id.0 as usize],
                        rivet_testcase::Statement::Null { .. }
                    )
                })
        });
        assert!(built, "{ty}: {t:?}");
        assert!(t.test.validate().is_ok());
    }
}

#[test]
fn doubles_and_floats_include_nan_and_the_infinities() {
    let model = avl_model();
    let generator = Generator::new(&model, GenConfig::default());
    let mut rng = Rng::new(5);
    let doubles: Vec<f64> = (0..2000)
        .filter_map(
            |_| match generator.primitive(&mut rng, rivet_testcase::Prim::Double) {
                rivet_testcase::PrimitiveValue::Double(v) => Some(v),
                _ => None,
            },
        )
        .collect();
    assert_eq!(doubles.len(), 2000);
    assert!(doubles.iter().any(|v| v.is_nan()));
    assert!(doubles.iter().any(|v| v.is_infinite() && *v > 0.0));
    assert!(doubles.iter().any(|v| v.is_infinite() && *v < 0.0));
    assert!(
        doubles.iter().filter(|v| v.is_finite()).count() > 1800,
        "mostly ordinary values"
    );
    let floats = (0..2000)
        .filter(|_| {
            matches!(generator.primitive(&mut rng, rivet_testcase::Prim::Float),
                rivet_testcase::PrimitiveValue::Float(v) if v.is_nan())
        })
        .count();
    assert!(floats > 0);
}

/// The model of `structures.AvlTree` as a test in its package sees it.
fn avl_model() -> ApiModel {
    model_of(&[], "structures.AvlTree")
}

/// The model of `class` (binary name) on the subjects and `extra`, as a test in its package
/// sees it.
fn model_of(extra: &[std::path::PathBuf], class: &str) -> ApiModel {
    let mut paths = vec![rivet_testkit::compiled_subjects(11)];
    paths.extend(extra.iter().cloned());
    common::model_on(paths, class)
}

#[test]
fn a_list_the_class_hands_out_gets_the_list_queries_and_a_list_argument_only_its_fillers() {
    use rivet_testcase::{MemberRef, Statement, TypedTest};
    let guava = rivet_testkit::debian_jar("guava");
    let model = model_of(&[guava], "com.google.common.primitives.Ints");
    let list = JType::class("java/util/List");
    let names = |calls: &[rivet_api::Callable]| -> Vec<String> {
        calls.iter().map(|c| c.member.name.clone()).collect()
    };
    let handed_out = names(&model.methods_on_handed_out(&list));
    for wanted in [
        "get",
        "set",
        "indexOf",
        "lastIndexOf",
        "contains",
        "subList",
        "iterator",
    ] {
        assert!(
            handed_out.contains(&wanted.to_string()),
            "{wanted}: {handed_out:?}"
        );
    }
    for unwanted in ["stream", "hashCode", "forEach"] {
        assert!(
            !handed_out.contains(&unwanted.to_string()),
            "{unwanted}: {handed_out:?}"
        );
    }
    // toArray() and toArray(T[]), not toArray(IntFunction), which takes a callback.
    let to_array: Vec<String> = model
        .methods_on_handed_out(&list)
        .iter()
        .filter(|c| c.member.name == "toArray")
        .map(|c| c.member.descriptor.clone())
        .collect();
    assert_eq!(
        to_array,
        [
            "()[Ljava/lang/Object;",
            "([Ljava/lang/Object;)[Ljava/lang/Object;"
        ],
        "{to_array:?}"
    );
    let fillers = names(&model.methods_on(&list));
    assert!(!fillers.contains(&"get".to_string()), "{fillers:?}");

    // ints = new int[0]; list = Ints.asList(ints); it = list.iterator(); other = new ArrayList()
    let mut t = TypedTest::new();
    let ints = t.push(
        Statement::Array {
            component: "I".into(),
            elements: vec![],
        },
        JType::from_descriptor("[I"),
    );
    let as_list = t.push(
        Statement::Call {
            method: MemberRef::new(
                "com/google/common/primitives/Ints",
                "asList",
                "([I)Ljava/util/List;",
            ),
            receiver: None,
            args: vec![ints],
        },
        Some(list.clone()),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new("java/util/List", "iterator", "()Ljava/util/Iterator;"),
            receiver: Some(as_list),
            args: vec![],
        },
        Some(JType::class("java/util/Iterator")),
    );
    t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class("java/util/ArrayList")),
    );
    assert!(!model.handed_out(&t, ints.0 as usize));
    assert!(model.handed_out(&t, as_list.0 as usize));
    assert!(model.handed_out(&t, 2), "the iterator of a handed-out list");
    assert!(!model.handed_out(&t, 3));
}

#[test]
fn a_collection_given_itself_is_taken_out_of_a_test_with_what_depends_on_it() {
    use rivet_testcase::{MemberRef, Statement, TypedTest};
    let model = model_of(&[], "sushi.Scheduler");
    let list_ty = JType::class("java/util/ArrayList");
    assert!(model.holds_elements(&list_ty));
    assert!(model.holds_elements(&JType::class("java/util/HashMap")));
    assert!(!model.holds_elements(&JType::class("java/lang/String")));
    let mut t = TypedTest::new();
    let list = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
            args: vec![],
        },
        Some(list_ty.clone()),
    );
    let add = MemberRef::new("java/util/ArrayList", "add", "(Ljava/lang/Object;)Z");
    let text = t.push(
        Statement::String("x".into()),
        Some(JType::class("java/lang/String")),
    );
    t.push(
        Statement::Call {
            method: add.clone(),
            receiver: Some(list),
            args: vec![text],
        },
        Some(JType::from_descriptor("Z").unwrap()),
    );
    let itself = t.push(
        Statement::Call {
            method: add,
            receiver: Some(list),
            args: vec![list],
        },
        Some(JType::from_descriptor("Z").unwrap()),
    );
    // What used the self-insertion's result goes with it.
    t.push(
        Statement::Call {
            method: MemberRef::new("java/lang/String", "valueOf", "(Z)Ljava/lang/String;"),
            receiver: None,
            args: vec![itself],
        },
        Some(JType::class("java/lang/String")),
    );
    // Adding it to itself is undefined (a sorted multiset can grow under its own iterator);
    // asking whether it holds itself is a query.
    for name in ["addAll", "containsAll"] {
        t.push(
            Statement::Call {
                method: MemberRef::new("java/util/ArrayList", name, "(Ljava/util/Collection;)Z"),
                receiver: Some(list),
                args: vec![list],
            },
            Some(JType::from_descriptor("Z").unwrap()),
        );
    }
    model.drop_self_insertions(&mut t);
    let calls: Vec<&str> = t
        .statements()
        .iter()
        .filter_map(|s| match s {
            Statement::Call { method, .. } => Some(method.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["add", "containsAll"], "{:?}", t.statements());
}

#[test]
fn an_overload_a_generic_overload_makes_ambiguous_in_source_is_left_out() {
    let collections = rivet_testkit::debian_jar("commons-collections4");
    let model = model_of(
        &[collections],
        "org.apache.commons.collections4.map.DefaultedMap",
    );
    let api = model
        .class_api("org/apache/commons/collections4/map/DefaultedMap")
        .unwrap();
    let overloads: Vec<&str> = api
        .methods
        .iter()
        .filter(|m| m.member.name == "defaultedMap")
        .map(|m| m.member.descriptor.as_str())
        .collect();
    // defaultedMap(Map, V) makes defaultedMap(Map, Factory) and defaultedMap(Map, Transformer)
    // ambiguous for javac (V is inferred as the second argument's type); it stays itself.
    assert_eq!(
        overloads,
        ["(Ljava/util/Map;Ljava/lang/Object;)Lorg/apache/commons/collections4/map/DefaultedMap;"]
    );
}

#[test]
fn a_result_the_written_test_cannot_cast_is_found() {
    use rivet_testcase::{
        Execution, ExecutionStatus, MemberRef, Statement, StatementOutcome, TypedTest, ValueSummary,
    };
    let model = model_of(&[], "sushi.Scheduler");
    let mut t = TypedTest::new();
    let list = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class("java/util/ArrayList")),
    );
    let index = t.push(
        Statement::Primitive(rivet_testcase::PrimitiveValue::Int(0)),
        Some(JType::Prim(rivet_testcase::Prim::Int)),
    );
    // `(Comparable) list.get(0)`: the test knows the elements as comparable.
    t.push(
        Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "get", "(I)Ljava/lang/Object;"),
            receiver: Some(list),
            args: vec![index],
        },
        Some(JType::class("java/lang/Comparable")),
    );
    let run = |result: ValueSummary| {
        let mut e = Execution::without_result(
            ExecutionStatus::Completed,
            3,
            std::time::Duration::ZERO,
            None,
        );
        let object = |class: &str| ValueSummary::Object {
            identity: 0,
            class: rivet_classfile::ClassName::from_binary(class),
        };
        e.outcomes = vec![
            StatementOutcome::Normal(object("java.util.ArrayList")),
            StatementOutcome::Normal(ValueSummary::Int(0)),
            StatementOutcome::Normal(result),
        ];
        e
    };
    let object = |class: &str| ValueSummary::Object {
        identity: 1,
        class: rivet_classfile::ClassName::from_binary(class),
    };
    let failing = model
        .failing_cast(&t, &run(object("java.util.ArrayList")))
        .expect("a list is not comparable");
    assert_eq!(failing.statement, 2);
    assert_eq!(failing.class.binary(), "java.util.ArrayList");
    assert_eq!(failing.cast_to, JType::class("java/lang/Comparable"));
    assert_eq!(
        model.failing_cast(&t, &run(object("java.lang.Integer"))),
        None
    );
    assert_eq!(
        model.failing_cast(&t, &run(ValueSummary::String("x".into()))),
        None
    );
    assert_eq!(model.failing_cast(&t, &run(ValueSummary::Null)), None);
    assert_eq!(
        model.failing_cast(&t, &run(object("gen.NotOnTheClasspath"))),
        None,
        "a class the classpath does not have may be anything"
    );
}
