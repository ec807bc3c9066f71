//! The verifier with the real javac and JUnit console launcher (Debian jars): a wrong
//! assertion is dropped, a test that does not compile is dropped, good tests survive.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use rivet_junit::{ExpectedExceptions, JUnitVersion, TestClass, TestSource};
use rivet_testcase::{
    Assertion, GeneratedTest, JType, MemberRef, Prim, PrimitiveValue, Statement, StatementId,
    TypedTest, ValueSummary,
};
use rivet_verify::{locate_junit, Verifier, DEBIAN_JAVA};

const AVL: &str = "structures/AvlTree";

/// A verifier with the real tools and Debian's JUnit jars, over the compiled subjects.
fn verifier(junit: JUnitVersion, time_limit: Duration) -> Verifier {
    let Some(setup) = locate_junit(None, junit, Path::new(DEBIAN_JAVA)) else {
        panic!("JUnit jars missing under {DEBIAN_JAVA}: run .ci/run");
    };
    Verifier {
        java: "java".into(),
        javac: "javac".into(),
        classpath: vec![rivet_testkit::compiled_subjects(11)],
        junit: setup,
        time_limit,
        deadline: None,
        keep: None,
        archives: None,
    }
}

fn tree_test(size: i32, method: &str) -> TestSource {
    let mut t = TypedTest::new();
    let tree = t.push(
        Statement::Construct {
            constructor: MemberRef::new(AVL, "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class(AVL)),
    );
    let k = t.push(
        Statement::Primitive(PrimitiveValue::Int(4)),
        Some(JType::Prim(Prim::Int)),
    );
    let ins = t.push(
        Statement::Call {
            method: MemberRef::new(AVL, method, "(I)Z"),
            receiver: Some(tree),
            args: vec![k],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![],
            assertions: vec![
                Assertion::Equals {
                    of: ins,
                    value: ValueSummary::Boolean(true),
                },
                Assertion::Inspector {
                    of: tree,
                    method: MemberRef::new(AVL, "size", "()I"),
                    value: ValueSummary::Int(size),
                },
            ],
        },
        covers: vec![],
        subject: method.into(),
    }
}

fn throwing_test() -> TestSource {
    let mut t = TypedTest::new();
    let tree = t.push(
        Statement::Construct {
            constructor: MemberRef::new(AVL, "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class(AVL)),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new(AVL, "min", "()I"),
            receiver: Some(tree),
            args: vec![],
        },
        Some(JType::Prim(Prim::Int)),
    );
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![],
            assertions: vec![Assertion::Throws {
                at: StatementId(1),
                class: "java.lang.IllegalStateException".into(),
                message: Some("not the message".into()),
            }],
        },
        covers: vec![],
        subject: "min".into(),
    }
}

fn verify(junit: JUnitVersion, expected_exceptions: ExpectedExceptions) {
    let verifier = verifier(junit, Duration::from_secs(60));
    let class = TestClass {
        class_under_test: AVL.into(),
        junit,
        expected_exceptions,
        tests: vec![
            tree_test(1, "insert"),
            tree_test(7, "insert"),
            tree_test(1, "noSuchMethod"),
            throwing_test(),
        ],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let v = verifier.verify(class).expect("verification runs");
    assert_eq!(v.dropped_tests, vec![2], "{}", v.emitted.source);
    assert_eq!(v.class.tests.len(), 3);
    // The wrong size assertion and the wrong message went; the rest stayed.
    assert_eq!(v.dropped_assertions, 2, "{}", v.emitted.source);
    assert_eq!(v.class.tests[0].generated.assertions.len(), 2);
    assert_eq!(v.class.tests[1].generated.assertions.len(), 1);
    assert!(matches!(
        &v.class.tests[2].generated.assertions[0],
        Assertion::Throws { message: None, .. }
    ));
    assert_eq!(
        v.emitted.source.contains("assertThrows"),
        expected_exceptions == ExpectedExceptions::AssertThrows,
        "{}",
        v.emitted.source
    );
}

#[test]
fn junit5_unstable_assertions_and_broken_tests_are_dropped() {
    verify(JUnitVersion::Five, ExpectedExceptions::AssertThrows);
}

#[test]
fn junit4_tests_verify_too() {
    verify(JUnitVersion::Four, ExpectedExceptions::AssertThrows);
}

/// The JUnit 4.12 form (`try`/`fail`/`catch`; Debian ships no 4.12 jar) compiles and runs on
/// Debian's JUnit 4.13.2, and its wrong message is found and cleared as `assertThrows`'s is.
#[test]
fn junit4_12_style_tests_verify_on_junit_4_13_too() {
    verify(JUnitVersion::Four, ExpectedExceptions::TryCatch);
}

fn spin_test(x: i32) -> TestSource {
    const HOSTILE: &str = "hostile/Hostile";
    let mut t = TypedTest::new();
    let h = t.push(
        Statement::Construct {
            constructor: MemberRef::new(HOSTILE, "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class(HOSTILE)),
    );
    let v = t.push(
        Statement::Primitive(PrimitiveValue::Int(x)),
        Some(JType::Prim(Prim::Int)),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new(HOSTILE, "spinIf", "(I)I"),
            receiver: Some(h),
            args: vec![v],
        },
        Some(JType::Prim(Prim::Int)),
    );
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![],
            assertions: vec![],
        },
        covers: vec![],
        subject: "spinIf".into(),
    }
}

#[test]
fn a_hanging_test_is_found_and_dropped() {
    let verifier = verifier(JUnitVersion::Five, Duration::from_secs(8));
    let class = TestClass {
        class_under_test: "hostile/Hostile".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![spin_test(1), spin_test(-1)],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let v = verifier.verify(class).expect("verification runs");
    assert_eq!(v.dropped_tests, vec![1]);
    assert_eq!(v.class.tests.len(), 1);
}

#[test]
fn hanging_tests_are_found_by_bisection_before_the_deadline() {
    let started = std::time::Instant::now();
    let deadline = Duration::from_secs(60);
    let verifier = Verifier {
        deadline: Some(started + deadline),
        ..verifier(JUnitVersion::Five, Duration::from_secs(4))
    };
    let class = TestClass {
        class_under_test: "hostile/Hostile".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![spin_test(1), spin_test(-1), spin_test(2), spin_test(-3)],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let v = verifier.verify(class).expect("verification runs");
    let took = started.elapsed();
    assert!(
        v.dropped_tests.contains(&1) && v.dropped_tests.contains(&3),
        "{:?}",
        v.dropped_tests
    );
    assert!(
        !v.class.tests.is_empty(),
        "the passing tests are cleared in time"
    );
    assert!(took < deadline + Duration::from_secs(3), "took {took:?}");
}

#[test]
fn tests_left_when_the_deadline_has_passed_are_dropped_as_such_not_as_timed_out() {
    let verifier = Verifier {
        deadline: Some(std::time::Instant::now()),
        ..verifier(JUnitVersion::Five, Duration::from_secs(8))
    };
    let class = TestClass {
        class_under_test: "hostile/Hostile".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![spin_test(1), spin_test(2)],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let v = verifier.verify(class).expect("verification runs");
    // Both tests pass when run; the deadline alone drops them.
    assert_eq!(v.dropped_tests, vec![0, 1]);
    assert_eq!(v.reasons.len(), 2, "{:?}", v.reasons);
    for d in &v.reasons {
        assert_eq!(
            d.reason, "not cleared: the run's time bound was reached",
            "{:?}",
            v.reasons
        );
    }
}

/// `new File(name).createNewFile()`: a file in the working directory (the developer's
/// project directory) when `name` is relative.
fn file_test(name: &str) -> TestSource {
    const FILE: &str = "java/io/File";
    let mut t = TypedTest::new();
    let n = t.push(
        Statement::String(name.into()),
        Some(JType::class("java/lang/String")),
    );
    let f = t.push(
        Statement::Construct {
            constructor: MemberRef::new(FILE, "<init>", "(Ljava/lang/String;)V"),
            args: vec![n],
        },
        Some(JType::class(FILE)),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new(FILE, "createNewFile", "()Z"),
            receiver: Some(f),
            args: vec![],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![],
            assertions: vec![],
        },
        covers: vec![],
        subject: "createNewFile".into(),
    }
}

#[test]
fn a_test_that_leaves_a_file_in_the_working_directory_is_found_and_dropped() {
    let keep = tempfile::tempdir().unwrap();
    let verifier = Verifier {
        keep: Some(keep.path().to_path_buf()),
        ..verifier(JUnitVersion::Five, Duration::from_secs(20))
    };
    let class = TestClass {
        class_under_test: "hostile/Hostile".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![
            spin_test(1),
            file_test("stray.txt"),
            spin_test(2),
            spin_test(3),
        ],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let v = verifier.verify(class).expect("verification runs");
    assert_eq!(v.dropped_tests, vec![1]);
    assert_eq!(v.class.tests.len(), 3);
    assert!(v.reasons[0].reason.contains("stray.txt"), "{:?}", v.reasons);
    // After the final runs nothing is left in any run's working directory.
    for run in std::fs::read_dir(keep.path()).unwrap().flatten() {
        let cwd = run.path().join("cwd");
        if cwd.is_dir() {
            assert_eq!(
                std::fs::read_dir(&cwd).unwrap().count(),
                0,
                "{}",
                cwd.display()
            );
        }
    }
}

/// A test asserting `System.identityHashCode(new Object()) == value`.
fn identity_hash_test(value: i32) -> TestSource {
    let mut t = TypedTest::new();
    let object = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/lang/Object", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class("java/lang/Object")),
    );
    let hash = t.push(
        Statement::Call {
            method: MemberRef::new(
                "java/lang/System",
                "identityHashCode",
                "(Ljava/lang/Object;)I",
            ),
            receiver: None,
            args: vec![object],
        },
        Some(JType::Prim(Prim::Int)),
    );
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![],
            assertions: vec![Assertion::Equals {
                of: hash,
                value: ValueSummary::Int(value),
            }],
        },
        covers: vec![],
        subject: "identityHashCode".into(),
    }
}

/// An assertion that holds only for the identity hash codes of the JVM's flags in Rivet's
/// runs (it passes every run with them: they are deterministic) fails in a developer's build
/// with other flags; the verifier's second run makes them otherwise, and drops it. (JUnit 4:
/// its second run has the same order, so only the hash codes differ.)
#[test]
fn an_assertion_on_an_identity_hash_code_is_dropped() {
    let verifier = verifier(JUnitVersion::Four, Duration::from_secs(60));
    let class = |value| TestClass {
        class_under_test: AVL.into(),
        junit: JUnitVersion::Four,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![identity_hash_test(value)],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    // The value a run sees, read from its failure message ("expected:<0> but was:<N>").
    let dir = tempfile::tempdir().unwrap();
    let probe = rivet_junit::emit(&class(0));
    assert!(verifier.compile(&probe, dir.path()).unwrap().is_empty());
    let seen_in = |run: rivet_verify::RunReport| -> i32 {
        assert_eq!(run.tests.len(), 1, "the suite's test only: {:?}", run.tests);
        let message = run
            .tests
            .values()
            .next()
            .and_then(|o| o.message.clone())
            .unwrap();
        message
            .rsplit("but was:<")
            .next()
            .and_then(|m| m.split('>').next())
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("no value in {message:?}"))
    };
    let seen = seen_in(verifier.run(&probe, dir.path(), 0).unwrap());
    // The second runs see other codes, and each round's its own (the draws taken before the
    // tests differ), so that a test that hangs on them fails some round.
    let other: Vec<i32> = (0..2)
        .map(|round| {
            seen_in(
                verifier
                    .run_with_other_hashes(&probe, dir.path(), round)
                    .unwrap(),
            )
        })
        .collect();
    assert!(
        other[0] != seen && other[1] != seen && other[0] != other[1],
        "{seen} then {other:?}"
    );
    // With that value the runs with Rivet's flags pass, every time.
    let pinned = rivet_junit::emit(&class(seen));
    let dir = tempfile::tempdir().unwrap();
    assert!(verifier.compile(&pinned, dir.path()).unwrap().is_empty());
    for round in 0..2 {
        let run = verifier.run(&pinned, dir.path(), round).unwrap();
        assert!(run.tests.values().all(|o| o.passed), "{:?}", run.tests);
    }
    // The verifier does not keep it.
    let v = verifier.verify(class(seen)).expect("verification runs");
    assert_eq!(
        v.dropped_assertions + v.dropped_tests.len(),
        1,
        "{}",
        v.emitted.source
    );
}

/// `Registry.register(name)`, then `Registry.size() == size`: the registry's names are
/// static, so the size holds only after the tests written before this one.
fn registry_test(name: &str, size: i32) -> TestSource {
    const REGISTRY: &str = "statics/Registry";
    let mut t = TypedTest::new();
    let n = t.push(
        Statement::String(name.into()),
        Some(JType::class("java/lang/String")),
    );
    t.push(
        Statement::Call {
            method: MemberRef::new(REGISTRY, "register", "(Ljava/lang/String;)Z"),
            receiver: None,
            args: vec![n],
        },
        Some(JType::Prim(Prim::Boolean)),
    );
    let s = t.push(
        Statement::Call {
            method: MemberRef::new(REGISTRY, "size", "()I"),
            receiver: None,
            args: vec![],
        },
        Some(JType::Prim(Prim::Int)),
    );
    TestSource {
        generated: GeneratedTest {
            test: t,
            goals: vec![],
            assertions: vec![Assertion::Equals {
                of: s,
                value: ValueSummary::Int(size),
            }],
        },
        covers: vec![],
        subject: "register".into(),
    }
}

#[test]
fn assertions_that_hold_only_in_the_written_order_are_dropped() {
    let keep = tempfile::tempdir().unwrap();
    let verifier = Verifier {
        keep: Some(keep.path().to_path_buf()),
        ..verifier(JUnitVersion::Five, Duration::from_secs(60))
    };
    // The registry freezes at three names: sizes 1, 2, 3, 3, 3 in the written order only.
    let sizes = [("a", 1), ("b", 2), ("c", 3), ("d", 3), ("e", 3)];
    let class = TestClass {
        class_under_test: "statics/Registry".into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: sizes.iter().map(|&(n, s)| registry_test(n, s)).collect(),
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let v = verifier.verify(class).expect("verification runs");
    // Every test stays; the run in another order took some of the sizes away.
    assert!(v.dropped_tests.is_empty(), "{:?}", v.reasons);
    assert!(v.dropped_assertions >= 1, "{}", v.emitted.source);
    assert!(v.emitted.source.contains(rivet_junit::FIXED_ORDER_5));
    // The copy that ran in any order lost the order's annotation, and only that.
    let class_file = |dir: &str| {
        std::fs::read(
            keep.path()
                .join(dir)
                .join("statics/RegistryRivetTest.class"),
        )
        .unwrap()
    };
    // (@TestMethodOrder is the class's one annotation kept in its class file.)
    let annotated = |b: Vec<u8>| {
        let c = rivet_classfile::ClassFile::parse(&b).unwrap();
        let names: Vec<&str> = c
            .attributes
            .iter()
            .map(|a| c.constant_pool.utf8(a.name).unwrap())
            .collect();
        names.contains(&"RuntimeVisibleAnnotations")
    };
    assert!(annotated(class_file("classes")));
    assert!(!annotated(class_file("classes-any-order")));
}

#[test]
fn javac_and_the_launcher_archive_their_classes_once_and_map_them_after() {
    let archives = tempfile::tempdir().unwrap();
    let dir = archives.path().join("jvm-archives");
    let verifier = Verifier {
        archives: Some(dir.clone()),
        ..verifier(JUnitVersion::Five, Duration::from_secs(60))
    };
    let class = || TestClass {
        class_under_test: AVL.into(),
        junit: JUnitVersion::Five,
        expected_exceptions: ExpectedExceptions::AssertThrows,
        tests: vec![tree_test(1, "insert"), tree_test(7, "insert")],
        overloaded: BTreeMap::new(),
        inner_classes: BTreeSet::new(),
    };
    let listing = || {
        let mut files: Vec<(String, std::time::SystemTime)> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, e.metadata().unwrap().modified().unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let first = verifier.verify(class()).expect("verification runs");
    let made = listing();
    let names: Vec<&str> = made.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names[0].starts_with("javac-") && names[1].starts_with("junit-launcher-"));
    // The JVMs map them (-Xshare:on fails when an archive cannot be used).
    let launcher = &verifier.junit.launcher;
    let javac = std::process::Command::new("javac")
        .arg(format!(
            "-J-XX:SharedArchiveFile={}",
            dir.join(names[0]).display()
        ))
        .args(["-J-Xshare:on", "-version"])
        .output()
        .unwrap();
    assert!(javac.status.success(), "{javac:?}");
    let java = std::process::Command::new("java")
        .arg(format!(
            "-XX:SharedArchiveFile={}",
            dir.join(names[1]).display()
        ))
        .args(["-Xshare:on", "-jar"])
        .arg(launcher)
        .arg("--help")
        .output()
        .unwrap();
    assert!(java.status.success(), "{java:?}");
    // A second verification uses them as they are, to the same outcome.
    let second = verifier.verify(class()).expect("verification runs");
    assert_eq!(listing(), made);
    assert_eq!(second.emitted.source, first.emitted.source);
    assert_eq!(first.dropped_assertions, 1);
}
