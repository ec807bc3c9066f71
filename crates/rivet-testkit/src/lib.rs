//! Test support shared by Rivet's crates: the bundled Java subjects compiled with a chosen javac and
//! `--release`, the JDKs on this machine, and JaCoCo 0.8.6's branch counts as a reference.
//!
//! Only tests and benches use this crate; it panics with a clear message when a tool is missing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crate lives at crates/<name>")
        .to_path_buf()
}

/// Where test artifacts are cached (under the cargo target directory).
pub fn cache_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    let dir = target.join("rivet-testkit");
    std::fs::create_dir_all(&dir).expect("create target/rivet-testkit");
    dir
}

/// A JDK whose javac compiles fixtures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jdk {
    /// JDK 17: `$RIVET_JDK17`, else /usr/lib/jvm/java-17-openjdk-amd64.
    Jdk17,
    /// JDK 25: `$RIVET_JDK25`, else /usr/lib/jvm/temurin-25-jdk-amd64.
    Jdk25,
}

impl Jdk {
    pub fn home(self) -> PathBuf {
        let (var, default) = match self {
            Jdk::Jdk17 => ("RIVET_JDK17", "/usr/lib/jvm/java-17-openjdk-amd64"),
            Jdk::Jdk25 => ("RIVET_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64"),
        };
        let home = std::env::var_os(var)
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(default));
        assert!(
            home.join("bin/javac").exists(),
            "{} has no bin/javac; set {var} to a JDK home",
            home.display()
        );
        home
    }

    /// The JDK able to compile for `release`.
    pub fn for_release(release: u32) -> Jdk {
        if release <= 17 {
            Jdk::Jdk17
        } else {
            Jdk::Jdk25
        }
    }
}

/// The bundled subjects' sources (`subjects/src`).
pub fn subject_sources() -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(&repo_root().join("subjects/src"), "java", &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            collect(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// All `.class` files under a directory, sorted.
pub fn class_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, "class", &mut out);
    out.sort();
    out
}

/// Compiles sources with `javac --release N -g` into `out` (replacing it).
pub fn javac(jdk: Jdk, release: u32, classpath: &str, sources: &[PathBuf], out: &Path) {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).expect("create javac output dir");
    let mut cmd = Command::new(jdk.home().join("bin/javac"));
    cmd.arg("--release")
        .arg(release.to_string())
        .arg("-g")
        .arg("-nowarn")
        .arg("-d")
        .arg(out);
    if !classpath.is_empty() {
        cmd.arg("-cp").arg(classpath);
    }
    let status = cmd
        .args(sources)
        .status()
        .unwrap_or_else(|e| panic!("running javac of {jdk:?}: {e}"));
    assert!(status.success(), "javac --release {release} failed");
}

