//! Code over files tested the JUnit way: `gen.Disk` (a file's lines, a copy) gets tests that
//! make files and directories beneath JUnit 5's `@TempDir` (JUnit 4: a `TemporaryFolder`),
//! cover every branch, and, run by a developer from a fresh project directory, leave nothing
//! there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet;

fn disk_suite(junit: &str) {
    let classes = common::gen_fixtures("disk");
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let o = rivet(&[
        "generate",
        "--classpath",
        &classes.display().to_string(),
        "--class",
        "gen.Disk",
        "--out",
        &out.display().to_string(),
        "--budget",
        "15",
        "--seed",
        "2",
        "--junit",
        junit,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("rivet-report.json")).unwrap())
            .unwrap();
    assert_eq!(report["verified"], true, "{report}");
    assert_eq!(report["dropped_tests"], 0, "{report}");
    assert_eq!(
        report["branches_covered"],
        report["branches_total"],
        "JUnit {junit}: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let test_file = out.join("gen/DiskRivetTest.java");
    let suite = std::fs::read_to_string(&test_file).unwrap();
    let marker = if junit == "5" {
        "@TempDir Path tempDir"
    } else {
        "public TemporaryFolder temporaryFolder"
    };
    assert!(suite.contains(marker), "{suite}");
    assert!(suite.contains("Files.write(tempDir.resolve("), "{suite}");

    if junit == "5" {
        // Run as a developer would, from a fresh writable project directory.
        let project = root.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        let test_classes = root.path().join("test-classes");
        let cp = common::junit5_classpath(&classes);
        common::javac_tests(&cp, &[test_file], &test_classes);
        let report = common::junit_passes(
            &test_classes,
            &cp,
            &project,
            &["--select-class".into(), "gen.DiskRivetTest".into()],
        );
        assert!(report.contains("tests successful"), "{report}");
        assert_eq!(
            std::fs::read_dir(&project).unwrap().count(),
            0,
            "the suite left files in the project directory"
        );
    }
}

#[test]
fn file_code_gets_tests_with_a_temporary_directory_junit5() {
    disk_suite("5");
}

#[test]
fn file_code_gets_tests_with_a_temporary_folder_junit4() {
    disk_suite("4");
}
