//! The classpath: the JDK's classes (consulted first, like the boot class path) and the
//! user's directories and jars in order; class lookup with parsed-class caches, and
//! listings of the user's classes.

use rivet_classfile::ClassName;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use rivet_classfile::ClassFile;

use crate::entry::ClasspathEntry;
use crate::error::ClasspathError;
use crate::header::ClassHeader;
use crate::jdk::JdkImage;
use crate::name::{normalize_package, package_of};

/// Position of an entry on the user classpath (0 is the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntryId(pub usize);

/// Where a class was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassOrigin {
    /// A JDK module (`java.base`).
    Jdk { module: String },
    /// A user classpath entry.
    Entry(EntryId),
}

/// A class found on the classpath, with its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundClass {
    pub origin: ClassOrigin,
    /// The file it came from, for messages (`lib.jar!a/B.class`, `classes/a/B.class`, the
    /// jmods directory or jimage file).
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

type Cache<T> = RwLock<HashMap<String, Option<Arc<T>>>>;

/// A Java classpath. `Send + Sync`: lookups take `&self` and may run on many threads.
#[derive(Debug)]
pub struct Classpath {
    jdk: Option<Arc<JdkImage>>,
    entries: Vec<ClasspathEntry>,
    class_files: Cache<ClassFile>,
    headers: Cache<ClassHeader>,
}

/// The separator of classpath strings: `:` (`;` on Windows).
pub const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

impl Classpath {
    /// A classpath of already opened entries.
    pub fn new(entries: Vec<ClasspathEntry>, jdk: Option<Arc<JdkImage>>) -> Classpath {
        Classpath {
            jdk,
            entries,
            class_files: RwLock::new(HashMap::new()),
            headers: RwLock::new(HashMap::new()),
        }
    }

    /// Opens the directories and jars of a classpath string (`a/classes:lib/x.jar`).
    /// Empty elements are skipped; an element `dir/*` stands for the jars of `dir`, in name
    /// order, as for `java -cp`.
    pub fn parse(classpath: &str, jdk: Option<Arc<JdkImage>>) -> Result<Classpath, ClasspathError> {
        let mut paths = Vec::new();
        for element in classpath.split(PATH_SEPARATOR).filter(|e| !e.is_empty()) {
            match element.strip_suffix('*') {
                Some(dir) if dir.is_empty() || dir.ends_with('/') || dir.ends_with('\\') => {
                    paths.extend(jars_in(Path::new(if dir.is_empty() { "." } else { dir }))?);
                }
                _ => paths.push(PathBuf::from(element)),
            }
        }
        Classpath::from_paths(paths, jdk)
    }

