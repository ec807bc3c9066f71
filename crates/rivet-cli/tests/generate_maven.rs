//! `rivet generate --project` on a small Maven project (tests/fixtures/maven/shop, one
//! dependency on commons-lang3, JUnit 4): Rivet finds its classes, asks Maven for the
//! dependency classpath, uses the JUnit the project uses, writes the tests under
//! src/test/java and the reports under target/rivet; then `mvn -o test` runs them green with
//! Debian's packaged Maven plugins (`/etc/maven/settings-debian.xml`: Debian's repository,
//! offline; `.ci/run` installs maven-debian-helper and the plugins). On JUnit 4.12 (the POM
//! edited), expected exceptions are written without `assertThrows` and still verify.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::process::Command;

const SETTINGS: &str = "/etc/maven/settings-debian.xml";

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn mvn(dir: &Path, goals: &[&str]) -> std::process::Output {
    assert!(
        Path::new(SETTINGS).is_file(),
        "{SETTINGS} missing: install maven-debian-helper (.ci/run does)"
    );
    Command::new("mvn")
        .current_dir(dir)
        .args(["-s", SETTINGS, "-o", "-B"])
        .args(goals)
        .output()
        .expect("mvn (Debian's maven package) must be installed: .ci/run installs it")
}

#[test]
fn a_maven_project_gets_tests_in_src_test_java_that_mvn_runs_green() {
    let dir = tempfile::tempdir().unwrap();
    let shop = dir.path().join("shop");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/maven/shop"),
        &shop,
    );
    // Not built yet: Rivet says to build first.
    let shop_s = shop.display().to_string();
    let o = common::rivet(&["generate", "--project", &shop_s, "--budget", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("mvn compile"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let built = mvn(&shop, &["-q", "compile"]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stdout)
    );

    let o = common::rivet(&[
        "generate",
        "--project",
        &shop_s,
        "--budget",
        "3",
        "--seed",
        "0",
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("Maven project shop"), "{stderr}");
    assert!(stderr.contains("JUnit 4"), "{stderr}");
    assert!(stderr.contains("dependencies (mvn"), "{stderr}");
    let tests = shop.join("src/test/java/com/example/shop");
    for class in ["Cart", "Sizes"] {
        let source = std::fs::read_to_string(tests.join(format!("{class}RivetTest.java")))
            .unwrap_or_else(|e| panic!("{class}RivetTest.java: {e}"));
        assert!(source.contains("import org.junit.Test;"), "{source}");
    }
    let index: rivet_report::ProjectReport = serde_json::from_str(
        &std::fs::read_to_string(shop.join("target/rivet/rivet-report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(index.generated, 2, "{index:?}");
    assert!(shop.join("target/rivet/rivet-report.html").is_file());

    let run = mvn(&shop, &["test"]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    assert!(stdout.contains("BUILD SUCCESS"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "Tests run: {}, Failures: 0, Errors: 0",
            index.tests
        )),
        "{stdout}"
    );

    // The same project on JUnit 4.12, which has no assertThrows: expected exceptions are
    // written try/fail/catch. (Debian ships no JUnit 4.12: Rivet verifies them on 4.13.2.)
    let pom = std::fs::read_to_string(shop.join("pom.xml")).unwrap();
    let old = pom.replace("<version>4.13.2</version>", "<version>4.12</version>");
    assert_ne!(old, pom);
    std::fs::write(shop.join("pom.xml"), old).unwrap();
    let out = dir.path().join("junit412");
    let out_s = out.display().to_string();
    let o = common::rivet(&[
        "generate",
        "--project",
        &shop_s,
        "--budget",
        "3",
        "--seed",
        "0",
        "--out",
        &out_s,
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr.contains("JUnit 4 (4.12: expected exceptions as try/fail/catch"),
        "{stderr}"
    );
    let index: rivet_report::ProjectReport =
        serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
            .unwrap();
    assert_eq!(index.generated, 2, "{index:?}");
    let mut caught = 0;
    for c in &index.classes {
        assert!(c.verified && c.tests > 0, "{c:?}");
        let source = std::fs::read_to_string(out.join(c.test_file.as_deref().unwrap())).unwrap();
        assert!(!source.contains("assertThrows"), "{source}");
        caught += source
            .matches("} catch (IllegalArgumentException exception) {")
            .count();
    }
    // Both classes throw IllegalArgumentException on bad input.
    assert!(caught > 0, "no expected exception written");
}
