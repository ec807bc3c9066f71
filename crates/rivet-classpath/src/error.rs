//! Errors of the classpath, the JDK image readers and the type hierarchy; each names the
//! file, entry or class concerned.

use rivet_classfile::ClassName;
use std::path::PathBuf;

use rivet_classfile::ParseError;
use thiserror::Error;

/// Reading the `lib/modules` jimage file failed.
#[derive(Debug, Error)]
pub enum JimageError {
    #[error("cannot read jimage {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a jimage file (magic 0x{magic:08X}, expected 0xCAFEDADA)")]
    BadMagic { path: PathBuf, magic: u32 },
    #[error("jimage {path} has version {major}.{minor}; Rivet reads version 1.0")]
    UnsupportedVersion {
        path: PathBuf,
        major: u16,
        minor: u16,
    },
    #[error("jimage {path} is corrupt: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error(
        "jimage {path}: resource {resource} is compressed with '{decompressor}', \
         which Rivet cannot decompress (only 'zip' is supported; rebuild the image with \
         jlink --compress=zip-N or without compression)"
    )]
    UnsupportedCompression {
        path: PathBuf,
        resource: String,
        decompressor: String,
    },
    #[error("jimage {path}: resource {resource} does not decompress: {reason}")]
    BadCompressedResource {
        path: PathBuf,
        resource: String,
        reason: String,
    },
}

/// Finding or reading the JDK's own classes failed.
#[derive(Debug, Error)]
pub enum JdkError {
    #[error(
        "no JDK found: JAVA_HOME is not set and no `java` is on PATH \
         (set JAVA_HOME or pass the JDK's path)"
    )]
    NotFound,
    #[error("{home} is not a JDK: it has neither jmods/*.jmod nor lib/modules")]
    NoClasses { home: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a jmod file: {reason}")]
    BadJmod { path: PathBuf, reason: String },
    #[error("cannot read {entry} from {path}: {reason}")]
    JmodEntry {
        path: PathBuf,
        entry: String,
        reason: String,
    },
    #[error(transparent)]
    Jimage(#[from] JimageError),
}

/// A classpath could not be opened, or a class on it could not be read.
#[derive(Debug, Error)]
pub enum ClasspathError {
    #[error("classpath entry {path} does not exist")]
    MissingEntry { path: PathBuf },
    #[error("classpath entry {path} is not a readable jar or zip file: {reason}")]
    CorruptJar { path: PathBuf, reason: String },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {entry} from jar {path}: {reason}")]
    JarEntry {
        path: PathBuf,
        entry: String,
        reason: String,
    },
    /// The parse error names the class and method when it got that far.
    #[error("{path} does not parse: {source}")]
    BadClass {
        path: PathBuf,
        class: ClassName,
        #[source]
        source: Box<ParseError>,
    },
    #[error("{path} holds class {found} where class {class} was expected")]
    WrongName {
        path: PathBuf,
        class: ClassName,
        found: String,
    },
    #[error("JDK class {class}: {source}")]
    Jdk {
        class: ClassName,
        #[source]
        source: Box<JdkError>,
    },
}

/// A question about the type hierarchy could not be answered.
#[derive(Debug, Error)]
pub enum HierarchyError {
    #[error("class {class} is not on the classpath")]
    ClassNotFound { class: ClassName },
    #[error("{supertype}, a supertype of {class}, is not on the classpath")]
    MissingSupertype {
        class: ClassName,
        supertype: ClassName,
    },
    #[error("{descriptor} is not a valid type descriptor or internal name")]
    BadType { descriptor: String },
    #[error(transparent)]
    Classpath(#[from] ClasspathError),
    #[error(transparent)]
    Jdk(#[from] JdkError),
}
