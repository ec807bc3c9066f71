//! Rivet's emulation of JaCoCo's probes agrees with JaCoCo 0.8.6 probe by probe: the same
//! number of probes per class, and each probe alone covers the same number of branches in the
//! same methods (JaCoCo's analyzer over execution data with only that probe set, see
//! tools/jacoco-branches/JacocoProbes.java). Subjects, and real classes whose shapes matter
//! (ternaries over calls that throw, finally copies, string switches, try-with-resources).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::Path;

use rivet_analysis::filter::RawCode;
use rivet_analysis::{analyze_class, MethodProbes};
use rivet_classfile::ClassFile;

/// `total` and `hit` rows, as JacocoProbes prints them, from Rivet's emulation.
fn rivet_rows(dir: &Path, class: &str) -> BTreeSet<String> {
    let path = dir.join(format!("{}.class", class.replace('.', "/")));
    let cf = ClassFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    let analysis = analyze_class(&cf).unwrap();
    let mut rows = BTreeSet::new();
    let mut first = 0u32; // class-level id of the method's first probe
    for (index, m) in cf.methods.iter().enumerate() {
        let Some(code) = m.code() else { continue };
        let raw = RawCode::new(&cf, code);
        let probes = MethodProbes::compute(code, raw.labels()).expect("no subroutines");
        if let Some(a) = analysis.methods.iter().find(|a| a.index == index) {
            for p in 0..probes.points.len() as u32 {
                let covered = a
                    .branches
                    .iter()
                    .filter(|b| b.confirmed_by.as_ref().is_some_and(|c| c.contains(&p)))
                    .count();
                if covered > 0 {
                    rows.insert(format!(
                        "hit\t{class}\t{}\t{}\t{}\t{covered}",
                        first + p,
                        a.name,
                        a.descriptor
                    ));
                }
            }
        }
        first += probes.points.len() as u32;
    }
    rows.insert(format!("total\t{class}\t{first}"));
    rows
}

fn assert_agree(dir: &Path, classes: &[&str]) {
    let jacoco: BTreeSet<String> = rivet_testkit::jacoco_probe_hits(dir, classes)
        .lines()
        .map(str::to_string)
        .collect();
    let rivet: BTreeSet<String> = classes.iter().flat_map(|c| rivet_rows(dir, c)).collect();
    let missing: Vec<_> = jacoco.difference(&rivet).take(20).collect();
    let extra: Vec<_> = rivet.difference(&jacoco).take(20).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "JaCoCo only: {missing:#?}\nRivet only: {extra:#?}"
    );
    let hits = jacoco.iter().filter(|r| r.starts_with("hit")).count();
    assert!(
        hits > classes.len(),
        "too few probes cover branches: {hits}"
    );
}

#[test]
fn subjects_probe_by_probe() {
    let dir = rivet_testkit::compiled_subjects(11);
    let classes: Vec<String> = rivet_testkit::class_files(&dir)
        .iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(&dir)
                .ok()?
                .to_str()?
                .strip_suffix(".class")?;
            Some(rel.replace('/', "."))
        })
        .collect();
    let names: Vec<&str> = classes.iter().map(String::as_str).collect();
    assert!(names.len() > 10);
    assert_agree(&dir, &names);
}

#[test]
fn commons_lang3_probe_by_probe() {
    let dir = rivet_testkit::unpacked_jar("commons-lang3");
    assert_agree(
        &dir,
        &[
            "org.apache.commons.lang3.math.Fraction",
            "org.apache.commons.lang3.text.WordUtils",
            "org.apache.commons.lang3.BooleanUtils",
            "org.apache.commons.lang3.CharSetUtils",
            "org.apache.commons.lang3.time.DateUtils",
            "org.apache.commons.lang3.text.StrBuilder",
            "org.apache.commons.lang3.math.NumberUtils",
        ],
    );
}

#[test]
fn guava_and_collections_probe_by_probe() {
    let guava = rivet_testkit::unpacked_jar("guava");
    assert_agree(
        &guava,
        &[
            "com.google.common.io.Files",
            "com.google.common.io.CharStreams",
            "com.google.common.collect.Iterators",
            "com.google.common.base.Splitter",
        ],
    );
    let coll = rivet_testkit::unpacked_jar("commons-collections4");
    assert_agree(
        &coll,
        &[
            "org.apache.commons.collections4.list.TreeList",
            "org.apache.commons.collections4.map.AbstractHashedMap",
            "org.apache.commons.collections4.CollectionUtils",
        ],
    );
}
