//! The worker pool over classes really instrumented by rivet-instrument: exits become exceptions
//! and the worker survives, and the probes the worker reports map back to the subjects' branches
//! (conditional jumps and switches, whose tables the runtime loads from the cache directory).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::sync::OnceLock;
use std::time::Duration;

use rivet_instrument::BranchId;
use rivet_instrument::{instrument_cached, InstrumentConfig, InstrumentedClasspath, ProbeScope};
use rivet_testcase::{ClassName, Execution, ExecutionStatus, ProbeId};
use rivet_testcase::{PrimitiveValue as P, StatementOutcome, ValueSummary as V};
use rivet_worker::{TestLimit, WorkerConfig, WorkerPool};
use support::{hostile, Builder};

/// The subjects instrumented once per test binary.
fn instrumented() -> &'static InstrumentedClasspath {
    static CP: OnceLock<InstrumentedClasspath> = OnceLock::new();
    CP.get_or_init(|| {
        let root = rivet_testkit::cache_dir().join("worker-instrumented");
        instrument_cached(
            &[rivet_testkit::compiled_subjects(11)],
            &root,
            &InstrumentConfig {
                scope: ProbeScope::All,
                threads: 1,
                ..InstrumentConfig::default()
            },
        )
        .expect("subjects instrument")
    })
}

/// The fixtures instrumented once per test binary.
fn instrumented_fixtures() -> &'static InstrumentedClasspath {
    static CP: OnceLock<InstrumentedClasspath> = OnceLock::new();
    CP.get_or_init(|| {
        let root = rivet_testkit::cache_dir().join("worker-instrumented-fixtures");
        instrument_cached(
            &[support::fixtures()],
            &root,
            &InstrumentConfig {
                scope: ProbeScope::All,
                threads: 1,
                ..InstrumentConfig::default()
            },
        )
        .expect("fixtures instrument")
    })
}

fn pool() -> WorkerPool {
    WorkerPool::new(&WorkerConfig {
        workers: 1,
        time_limit: Duration::from_secs(10),
        max_heap_mb: 128,
        classpath: vec![instrumented().dir.clone()],
        ..WorkerConfig::default()
    })
    .expect("pool starts")
}

/// One JVM over the instrumented fixtures, with this time limit.
/// The fixtures instrumented with probes in `fixtures.Values` only: the other classes stand
/// for a library the class under test calls.
fn instrumented_fixtures_values_only() -> &'static InstrumentedClasspath {
    static CP: OnceLock<InstrumentedClasspath> = OnceLock::new();
    CP.get_or_init(|| {
        let root = rivet_testkit::cache_dir().join("worker-instrumented-fixtures-values");
        instrument_cached(
            &[support::fixtures()],
            &root,
            &InstrumentConfig {
                scope: ProbeScope::Classes(vec![ClassName::from_binary("fixtures.Values")]),
                threads: 1,
                ..InstrumentConfig::default()
            },
        )
        .expect("fixtures instrument")
    })
}

fn fixtures_pool(time_limit: Duration) -> WorkerPool {
    fixtures_pool_on(instrumented_fixtures(), time_limit)
}

fn fixtures_pool_on(cp: &InstrumentedClasspath, time_limit: Duration) -> WorkerPool {
    WorkerPool::new(&WorkerConfig {
        workers: 1,
        time_limit,
        max_heap_mb: 128,
        classpath: vec![cp.dir.clone()],
        ..WorkerConfig::default()
    })
    .expect("pool starts")
}

/// (class, method, branch kind) of every covered branch probe (JaCoCo's points, which follow
/// a class's branch probes, resolve to no branch).
fn covered(e: &Execution) -> BTreeSet<(String, String, u32)> {
    let probes = &instrumented().probes;
    e.covered
        .iter()
        .filter_map(|p| probes.resolve(*p))
        .map(|(class, branch)| {
            let (method, _) = class.method_of(branch).expect("branch has a method");
            (class.class.binary(), method.to_string(), branch.0)
        })
        .collect()
}

/// The ids among an execution's hits that are JaCoCo points, not branch probes.
fn points(e: &Execution) -> Vec<ProbeId> {
    let probes = &instrumented().probes;
    e.covered
        .iter()
        .copied()
        .filter(|p| probes.resolve(*p).is_none())
        .collect()
}

