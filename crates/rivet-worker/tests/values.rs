//! Real-JVM tests of the harness's decoding and execution: a batch with every statement kind,
//! values of every type round-tripping (non-ASCII and NUL strings, arrays, object identities;
//! string statements of equal text one object, as literals are), exceptions, statements the
//! harness cannot run, exit requests, probes, printed output.

#![allow(clippy::unwrap_used, clippy::expect_used)]
// A hand-built test fixture reads best as one function; the 150-line rule is for library code.
#![allow(clippy::too_many_lines)]

mod support;

use std::time::Duration;

use rivet_testcase::{
    ClassName, Execution, ExecutionStatus, PrimitiveValue as P, ProbeId, StatementOutcome,
    TestCase, ValueSummary as V, EXIT_REQUESTED_CLASS, UNRUNNABLE_CLASS,
};
use rivet_worker::{WorkerConfig, WorkerPool};
use support::{pool, Builder};

const TEXT: &str = "héllo\u{0}wörld ☺ 𝄞 \u{7f}";

fn normal(v: V) -> StatementOutcome {
    StatementOutcome::Normal(v)
}

fn object(identity: u32, class: &str) -> StatementOutcome {
    normal(V::Object {
        identity,
        class: ClassName::from_binary(class),
    })
}

fn threw(e: &Execution) -> (usize, String, Option<String>) {
    let (i, class, message) = e
        .exception()
        .unwrap_or_else(|| panic!("no exception in {e:?}"));
    (i, class.to_string(), message.map(str::to_string))
}

/// Every statement kind and every value type, with the outcomes they must have.
fn every_kind() -> (TestCase, Vec<StatementOutcome>) {
    let mut b = Builder::new();
    let mut expect = Vec::new();
    let i = b.prim(P::Int(-7));
    let l = b.prim(P::Long(i64::MIN));
    let d = b.prim(P::Double(-1.5e300));
    let f = b.prim(P::Float(f32::MIN_POSITIVE));
    let c = b.prim(P::Char(0xD834)); // a lone surrogate is a valid char
    let y = b.prim(P::Byte(-128));
    let s = b.prim(P::Short(i16::MIN));
    let z = b.prim(P::Boolean(true));
    let text = b.string(TEXT);
    let null = b.null("Ljava/lang/String;");
    expect.extend([
        normal(V::Int(-7)),
        normal(V::Long(i64::MIN)),
        normal(V::Double(-1.5e300)),
        normal(V::Float(f32::MIN_POSITIVE)),
        normal(V::Char(0xD834)),
        normal(V::Byte(-128)),
        normal(V::Short(i16::MIN)),
        normal(V::Boolean(true)),
        normal(V::String(TEXT.into())),
        normal(V::Null),
    ]);
    b.values("anInt", "(I)I", &[i]);
    b.values("aLong", "(J)J", &[l]);
    b.values("aDouble", "(D)D", &[d]);
    b.values("aFloat", "(F)F", &[f]);
    b.values("aChar", "(C)C", &[c]);
    b.values("aByte", "(B)B", &[y]);
    b.values("aShort", "(S)S", &[s]);
    b.values("aBoolean", "(Z)Z", &[z]);
    b.values("aString", "(Ljava/lang/String;)Ljava/lang/String;", &[text]);
    b.values("aString", "(Ljava/lang/String;)Ljava/lang/String;", &[null]);
    expect.extend(expect[..10].to_vec());
    // Widening of an int argument to a long parameter.
    b.values("aLong", "(J)J", &[i]);
    expect.push(normal(V::Long(-7)));

    let ints = b.array("I", &[i, i, i]);
    b.values("sum", "([I)I", &[ints]);
    let strings = b.array("Ljava/lang/String;", &[text, null]);
    b.values(
        "join",
        "([Ljava/lang/String;)Ljava/lang/String;",
        &[strings],
    );
    expect.extend([
        object(0, "[I"),
        normal(V::Int(-21)),
        object(1, "[Ljava.lang.String;"),
        normal(V::String(format!("{TEXT}|<null>|"))),
    ]);

    let v = b.new_object("fixtures/Values", "(ILjava/lang/String;)V", &[i, text]);
    b.call(
        "fixtures/Values",
        "self",
        "()Lfixtures/Values;",
        Some(v),
        &[],
    );
    b.values("same", "(Ljava/lang/Object;)Ljava/lang/Object;", &[v]);
    b.values("same", "(Ljava/lang/Object;)Ljava/lang/Object;", &[ints]);
    expect.extend([
        object(2, "fixtures.Values"),
        object(2, "fixtures.Values"),
        object(2, "fixtures.Values"),
        object(0, "[I"),
    ]);

    let forty_two = b.int(42);
    b.write("fixtures/Values", "number", "I", Some(v), forty_two);
    b.call("fixtures/Values", "number", "()I", Some(v), &[]);
    b.write(
        "fixtures/Values",
        "text",
        "Ljava/lang/String;",
        Some(v),
        null,
    );
    b.call(
        "fixtures/Values",
        "text",
        "()Ljava/lang/String;",
        Some(v),
        &[],
    );
    b.write("fixtures/Values", "counter", "J", None, forty_two);
    b.values("counter", "()J", &[]);
    b.values("boxed", "(I)Ljava/lang/Integer;", &[forty_two]);
    // Package-private: a test in the class's package may call it.
    b.values("hidden", "()I", &[]);
    expect.extend([
        normal(V::Int(42)),
        normal(V::Void),
        normal(V::Int(42)),
        normal(V::Void),
        normal(V::Null),
        normal(V::Void),
        normal(V::Long(42)),
        object(3, "java.lang.Integer"),
        normal(V::Int(41)),
    ]);

    let list = b.new_object("java/util/ArrayList", "()V", &[]);
    b.call(
        "java/util/ArrayList",
        "add",
        "(Ljava/lang/Object;)Z",
        Some(list),
        &[v],
    );
    let zero = b.int(0);
    b.call(
        "java/util/List",
        "get",
        "(I)Ljava/lang/Object;",
        Some(list),
        &[zero],
    );
    b.call("java/util/ArrayList", "clear", "()V", Some(list), &[]);
    b.call("java/util/ArrayList", "size", "()I", Some(list), &[]);
    expect.extend([
        object(4, "java.util.ArrayList"),
        normal(V::Boolean(true)),
        normal(V::Int(0)),
        object(2, "fixtures.Values"),
        normal(V::Void),
        normal(V::Int(0)),
    ]);
    (b.build(), expect)
}

