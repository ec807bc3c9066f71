//! Symbolic strings: input strings are string symbols, `String`'s methods, concatenation,
//! `Integer.parseInt` and `String.valueOf` build string clauses, every reported path's
//! condition is satisfiable by Z3, and the input built from Z3's model replays concretely
//! along the same branches to the same end; each method's return values are all reached.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::time::Duration;

use rivet_solver::{SolveResult, Solver, Z3Solver};
use rivet_symbolic::{ExploreConfig, Explorer, MethodSpec, PathRecord, SymbolTable};
use support::fx17;

/// Explores `method` with symbolic strings; for each path that ended (return or exception),
/// solves its condition with Z3, replays the model's input concretely and checks it takes
/// the same branches to the same end. Returns the ends and the models' values as text.
fn explore_and_replay(method: &str) -> Vec<(String, Vec<String>)> {
    let config = ExploreConfig {
        symbolic_strings: true,
        ..ExploreConfig::default()
    };
    explore_and_replay_with(method, config, false)
}

/// [`explore_and_replay`] under `config`; with `all_precise`, no path may be imprecise (a
/// call not followed).
fn explore_and_replay_with(
    method: &str,
    config: ExploreConfig,
    all_precise: bool,
) -> Vec<(String, Vec<String>)> {
    let explorer = Explorer::new(fx17(), config);
    let spec = MethodSpec::parse(method).unwrap();
    let mut paths: Vec<(PathRecord, SymbolTable)> = Vec::new();
    explorer
        .explore(&spec, &mut |p: &PathRecord, symbols: &SymbolTable| {
            paths.push((p.clone(), symbols.clone()));
        })
        .unwrap();
    assert!(!paths.is_empty(), "{method}: no paths");
    let mut z3 = Z3Solver::new(Duration::from_secs(20));
    let mut out = Vec::new();
    for (record, symbols) in &paths {
        if record.imprecise {
            assert!(!all_precise, "{method} path {}: imprecise", record.id);
            continue;
        }
        let terms: Vec<_> = record.pc.iter().map(|c| c.term().clone()).collect();
        let texts: Vec<String> = record.pc.iter().map(|c| c.text(symbols)).collect();
        let model = match z3.check(&terms) {
            SolveResult::Sat(m) => m,
            other => panic!(
                "{method} path {}: Z3 says {other:?} for {texts:?}",
                record.id
            ),
        };
        let numeric: Vec<_> = record
            .pc
            .iter()
            .filter(|c| c.kind() == rivet_symbolic::ClauseKind::Numeric)
            .map(|c| c.term().clone())
            .collect();
        assert!(
            model.satisfies(&numeric),
            "{method} path {}: {model:?} vs {texts:?}",
            record.id
        );
        let mut with_z3 = record.clone();
        with_z3.model.merge(&model);
        let input = with_z3.input(symbols);
        let run = explorer.replay(&spec, &input).unwrap();
        assert!(
            !run.forked,
            "{method} path {}: the replay was not concrete",
            record.id
        );
        assert_eq!(
            (&run.trace, &run.end),
            (&record.trace, &record.end),
            "{method} path {}: the concrete run of {input:?} diverged from {texts:?}",
            record.id
        );
        let values: Vec<String> = input
            .strings
            .iter()
            .map(|(p, v)| format!("{p} = {v:?}"))
            .collect();
        out.push((record.end_text(), values));
    }
    out
}

fn returns(paths: &[(String, Vec<String>)]) -> BTreeSet<String> {
    paths.iter().map(|(end, _)| end.clone()).collect()
}

