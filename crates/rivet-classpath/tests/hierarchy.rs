//! Type-hierarchy facts against both JDKs and the compiled fixture: supertypes, subtypes,
//! assignability of classes and arrays, and missing supertypes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{fixture, jdk17_home, temurin25_home};
use rivet_classpath::{Classpath, Hierarchy, HierarchyError, JdkImage, SubtypeScope};

fn hierarchy(home: &Path) -> Hierarchy {
    let jdk = Arc::new(JdkImage::open(home).unwrap());
    let f = fixture();
    let cp = Classpath::from_paths([&f.classes, &f.jar], Some(jdk)).unwrap();
    Hierarchy::new(Arc::new(cp))
}

fn check_jdk_facts(h: &Hierarchy) {
    let yes = |from: &str, to: &str| assert!(h.is_assignable(from, to).unwrap(), "{from} -> {to}");
    let no = |from: &str, to: &str| assert!(!h.is_assignable(from, to).unwrap(), "{from} !-> {to}");
    yes("java/util/ArrayList", "java/util/List");
    yes("java/util/ArrayList", "java/util/Collection");
    yes("java/util/ArrayList", "java/lang/Iterable");
    yes("java/util/ArrayList", "java/util/RandomAccess");
    yes("java/util/ArrayList", "java/util/AbstractList");
    yes("java/util/ArrayList", "java/lang/Object");
    yes("java/util/ArrayList", "Ljava/util/List;");
    yes("java/util/ArrayList", "java/util/ArrayList");
    no("java/util/ArrayList", "java/util/Map");
    no("java/util/List", "java/util/ArrayList");
    yes("java/util/List", "java/lang/Object");
    yes("java/util/Map$Entry", "java/lang/Object");

    yes("[Ljava/lang/String;", "[Ljava/lang/Object;");
    yes("[Ljava/lang/String;", "[Ljava/lang/CharSequence;");
    yes("[Ljava/lang/String;", "java/lang/Object");
    yes("[Ljava/lang/String;", "java/lang/Cloneable");
    yes("[Ljava/lang/String;", "java/io/Serializable");
    no("[Ljava/lang/String;", "java/lang/String");
    no("[Ljava/lang/Object;", "[Ljava/lang/String;");
    no("[I", "[Ljava/lang/Object;");
    yes("[I", "java/lang/Object");
    yes("[I", "[I");
    no("[I", "[J");
    no("[I", "[[I");
    yes("[[I", "[Ljava/lang/Object;");
    yes("[[Ljava/lang/String;", "[[Ljava/lang/Object;");
    yes("[[Ljava/lang/String;", "[Ljava/lang/Object;");
    no("java/lang/Object", "[Ljava/lang/Object;");

    let supers = h.superclasses("java/util/ArrayList").unwrap();
    assert_eq!(
        supers,
        vec![
            "java/util/AbstractList",
            "java/util/AbstractCollection",
            "java/lang/Object"
        ]
    );
    let interfaces = h.interfaces("java/util/ArrayList").unwrap();
    for i in [
        "java/util/List",
        "java/util/Collection",
        "java/lang/Iterable",
        "java/util/RandomAccess",
        "java/lang/Cloneable",
        "java/io/Serializable",
    ] {
        assert!(
            interfaces.contains(&i.to_string()),
            "{i} not in {interfaces:?}"
        );
    }
    assert!(h.superclasses("java/lang/Object").unwrap().is_empty());

    assert!(matches!(
        h.is_assignable("com/example/Missing", "java/util/List"),
        Err(HierarchyError::ClassNotFound { .. })
    ));
    assert!(matches!(
        h.is_assignable("[Q", "java/lang/Object"),
        Err(HierarchyError::BadType { .. })
    ));
}

#[test]
fn jdk17_facts() {
    check_jdk_facts(&hierarchy(&jdk17_home()));
}

