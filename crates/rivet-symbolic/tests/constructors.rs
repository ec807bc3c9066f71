//! What an entry state's inputs may be: a constructor's receiver is a new object with default
//! field values, not an input (no argument aliases it and its fields are not symbols); a
//! JDK-typed parameter is one of the usual JDK implementations or a class of the explored
//! class's own package, not any class of the classpath.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_symbolic::{ExploreConfig, Explorer};
use support::{explore_with, fx17};

#[test]
fn the_receiver_of_a_constructor_is_new() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let (paths, _) = explore_with(&explorer, "fx17.Link.<init>(Lfx17/Link;)V");
    let shown: Vec<String> = paths.iter().map(|p| p.show()).collect();
    assert!(
        paths.iter().all(|p| p.end == "return"),
        "the alias with the receiver is impossible: {shown:#?}"
    );
    assert!(
        paths
            .iter()
            .all(|p| p.pc_texts().iter().all(|c| !c.contains("{this}"))),
        "{shown:#?}"
    );
    // The receiver's field is 0: the comparison is with the constant.
    assert!(
        paths
            .iter()
            .any(|p| p.pc_texts().iter().any(|c| c == "{arg1}.n == 0")),
        "{shown:#?}"
    );
    assert_eq!(paths.len(), 3, "null, n == 0, n != 0: {shown:#?}");
}

#[test]
fn a_jdk_typed_parameter_expands_to_jdk_classes_and_this_package_only() {
    let explorer = Explorer::new(fx17(), ExploreConfig::default());
    let (paths, _) = explore_with(&explorer, "fx17.Sizes.size(Ljava/util/List;)I");
    let fresh: std::collections::BTreeSet<String> = paths
        .iter()
        .flat_map(|p| p.pc_texts())
        .filter(|c| c.starts_with("fresh({arg1}) : "))
        .collect();
    let expected: std::collections::BTreeSet<String> = [
        "java.util.ArrayList",
        "java.util.LinkedList",
        "fx17.Sizes$Local",
    ]
    .iter()
    .map(|c| format!("fresh({{arg1}}) : {c}"))
    .collect();
    assert_eq!(fresh, expected);
}
