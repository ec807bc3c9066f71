//! Broken class files through `rivet generate` and `rivet explore`: each run ends, within a
//! time limit, with exit 0 (and its output) or exit 2 (and one error line naming the class),
//! never a panic, a crash or a hang. CI runs a seeded sample of mutants of the subjects
//! (truncations, overwritten bytes, bad versions, bad constant-pool indexes); set
//! `RIVET_FUZZ_CORPUS=DIR` to run every file of a corpus as well (e.g. the one
//! crates/rivet-classfile/fuzz/seed.sh builds).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The workspace's seeded generator, so that the sample is the same on every run.
use rivet_rng::SplitMix as Rng;

fn mutate(bytes: &[u8], kind: usize, rng: &mut Rng) -> Vec<u8> {
    let mut d = bytes.to_vec();
    let len = d.len();
    let at = |rng: &mut Rng| 10 + rng.below(len - 10);
    match kind % 5 {
        0 => d.truncate(at(rng)),
        1 => {
            for _ in 0..4 {
                let p = at(rng);
                d[p] = rng.next_u64() as u8;
            }
        }
        2 => {
            let p = at(rng).min(d.len() - 2);
            d[p] = 0xFF;
            d[p + 1] = 0xFF;
        }
        3 => {
            // Major version: too old, too new.
            d[7] = [44u8, 70, 99][rng.below(3)];
        }
        _ => {
            let p = at(rng);
            d.insert(p, rng.next_u64() as u8);
        }
    }
    d
}

/// Runs rivet with a time limit; its exit code (None when killed) and stderr.
fn run(args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rivet"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut e, &mut err);
            }
            return (status.code(), err);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return (None, String::from("(killed: it did not end in time)"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Puts `bytes` as the class file of `class` (binary name) in a fresh directory and runs
/// generate and explore on it.
fn check(root: &Path, n: usize, class: &str, method: &str, bytes: &[u8]) {
    let dir = root.join(format!("m{n}"));
    let file = dir.join(format!("{}.class", class.replace('.', "/")));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, bytes).unwrap();
    let cp = dir.display().to_string();
    let out = root.join(format!("out{n}")).display().to_string();
    let limit = Duration::from_secs(90);
    let generate = [
        "generate",
        "--classpath",
        &cp,
        "--class",
        class,
        "--out",
        &out,
        "--budget",
        "2",
    ];
    let spec = format!("{class}.{method}");
    let explore = [
        "explore",
        "--classpath",
        &cp,
        "--method",
        &spec,
        "--budget",
        "2",
    ];
    for args in [&generate[..], &explore[..]] {
        let (code, err) = run(args, limit);
        assert!(
            matches!(code, Some(0) | Some(2)),
            "mutant {n} ({class}), rivet {}: exit {code:?}\n{err}",
            args[0]
        );
        assert!(!err.contains("panicked"), "mutant {n}: {err}");
        if code == Some(2) {
            let errors: Vec<&str> = err
                .lines()
                .filter(|l| l.starts_with("rivet: error:"))
                .collect();
            assert_eq!(errors.len(), 1, "mutant {n}: {err}");
        }
    }
}

#[test]
fn broken_class_files_end_in_a_report_or_a_clear_error() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let root = tempfile::tempdir().unwrap();
    let cases = [
        ("structures.AvlTree", "insert(I)Z"),
        ("lct.Examples", "figure1(II)I"),
        ("sushi.Sample", "<init>()V"),
    ];
    let mut rng = Rng::new(20261124);
    let mut n = 0;
    for (class, method) in cases {
        let original =
            std::fs::read(subjects.join(format!("{}.class", class.replace('.', "/")))).unwrap();
        for kind in 0..5 {
            let mutant = mutate(&original, kind, &mut rng);
            check(root.path(), n, class, method, &mutant);
            n += 1;
        }
    }
    if let Some(corpus) = std::env::var_os("RIVET_FUZZ_CORPUS").map(PathBuf::from) {
        for entry in std::fs::read_dir(&corpus).unwrap() {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            let class = rivet_classfile::ClassFile::parse(&bytes)
                .ok()
                .and_then(|cf| cf.name().ok().map(|c| c.replace('/', ".")))
                .unwrap_or_else(|| "Fuzz".to_string());
            check(root.path(), n, &class, "m()V", &bytes);
            n += 1;
        }
    }
}
