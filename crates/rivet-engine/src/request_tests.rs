//! What a request settles into: where tests and reports go with and without `--out`, for a
//! project and a classpath; the JUnit and how tests expect exceptions; the test classpath;
//! one class or many.

use super::*;

use std::time::Duration;

fn request() -> GenerateRequest {
    GenerateRequest {
        project: None,
        classpath: None,
        classes: Vec::new(),
        package: None,
        all: false,
        target: None,
        method: None,
        out: None,
        junit: None,
        test_classpath: None,
        sourcepath: None,
        shard: None,
        total_budget_s: None,
        parallel_classes: None,
        settings: GenerateConfig::new(
            "",
            &rivet_classfile::ClassName::from_binary(""),
            PathBuf::new(),
        ),
    }
}

fn classpath_request(classes: &[&str]) -> GenerateRequest {
    GenerateRequest {
        classpath: Some("/cp/classes:/cp/lib.jar".into()),
        out: Some(PathBuf::from("/tmp/rivet-out")),
        classes: classes.iter().map(|c| ClassName::from_binary(c)).collect(),
        ..request()
    }
}

fn bad_input(result: Result<RunPlan, EngineError>) -> String {
    match result {
        Err(e @ EngineError::BadInput(_)) => e.to_string(),
        Err(e) => panic!("not bad input: {e}"),
        Ok(plan) => panic!("accepted: {plan:?}"),
    }
}

/// A Maven project `shop` whose pom names `junit` (a `<version>` element or nothing), built
/// (`target/classes`), with JUnit 4.12's jars in a local repository when `jars`.
struct Shop {
    dir: tempfile::TempDir,
}

