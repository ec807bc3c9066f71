//! Class-data archives of the JVMs verification starts (HotSpot's dynamic CDS, JDK 13 on): a
//! javac or JUnit launcher JVM maps the classes an earlier run of the same tool archived
//! instead of loading and verifying them again, about a third less CPU per JVM (javac
//! 1.1 → 0.7 s, the launcher 0.9 → 0.55 s on this project's tests). The first javac of a JDK
//! archives its classes at exit into a directory it may write (javac runs no code under test);
//! the launcher's archive comes from a run of its own on no tests, before the first test run.
//! Rivet moves the file into the archive directory, named after the JDK and the tool's jar,
//! where later runs (of any Rivet process of the user) find it. An archive the JVM cannot use
//! (another JDK build) is ignored by it; one the user does not own, or a link, is not used.

use std::hash::{Hash, Hasher};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::process::run_command;
use crate::runs::LAUNCHER_QUIET;
use crate::verify::Verifier;

/// Which tool's JVM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tool {
    Javac,
    /// The JUnit console launcher (its jar on the class path first).
    Launcher,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Javac => "javac",
            Tool::Launcher => "junit-launcher",
        }
    }
}

/// The first JDK feature release that archives classes at exit.
const DYNAMIC_ARCHIVES_SINCE: u32 = 13;

/// The JVM's log off: what archiving says (classes it leaves out; on JDK 25, javac's module
/// options it did not record) would otherwise go to the tool's standard output.
const QUIET: &str = "-Xlog:disable";

/// How one JVM uses the archive of its tool: its flags, and the file it writes at exit when
/// there is none yet.
#[derive(Debug, Default)]
pub(crate) struct Startup {
    flags: Vec<String>,
    /// (where the JVM writes it, where it goes when the run went well, the claim on it).
    dump: Option<(PathBuf, PathBuf, Making)>,
}

/// A claim on making an archive: a lock file beside it, made with `create_new`, removed when
/// the claim drops. A claim older than [`STALE_CLAIM`] (its process died) is taken over.
#[derive(Debug)]
struct Making {
    lock: PathBuf,
}

/// Making an archive takes a few seconds; a claim this old was left behind.
const STALE_CLAIM: Duration = Duration::from_secs(120);

impl Making {
    fn take(archive: &Path) -> Option<Making> {
        let lock = archive.with_extension("making");
        std::fs::create_dir_all(lock.parent()?).ok()?;
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(_) => return Some(Making { lock }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::symlink_metadata(&lock)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok());
                    if age.is_none_or(|a| a < STALE_CLAIM) {
                        return None;
                    }
                    let _ = std::fs::remove_file(&lock);
                }
                Err(_) => return None,
            }
        }
        None
    }
}

impl Drop for Making {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.lock);
    }
}

impl Startup {
    /// No archive: the JVM starts as it would alone.
    pub(crate) fn none() -> Startup {
        Startup::default()
    }

    /// The archive of `tool` run by `program` (`java` or `javac` of a JDK) in `archives`, or,
    /// when there is none and `may_write` (writable by the JVM) is given, the flags that
    /// write it there at exit. `jar`: the tool's jar (the launcher's), part of the archive's
    /// name, since the JVM checks the class path the archive was made with.
    pub(crate) fn new(
        archives: &Path,
        (program, tool, jar): (&Path, Tool, Option<&Path>),
        may_write: Option<&Path>,
    ) -> Startup {
        let home = rivet_sandbox::java_home(program);
        if feature_release(&home).is_none_or(|v| v < DYNAMIC_ARCHIVES_SINCE) {
            return Startup::none();
        }
        let file = archives.join(format!("{}-{:016x}.jsa", tool.name(), key(&home, jar)));
        if owned_by_us(&file, may_write.unwrap_or(archives)) {
            return Startup {
                flags: vec![
                    format!("-XX:SharedArchiveFile={}", file.display()),
                    "-Xshare:auto".into(),
                    QUIET.into(),
                ],
                dump: None,
            };
        }
        // One JVM of the user's at a time makes it; the others start without meanwhile.
        let (Some(dir), Some(making)) = (may_write, Making::take(&file)) else {
            return Startup::none();
        };
        let dumped = dir.join(format!("{}.jsa", tool.name()));
        Startup {
            flags: vec![
                format!("-XX:ArchiveClassesAtExit={}", dumped.display()),
                QUIET.into(),
            ],
            dump: Some((dumped, file, making)),
        }
    }

    /// The JVM flags (javac takes each with `-J`).
    pub(crate) fn flags(&self) -> &[String] {
        &self.flags
    }

    /// After the run: the archive it wrote goes into place when the run went well (another
    /// process may have put one there meanwhile: either is as good). Failing to move it only
    /// means the next run writes one again.
    pub(crate) fn finish(self, ran_well: bool) {
        let Some((dumped, file, _making)) = self.dump else {
            return;
        };
        if ran_well && dumped.is_file() {
            if let Some(parent) = file.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            if std::fs::rename(&dumped, &file).is_ok() {
                return;
            }
        }
        let _ = std::fs::remove_file(&dumped);
    }
}

/// Limit of the launcher's archiving run.
const ARCHIVING_LIMIT: Duration = Duration::from_secs(30);

impl Verifier {
    /// How a javac or launcher JVM starts: with its tool's class-data archive when there is
    /// one, else writing it beneath `may_write` when given.
    pub(crate) fn startup(
        &self,
        tool: (&Path, Tool, Option<&Path>),
        may_write: Option<&Path>,
    ) -> Startup {
        match &self.archives {
            Some(archives) => Startup::new(archives, tool, may_write),
            None => Startup::none(),
        }
    }

