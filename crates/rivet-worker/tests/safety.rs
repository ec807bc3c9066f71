//! The safety net against hostile code under test (subject `hostile.Hostile`): time-outs,
//! uninstrumented exits and halts, SIGKILL from outside, memory exhaustion, stack overflow,
//! Errors and stray threads, a home directory of the worker's own. In every case each test is
//! reported and the pool goes on.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use rivet_testcase::{Execution, ExecutionStatus};
use rivet_testcase::{PrimitiveValue as P, StatementOutcome, ValueSummary as V};
use rivet_worker::{WorkerConfig, WorkerPool};
use support::{harmless, hostile, pool, Builder};

fn crashed(e: &Execution) -> &str {
    match &e.status {
        ExecutionStatus::WorkerCrashed { reason } => reason,
        other => panic!("expected a crash, got {other:?}"),
    }
}

fn assert_harmless_ran(e: &Execution) {
    assert_eq!(e.status, ExecutionStatus::Completed, "{e:?}");
    assert_eq!(e.outcomes[2], StatementOutcome::Normal(V::Int(1)));
}

#[test]
fn an_endless_loop_times_out_and_the_pool_goes_on() {
    let mut pool = pool(1, Duration::from_millis(1500));
    let start = Instant::now();
    let results = pool.run(&[
        harmless(),
        hostile("spinIf", "(I)I", P::Int(-1)),
        harmless(),
        harmless(),
    ]);
    assert_harmless_ran(&results[0]);
    assert_eq!(results[1].status, ExecutionStatus::TimedOut);
    assert!(results[1].duration >= Duration::from_millis(1500));
    assert!(results[1]
        .outcomes
        .iter()
        .all(|o| *o == StatementOutcome::NotRun));
    assert_harmless_ran(&results[2]);
    assert_harmless_ran(&results[3]);
    assert_eq!(pool.workers()[0].spawns, 2, "the looping JVM was replaced");
    assert!(start.elapsed() < Duration::from_secs(30));
}

#[test]
fn uninstrumented_exit_and_halt_crash_the_worker_which_is_replaced() {
    let mut pool = pool(1, Duration::from_secs(10));
    let results = pool.run(&[
        harmless(),
        hostile("exitIf", "(I)V", P::Int(42)),
        harmless(),
        hostile("haltIf", "(Z)V", P::Boolean(true)),
        harmless(),
    ]);
    assert_harmless_ran(&results[0]);
    assert!(
        crashed(&results[1]).contains("exited with status 42"),
        "{:?}",
        results[1]
    );
    assert_harmless_ran(&results[2]);
    assert!(
        crashed(&results[3]).contains("exited with status 3"),
        "{:?}",
        results[3]
    );
    assert_harmless_ran(&results[4]);
    assert_eq!(pool.workers()[0].spawns, 3);
}

#[test]
fn a_worker_killed_mid_batch_is_replaced_and_every_test_is_reported() {
    let mut pool = pool(1, Duration::from_secs(20));
    let pid = pool.workers()[0].pid.expect("running");
    let sleep = |ms: i32| {
        let mut b = Builder::new();
        let ms = b.int(ms);
        b.values("sleep", "(I)V", &[ms]);
        b.build()
    };
    let mut tests: Vec<_> = (0..20).map(|_| harmless()).collect();
    tests[10] = sleep(5000);
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(1500));
        Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
    });
    let results = pool.run(&tests);
    assert!(killer
        .join()
        .expect("killer thread")
        .expect("kill runs")
        .success());
    assert_eq!(results.len(), 20);
    for (i, r) in results.iter().enumerate() {
        if i == 10 {
            assert!(crashed(r).contains("SIGKILL"), "{r:?}");
        } else {
            assert_harmless_ran(r);
        }
    }
    let info = &pool.workers()[0];
    assert_eq!(info.spawns, 2);
    assert_ne!(info.pid, Some(pid));
}

