//! A Java project on disk as Rivet needs it: its compiled classes, its dependency classpath,
//! the JUnit version its tests use (and so how they may expect exceptions: JUnit 4 before
//! 4.13 has no `assertThrows`), its source and test-source directories, and the JUnit
//! jars of the local Maven repository; from Maven's `pom.xml` (the classpath from
//! `mvn dependency:build-classpath` offline, else from the local repository) or Gradle's
//! standard layout (the classpath given by the user). Asking Maven is the one process this
//! crate starts.

pub mod pom;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rivet_junit::{ExpectedExceptions, JUnitVersion};
use thiserror::Error;

pub use pom::{Dependency, Pom};

#[derive(Debug, Error)]
pub enum ProjectError {
    #[error("{dir}: no pom.xml, build.gradle or build.gradle.kts: not a Maven or Gradle project")]
    NoBuildFile { dir: PathBuf },
    #[error("{dir}: no such directory")]
    NoDirectory { dir: PathBuf },
    #[error("{path}: {reason}")]
    Pom { path: PathBuf, reason: String },
    #[error("{dir}: no compiled classes in {classes}: build the project first ({hint})")]
    NotBuilt {
        dir: PathBuf,
        classes: PathBuf,
        hint: &'static str,
    },
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildTool {
    Maven,
    Gradle,
}

/// Where a project's dependency classpath came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClasspathSource {
    /// The user's `--classpath`.
    User,
    /// `mvn -o dependency:build-classpath`.
    Maven,
    /// The POM's direct dependencies found in local repositories (not their dependencies).
    LocalRepository,
    /// Nothing was needed or found.
    None,
}

/// A project, resolved.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    pub tool: BuildTool,
    pub name: String,
    /// Compiled classes of the main sources.
    pub classes: PathBuf,
    pub main_sources: PathBuf,
    pub test_sources: PathBuf,
    pub junit: JUnitVersion,
    /// False when the build names no JUnit (JUnit 5 is then assumed).
    pub junit_detected: bool,
    /// The version of JUnit 4 (`junit:junit`) when the build file itself names it.
    pub junit4_version: Option<String>,
    pub dependencies: Vec<PathBuf>,
    pub classpath_source: ClasspathSource,
    /// Dependencies that could not be found (with `LocalRepository`).
    pub unresolved: Vec<String>,
    /// The JUnit jars of the project's JUnit version found in the local Maven repository
    /// (empty: the system's are used).
    pub junit_jars: Vec<PathBuf>,
}

/// How to open a project.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// The dependency classpath, when the user gives it.
    pub classpath: Option<String>,
    /// The `mvn` command.
    pub maven: PathBuf,
    /// Local Maven repositories searched for dependencies and JUnit, in order.
    pub repositories: Vec<PathBuf>,
    /// How long Maven may take to print the classpath.
    pub maven_timeout: Duration,
    /// Settings Maven is asked with again when it fails with the user's own (Debian's
    /// `settings-debian.xml`: its packaged repository, offline).
    pub fallback_settings: Option<PathBuf>,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        let mut repositories = Vec::new();
        if let Some(home) = std::env::var_os("HOME") {
            repositories.push(PathBuf::from(home).join(".m2/repository"));
        }
        repositories.push(PathBuf::from("/usr/share/maven-repo"));
        OpenOptions {
            classpath: None,
            maven: PathBuf::from("mvn"),
            repositories,
            maven_timeout: Duration::from_secs(120),
            fallback_settings: Some(PathBuf::from("/etc/maven/settings-debian.xml"))
                .filter(|p| p.is_file()),
        }
    }
}

