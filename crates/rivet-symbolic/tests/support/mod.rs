//! Shared helpers of the symbolic executor's tests: the subjects compiled for Java 11 on a
//! classpath with JDK 17's own classes, and paths rendered as text.

#![allow(dead_code)] // not every test binary uses every helper

use std::sync::Arc;

use rivet_classpath::{Classpath, JdkImage};
use rivet_symbolic::{
    ExploreConfig, ExploreSummary, Explorer, MethodSpec, PathRecord, SymbolTable,
};

/// A path as text: its clauses (`kind: text`), branches and end.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub id: u64,
    pub pc: Vec<(String, String)>,
    pub branches: Vec<u32>,
    pub end: String,
    pub record: PathRecord,
}

impl Rendered {
    pub fn pc_texts(&self) -> Vec<String> {
        self.pc.iter().map(|(_, t)| t.clone()).collect()
    }

    pub fn show(&self) -> String {
        let pc: Vec<String> = self
            .pc
            .iter()
            .map(|(k, t)| format!("  [{k}] {t}"))
            .collect();
        format!(
            "path {} -> {} branches {:?}\n{}",
            self.id,
            self.end,
            self.branches,
            pc.join("\n")
        )
    }
}

pub fn classpath() -> Arc<Classpath> {
    let subjects = rivet_testkit::compiled_subjects(11);
    let jdk =
        JdkImage::open(&rivet_testkit::Jdk::Jdk17.home()).unwrap_or_else(|e| panic!("JDK 17: {e}"));
    let cp = Classpath::parse(&subjects.to_string_lossy(), Some(Arc::new(jdk)))
        .unwrap_or_else(|e| panic!("classpath: {e}"));
    Arc::new(cp)
}

pub fn explore(method: &str, config: ExploreConfig) -> (Vec<Rendered>, ExploreSummary) {
    let explorer = Explorer::new(classpath(), config);
    explore_with(&explorer, method)
}

pub fn explore_with(explorer: &Explorer, method: &str) -> (Vec<Rendered>, ExploreSummary) {
    let spec = MethodSpec::parse(method).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    let summary = explorer
        .explore(&spec, &mut |p: &PathRecord, symbols: &SymbolTable| {
            out.push(Rendered {
                id: p.id,
                pc: p
                    .pc
                    .iter()
                    .map(|c| (c.kind().name().to_string(), c.text(symbols)))
                    .collect(),
                branches: p.branches.clone(),
                end: p.end_text(),
                record: p.clone(),
            });
        })
        .unwrap_or_else(|e| panic!("explore {method}: {e}"));
    (out, summary)
}

/// The Java 17 fixtures (tests/fixtures/fx17), compiled once per test binary.
pub fn fx17() -> Arc<Classpath> {
    // Once per binary: tests run in parallel, and a second javac into the same directory would
    // rewrite a class file while another test reads it.
    static COMPILED: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let out = COMPILED.get_or_init(|| {
        let out = rivet_testkit::cache_dir().join(format!("symbolic-fx17-{}", std::process::id()));
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx17");
        let sources: Vec<std::path::PathBuf> = [
            "Point.java",
            "Boom.java",
            "Link.java",
            "Sizes.java",
            "Floats.java",
            "Texts.java",
            "Gauge.java",
            "Slow.java",
            "Env.java",
            "other/Far.java",
        ]
        .iter()
        .map(|f| dir.join(f))
        .collect();
        rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 17, "", &sources, &out);
        out
    });
    let jdk = JdkImage::open(&rivet_testkit::Jdk::Jdk17.home()).unwrap_or_else(|e| panic!("{e}"));
    Arc::new(
        Classpath::parse(&out.to_string_lossy(), Some(Arc::new(jdk)))
            .unwrap_or_else(|e| panic!("{e}")),
    )
}