fn check_every_kind(pool: &mut WorkerPool) {
    let (test, expect) = every_kind();
    let e = pool.run(std::slice::from_ref(&test)).remove(0);
    assert_eq!(e.status, ExecutionStatus::Completed, "{e:?}");
    assert_eq!(e.outcomes.len(), expect.len());
    for (i, (got, want)) in e.outcomes.iter().zip(&expect).enumerate() {
        assert_eq!(got, want, "statement {i}");
    }
}

#[test]
fn every_statement_kind_round_trips_through_the_jvm() {
    let mut pool = pool(1, Duration::from_secs(10));
    check_every_kind(&mut pool);
    // Twice: the second run uses the worker's resolution caches.
    check_every_kind(&mut pool);
    let info = &pool.workers()[0];
    assert_eq!(info.spawns, 1);
    assert!(
        info.java_version
            .as_deref()
            .is_some_and(|v| v.starts_with("17")),
        "{info:?}"
    );
}

/// A string statement is a literal in the written test, and javac interns literals: two with
/// equal text are one object under JUnit, so they are in the worker; a string the test
/// constructs from one is another object in both.
#[test]
fn string_statements_with_equal_text_are_one_object_as_literals_are() {
    let mut pool = pool(1, Duration::from_secs(10));
    let mut b = Builder::new();
    let text = b.string("abc");
    let same_text = b.string("abc");
    let other_text = b.string("abd");
    let constructed = b.new_object("java/lang/String", "(Ljava/lang/String;)V", &[text]);
    let identical = "(Ljava/lang/Object;Ljava/lang/Object;)Z";
    b.values("identical", identical, &[text, same_text]);
    b.values("identical", identical, &[text, other_text]);
    b.values("identical", identical, &[text, constructed]);
    let e = pool.run(&[b.build()]).remove(0);
    assert_eq!(e.status, ExecutionStatus::Completed, "{e:?}");
    assert_eq!(
        e.outcomes[4..],
        [
            normal(V::Boolean(true)),
            normal(V::Boolean(false)),
            normal(V::Boolean(false))
        ]
    );
}