    /// How a launcher JVM starts; when its archive is missing, it is made first, by a run of
    /// the launcher on no tests beneath `dir` (its engines load; no code under test runs in
    /// the JVM whose classes every later run maps, so none can plant its own there).
    pub(crate) fn launcher_startup(&self, launcher: &Path, dir: &Path) -> Startup {
        let tool = (self.java.as_path(), Tool::Launcher, Some(launcher));
        let startup = self.startup(tool, None);
        if !startup.flags().is_empty() || self.archives.is_none() {
            return startup;
        }
        let work = dir.join("launcher-archive");
        let (empty, reports) = (work.join("no-tests"), work.join("reports"));
        if [&empty, &reports]
            .iter()
            .any(|d| std::fs::create_dir_all(d).is_err())
        {
            return startup;
        }
        let archiving = self.startup(tool, Some(&work));
        if archiving.flags().is_empty() {
            return startup;
        }
        let mut cmd = Command::new(&self.java);
        cmd.args(archiving.flags())
            .args([
                "-XX:-UsePerfData",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
            ])
            .arg("-jar")
            .arg(launcher)
            .arg("--scan-class-path")
            .arg(&empty)
            .arg("--class-path")
            .arg(&empty)
            .arg("--reports-dir")
            .arg(&reports)
            .args(LAUNCHER_QUIET)
            .current_dir(&work);
        let confinement = rivet_sandbox::Confinement::for_jvm(&self.java, vec![work.clone()]);
        let limit = self.limit(ARCHIVING_LIMIT);
        let ran = run_command((&mut cmd, &confinement), &work, limit, "launcher-archive");
        archiving.finish(ran.is_ok_and(|(ok, _, _)| ok));
        self.startup(tool, None)
    }
}

/// The JDK's feature release from its `release` file (`JAVA_VERSION="17.0.15"` → 17,
/// `"1.8.0_392"` → 8).
fn feature_release(java_home: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(java_home.join("release")).ok()?;
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    let mut parts = version.split(['.', '_', '-', '+']);
    match parts.next()?.parse().ok()? {
        1 => parts.next()?.parse().ok(),
        v => Some(v),
    }
}

/// A name for the JDK build and the jar: their paths, sizes and modification times.
fn key(java_home: &Path, jar: Option<&Path>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in std::iter::once(java_home.join("lib/modules")).chain(jar.map(Path::to_path_buf)) {
        let p = std::fs::canonicalize(&p).unwrap_or(p);
        p.hash(&mut h);
        if let Ok(m) = std::fs::metadata(&p) {
            (m.len(), m.mtime(), m.mtime_nsec()).hash(&mut h);
        }
    }
    h.finish()
}

/// Whether `file` is a file (not a link) owned by the owner of `ours` (a directory this
/// process made).
fn owned_by_us(file: &Path, ours: &Path) -> bool {
    match (std::fs::symlink_metadata(file), std::fs::metadata(ours)) {
        (Ok(f), Ok(o)) => f.is_file() && f.uid() == o.uid(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home_with(release: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("release"), release).unwrap();
        d
    }

    #[test]
    fn feature_releases_read_old_and_new_version_strings() {
        for (text, expected) in [
            ("JAVA_VERSION=\"17.0.15\"\n", Some(17)),
            ("IMPLEMENTOR=\"X\"\nJAVA_VERSION=\"25\"\n", Some(25)),
            ("JAVA_VERSION=\"1.8.0_392\"\n", Some(8)),
            ("JAVA_VERSION=\"11-ea\"\n", Some(11)),
            ("OS_NAME=\"Linux\"\n", None),
        ] {
            let home = home_with(text);
            assert_eq!(feature_release(home.path()), expected, "{text}");
        }
    }

    #[test]
    fn the_first_run_writes_the_archive_and_the_next_uses_it() {
        let home = home_with("JAVA_VERSION=\"17.0.1\"\n");
        let java = home.path().join("bin/java");
        std::fs::create_dir_all(java.parent().unwrap()).unwrap();
        std::fs::write(&java, "").unwrap();
        let (archives, run) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let tool = (java.as_path(), Tool::Javac, None);
        let first = Startup::new(archives.path(), tool, Some(run.path()));
        let [flag, _] = first.flags() else {
            panic!("{:?}", first.flags())
        };
        let dumped = flag
            .strip_prefix("-XX:ArchiveClassesAtExit=")
            .unwrap()
            .to_string();
        let dumped = dumped.as_str();
        assert!(dumped.starts_with(&run.path().display().to_string()));
        // While one run makes it, another starts without it and without making one.
        let meanwhile = Startup::new(archives.path(), tool, Some(run.path()));
        assert!(meanwhile.flags().is_empty(), "{meanwhile:?}");
        // A failed run's archive is not kept; a good one's is, and the next run maps it.
        std::fs::write(dumped, "archive").unwrap();
        first.finish(false);
        let again = Startup::new(archives.path(), tool, Some(run.path()));
        std::fs::write(dumped, "archive").unwrap();
        again.finish(true);
        assert!(!Path::new(dumped).exists());
        let next = Startup::new(archives.path(), tool, None);
        assert!(
            next.flags()[0].starts_with("-XX:SharedArchiveFile="),
            "{next:?}"
        );
        // Without a place to write and without an archive: nothing.
        let other = Startup::new(
            archives.path(),
            (java.as_path(), Tool::Launcher, None),
            None,
        );
        assert!(other.flags().is_empty());
    }

    #[test]
    fn jdks_before_13_get_no_flags() {
        let home = home_with("JAVA_VERSION=\"1.8.0_392\"\n");
        let java = home.path().join("bin/java");
        let run = tempfile::tempdir().unwrap();
        let s = Startup::new(
            run.path(),
            (java.as_path(), Tool::Javac, None),
            Some(run.path()),
        );
        assert!(s.flags().is_empty());
    }
}
