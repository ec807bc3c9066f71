//! Text resources shipped beside a package's classes (`com/x/js/base.js`,
//! `com/x/templates/a.txt`): what a class of the package may load as input, such as the
//! scripts a compiler injects. Binary files, oversized files and files that are not UTF-8 are
//! left out.

use std::path::Path;

use crate::entry::ClasspathEntry;
use crate::error::ClasspathError;

/// Largest resource read, in bytes.
pub const MAX_RESOURCE_BYTES: usize = 64 * 1024;

/// Most resources listed for one package.
pub const MAX_RESOURCES: usize = 32;

/// Directory nesting below the package beyond which a walk stops.
const MAX_RESOURCE_DEPTH: usize = 4;

/// Extensions of files that are never text.
const BINARY: &[&str] = &[
    "class", "jar", "zip", "gz", "png", "gif", "jpg", "jpeg", "ico", "bin", "ttf", "so", "dll",
];

/// A text resource: its path in the entry (`com/x/js/base.js`) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub path: String,
    pub text: String,
}

/// Is the file at `path` (in an entry) under `package` (internal form, `com/x`), in its
/// directory or below, and not binary by its extension?
fn is_candidate(path: &str, package: &str) -> bool {
    let below = if package.is_empty() {
        Some(path)
    } else {
        path.strip_prefix(package)
            .and_then(|rest| rest.strip_prefix('/'))
    };
    let Some(rest) = below else {
        return false;
    };
    let extension = rest.rsplit_once('.').map_or("", |(_, e)| e);
    !rest.is_empty()
        && !rest.ends_with('/')
        && rest.matches('/').count() < MAX_RESOURCE_DEPTH
        && !BINARY.contains(&extension.to_ascii_lowercase().as_str())
        && !rest.starts_with("META-INF")
}

/// The text of a resource's bytes: UTF-8 without NUL, at most [`MAX_RESOURCE_BYTES`].
fn text_of(bytes: Vec<u8>) -> Option<String> {
    if bytes.len() > MAX_RESOURCE_BYTES || bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

impl ClasspathEntry {
    /// The text resources of this entry under `package` (internal form), by path, at most
    /// [`MAX_RESOURCES`].
    pub fn resources_under(&self, package: &str) -> Result<Vec<Resource>, ClasspathError> {
        let mut out = Vec::new();
        match self {
            ClasspathEntry::Directory(dir) => {
                let root = if package.is_empty() {
                    dir.clone()
                } else {
                    dir.join(package)
                };
                walk(&root, (package, package), 0, &mut out)?;
            }
            ClasspathEntry::Jar(zip) => {
                for index in 0..zip.len() {
                    if out.len() >= MAX_RESOURCES {
                        break;
                    }
                    let Some(name) = zip.name_at(index) else {
                        continue;
                    };
                    if !is_candidate(name, package) {
                        continue;
                    }
                    let path = name.to_string();
                    let bytes = zip.read_at(index).map_err(|e| ClasspathError::JarEntry {
                        path: zip.path().to_path_buf(),
                        entry: path.clone(),
                        reason: e.to_string(),
                    })?;
                    if let Some(text) = text_of(bytes) {
                        out.push(Resource { path, text });
                    }
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.truncate(MAX_RESOURCES);
        Ok(out)
    }
}

/// Collects the text resources of `package` under directory `dir`, whose path in the entry is
/// `prefix`.
fn walk(
    dir: &Path,
    (prefix, package): (&str, &str),
    depth: usize,
    out: &mut Vec<Resource>,
) -> Result<(), ClasspathError> {
    let io = |source| ClasspathError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    let mut files: Vec<_> = entries.filter_map(Result::ok).collect();
    files.sort_by_key(|e| e.file_name());
    for entry in files {
        if out.len() >= MAX_RESOURCES {
            break;
        }
        let Ok(file_name) = entry.file_name().into_string() else {
            continue;
        };
        let path = if prefix.is_empty() {
            file_name
        } else {
            format!("{prefix}/{file_name}")
        };
        let kind = entry.file_type().map_err(io)?;
        if kind.is_dir() {
            if depth + 1 < MAX_RESOURCE_DEPTH {
                walk(&entry.path(), (&path, package), depth + 1, out)?;
            }
        } else if kind.is_file() && is_candidate(&path, package) {
            let too_big = entry
                .metadata()
                .map_or(true, |m| m.len() > MAX_RESOURCE_BYTES as u64);
            if too_big {
                continue;
            }
            let bytes = std::fs::read(entry.path()).map_err(io)?;
            if let Some(text) = text_of(bytes) {
                out.push(Resource { path, text });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_text_files_in_or_below_the_package() {
        assert!(is_candidate("com/x/js/base.js", "com/x"));
        assert!(is_candidate("com/x/a.txt", "com/x"));
        assert!(!is_candidate("com/x/A.class", "com/x"));
        assert!(!is_candidate("com/xy/a.txt", "com/x"));
        assert!(!is_candidate("com/x/icon.PNG", "com/x"));
        assert!(!is_candidate("com/x/", "com/x"));
    }

    #[test]
    fn a_directory_lists_its_package_resources_and_skips_binaries() {
        let dir = tempfile::tempdir().unwrap();
        let js = dir.path().join("com/x/js");
        std::fs::create_dir_all(&js).unwrap();
        std::fs::write(js.join("base.js"), "var a = 1;").unwrap();
        std::fs::write(dir.path().join("com/x/A.class"), [0xca, 0xfe]).unwrap();
        std::fs::write(dir.path().join("com/x/blob.dat"), [1, 0, 2]).unwrap();
        std::fs::create_dir_all(dir.path().join("com/y")).unwrap();
        std::fs::write(dir.path().join("com/y/other.js"), "f();").unwrap();
        let entry = ClasspathEntry::open(dir.path()).unwrap();
        let found = entry.resources_under("com/x").unwrap();
        assert_eq!(
            found,
            vec![Resource {
                path: "com/x/js/base.js".into(),
                text: "var a = 1;".into()
            }]
        );
    }
}