#[test]
fn harness_built_for_java_8_runs_on_jdk_25() {
    let java = rivet_testkit::Jdk::Jdk25.home().join("bin/java");
    let config = WorkerConfig {
        java,
        ..support::config(1, Duration::from_secs(10))
    };
    let mut pool = WorkerPool::new(&config).expect("pool on JDK 25");
    check_every_kind(&mut pool);
    assert!(pool.workers()[0]
        .java_version
        .as_deref()
        .is_some_and(|v| v.starts_with("25")));
}

#[test]
fn exceptions_stop_the_test_and_are_reported() {
    let mut pool = pool(1, Duration::from_secs(10));
    let mut tests = Vec::new();

    let mut b = Builder::new();
    let m = b.string("boom ☺");
    b.values("fail", "(Ljava/lang/String;)V", &[m]);
    b.int(1);
    tests.push(b.build());

    let mut b = Builder::new();
    let zero = b.int(0);
    b.values("recurse", "(I)I", &[zero]);
    tests.push(b.build());

    let mut b = Builder::new();
    let null = b.null("Lfixtures/Values;");
    b.call("fixtures/Values", "number", "()I", Some(null), &[]);
    tests.push(b.build());

    // Statements the harness cannot run as written.
    let mut b = Builder::new();
    b.values("secret", "()I", &[]);
    tests.push(b.build());
    let mut b = Builder::new();
    b.call("no/such/Class", "m", "()V", None, &[]);
    tests.push(b.build());
    let mut b = Builder::new();
    let v = b.new_object("fixtures/Values", "()V", &[]);
    let one = b.int(1);
    b.write("fixtures/Values", "fixed", "I", Some(v), one);
    tests.push(b.build());
    let mut b = Builder::new();
    let s = b.string("not an int");
    b.values("anInt", "(I)I", &[s]);
    tests.push(b.build());
    let mut b = Builder::new();
    b.new_object("java/util/AbstractList", "()V", &[]);
    tests.push(b.build());

    // Malformed: never sent.
    let mut bad = TestCase::new();
    bad.push(rivet_testcase::Statement::Array {
        component: "I".into(),
        elements: vec![rivet_testcase::StatementId(3)],
    });
    tests.push(bad);

    let results = pool.run(&tests);
    assert_eq!(results.len(), tests.len());
    let (i, class, message) = threw(&results[0]);
    assert_eq!(
        (i, class.as_str(), message.as_deref()),
        (1, "java.lang.IllegalStateException", Some("boom ☺"))
    );
    assert_eq!(results[0].outcomes[2], StatementOutcome::NotRun);
    assert_eq!(threw(&results[1]).1, "java.lang.StackOverflowError");
    assert_eq!(threw(&results[2]).1, "java.lang.NullPointerException");
    for (r, needle) in results[3..8].iter().zip([
        "is private",
        "class not found",
        "is final",
        "argument type mismatch",
        "abstract",
    ]) {
        assert_eq!(r.status, ExecutionStatus::Completed);
        let (_, class, message) = threw(r);
        assert_eq!(class, UNRUNNABLE_CLASS);
        assert!(
            message.as_deref().is_some_and(|m| m.contains(needle)),
            "{message:?} lacks {needle}"
        );
    }
    assert!(
        matches!(&results[8].status, ExecutionStatus::Rejected { reason } if reason.contains("s3")),
        "{:?}",
        results[8].status
    );
    assert_eq!(pool.workers()[0].spawns, 1, "the JVM survived all of it");
}

