//! The Java harness classes (compiled by build.rs with `javac --release 8`, embedded here) and
//! writing them into a worker's directory.

use std::io;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/harness_classes.rs"));

/// The harness's main class.
pub(crate) const MAIN_CLASS: &str = "rivet.worker.Worker";

/// The embedded class files: path relative to a classpath root, and bytes. Includes the
/// instrumentation runtime (`rivet/runtime/*`) that instrumented classes call.
pub fn harness_classes() -> &'static [(&'static str, &'static [u8])] {
    HARNESS_CLASSES
}

/// Writes the harness classes under `dir` (a classpath root).
pub(crate) fn write_harness(dir: &Path) -> io::Result<()> {
    for (name, bytes) in HARNESS_CLASSES {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)?;
    }
    Ok(())
}