/// Runs `f` to build `dir` once per process tree: later callers (other test binaries running at
/// the same time) wait for the first and reuse its result.
fn build_once(dir: &Path, f: impl FnOnce(&Path)) -> PathBuf {
    let done = dir.with_extension("done");
    if done.exists() {
        return dir.to_path_buf();
    }
    let lock = dir.with_extension("lock");
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(_) => break,
            Err(_) if done.exists() => return dir.to_path_buf(),
            Err(_) => {
                // Stale locks (a killed run) expire after two minutes.
                let stale = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .map(|t| t.elapsed().unwrap_or_default().as_secs() > 120)
                    .unwrap_or(false);
                if stale {
                    let _ = std::fs::remove_file(&lock);
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
    if !done.exists() {
        f(dir);
        std::fs::write(&done, b"").expect("mark build done");
    }
    let _ = std::fs::remove_file(&lock);
    dir.to_path_buf()
}

/// The bundled subjects compiled with `--release N` (JDK 17's javac up to 17, else JDK 25's), cached.
pub fn compiled_subjects(release: u32) -> PathBuf {
    // Keyed by the sources' names and contents, so that adding or editing a subject rebuilds.
    let sources = subject_sources();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in &sources {
        std::hash::Hash::hash(p, &mut h);
        std::hash::Hash::hash(&std::fs::read(p).unwrap_or_default(), &mut h);
    }
    let key = std::hash::Hasher::finish(&h);
    let dir = cache_dir().join(format!("subjects-{release}-{key:016x}"));
    build_once(&dir, |d| {
        javac(Jdk::for_release(release), release, "", &sources, d)
    })
}

/// A jar installed by Debian under /usr/share/java, e.g. `commons-lang3`.
pub fn debian_jar(name: &str) -> PathBuf {
    let p = PathBuf::from(format!("/usr/share/java/{name}.jar"));
    assert!(
        p.exists(),
        "{} is missing: run .ci/run (it installs the Debian Java packages) or apt-get install the package",
        p.display()
    );
    p
}

/// Per-method branch totals, keyed by (binary class name, method name, descriptor).
pub type BranchCounts = BTreeMap<(String, String, String), u32>;

/// JaCoCo 0.8.6's branch totals for every method of the classes in the given dirs and jars.
pub fn jacoco_branch_counts(inputs: &[&Path]) -> BranchCounts {
    let jacoco = ["org.jacoco.core", "asm", "asm-commons", "asm-tree"]
        .iter()
        .map(|j| debian_jar(j).display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let tool = build_once(&cache_dir().join("jacoco-branches"), |d| {
        let src = repo_root().join("tools/jacoco-branches/JacocoBranches.java");
        let _ = std::fs::remove_dir_all(d);
        std::fs::create_dir_all(d).expect("create tool dir");
        let status = Command::new(Jdk::Jdk17.home().join("bin/javac"))
            .arg("-cp")
            .arg(&jacoco)
            .arg("-d")
            .arg(d)
            .arg(src)
            .status()
            .expect("javac for JacocoBranches");
        assert!(status.success(), "compiling JacocoBranches failed");
    });
    let out = Command::new(Jdk::Jdk17.home().join("bin/java"))
        .arg("-cp")
        .arg(format!("{jacoco}:{}", tool.display()))
        .arg("JacocoBranches")
        .args(inputs)
        .output()
        .expect("running JacocoBranches");
    assert!(
        out.status.success(),
        "JacocoBranches failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_counts(&String::from_utf8_lossy(&out.stdout), 3)
}

/// What each of JaCoCo's probes covers in the named classes of `classes_dir`, as
/// tools/jacoco-branches/JacocoProbes.java prints it (`total` and `hit` rows).
pub fn jacoco_probe_hits(classes_dir: &Path, classes: &[&str]) -> String {
    let jacoco = ["org.jacoco.core", "asm", "asm-commons", "asm-tree"]
        .iter()
        .map(|j| debian_jar(j).display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let tool = build_once(&cache_dir().join("jacoco-probes"), |d| {
        let src = repo_root().join("tools/jacoco-branches/JacocoProbes.java");
        let _ = std::fs::remove_dir_all(d);
        std::fs::create_dir_all(d).expect("create tool dir");
        let status = Command::new(Jdk::Jdk17.home().join("bin/javac"))
            .args(["-nowarn", "-cp"])
            .arg(&jacoco)
            .arg("-d")
            .arg(d)
            .arg(src)
            .status()
            .expect("javac for JacocoProbes");
        assert!(status.success(), "compiling JacocoProbes failed");
    });
    let out = Command::new(Jdk::Jdk17.home().join("bin/java"))
        .arg("-cp")
        .arg(format!("{jacoco}:{}", tool.display()))
        .arg("JacocoProbes")
        .arg(classes_dir)
        .args(classes)
        .output()
        .expect("running JacocoProbes");
    assert!(
        out.status.success(),
        "JacocoProbes failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Unpacks a jar into a fresh directory under the test cache (once per jar and process run).
pub fn unpacked_jar(name: &str) -> PathBuf {
    let jar = debian_jar(name);
    build_once(&cache_dir().join(format!("unpacked-{name}")), |d| {
        let _ = std::fs::remove_dir_all(d);
        std::fs::create_dir_all(d).expect("create unpack dir");
        let status = Command::new(Jdk::Jdk17.home().join("bin/jar"))
            .arg("xf")
            .arg(&jar)
            .current_dir(d)
            .status()
            .expect("jar xf");
        assert!(status.success(), "unpacking {} failed", jar.display());
    })
}

/// Sums a TSV with header whose first three columns are class, method, descriptor: with
/// `count_column` Some(i), adds column i; the branch TSV of `rivet branches` counts rows instead.
fn parse_counts(tsv: &str, count_column: usize) -> BranchCounts {
    let mut counts = BranchCounts::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let key = (
            cols[0].to_string(),
            cols[1].to_string(),
            cols[2].to_string(),
        );
        let n: u32 = cols[count_column].parse().expect("branch count");
        if n > 0 {
            *counts.entry(key).or_default() += n;
        }
    }
    counts
}

/// Branches per method from the TSV printed by `rivet branches`.
pub fn rivet_branch_counts(tsv: &str) -> BranchCounts {
    let mut counts = BranchCounts::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let key = (
            cols[0].to_string(),
            cols[1].to_string(),
            cols[2].to_string(),
        );
        *counts.entry(key).or_default() += 1;
    }
    counts
}

/// Lines describing every method whose count differs between `expected` and `actual`.
pub fn count_differences(expected: &BranchCounts, actual: &BranchCounts) -> Vec<String> {
    let mut diffs = Vec::new();
    for (k, e) in expected {
        let a = actual.get(k).copied().unwrap_or(0);
        if a != *e {
            diffs.push(format!("{}.{}{}: expected {e}, got {a}", k.0, k.1, k.2));
        }
    }
    for (k, a) in actual {
        if !expected.contains_key(k) {
            diffs.push(format!("{}.{}{}: expected 0, got {a}", k.0, k.1, k.2));
        }
    }
    diffs
}
