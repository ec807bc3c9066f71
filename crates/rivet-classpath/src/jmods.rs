//! The JDK's `jmods/*.jmod` files: each is the header `JM\x01\x00` followed by a zip whose
//! classes lie under `classes/`. The central directories are indexed once, by package.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::archive::{ArchiveError, ZipIndex};
use crate::error::JdkError;
use crate::name::{class_name_of_path, package_of};
use crate::shared_file::SharedFile;

const JMOD_HEADER: [u8; 4] = *b"JM\x01\x00";
const CLASSES_PREFIX: &str = "classes/";

/// One jmod file: its module name and its zip index.
#[derive(Debug)]
struct Jmod {
    module: String,
    zip: ZipIndex,
}

/// Where a class is inside a set of jmods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JmodEntry {
    module: usize,
    entry: usize,
}

/// All jmods of a JDK's `jmods` directory.
#[derive(Debug)]
pub struct Jmods {
    dir: PathBuf,
    jmods: Vec<Jmod>,
    /// Package in internal form -> indexes into `jmods` of the modules holding it.
    packages: HashMap<String, Vec<usize>>,
}

impl Jmods {
    /// Opens every `*.jmod` of `dir` (in name order) and indexes their classes by package.
    pub fn open(dir: &Path) -> Result<Jmods, JdkError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| JdkError::Io { path, source }
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io(dir))? {
            let path = entry.map_err(io(dir))?.path();
            if path.extension().is_some_and(|e| e == "jmod") {
                paths.push(path);
            }
        }
        paths.sort();
        let mut jmods = Vec::with_capacity(paths.len());
        let mut packages: HashMap<String, Vec<usize>> = HashMap::new();
        for path in paths {
            let jmod = open_jmod(&path)?;
            let index = jmods.len();
            for name in jmod.zip.names() {
                let Some(class) = name
                    .strip_prefix(CLASSES_PREFIX)
                    .and_then(class_name_of_path)
                else {
                    continue;
                };
                let package = package_of(class);
                let modules = packages.entry(package.to_string()).or_default();
                if modules.last() != Some(&index) {
                    modules.push(index);
                }
            }
            jmods.push(jmod);
        }
        tracing::debug!(dir = %dir.display(), modules = jmods.len(), "indexed jmods");
        Ok(Jmods {
            dir: dir.to_path_buf(),
            jmods,
            packages,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Module names, sorted.
    pub fn modules(&self) -> Vec<String> {
        let mut modules: Vec<String> = self.jmods.iter().map(|j| j.module.clone()).collect();
        modules.sort();
        modules
    }

    /// The module and bytes of class `internal_name`, if a jmod has it.
    pub fn find_class(&self, internal_name: &str) -> Result<Option<(&str, Vec<u8>)>, JdkError> {
        let Some(modules) = self.packages.get(package_of(internal_name)) else {
            return Ok(None);
        };
        let entry = format!("{CLASSES_PREFIX}{internal_name}.class");
        for &index in modules {
            let jmod = &self.jmods[index];
            if let Some(bytes) = jmod
                .zip
                .read(&entry)
                .map_err(|e| entry_error(jmod, &entry, e))?
            {
                return Ok(Some((jmod.module.as_str(), bytes)));
            }
        }
        Ok(None)
    }

    /// True if a jmod has class `internal_name`.
    pub fn contains(&self, internal_name: &str) -> bool {
        let entry = format!("{CLASSES_PREFIX}{internal_name}.class");
        self.packages
            .get(package_of(internal_name))
            .is_some_and(|modules| modules.iter().any(|&m| self.jmods[m].zip.contains(&entry)))
    }

    /// Every class (module-info left out): (module, internal name, entry), sorted by module
    /// and name; `module` limits the list to one module.
    pub fn class_entries(&self, module: Option<&str>) -> Vec<(String, String, JmodEntry)> {
        let mut classes = Vec::new();
        for (m, jmod) in self.jmods.iter().enumerate() {
            if module.is_some_and(|wanted| wanted != jmod.module) {
                continue;
            }
            for entry in 0..jmod.zip.len() {
                let Some(class) = jmod
                    .zip
                    .name_at(entry)
                    .and_then(|n| n.strip_prefix(CLASSES_PREFIX))
                    .and_then(class_name_of_path)
                else {
                    continue;
                };
                if class == "module-info" {
                    continue;
                }
                classes.push((
                    jmod.module.clone(),
                    class.to_string(),
                    JmodEntry { module: m, entry },
                ));
            }
        }
        classes.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        classes
    }

    /// The bytes of a class listed by [`Jmods::class_entries`].
    pub fn read(&self, entry: JmodEntry) -> Result<Vec<u8>, JdkError> {
        let Some(jmod) = self.jmods.get(entry.module) else {
            return Err(JdkError::BadJmod {
                path: self.dir.clone(),
                reason: format!("no module #{}", entry.module),
            });
        };
        jmod.zip.read_at(entry.entry).map_err(|e| {
            let name = jmod.zip.name_at(entry.entry).unwrap_or("?").to_string();
            entry_error(jmod, &name, e)
        })
    }
}

fn open_jmod(path: &Path) -> Result<Jmod, JdkError> {
    let file = SharedFile::open(path).map_err(|source| JdkError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut header = [0u8; 4];
    if file.read_exact_at(&mut header, 0).is_err() || header != JMOD_HEADER {
        return Err(JdkError::BadJmod {
            path: path.to_path_buf(),
            reason: format!("header {header:02X?}, expected 4A 4D 01 00 (\"JM\" 1.0)"),
        });
    }
    let zip = ZipIndex::from_file(Arc::new(file), 4).map_err(|e| match e {
        ArchiveError::Io(source) => JdkError::Io {
            path: path.to_path_buf(),
            source,
        },
        ArchiveError::Format(reason) => JdkError::BadJmod {
            path: path.to_path_buf(),
            reason,
        },
    })?;
    let module = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Jmod { module, zip })
}

fn entry_error(jmod: &Jmod, entry: &str, e: ArchiveError) -> JdkError {
    JdkError::JmodEntry {
        path: jmod.zip.path().to_path_buf(),
        entry: entry.to_string(),
        reason: e.to_string(),
    }
}