#[test]
fn unbounded_allocation_ends_as_out_of_memory_or_time_out_and_the_pool_goes_on() {
    let config = WorkerConfig {
        max_heap_mb: 64,
        ..support::config(1, Duration::from_secs(5))
    };
    let mut pool = WorkerPool::new(&config).expect("pool");
    let results = pool.run(&[
        hostile("hoardIf", "(I)I", P::Int(5000)),
        harmless(),
        hostile("hoardIf", "(I)I", P::Int(5000)),
        harmless(),
    ]);
    for r in [&results[0], &results[2]] {
        eprintln!("unbounded allocation: {:?} {:?}", r.status, r.exception());
        match &r.status {
            ExecutionStatus::Completed => {
                let (i, class, _) = r.exception().expect("an exception");
                assert_eq!(
                    (i, class.binary().as_str()),
                    (2, "java.lang.OutOfMemoryError")
                );
            }
            ExecutionStatus::TimedOut | ExecutionStatus::WorkerCrashed { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_harmless_ran(&results[1]);
    assert_harmless_ran(&results[3]);
}

#[test]
fn stack_overflow_and_errors_are_the_statements_exceptions() {
    let mut pool = pool(1, Duration::from_secs(10));
    let results = pool.run(&[
        hostile("recurse", "(I)I", P::Int(7)),
        hostile("errorIf", "(I)V", P::Int(13)),
        hostile("recurse", "(I)I", P::Int(3)),
    ]);
    assert_eq!(
        results[0].exception().map(|e| e.1.binary()).as_deref(),
        Some("java.lang.StackOverflowError")
    );
    assert_eq!(
        results[1].exception().map(|(i, c, m)| (i, c.binary(), m)),
        Some((2, "java.lang.LinkageError".to_string(), Some("unlucky")))
    );
    assert_eq!(results[2].outcomes[2], StatementOutcome::Normal(V::Int(3)));
    assert_eq!(pool.workers()[0].spawns, 1);
}

#[test]
fn stray_threads_do_not_block_the_worker_and_too_many_replace_it() {
    let config = WorkerConfig {
        max_stray_threads: 2,
        ..support::config(1, Duration::from_secs(10))
    };
    let mut pool = WorkerPool::new(&config).expect("pool");
    let spawn = || hostile("spawnIf", "(Z)V", P::Boolean(true));
    let results = pool.run(&[
        spawn(),
        harmless(),
        spawn(),
        harmless(),
        spawn(),
        harmless(),
    ]);
    assert!(results.iter().all(Execution::is_completed), "{results:?}");
    assert_eq!(results[0].stray_threads, 1);
    assert_eq!(results[2].stray_threads, 2);
    assert_eq!(results[4].stray_threads, 3);
    assert_eq!(
        pool.workers()[0].spawns,
        2,
        "replaced after the third spinning thread"
    );
    // Recycling ends a JVM only if its tests left threads running.
    assert_eq!(pool.recycle_stray(), 0, "the new JVM ran nothing yet");
    pool.run(&[harmless()]);
    assert_eq!(pool.recycle_stray(), 0);
    pool.run(&[spawn()]);
    assert_eq!(pool.recycle_stray(), 1);
    assert_eq!(pool.workers()[0].pid, None, "ended");
    let after = pool.run(&[harmless()]);
    assert!(after[0].is_completed());
    assert_eq!(after[0].stray_threads, 0, "a fresh JVM");
    assert_eq!(pool.workers()[0].spawns, 3);
}

#[test]
fn a_pool_of_two_reports_every_test_of_a_hostile_batch_in_order() {
    let mut pool = pool(2, Duration::from_millis(1500));
    let mut tests = Vec::new();
    let mut expected = Vec::new();
    for i in 0..60 {
        let (t, e) = match i {
            7 => (hostile("spinIf", "(I)I", P::Int(-1)), "timeout"),
            23 => (hostile("exitIf", "(I)V", P::Int(42)), "crash"),
            41 => (hostile("haltIf", "(Z)V", P::Boolean(true)), "crash"),
            _ => (hostile("count", "(I)I", P::Int(i)), "ok"),
        };
        tests.push(t);
        expected.push(e);
    }
    let results = pool.run(&tests);
    assert_eq!(results.len(), 60);
    for (i, (r, e)) in results.iter().zip(&expected).enumerate() {
        match *e {
            "timeout" => assert_eq!(r.status, ExecutionStatus::TimedOut, "test {i}"),
            "crash" => {
                crashed(r);
            }
            _ => {
                // count(x) returns 2 when x > 100, else 1 (each test has a fresh object).
                assert_harmless_ran(r);
            }
        }
    }
    let workers: std::collections::BTreeSet<_> = results.iter().filter_map(|r| r.worker).collect();
    assert_eq!(workers.len(), 2, "both workers ran tests");
    // The pool is still usable afterwards.
    let again = pool.run(&[harmless(), harmless(), harmless()]);
    assert!(again.iter().all(Execution::is_completed));
}

/// The code under test sees a home directory of the worker's own, so a call that would change
/// the user's home (commons-io's `FileUtils.deleteDirectory(getUserDirectory())`) is refused
/// like any write outside the test's temporary directory.
#[test]
fn the_user_home_a_worker_shows_is_its_own() {
    let mut b = Builder::new();
    let key = b.string("user.home");
    b.call(
        "java/lang/System",
        "getProperty",
        "(Ljava/lang/String;)Ljava/lang/String;",
        None,
        &[key],
    );
    let mut pool = pool(1, Duration::from_secs(10));
    let e = &pool.run(&[b.build()])[0];
    let StatementOutcome::Normal(V::String(home)) = &e.outcomes[1] else {
        panic!("{e:?}")
    };
    let home = std::path::PathBuf::from(home);
    assert!(home.ends_with("home"), "{}", home.display());
    let worker = home
        .parent()
        .and_then(|d| d.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    assert!(
        worker.is_some_and(|n| n.starts_with("rivet-worker-")),
        "{}",
        home.display()
    );
}