#[test]
fn prefixes_separators_and_parsed_numbers_are_solved() {
    let paths = explore_and_replay("fx17.Texts.keyValue(Ljava/lang/String;)I");
    let ends = returns(&paths);
    for want in ["return", "exception java.lang.NumberFormatException"] {
        assert!(ends.contains(want), "{want} missing from {ends:?}");
    }
    // The branch `v == 42` is taken by a solved input: some model parses to 42 after `=`.
    let solved: Vec<&String> = paths.iter().flat_map(|(_, v)| v).collect();
    // Any spelling `parseInt` reads as 42 (`=42`, `=+42`, `=0042`): the model Z3 picks varies.
    let parses_to_42 = |v: &str| {
        v.rsplit_once('=')
            .map(|(_, n)| n.trim_end_matches('"'))
            .is_some_and(|n| n.parse::<i32>() == Ok(42))
    };
    assert!(solved.iter().any(|v| parses_to_42(v)), "{solved:#?}");
}

#[test]
fn case_mapping_suffixes_and_concatenation_are_solved() {
    let paths = explore_and_replay("fx17.Texts.command(Ljava/lang/String;I)I");
    let solved: Vec<&String> = paths.iter().flat_map(|(_, v)| v).collect();
    for want in ["\"go\"", "!\""] {
        assert!(
            solved.iter().any(|v| v.ends_with(want)),
            "{want}: {solved:#?}"
        );
    }
    assert!(
        solved
            .iter()
            .any(|v| v.to_lowercase().ends_with("\"stop\"")),
        "{solved:#?}"
    );
    assert!(
        solved
            .iter()
            .any(|v| v.contains("= \"q") && v.contains("xy")),
        "{solved:#?}"
    );
}

#[test]
fn lower_casing_and_one_char_strings_are_solved() {
    let paths = explore_and_replay("fx17.Texts.shout(Ljava/lang/String;C)Z");
    let solved: Vec<&String> = paths.iter().flat_map(|(_, v)| v).collect();
    assert!(
        solved
            .iter()
            .any(|v| v.contains("= \"aB") || v.contains("= \"AB")),
        "{solved:#?}"
    );
}

#[test]
fn the_chars_of_to_char_array_are_the_strings_units() {
    // Each path's model replays to the same branches (explore_and_replay checks it): the
    // array's elements are the string's, its length the string's length, and a write to it
    // is read back.
    let paths = explore_and_replay("fx17.Texts.signed(Ljava/lang/String;)I");
    let solved: Vec<&String> = paths.iter().flat_map(|(_, v)| v).collect();
    assert!(solved.iter().any(|v| v.contains("= \"-7")), "{solved:#?}");
    // The path where the first char is the sign and the second is not a 7.
    assert!(
        solved
            .iter()
            .any(|v| v.contains("= \"-") && !v.contains("= \"-7")),
        "{solved:#?}"
    );
    // Null, too short, `-7`, not a sign, a sign and another char: nothing else (the array
    // written back reads `+`, so `return 2` is never reached).
    assert_eq!(paths.len(), 5, "{paths:#?}");
}

#[test]
fn digits_and_whitespace_classified_by_character_are_solved() {
    // As the concolic strategy explores: static JDK calls are black boxes, except those
    // modelled. Character.isDigit and isWhitespace are, so every path is precise and its
    // model replays along the same branches.
    let config = ExploreConfig {
        symbolic_strings: true,
        black_box_jdk: true,
        searcher: rivet_symbolic::SearcherKind::BreadthFirst,
        max_paths: 40,
        ..ExploreConfig::default()
    };
    let paths = explore_and_replay_with("fx17.Texts.digits(Ljava/lang/String;)I", config, true);
    let inputs: Vec<String> = paths
        .iter()
        .flat_map(|(_, v)| v)
        .filter_map(|v| v.split_once(" = ").map(|(_, text)| text.to_string()))
        .collect();
    let chars = |t: &str| t.trim_matches('"').chars().collect::<Vec<char>>();
    assert!(
        inputs
            .iter()
            .any(|t| chars(t).iter().filter(|c| c.is_ascii_digit()).count() >= 2),
        "{inputs:#?}"
    );
    assert!(
        inputs
            .iter()
            .any(|t| t.contains(' ') || t.contains("\\t") || t.contains("\\n")),
        "{inputs:#?}"
    );
}
