//! The per-run cache: reused while inputs and configuration are unchanged, rebuilt otherwise.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_classfile::ClassName;

use std::time::{Duration, SystemTime};

use rivet_instrument::{instrument_cached, InstrumentConfig, ProbeScope};
use support::scratch;

#[test]
fn cache_is_reused_until_an_input_changes() {
    let dir = scratch("cache");
    let input = dir.join("classes");
    let subjects = rivet_testkit::compiled_subjects(11);
    for p in rivet_testkit::class_files(&subjects) {
        let rel = p.strip_prefix(&subjects).unwrap();
        std::fs::create_dir_all(input.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(&p, input.join(rel)).unwrap();
    }
    let root = dir.join("cache");
    let config = InstrumentConfig::default();
    let first = instrument_cached(std::slice::from_ref(&input), &root, &config).unwrap();
    assert!(!first.reused && first.report.is_some());
    assert!(first.dir.join("structures/AvlTree.class").is_file());
    assert!(first.dir.join("rivet/runtime/Probes.class").is_file());

    let second = instrument_cached(std::slice::from_ref(&input), &root, &config).unwrap();
    assert!(second.reused && second.report.is_none());
    assert_eq!(second.dir, first.dir);
    assert_eq!(second.probes, first.probes);

    // Another configuration: another directory.
    let scoped = InstrumentConfig {
        scope: ProbeScope::Classes(vec![ClassName::from_binary("sushi.Sample")]),
        threads: 1,
    };
    let third = instrument_cached(std::slice::from_ref(&input), &root, &scoped).unwrap();
    assert!(!third.reused);
    assert_ne!(third.dir, first.dir);
    assert_eq!(third.probes.classes().len(), 1);

    // A class file changes (new modification time): instrumented again.
    let f = std::fs::File::options()
        .write(true)
        .open(input.join("sushi/Sample.class"))
        .unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(f);
    let fourth = instrument_cached(std::slice::from_ref(&input), &root, &config).unwrap();
    assert!(!fourth.reused);
    assert_ne!(fourth.dir, first.dir);
    assert_eq!(fourth.probes, first.probes);

    // A half-written directory of the same name (no key file) is rebuilt, not reused.
    std::fs::remove_file(fourth.dir.join("rivet-cache.key")).unwrap();
    let fifth = instrument_cached(std::slice::from_ref(&input), &root, &config).unwrap();
    assert!(!fifth.reused);
    assert_eq!(fifth.dir, fourth.dir);
    assert!(fifth.dir.join("rivet-cache.key").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