fn read(path: &Path) -> Result<String, ProjectError> {
    std::fs::read_to_string(path).map_err(|source| ProjectError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn split_classpath(text: &str) -> Vec<PathBuf> {
    text.trim()
        .split(':')
        .filter(|e| !e.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// Opens the project in `dir`.
pub fn open(dir: &Path, options: &OpenOptions) -> Result<Project, ProjectError> {
    let root = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !root.is_dir() {
        return Err(ProjectError::NoDirectory { dir: root });
    }
    let pom_path = root.join("pom.xml");
    let gradle = ["build.gradle", "build.gradle.kts"]
        .iter()
        .map(|f| root.join(f))
        .find(|p| p.is_file());
    if pom_path.is_file() {
        let pom = Pom::parse(&read(&pom_path)?, &pom_path)?;
        let classes = root.join("target/classes");
        if !classes.is_dir() {
            return Err(ProjectError::NotBuilt {
                dir: root,
                classes,
                hint: "mvn compile",
            });
        }
        let (junit, junit_detected) = match pom.junit() {
            Some(v) => (v, true),
            None => (JUnitVersion::Five, false),
        };
        let (dependencies, classpath_source, unresolved) = match &options.classpath {
            Some(cp) => (split_classpath(cp), ClasspathSource::User, Vec::new()),
            None => maven_classpath(&root, &pom, options),
        };
        return Ok(Project {
            name: pom.artifact.clone(),
            tool: BuildTool::Maven,
            classes,
            main_sources: root.join("src/main/java"),
            test_sources: root.join("src/test/java"),
            junit,
            junit_detected,
            junit4_version: pom.junit4_version(),
            dependencies,
            classpath_source,
            unresolved,
            junit_jars: junit_jars(junit, &options.repositories),
            root,
        });
    }
    if let Some(build) = gradle {
        let text = read(&build)?;
        let classes = root.join("build/classes/java/main");
        if !classes.is_dir() {
            return Err(ProjectError::NotBuilt {
                dir: root,
                classes,
                hint: "gradle classes",
            });
        }
        let (junit, junit_detected) = if text.contains("junit-jupiter") {
            (JUnitVersion::Five, true)
        } else if text.contains("junit:junit") {
            (JUnitVersion::Four, true)
        } else {
            (JUnitVersion::Five, false)
        };
        let (dependencies, classpath_source) = match &options.classpath {
            Some(cp) => (split_classpath(cp), ClasspathSource::User),
            None => (Vec::new(), ClasspathSource::None),
        };
        return Ok(Project {
            name: root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            tool: BuildTool::Gradle,
            classes,
            main_sources: root.join("src/main/java"),
            test_sources: root.join("src/test/java"),
            junit,
            junit_detected,
            junit4_version: gradle_junit4_version(&text),
            dependencies,
            classpath_source,
            unresolved: Vec::new(),
            junit_jars: junit_jars(junit, &options.repositories),
            root,
        });
    }
    Err(ProjectError::NoBuildFile { dir: root })
}

impl Project {
    /// The classpath the project's classes run on: its compiled classes, then its
    /// dependencies, `:`-separated.
    pub fn classpath(&self) -> String {
        std::iter::once(&self.classes)
            .chain(&self.dependencies)
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":")
    }

    /// The JUnit jars the tests compile and run with, `:`-separated: those of the project's
    /// JUnit found in the local Maven repository; None when they are not all there (the
    /// system's are used).
    pub fn test_classpath(&self) -> Option<String> {
        if self.junit_jars.is_empty() {
            return None;
        }
        let jars: Vec<String> = self
            .junit_jars
            .iter()
            .map(|j| j.display().to_string())
            .collect();
        Some(jars.join(":"))
    }

    /// How tests for `junit` expect exceptions in this project: with `assertThrows`, unless
    /// they are JUnit 4 tests and the project's JUnit 4 is older than 4.13 (which added
    /// `assertThrows`) or its version is not in the build file (set by a parent POM, say):
    /// then with `try`/`fail`/`catch`, which every JUnit 4 runs.
    pub fn expected_exceptions(&self, junit: JUnitVersion) -> ExpectedExceptions {
        match junit {
            JUnitVersion::Five => ExpectedExceptions::AssertThrows,
            JUnitVersion::Four => match self.junit4_version.as_deref().and_then(major_minor) {
                Some(v) if v >= (4, 13) => ExpectedExceptions::AssertThrows,
                _ => ExpectedExceptions::TryCatch,
            },
        }
    }
}

/// `(major, minor)` of a version such as `4.13.2` or `4.13-beta-1`; None for a range or
/// anything else.
fn major_minor(version: &str) -> Option<(u32, u32)> {
    let (major, rest) = version.trim().split_once('.')?;
    let minor: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The version in a Gradle build's `junit:junit:4.12` coordinates.
fn gradle_junit4_version(build: &str) -> Option<String> {
    let (_, rest) = build.split_once("junit:junit:")?;
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .collect();
    (!version.is_empty()).then_some(version)
}

/// The runtime classpath Maven computes offline; failing that, the POM's direct dependencies
/// from the local repositories.
fn maven_classpath(
    root: &Path,
    pom: &Pom,
    options: &OpenOptions,
) -> (Vec<PathBuf>, ClasspathSource, Vec<String>) {
    let runtime: Vec<&Dependency> = pom
        .dependencies
        .iter()
        .filter(|d| {
            matches!(
                d.scope.as_str(),
                "compile" | "runtime" | "provided" | "system"
            )
        })
        .collect();
    if runtime.is_empty() {
        return (Vec::new(), ClasspathSource::None, Vec::new());
    }
    let settings = [None, options.fallback_settings.as_deref()];
    for s in settings
        .iter()
        .take(if options.fallback_settings.is_some() {
            2
        } else {
            1
        })
    {
        if let Some(cp) = ask_maven(root, options, *s) {
            return (split_classpath(&cp), ClasspathSource::Maven, Vec::new());
        }
    }
    let mut found = Vec::new();
    let mut unresolved = Vec::new();
    for d in runtime {
        let coordinates = format!(
            "{}:{}:{}",
            d.group,
            d.artifact,
            d.version.as_deref().unwrap_or("?")
        );
        match d
            .version
            .as_deref()
            .and_then(|v| find_jar(&options.repositories, &d.group, &d.artifact, Some(v)))
        {
            Some(jar) => found.push(jar),
            None => unresolved.push(coordinates),
        }
    }
    (found, ClasspathSource::LocalRepository, unresolved)
}

/// `mvn -q -o dependency:build-classpath` in `root` (with `settings` if given), within the
/// timeout; None if Maven is missing, fails or is too slow.
fn ask_maven(root: &Path, options: &OpenOptions, settings: Option<&Path>) -> Option<String> {
    let out = std::env::temp_dir().join(format!("rivet-mvn-classpath-{}.txt", std::process::id()));
    let mut command = Command::new(&options.maven);
    if let Some(s) = settings {
        command.arg("-s").arg(s);
    }
    let mut child = command
        .current_dir(root)
        .args([
            "-q",
            "-o",
            "-B",
            "dependency:build-classpath",
            "-Dmdep.includeScope=runtime",
        ])
        .arg(format!("-Dmdep.outputFile={}", out.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < options.maven_timeout => {
                std::thread::sleep(Duration::from_millis(100));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::info!("mvn dependency:build-classpath timed out");
                return None;
            }
        }
    };
    let text = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    if !status.success() {
        tracing::info!(%status, "mvn dependency:build-classpath failed");
        return None;
    }
    text
}

/// The jar of `group:artifact` (at `version`, else the highest version directory) in the
/// first repository that has it; Debian's repository also names versions `debian`.
fn find_jar(
    repositories: &[PathBuf],
    group: &str,
    artifact: &str,
    version: Option<&str>,
) -> Option<PathBuf> {
    for repo in repositories {
        let dir = repo.join(group.replace('.', "/")).join(artifact);
        let mut versions: Vec<String> = match version {
            Some(v) => vec![v.to_string(), "debian".to_string()],
            None => {
                let mut v: Vec<String> = std::fs::read_dir(&dir)
                    .map(|r| {
                        r.flatten()
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                v.sort();
                v.reverse();
                v
            }
        };
        versions.dedup();
        for v in versions {
            let jar = dir.join(&v).join(format!("{artifact}-{v}.jar"));
            if jar.is_file() {
                return Some(jar);
            }
        }
    }
    None
}

/// The jars a test of `junit` compiles and runs with, from the local repositories; empty
/// unless all are there.
fn junit_jars(junit: JUnitVersion, repositories: &[PathBuf]) -> Vec<PathBuf> {
    let wanted: &[(&str, &str)] = match junit {
        JUnitVersion::Five => &[
            ("org.junit.jupiter", "junit-jupiter-api"),
            ("org.junit.platform", "junit-platform-commons"),
            ("org.opentest4j", "opentest4j"),
            ("org.apiguardian", "apiguardian-api"),
        ],
        JUnitVersion::Four => &[("junit", "junit"), ("org.hamcrest", "hamcrest-core")],
    };
    // Only the user's repository: Debian's jars are what the verifier finds anyway.
    let user: Vec<PathBuf> = repositories
        .iter()
        .filter(|r| !r.starts_with("/usr/share"))
        .cloned()
        .collect();
    let found: Option<Vec<PathBuf>> = wanted
        .iter()
        .map(|(g, a)| find_jar(&user, g, a, None))
        .collect();
    let mut jars = found.unwrap_or_default();
    if !jars.is_empty() {
        if let Some(launcher) = find_jar(
            &user,
            "org.junit.platform",
            "junit-platform-console-standalone",
            None,
        ) {
            jars.push(launcher);
        }
    }
    jars
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(repo: &Path) -> OpenOptions {
        OpenOptions {
            classpath: None,
            // No Maven: the local repository is searched.
            maven: PathBuf::from("/nonexistent/mvn"),
            repositories: vec![repo.to_path_buf()],
            maven_timeout: Duration::from_secs(5),
            fallback_settings: None,
        }
    }

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap_or(p)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(p, b"").unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn a_maven_project_resolves_classes_dependencies_and_junit_from_the_local_repository() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("shop");
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(root.join("target/classes")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            root.join("pom.xml"),
            r#"<project><artifactId>shop</artifactId><dependencies>
              <dependency><groupId>a.b</groupId><artifactId>lib</artifactId><version>1.2</version></dependency>
              <dependency><groupId>c</groupId><artifactId>gone</artifactId><version>3</version></dependency>
              <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
            </dependencies></project>"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        touch(&repo.join("a/b/lib/1.2/lib-1.2.jar"));
        touch(&repo.join("junit/junit/4.13.2/junit-4.13.2.jar"));
        touch(&repo.join("org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar"));
        let p = open(&root, &options(&repo)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.tool, BuildTool::Maven);
        assert_eq!(p.junit, JUnitVersion::Four);
        assert!(p.junit_detected);
        assert_eq!(p.classpath_source, ClasspathSource::LocalRepository);
        assert_eq!(p.dependencies, vec![repo.join("a/b/lib/1.2/lib-1.2.jar")]);
        assert_eq!(p.unresolved, vec!["c:gone:3".to_string()]);
        assert_eq!(p.junit_jars.len(), 2);
        // The classes first, then the dependencies; the JUnit jars of the repository.
        assert_eq!(
            p.classpath(),
            format!(
                "{}:{}",
                root.join("target/classes").display(),
                repo.join("a/b/lib/1.2/lib-1.2.jar").display()
            )
        );
        assert_eq!(
            p.test_classpath(),
            Some(format!(
                "{}:{}",
                repo.join("junit/junit/4.13.2/junit-4.13.2.jar").display(),
                repo.join("org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar")
                    .display()
            ))
        );
        assert_eq!(p.test_sources, root.join("src/test/java"));
        assert_eq!(p.junit4_version.as_deref(), Some("4.13.2"));
        assert_eq!(
            p.expected_exceptions(JUnitVersion::Four),
            ExpectedExceptions::AssertThrows
        );
    }

    #[test]
    fn junit_4_before_4_13_or_of_unknown_version_expects_exceptions_with_try_catch() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("old");
        std::fs::create_dir_all(root.join("target/classes")).unwrap_or_else(|e| panic!("{e}"));
        let project = |version: &str| {
            std::fs::write(
                root.join("pom.xml"),
                format!(
                    r#"<project><artifactId>old</artifactId><dependencies>
                  <dependency><groupId>junit</groupId><artifactId>junit</artifactId>{version}<scope>test</scope></dependency>
                </dependencies></project>"#
                ),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            open(&root, &options(dir.path())).unwrap_or_else(|e| panic!("{e}"))
        };
        for (version, expected) in [
            ("<version>4.12</version>", ExpectedExceptions::TryCatch),
            ("<version>4.8.2</version>", ExpectedExceptions::TryCatch),
            ("<version>4.13</version>", ExpectedExceptions::AssertThrows),
            (
                "<version>4.13-beta-1</version>",
                ExpectedExceptions::AssertThrows,
            ),
            (
                "<version>4.13.2</version>",
                ExpectedExceptions::AssertThrows,
            ),
            // Set by a parent POM, or a range: every JUnit 4 runs try/catch.
            (
                "<version>${junit.version}</version>",
                ExpectedExceptions::TryCatch,
            ),
            ("", ExpectedExceptions::TryCatch),
            ("<version>[4.12,5)</version>", ExpectedExceptions::TryCatch),
        ] {
            let p = project(version);
            assert_eq!(p.junit, JUnitVersion::Four);
            assert_eq!(
                p.expected_exceptions(JUnitVersion::Four),
                expected,
                "{version}"
            );
            // JUnit 5 tests have assertThrows whatever JUnit 4 the project has.
            assert_eq!(
                p.expected_exceptions(JUnitVersion::Five),
                ExpectedExceptions::AssertThrows
            );
        }
        assert_eq!(
            gradle_junit4_version("testImplementation 'junit:junit:4.12'").as_deref(),
            Some("4.12")
        );
        assert_eq!(gradle_junit4_version("testImplementation libs.junit"), None);
    }

    #[test]
    fn a_project_without_junit_jars_in_the_repository_leaves_the_test_classpath_to_the_system() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("bare");
        std::fs::create_dir_all(root.join("target/classes")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            root.join("pom.xml"),
            "<project><artifactId>bare</artifactId></project>",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let p =
            open(&root, &options(&dir.path().join("empty-repo"))).unwrap_or_else(|e| panic!("{e}"));
        assert!(p.junit_jars.is_empty());
        assert_eq!(p.test_classpath(), None);
        // No dependencies: the compiled classes alone.
        assert_eq!(
            p.classpath(),
            root.join("target/classes").display().to_string()
        );
    }

    #[test]
    fn unbuilt_and_unknown_projects_are_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let e = open(dir.path(), &OpenOptions::default()).err();
        assert!(matches!(e, Some(ProjectError::NoBuildFile { .. })), "{e:?}");
        let e = open(&dir.path().join("gone"), &OpenOptions::default()).err();
        assert!(matches!(e, Some(ProjectError::NoDirectory { .. })), "{e:?}");
        std::fs::write(
            dir.path().join("pom.xml"),
            "<project><artifactId>x</artifactId></project>",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let e = open(dir.path(), &OpenOptions::default()).err();
        assert!(
            e.as_ref()
                .is_some_and(|e| e.to_string().contains("mvn compile")),
            "{e:?}"
        );
    }
}
