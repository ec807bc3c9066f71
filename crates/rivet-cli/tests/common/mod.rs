//! Helpers for running the `rivet` binary in integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `rivet` with arguments and returns its output.
pub fn rivet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rivet"))
        .args(args)
        .output()
        .expect("run rivet")
}

/// Stdout of a successful `rivet` run.
#[allow(dead_code)] // not every test binary uses it
pub fn rivet_ok(args: &[&str]) -> String {
    let out = rivet(args);
    assert!(
        out.status.success(),
        "rivet {args:?} failed ({}): {}\nits output ended with:\n{}",
        status_text(&out.status),
        String::from_utf8_lossy(&out.stderr),
        tail(&String::from_utf8_lossy(&out.stdout), 20)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// The exit code, or the signal that ended the process (a crash prints nothing of its own).
fn status_text(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => status.to_string(),
    }
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The classpath to compile and run emitted JUnit 5 tests of the classes in `classes`.
#[allow(dead_code)]
pub fn junit5_classpath(classes: &Path) -> String {
    let jar = |n: &str| rivet_testkit::debian_jar(n).display().to_string();
    [
        classes.display().to_string(),
        jar("junit-jupiter-api"),
        jar("apiguardian-api"),
        jar("opentest4j"),
        jar("junit-platform-commons"),
    ]
    .join(":")
}

/// Compiles test sources into `out` with JDK 17 against `cp`, as a developer would.
#[allow(dead_code)]
pub fn javac_tests(cp: &str, sources: &[PathBuf], out: &Path) {
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    let javac = Command::new(jdk.join("bin/javac"))
        .arg("-d")
        .arg(out)
        .args(["-cp", cp])
        .args(sources)
        .output()
        .expect("run javac");
    assert!(
        javac.status.success(),
        "{}",
        String::from_utf8_lossy(&javac.stderr)
    );
}

/// Runs the JUnit console launcher (JDK 17) on `classes` with `cp`, in `cwd`; asserts that it
/// passes and returns its report.
#[allow(dead_code)]
pub fn junit_passes(classes: &Path, cp: &str, cwd: &Path, args: &[String]) -> String {
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    let launcher = rivet_testkit::debian_jar("junit-platform-console-standalone");
    let o = Command::new(jdk.join("bin/java"))
        .arg("-jar")
        .arg(launcher)
        .arg("--class-path")
        .arg(format!("{}:{cp}", classes.display()))
        .args(["--disable-banner", "--details=summary"])
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run the JUnit launcher");
    let report = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{args:?}\n{report}");
    report
}

/// The `gen` fixtures (`tests/fixtures/generate/gen`) compiled for Java 11 into a cache
/// directory of their own per `name`.
#[allow(dead_code)]
pub fn gen_fixtures(name: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/generate/gen");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&src)
        .expect("fixture directory")
        .map(|e| e.expect("fixture entry").path())
        .collect();
    sources.sort();
    let out = rivet_testkit::cache_dir().join(format!("cli-generate-fixtures-{name}"));
    rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &sources, &out);
    out
}
