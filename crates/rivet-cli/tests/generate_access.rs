//! Tests live in the package of the class under test and use what a test there may use:
//! a package-private class, protected constructors and package-private methods are tested
//! (never private members, never reflection); `--access public` restricts to the public API.
//! An `Object` parameter gets values of the types the code tests with `instanceof`; `Class`
//! parameters get class literals, functional interfaces lambdas, and a class without a usable
//! constructor is obtained from another class's method.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};

use common::rivet;

/// The fixtures, compiled once per test binary (the tests run in parallel, and a second javac
/// would replace the classes under a running rivet).
fn fixtures() -> PathBuf {
    static COMPILED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/access/acc");
            let mut sources: Vec<PathBuf> = std::fs::read_dir(&src)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            sources.sort();
            let out = rivet_testkit::cache_dir().join(format!(
                "cli-generate-access-classes-{}",
                std::process::id()
            ));
            rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &sources, &out);
            out
        })
        .clone()
}

fn generate(
    classes: &Path,
    class: &str,
    name: &str,
    extra: &[&str],
) -> (std::process::Output, PathBuf) {
    let out = rivet_testkit::cache_dir().join(format!("cli-generate-access-{name}"));
    let _ = std::fs::remove_dir_all(&out);
    let mut args = vec![
        "generate".to_string(),
        "--classpath".into(),
        classes.display().to_string(),
        "--class".into(),
        class.into(),
        "--out".into(),
        out.display().to_string(),
        "--budget".into(),
        "10".into(),
        "--strategy".into(),
        "search".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    (rivet(&refs), out)
}

/// Generates tests for a fixture and checks that the run succeeded, verified its tests and
/// covered all `branches` of the class; returns the emitted test source.
fn covered_and_verified(classes: &Path, class: &str, simple: &str, branches: u64) -> String {
    let (o, out) = generate(classes, class, simple, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{class}: {stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
            .unwrap();
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["branches_total"], branches, "{class}: {report}");
    assert_eq!(report["branches_covered"], branches, "{class}: {report}");
    std::fs::read_to_string(out.join(format!("acc/{simple}RivetTest.java"))).unwrap()
}

#[test]
fn package_private_classes_and_members_are_tested_from_their_package() {
    let classes = fixtures();
    for (class, simple, branches) in [
        ("acc.Counter", "Counter", 4),
        ("acc.Gauge", "Gauge", 4),
        ("acc.Kinds", "Kinds", 8),
    ] {
        let source = covered_and_verified(&classes, class, simple, branches);
        assert!(source.starts_with("package acc;"), "{source}");
        assert!(!source.contains("reflect"), "{source}");
        assert!(!source.contains("reset("), "a private method: {source}");
    }
}

/// Values beyond constructors: a class obtained only from another class's method
/// (`Token.Lexer.next()`), class literals for a converter's `(Object, Class)` with
/// `instanceof` chains, an abstract class through its two concrete subclasses, and lambdas for
/// JDK and package functional interfaces, an inner class through its enclosing instance.
/// Every branch covered, no private member called.
#[test]
fn producers_class_literals_subclasses_and_lambdas_cover_their_fixtures() {
    let classes = fixtures();
    // (class, simple name, branches, text the tests must contain, text they must not).
    let cases = [
        ("acc.Token", "Token", 18, "new Token.Lexer(", "new Token("),
        ("acc.Converter", "Converter", 34, ".class", "getDeclared"),
        ("acc.Shape", "Shape", 8, "new Circle(", "new Shape("),
        ("acc.Filters", "Filters", 18, "lambdaArg0", "setAccessible"),
        // An inner class, created through an enclosing instance.
        (
            "acc.Wallet$Coin",
            "Wallet_Coin",
            4,
            ".new Coin(",
            "new Wallet.Coin(",
        ),
    ];
    for (class, simple, branches, must, never) in cases {
        let source = covered_and_verified(&classes, class, simple, branches);
        assert!(source.contains(must), "{class}: {source}");
        assert!(!source.contains(never), "{class}: {source}");
        assert!(!source.contains("reflect"), "{source}");
    }
}

#[test]
fn public_access_refuses_what_only_the_package_sees() {
    let classes = fixtures();
    for (class, name, expect) in [
        ("acc.Counter", "public-counter", "acc.Counter is not public"),
        ("acc.Gauge", "public-gauge", "no public constructor"),
    ] {
        let (o, _) = generate(&classes, class, name, &["--access", "public"]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expect), "{class}: {stderr}");
    }
}
