//! Times reading and parsing every class of java.base from the JDK 17 jmods and from
//! Temurin 25's jimage (`cargo bench -p rivet-classpath`); prints classes, seconds and
//! classes per second, on one thread and on all cores.

use std::path::Path;
use std::time::Instant;

use rivet_classfile::ClassFile;
use rivet_classpath::{JdkClassEntry, JdkImage};

const JDK17_JMODS: &str = "/usr/lib/jvm/java-17-openjdk-amd64/jmods";
const TEMURIN25_MODULES: &str = "/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules";
const JDK17_MODULES: &str = "/usr/lib/jvm/java-17-openjdk-amd64/lib/modules";

/// Reads and parses `entries`; returns the number of classes that failed to parse.
fn read_and_parse(jdk: &JdkImage, entries: &[JdkClassEntry]) -> usize {
    let mut failures = 0;
    for entry in entries {
        let ok = jdk
            .read_entry(entry)
            .ok()
            .is_some_and(|bytes| ClassFile::parse(&bytes).is_ok());
        if !ok {
            failures += 1;
        }
    }
    failures
}

fn report(label: &str, classes: usize, seconds: f64) {
    println!(
        "{label:<44} {classes:>6} classes  {seconds:>7.3} s  {:>8.0} classes/s",
        classes as f64 / seconds
    );
}

fn bench(label: &str, open: impl Fn() -> Result<JdkImage, rivet_classpath::JdkError>) {
    let started = Instant::now();
    let jdk = match open() {
        Ok(jdk) => jdk,
        Err(e) => {
            println!("{label}: skipped ({e})");
            return;
        }
    };
    let entries = match jdk.module_class_entries("java.base") {
        Ok(entries) => entries,
        Err(e) => {
            println!("{label}: skipped ({e})");
            return;
        }
    };
    let listed = started.elapsed().as_secs_f64();

    let start = Instant::now();
    let failures = read_and_parse(&jdk, &entries);
    let one_thread = start.elapsed().as_secs_f64();

    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let start = Instant::now();
    let chunk = entries.len().div_ceil(threads).max(1);
    let parallel_failures: usize = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| s.spawn(|| read_and_parse(&jdk, part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(usize::MAX))
            .sum()
    });
    let parallel = start.elapsed().as_secs_f64();

    println!("{label}: open + list java.base {listed:.3} s, {failures} failure(s)");
    report(
        "  read + parse java.base, 1 thread",
        entries.len(),
        one_thread,
    );
    report(
        &format!("  read + parse java.base, {threads} threads"),
        entries.len(),
        parallel,
    );
    report(
        "  open + list + read + parse, 1 thread",
        entries.len(),
        listed + one_thread,
    );
    assert_eq!(parallel_failures, failures);
}

fn main() {
    bench("JDK 17 jmods", || {
        JdkImage::open_jmods(Path::new(JDK17_JMODS))
    });
    bench("Temurin 25 jimage", || {
        JdkImage::open_jimage(Path::new(TEMURIN25_MODULES))
    });
    bench("JDK 17 jimage", || {
        JdkImage::open_jimage(Path::new(JDK17_MODULES))
    });
}
