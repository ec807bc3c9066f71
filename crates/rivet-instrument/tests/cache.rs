//! The per-run cache: reused while inputs and configuration are unchanged, rebuilt otherwise;
//! bounded: a new entry makes the least recently used ones go, but not one a run holds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_classfile::ClassName;

use std::time::{Duration, SystemTime};

use rivet_instrument::{instrument_cached, CacheLimit, InstrumentConfig, ProbeScope};
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
    // A lease on the entry, by its lock file beside it.
    assert_eq!(
        first.lease.lock,
        root.join(format!(
            "{}.lock",
            first.dir.file_name().unwrap().to_string_lossy()
        ))
    );

    let second = instrument_cached(std::slice::from_ref(&input), &root, &config).unwrap();
    assert!(second.reused && second.report.is_none());
    assert_eq!(second.dir, first.dir);
    assert_eq!(second.probes, first.probes);

    // Another configuration: another directory.
    let scoped = InstrumentConfig {
        scope: ProbeScope::Classes(vec![ClassName::from_binary("sushi.Sample")]),
        threads: 1,
        ..InstrumentConfig::default()
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

#[test]
fn a_new_entry_evicts_the_least_recently_used_but_not_one_in_use() {
    let dir = scratch("cache-lru");
    let subjects = rivet_testkit::compiled_subjects(11);
    let input = dir.join("classes");
    for p in rivet_testkit::class_files(&subjects) {
        let rel = p.strip_prefix(&subjects).unwrap();
        if rel.starts_with("sushi") {
            std::fs::create_dir_all(input.join(rel).parent().unwrap()).unwrap();
            std::fs::copy(&p, input.join(rel)).unwrap();
        }
    }
    let root = dir.join("cache");
    // One entry per probed class: four configurations.
    let config = |class: &str| InstrumentConfig {
        scope: ProbeScope::Classes(vec![ClassName::from_binary(class)]),
        cache: CacheLimit {
            keep: 1,
            grace: Duration::ZERO,
        },
        ..InstrumentConfig::default()
    };
    let cached = |class: &str| {
        instrument_cached(std::slice::from_ref(&input), &root, &config(class)).unwrap()
    };
    let ledger = cached("sushi.Ledger");
    let process = cached("sushi.Process");
    // Ledger's entry is in use: it stays.
    assert!(ledger.dir.is_dir() && process.dir.is_dir());
    let (ledger_dir, process_dir) = (ledger.dir.clone(), process.dir.clone());
    drop(ledger);
    drop(process);
    // Neither is in use now: a new entry leaves only itself.
    let sample = cached("sushi.Sample");
    assert!(sample.dir.is_dir());
    assert!(!ledger_dir.exists() && !process_dir.exists());
    let entries: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    // Reusing an entry is no reason to evict.
    let again = cached("sushi.Sample");
    assert!(again.reused);
}
