//! Rivet's HTML report: `rivet-report.html` over the classes of a run (coverage bars,
//! figures, why a class was skipped or failed) and a page per class under `rivet-html/`
//! (per method each branch, covered or not, its covering test or why not, and the source with
//! its lines marked when a source path is given). Static files: no server, no script, no
//! network fonts. Rendered from minijinja templates over the typed reports.

use std::path::{Path, PathBuf};

use minijinja::{context, Environment};
use rivet_classfile::ClassName;
use rivet_report::{BranchRow, ClassStatus, MutantStatus, ProjectReport, Report};
use serde::Serialize;
use std::collections::BTreeMap;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum HtmlError {
    #[error("reading the report {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the report {path} is not a Rivet report: {source}")]
    Parse {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("rendering {page}: {source}")]
    Template {
        page: String,
        #[source]
        source: minijinja::Error,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The index page's file name, in the output directory.
pub const INDEX: &str = "rivet-report.html";
/// The directory of the class pages, in the output directory.
pub const PAGES: &str = "rivet-html";

fn environment() -> Result<Environment<'static>, HtmlError> {
    let mut env = Environment::new();
    for (name, text) in [
        ("base.html", include_str!("templates/base.html")),
        ("index.html", include_str!("templates/index.html")),
        ("class.html", include_str!("templates/class.html")),
    ] {
        env.add_template(name, text)
            .map_err(|source| HtmlError::Template {
                page: name.into(),
                source,
            })?;
    }
    Ok(env)
}

fn pct(covered: usize, total: usize) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * covered as f64 / total as f64
    }
}

/// A row of the index.
#[derive(Debug, Serialize)]
struct IndexRow {
    class: String,
    status: &'static str,
    reason: Option<String>,
    branches_covered: usize,
    branches_total: usize,
    tests: usize,
    elapsed_s: f64,
    verified: bool,
    pct: f64,
    page: Option<String>,
}

/// The branches of one method on a class page.
#[derive(Debug, Serialize)]
struct MethodRows<'a> {
    /// The member with its JVM descriptor (`a.b.C$D.m(ILjava/lang/Object;)V`).
    name: String,
    /// As a Java developer reads it (`C$D.m(int, Object)`).
    label: String,
    covered: usize,
    total: usize,
    branches: Vec<&'a BranchRow>,
}

#[derive(Debug, Serialize)]
struct SourceLine {
    number: usize,
    text: String,
    class: &'static str,
    /// The mutants on the line that no test killed (their descriptions).
    survivors: Vec<String>,
}

/// A surviving mutant, as the page lists it.
#[derive(Debug, Serialize)]
struct Survivor {
    line: String,
    method: String,
    operator: String,
    description: String,
}

/// The mutants of the page's class (not those of nested classes) no test killed, by line.
fn survivors_by_line(report: &Report) -> BTreeMap<u32, Vec<String>> {
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for r in report.mutation.iter().flat_map(|m| &m.rows) {
        if r.status == MutantStatus::Survived && r.is_of(&report.class) {
            if let Some(l) = r.line {
                out.entry(l).or_default().push(r.description.clone());
            }
        }
    }
    out
}

#[derive(Debug, Serialize)]
struct SourceView {
    file: String,
    lines: Vec<SourceLine>,
}

fn write(path: &Path, text: &str) -> Result<(), HtmlError> {
    let err = |source| HtmlError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    std::fs::write(path, text).map_err(err)
}

fn read_report(path: &Path) -> Result<Report, HtmlError> {
    let text = std::fs::read_to_string(path).map_err(|source| HtmlError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| HtmlError::Parse {
        path: path.to_path_buf(),
        source,
    })
}

/// The source file of `class` under one of `sourcepath`, with each line marked by the
/// coverage of the branches on it.
fn source_view(
    class: &ClassName,
    rows: &[BranchRow],
    survivors: &BTreeMap<u32, Vec<String>>,
    sourcepath: &[PathBuf],
) -> Option<SourceView> {
    let outer = class.internal().split('$').next().unwrap_or_default();
    let relative = format!("{outer}.java");
    let (file, text) = sourcepath.iter().find_map(|dir| {
        let f = dir.join(&relative);
        std::fs::read_to_string(&f).ok().map(|t| (f, t))
    })?;
    let lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let number = i + 1;
            let on: Vec<&BranchRow> = rows
                .iter()
                .filter(|r| r.line.map(usize::from) == Some(number))
                .collect();
            let covered = on.iter().filter(|r| r.covered).count();
            let class = match (on.len(), covered) {
                (0, _) => "",
                (n, c) if c == n => "full",
                (_, 0) => "none",
                _ => "part",
            };
            SourceLine {
                number,
                text: line.to_string(),
                class,
                survivors: survivors.get(&(number as u32)).cloned().unwrap_or_default(),
            }
        })
        .collect();
    Some(SourceView {
        file: file.display().to_string(),
        lines,
    })
}

