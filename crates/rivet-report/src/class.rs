//! `rivet-report.json` (design brief §5) as typed data: what a run did and, per branch, its
//! place, whether a written test covers it and which.

use std::collections::BTreeMap;

use rivet_analysis::BranchPlace;
use rivet_classfile::ClassName;
use rivet_tardis::{Bucket, Source};
use rivet_testcase::GoalId;
use serde::{Deserialize, Serialize};

/// One branch of the class under test in the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchRow {
    pub id: u32,
    pub class: ClassName,
    pub method: String,
    pub descriptor: String,
    pub offset: u32,
    pub line: Option<u16>,
    pub kind: String,
    pub covered: bool,
    pub covering_test: Option<String>,
    /// For a branch not covered, why, as far as the run knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl BranchRow {
    pub fn new(place: &BranchPlace, covering_test: Option<String>) -> BranchRow {
        BranchRow {
            id: place.branch.0,
            class: place.class.clone(),
            method: place.method.clone(),
            descriptor: place.descriptor.clone(),
            offset: place.offset,
            line: place.line,
            kind: place.kind.to_string(),
            covered: covering_test.is_some(),
            covering_test,
            why: None,
        }
    }
}

/// What a `rivet generate` run did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub class: ClassName,
    pub method: Option<String>,
    pub seed: u64,
    pub budget_s: u64,
    /// Seconds, rounded to milliseconds.
    pub elapsed_s: f64,
    /// Seconds the strategies ran, rounded to milliseconds.
    pub search_s: f64,
    pub strategy: String,
    pub tests: usize,
    pub executions: u64,
    pub junit: String,
    /// The test class written; absent when no test was left to write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_file: Option<String>,
    pub verified: bool,
    pub verification: String,
    pub dropped_tests: usize,
    pub dropped_assertions: usize,
    pub untestable: Vec<String>,
    /// Sums over `classes`.
    pub branches_total: usize,
    pub branches_covered: usize,
    /// Branch counts class by class, as JaCoCo reports them: the class under test, then each
    /// of its nested classes.
    #[serde(default)]
    pub classes: Vec<ClassCoverage>,
    /// What happened to the tests the workers ran, counted by kind.
    #[serde(default)]
    pub events: RunEvents,
    /// The tests verification dropped, each with the reason.
    #[serde(default)]
    pub dropped: Vec<DroppedTestRow>,
    /// Strategies a panic (a bug in Rivet) stopped; the others went on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub strategy_failures: Vec<StrategyFailureRow>,
    /// What each strategy took and brought, in turn order (absent in reports of older runs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub techniques: Vec<TechniqueRow>,
    /// Each strategy's own sections by key (`symbolic` and `pc_selection` of SUSHI,
    /// `concolic`, or a plug-in's own): at the report's top level, where the keys always were;
    /// absent for a strategy that did not run. Read them typed with [`Report::section`].
    #[serde(flatten)]
    pub sections: BTreeMap<String, serde_json::Value>,
    /// The written tests against the class's mutants (absent with `--no-mutation`, without
    /// tests, or unverified).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutation: Option<rivet_mutate::MutationScore>,
    /// What mutation-based assertion selection kept (absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oracle: Option<OracleReport>,
    pub branches: Vec<BranchRow>,
}

/// A test verification dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedTestRow {
    pub test: String,
    pub reason: String,
}

/// What one strategy took and brought in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TechniqueRow {
    pub strategy: String,
    pub turns: u64,
    /// Seconds of its turns (the workers' time running its tests included).
    pub seconds: f64,
    /// Tests run in its turns (reports written before this field read as 0).
    #[serde(default)]
    pub executions: u64,
    /// Of those, tests that ran out of time.
    #[serde(default)]
    pub timed_out: u64,
    /// Goals whose first test came in its turns (no other strategy had covered them then),
    /// and of those, branch goals.
    pub first_covered: usize,
    pub first_covered_branches: usize,
    /// Tests of the written suite that came from its turns.
    pub final_tests: usize,
}

/// A strategy a panic stopped, with the panic's message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StrategyFailureRow {
    pub strategy: String,
    pub message: String,
}

/// One class's branches in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCoverage {
    pub class: ClassName,
    pub branches: usize,
    pub covered: usize,
    /// For a class `--cover` named: whether the class under test can reach it at all (its code
    /// refers to the class, directly or through other classes of the classpath); absent for
    /// the class under test and its nested classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reachable: Option<bool>,
}

