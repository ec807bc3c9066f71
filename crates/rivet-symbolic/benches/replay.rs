//! Benchmark: trace-guided replay of a long trace (the concolic strategy's step), against the
//! goal of a 1,000-branch trace in under 50 ms (issue 12). A loop of 500 iterations whose
//! branch depends on an argument is run concretely for its trace (1,001 outcomes), then
//! replayed symbolically along it. Run with `cargo bench -p rivet-symbolic --bench replay`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use rivet_classpath::{Classpath, JdkImage};
use rivet_pc::{AccessPath, SymbolSort};
use rivet_symbolic::concrete::PathInput;
use rivet_symbolic::{ExploreConfig, Explorer, Guidance, MethodSpec, Trace};

const SOURCE: &str = "package bench;
public class Walk {
    public static int walk(int n, int k) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            if ((i + k) % 3 == 0) {
                s += i;
            } else {
                s--;
            }
        }
        return s;
    }
}
";

fn main() {
    // `cargo test --benches` runs this too; only `cargo bench` (which passes --bench) measures.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = rivet_testkit::cache_dir().join(format!("bench-replay-{}", std::process::id()));
    let src = dir.join("src/bench/Walk.java");
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(&src, SOURCE).unwrap();
    let out = dir.join("classes");
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[src], &out);
    let jdk = JdkImage::open(&rivet_testkit::Jdk::Jdk17.home()).unwrap();
    let cp = Arc::new(Classpath::parse(&out.to_string_lossy(), Some(Arc::new(jdk))).unwrap());
    let spec = MethodSpec::parse("bench.Walk.walk(II)I").unwrap();
    let explorer = Explorer::new(cp, ExploreConfig::default());
    let input = PathInput {
        shape: Vec::new(),
        values: vec![
            (AccessPath::root("arg1"), SymbolSort::Int, 500),
            (AccessPath::root("arg2"), SymbolSort::Int, 1),
        ],
        strings: Vec::new(),
    };
    let run = explorer.replay(&spec, &input).unwrap();
    let trace = run.trace;
    let replayer = explorer.with_config(ExploreConfig {
        guidance: Guidance::Trace(Trace::whole(trace.clone())),
        depth: 10_000,
        max_clauses: 10_000,
        ..ExploreConfig::default()
    });
    let mut best = Duration::MAX;
    let mut clauses = 0;
    for _ in 0..5 {
        let started = Instant::now();
        let mut paths = 0;
        replayer
            .explore(&spec, &mut |path, _| {
                paths += 1;
                clauses = path.pc.len();
                assert_eq!(path.trace, trace, "the replay follows the trace");
            })
            .unwrap();
        assert_eq!(paths, 1);
        best = best.min(started.elapsed());
    }
    let ms = best.as_secs_f64() * 1000.0;
    println!(
        "rivet-symbolic replay: a trace of {} branch outcomes ({clauses} clauses) in {ms:.1} ms, best of 5 ({:.1}x under the goal of 50 ms)",
        trace.len(),
        50.0 / ms
    );
    let _ = std::fs::remove_dir_all(&dir);
}