#[test]
fn instrumented_exit_and_halt_are_exceptions_and_the_worker_survives() {
    let mut pool = pool();
    let pid = pool.workers()[0].pid;
    let results = pool.run(&[
        hostile("exitIf", "(I)V", P::Int(42)),
        hostile("haltIf", "(Z)V", P::Boolean(true)),
        hostile("count", "(I)I", P::Int(5)),
    ]);
    for r in &results[..2] {
        assert_eq!(r.status, ExecutionStatus::Completed, "{r:?}");
        match &r.outcomes[2] {
            StatementOutcome::Threw { class, .. } => {
                assert_eq!(class, "rivet.runtime.ExitRequested", "{r:?}")
            }
            other => panic!("expected ExitRequested, got {other:?}"),
        }
    }
    assert_eq!(results[2].outcomes[2], StatementOutcome::Normal(V::Int(1)));
    assert_eq!(pool.workers()[0].pid, pid, "the same JVM ran all three");
    assert_eq!(pool.workers()[0].spawns, 1);
}

#[test]
fn probes_map_back_to_branches_of_jumps_and_switches() {
    let mut pool = pool();
    let mut tree = Builder::new();
    let t = tree.new_object("structures/AvlTree", "()V", &[]);
    for k in [5, 3, 8] {
        let k = tree.int(k);
        tree.call("structures/AvlTree", "insert", "(I)Z", Some(t), &[k]);
    }
    let mut leap = Builder::new();
    let s = leap.string("2023-04-30");
    leap.call(
        "strings/DateParser",
        "parse",
        "(Ljava/lang/String;)[I",
        None,
        &[s],
    );
    let results = pool.run(&[tree.build(), leap.build()]);
    for r in &results {
        assert_eq!(r.status, ExecutionStatus::Completed, "{r:?}");
        assert!(
            !r.outcomes
                .iter()
                .any(|o| matches!(o, StatementOutcome::Threw { .. })),
            "{r:?}"
        );
    }
    let avl = covered(&results[0]);
    assert!(
        avl.iter().all(|(c, _, _)| c == "structures.AvlTree"),
        "{avl:?}"
    );
    assert!(avl.iter().any(|(_, m, _)| m == "insert"), "{avl:?}");
    // Every branch the run covered as JaCoCo counts it had one of its points hit.
    let avl_probes = instrumented().probes.class("structures.AvlTree").unwrap();
    let hit_points = points(&results[0]);
    assert!(!hit_points.is_empty());
    for (_, _, b) in &avl {
        let confirmers = avl_probes.confirmers(BranchId(*b)).unwrap();
        assert!(
            confirmers.iter().any(|p| hit_points.contains(p)),
            "branch {b}: none of {confirmers:?} in {hit_points:?}"
        );
    }
    // Branches not taken still carry a distance.
    assert!(results[0].distances.iter().any(|(_, d)| *d > 0.0));
    // parse() validates the day through daysIn's switch: case 4,6,9,11 is a switch branch.
    let dates = covered(&results[1]);
    assert!(
        dates
            .iter()
            .any(|(c, m, _)| c == "strings.DateParser" && m == "daysIn"),
        "switch probes of daysIn missing: {dates:?}"
    );
    // Times taken, per branch of digits (3 calls over 4 + 2 + 2 digits): the loop's exit
    // and entry, `c < '0'` true and false, `c > '9'` false (the jump) and true.
    let dp = instrumented().probes.class("strings.DateParser").unwrap();
    let digits: Vec<u32> = (0..dp.branches.len() as u32)
        .filter(|b| {
            dp.method_of(BranchId(*b))
                .is_some_and(|(m, _)| m == "digits")
        })
        .map(|b| results[1].hits(ProbeId(dp.base + b)))
        .collect();
    assert_eq!(digits, [3, 8, 0, 8, 8, 0]);
}

