//! Finding JUnit: the jars to compile tests against and the console launcher to run them,
//! from `--test-classpath` or the usual Debian locations.

use std::path::{Path, PathBuf};

use rivet_junit::JUnitVersion;

/// The Debian directory of Java libraries.
pub const DEBIAN_JAVA: &str = "/usr/share/java";

/// Jars to compile and run tests of one JUnit version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JUnitSetup {
    pub version: JUnitVersion,
    /// Added to the classpath of javac and of the test run.
    pub classpath: Vec<PathBuf>,
    /// `junit-platform-console-standalone.jar` (runs JUnit 5, and JUnit 4 through the vintage
    /// engine).
    pub launcher: PathBuf,
}

fn jar_named(paths: &[PathBuf], stem: &str) -> Option<PathBuf> {
    paths
        .iter()
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(stem) && n.ends_with(".jar"))
        })
        .cloned()
}

/// Finds JUnit: the entries of `test_classpath` (`:`-separated) when given, else the Debian
/// jars under `debian_dir`. None when the launcher or the JUnit API is missing.
pub fn locate_junit(
    test_classpath: Option<&str>,
    version: JUnitVersion,
    debian_dir: &Path,
) -> Option<JUnitSetup> {
    let debian = |names: &[&str]| -> Option<Vec<PathBuf>> {
        names
            .iter()
            .map(|n| {
                let p = debian_dir.join(format!("{n}.jar"));
                p.is_file().then_some(p)
            })
            .collect()
    };
    let debian_launcher = || {
        let p = debian_dir.join("junit-platform-console-standalone.jar");
        p.is_file().then_some(p)
    };
    match test_classpath {
        Some(cp) => {
            let entries: Vec<PathBuf> = cp
                .split(':')
                .filter(|e| !e.is_empty())
                .map(PathBuf::from)
                .collect();
            let launcher = jar_named(&entries, "junit-platform-console-standalone")
                .or_else(debian_launcher)?;
            let api = match version {
                JUnitVersion::Five => jar_named(&entries, "junit-jupiter-api")
                    .or_else(|| jar_named(&entries, "junit-platform-console-standalone")),
                JUnitVersion::Four => jar_named(&entries, "junit"),
            };
            api?;
            Some(JUnitSetup {
                version,
                classpath: entries,
                launcher,
            })
        }
        None => {
            let classpath = match version {
                JUnitVersion::Five => debian(&[
                    "junit-jupiter-api",
                    "opentest4j",
                    "apiguardian-api",
                    "junit-platform-commons",
                ])?,
                JUnitVersion::Four => debian(&["junit4", "hamcrest-core"])?,
            };
            Some(JUnitSetup {
                version,
                classpath,
                launcher: debian_launcher()?,
            })
        }
    }
}
