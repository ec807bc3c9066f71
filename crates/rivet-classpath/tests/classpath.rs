//! Classpaths of a class directory and a jar built from `javac` output: lookups, first
//! entry wins, JDK first, listings, caches, and the errors for missing and corrupt entries.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{fixture, jdk17_home};
use rivet_classpath::{ClassOrigin, Classpath, ClasspathError, EntryId, JdkImage, PATH_SEPARATOR};

fn user_classpath() -> Classpath {
    let f = fixture();
    let cp = format!("{}{PATH_SEPARATOR}{}", f.classes.display(), f.jar.display());
    Classpath::parse(&cp, None).unwrap()
}

#[test]
fn classpath_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Classpath>();
    assert_send_sync::<JdkImage>();
    assert_send_sync::<rivet_classpath::Hierarchy>();
}

#[test]
fn finds_classes_in_directory_and_jar() {
    let cp = user_classpath();
    let circle = cp.class_file("com/example/shapes/Circle").unwrap().unwrap();
    assert_eq!(circle.name().unwrap(), "com/example/shapes/Circle");
    assert_eq!(
        circle.super_name().unwrap(),
        Some("com/example/shapes/AbstractShape")
    );
    let builder = cp
        .class_file("com/example/shapes/Circle$Builder")
        .unwrap()
        .unwrap();
    assert_eq!(builder.name().unwrap(), "com/example/shapes/Circle$Builder");

    let ring = cp.find_class("com/example/extra/Ring").unwrap().unwrap();
    assert_eq!(ring.origin, ClassOrigin::Entry(EntryId(1)));
    assert!(ring
        .path
        .to_string_lossy()
        .ends_with("extra.jar!com/example/extra/Ring.class"));
    let ring = cp.class_file("com/example/extra/Ring").unwrap().unwrap();
    assert_eq!(
        ring.interface_names().unwrap(),
        vec!["java/io/Serializable"]
    );

    assert_eq!(cp.class_bytes("com/example/Nope").unwrap(), None);
    assert!(cp.class_file("com/example/Nope").unwrap().is_none());
    assert_eq!(cp.class_bytes("[I").unwrap(), None);
    assert_eq!(cp.class_bytes("../../etc/passwd").unwrap(), None);
    // Without a JDK there is no java.lang.Object.
    assert!(cp.class_file("java/lang/Object").unwrap().is_none());
}

#[test]
fn first_entry_wins() {
    let f = fixture();
    let dir_first = Classpath::from_paths([&f.classes, &f.jar], None).unwrap();
    let jar_first = Classpath::from_paths([&f.jar, &f.classes], None).unwrap();
    for cp in [&dir_first, &jar_first] {
        let dup = cp.find_class("com/example/Dup").unwrap().unwrap();
        assert_eq!(dup.origin, ClassOrigin::Entry(EntryId(0)));
        let shown = dup.path.to_string_lossy().into_owned();
        let first = cp.entries()[0].path().to_string_lossy().into_owned();
        assert!(shown.starts_with(&first), "{shown} is not from {first}");
    }
}

#[test]
fn parsed_classes_are_cached() {
    let cp = user_classpath();
    let a = cp.class_file("com/example/shapes/Square").unwrap().unwrap();
    let b = cp.class_file("com/example/shapes/Square").unwrap().unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let h1 = cp
        .class_header("com/example/shapes/Square")
        .unwrap()
        .unwrap();
    let h2 = cp
        .class_header("com/example/shapes/Square")
        .unwrap()
        .unwrap();
    assert!(Arc::ptr_eq(&h1, &h2));
    assert_eq!(
        h1.super_name.as_deref(),
        Some("com/example/shapes/AbstractShape")
    );
}

#[test]
fn lists_user_classes_sorted() {
    let cp = user_classpath();
    assert_eq!(
        cp.user_classes().unwrap(),
        vec![
            "com/example/Dup",
            "com/example/extra/Ring",
            "com/example/shapes/AbstractShape",
            "com/example/shapes/Circle",
            "com/example/shapes/Circle$Builder",
            "com/example/shapes/Shape",
            "com/example/shapes/Square",
            "com/example/shapes/sub/Tiny",
            "java/lang/String",
        ]
    );
    let shapes = vec![
        "com/example/shapes/AbstractShape",
        "com/example/shapes/Circle",
        "com/example/shapes/Circle$Builder",
        "com/example/shapes/Shape",
        "com/example/shapes/Square",
    ];
    assert_eq!(cp.package_classes("com.example.shapes").unwrap(), shapes);
    assert_eq!(cp.package_classes("com/example/shapes").unwrap(), shapes);
    assert_eq!(
        cp.package_classes("com.example.extra").unwrap(),
        vec!["com/example/extra/Ring"]
    );
    assert!(cp.package_classes("com.example.none").unwrap().is_empty());
}