#[test]
fn a_traced_call_reports_the_branch_outcomes_it_took_in_order() {
    use rivet_testcase::{Executor, MemberRef, Observation, ObservationSpec};
    let mut pool = pool();
    let figure15 = MemberRef::new("lct/Examples", "figure15", "(II)I");
    pool.set_observation(&ObservationSpec {
        targets: vec![Observation {
            member: figure15.clone(),
            paths: Vec::new(),
        }],
        trace: true,
        snapshot: None,
    });
    let mut t = Builder::new();
    let e = t.new_object("lct/Examples", "()V", &[]);
    let (x, y) = (t.int(1), t.int(5));
    t.call("lct/Examples", "figure15", "(II)I", Some(e), &[x, y]);
    // A second call with y <= x: one branch only.
    t.call("lct/Examples", "figure15", "(II)I", Some(e), &[y, x]);
    let runs = pool.execute(&[t.build()]);
    let calls = &runs[0].observations;
    assert_eq!(calls.len(), 2, "{runs:?}");
    let probes = &instrumented().probes;
    let kinds = |trace: &[ProbeId]| -> Vec<(String, String)> {
        trace
            .iter()
            .map(|p| {
                let (c, b) = probes.resolve(*p).expect("a branch probe");
                let (m, _) = c.method_of(b).unwrap();
                (m.to_string(), c.branches[b.0 as usize].kind.to_string())
            })
            .collect()
    };
    // y > x is `if_icmple` (jump when y <= x): it falls through; then x > blackBox(y) is
    // `if_icmple` too, and 1 <= 5 jumps.
    let f = |k: &str| ("figure15".to_string(), k.to_string());
    assert_eq!(kinds(&calls[0].trace), vec![f("false"), f("true")]);
    assert_eq!(kinds(&calls[1].trace), vec![f("true")]);
    assert!(!calls[0].trace_truncated);
    // Without the trace flag, no trace.
    pool.set_observation(&ObservationSpec {
        targets: vec![Observation {
            member: figure15,
            paths: Vec::new(),
        }],
        trace: false,
        snapshot: None,
    });
    let mut t = Builder::new();
    let e = t.new_object("lct/Examples", "()V", &[]);
    let (x, y) = (t.int(1), t.int(5));
    t.call("lct/Examples", "figure15", "(II)I", Some(e), &[x, y]);
    assert!(pool.execute(&[t.build()])[0].observations.is_empty());
}

/// Dynamic seeding: the strings a class under test compared (`startsWith("DE")` on the IBAN
/// it holds) come back with the test's result; a test that compares nothing reports none.
#[test]
fn strings_the_code_compared_are_reported() {
    let mut pool = pool();
    let mut iban = Builder::new();
    let s = iban.string("XY12 3456 7890 1234 5678");
    let i = iban.new_object("strings/Iban", "(Ljava/lang/String;)V", &[s]);
    iban.call("strings/Iban", "isValid", "()Z", Some(i), &[]);
    let mut tree = Builder::new();
    let t = tree.new_object("structures/AvlTree", "()V", &[]);
    let k = tree.int(4);
    tree.call("structures/AvlTree", "insert", "(I)Z", Some(t), &[k]);
    let results = pool.run(&[iban.build(), tree.build()]);
    assert_eq!(
        results[0].status,
        ExecutionStatus::Completed,
        "{:?}",
        results[0]
    );
    assert_eq!(
        results[0].seeds,
        ["XY123456789012345678", "DE"],
        "{:?}",
        results[0]
    );
    assert!(results[1].seeds.is_empty(), "{:?}", results[1]);
}

/// A test's own read of a constant (reflection, not instrumented code) marks the constant's
/// class for the static reset: the cache that a call fills on `Cached.ONE` is gone for the next
/// test, so a test that calls once never takes the cache hit, and one that calls twice does.
#[test]
fn a_constants_object_starts_fresh_in_every_test() {
    use rivet_testcase::{MemberRef, Statement};
    let calling = |calls: usize| {
        let mut b = Builder::new();
        let one = b.test.push(Statement::Constant {
            field: MemberRef::new("statics/Cached", "ONE", "Lstatics/Cached;"),
        });
        for _ in 0..calls {
            b.call(
                "statics/Cached",
                "text",
                "()Ljava/lang/String;",
                Some(one),
                &[],
            );
        }
        b.build()
    };
    let mut pool = pool();
    let runs = pool.run(&[calling(1), calling(1), calling(2), calling(1)]);
    let probes = |e: &Execution| -> BTreeSet<ProbeId> { e.covered.iter().copied().collect() };
    let once = probes(&runs[0]);
    assert!(!once.is_empty(), "{runs:?}");
    assert_eq!(
        probes(&runs[1]),
        once,
        "the second test found the cache filled"
    );
    let twice = probes(&runs[2]);
    assert!(
        twice.is_superset(&once) && twice.len() > once.len(),
        "a second call takes the cache hit: {runs:?}"
    );
    assert_eq!(probes(&runs[3]), once);
}

