//! Rivet's Java classpath: user directories and jars plus the JDK's own classes (from
//! `jmods/*.jmod` or the `lib/modules` jimage), class lookup by internal name with parsed
//! classes cached, listings of user classes, and the type hierarchy.
//!
//! ```no_run
//! use std::sync::Arc;
//! use rivet_classpath::{Classpath, Hierarchy, JdkImage};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let jdk = Arc::new(JdkImage::locate()?);
//! let classpath = Arc::new(Classpath::parse("target/classes:lib/dep.jar", Some(jdk))?);
//! let list = classpath.class_file("java/util/ArrayList")?;
//! let hierarchy = Hierarchy::new(classpath.clone());
//! assert!(hierarchy.is_assignable("java/util/ArrayList", "java/util/List")?);
//! # Ok(()) }
//! ```

pub mod archive;
pub mod classpath;
pub mod entry;
pub mod error;
pub mod header;
pub mod hierarchy;
pub mod jdk;
pub mod jimage;
pub mod jmods;
pub mod name;
pub mod resource;
pub mod shared_file;

pub use classpath::{ClassOrigin, Classpath, EntryId, FoundClass, PATH_SEPARATOR};
pub use entry::ClasspathEntry;
pub use error::{ClasspathError, HierarchyError, JdkError, JimageError};
pub use header::ClassHeader;
pub use hierarchy::{Hierarchy, SubtypeScope};
pub use jdk::{find_home, JdkClass, JdkClassEntry, JdkClasses, JdkFormat, JdkImage};
pub use jimage::{ImageLocation, Jimage};
pub use resource::Resource;
