//! Every class of the JDK 17 and Temurin 25 jmods on this machine parses and writes back byte-identically.

use rivet_classfile::ClassFile;
use std::io::Read;
use std::path::Path;

/// Parses and re-writes every class in every jmod under `jdk/jmods`; returns (classes, failures).
fn round_trip_jdk(jdk: &Path) -> (usize, Vec<String>) {
    let mut classes = 0;
    let mut failures = Vec::new();
    let dir = jdk.join("jmods");
    let mut jmods: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jmod"))
        .collect();
    jmods.sort();
    assert!(!jmods.is_empty(), "no jmods in {}", dir.display());
    for jmod in jmods {
        let bytes = std::fs::read(&jmod).unwrap();
        assert_eq!(&bytes[..2], b"JM", "{}", jmod.display());
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&bytes[4..])).unwrap();
        for i in 0..zip.len() {
            let mut entry = zip.by_index(i).unwrap();
            let name = entry.name().to_string();
            if !name.starts_with("classes/") || !name.ends_with(".class") {
                continue;
            }
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            classes += 1;
            match ClassFile::parse(&data) {
                Err(e) => failures.push(format!("{}!{name}: parse: {e}", jmod.display())),
                Ok(cf) => match cf.to_bytes() {
                    Err(e) => failures.push(format!("{}!{name}: write: {e}", jmod.display())),
                    Ok(out) if out != data => {
                        let at = out.iter().zip(&data).position(|(a, b)| a != b);
                        failures.push(format!(
                            "{}!{name}: round trip differs (first difference at byte {at:?}, lengths {} vs {})",
                            jmod.display(),
                            out.len(),
                            data.len()
                        ))
                    }
                    Ok(_) => {}
                },
            }
        }
    }
    (classes, failures)
}

fn check(jdk: &str, min_classes: usize) {
    let (classes, failures) = round_trip_jdk(Path::new(jdk));
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(classes >= min_classes, "only {classes} classes found in {jdk}");
    assert_eq!(failures.len(), 0, "{} of {classes} classes failed", failures.len());
}

#[test]
fn jdk17_jmods_round_trip() {
    check("/usr/lib/jvm/java-17-openjdk-amd64", 20_000);
}

#[test]
fn temurin25_jmods_round_trip() {
    check("/usr/lib/jvm/temurin-25-jdk-amd64", 20_000);
}
