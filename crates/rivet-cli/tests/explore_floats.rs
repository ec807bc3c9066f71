//! `rivet explore` on `geometry.Conformance.check` (doubles, `Math.sqrt`, division): its
//! floating-point path conditions are solved (Z3, or the alternating variable method where
//! Z3 gives up) and confirmed by concrete replay. Branch ids as `rivet branches` numbers
//! them: 13 is the `OFF_ROUTE` return, 15 `WRONG_HEADING`, 25 `TURN_AHEAD`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::rivet;
use serde_json::Value;

const CHECK: &str = "geometry.Conformance.check(Lgeometry/Route;DDDD)Ljava/lang/String;";

/// Runs `rivet explore` on `Conformance.check` with `extra` flags; the paths, the summary
/// and the CLI's last line.
fn explore(tag: &str, extra: &[&str]) -> (Vec<Value>, Value, String) {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out_dir =
        std::env::temp_dir().join(format!("rivet-explore-floats-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let jdk = rivet_testkit::Jdk::Jdk17.home();
    let mut args = vec![
        "explore",
        "--classpath",
        subjects.to_str().unwrap(),
        "--method",
        CHECK,
        "--jdk",
        jdk.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = rivet(&args);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "rivet {args:?}: {stderr}");
    let paths = std::fs::read_to_string(out_dir.join("paths.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("summary.json")).unwrap())
            .unwrap();
    let _ = std::fs::remove_dir_all(&out_dir);
    let last = stderr.lines().last().unwrap_or_default().to_string();
    (paths, summary, last)
}

/// The first path that returns through `branch` with `Math.sqrt` in its path condition.
fn returning_through(paths: &[Value], branch: u64) -> Option<&Value> {
    paths.iter().find(|p| {
        p["end"] == "return"
            && p["branches"]
                .as_array()
                .is_some_and(|b| b.iter().any(|x| x.as_u64() == Some(branch)))
            && p["pc"].as_array().is_some_and(|pc| {
                pc.iter()
                    .any(|c| c["text"].as_str().is_some_and(|t| t.contains("Math.sqrt")))
            })
    })
}

fn assert_solved_and_confirmed(path: &Value) {
    assert_eq!(path["fp"], true, "{path}");
    assert_eq!(path["replay"], "confirmed", "{path}");
    let model: Vec<&str> = path["model"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        model.iter().any(|v| v.starts_with("{arg4} = ")),
        "the model names the direction: {model:?}"
    );
}

#[test]
fn wrong_heading_and_off_route_paths_are_solved_and_replay_confirmed() {
    let (paths, summary, last) = explore("cheap", &["--max-paths", "300"]);
    for branch in [13, 15] {
        let path = returning_through(&paths, branch)
            .unwrap_or_else(|| panic!("no return through branch {branch} with sqrt clauses"));
        assert_solved_and_confirmed(path);
    }
    // Every path was replayed; no replay diverged.
    assert!(summary["fp_paths"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(summary["solved"], summary["paths"], "{summary}");
    assert_eq!(summary["confirmed"], summary["paths"], "{summary}");
    assert!(last.contains("confirmed by replay"), "{last}");
    assert!(last.contains("AVM solved"), "{last}");
}

/// TURN_AHEAD needs a route of 4+ fixes, the position within 0.5 of a middle leg, heading
/// along it (cosine > 0.999) and a sharp turn next: Z3 gives up on these clauses and the
/// AVM solves them. Path 692 in the default depth-first order (the order depends on which
/// queries Z3 and the AVM solve), about 25 s into a release `--budget 60` run that replays
/// every path too.
#[test]
fn turn_ahead_is_reached_solved_and_replay_confirmed() {
    let (paths, summary, _) = explore("turn", &["--max-paths", "900", "--budget", "60"]);
    let path = returning_through(&paths, 25)
        .unwrap_or_else(|| panic!("no TURN_AHEAD path; summary {summary}"));
    assert_solved_and_confirmed(path);
    let pc = path["pc"].as_array().unwrap();
    assert!(
        pc.last().unwrap()["text"]
            .as_str()
            .unwrap()
            .ends_with("< 0.5"),
        "the last clause is the turn: {path}"
    );
    assert!(summary["avm_successes"].as_u64().unwrap() > 0, "{summary}");
}
