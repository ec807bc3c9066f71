//! What the executor lacks ends a path as `unsupported: …` naming what is missing, counted in
//! the summary and written as such, never as a program exception.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_symbolic::{ExploreConfig, Explorer, PathLine, SummaryFile};
use support::{explore_with, fx17};

#[test]
fn a_missing_bootstrap_ends_the_path_as_unsupported_not_as_an_exception() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
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

#[test]
fn an_exception_out_of_a_static_initializer_is_unsupported_not_a_program_exception() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let (paths, summary) = explore_with(&explorer, "fx17.Boom.limit(I)I");
    assert!(!paths.is_empty());
    for p in &paths {
        // The message says where: the initializer's own `athrow`.
        assert!(
            p.end.starts_with(
                "unsupported: the static initializer of fx17.Boom threw java.lang.IllegalStateException (fx17.Boom.<clinit> at offset "
            ),
            "{}",
            p.show()
        );
    }
    assert_eq!(summary.exceptions, 0);
    assert_eq!(summary.unsupported, summary.paths);
}
