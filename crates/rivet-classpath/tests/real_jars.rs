//! Real-world jars installed by Debian (Guava, Commons Lang 3, Commons Collections 4) as a
//! classpath over JDK 17: every class is listed, parses, and has its supertypes resolved.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::jdk17_home;
use rivet_classpath::{Classpath, Hierarchy, HierarchyError, JdkImage, SubtypeScope};
use rivet_testkit::debian_jar;

fn hierarchy() -> Hierarchy {
    let jdk = Arc::new(JdkImage::open(&jdk17_home()).unwrap());
    let jars = ["guava", "commons-lang3", "commons-collections4"].map(debian_jar);
    Hierarchy::new(Arc::new(Classpath::from_paths(jars, Some(jdk)).unwrap()))
}

#[test]
fn every_class_parses_and_its_supertypes_resolve() {
    let h = hierarchy();
    let cp = h.classpath();
    let classes = cp.user_classes().unwrap();
    assert!(classes.len() > 2_500, "{} classes", classes.len());
    let mut missing = std::collections::BTreeSet::new();
    for name in &classes {
        let class = cp.class_file(name).unwrap().unwrap();
        assert_eq!(class.name().unwrap(), name);
        match h.supertypes(name) {
            Ok(supertypes) => assert!(
                class.access_flags.is_interface() && supertypes.len() == 1
                    || supertypes.iter().any(|s| s == "java/lang/Object"),
                "{name}: {supertypes:?}"
            ),
            Err(HierarchyError::MissingSupertype { supertype, .. }) => {
                missing.insert(supertype);
            }
            Err(e) => panic!("{name}: {e}"),
        }
    }
    // Guava's AbstractFuture extends a class of the separate `failureaccess` jar.
    assert!(
        missing.iter().all(|m| m
            .internal()
            .starts_with("com/google/common/util/concurrent/internal/")),
        "{missing:?}"
    );
}

#[test]
fn facts_about_real_jars() {
    let h = hierarchy();
    let yes = |from: &str, to: &str| assert!(h.is_assignable(from, to).unwrap(), "{from} -> {to}");
    yes("com/google/common/collect/ImmutableList", "java/util/List");
    yes(
        "com/google/common/collect/ImmutableList",
        "java/util/Collection",
    );
    yes(
        "[Lcom/google/common/collect/ImmutableList;",
        "[Ljava/lang/Iterable;",
    );
    yes(
        "org/apache/commons/collections4/list/TreeList",
        "java/util/List",
    );
    yes(
        "org/apache/commons/lang3/tuple/ImmutablePair",
        "java/util/Map$Entry",
    );
    assert!(!h
        .is_assignable(
            "org/apache/commons/lang3/tuple/ImmutablePair",
            "java/util/List"
        )
        .unwrap());
    let immutables = h
        .subtypes(
            "com/google/common/collect/ImmutableCollection",
            SubtypeScope::UserClasses,
        )
        .unwrap();
    for class in [
        "com/google/common/collect/ImmutableList",
        "com/google/common/collect/ImmutableSet",
        "com/google/common/collect/ImmutableSortedSet",
    ] {
        assert!(immutables.contains(&class.to_string()), "{class}");
    }
    let lang = h
        .classpath()
        .package_classes("org.apache.commons.lang3")
        .unwrap();
    assert!(lang.contains(&"org/apache/commons/lang3/StringUtils".to_string()));
    assert!(lang.iter().all(|c| c.matches('/').count() == 4), "{lang:?}");
}
