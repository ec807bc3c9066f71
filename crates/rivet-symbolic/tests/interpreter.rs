//! The interpreter on small fixtures (tests/fixtures/fx/Interp.java), one feature each:
//! Java arithmetic and shifts, implicit exceptions as paths of their own, handlers, static
//! initialization, virtual dispatch over lazily initialized receivers, strings, longs,
//! switches, casts, loops within the depth bound, searchers and trace-guided mode.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;

use rivet_classpath::{Classpath, JdkImage};
use rivet_symbolic::{ExploreConfig, Explorer, Guidance, SearcherKind, Trace};
use support::{explore_with, Rendered};

fn fixtures() -> Arc<Classpath> {
    // Compiled once per test binary: tests run in parallel threads, and a second javac into
    // the same directory would rewrite a class file while another test reads it.
    static COMPILED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let out = COMPILED.get_or_init(|| {
        let out =
            rivet_testkit::cache_dir().join(format!("symbolic-fixtures-{}", std::process::id()));
        let src =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx/Interp.java");
        rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[src], &out);
        out
    });
    let jdk = JdkImage::open(&rivet_testkit::Jdk::Jdk17.home()).unwrap_or_else(|e| panic!("{e}"));
    Arc::new(
        Classpath::parse(&out.to_string_lossy(), Some(Arc::new(jdk)))
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

fn run(cp: &Arc<Classpath>, method: &str, config: ExploreConfig) -> Vec<Rendered> {
    let explorer = Explorer::new(cp.clone(), config);
    explore_with(&explorer, &format!("fx.Interp.{method}")).0
}

fn ends(paths: &[Rendered]) -> BTreeSet<String> {
    paths.iter().map(|p| p.end.clone()).collect()
}

fn results(paths: &[Rendered]) -> BTreeSet<String> {
    paths
        .iter()
        .filter_map(|p| p.record.result.as_ref().map(|t| format!("{t:?}")))
        .collect()
}

#[test]
fn interpreter_features() {
    let cp = fixtures();
    let d = ExploreConfig::default;

    let div = run(&cp, "div(II)I", d());
    assert_eq!(
        ends(&div),
        BTreeSet::from([
            "return".into(),
            "exception java.lang.ArithmeticException".into()
        ])
    );
    assert!(
        div.iter().any(|p| p.pc_texts() == ["{arg2} == 0"]),
        "{div:#?}"
    );

    // x + 1 < x only through overflow: both outcomes feasible.
    let overflow = run(&cp, "overflow(I)I", d());
    assert_eq!(results(&overflow), BTreeSet::from(["0".into(), "1".into()]));

    // Shift counts are masked: 1 << 33 == 2.
    assert!(results(&run(&cp, "shift(I)I", d())).contains("1"));

    let array = run(&cp, "array(II)I", d());
    assert_eq!(
        ends(&array),
        BTreeSet::from([
            "return".into(),
            "exception java.lang.NegativeArraySizeException".into(),
            "exception java.lang.ArrayIndexOutOfBoundsException".into()
        ])
    );

    // Handlers catch the implicit exceptions of an input array.
    let caught = run(&cp, "caught([I)I", d());
    let r = results(&caught);
    assert!(
        r.contains("-1") && r.contains("-2") && r.len() == 3,
        "{r:?}"
    );
    assert!(caught.iter().all(|p| p.end == "return"));

    // The class's static initializer ran before the call.
    assert_eq!(
        results(&run(&cp, "statics()I", d())),
        BTreeSet::from(["42".into()])
    );

    // A receiver of an abstract type expands to each concrete subclass.
    let dispatch = run(&cp, "dispatch(Lfx/Interp$Shape;)I", d());
    assert_eq!(results(&dispatch), BTreeSet::from(["3".into(), "4".into()]));
    assert!(ends(&dispatch).contains("exception java.lang.NullPointerException"));

    // Strings: concatenation by invokedynamic with a constant, equals, length, charAt, hashCode.
    let constant = run(&cp, "constantStrings()I", d());
    assert_eq!(
        results(&constant),
        BTreeSet::from([format!(
            "{}",
            "ab1"
                .chars()
                .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32))
        )])
    );
    let strings = run(&cp, "strings(I)I", d());
    assert!(strings
        .iter()
        .all(|p| p.record.imprecise || p.end == "return"));

    let longs = run(&cp, "longs(J)I", d());
    assert!(
        longs.iter().any(|p| p.pc_texts() == ["{arg1} > 5L"]),
        "{longs:#?}"
    );

    let sw = run(&cp, "sw(I)I", d());
    assert_eq!(
        results(&sw),
        BTreeSet::from(["0".into(), "10".into(), "20".into(), "70".into()])
    );

    let cast = run(&cp, "cast(Ljava/lang/Object;)I", d());
    assert!(
        ends(&cast).contains("exception java.lang.ClassCastException"),
        "{:?}",
        ends(&cast)
    );

    // A symbolic index into an input array is an earlier index or another one.
    let pick = run(&cp, "pick([III)I", d());
    assert_eq!(
        results(&pick),
        BTreeSet::from(["0".into(), "1".into()]),
        "{pick:#?}"
    );
    assert!(
        pick.iter()
            .any(|p| p.pc_texts().contains(&"{arg3} == {arg2}".to_string())
                || p.pc_texts().iter().any(|c| c.contains("{arg3} == "))),
        "{pick:#?}"
    );

    // Lambdas (LambdaMetafactory): non-capturing, capturing, and a Supplier.
    let lambdas = run(&cp, "lambdas(I)I", d());
    let hit = lambdas
        .iter()
        .find(|p| p.pc_texts().contains(&"{arg1} + 1 == 10".to_string()))
        .unwrap_or_else(|| panic!("{lambdas:#?}"));
    assert!(
        format!("{:?}", hit.record.result).ends_with("+ 45)"),
        "{:?}",
        hit.record.result
    );
    assert!(!hit.record.imprecise);

    // A symbolic loop bound: paths up to the depth bound, then "bound".
    let loop_paths = run(&cp, "loop(I)I", ExploreConfig { depth: 5, ..d() });
    assert!(loop_paths.iter().any(|p| p.end == "bound"));
    assert_eq!(loop_paths.iter().filter(|p| p.end == "return").count(), 5);
}

