//! Files and directories a test makes beneath its own temporary directory (JUnit's
//! `@TempDir`, JUnit 4's `TemporaryFolder`), so that code taking or creating files is tested
//! without touching anything else: the worker makes them beneath its temporary directory, the
//! emitted test beneath the one JUnit gives it.

/// What is at a scratch path before the value is taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScratchEntry {
    /// Nothing (its parent directories exist), for code that creates it.
    Missing,
    /// A file with this UTF-8 content.
    File { content: String },
    /// A directory holding these files (name, UTF-8 content).
    Dir { files: Vec<(String, String)> },
}

/// The types a scratch value may have (field descriptors).
pub const SCRATCH_FILE: &str = "Ljava/io/File;";
pub const SCRATCH_PATH: &str = "Ljava/nio/file/Path;";
pub const SCRATCH_STRING: &str = "Ljava/lang/String;";

/// Is `path` a relative, `/`-separated path without `.` or `..` steps, as a scratch path must
/// be (it stays beneath the temporary directory)?
pub fn is_scratch_path(path: &str) -> bool {
    !path.is_empty()
        && path
            .split('/')
            .all(|step| !step.is_empty() && step != "." && step != ".." && !step.contains('\\'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_paths_stay_beneath_their_directory() {
        assert!(is_scratch_path("d0/a.txt"));
        assert!(is_scratch_path("a"));
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "d/../../x",
            "d//x",
            "a/./b",
            "a\\b",
        ] {
            assert!(!is_scratch_path(bad), "{bad}");
        }
    }
}