/// Counts of what happened to the tests the workers ran during a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEvents {
    pub timed_out: u64,
    pub crashed: u64,
    pub rejected: u64,
    pub exit_requests: u64,
    pub sandbox_refusals: u64,
    pub workers_replaced: u64,
    /// Runs the strategies refused because a result breaks a cast the written test makes
    /// (it would throw `ClassCastException` under JUnit).
    #[serde(default)]
    pub cast_refusals: u64,
}

impl RunEvents {
    /// One phrase per kind that happened (`37 tests timed out`), in a fixed order.
    pub fn phrases(&self) -> Vec<String> {
        let kinds = [
            (self.timed_out, "tests timed out"),
            (self.crashed, "tests crashed their worker"),
            (self.rejected, "tests rejected as malformed"),
            (self.exit_requests, "exit requests stopped"),
            (self.sandbox_refusals, "tests refused by the sandbox"),
            (self.workers_replaced, "workers replaced"),
            (
                self.cast_refusals,
                "runs refused for a result the test could not cast",
            ),
        ];
        kinds
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, what)| format!("{n} {what}"))
            .collect()
    }
}

/// The concolic strategy's share of a run: traced runs, the nodes of the execution tree it
/// solved for, and the runs that left their predicted path (where, by branch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConcolicReport {
    pub traced_runs: u64,
    /// Unvisited outcomes the symbolic executor was asked about, and those it found inputs for.
    pub nodes: usize,
    pub solved: usize,
    /// New tests built from solutions (argument values) and run.
    pub tests: usize,
    /// Heap shapes handed to the search as path-condition goals, and those reached.
    pub goals: usize,
    pub goals_reached: usize,
    /// Seconds in the symbolic executor and the solver.
    pub explore_s: f64,
    /// Runs whose branch outcomes differed from the predicted ones.
    pub divergences: usize,
    /// Per branch whose predicted outcome a run did not take: how many times.
    pub diverged_at: BTreeMap<String, usize>,
    /// Adaptive DSE inside the search: tests the search asked about (a primitive mutation
    /// changed their fitness), concolic steps taken on them, and steps that covered more.
    #[serde(default)]
    pub dse_requests: usize,
    #[serde(default)]
    pub dse_steps: usize,
    #[serde(default)]
    pub dse_improved: usize,
    /// Requested tests that had no uncovered outcome next to their paths (no step taken).
    #[serde(default)]
    pub dse_no_open: usize,
    /// Unvisited outcomes solved by replaying the whole test, its values as symbols.
    #[serde(default)]
    pub whole_tests: usize,
    /// Pauses beside the other strategies after solving that gave nothing.
    #[serde(default)]
    pub pauses: usize,
}

/// The symbolic strategy's share of a run: the time split and what became of its goals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SymbolicReport {
    /// Seconds exploring methods symbolically.
    pub explore_s: f64,
    /// Seconds selecting paths.
    pub select_s: f64,
    /// Seconds the strategies ran in all (the rest went to the search).
    pub strategies_s: f64,
    pub methods_explored: usize,
    pub paths: u64,
    pub precise_paths: u64,
    pub rounds: usize,
    /// Path-condition goals handed to the search, reached, and given up as likely infeasible.
    pub goals: usize,
    pub goals_reached: usize,
    pub goals_failed: usize,
    /// Of the failed goals, those given up before their slice was spent because their best
    /// distance had not improved for the stall time (60 % of a slice).
    #[serde(default)]
    pub goals_stalled: usize,
    /// Goals still being searched when the run stopped (every goal covered, or the budget
    /// spent).
    #[serde(default)]
    pub goals_cut_short: usize,
    /// The exploration stopped before its time was spent: its later passes had kept no new
    /// path to an uncovered branch for a while.
    #[serde(default)]
    pub explore_stale: bool,
    /// Heap invariants learned from real objects (absent when learning was off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invariants: Option<LearnedInvariantsReport>,
}

/// The symbolic strategy's path conditions under its selection policy (`--pc-policy`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcSelectionReport {
    /// `fifo`, `cover`, `tardis` or `cover-tardis`.
    pub policy: String,
    /// PCs handed to the search as goals; of them, those a test satisfied (reached), those
    /// given up when their slice ran out, and those still searched when the run stopped.
    pub tried: usize,
    pub satisfied: usize,
    pub failed: usize,
    pub cut_short: usize,
    pub classifier: ClassifierReport,
    /// Every PC tried, in the order tried.
    pub attempts: Vec<PcAttempt>,
    /// TARDIS's alternatives of the tests' own paths (FIFO and TARDIS policies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alternatives: Option<AlternativesReport>,
}

