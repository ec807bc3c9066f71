//! Worker throughput and latency on real JVMs (plain std::time, `cargo bench -p rivet-worker`):
//! executions per second per worker for 10-call tests on `structures.AvlTree` in batches of
//! 1,000, with one worker and with the default pool, for a few JVM flag sets; and the round-trip
//! latency of a trivial single-test batch. Goal: 2,000 executions/s per worker.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::time::{Duration, Instant};

use rivet_testcase::ExecutionStatus;
use rivet_testcase::{MemberRef, PrimitiveValue, Statement, TestCase};
use rivet_worker::{WorkerConfig, WorkerPool};

const GOAL_PER_WORKER: f64 = 2000.0;
const BATCH: usize = 1000;
const TREE: &str = "structures/AvlTree";

/// xorshift64*: a seeded generator, so every run measures the same tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `new AvlTree()` then 9 calls of insert/contains/remove/size/height/min with int arguments.
fn avl_test(rng: &mut Rng) -> TestCase {
    let mut t = TestCase::new();
    let tree = t.push(Statement::Construct {
        constructor: MemberRef::new(TREE, "<init>", "()V"),
        args: vec![],
    });
    for _ in 0..9 {
        let (name, descriptor) = match rng.below(10) {
            0..=3 => ("insert", "(I)Z"),
            4..=5 => ("contains", "(I)Z"),
            6 => ("remove", "(I)Z"),
            7 => ("size", "()I"),
            8 => ("height", "()I"),
            _ => ("min", "()I"),
        };
        let args = if descriptor.starts_with("(I") {
            vec![t.push(Statement::Primitive(PrimitiveValue::Int(
                rng.below(64) as i32 - 16,
            )))]
        } else {
            vec![]
        };
        t.push(Statement::Call {
            method: MemberRef::new(TREE, name, descriptor),
            receiver: Some(tree),
            args,
        });
    }
    t
}

/// CPU time used by this process (Rivet's side: the JVMs are other processes).
fn own_cpu() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct we pass and reads nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// CPU time used so far by the pool's JVMs (all their threads, JIT compilers included), from
/// /proc/PID/stat (clock ticks of 10 ms).
fn jvm_cpu(pool: &WorkerPool) -> Duration {
    pool.workers()
        .iter()
        .filter_map(|w| w.pid)
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter_map(|stat| {
            // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
            let rest = stat.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
            Some(Duration::from_millis(ticks * 10))
        })
        .sum()
}

/// What one throughput measurement found.
struct Figures {
    per_second: f64,
    rivet_cpu: Duration,
    jvm_cpu: Duration,
}

