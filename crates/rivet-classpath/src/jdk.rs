//! The JDK's own classes: located from `JAVA_HOME`, the `java` on `PATH`, or a given path,
//! and read from `jmods/*.jmod` or, when the JDK has no jmods (JEP 493), from `lib/modules`.

use std::path::{Path, PathBuf};

use crate::error::JdkError;
use crate::jimage::{ImageLocation, Jimage};
use crate::jmods::{JmodEntry, Jmods};

/// Which files a [`JdkImage`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JdkFormat {
    /// `jmods/*.jmod` (zip files with a 4-byte header).
    Jmods,
    /// `lib/modules`, the runtime image in the jimage format.
    Jimage,
}

#[derive(Debug)]
enum Source {
    Jmods(Jmods),
    Jimage(Jimage),
}

/// A class of the JDK: its module, internal name and class-file bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JdkClass {
    pub module: String,
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Where a JDK class is; read it with [`JdkImage::read_entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JdkClassEntry {
    pub module: String,
    /// Internal name (`java/lang/String`).
    pub name: String,
    handle: Handle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Handle {
    Jmod(JmodEntry),
    Jimage(ImageLocation),
}

/// The classes of one JDK. Safe to share between threads.
#[derive(Debug)]
pub struct JdkImage {
    home: Option<PathBuf>,
    source: Source,
}

impl JdkImage {
    /// Finds the JDK as `JAVA_HOME`, else through the `java` on `PATH`, and opens it.
    pub fn locate() -> Result<JdkImage, JdkError> {
        JdkImage::open(&find_home()?)
    }

    /// Opens the JDK installed at `home`: its jmods if it has any, else `lib/modules`.
    pub fn open(home: &Path) -> Result<JdkImage, JdkError> {
        let jmods = home.join("jmods");
        let modules = home.join("lib").join("modules");
        let mut image = if has_jmods(&jmods) {
            JdkImage::open_jmods(&jmods)?
        } else if modules.is_file() {
            JdkImage::open_jimage(&modules)?
        } else {
            return Err(JdkError::NoClasses {
                home: home.to_path_buf(),
            });
        };
        image.home = Some(home.to_path_buf());
        Ok(image)
    }

    /// Reads the jmods of a `jmods` directory.
    pub fn open_jmods(dir: &Path) -> Result<JdkImage, JdkError> {
        Ok(JdkImage {
            home: None,
            source: Source::Jmods(Jmods::open(dir)?),
        })
    }

    /// Reads a jimage file (a JDK's `lib/modules`).
    pub fn open_jimage(modules_file: &Path) -> Result<JdkImage, JdkError> {
        Ok(JdkImage {
            home: None,
            source: Source::Jimage(Jimage::open(modules_file)?),
        })
    }

    /// The JDK's home directory, when opened through it.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    pub fn format(&self) -> JdkFormat {
        match self.source {
            Source::Jmods(_) => JdkFormat::Jmods,
            Source::Jimage(_) => JdkFormat::Jimage,
        }
    }

    /// The jmods directory or the jimage file read.
    pub fn path(&self) -> &Path {
        match &self.source {
            Source::Jmods(j) => j.dir(),
            Source::Jimage(j) => j.path(),
        }
    }

    /// The module and bytes of class `internal_name` (`java/lang/String`), if the JDK has it.
    pub fn find_class(&self, internal_name: &str) -> Result<Option<JdkClass>, JdkError> {
        if !crate::name::is_class_name(internal_name) {
            return Ok(None);
        }
        match &self.source {
            Source::Jmods(j) => Ok(j
                .find_class(internal_name)?
                .map(|(module, bytes)| JdkClass {
                    module: module.to_string(),
                    name: internal_name.to_string(),
                    bytes,
                })),
            Source::Jimage(image) => match image.find_class(internal_name)? {
                None => Ok(None),
                Some((module, location)) => Ok(Some(JdkClass {
                    module,
                    name: internal_name.to_string(),
                    bytes: image.read(&location)?,
                })),
            },
        }
    }

    /// True if the JDK has class `internal_name`; reads no class bytes.
    pub fn contains(&self, internal_name: &str) -> Result<bool, JdkError> {
        if !crate::name::is_class_name(internal_name) {
            return Ok(false);
        }
        match &self.source {
            Source::Jmods(j) => Ok(j.contains(internal_name)),
            Source::Jimage(image) => Ok(image.find_class(internal_name)?.is_some()),
        }
    }

    /// The bytes of class `internal_name`, if the JDK has it.
    pub fn class_bytes(&self, internal_name: &str) -> Result<Option<Vec<u8>>, JdkError> {
        Ok(self.find_class(internal_name)?.map(|c| c.bytes))
    }

    /// Every class of the JDK (module-info left out), sorted by module then name.
    pub fn class_entries(&self) -> Result<Vec<JdkClassEntry>, JdkError> {
        self.entries(None)
    }

    /// The classes of one module, sorted by name.
    pub fn module_class_entries(&self, module: &str) -> Result<Vec<JdkClassEntry>, JdkError> {
        self.entries(Some(module))
    }

    fn entries(&self, module: Option<&str>) -> Result<Vec<JdkClassEntry>, JdkError> {
        Ok(match &self.source {
            Source::Jmods(j) => j
                .class_entries(module)
                .into_iter()
                .map(|(module, name, e)| JdkClassEntry {
                    module,
                    name,
                    handle: Handle::Jmod(e),
                })
                .collect(),
            Source::Jimage(image) => image
                .class_locations()?
                .into_iter()
                .filter(|(m, _, _)| module.is_none_or(|wanted| wanted == m))
                .map(|(module, name, location)| JdkClassEntry {
                    module,
                    name,
                    handle: Handle::Jimage(location),
                })
                .collect(),
        })
    }

    /// Module names, sorted.
    pub fn modules(&self) -> Result<Vec<String>, JdkError> {
        match &self.source {
            Source::Jmods(j) => Ok(j.modules()),
            Source::Jimage(_) => {
                let mut modules: Vec<String> = self
                    .class_entries()?
                    .into_iter()
                    .map(|e| e.module)
                    .collect();
                modules.dedup();
                Ok(modules)
            }
        }
    }

    /// The bytes of a class listed by [`JdkImage::class_entries`].
    pub fn read_entry(&self, entry: &JdkClassEntry) -> Result<Vec<u8>, JdkError> {
        match (&self.source, entry.handle) {
            (Source::Jmods(j), Handle::Jmod(e)) => j.read(e),
            (Source::Jimage(image), Handle::Jimage(location)) => Ok(image.read(&location)?),
            _ => Err(JdkError::BadJmod {
                path: self.path().to_path_buf(),
                reason: format!("entry for {} comes from another JDK image", entry.name),
            }),
        }
    }

    /// Iterates over every class of the JDK with its bytes (module-info left out).
    pub fn classes(&self) -> Result<JdkClasses<'_>, JdkError> {
        Ok(JdkClasses {
            jdk: self,
            entries: self.class_entries()?.into_iter(),
        })
    }

    /// Iterates over the classes of one module with their bytes.
    pub fn module_classes(&self, module: &str) -> Result<JdkClasses<'_>, JdkError> {
        Ok(JdkClasses {
            jdk: self,
            entries: self.module_class_entries(module)?.into_iter(),
        })
    }
}

/// Iterator over JDK classes and their bytes; see [`JdkImage::classes`].
#[derive(Debug)]
pub struct JdkClasses<'a> {
    jdk: &'a JdkImage,
    entries: std::vec::IntoIter<JdkClassEntry>,
}

impl Iterator for JdkClasses<'_> {
    type Item = Result<JdkClass, JdkError>;

    fn next(&mut self) -> Option<Self::Item> {
        let entry = self.entries.next()?;
        Some(self.jdk.read_entry(&entry).map(|bytes| JdkClass {
            module: entry.module,
            name: entry.name,
            bytes,
        }))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for JdkClasses<'_> {}

fn has_jmods(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "jmod"))
    })
}

/// The JDK home: `JAVA_HOME` if set (and not empty), else the directory above the `bin`
/// holding the `java` found on `PATH`, with symbolic links resolved
/// (`/usr/bin/java` -> `/usr/lib/jvm/java-17-openjdk-amd64/bin/java`).
pub fn find_home() -> Result<PathBuf, JdkError> {
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    let path = std::env::var_os("PATH").ok_or(JdkError::NotFound)?;
    let exe = if cfg!(windows) { "java.exe" } else { "java" };
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(exe);
        if !candidate.is_file() {
            continue;
        }
        let real = std::fs::canonicalize(&candidate).map_err(|source| JdkError::Io {
            path: candidate.clone(),
            source,
        })?;
        // .../bin/java -> ...
        if let Some(home) = real.parent().and_then(Path::parent) {
            return Ok(home.to_path_buf());
        }
    }
    Err(JdkError::NotFound)
}