#[test]
fn instrumented_exit_is_an_exception_and_the_worker_survives() {
    let mut pool = pool(1, Duration::from_secs(10));
    let pid = pool.workers()[0].pid;
    let mut exit = Builder::new();
    let zero = exit.int(0);
    exit.values("exit", "(I)V", &[zero]);
    exit.int(1);
    let mut caught = Builder::new();
    let three = caught.int(3);
    caught.values("exitAndCatch", "(I)I", &[three]);
    let results = pool.run(&[exit.build(), caught.build(), support::harmless()]);
    let (i, class, message) = threw(&results[0]);
    assert_eq!((i, class.as_str()), (1, EXIT_REQUESTED_CLASS));
    assert!(message.is_some_and(|m| m.contains("System.exit(0)")));
    assert_eq!(results[0].outcomes[2], StatementOutcome::NotRun);
    let (i, class, message) = threw(&results[1]);
    assert_eq!((i, class.as_str()), (1, EXIT_REQUESTED_CLASS));
    assert!(message.is_some_and(|m| m.contains("exit(3)") && m.contains("caught")));
    assert!(results[2].is_completed() && results[2].exception().is_none());
    assert_eq!(pool.workers()[0].pid, pid, "same JVM");
}

#[test]
fn probes_are_read_and_reset_per_test() {
    let mut pool = pool(1, Duration::from_secs(10));
    let equal = |a: i32, b: i32| {
        let mut t = Builder::new();
        let (a, b) = (t.int(a), t.int(b));
        t.values("equal", "(II)Z", &[a, b]);
        t.build()
    };
    let results = pool.run(&[equal(3, 7), equal(5, 5), support::harmless()]);
    // if_icmpeq with probe 10 (jump taken: a == b) and 11 (falls through).
    assert_eq!(results[0].covered, vec![ProbeId(11)]);
    assert_eq!(
        results[0].distances,
        vec![(ProbeId(10), 4.0), (ProbeId(11), 0.0)]
    );
    assert_eq!(results[0].distance(ProbeId(10)), Some(4.0));
    assert_eq!(results[1].covered, vec![ProbeId(10)]);
    assert_eq!(
        results[1].distances,
        vec![(ProbeId(10), 0.0), (ProbeId(11), 1.0)]
    );
    assert!(
        results[2].covered.is_empty() && results[2].distances.is_empty(),
        "reset between tests"
    );
}

#[test]
fn printed_output_does_not_corrupt_the_protocol() {
    let mut pool = pool(1, Duration::from_secs(10));
    let mut shout = Builder::new();
    let n = shout.int(2000);
    shout.values("shout", "(I)I", &[n]);
    let mut tests = vec![shout.build()];
    tests.extend((0..5).map(|_| support::harmless()));
    for _ in 0..2 {
        let results = pool.run(&tests);
        assert_eq!(results[0].outcomes[1], normal(V::Int(2000)));
        assert!(results.iter().all(Execution::is_completed), "{results:?}");
        assert!(results[1..]
            .iter()
            .all(|r| r.outcomes[2] == normal(V::Int(1))));
    }
    assert_eq!(pool.workers()[0].spawns, 1);
}

#[test]
fn writing_to_the_real_stdout_replaces_the_worker_quickly() {
    let mut pool = pool(1, Duration::from_secs(10));
    let mut b = Builder::new();
    let text = b.string("garbage from the code under test\n");
    b.values("corrupt", "(Ljava/lang/String;)V", &[text]);
    let start = std::time::Instant::now();
    let results = pool.run(&[b.build(), support::harmless()]);
    assert!(
        matches!(&results[0].status, ExecutionStatus::WorkerCrashed { reason } if reason.contains("protocol error")),
        "{:?}",
        results[0].status
    );
    assert!(results[1].is_completed());
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "no wait for a JVM that is not exiting"
    );
    assert_eq!(pool.workers()[0].spawns, 2);
}