/// Executions per second over `rounds` batches after `warmup` batches, and the CPU time per
/// execution of Rivet's side and of the JVMs.
fn throughput(pool: &mut WorkerPool, tests: &[TestCase], warmup: usize, rounds: usize) -> Figures {
    for _ in 0..warmup {
        check(&pool.run(tests));
    }
    let (rivet, jvm) = (own_cpu(), jvm_cpu(pool));
    let start = Instant::now();
    for _ in 0..rounds {
        check(&pool.run(tests));
    }
    let n = rounds * tests.len();
    let elapsed = start.elapsed().as_secs_f64();
    Figures {
        per_second: n as f64 / elapsed,
        rivet_cpu: (own_cpu() - rivet) / n as u32,
        jvm_cpu: (jvm_cpu(pool).saturating_sub(jvm)) / n as u32,
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn check(results: &[rivet_testcase::Execution]) {
    let bad = results
        .iter()
        .filter(|e| e.status != ExecutionStatus::Completed)
        .count();
    assert_eq!(bad, 0, "every benchmark test completes");
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` runs this too: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let subjects = rivet_testkit::compiled_subjects(11);
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let tests: Vec<TestCase> = (0..BATCH).map(|_| avl_test(&mut rng)).collect();
    let statements: usize = tests.iter().map(TestCase::len).sum();
    // The subjects as a real run sees them: instrumented with branch probes.
    let instrumented = rivet_instrument::instrument_cached(
        &[subjects],
        &rivet_testkit::cache_dir().join("bench-instrumented"),
        &rivet_instrument::InstrumentConfig::default(),
    )
    .expect("subjects instrument");
    let base = WorkerConfig::with_classpath([&instrumented.dir]);
    // RIVET_BENCH_ROUNDS: measured batches per figure (default 10), after a third as many.
    let rounds: usize = std::env::var("RIVET_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(10);
    let (warmup, rounds) = if quick {
        (1, 1)
    } else {
        (rounds.div_ceil(3), rounds)
    };
    println!(
        "rivet-worker throughput: {BATCH} tests per batch on {TREE} (instrumented), 10 calls each ({:.1} statements per test with the int arguments); {} cores",
        statements as f64 / BATCH as f64,
        base.workers
    );

    let flag_sets: &[(&str, &[&str])] = if quick {
        &[("default", &["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"])]
    } else {
        &[
            (
                "SerialGC + C1 only (default)",
                &["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"],
            ),
            ("SerialGC, tiered C1+C2", &["-XX:+UseSerialGC"]),
            ("JVM defaults (G1, tiered)", &[]),
        ]
    };
    for (label, flags) in flag_sets {
        let config = WorkerConfig {
            workers: 1,
            tuning_flags: flags.iter().map(|f| f.to_string()).collect(),
            ..base.clone()
        };
        let mut pool = WorkerPool::new(&config).expect("pool starts");
        let f = throughput(&mut pool, &tests, warmup, rounds);
        println!(
            "  1 worker,  {label:<30} {:>8.0} executions/s per worker ({:.1}x the goal of {GOAL_PER_WORKER:.0}); CPU per execution: JVM {:.1} µs, Rivet {:.1} µs",
            f.per_second,
            f.per_second / GOAL_PER_WORKER,
            micros(f.jvm_cpu),
            micros(f.rivet_cpu)
        );
    }

    let mut pool = WorkerPool::new(&base).expect("default pool starts");
    let n = pool.size();
    let f = throughput(&mut pool, &tests, warmup, rounds);
    println!(
        "  {n} workers (default pool): {:>8.0} executions/s in all, {:.0} per worker ({:.1}x the goal); CPU per execution: JVM {:.1} µs, Rivet {:.1} µs",
        f.per_second,
        f.per_second / n as f64,
        f.per_second / n as f64 / GOAL_PER_WORKER,
        micros(f.jvm_cpu),
        micros(f.rivet_cpu)
    );
    drop(pool);

    // Latency: one trivial test per batch, one round trip each.
    let config = WorkerConfig {
        workers: 1,
        ..base.clone()
    };
    let mut pool = WorkerPool::new(&config).expect("pool starts");
    let mut trivial = TestCase::new();
    trivial.push(Statement::Primitive(PrimitiveValue::Int(1)));
    let trivial = [trivial];
    let n = if quick { 200 } else { 5000 };
    for _ in 0..n / 5 {
        check(&pool.run(&trivial));
    }
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        check(&pool.run(&trivial));
        times.push(start.elapsed());
    }
    times.sort();
    let mean = times.iter().sum::<Duration>() / n as u32;
    println!(
        "  round trip of one trivial test (single-test batches, {n} runs): mean {:.1} µs, median {:.1} µs, p99 {:.1} µs",
        mean.as_secs_f64() * 1e6,
        percentile(&times, 0.5).as_secs_f64() * 1e6,
        percentile(&times, 0.99).as_secs_f64() * 1e6
    );
    let mut pings = Vec::with_capacity(n);
    for _ in 0..n {
        pings.push(pool.ping().expect("ping")[0]);
    }
    pings.sort();
    println!(
        "  ping round trip: median {:.1} µs",
        percentile(&pings, 0.5).as_secs_f64() * 1e6
    );
}
