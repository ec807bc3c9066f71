//! Shared helpers for integration tests: temporary directories, compiling with javac, running
//! with java, and rewriting every class file of a directory.
#![allow(dead_code)]

pub mod check;
pub mod edit;

use rivet_classfile::ClassFile;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("rivet-cf-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `sources` (file name, text) into `dir/src` and compiles them into `dir/classes`.
pub fn javac(dir: &Path, sources: &[(&str, &str)], release: &str) -> PathBuf {
    let src = dir.join("src");
    let out = dir.join("classes");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    let mut cmd = Command::new("javac");
    cmd.args(["-nowarn", "-g", "--release", release, "-d"])
        .arg(&out);
    for (name, text) in sources {
        let p = src.join(name);
        std::fs::write(&p, text).unwrap();
        cmd.arg(p);
    }
    let o = cmd.output().expect("javac on PATH");
    assert!(
        o.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// Compiles the shared subjects (if present) into `dir`, returning the classes directory.
pub fn compile_subjects(dir: &Path) -> Option<PathBuf> {
    let root = Path::new("/work/shared/subjects/src");
    let mut files = Vec::new();
    collect(root, "java", &mut files);
    if files.is_empty() {
        return None;
    }
    let out = dir.join("subjects");
    let o = Command::new("javac")
        .args(["-nowarn", "--release", "11", "-g", "-d"])
        .arg(&out)
        .args(&files)
        .output()
        .ok()?;
    o.status.success().then_some(out)
}

/// Runs `java -Xverify:all -cp dir main`; returns (success, stdout, stderr).
pub fn java(dir: &Path, main: &str) -> (bool, String, String) {
    let o = Command::new("java")
        .args(["-Xverify:all", "-Xshare:off", "-cp"])
        .arg(dir)
        .arg(main)
        .output()
        .expect("java on PATH");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Files under `dir` whose name ends with `.ext`, sorted.
pub fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

pub fn class_files(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    collect(dir, "class", &mut v);
    v
}

/// Copies every class file from `from` to `to` (same relative paths), passing each parsed class
/// through `f` and writing it back.
pub fn rewrite(from: &Path, to: &Path, mut f: impl FnMut(&mut ClassFile)) {
    for p in class_files(from) {
        let rel = p.strip_prefix(from).unwrap();
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        let mut cf = ClassFile::parse(&std::fs::read(&p).unwrap()).unwrap();
        f(&mut cf);
        std::fs::write(&dest, cf.to_bytes().unwrap()).unwrap();
    }
}
