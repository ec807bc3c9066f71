//! What the symbolic strategy keeps when asked (`--keep-artifacts DIR`): per explored method
//! its paths, per round the selected path conditions and the branches each targets, per
//! path-condition goal its search log (with the policy and the classifier's prediction when
//! it was picked), the selection's record with the classifier's figures (`selection.json`),
//! and the invariants learned from real objects. Typed JSON under `DIR/symbolic/`, documented
//! in `docs/artifacts.md`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use rivet_tardis::{Bucket, Prediction};
use rivet_testcase::GoalId;
use serde::Serialize;
use tracing::warn;

use crate::select::SelectionMethod;
use rivet_report::{PcOutcome, PcSelectionReport};

/// One explored path as `paths-*.jsonl` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct ExploredPath {
    pub id: u64,
    /// The path condition, readable, in order of assumption.
    pub pc: Vec<String>,
    /// Goal ids of the branches of the class under test it covers.
    pub branches: Vec<u32>,
    /// `return`, `exception C`, `bound` or `unsupported: WHAT`.
    pub end: String,
    pub precise: bool,
    /// Every symbol can be read by the worker at a call (else the path is not a goal).
    pub observable: bool,
}

/// A selected path as a round lists it.
#[derive(Debug, Clone, Serialize)]
pub struct SelectedPath {
    pub goal: u32,
    pub path: usize,
    pub method: String,
    pub pc: Vec<String>,
    pub branches: Vec<u32>,
}

/// One selection round (`round-N.json`).
#[derive(Debug, Clone, Serialize)]
pub struct RoundLog {
    pub round: usize,
    pub method: SelectionMethod,
    pub uncovered: Vec<u32>,
    pub selected: Vec<SelectedPath>,
}

/// One sample of a goal's search.
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub elapsed_s: f64,
    /// Test executions since the goal was added.
    pub executions: u64,
    /// The best distance any test reached so far (0: reached).
    pub best_distance: Option<f64>,
}

/// A path-condition goal's search (`goal-N.json`).
#[derive(Debug, Clone, Serialize)]
pub struct GoalLog {
    pub goal: u32,
    pub path: usize,
    pub method: String,
    pub pc: Vec<String>,
    pub branches: Vec<u32>,
    /// The policy that picked it, and the classifier's prediction then (label/votes bucket
    /// and the neighbours' mean similarity), when it had one.
    pub policy: String,
    pub bucket: Option<Bucket>,
    pub similarity: Option<f64>,
    pub samples: Vec<Sample>,
    /// `reached`, `likely infeasible` (not reached within its slice), `cut short` (the run
    /// stopped first), or `searching`.
    pub outcome: String,
    pub elapsed_s: f64,
    /// Statements of the test that reached it.
    pub test_length: Option<usize>,
    /// The test that reached it, as the test-case model prints it.
    pub test: Option<String>,
}

impl GoalLog {
    pub fn new(
        goal: u32,
        path: usize,
        method: &str,
        pc: Vec<String>,
        branches: &BTreeSet<GoalId>,
    ) -> GoalLog {
        GoalLog {
            goal,
            path,
            method: method.to_string(),
            pc,
            branches: branches.iter().map(|g| g.0).collect(),
            policy: String::new(),
            bucket: None,
            similarity: None,
            samples: Vec::new(),
            outcome: "searching".into(),
            elapsed_s: 0.0,
            test_length: None,
            test: None,
        }
    }

    /// Records who picked it and what the classifier predicted.
    pub fn picked(&mut self, policy: &str, prediction: Option<&Prediction>) {
        self.policy = policy.to_string();
        self.bucket = prediction.map(Bucket::of);
        self.similarity = prediction.map(|p| p.similarity);
    }

    pub fn summary(&self) -> SelectedPath {
        SelectedPath {
            goal: self.goal,
            path: self.path,
            method: self.method.clone(),
            pc: self.pc.clone(),
            branches: self.branches.clone(),
        }
    }

    /// Records the goal's state; a sample that repeats the last distance within a second is
    /// skipped.
    pub fn sample(&mut self, elapsed: Duration, executions: u64, best_distance: Option<f64>) {
        let elapsed_s = elapsed.as_secs_f64();
        if let Some(last) = self.samples.last() {
            if last.best_distance == best_distance && elapsed_s - last.elapsed_s < 1.0 {
                return;
            }
        }
        self.samples.push(Sample {
            elapsed_s,
            executions,
            best_distance,
        });
    }