#[test]
fn temurin25_facts() {
    let h = hierarchy(&temurin25_home());
    check_jdk_facts(&h);
    // Java 21's SequencedCollection is a supertype of List in Temurin 25, not in JDK 17.
    assert!(h
        .is_assignable("java/util/ArrayList", "java/util/SequencedCollection")
        .unwrap());
    let h17 = hierarchy(&jdk17_home());
    assert!(matches!(
        h17.is_assignable("java/util/ArrayList", "java/util/SequencedCollection"),
        Ok(false)
    ));
}

#[test]
fn user_class_facts() {
    let h = hierarchy(&jdk17_home());
    assert!(h
        .is_assignable("com/example/extra/Ring", "com/example/shapes/Shape")
        .unwrap());
    assert!(h
        .is_assignable("com/example/extra/Ring", "java/lang/Comparable")
        .unwrap());
    assert!(h
        .is_assignable("[Lcom/example/extra/Ring;", "[Lcom/example/shapes/Shape;")
        .unwrap());
    assert!(!h
        .is_assignable("com/example/shapes/Square", "com/example/shapes/Circle")
        .unwrap());
    assert_eq!(
        h.supertypes("com/example/extra/Ring").unwrap(),
        vec![
            "com/example/shapes/Circle",
            "com/example/shapes/AbstractShape",
            "java/lang/Object",
            "java/io/Serializable",
            "com/example/shapes/Shape",
            "java/lang/Comparable",
        ]
    );
    assert_eq!(
        h.subtypes("com/example/shapes/Shape", SubtypeScope::UserClasses)
            .unwrap(),
        vec![
            "com/example/extra/Ring",
            "com/example/shapes/AbstractShape",
            "com/example/shapes/Circle",
            "com/example/shapes/Square",
        ]
    );
    assert_eq!(
        h.direct_subtypes(
            "com/example/shapes/AbstractShape",
            SubtypeScope::UserClasses
        )
        .unwrap(),
        vec!["com/example/shapes/Circle", "com/example/shapes/Square"]
    );
    // User subtypes of JDK types; the JDK's own only on request.
    let serializable = h
        .subtypes("java/io/Serializable", SubtypeScope::UserClasses)
        .unwrap();
    assert_eq!(serializable, vec!["com/example/extra/Ring"]);
}

#[test]
fn subtypes_with_the_jdk() {
    let h = hierarchy(&temurin25_home());
    let lists = h
        .subtypes("java/util/AbstractList", SubtypeScope::WithJdk)
        .unwrap();
    for class in [
        "java/util/ArrayList",
        "java/util/LinkedList",
        "java/util/Vector",
        "java/util/Stack",
    ] {
        assert!(lists.contains(&class.to_string()), "{class}");
    }
    let shapes = h
        .subtypes("java/lang/Comparable", SubtypeScope::WithJdk)
        .unwrap();
    assert!(shapes.contains(&"com/example/shapes/Circle".to_string()));
    assert!(shapes.contains(&"java/lang/String".to_string()));
}

#[test]
fn missing_supertype_names_both_classes() {
    // Only the jar: Ring extends com/example/shapes/Circle, which is in the directory.
    let jdk = Arc::new(JdkImage::open(&jdk17_home()).unwrap());
    let cp = Classpath::from_paths([&fixture().jar], Some(jdk)).unwrap();
    let h = Hierarchy::new(Arc::new(cp));
    let err = h
        .is_assignable("com/example/extra/Ring", "java/util/List")
        .unwrap_err();
    match &err {
        HierarchyError::MissingSupertype { class, supertype } => {
            assert_eq!(class.internal(), "com/example/extra/Ring");
            assert_eq!(supertype.internal(), "com/example/shapes/Circle");
        }
        other => panic!("expected MissingSupertype, got {other:?}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("com.example.extra.Ring") && message.contains("com.example.shapes.Circle")
    );
    // Answers that do not depend on the missing class still come.
    assert!(h
        .is_assignable("com/example/extra/Ring", "java/io/Serializable")
        .unwrap());
    assert!(h
        .is_assignable("com/example/extra/Ring", "java/lang/Object")
        .unwrap());
    assert!(h.superclasses("com/example/extra/Ring").is_err());
}
