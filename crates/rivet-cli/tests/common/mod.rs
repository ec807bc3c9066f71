//! Helpers for running the `rivet` binary in integration tests.

use std::process::{Command, Output};

/// Runs `rivet` with arguments and returns its output.
pub fn rivet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rivet"))
        .args(args)
        .output()
        .expect("run rivet")
}

/// Stdout of a successful `rivet` run.
#[allow(dead_code)] // not every test binary uses it
pub fn rivet_ok(args: &[&str]) -> String {
    let out = rivet(args);
    assert!(
        out.status.success(),
        "rivet {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}
