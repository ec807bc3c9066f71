//! Build-script support for the Rivet crates that compile embedded Java sources with the JDK's
//! javac (rivet-instrument's runtime, rivet-worker's harness). Used only as a build-dependency.

use std::path::{Path, PathBuf};

/// Appends every file under `dir` (recursively) whose extension is `ext`; an unreadable
/// directory contributes nothing.
pub fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The javac of `$JAVA_HOME`, else the first `javac` on `PATH`.
pub fn find_javac() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        let p = PathBuf::from(home).join("bin/javac");
        if p.is_file() {
            return Some(p);
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("javac"))
        .find(|p| p.is_file())
}
