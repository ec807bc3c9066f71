//! Times reading and parsing every class of java.base from the JDK 17 jmods and from
//! Temurin 25's jimage (`cargo bench -p rivet-classpath`); prints classes, seconds (wall
//! clock, and on Linux the thread's CPU time, which other load on the machine does not
//! inflate) and classes per second, on one thread and on all cores.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::time::Instant;

use rivet_classfile::ClassFile;
use rivet_classpath::{JdkClassEntry, JdkImage};

const JDK17_JMODS: &str = "/usr/lib/jvm/java-17-openjdk-amd64/jmods";
const TEMURIN25_MODULES: &str = "/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules";
const JDK17_MODULES: &str = "/usr/lib/jvm/java-17-openjdk-amd64/lib/modules";

/// CPU time of the calling thread in seconds (Linux), if known.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e9)
}

/// Wall-clock and thread CPU time since creation.
struct Timer {
    wall: Instant,
    cpu: Option<f64>,
}

impl Timer {
    fn start() -> Timer {
        Timer {
            wall: Instant::now(),
            cpu: thread_cpu_seconds(),
        }
    }

    fn report(&self, label: &str, classes: usize) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu, thread_cpu_seconds()) {
            (Some(a), Some(b)) => format!("{:>6.3} s cpu", b - a),
            _ => "     - s cpu".to_string(),
        };
        println!(
            "  {label:<34} {classes:>6} classes {wall:>7.3} s wall {cpu} {:>8.0} classes/s",
            classes as f64 / wall
        );
    }
}

/// Reads and parses `entries`; returns the number of classes that failed.
fn read_and_parse(jdk: &JdkImage, entries: &[JdkClassEntry]) -> usize {
    entries
        .iter()
        .filter(|entry| {
            !jdk.read_entry(entry)
                .is_ok_and(|bytes| ClassFile::parse(&bytes).is_ok())
        })
        .count()
}

fn bench(label: &str, open: impl Fn() -> Result<JdkImage, rivet_classpath::JdkError>) {
    let timer = Timer::start();
    let (jdk, entries) = match open().and_then(|jdk| {
        let entries = jdk.module_class_entries("java.base")?;
        Ok((jdk, entries))
    }) {
        Ok(opened) => opened,
        Err(e) => {
            println!("{label}: skipped ({e})");
            return;
        }
    };
    println!("{label}:");
    timer.report("open + list java.base", entries.len());

    let timer = Timer::start();
    let classes: Vec<Vec<u8>> = entries
        .iter()
        .filter_map(|e| jdk.read_entry(e).ok())
        .collect();
    timer.report("read only", classes.len());
    let bytes: usize = classes.iter().map(Vec::len).sum();

    let timer = Timer::start();
    let parsed = classes
        .iter()
        .filter(|c| ClassFile::parse(c).is_ok())
        .count();
    timer.report("parse only", parsed);
    drop(classes);

    let timer = Timer::start();
    let failures = read_and_parse(&jdk, &entries);
    timer.report("read + parse, 1 thread", entries.len());

    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = entries.len().div_ceil(threads).max(1);
    // The calling thread only waits here: report wall-clock time alone.
    let timer = Timer {
        wall: Instant::now(),
        cpu: None,
    };
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
    timer.report(&format!("read + parse, {threads} threads"), entries.len());
    println!(
        "  {:.1} MB of class files, {failures} failure(s)",
        bytes as f64 / 1e6
    );
    assert_eq!(failures, 0);
    assert_eq!(parallel_failures, 0);
}

fn main() {
    bench("JDK 17 jmods", || {
        JdkImage::open_jmods(Path::new(JDK17_JMODS))
    });
    bench("Temurin 25 jimage (lib/modules)", || {
        JdkImage::open_jimage(Path::new(TEMURIN25_MODULES))
    });
    bench("JDK 17 jimage (lib/modules)", || {
        JdkImage::open_jimage(Path::new(JDK17_MODULES))
    });
}