/// What the generator of alternatives did: archive tests traced, their calls replayed
/// symbolically, the paths the tests' states satisfied (feasible evidence), the alternatives
/// made from them (one clause changed each) and kept, those the solver refuted (infeasible
/// evidence, not kept), those contradicting a learned structural invariant (not kept), the
/// seconds it took, and those kept but not tried when the run stopped: per bucket of the
/// classifier's last prediction for them (TARDIS ranks them with the explored paths), and
/// those it never classified.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AlternativesReport {
    pub tests: usize,
    pub calls_replayed: usize,
    /// Calls left unreplayed when a step's time (1 s) was spent.
    #[serde(default)]
    pub calls_skipped: usize,
    pub sources: usize,
    pub alternatives: usize,
    #[serde(default)]
    pub refuted: usize,
    #[serde(default)]
    pub contradicted: usize,
    pub seconds: f64,
    #[serde(default)]
    pub untried: BTreeMap<Bucket, usize>,
    #[serde(default)]
    pub untried_unclassified: usize,
}

/// The run's TARDIS classifier: what it learned, and what it predicted for the symbolic
/// strategy's pending PCs (classifications made per bucket, first ones and
/// reclassifications; the paths left untried per bucket when the run stopped, and those
/// never classified; picks per bucket under `tardis`; picks made in exploration order before
/// it could classify; reclassification passes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassifierReport {
    pub training: usize,
    pub feasible: usize,
    pub infeasible: usize,
    pub by_source: BTreeMap<Source, usize>,
    pub predictions: BTreeMap<Bucket, usize>,
    #[serde(default)]
    pub pending: BTreeMap<Bucket, usize>,
    #[serde(default)]
    pub pending_unclassified: usize,
    pub picks: BTreeMap<Bucket, usize>,
    pub unclassified_picks: usize,
    pub reclassifications: usize,
}

/// What became of a path-condition goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PcOutcome {
    /// A test satisfied it.
    Reached,
    /// Not reached within its slice: likely infeasible.
    Failed,
    /// The run stopped before its slice was spent.
    CutShort,
    /// Still being searched.
    Searching,
}

/// One PC tried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcAttempt {
    pub goal: u32,
    /// The explored path's index among the strategy's kept paths.
    pub path: usize,
    pub method: String,
    /// Seconds after the strategies started that it became a goal, and that it was settled.
    pub tried_s: f64,
    pub settled_s: Option<f64>,
    pub outcome: PcOutcome,
    /// The classifier's prediction when it was picked (absent when it had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bucket: Option<Bucket>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// An alternative of a test's path rather than an explored path.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alternative: bool,
}

impl PcSelectionReport {
    /// PCs tried within the first `seconds` of the strategies, and of them those satisfied.
    pub fn within(&self, seconds: f64) -> (usize, usize) {
        let early: Vec<&PcAttempt> = self
            .attempts
            .iter()
            .filter(|a| a.tried_s < seconds)
            .collect();
        let satisfied = early
            .iter()
            .filter(|a| a.outcome == PcOutcome::Reached)
            .count();
        (early.len(), satisfied)
    }
}

impl Report {
    /// The branch rows of `places`, covered where `covering` names a test.
    pub fn rows(
        places: &[(GoalId, BranchPlace)],
        covering: &BTreeMap<GoalId, String>,
    ) -> Vec<BranchRow> {
        let mut rows: Vec<BranchRow> = places
            .iter()
            .map(|(g, p)| BranchRow::new(p, covering.get(g).cloned()))
            .collect();
        // Why an uncovered branch is: its condition ran (another outcome is covered), or the
        // tests' paths through the method went elsewhere, or no test reached the method.
        let same_method = |a: &BranchRow, b: &BranchRow| {
            a.class == b.class && a.method == b.method && a.descriptor == b.descriptor
        };
        let reasons: Vec<Option<String>> = rows
            .iter()
            .map(|r| {
                if r.covered {
                    return None;
                }
                let sibling = rows
                    .iter()
                    .any(|o| o.covered && same_method(o, r) && o.offset == r.offset);
                let method = rows.iter().any(|o| o.covered && same_method(o, r));
                Some(
                    if sibling {
                        "the condition ran, but no test took this outcome within the budget"
                    } else if method {
                        "not reached: the tests' paths through the method went elsewhere or threw before it"
                    } else {
                        "no test reached it: no branch of its method is covered"
                    }
                    .to_string(),
                )
            })
            .collect();
        for (r, why) in rows.iter_mut().zip(reasons) {
            r.why = why;
        }
        rows
    }