#[test]
fn jdk_classes_come_first() {
    let jdk = Arc::new(JdkImage::open(&jdk17_home()).unwrap());
    let f = fixture();
    let cp = Classpath::from_paths([&f.classes], Some(jdk)).unwrap();
    // The decoy java/lang/String.class in the directory does not shadow the JDK's.
    let string = cp.find_class("java/lang/String").unwrap().unwrap();
    assert_eq!(
        string.origin,
        ClassOrigin::Jdk {
            module: "java.base".into()
        }
    );
    assert_eq!(
        cp.class_file("java/lang/String")
            .unwrap()
            .unwrap()
            .name()
            .unwrap(),
        "java/lang/String"
    );
    let linked = cp.class_file("java/util/LinkedList").unwrap().unwrap();
    assert_eq!(
        linked.super_name().unwrap(),
        Some("java/util/AbstractSequentialList")
    );
    let circle = cp.find_class("com/example/shapes/Circle").unwrap().unwrap();
    assert_eq!(circle.origin, ClassOrigin::Entry(EntryId(0)));
    // Listings leave the JDK out.
    assert!(cp
        .user_classes()
        .unwrap()
        .iter()
        .all(|n| n.starts_with("com/") || n == "java/lang/String"));
}

#[test]
fn class_under_the_wrong_path_is_an_error() {
    // The decoy java/lang/String.class holds com/example/Dup; read without a JDK.
    let f = fixture();
    let cp = Classpath::from_paths([&f.classes], None).unwrap();
    let err = cp.class_file("java/lang/String").unwrap_err();
    assert!(matches!(err, ClasspathError::WrongName { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("com/example/Dup") && message.contains("java/lang/String"),
        "{message}"
    );
}

#[test]
fn missing_entry_is_an_error_naming_it() {
    let f = fixture();
    let missing = f.root.join("no-such-dir");
    let cp = format!(
        "{}{PATH_SEPARATOR}{}",
        f.classes.display(),
        missing.display()
    );
    let err = Classpath::parse(&cp, None).unwrap_err();
    match &err {
        ClasspathError::MissingEntry { path } => assert_eq!(path, &missing),
        other => panic!("expected MissingEntry, got {other:?}"),
    }
    assert!(err.to_string().contains(&missing.display().to_string()));
}

#[test]
fn corrupt_jar_is_an_error_naming_it() {
    let f = fixture();
    let bogus = f.root.join("bogus.jar");
    std::fs::write(&bogus, b"this is not a zip file at all").unwrap();
    let err = Classpath::from_paths([&bogus], None).unwrap_err();
    assert!(matches!(err, ClasspathError::CorruptJar { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&bogus.display().to_string()),
        "{err}"
    );
}

#[test]
fn bad_class_file_error_names_class_and_path() {
    let f = fixture();
    let dir = f.root.join("broken");
    std::fs::create_dir_all(dir.join("x")).unwrap();
    std::fs::write(
        dir.join("x/Broken.class"),
        [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52, 0],
    )
    .unwrap();
    let cp = Classpath::from_paths([&dir], None).unwrap();
    let err = cp.class_file("x/Broken").unwrap_err();
    assert!(matches!(err, ClasspathError::BadClass { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("x/Broken") && message.contains("Broken.class"),
        "{message}"
    );
}

#[test]
fn wildcard_element_adds_the_jars_of_a_directory() {
    let f = fixture();
    let dir = f.root.join("libs");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(&f.jar, dir.join("a.jar")).unwrap();
    let cp = Classpath::parse(&format!("{}/*", dir.display()), None).unwrap();
    assert_eq!(cp.entries().len(), 1);
    assert!(cp.class_file("com/example/extra/Ring").unwrap().is_some());
}

#[test]
fn lookups_from_many_threads() {
    let cp = Arc::new(user_classpath());
    let names = cp.user_classes().unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for name in names.iter().filter(|n| n.starts_with("com/")) {
                    assert!(cp.class_file(name).unwrap().is_some(), "{name}");
                }
            });
        }
    });
}