#[test]
fn workers_write_only_in_their_own_temporary_directories() {
    let outside = tempfile::tempdir().expect("temp dir");
    let elsewhere = outside.path().join("written-outside");
    let mut pool = pool(1, Duration::from_secs(10));
    let mut temp = Builder::new();
    let name = temp.string("written-by-the-code-under-test");
    temp.values(
        "writeTemp",
        "(Ljava/lang/String;)Ljava/lang/String;",
        &[name],
    );
    let mut relative = Builder::new();
    let name = relative.string("written-by-the-code-under-test");
    relative.values("write", "(Ljava/lang/String;)V", &[name]);
    let mut absolute = Builder::new();
    let path = absolute.string(&elsewhere.to_string_lossy());
    absolute.values("write", "(Ljava/lang/String;)V", &[path]);
    let mut quiet = Builder::new();
    let path = quiet.string(&elsewhere.to_string_lossy());
    quiet.values("writeQuietly", "(Ljava/lang/String;)Z", &[path]);
    let results = pool.run(&[
        temp.build(),
        relative.build(),
        absolute.build(),
        quiet.build(),
    ]);
    let StatementOutcome::Normal(V::String(written)) = &results[0].outcomes[1] else {
        panic!("{results:?}")
    };
    let written = std::path::PathBuf::from(written);
    assert!(written.is_file(), "java.io.tmpdir is writable");
    let dir = written
        .parent()
        .and_then(|tmp| tmp.parent())
        .expect("worker dir")
        .to_path_buf();
    assert!(dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("rivet-worker-0-")));
    // The working directory is writable, as a project directory: a write there that the
    // interception did not see (this fixture is not instrumented) refuses the test (the JDK's
    // write check, which the harness watches, sees it; without one, the file left there is
    // found) and nothing stays there.
    assert!(
        matches!(&results[1].outcomes[1], StatementOutcome::Threw { class, message: Some(m) }
            if class == rivet_testcase::SANDBOX_REFUSED_CLASS
                && (m.contains("/cwd/written-by-the-code-under-test")
                    || m.contains("written-by-the-code-under-test (the working directory)"))),
        "{:?}",
        results[1]
    );
    // Anywhere else the write is refused (by the JDK's own write check, which the harness
    // watches, or by the OS), and so is the test, as when the interception refuses one:
    // outside the worker the write would have gone through.
    for refused in &results[2..] {
        assert!(
            matches!(&refused.outcomes[1], StatementOutcome::Threw { class, message: Some(m) }
                if class == rivet_testcase::SANDBOX_REFUSED_CLASS
                    && m.contains(&*elsewhere.to_string_lossy())),
            "{refused:?}"
        );
    }
    // Also when the code swallows the failure (here, of a write through the file-system
    // provider, which no call site shows): the refusal was remembered.
    assert!(
        matches!(&results[3].outcomes[1], StatementOutcome::Threw { message: Some(m), .. }
            if m.contains("caught the SandboxRefused")),
        "{:?}",
        results[3]
    );
    assert!(
        std::fs::read_dir(dir.join("cwd")).is_ok_and(|mut d| d.next().is_none()),
        "the working directory is left empty"
    );
    assert!(!elsewhere.exists(), "nothing written outside");
    drop(pool);
    assert!(!dir.exists(), "deleted with the pool");
}

/// What differs from machine to machine is not read: the temporary directory's listing and
/// the working directory's files are empty in a worker and not in a developer's project, so a
/// test reading them is refused (by the JDK's read check the harness watches) even when the
/// code swallows the refusal.
#[test]
fn reads_of_the_temporary_and_working_directories_are_refused() {
    let mut pool = pool(1, Duration::from_secs(10));
    let mut list = Builder::new();
    list.values("listTemp", "()I", &[]);
    let mut exists = Builder::new();
    let name = exists.string("pom.xml");
    exists.values("existsHere", "(Ljava/lang/String;)Z", &[name]);
    let results = pool.run(&[list.build(), exists.build()]);
    for (r, what) in results
        .iter()
        .zip(["the temporary directory", "the working or home directory"])
    {
        let last = r.outcomes.last().expect("outcomes");
        assert!(
            matches!(last, StatementOutcome::Threw { class, message: Some(m) }
                if class == rivet_testcase::SANDBOX_REFUSED_CLASS && m.contains(what)),
            "{r:?}"
        );
    }
}