#[test]
fn searchers_find_the_same_paths_and_trace_mode_follows_one() {
    let cp = fixtures();
    let mut all = Vec::new();
    for kind in [
        SearcherKind::DepthFirst,
        SearcherKind::BreadthFirst,
        SearcherKind::Random,
        SearcherKind::NewCoverageFirst,
    ] {
        let paths = run(
            &cp,
            "sw(I)I",
            ExploreConfig {
                searcher: kind,
                seed: 3,
                ..ExploreConfig::default()
            },
        );
        let mut pcs: Vec<Vec<String>> = paths.iter().map(Rendered::pc_texts).collect();
        pcs.sort();
        all.push(pcs);
    }
    assert!(all.windows(2).all(|w| w[0] == w[1]), "{all:?}");
    // Follow the branches of the `case 2` path only.
    let sw = run(&cp, "sw(I)I", ExploreConfig::default());
    let two = sw
        .iter()
        .find(|p| p.record.result.as_ref().and_then(|t| t.as_int()) == Some(20))
        .unwrap_or_else(|| panic!("no case 2"));
    let traced = run(
        &cp,
        "sw(I)I",
        ExploreConfig {
            guidance: Guidance::Trace(Trace::whole(two.record.trace.clone())),
            ..ExploreConfig::default()
        },
    );
    assert_eq!(traced.len(), 1);
    assert_eq!(traced[0].pc_texts(), two.pc_texts());
    // As a prefix, a trace keeps the paths that start with it and lets them go on.
    let prefix = |trace: Vec<u32>| {
        run(
            &cp,
            "sw(I)I",
            ExploreConfig {
                guidance: Guidance::Trace(Trace::prefix(trace)),
                ..ExploreConfig::default()
            },
        )
    };
    assert_eq!(prefix(Vec::new()).len(), sw.len());
    let first = two.record.trace[..1].to_vec();
    let starting = sw
        .iter()
        .filter(|p| p.record.trace.starts_with(&first))
        .count();
    assert_eq!(prefix(first).len(), starting);
    assert!(starting >= 1 && starting < sw.len() || sw.len() == 1);
}