    /// Opens the given directories and jars, in order.
    pub fn from_paths<P: AsRef<Path>>(
        paths: impl IntoIterator<Item = P>,
        jdk: Option<Arc<JdkImage>>,
    ) -> Result<Classpath, ClasspathError> {
        let entries = paths
            .into_iter()
            .map(|p| ClasspathEntry::open(p.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Classpath::new(entries, jdk))
    }

    pub fn jdk(&self) -> Option<&Arc<JdkImage>> {
        self.jdk.as_ref()
    }

    /// The user entries, in lookup order.
    pub fn entries(&self) -> &[ClasspathEntry] {
        &self.entries
    }

    /// Finds class `internal_name` (`java/util/LinkedList`, `a/b/Outer$Inner`): first in the
    /// JDK, then in the entries in order; the first found wins.
    pub fn find_class(&self, internal_name: &str) -> Result<Option<FoundClass>, ClasspathError> {
        if let Some(jdk) = &self.jdk {
            let found = jdk
                .find_class(internal_name)
                .map_err(|source| ClasspathError::Jdk {
                    class: ClassName::from_internal(internal_name),
                    source: Box::new(source),
                })?;
            if let Some(class) = found {
                return Ok(Some(FoundClass {
                    origin: ClassOrigin::Jdk {
                        module: class.module,
                    },
                    path: jdk.path().to_path_buf(),
                    bytes: class.bytes,
                }));
            }
        }
        for (i, entry) in self.entries.iter().enumerate() {
            if let Some(bytes) = entry.class_bytes(internal_name)? {
                return Ok(Some(FoundClass {
                    origin: ClassOrigin::Entry(EntryId(i)),
                    path: entry.class_path(internal_name),
                    bytes,
                }));
            }
        }
        Ok(None)
    }

    /// The class-file bytes of `internal_name`, if the classpath has it.
    pub fn class_bytes(&self, internal_name: &str) -> Result<Option<Vec<u8>>, ClasspathError> {
        Ok(self.find_class(internal_name)?.map(|c| c.bytes))
    }

    /// Where `internal_name` would be loaded from, if anywhere.
    pub fn origin(&self, internal_name: &str) -> Result<Option<ClassOrigin>, ClasspathError> {
        Ok(self.find_class(internal_name)?.map(|c| c.origin))
    }

    pub fn contains(&self, internal_name: &str) -> Result<bool, ClasspathError> {
        Ok(self.class_header(internal_name)?.is_some())
    }

    /// The parsed class `internal_name`, parsed once and cached.
    pub fn class_file(
        &self,
        internal_name: &str,
    ) -> Result<Option<Arc<ClassFile>>, ClasspathError> {
        cached(&self.class_files, internal_name, || {
            self.load(internal_name, |bytes| {
                let class = ClassFile::parse(bytes)?;
                let name = class.name()?.to_string();
                Ok((name, class))
            })
        })
    }

    /// The header (name, superclass, interfaces, flags) of class `internal_name`, read once
    /// and cached; cheaper than [`Classpath::class_file`].
    pub fn class_header(
        &self,
        internal_name: &str,
    ) -> Result<Option<Arc<ClassHeader>>, ClasspathError> {
        cached(&self.headers, internal_name, || {
            self.load(internal_name, |bytes| {
                let header = ClassHeader::parse(bytes)?;
                Ok((header.name.clone(), header))
            })
        })
    }

    /// Finds and parses a class with `parse` (which returns the class's own name too),
    /// wrapping errors with the class and where it came from.
    fn load<T>(
        &self,
        internal_name: &str,
        parse: impl Fn(&[u8]) -> Result<(String, T), rivet_classfile::ParseError>,
    ) -> Result<Option<T>, ClasspathError> {
        let Some(found) = self.find_class(internal_name)? else {
            return Ok(None);
        };
        let (name, value) = parse(&found.bytes).map_err(|source| ClasspathError::BadClass {
            path: found.path.clone(),
            class: ClassName::from_internal(internal_name),
            source: Box::new(source),
        })?;
        if name != internal_name {
            return Err(ClasspathError::WrongName {
                path: found.path,
                class: ClassName::from_internal(internal_name),
                found: name,
            });
        }
        Ok(Some(value))
    }

    /// Internal names of all classes of the user entries (not the JDK), sorted, each once.
    pub fn user_classes(&self) -> Result<Vec<String>, ClasspathError> {
        let mut names = BTreeSet::new();
        for entry in &self.entries {
            names.extend(entry.class_names()?);
        }
        Ok(names.into_iter().collect())
    }

    /// The user classes whose package is exactly `package` (`com.example` or `com/example`;
    /// empty for the unnamed package), sorted. Nested classes are included, subpackages not.
    pub fn package_classes(&self, package: &str) -> Result<Vec<String>, ClasspathError> {
        let package = normalize_package(package);
        let mut names = self.user_classes()?;
        names.retain(|n| package_of(n) == package);
        Ok(names)
    }

    /// The text resources in or below `package`'s directory on the user entries (the first
    /// entry's for a path two entries have), at most [`crate::resource::MAX_RESOURCES`].
    pub fn package_resources(
        &self,
        package: &str,
    ) -> Result<Vec<crate::resource::Resource>, ClasspathError> {
        let package = normalize_package(package);
        let mut found: Vec<crate::resource::Resource> = Vec::new();
        for entry in &self.entries {
            for r in entry.resources_under(&package)? {
                if !found.iter().any(|f| f.path == r.path) {
                    found.push(r);
                }
            }
        }
        found.truncate(crate::resource::MAX_RESOURCES);
        Ok(found)
    }
}

/// Looks `key` up in a cache, filling it with `load` on a miss (absent classes are cached too).
fn cached<T>(
    cache: &Cache<T>,
    key: &str,
    load: impl FnOnce() -> Result<Option<T>, ClasspathError>,
) -> Result<Option<Arc<T>>, ClasspathError> {
    if let Some(hit) = cache
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(key)
    {
        return Ok(hit.clone());
    }
    let value = load()?.map(Arc::new);
    cache
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(key.to_string(), value.clone());
    Ok(value)
}

/// The `*.jar` files of `dir` (any case), sorted.
fn jars_in(dir: &Path) -> Result<Vec<PathBuf>, ClasspathError> {
    let entries = std::fs::read_dir(dir).map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ClasspathError::MissingEntry {
                path: dir.to_path_buf(),
            }
        } else {
            ClasspathError::Io {
                path: dir.to_path_buf(),
                source,
            }
        }
    })?;
    let mut jars: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("jar")))
        .collect();
    jars.sort();
    Ok(jars)
}