#[test]
fn a_loop_in_instrumented_code_overruns_its_deadline_and_the_jvm_goes_on() {
    let mut pool = fixtures_pool(Duration::from_secs(2));
    let results = loop_overruns_in_the_same_jvm(&mut pool);
    assert!(!results[0].covered.is_empty(), "{:?}", results[0]);
    assert_eq!(pool.events().timed_out, 1);

    // A loop whose method catches the Overrun: timed out too, and this JVM is replaced.
    let results = pool.run(&[spin("spinCatching", -1), spin("spin", 1)]);
    assert_eq!(
        results[0].status,
        ExecutionStatus::TimedOut,
        "{:?}",
        results[0]
    );
    assert_eq!(results[1].outcomes[1], StatementOutcome::Normal(V::Int(1)));
    assert_eq!(pool.workers()[0].spawns, 2);
}

#[test]
fn a_loop_in_a_class_without_probes_overruns_its_deadline_too() {
    // `Loops` is outside the probe scope: its loop is watched, not probed, and still ends at
    // the deadline in the JVM that ran it.
    let mut pool = fixtures_pool_on(instrumented_fixtures_values_only(), Duration::from_secs(2));
    let results = loop_overruns_in_the_same_jvm(&mut pool);
    assert!(results[0].covered.is_empty(), "{:?}", results[0]);
}

/// `Loops.method(n)` as a test.
fn spin(method: &str, n: i32) -> rivet_testcase::TestCase {
    let mut b = Builder::new();
    let n = b.int(n);
    b.call("fixtures/Loops", method, "(I)I", None, &[n]);
    b.build()
}

/// Runs `spin(3)`, the endless `spin(-1)` and `spin(2)` on `pool`: the loop times out and the
/// tests around it complete, all in the pool's first JVM.
fn loop_overruns_in_the_same_jvm(pool: &mut WorkerPool) -> Vec<Execution> {
    let results = pool.run(&[spin("spin", 3), spin("spin", -1), spin("spin", 2)]);
    assert_eq!(results[0].outcomes[1], StatementOutcome::Normal(V::Int(3)));
    assert_eq!(
        results[1].status,
        ExecutionStatus::TimedOut,
        "{:?}",
        results[1]
    );
    assert_eq!(results[2].outcomes[1], StatementOutcome::Normal(V::Int(2)));
    assert_eq!(
        pool.workers()[0].spawns,
        1,
        "the JVM that ran the loop went on"
    );
    results
}

#[test]
fn a_probe_budget_ends_a_test_by_the_branches_it_ran_not_by_the_clock() {
    let mut pool = fixtures_pool(Duration::from_secs(60));
    let spin = |n: i32| {
        let mut b = Builder::new();
        let n = b.int(n);
        b.call("fixtures/Loops", "spin", "(I)I", None, &[n]);
        b.build()
    };
    // spin(n) runs two jumps per iteration: 200k probes fit a budget of a million, 2M do not,
    // although they take milliseconds, far below the minute the clock allows.
    let tests = [spin(100_000), spin(1_000_000), spin(-1), spin(7)];
    pool.set_test_limit(TestLimit::Probes(1 << 20));
    let results = pool.run(&tests);
    assert_eq!(
        results[0].outcomes[1],
        StatementOutcome::Normal(V::Int(100_000))
    );
    for r in &results[1..3] {
        assert_eq!(r.status, ExecutionStatus::TimedOut, "{r:?}");
    }
    assert_eq!(results[3].outcomes[1], StatementOutcome::Normal(V::Int(7)));
    assert_eq!(pool.workers()[0].spawns, 1, "the JVM went on");

    // Back to the configured limit, the long loop completes in the same JVM.
    pool.set_test_limit(TestLimit::Configured);
    let results = pool.run(&tests[1..2]);
    assert_eq!(
        results[0].outcomes[1],
        StatementOutcome::Normal(V::Int(1_000_000))
    );
    assert_eq!(pool.workers()[0].spawns, 1);
}
