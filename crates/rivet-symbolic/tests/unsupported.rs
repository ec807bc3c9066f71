//! What the executor lacks ends a path as `unsupported: …` naming what is missing, counted in
//! the summary and written as such, never as a program exception.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use rivet_classpath::{Classpath, JdkImage};
use rivet_symbolic::{ExploreConfig, Explorer, PathLine, SummaryFile};
use support::explore_with;

fn records() -> Arc<Classpath> {
    let out = rivet_testkit::cache_dir().join(format!("symbolic-fx17-{}", std::process::id()));
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx17/Point.java");
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 17, "", &[src], &out);
    let jdk = JdkImage::open(&rivet_testkit::Jdk::Jdk17.home()).unwrap_or_else(|e| panic!("{e}"));
    Arc::new(
        Classpath::parse(&out.to_string_lossy(), Some(Arc::new(jdk)))
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

#[test]
fn a_missing_bootstrap_ends_the_path_as_unsupported_not_as_an_exception() {
    let explorer = Explorer::new(records(), ExploreConfig::default());
    let (paths, summary) = explore_with(&explorer, "fx17.Point.describe()Ljava/lang/String;");
    let ends: Vec<&str> = paths.iter().map(|p| p.end.as_str()).collect();
    assert!(ends.contains(&"return"), "{ends:?}");
    let unsupported: Vec<&&str> = ends
        .iter()
        .filter(|e| e.starts_with("unsupported: "))
        .collect();
    assert_eq!(unsupported.len(), 1, "{ends:?}");
    assert!(
        unsupported[0].contains("java.lang.runtime.ObjectMethods"),
        "the missing bootstrap is named: {unsupported:?}"
    );
    assert_eq!(summary.exceptions, 0, "{ends:?}");
    assert_eq!(summary.unsupported, 1);
    assert_eq!(summary.returns, 1);

    // As written by `rivet explore`.
    let file = SummaryFile::new("fx17.Point.describe()", &summary);
    let text = serde_json::to_string(&file).unwrap();
    let back: SummaryFile = serde_json::from_str(&text).unwrap();
    assert_eq!(back, file);
    assert_eq!(back.unsupported, 1);
    let unsupported_path = paths
        .iter()
        .find(|p| p.end.starts_with("unsupported"))
        .unwrap();
    let line = PathLine::new(
        &unsupported_path.record,
        &rivet_symbolic::SymbolTable::default(),
    );
    assert!(
        line.end.starts_with("unsupported: invokedynamic"),
        "{line:?}"
    );
}
