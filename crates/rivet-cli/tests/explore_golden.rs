//! Acceptance of `rivet explore` on the papers' examples, with golden path conditions:
//! SUSHI's `sample` over JDK 17's own `LinkedList`, and LCT's figures 1, 3 and 12.
//!
//! Roots are numbered as declared: `{this}` is the receiver (a fresh object of the class,
//! implied), `{arg1}` the first parameter, `{arg2}` the second, and so on — so in
//! `figure3(int x, SimpleList y)` the list is `{arg2}`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use common::rivet;
use serde_json::Value;

fn jdk17() -> PathBuf {
    rivet_testkit::Jdk::Jdk17.home()
}

/// Runs `rivet explore` into a fresh directory; returns the paths and the summary.
fn explore(method: &str, extra: &[&str]) -> (Vec<Value>, Value) {
    let subjects = rivet_testkit::compiled_subjects(11);
    let name: String = method.chars().filter(char::is_ascii_alphanumeric).collect();
    let out_dir = std::env::temp_dir().join(format!("rivet-explore-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let jdk = jdk17();
    let mut args = vec![
        "explore",
        "--classpath",
        subjects.to_str().unwrap_or_else(|| panic!("utf-8 path")),
        "--method",
        method,
        "--jdk",
        jdk.to_str().unwrap_or_else(|| panic!("utf-8 path")),
        "--out",
        out_dir.to_str().unwrap_or_else(|| panic!("utf-8 path")),
    ];
    args.extend_from_slice(extra);
    let output = rivet(&args);
    assert!(
        output.status.success(),
        "rivet {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(out_dir.join("paths.jsonl"))
        .unwrap_or_else(|e| panic!("paths.jsonl: {e}"));
    let paths = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let summary = std::fs::read_to_string(out_dir.join("summary.json"))
        .unwrap_or_else(|e| panic!("summary.json: {e}"));
    let summary = serde_json::from_str(&summary).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&out_dir);
    (paths, summary)
}

fn pc_texts(path: &Value) -> Vec<String> {
    path["pc"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "[{}] {}",
                c["kind"].as_str().unwrap_or("?"),
                c["text"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

fn render(paths: &[&Value]) -> String {
    let mut out = String::new();
    for p in paths {
        out.push_str(&format!(
            "path {} -> {} branches {}\n",
            p["id"],
            p["end"].as_str().unwrap_or("?"),
            p["branches"]
        ));
        for c in pc_texts(p) {
            out.push_str(&format!("  {c}\n"));
        }
    }
    out
}

#[test]
fn figure1_error_path_needs_x_plus_5_above_2_and_y_2789() {
    let (paths, summary) = explore("lct.Examples.figure1(II)I", &[]);
    let errors: Vec<&Value> = paths
        .iter()
        .filter(|p| p["end"] == "exception java.lang.IllegalStateException")
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "{}",
        render(&paths.iter().collect::<Vec<_>>())
    );
    let pc = pc_texts(errors[0]);
    assert!(
        pc.contains(&"[numeric] {arg1} + 5 > 2".to_string()),
        "{pc:?}"
    );
    assert!(
        pc.contains(&"[numeric] {arg2} == 2789".to_string()),
        "{pc:?}"
    );
    assert_eq!(summary["paths"], 4);
    insta::assert_snapshot!("figure1", render(&paths.iter().collect::<Vec<_>>()));
}

#[test]
fn figure3_error_path_has_the_self_alias() {
    let (paths, _) = explore("lct.Examples.figure3(ILlct/SimpleList;)V", &[]);
    let errors: Vec<&Value> = paths
        .iter()
        .filter(|p| p["end"] == "exception java.lang.IllegalStateException")
        .collect();
    assert_eq!(errors.len(), 1);
    assert!(pc_texts(errors[0]).contains(&"[alias] {arg2}.next == {arg2}".to_string()));
    insta::assert_snapshot!("figure3", render(&paths.iter().collect::<Vec<_>>()));
}

#[test]
fn figure12_equal_lists_path_has_the_alias_of_both_arguments() {
    let (paths, _) = explore(
        "lct.Examples.figure12(Llct/SimpleList;Llct/SimpleList;I)I",
        &[],
    );
    // The `l1 == l2` outcome returns l1.value: the path whose PC aliases the arguments.
    let aliased: Vec<&Value> = paths
        .iter()
        .filter(|p| pc_texts(p).contains(&"[alias] {arg2} == {arg1}".to_string()))
        .collect();
    assert_eq!(
        aliased.len(),
        1,
        "{}",
        render(&paths.iter().collect::<Vec<_>>())
    );
    insta::assert_snapshot!("figure12", render(&paths.iter().collect::<Vec<_>>()));
}

#[test]
fn sushi_sample_finds_both_outcomes_and_pins_obj_at_index_15() {
    let (paths, summary) = explore(
        "sushi.Sample.sample(Ljava/util/LinkedList;Ljava/lang/Object;)Z",
        &["--heap-scope", "java.util.LinkedList$Node=2"],
    );
    // Branch 0: `r == obj` false (if_acmpne taken); branch 1: true.
    let covered: std::collections::BTreeSet<u64> = paths
        .iter()
        .flat_map(|p| {
            p["branches"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_u64)
        })
        .collect();
    assert!(covered.contains(&0) && covered.contains(&1), "{covered:?}");
    // The paths to `return true` where r is obj itself (obj landed at index 15): their PCs
    // never mention {arg2}, and they pin the list's size to 15.
    let landed: Vec<&Value> = paths
        .iter()
        .filter(|p| p["branches"] == serde_json::json!([1]) && p["end"] == "return")
        .filter(|p| !pc_texts(p).iter().any(|c| c.contains("{arg2}")))
        .collect();
    assert_eq!(landed.len(), 2, "{}", render(&landed));
    for p in &landed {
        let pc = pc_texts(p);
        assert_eq!(pc[0], "[fresh] fresh({arg1}) : java.util.LinkedList");
        assert!(
            pc.contains(&"[numeric] 15 < {arg1}.size + 1".to_string()),
            "{pc:?}"
        );
        assert!(
            pc.contains(&"[numeric] {arg1}.size <= 15".to_string()),
            "{pc:?}"
        );
    }
    assert!(summary["paths"].as_u64().unwrap_or(0) > 100);
    insta::assert_snapshot!("sample_obj_at_index_15", render(&landed));
}

#[test]
fn trace_guided_mode_follows_the_error_path_of_figure1() {
    // Branches of figure1's error path, as `rivet branches` numbers them: 1, 3, 5.
    let (paths, _) = explore("lct.Examples.figure1(II)I", &["--trace", "1,3,5"]);
    assert_eq!(
        paths.len(),
        1,
        "{}",
        render(&paths.iter().collect::<Vec<_>>())
    );
    assert_eq!(paths[0]["end"], "exception java.lang.IllegalStateException");
}
