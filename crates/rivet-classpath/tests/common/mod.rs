//! Test fixtures: Java sources compiled once with JDK 17's `javac` into a class directory
//! and a jar, and the homes of the two JDKs (`$RIVET_JDK17`, `$RIVET_JDK25` or their
//! default paths, as rivet-testkit says).

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rivet_testkit::Jdk;

/// JDK 17's home: it has `jmods`.
pub fn jdk17_home() -> PathBuf {
    Jdk::Jdk17.home()
}

/// Temurin 25's home: no `jmods`, only `lib/modules`.
pub fn temurin25_home() -> PathBuf {
    Jdk::Jdk25.home()
}

/// The compiled fixture: `classes` holds package `com.example.shapes` (and a decoy
/// `java/lang/String.class`); `jar` holds package `com.example.extra`. `com/example/Dup`
/// is in both.
pub struct Fixture {
    pub root: PathBuf,
    pub classes: PathBuf,
    pub jar: PathBuf,
}

const SOURCES: &[(&str, &str)] = &[
    (
        "com/example/shapes/Shape.java",
        "package com.example.shapes; public interface Shape { double area(); }",
    ),
    (
        "com/example/shapes/AbstractShape.java",
        "package com.example.shapes;
         public abstract class AbstractShape implements Shape, Comparable<AbstractShape> {
             public int compareTo(AbstractShape o) { return Double.compare(area(), o.area()); }
         }",
    ),
    (
        "com/example/shapes/Circle.java",
        "package com.example.shapes;
         public class Circle extends AbstractShape {
             final double r;
             public Circle(double r) { this.r = r; }
             public double area() { return Math.PI * r * r; }
             public static class Builder { double r; public Circle build() { return new Circle(r); } }
         }",
    ),
    (
        "com/example/shapes/Square.java",
        "package com.example.shapes;
         public final class Square extends AbstractShape {
             public double area() { return 1; }
         }",
    ),
    (
        "com/example/shapes/sub/Tiny.java",
        "package com.example.shapes.sub; public class Tiny {}",
    ),
    (
        "com/example/Dup.java",
        "package com.example; public class Dup {}",
    ),
    (
        "com/example/extra/Ring.java",
        "package com.example.extra;
         public class Ring extends com.example.shapes.Circle implements java.io.Serializable {
             public Ring() { super(2); }
         }",
    ),
];

/// Compiles the fixture once per test process.
pub fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(build_fixture)
}

fn build_fixture() -> Fixture {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("rivet-classpath-fixture-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let src = root.join("src");
    let out = root.join("out");
    let mut files = Vec::new();
    for (path, text) in SOURCES {
        let file = src.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        files.push(file);
    }
    rivet_testkit::javac(Jdk::Jdk17, 17, "", &files, &out);

    // Directory entry: everything but com/example/extra, plus a decoy java/lang/String.
    let classes = root.join("classes");
    copy_tree(&out, &classes);
    std::fs::remove_dir_all(classes.join("com/example/extra")).unwrap();
    std::fs::create_dir_all(classes.join("java/lang")).unwrap();
    std::fs::copy(
        out.join("com/example/Dup.class"),
        classes.join("java/lang/String.class"),
    )
    .unwrap();

    // Jar entry: com/example/extra and com/example/Dup, plus a manifest and a
    // multi-release entry that listings must leave out.
    let jar = root.join("extra.jar");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
    let deflated = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("META-INF/MANIFEST.MF", deflated).unwrap();
    zip.write_all(b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n")
        .unwrap();
    zip.add_directory("com/example/extra/", stored).unwrap();
    for (name, options) in [
        ("com/example/extra/Ring.class", deflated),
        ("com/example/Dup.class", stored),
    ] {
        zip.start_file(name, options).unwrap();
        zip.write_all(&std::fs::read(out.join(name)).unwrap())
            .unwrap();
    }
    zip.start_file(
        "META-INF/versions/11/com/example/extra/Ring.class",
        deflated,
    )
    .unwrap();
    zip.write_all(&std::fs::read(out.join("com/example/extra/Ring.class")).unwrap())
        .unwrap();
    zip.finish().unwrap();

    Fixture { root, classes, jar }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
