//! The JDK's classes from JDK 17's jmods and Temurin 25's jimage (no jmods, JEP 493):
//! location, lookups, listings, and jimage compression.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{jdk17_home, temurin25_home};
use rivet_classfile::ClassFile;
use rivet_classpath::{JdkError, JdkFormat, JdkImage, Jimage, JimageError};

fn check_string(jdk: &JdkImage) {
    let string = jdk.find_class("java/lang/String").unwrap().unwrap();
    assert_eq!(string.module, "java.base");
    let cf = ClassFile::parse(&string.bytes).unwrap();
    assert_eq!(cf.name().unwrap(), "java/lang/String");
    assert_eq!(cf.super_name().unwrap(), Some("java/lang/Object"));
    assert!(cf
        .interface_names()
        .unwrap()
        .contains(&"java/lang/CharSequence"));
    assert!(cf.access_flags.is_public());

    let entry = jdk.find_class("java/util/Map$Entry").unwrap().unwrap();
    assert!(ClassFile::parse(&entry.bytes)
        .unwrap()
        .access_flags
        .is_interface());
    let sql = jdk.find_class("java/sql/Connection").unwrap().unwrap();
    assert_eq!(sql.module, "java.sql");
    assert!(jdk.find_class("java/lang/NoSuchClass").unwrap().is_none());
    assert!(jdk.find_class("com/example/Nope").unwrap().is_none());
    assert!(jdk.find_class("NoPackage").unwrap().is_none());
    assert!(jdk.find_class("[I").unwrap().is_none());
}

#[test]
fn jdk17_reads_jmods() {
    let jdk = JdkImage::open(&jdk17_home()).unwrap();
    assert_eq!(jdk.format(), JdkFormat::Jmods);
    assert_eq!(jdk.home(), Some(jdk17_home().as_path()));
    check_string(&jdk);
}

#[test]
fn temurin25_reads_the_jimage() {
    assert!(!temurin25_home().join("jmods").exists());
    let jdk = JdkImage::open(&temurin25_home()).unwrap();
    assert_eq!(jdk.format(), JdkFormat::Jimage);
    check_string(&jdk);
    let string = ClassFile::parse(&jdk.class_bytes("java/lang/String").unwrap().unwrap()).unwrap();
    assert_eq!(string.major_version, 69);
}

#[test]
fn jdk17_jimage_matches_its_jmods() {
    let jmods = JdkImage::open_jmods(&jdk17_home().join("jmods")).unwrap();
    let image = JdkImage::open_jimage(&jdk17_home().join("lib/modules")).unwrap();
    for class in [
        "java/lang/String",
        "java/util/ArrayList",
        "java/util/HashMap$Node",
    ] {
        assert_eq!(
            jmods.class_bytes(class).unwrap().unwrap(),
            image.class_bytes(class).unwrap().unwrap(),
            "{class}"
        );
    }
}

#[test]
fn class_listings_are_sorted_and_complete() {
    for home in [jdk17_home(), temurin25_home()] {
        let jdk = JdkImage::open(&home).unwrap();
        let home = home.display();
        let entries = jdk.class_entries().unwrap();
        assert!(entries.len() > 20_000, "{home}: {} classes", entries.len());
        assert!(entries
            .windows(2)
            .all(|w| (&w[0].module, &w[0].name) < (&w[1].module, &w[1].name)));
        assert!(entries.iter().all(|e| e.name != "module-info"));
        let base = jdk.module_class_entries("java.base").unwrap();
        assert!(base.len() > 5_000, "{home}: java.base has {}", base.len());
        assert!(base.iter().any(|e| e.name == "java/lang/Object"));
        let modules = jdk.modules().unwrap();
        assert!(modules.contains(&"java.base".to_string()), "{modules:?}");
        assert!(modules.contains(&"java.sql".to_string()), "{modules:?}");
    }
}

