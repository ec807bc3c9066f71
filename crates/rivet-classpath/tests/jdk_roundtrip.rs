//! Every class of JDK 17 (read from its jmods) and of Temurin 25 (read from its jimage, as
//! it has no jmods) parses with `ClassFile::parse` and writes back byte-identically.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{jdk17_home, temurin25_home};
use rivet_classfile::ClassFile;
use rivet_classpath::{JdkFormat, JdkImage};

/// Parses and re-writes every class of the JDK; returns (classes, failures).
fn round_trip(jdk: &JdkImage) -> (usize, Vec<String>) {
    let mut classes = 0;
    let mut failures = Vec::new();
    for class in jdk.classes().unwrap() {
        let class = match class {
            Ok(class) => class,
            Err(e) => {
                failures.push(format!("read: {e}"));
                continue;
            }
        };
        classes += 1;
        let label = format!("{}/{}", class.module, class.name);
        match ClassFile::parse(&class.bytes) {
            Err(e) => failures.push(format!("{label}: parse: {e}")),
            Ok(cf) => match cf.to_bytes() {
                Err(e) => failures.push(format!("{label}: write: {e}")),
                Ok(out) if out != class.bytes => {
                    let at = out.iter().zip(&class.bytes).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{label}: round trip differs (first difference at byte {at:?}, lengths {} vs {})",
                        out.len(),
                        class.bytes.len()
                    ));
                }
                Ok(_) => {}
            },
        }
    }
    (classes, failures)
}

fn check(home: &Path, format: JdkFormat) {
    let jdk = JdkImage::open(home).unwrap();
    let home = home.display();
    assert_eq!(jdk.format(), format, "{home}");
    let (classes, failures) = round_trip(&jdk);
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    eprintln!("{home}: {classes} classes, {} failures", failures.len());
    assert!(classes >= 20_000, "only {classes} classes found in {home}");
    assert_eq!(
        failures.len(),
        0,
        "{} of {classes} classes failed",
        failures.len()
    );
}

#[test]
fn jdk17_jmods_round_trip() {
    check(&jdk17_home(), JdkFormat::Jmods);
}

#[test]
fn temurin25_jimage_round_trip() {
    check(&temurin25_home(), JdkFormat::Jimage);
}