/// A method as Java spells it, with simple type names: `add(int, Object)`; a constructor by
/// its class's name; a nested class's member prefixed with that class (`TreeList$AVLNode.`).
fn java_label(page_class: &ClassName, class: &ClassName, method: &str, descriptor: &str) -> String {
    let simple = |binary: &str| binary.rsplit('.').next().unwrap_or(binary).to_string();
    let name = match method {
        "<init>" => class
            .simple()
            .rsplit('$')
            .next()
            .unwrap_or_default()
            .to_string(),
        "<clinit>" => "static initializer".to_string(),
        m => m.to_string(),
    };
    let owner = if class == page_class {
        String::new()
    } else {
        format!("{}.", class.simple())
    };
    if method == "<clinit>" {
        return format!("{owner}{name}");
    }
    let params = match rivet_classfile::MethodDescriptor::parse(descriptor) {
        Ok(d) => d
            .params
            .iter()
            .map(|p| simple(&p.java_name()))
            .collect::<Vec<_>>()
            .join(", "),
        Err(_) => descriptor.to_string(),
    };
    format!("{owner}{name}({params})")
}

/// Renders the page of one class's report.
fn class_page(
    env: &Environment<'_>,
    report: &Report,
    sourcepath: &[PathBuf],
) -> Result<String, HtmlError> {
    let mut methods: Vec<MethodRows> = Vec::new();
    for b in &report.branches {
        let name = if b.class == report.class {
            format!("{}{}", b.method, b.descriptor)
        } else {
            format!("{}.{}{}", b.class, b.method, b.descriptor)
        };
        let i = match methods.iter().position(|m| m.name == name) {
            Some(i) => i,
            None => {
                methods.push(MethodRows {
                    label: java_label(&report.class, &b.class, &b.method, &b.descriptor),
                    name,
                    covered: 0,
                    total: 0,
                    branches: Vec::new(),
                });
                methods.len() - 1
            }
        };
        methods[i].total += 1;
        methods[i].covered += usize::from(b.covered);
        methods[i].branches.push(b);
    }
    let by_line = survivors_by_line(report);
    let source = source_view(&report.class, &report.branches, &by_line, sourcepath);
    let survivors: Vec<Survivor> = report
        .mutation
        .iter()
        .flat_map(|m| &m.rows)
        .filter(|r| r.status == MutantStatus::Survived)
        .map(|r| Survivor {
            line: r.line.map(|l| l.to_string()).unwrap_or_default(),
            method: r.place_in(&report.class),
            operator: r.operator.name().to_string(),
            description: r.description.clone(),
        })
        .collect();
    let page = format!("{}.html", report.class);
    env.get_template("class.html")
        .and_then(|t| {
            t.render(context! {
                report => report,
                pct => pct(report.branches_covered, report.branches_total),
                methods => methods,
                source => source,
                mutation => report.mutation.as_ref().map(|m| m.summary()),
                survivors => survivors,
            })
        })
        .map_err(|source| HtmlError::Template { page, source })
}

/// Writes `out/rivet-report.html` over `index` and a page per generated class (read from its
/// report under `out`); returns the index page's path.
pub fn write_site(
    out: &Path,
    index: &ProjectReport,
    sourcepath: &[PathBuf],
) -> Result<PathBuf, HtmlError> {
    let env = environment()?;
    let mut rows = Vec::new();
    for c in &index.classes {
        let mut page = None;
        if let (ClassStatus::Generated, Some(f)) = (c.status, &c.report_file) {
            let report = read_report(&out.join(f))?;
            let html = class_page(&env, &report, sourcepath)?;
            let name = format!("{PAGES}/{}.html", c.class);
            write(&out.join(&name), &html)?;
            page = Some(name);
        }
        rows.push(IndexRow {
            class: c.class.binary(),
            status: match c.status {
                ClassStatus::Generated => "generated",
                ClassStatus::Skipped => "skipped",
                ClassStatus::Failed => "failed",
            },
            reason: c.reason.clone(),
            branches_covered: c.branches_covered,
            branches_total: c.branches_total,
            tests: c.tests,
            elapsed_s: c.elapsed_s,
            verified: c.verified,
            pct: pct(c.branches_covered, c.branches_total),
            page,
        });
    }
    // Classes with pages first, then the others (nested, skipped, failed), each by name.
    rows.sort_by(|a, b| (a.page.is_none(), &a.class).cmp(&(b.page.is_none(), &b.class)));
    let html = env
        .get_template("index.html")
        .and_then(|t| {
            t.render(context! {
                report => index,
                classes => rows,
                total_pct => pct(index.branches_covered, index.branches_total),
            })
        })
        .map_err(|source| HtmlError::Template {
            page: INDEX.into(),
            source,
        })?;
    let path = out.join(INDEX);
    write(&path, &html)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::java_label;
    use rivet_classfile::ClassName;

    #[test]
    fn methods_are_labelled_as_java_spells_them() {
        let page = &ClassName::from_binary("org.example.TreeList");
        assert_eq!(
            java_label(page, page, "add", "(ILjava/lang/Object;)V"),
            "add(int, Object)"
        );
        assert_eq!(
            java_label(page, page, "<init>", "(Ljava/util/Collection;)V"),
            "TreeList(Collection)"
        );
        assert_eq!(
            java_label(
                page,
                &ClassName::from_binary("org.example.TreeList$AVLNode"),
                "<init>",
                "([Ljava/lang/Object;IILorg/example/TreeList$AVLNode;)V"
            ),
            "TreeList$AVLNode.AVLNode(Object[], int, int, TreeList$AVLNode)"
        );
        assert_eq!(
            java_label(page, page, "<clinit>", "()V"),
            "static initializer"
        );
        assert_eq!(java_label(page, page, "odd", "(I"), "odd((I)");
    }
}
