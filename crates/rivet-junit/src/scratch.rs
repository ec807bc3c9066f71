//! Tests that need files: JUnit 5's `@TempDir Path tempDir` parameter (JUnit 4: a
//! `TemporaryFolder` rule), and per scratch statement the lines that make its file or
//! directory beneath it before the value is taken, as the worker did.

use std::collections::BTreeSet;

use rivet_testcase::{GeneratedTest, ScratchEntry, Statement, SCRATCH_FILE, SCRATCH_PATH};

use crate::emit::JUnitVersion;
use crate::java::{string_literal, Names};

/// The name of the test's temporary directory in the emitted test.
pub(crate) const TEMP_DIR: &str = "tempDir";
/// JUnit 4's rule field.
const RULE: &str = "temporaryFolder";

/// Does the test make files?
pub(crate) fn uses_scratch(g: &GeneratedTest) -> bool {
    g.test
        .statements()
        .iter()
        .any(|s| matches!(s, Statement::Scratch { .. }))
}

/// The classes the scratch lines name (for the imports).
pub(crate) fn classes(junit: JUnitVersion, used: &mut BTreeSet<String>) {
    for c in [
        "java/nio/file/Path",
        "java/nio/file/Files",
        "java/nio/charset/StandardCharsets",
    ] {
        used.insert(c.to_string());
    }
    match junit {
        JUnitVersion::Five => used.insert("org/junit/jupiter/api/io/TempDir".to_string()),
        JUnitVersion::Four => {
            used.insert("org/junit/Rule".to_string());
            used.insert("org/junit/rules/TemporaryFolder".to_string())
        }
    };
}

/// The test method's parameters: JUnit 5 injects the directory.
pub(crate) fn parameters(names: &Names, junit: JUnitVersion, g: &GeneratedTest) -> String {
    if junit == JUnitVersion::Five && uses_scratch(g) {
        format!(
            "@{} {} {TEMP_DIR}",
            names.class("org/junit/jupiter/api/io/TempDir"),
            names.class("java/nio/file/Path")
        )
    } else {
        String::new()
    }
}

/// The parameter types JUnit selects the test method by (see `parameters`).
pub(crate) fn parameter_types(junit: JUnitVersion, g: &GeneratedTest) -> String {
    if junit == JUnitVersion::Five && uses_scratch(g) {
        "java.nio.file.Path".into()
    } else {
        String::new()
    }
}

/// JUnit 4's rule, declared once in a class whose tests make files.
pub(crate) fn rule_lines(names: &Names, junit: JUnitVersion, any: bool) -> Vec<String> {
    if junit != JUnitVersion::Four || !any {
        return Vec::new();
    }
    let folder = names.class("org/junit/rules/TemporaryFolder");
    vec![
        String::new(),
        format!("    @{}", names.class("org/junit/Rule")),
        format!("    public {folder} {RULE} = new {folder}();"),
    ]
}

/// The first lines of a JUnit 4 test that makes files: its directory from the rule.
pub(crate) fn prologue(names: &Names, junit: JUnitVersion, g: &GeneratedTest) -> Vec<String> {
    if junit != JUnitVersion::Four || !uses_scratch(g) {
        return Vec::new();
    }
    vec![format!(
        "{} {TEMP_DIR} = {RULE}.getRoot().toPath();",
        names.class("java/nio/file/Path")
    )]
}

fn resolve(path: &str) -> String {
    format!("{TEMP_DIR}.resolve({})", string_literal(path))
}

/// The lines that make a scratch statement's entry.
pub(crate) fn setup(names: &Names, path: &str, entry: &ScratchEntry) -> Vec<String> {
    let files = names.class("java/nio/file/Files");
    let utf8 = names.class("java/nio/charset/StandardCharsets");
    let write = |target: String, content: &str| {
        format!(
            "{files}.write({target}, {}.getBytes({utf8}.UTF_8));",
            string_literal(content)
        )
    };
    let parent = |p: &str| match p.rsplit_once('/') {
        Some((dir, _)) => vec![format!("{files}.createDirectories({});", resolve(dir))],
        None => Vec::new(),
    };
    match entry {
        ScratchEntry::Missing => parent(path),
        ScratchEntry::File { content } => {
            let mut out = parent(path);
            out.push(write(resolve(path), content));
            out
        }
        ScratchEntry::Dir { files: children } => {
            let mut out = vec![format!("{files}.createDirectories({});", resolve(path))];
            for (name, content) in children {
                out.push(write(resolve(&format!("{path}/{name}")), content));
            }
            out
        }
    }
}

/// The value of a scratch statement: the path as a `File`, `Path` or `String`.
pub(crate) fn value(descriptor: &str, path: &str) -> String {
    match descriptor {
        SCRATCH_FILE => format!("{}.toFile()", resolve(path)),
        SCRATCH_PATH => resolve(path),
        _ => format!("{}.toString()", resolve(path)),
    }
}
