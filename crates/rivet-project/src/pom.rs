//! The parts of a Maven `pom.xml` Rivet reads: coordinates, properties and dependencies
//! (with `${property}` references resolved from the POM's own properties).

use std::collections::BTreeMap;
use std::path::Path;

use crate::ProjectError;

/// One `<dependency>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub group: String,
    pub artifact: String,
    pub version: Option<String>,
    /// `compile` when not given.
    pub scope: String,
}

/// What Rivet reads of a POM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pom {
    pub group: Option<String>,
    pub artifact: String,
    pub dependencies: Vec<Dependency>,
}

fn child_text<'a>(node: roxmltree::Node<'a, 'a>, name: &str) -> Option<&'a str> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
        .and_then(|c| c.text())
        .map(str::trim)
}

/// `${name}` references replaced from `properties` (and `project.version`).
fn resolve(text: &str, properties: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match properties.get(name) {
                    Some(v) => out.push_str(v),
                    None => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

impl Pom {
    pub fn parse(text: &str, path: &Path) -> Result<Pom, ProjectError> {
        let bad = |reason: String| ProjectError::Pom {
            path: path.to_path_buf(),
            reason,
        };
        let doc = roxmltree::Document::parse(text).map_err(|e| bad(e.to_string()))?;
        let project = doc.root_element();
        if project.tag_name().name() != "project" {
            return Err(bad(format!(
                "the root element is <{}>, not <project>",
                project.tag_name().name()
            )));
        }
        let mut properties = BTreeMap::new();
        if let Some(props) = project
            .children()
            .find(|c| c.is_element() && c.tag_name().name() == "properties")
        {
            for p in props.children().filter(|c| c.is_element()) {
                if let Some(v) = p.text() {
                    properties.insert(p.tag_name().name().to_string(), v.trim().to_string());
                }
            }
        }
        if let Some(v) = child_text(project, "version") {
            properties.insert("project.version".into(), v.to_string());
        }
        let artifact = child_text(project, "artifactId")
            .ok_or_else(|| bad("no <artifactId>".into()))?
            .to_string();
        let group = child_text(project, "groupId").map(str::to_string);
        let mut dependencies = Vec::new();
        // Only the project's own <dependencies>, not <dependencyManagement>'s.
        if let Some(deps) = project
            .children()
            .find(|c| c.is_element() && c.tag_name().name() == "dependencies")
        {
            for d in deps
                .children()
                .filter(|c| c.is_element() && c.tag_name().name() == "dependency")
            {
                let (Some(g), Some(a)) = (child_text(d, "groupId"), child_text(d, "artifactId"))
                else {
                    return Err(bad("a <dependency> without groupId or artifactId".into()));
                };
                dependencies.push(Dependency {
                    group: resolve(g, &properties),
                    artifact: resolve(a, &properties),
                    version: child_text(d, "version").map(|v| resolve(v, &properties)),
                    scope: child_text(d, "scope").unwrap_or("compile").to_string(),
                });
            }
        }
        Ok(Pom {
            group,
            artifact,
            dependencies,
        })
    }

    /// The JUnit the project's tests use: 5 when it depends on JUnit Jupiter, 4 when on
    /// `junit:junit` alone; None when it names neither.
    pub fn junit(&self) -> Option<rivet_junit::JUnitVersion> {
        let jupiter = self
            .dependencies
            .iter()
            .any(|d| d.group == "org.junit.jupiter" || d.group == "org.junit");
        let four = self
            .dependencies
            .iter()
            .any(|d| d.group == "junit" && d.artifact == "junit");
        if jupiter {
            Some(rivet_junit::JUnitVersion::Five)
        } else if four {
            Some(rivet_junit::JUnitVersion::Four)
        } else {
            None
        }
    }

    /// The version of the `junit:junit` dependency, when the POM itself settles it (not
    /// through a parent or an unknown property).
    pub fn junit4_version(&self) -> Option<String> {
        self.dependencies
            .iter()
            .find(|d| d.group == "junit" && d.artifact == "junit")
            .and_then(|d| d.version.clone())
            .filter(|v| !v.contains("${"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POM: &str = r#"<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>shop</artifactId>
  <version>1.0</version>
  <properties><lang3.version>3.12.0</lang3.version></properties>
  <dependencyManagement><dependencies><dependency>
    <groupId>x</groupId><artifactId>managed</artifactId><version>9</version>
  </dependency></dependencies></dependencyManagement>
  <dependencies>
    <dependency>
      <groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId>
      <version>${lang3.version}</version>
    </dependency>
    <dependency>
      <groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
</project>"#;

    #[test]
    fn dependencies_with_properties_and_the_junit_version() {
        let pom = Pom::parse(POM, Path::new("pom.xml")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pom.artifact, "shop");
        assert_eq!(pom.dependencies.len(), 2);
        assert_eq!(pom.dependencies[0].version.as_deref(), Some("3.12.0"));
        assert_eq!(pom.dependencies[0].scope, "compile");
        assert_eq!(pom.dependencies[1].scope, "test");
        assert_eq!(pom.junit(), Some(rivet_junit::JUnitVersion::Four));
        assert_eq!(pom.junit4_version().as_deref(), Some("4.13.2"));
        let by_property = POM
            .replace(
                "<version>4.13.2</version>",
                "<version>${junit.version}</version>",
            )
            .replace(
                "<properties>",
                "<properties><junit.version>4.12</junit.version>",
            );
        let pom = Pom::parse(&by_property, Path::new("pom.xml")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pom.junit4_version().as_deref(), Some("4.12"));
        let from_parent = POM.replace("<version>4.13.2</version>", "<version>${junit.v}</version>");
        let pom = Pom::parse(&from_parent, Path::new("pom.xml")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pom.junit4_version(), None);
        let five = POM.replace(
            "<groupId>junit</groupId><artifactId>junit</artifactId>",
            "<groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId>",
        );
        let pom = Pom::parse(&five, Path::new("pom.xml")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pom.junit(), Some(rivet_junit::JUnitVersion::Five));
    }

    #[test]
    fn a_file_that_is_not_a_pom_is_refused_with_the_reason() {
        for text in ["<nope/>", "not xml", "<project></project>"] {
            let e = Pom::parse(text, Path::new("p/pom.xml")).err();
            assert!(
                e.as_ref()
                    .is_some_and(|e| e.to_string().contains("p/pom.xml")),
                "{e:?}"
            );
        }
    }
}