/// Class literals are the JVM's classes (primitives, `void`, arrays); lambdas answer their
/// single abstract method as the emitted Java lambda does (a captured value, the argument,
/// nothing, an `IllegalStateException`), run default methods, and compare by identity;
/// constants are the static fields' values.
#[test]
fn class_literals_lambdas_and_constants_run_in_the_jvm() {
    use rivet_testcase::{ClassName, LambdaBody, MemberRef, Statement, LAMBDA_FAILURE};
    let mut b = Builder::new();
    let mut expect: Vec<(usize, V)> = Vec::new();
    let get_name = |b: &mut Builder, c| {
        b.call(
            "java/lang/Class",
            "getName",
            "()Ljava/lang/String;",
            Some(c),
            &[],
        )
    };
    for (descriptor, name) in [
        ("I", "int"),
        ("V", "void"),
        ("[Ljava/lang/String;", "[Ljava.lang.String;"),
        ("Ljava/util/List;", "java.util.List"),
    ] {
        let c = b.test.push(Statement::ClassLiteral {
            descriptor: descriptor.into(),
        });
        let n = get_name(&mut b, c);
        expect.push((n.0 as usize, V::String(name.into())));
    }
    let lambda = |b: &mut Builder, iface: &str, name: &str, desc: &str, body| {
        b.test.push(Statement::Lambda {
            interface: ClassName::from_internal(iface),
            method: MemberRef::new(iface, name, desc),
            body,
        })
    };
    let text = b.string("kept");
    let yes = b.prim(P::Boolean(true));
    let keep = lambda(
        &mut b,
        "java/util/function/Predicate",
        "test",
        "(Ljava/lang/Object;)Z",
        LambdaBody::Returns(yes),
    );
    let r = b.call(
        "java/util/function/Predicate",
        "test",
        "(Ljava/lang/Object;)Z",
        Some(keep),
        &[text],
    );
    expect.push((r.0 as usize, V::Boolean(true)));
    // A default method (negate) runs its own code around the lambda.
    let not = b.call(
        "java/util/function/Predicate",
        "negate",
        "()Ljava/util/function/Predicate;",
        Some(keep),
        &[],
    );
    let r = b.call(
        "java/util/function/Predicate",
        "test",
        "(Ljava/lang/Object;)Z",
        Some(not),
        &[text],
    );
    expect.push((r.0 as usize, V::Boolean(false)));
    let same = lambda(
        &mut b,
        "java/util/function/Function",
        "apply",
        "(Ljava/lang/Object;)Ljava/lang/Object;",
        LambdaBody::Identity,
    );
    let r = b.call(
        "java/util/function/Function",
        "apply",
        "(Ljava/lang/Object;)Ljava/lang/Object;",
        Some(same),
        &[text],
    );
    expect.push((r.0 as usize, V::String("kept".into())));
    let seven = b.int(7);
    let cmp = lambda(
        &mut b,
        "java/util/Comparator",
        "compare",
        "(Ljava/lang/Object;Ljava/lang/Object;)I",
        LambdaBody::Returns(seven),
    );
    let r = b.call(
        "java/util/Comparator",
        "compare",
        "(Ljava/lang/Object;Ljava/lang/Object;)I",
        Some(cmp),
        &[text, text],
    );
    expect.push((r.0 as usize, V::Int(7)));
    let r = b.call(
        "java/lang/Object",
        "equals",
        "(Ljava/lang/Object;)Z",
        Some(cmp),
        &[cmp],
    );
    expect.push((r.0 as usize, V::Boolean(true)));
    let r = b.call(
        "java/lang/Object",
        "equals",
        "(Ljava/lang/Object;)Z",
        Some(cmp),
        &[same],
    );
    expect.push((r.0 as usize, V::Boolean(false)));
    let idle = lambda(
        &mut b,
        "java/lang/Runnable",
        "run",
        "()V",
        LambdaBody::Nothing,
    );
    let r = b.call("java/lang/Runnable", "run", "()V", Some(idle), &[]);
    expect.push((r.0 as usize, V::Void));
    // Constants: a static final object and a primitive.
    let empty = b.test.push(Statement::Constant {
        field: MemberRef::new("java/util/Collections", "EMPTY_LIST", "Ljava/util/List;"),
    });
    let r = b.call("java/util/List", "size", "()I", Some(empty), &[]);
    expect.push((r.0 as usize, V::Int(0)));
    let max = b.test.push(Statement::Constant {
        field: MemberRef::new("java/lang/Integer", "MAX_VALUE", "I"),
    });
    expect.push((max.0 as usize, V::Int(i32::MAX)));
    let fail = lambda(
        &mut b,
        "java/util/function/Supplier",
        "get",
        "()Ljava/lang/Object;",
        LambdaBody::Throws,
    );
    let thrown = b.call(
        "java/util/function/Supplier",
        "get",
        "()Ljava/lang/Object;",
        Some(fail),
        &[],
    );
    let test = b.build();
    let mut pool = pool(1, Duration::from_secs(10));
    let e = pool.run(std::slice::from_ref(&test)).remove(0);
    for (i, want) in expect {
        assert_eq!(e.outcomes[i], normal(want), "statement {i}: {e:?}");
    }
    assert_eq!(
        threw(&e),
        (
            thrown.0 as usize,
            "java.lang.IllegalStateException".to_string(),
            Some(LAMBDA_FAILURE.to_string())
        )
    );
}