impl Shop {
    fn new(junit: &str, jars: bool) -> Shop {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path().join("shop");
        std::fs::create_dir_all(root.join("target/classes")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            root.join("pom.xml"),
            format!(
                r#"<project><artifactId>shop</artifactId><dependencies>{junit}</dependencies></project>"#
            ),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        if jars {
            for jar in [
                "junit/junit/4.12/junit-4.12.jar",
                "org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar",
            ] {
                let path = dir.path().join("repo").join(jar);
                std::fs::create_dir_all(path.parent().unwrap_or(&path))
                    .unwrap_or_else(|e| panic!("{e}"));
                std::fs::write(&path, b"").unwrap_or_else(|e| panic!("{e}"));
            }
        }
        Shop { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("shop")
    }

    fn plan(&self, request: GenerateRequest) -> Result<RunPlan, EngineError> {
        let options = OpenOptions {
            classpath: None,
            // No Maven: the local repository is searched.
            maven: PathBuf::from("/nonexistent/mvn"),
            repositories: vec![self.dir.path().join("repo")],
            maven_timeout: Duration::from_secs(5),
            fallback_settings: None,
        };
        resolve_run_with(
            &GenerateRequest {
                project: Some(self.root()),
                ..request
            },
            &options,
        )
    }
}

const JUNIT_4_12: &str =
    "<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>";

#[test]
fn one_class_on_a_classpath_is_a_one_class_run_with_tests_and_report_in_out() {
    let plan = resolve_run(&classpath_request(&["a.B"])).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.shape, RunShape::OneClass);
    assert_eq!(plan.config.base.class, "a.B");
    assert_eq!(plan.config.base.classpath, "/cp/classes:/cp/lib.jar");
    assert_eq!(plan.config.base.out, PathBuf::from("/tmp/rivet-out"));
    assert_eq!(plan.report_dir(), Path::new("/tmp/rivet-out"));
    assert_eq!(plan.config.base.junit, JUnitVersion::Five);
    assert_eq!(plan.config.base.test_classpath, None);
    assert!(plan.project.is_none());
    // A shard or a total budget makes it a run over classes, even of one.
    for more in [
        GenerateRequest {
            shard: Some("1/2".into()),
            ..classpath_request(&["a.B"])
        },
        GenerateRequest {
            total_budget_s: Some(60),
            ..classpath_request(&["a.B"])
        },
        classpath_request(&["a.B", "a.C"]),
    ] {
        let plan = resolve_run(&more).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(plan.shape, RunShape::Classes, "{more:?}");
        assert_eq!(plan.report_dir(), Path::new("/tmp/rivet-out"));
    }
}

#[test]
fn junit_4_on_a_classpath_expects_exceptions_with_assert_throws_and_the_users_jars() {
    let plan = resolve_run(&GenerateRequest {
        junit: Some(JUnitVersion::Four),
        test_classpath: Some("/jars/junit.jar".into()),
        ..classpath_request(&["a.B"])
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.config.base.junit, JUnitVersion::Four);
    assert_eq!(
        plan.config.base.expected_exceptions,
        ExpectedExceptions::AssertThrows
    );
    assert_eq!(
        plan.config.base.test_classpath.as_deref(),
        Some("/jars/junit.jar")
    );
}

#[test]
fn a_classpath_run_is_refused_without_out_classes_or_with_a_method_of_many() {
    let no_out = bad_input(resolve_run(&GenerateRequest {
        out: None,
        ..classpath_request(&["a.B"])
    }));
    assert!(no_out.contains("--out"), "{no_out}");
    let nothing = bad_input(resolve_run(&classpath_request(&[])));
    assert!(nothing.contains("name the classes"), "{nothing}");
    let method = bad_input(resolve_run(&GenerateRequest {
        method: Some("m".into()),
        ..classpath_request(&["a.B", "a.C"])
    }));
    assert!(method.contains("--method"), "{method}");
    let shard = bad_input(resolve_run(&GenerateRequest {
        shard: Some("3/2".into()),
        ..classpath_request(&["a.B", "a.C"])
    }));
    assert!(shard.contains("--shard"), "{shard}");
}

#[test]
fn a_projects_tests_go_to_src_test_java_and_its_reports_to_target_rivet() {
    let shop = Shop::new(JUNIT_4_12, true);
    let root = shop.root();
    let plan = shop.plan(request()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.shape, RunShape::Classes);
    assert_eq!(plan.config.base.out, root.join("src/test/java"));
    assert_eq!(plan.report_dir(), root.join("target/rivet"));
    assert_eq!(
        plan.config.selection,
        ClassSelection::All(Some(root.join("target/classes")))
    );
    assert_eq!(
        plan.config.base.classpath,
        root.join("target/classes").display().to_string()
    );
    assert_eq!(
        plan.sourcepath,
        Some(root.join("src/main/java").display().to_string())
    );
    // With --out, both go there; one named class of a project is still a project run.
    let plan = shop
        .plan(GenerateRequest {
            out: Some(PathBuf::from("/tmp/elsewhere")),
            classes: vec!["shop.Cart".into()],
            ..request()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.shape, RunShape::Classes);
    assert_eq!(plan.config.base.out, PathBuf::from("/tmp/elsewhere"));
    assert_eq!(plan.report_dir(), Path::new("/tmp/elsewhere"));
    assert_eq!(
        plan.config.selection,
        ClassSelection::Classes(vec!["shop.Cart".into()])
    );
}

#[test]
fn a_projects_junit_4_12_expects_exceptions_with_try_catch_and_runs_on_its_own_jars() {
    let shop = Shop::new(JUNIT_4_12, true);
    let repo = shop.dir.path().join("repo");
    let plan = shop.plan(request()).unwrap_or_else(|e| panic!("{e}"));
    let base = &plan.config.base;
    assert_eq!(base.junit, JUnitVersion::Four);
    assert_eq!(base.expected_exceptions, ExpectedExceptions::TryCatch);
    assert_eq!(
        base.test_classpath,
        Some(format!(
            "{}:{}",
            repo.join("junit/junit/4.12/junit-4.12.jar").display(),
            repo.join("org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar")
                .display()
        ))
    );
    let found = plan.project.unwrap_or_else(|| panic!("no project"));
    assert_eq!(found.name, "shop");
    assert_eq!(found.junit, JUnitVersion::Four);
    assert!(!found.junit_assumed);
    assert_eq!(found.junit4_version.as_deref(), Some("4.12"));
    // The user's jars win over the repository's; --junit 5 has assertThrows.
    let plan = shop
        .plan(GenerateRequest {
            junit: Some(JUnitVersion::Five),
            test_classpath: Some("/jars/mine.jar".into()),
            ..request()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.config.base.junit, JUnitVersion::Five);
    assert_eq!(
        plan.config.base.expected_exceptions,
        ExpectedExceptions::AssertThrows
    );
    assert_eq!(
        plan.config.base.test_classpath.as_deref(),
        Some("/jars/mine.jar")
    );
}

#[test]
fn a_project_naming_no_junit_assumes_5_on_the_systems_jars() {
    let shop = Shop::new("", false);
    let plan = shop.plan(request()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(plan.config.base.junit, JUnitVersion::Five);
    assert_eq!(plan.config.base.test_classpath, None);
    assert!(plan.project.as_ref().is_some_and(|p| p.junit_assumed));
    // Said by the user, it is not assumed.
    let plan = shop
        .plan(GenerateRequest {
            junit: Some(JUnitVersion::Five),
            ..request()
        })
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(plan.project.as_ref().is_some_and(|p| !p.junit_assumed));
}

#[test]
fn a_missing_or_unbuilt_project_is_bad_input_naming_its_directory() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let gone = dir.path().join("gone");
    let e = resolve_run(&GenerateRequest {
        project: Some(gone.clone()),
        ..request()
    })
    .err()
    .unwrap_or_else(|| panic!("accepted"));
    assert!(e.is_bad_input(), "{e}");
    assert!(e.to_string().contains(&gone.display().to_string()), "{e}");
}