#[test]
fn locates_the_jdk_from_path_or_java_home() {
    let home = rivet_classpath::find_home().unwrap();
    if std::env::var_os("JAVA_HOME").is_none() {
        // `java` on PATH is /usr/bin/java, a chain of symbolic links into the JDK; the
        // home must be the JDK's, not /usr.
        assert!(home.join("bin/java").is_file(), "{}", home.display());
        assert!(
            home.join("jmods").is_dir() || home.join("lib/modules").is_file(),
            "{} is not a JDK home",
            home.display()
        );
    }
    let jdk = JdkImage::locate().unwrap();
    assert!(jdk.find_class("java/lang/Object").unwrap().is_some());
}

#[test]
fn not_a_jdk_is_an_error_naming_it() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("not-a-jdk");
    std::fs::create_dir_all(&dir).unwrap();
    let err = JdkImage::open(&dir).unwrap_err();
    assert!(matches!(err, JdkError::NoClasses { .. }), "{err:?}");
    assert!(err.to_string().contains(&dir.display().to_string()));

    let file = dir.join("modules");
    std::fs::write(&file, [0u8; 64]).unwrap();
    let err = Jimage::open(&file).unwrap_err();
    assert!(matches!(err, JimageError::BadMagic { .. }), "{err:?}");
    assert!(err.to_string().contains(&file.display().to_string()));
}

#[test]
fn temurin25_image_is_not_compressed() {
    let image = Jimage::open(&temurin25_home().join("lib/modules")).unwrap();
    let mut compressed = 0;
    for location in image.locations() {
        if location.unwrap().is_compressed() {
            compressed += 1;
        }
    }
    assert_eq!(compressed, 0);
    let located = image
        .find("/java.base/java/lang/String.class")
        .unwrap()
        .unwrap();
    assert_eq!(
        image.full_name(&located).unwrap(),
        "/java.base/java/lang/String.class"
    );
    assert_eq!(
        image.package_modules("java/lang").unwrap(),
        vec!["java.base"]
    );
    assert!(image
        .find("/java.base/java/lang/Strin.class")
        .unwrap()
        .is_none());
}

/// Builds a java.base-only image with JDK 17's jlink and the given `--compress` level.
fn jlink_image(level: &str) -> Option<PathBuf> {
    let jlink = jdk17_home().join("bin/jlink");
    if !jlink.exists() {
        eprintln!("no jlink; skipping");
        return None;
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("jlink-compress-{level}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(jlink)
        .args([
            "--add-modules",
            "java.base",
            "--compress",
            level,
            "--output",
        ])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "jlink --compress={level} failed");
    Some(out)
}

#[test]
fn zip_compressed_image_is_decompressed() {
    let Some(home) = jlink_image("2") else { return };
    let image = JdkImage::open_jimage(&home.join("lib/modules")).unwrap();
    let jmods = JdkImage::open_jmods(&jdk17_home().join("jmods")).unwrap();
    let raw = Jimage::open(&home.join("lib/modules")).unwrap();
    let located = raw
        .find("/java.base/java/lang/String.class")
        .unwrap()
        .unwrap();
    assert!(
        located.is_compressed(),
        "jlink --compress=2 left String uncompressed"
    );
    for class in ["java/lang/String", "java/util/ArrayList"] {
        assert_eq!(
            image.class_bytes(class).unwrap().unwrap(),
            jmods.class_bytes(class).unwrap().unwrap(),
            "{class}"
        );
    }
    let mut count = 0;
    for class in image.classes().unwrap() {
        ClassFile::parse(&class.unwrap().bytes).unwrap();
        count += 1;
    }
    assert!(count > 5_000);
    let _ = std::fs::remove_dir_all(home);
}

#[test]
fn string_sharing_compression_is_reported() {
    let Some(home) = jlink_image("1") else { return };
    let image = JdkImage::open_jimage(&home.join("lib/modules")).unwrap();
    let err = image.class_bytes("java/lang/String").unwrap_err();
    let message = err.to_string();
    assert!(
        matches!(
            err,
            JdkError::Jimage(JimageError::UnsupportedCompression { .. })
        ),
        "{message}"
    );
    assert!(
        message.contains("compact-cp") && message.contains("/java.base/java/lang/String.class"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(home);
}