/// The worker JVM opens no JDK package to the code under test: reflecting on a JDK class's
/// private field fails there as in a developer's test JVM (`setAccessible` throws), while the
/// harness still reads such fields for its observations (see `observe.rs`).
#[test]
fn the_code_under_test_may_not_reflect_on_jdk_internals_in_a_worker() {
    let mut b = Builder::new();
    let list = b.test.push(rivet_testcase::Statement::ClassLiteral {
        descriptor: "Ljava/util/ArrayList;".into(),
    });
    let name = b.string("size");
    let field = b.call(
        "java/lang/Class",
        "getDeclaredField",
        "(Ljava/lang/String;)Ljava/lang/reflect/Field;",
        Some(list),
        &[name],
    );
    let yes = b.prim(P::Boolean(true));
    b.call(
        "java/lang/reflect/Field",
        "setAccessible",
        "(Z)V",
        Some(field),
        &[yes],
    );
    let mut pool = pool(1, Duration::from_secs(10));
    let e = &pool.run(&[b.build()])[0];
    let (at, class, _) = threw(e);
    assert_eq!(at, 4, "{e:?}");
    assert_eq!(class, "java.lang.reflect.InaccessibleObjectException");
}

/// Scratch values are made beneath the test's own directory in the worker's temporary
/// directory (a file with its content, a directory with its files, a missing path whose
/// parent exists), as a `File`, `Path` or `String`, and that directory is gone after the test.
#[test]
fn scratch_files_are_made_for_the_test_and_removed_after_it() {
    use rivet_testcase::{ScratchEntry, Statement, SCRATCH_FILE, SCRATCH_PATH, SCRATCH_STRING};
    let mut b = Builder::new();
    let file = b.test.push(Statement::Scratch {
        descriptor: SCRATCH_FILE.into(),
        path: "d0/a.txt".into(),
        entry: ScratchEntry::File {
            content: "héllo".into(),
        },
    });
    b.call("java/io/File", "length", "()J", Some(file), &[]);
    let dir = b.test.push(Statement::Scratch {
        descriptor: SCRATCH_PATH.into(),
        path: "sub".into(),
        entry: ScratchEntry::Dir {
            files: vec![("x".into(), "1".into()), ("y".into(), "".into())],
        },
    });
    let as_file = b.call(
        "java/nio/file/Path",
        "toFile",
        "()Ljava/io/File;",
        Some(dir),
        &[],
    );
    let names = b.call(
        "java/io/File",
        "list",
        "()[Ljava/lang/String;",
        Some(as_file),
        &[],
    );
    b.call(
        "java/lang/reflect/Array",
        "getLength",
        "(Ljava/lang/Object;)I",
        None,
        &[names],
    );
    let missing = b.test.push(Statement::Scratch {
        descriptor: SCRATCH_STRING.into(),
        path: "d1/none".into(),
        entry: ScratchEntry::Missing,
    });
    b.call(
        "fixtures/Values",
        "aString",
        "(Ljava/lang/String;)Ljava/lang/String;",
        None,
        &[missing],
    );
    let mut pool = pool(1, Duration::from_secs(10));
    let e = &pool.run(&[b.build()])[0];
    assert_eq!(e.outcomes[1], normal(V::Long(6)), "{e:?}");
    assert_eq!(e.outcomes[5], normal(V::Int(2)), "{e:?}");
    let StatementOutcome::Normal(V::String(path)) = &e.outcomes[7] else {
        panic!("{e:?}")
    };
    let path = std::path::PathBuf::from(path);
    assert!(path.ends_with("d1/none"), "{}", path.display());
    let own = path
        .parent()
        .and_then(|d1| d1.parent())
        .expect("the test's directory");
    assert!(!own.exists(), "{} is left after the test", own.display());
}