    pub fn finish(
        &mut self,
        outcome: PcOutcome,
        elapsed: Duration,
        test_length: Option<usize>,
        test: Option<String>,
    ) {
        self.outcome = match outcome {
            PcOutcome::Reached => "reached",
            PcOutcome::Failed => "likely infeasible",
            PcOutcome::CutShort => "cut short",
            PcOutcome::Searching => "searching",
        }
        .into();
        self.elapsed_s = elapsed.as_secs_f64();
        self.test_length = test_length;
        self.test = test;
    }
}

/// Writes the artifacts under one directory; a write that fails is logged, never fatal.
#[derive(Debug)]
pub struct Artifacts {
    dir: PathBuf,
}

impl Artifacts {
    pub fn new(dir: PathBuf) -> Artifacts {
        Artifacts { dir }
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.dir.join(name);
        let result = std::fs::create_dir_all(&self.dir).and_then(|_| std::fs::write(&path, text));
        if let Err(e) = result {
            warn!(path = %path.display(), error = %e, "could not write an artifact");
        }
    }

    pub fn explored(&mut self, method: &str, searcher: &str, depth: u32, paths: &[ExploredPath]) {
        let mut text = String::new();
        for p in paths {
            if let Ok(line) = serde_json::to_string(p) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        self.write(
            &format!("paths-{}-{searcher}-depth{depth}.jsonl", file_stem(method)),
            &text,
        );
    }

    pub fn round(&mut self, round: &RoundLog) {
        if let Ok(text) = serde_json::to_string_pretty(round) {
            self.write(&format!("round-{}.json", round.round), &text);
        }
    }

    /// The policy's record and the classifier's figures (`selection.json`).
    pub fn selection(&mut self, report: &PcSelectionReport) {
        if let Ok(text) = serde_json::to_string_pretty(report) {
            self.write("selection.json", &text);
        }
    }

    /// The learned invariants: `invariants.txt` (the file `rivet explore --invariants`
    /// reads) and `invariants.json` (learned, used, retracted).
    pub fn invariants(&mut self, text: &str, report: &rivet_report::LearnedInvariantsReport) {
        self.write("invariants.txt", text);
        if let Ok(json) = serde_json::to_string_pretty(report) {
            self.write("invariants.json", &json);
        }
    }

    pub fn goal(&mut self, log: &GoalLog) {
        if let Ok(text) = serde_json::to_string_pretty(log) {
            self.write(&format!("goal-{}.json", log.goal), &text);
        }
    }
}

/// Longest file-name stem a method's label keeps whole (file systems allow 255 bytes).
const MAX_STEM: usize = 160;

/// A method's label as a file-name stem: characters other than letters, digits and dots
/// become `_`; a label too long for a file name (a descriptor of nested classes) keeps its
/// first part and ends with a hash of the whole, so two long labels stay apart.
fn file_stem(method: &str) -> String {
    let safe: String = method
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.len() <= MAX_STEM {
        return safe;
    }
    // FNV-1a: stable across runs and Rust versions, unlike the std hasher.
    let hash = method.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{}-{hash:016x}", &safe[..MAX_STEM - 17])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_label_is_its_own_stem() {
        assert_eq!(
            file_stem("a.B.put(Ljava/lang/Object;)V"),
            "a.B.put_Ljava_lang_Object__V"
        );
    }

    #[test]
    fn a_long_label_fits_a_file_name_and_stays_apart_from_another() {
        let nested = "Lorg/apache/commons/collections4/trie/AbstractPatriciaTrie$TrieEntry;";
        let one = format!("a.B.nextEntryImpl({nested}{nested}{nested}){nested}");
        let two = format!("a.B.nextEntryInSubtree({nested}{nested}{nested}){nested}");
        let (s1, s2) = (file_stem(&one), file_stem(&two));
        assert!(s1.len() <= MAX_STEM, "{s1}");
        assert!(s1.starts_with("a.B.nextEntryImpl_"));
        assert_ne!(s1, s2);
        assert_eq!(s1, file_stem(&one));
    }
}
