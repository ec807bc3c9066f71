//! Emission is type-correct by construction: random test cases over the APIs of real Debian
//! jars (generic collections, nested and inner classes, arrays of every kind, varargs), built
//! by the same generator the search uses and emitted as JUnit 5 classes, all compile with
//! javac. No JVM runs the tests: this is about the Java text alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use rivet_api::{AccessMode, ApiModel, GenConfig, Generator, Rng};
use rivet_classpath::{Classpath, JdkImage};
use rivet_engine::finish::test_class;
use rivet_engine::ClassPlan;
use rivet_instrument::{plan_class, ProbeMap};
use rivet_junit::{emit, ExpectedExceptions, JUnitVersion};
use rivet_testcase::GeneratedTest;

/// Tests generated per class.
const TESTS: usize = 60;

/// The class's plan, as `rivet generate` builds it (its nested classes' branches included).
fn plan(cp: &Arc<Classpath>, class: &str) -> ClassPlan {
    let model = ApiModel::build(
        cp.clone(),
        &rivet_classfile::ClassName::from_binary(class),
        None,
        AccessMode::SamePackage,
    )
    .expect("model");
    let internal = class.replace('.', "/");
    let package = internal.rsplit_once('/').map_or("", |(p, _)| p);
    let mut names: Vec<String> = cp
        .package_classes(package)
        .expect("list")
        .into_iter()
        .filter(|c| c.starts_with(&format!("{internal}$")))
        .collect();
    names.insert(0, internal);
    let plans: Vec<_> = names
        .iter()
        .map(|c| plan_class(&cp.class_file(c).expect("read").expect("found")).expect("plan"))
        .collect();
    let probes = ProbeMap::assign(&plans).expect("assign").0;
    ClassPlan::build(cp, model, (None, &[]), &probes).expect("class plan")
}

/// Emits `TESTS` random tests of `class` (seeded by `seed`) and compiles them against `jars`;
/// javac's errors, each with the line it names.
fn compile_errors(jars: &[&str], class: &str, seed: u64) -> Vec<String> {
    let paths: Vec<PathBuf> = jars.iter().map(|j| rivet_testkit::debian_jar(j)).collect();
    let jdk = Arc::new(JdkImage::locate().expect("a JDK"));
    let cp = Arc::new(Classpath::from_paths(paths.clone(), Some(jdk)).expect("classpath"));
    let plan = plan(&cp, class);
    let generator = Generator::new(&plan.model, GenConfig::default());
    let mut rng = Rng::new(seed);
    let generated: Vec<GeneratedTest> = (0..TESTS)
        .map(|i| GeneratedTest {
            test: generator.random_test(&mut rng, 1 + i % 6),
            goals: vec![],
            assertions: vec![],
        })
        .collect();
    let emitted = emit(&test_class(
        &plan,
        &generated,
        (JUnitVersion::Five, ExpectedExceptions::AssertThrows),
    ));
    let dir = rivet_testkit::cache_dir().join(format!("emission-compiles-{class}"));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src").join(emitted.relative_path());
    std::fs::create_dir_all(src.parent().unwrap()).unwrap();
    std::fs::write(&src, &emitted.source).unwrap();
    let mut classpath: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    for j in [
        "junit-jupiter-api",
        "apiguardian-api",
        "opentest4j",
        "junit-platform-commons",
    ] {
        classpath.push(rivet_testkit::debian_jar(j).display().to_string());
    }
    let javac = rivet_testkit::Jdk::Jdk17.home().join("bin/javac");
    let out = Command::new(javac)
        .args(["-nowarn", "-Xmaxerrs", "1000", "-d"])
        .arg(dir.join("classes"))
        .arg("-cp")
        .arg(classpath.join(":"))
        .arg(&src)
        .output()
        .expect("run javac");
    if out.status.success() {
        return Vec::new();
    }
    let lines: Vec<&str> = emitted.source.lines().collect();
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(": error: "))
        .map(|l| {
            let line: usize = l
                .split(':')
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            let text = lines.get(line.wrapping_sub(1)).copied().unwrap_or("");
            format!("{l}\n    {}", text.trim())
        })
        .collect()
}

fn compiles(jars: &[&str], classes: &[&str]) {
    let mut errors = Vec::new();
    for class in classes {
        for seed in [1, 2] {
            errors.extend(compile_errors(jars, class, seed));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn random_tests_over_commons_collections_compile() {
    compiles(
        &["commons-collections4"],
        &[
            "org.apache.commons.collections4.map.MultiKeyMap",
            "org.apache.commons.collections4.bidimap.TreeBidiMap",
            "org.apache.commons.collections4.bidimap.DualTreeBidiMap",
            "org.apache.commons.collections4.trie.PatriciaTrie",
            "org.apache.commons.collections4.map.LinkedMap",
            "org.apache.commons.collections4.list.CursorableLinkedList",
            "org.apache.commons.collections4.multiset.HashMultiSet",
        ],
    );
}

#[test]
fn random_tests_over_commons_lang_text_and_compress_compile() {
    compiles(
        &["commons-lang3", "commons-text", "commons-compress"],
        &[
            "org.apache.commons.lang3.ArrayUtils",
            "org.apache.commons.lang3.Range",
            "org.apache.commons.lang3.tuple.MutablePair",
            "org.apache.commons.text.StringSubstitutor",
            "org.apache.commons.compress.archivers.zip.ZipArchiveEntry",
        ],
    );
}

#[test]
fn random_tests_over_guava_compile() {
    compiles(
        &["guava"],
        &[
            "com.google.common.collect.TreeMultiset",
            "com.google.common.collect.LinkedListMultimap",
            "com.google.common.math.IntMath",
        ],
    );
}
