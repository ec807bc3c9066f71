//! What the API model's tests share: the model of a class on a class path (with the running
//! JDK), as a test in the class's package sees it.

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use rivet_api::{AccessMode, ApiModel};
use rivet_classpath::{Classpath, JdkImage};

/// The class path of `paths` and the running JDK.
pub fn classpath(paths: Vec<PathBuf>) -> Arc<Classpath> {
    let jdk = Arc::new(JdkImage::locate().expect("a JDK"));
    Arc::new(Classpath::from_paths(paths, Some(jdk)).expect("classpath"))
}

/// The model of `class` (binary name) on `paths`, as a test in its package sees it.
pub fn model_on(paths: Vec<PathBuf>, class: &str) -> ApiModel {
    ApiModel::build(
        classpath(paths),
        &rivet_classfile::ClassName::from_binary(class),
        None,
        AccessMode::SamePackage,
    )
    .unwrap()
}

/// The model of `class` in the Debian jars named (`guava`, `closure-compiler`).
pub fn model_in_jars(jars: &[&str], class: &str) -> ApiModel {
    model_on(
        jars.iter().map(|j| rivet_testkit::debian_jar(j)).collect(),
        class,
    )
}