    /// Branch counts per class of `rows`, in order of first appearance (the class under test
    /// comes first: its branches are planned first).
    pub fn classes(rows: &[BranchRow]) -> Vec<ClassCoverage> {
        let mut out: Vec<ClassCoverage> = Vec::new();
        for r in rows {
            let i = match out.iter().position(|c| c.class == r.class) {
                Some(i) => i,
                None => {
                    out.push(ClassCoverage {
                        class: r.class.clone(),
                        branches: 0,
                        covered: 0,
                        reachable: None,
                    });
                    out.len() - 1
                }
            };
            out[i].branches += 1;
            out[i].covered += usize::from(r.covered);
        }
        out
    }

    /// The strategy section under `key`, typed (None when absent or of another shape).
    pub fn section<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        let value = self.sections.get(key)?;
        serde_json::from_value(value.clone()).ok()
    }

    /// What the symbolic strategy did (absent when it did not run).
    pub fn symbolic(&self) -> Option<SymbolicReport> {
        self.section("symbolic")
    }

    /// What the concolic strategy did (absent when it did not run).
    pub fn concolic(&self) -> Option<ConcolicReport> {
        self.section("concolic")
    }

    /// How the symbolic strategy picked its path conditions and what became of them, with the
    /// run's classifier (absent when it did not run).
    pub fn pc_selection(&self) -> Option<PcSelectionReport> {
        self.section("pc_selection")
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
        text.push('\n');
        text
    }
}

/// Seconds rounded to milliseconds.
pub fn seconds(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

/// What selection did, for the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OracleReport {
    pub assertions_before: usize,
    pub assertions_after: usize,
    /// Median assertions per test, before and after.
    pub median_before: f64,
    pub median_after: f64,
    /// Tests dropped because they killed nothing and covered no goal alone.
    pub tests_dropped: usize,
}

/// One invariant as the report lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedInvariantRow {
    /// As the invariants file spells it.
    pub invariant: String,
    /// Observations that supported it when last learned.
    pub support: u64,
    /// Seconds into the strategy's run when first learned.
    pub learned_at_s: f64,
    /// Explorations that assumed it, and the times it removed a choice or added a clause.
    pub explorations: u32,
    pub uses: u64,
    /// Why it was retracted, if it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retracted: Option<String>,
}

/// The learned invariants of a run (`SymbolicReport::invariants`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LearnedInvariantsReport {
    /// Snapshots the learner saw.
    pub snapshots: u64,
    /// Tests of reached path-condition goals checked against the invariants.
    pub goal_checks: u64,
    pub learned: usize,
    /// Learned invariants some exploration used.
    pub used: usize,
    pub retracted: usize,
    pub invariants: Vec<LearnedInvariantRow>,
}

#[cfg(test)]
mod tests {
    use rivet_analysis::{BranchId, BranchKind};
    use rivet_classfile::ClassName;

    use super::*;

    fn place(b: u32) -> BranchPlace {
        BranchPlace {
            class: ClassName::from_binary("a.B$C"),
            branch: BranchId(b),
            method: "m".into(),
            descriptor: "()V".into(),
            offset: 4 * b,
            line: Some(10),
            kind: BranchKind::Case(vec![1, 2]),
        }
    }

    #[test]
    fn rows_say_covered_exactly_where_a_test_is_named() {
        let places = vec![(GoalId(0), place(0)), (GoalId(1), place(1))];
        let covering = BTreeMap::from([(GoalId(1), "testM".to_string())]);
        let rows = Report::rows(&places, &covering);
        assert!(!rows[0].covered);
        assert_eq!(rows[1].covering_test.as_deref(), Some("testM"));
        assert!(rows[1].covered);
        assert_eq!(rows[1].class, "a.B$C");
        assert_eq!(rows[1].kind, "case 1,2");
        assert_eq!(rows[1].offset, 4);
    }

