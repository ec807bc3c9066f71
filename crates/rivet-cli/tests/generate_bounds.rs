//! A run ends within its bound (`budget + max(15 s, budget / 4)`) whatever Rivet's own
//! analyses meet: a value squared in a loop (guava's `IntMath.checkedPow`), whose term
//! doubles with each turn, under every strategy that reasons about it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::rivet;

/// `rivet generate` on `gen.Squares` at budget 5 with `strategy`: it ends within the bound,
/// exits 0 and writes tests.
fn squares_end_in_time(strategy: &str) {
    let classes = common::gen_fixtures("squares");
    let out = rivet_testkit::cache_dir().join(format!("cli-bounds-squares-{strategy}"));
    let _ = std::fs::remove_dir_all(&out);
    let started = Instant::now();
    let o = rivet(&[
        "generate",
        "--classpath",
        &classes.display().to_string(),
        "--class",
        "gen.Squares",
        "--out",
        &out.display().to_string(),
        "--budget",
        "5",
        "--seed",
        "1",
        "--strategy",
        strategy,
    ]);
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{strategy}: {stderr}");
    assert!(
        elapsed <= Duration::from_secs(5 + 15),
        "{strategy}: the run took {elapsed:?}, over its bound of 20 s"
    );
    assert!(
        out.join("gen/SquaresRivetTest.java").exists(),
        "{strategy}: no tests written"
    );
}

#[test]
fn a_value_squared_in_a_loop_ends_within_the_bound() {
    for strategy in ["all", "symbolic", "concolic"] {
        squares_end_in_time(strategy);
    }
}
