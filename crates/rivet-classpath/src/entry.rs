//! One user classpath entry: a directory of `pkg/Name.class` files, or a jar/zip file.

use std::path::{Path, PathBuf};

use crate::archive::{ArchiveError, ZipIndex};
use crate::error::ClasspathError;
use crate::name::{class_name_of_path, is_class_name, is_listable};

/// A directory or jar on the user classpath.
#[derive(Debug)]
pub enum ClasspathEntry {
    /// Classes at `dir/pkg/Name.class`.
    Directory(PathBuf),
    /// A jar or zip file, its central directory read once.
    Jar(ZipIndex),
}

impl ClasspathEntry {
    /// Opens a directory or a jar. A missing path is [`ClasspathError::MissingEntry`], a file
    /// that is not a zip archive [`ClasspathError::CorruptJar`].
    pub fn open(path: &Path) -> Result<ClasspathEntry, ClasspathError> {
        let metadata = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ClasspathError::MissingEntry {
                    path: path.to_path_buf(),
                })
            }
            Err(source) => {
                return Err(ClasspathError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        if metadata.is_dir() {
            return Ok(ClasspathEntry::Directory(path.to_path_buf()));
        }
        match ZipIndex::open(path, 0) {
            Ok(zip) => Ok(ClasspathEntry::Jar(zip)),
            Err(ArchiveError::Io(source)) => Err(ClasspathError::Io {
                path: path.to_path_buf(),
                source,
            }),
            Err(ArchiveError::Format(reason)) => Err(ClasspathError::CorruptJar {
                path: path.to_path_buf(),
                reason,
            }),
        }
    }

    /// The directory or jar file.
    pub fn path(&self) -> &Path {
        match self {
            ClasspathEntry::Directory(dir) => dir,
            ClasspathEntry::Jar(zip) => zip.path(),
        }
    }

    /// The bytes of class `internal_name`, if this entry has it.
    pub fn class_bytes(&self, internal_name: &str) -> Result<Option<Vec<u8>>, ClasspathError> {
        if !is_class_name(internal_name) {
            return Ok(None);
        }
        let file = format!("{internal_name}.class");
        match self {
            ClasspathEntry::Directory(dir) => {
                let path = dir.join(&file);
                match std::fs::read(&path) {
                    Ok(bytes) => Ok(Some(bytes)),
                    Err(e)
                        if e.kind() == std::io::ErrorKind::NotFound
                            || e.kind() == std::io::ErrorKind::NotADirectory =>
                    {
                        Ok(None)
                    }
                    Err(source) => Err(ClasspathError::Io { path, source }),
                }
            }
            ClasspathEntry::Jar(zip) => zip.read(&file).map_err(|e| ClasspathError::JarEntry {
                path: zip.path().to_path_buf(),
                entry: file.clone(),
                reason: e.to_string(),
            }),
        }
    }

    /// The path to show for a class of this entry (`dir/a/B.class` or `lib.jar!a/B.class`).
    pub fn class_path(&self, internal_name: &str) -> PathBuf {
        match self {
            ClasspathEntry::Directory(dir) => dir.join(format!("{internal_name}.class")),
            ClasspathEntry::Jar(zip) => {
                let mut shown = zip.path().as_os_str().to_os_string();
                shown.push(format!("!{internal_name}.class"));
                PathBuf::from(shown)
            }
        }
    }

    /// Internal names of the classes of this entry, sorted (see [`is_listable`] for what is
    /// left out).
    pub fn class_names(&self) -> Result<Vec<String>, ClasspathError> {
        let mut names = match self {
            ClasspathEntry::Directory(dir) => {
                let mut names = Vec::new();
                walk_directory(dir, "", &mut names)?;
                names
            }
            ClasspathEntry::Jar(zip) => zip
                .names()
                .filter_map(class_name_of_path)
                .filter(|n| is_listable(n))
                .map(str::to_string)
                .collect(),
        };
        names.sort();
        names.dedup();
        Ok(names)
    }
}

/// Package nesting beyond which a directory walk stops.
const MAX_PACKAGE_DEPTH: usize = 64;

/// Collects the listable classes under `dir`, whose package (internal form) is `package`.
fn walk_directory(dir: &Path, package: &str, out: &mut Vec<String>) -> Result<(), ClasspathError> {
    let io = |source| ClasspathError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let Ok(file_name) = entry.file_name().into_string() else {
            continue;
        };
        let qualified = if package.is_empty() {
            file_name
        } else {
            format!("{package}/{file_name}")
        };
        let kind = entry.file_type().map_err(io)?;
        // Follow symbolic links to directories as the JVM does.
        let is_dir = kind.is_dir() || (kind.is_symlink() && entry.path().is_dir());
        if is_dir {
            // The depth limit stops symbolic-link cycles.
            let depth = qualified.matches('/').count();
            if is_class_name(&qualified) && !qualified.contains('-') && depth < MAX_PACKAGE_DEPTH {
                walk_directory(&entry.path(), &qualified, out)?;
            }
        } else if let Some(class) = class_name_of_path(&qualified) {
            if is_listable(class) {
                out.push(class.to_string());
            }
        }
    }
    Ok(())
}