    #[test]
    fn classes_are_counted_apart_in_the_order_they_come() {
        let mut nested = place(2);
        nested.class = ClassName::from_binary("a.B");
        let places = vec![
            (GoalId(0), place(0)),
            (GoalId(1), nested),
            (GoalId(2), place(1)),
        ];
        let covering = BTreeMap::from([(GoalId(2), "t".to_string())]);
        let classes = Report::classes(&Report::rows(&places, &covering));
        let counts: Vec<(String, usize, usize)> = classes
            .iter()
            .map(|c| (c.class.binary(), c.branches, c.covered))
            .collect();
        assert_eq!(
            counts,
            vec![("a.B$C".to_string(), 2, 1), ("a.B".to_string(), 1, 0)]
        );
    }

    #[test]
    fn events_say_each_kind_once_and_only_when_it_happened() {
        let e = RunEvents {
            timed_out: 37,
            workers_replaced: 37,
            ..RunEvents::default()
        };
        assert_eq!(
            e.phrases(),
            vec!["37 tests timed out", "37 workers replaced"]
        );
        assert!(RunEvents::default().phrases().is_empty());
    }

    #[test]
    fn the_report_reads_back_as_written() {
        let places = vec![(GoalId(0), place(0))];
        let mut report = Report {
            class: "a.B".into(),
            method: None,
            seed: 3,
            budget_s: 60,
            elapsed_s: seconds(std::time::Duration::from_micros(1_234_567)),
            search_s: 1.0,
            strategy: "search".into(),
            tests: 1,
            executions: 10,
            junit: "5".into(),
            test_file: Some("x".into()),
            verified: true,
            verification: "ok".into(),
            dropped_tests: 0,
            dropped_assertions: 0,
            untestable: vec![],
            branches_total: 1,
            branches_covered: 0,
            classes: vec![ClassCoverage {
                class: "a.B".into(),
                branches: 1,
                covered: 0,
                reachable: None,
            }],
            events: RunEvents {
                timed_out: 2,
                ..RunEvents::default()
            },
            dropped: vec![DroppedTestRow {
                test: "testM".into(),
                reason: "fails: boom".into(),
            }],
            strategy_failures: Vec::new(),
            techniques: vec![TechniqueRow {
                strategy: "search".into(),
                turns: 12,
                seconds: 1.5,
                executions: 1200,
                timed_out: 4,
                first_covered: 3,
                first_covered_branches: 2,
                final_tests: 1,
            }],
            sections: BTreeMap::new(),
            mutation: None,
            oracle: None,
            branches: Report::rows(&places, &BTreeMap::new()),
        };
        let selection = PcSelectionReport {
            policy: "tardis".into(),
            tried: 2,
            satisfied: 1,
            failed: 1,
            cut_short: 0,
            classifier: ClassifierReport {
                training: 2,
                feasible: 1,
                infeasible: 1,
                by_source: BTreeMap::from([(Source::GoalReached, 1), (Source::GoalFailed, 1)]),
                predictions: BTreeMap::from([(Bucket::InfeasibleUnanimous, 4)]),
                ..ClassifierReport::default()
            },
            attempts: vec![
                PcAttempt {
                    goal: 7,
                    path: 3,
                    method: "a.B.m()V".into(),
                    tried_s: 1.5,
                    settled_s: Some(2.0),
                    outcome: PcOutcome::Reached,
                    bucket: Some(Bucket::FeasibleMajority),
                    similarity: Some(0.5),
                    alternative: true,
                },
                PcAttempt {
                    goal: 8,
                    path: 4,
                    method: "a.B.m()V".into(),
                    tried_s: 31.0,
                    settled_s: None,
                    outcome: PcOutcome::Failed,
                    bucket: None,
                    similarity: None,
                    alternative: false,
                },
            ],
            alternatives: Some(AlternativesReport {
                tests: 3,
                calls_replayed: 2,
                calls_skipped: 0,
                sources: 1,
                alternatives: 4,
                refuted: 1,
                contradicted: 2,
                seconds: 0.25,
                untried: BTreeMap::from([(Bucket::FeasibleMajority, 1)]),
                untried_unclassified: 1,
            }),
        };
        report.sections.insert(
            "pc_selection".into(),
            serde_json::to_value(&selection).expect("a value"),
        );
        assert_eq!(report.pc_selection(), Some(selection));
        assert_eq!(report.symbolic(), None);
        assert_eq!(report.pc_selection().map(|s| s.within(30.0)), Some((1, 1)));
        assert_eq!(report.elapsed_s, 1.235);
        let back: Report = serde_json::from_str(&report.to_json()).expect("parse");
        assert_eq!(back, report);
    }
}
