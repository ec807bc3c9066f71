//! The search, minimization and assertions against a fake executor that interprets
//! `lct.Examples.figure1(int, int)` (LCT report, Figure 1) with its six branches.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rivet_api::{AccessMode, ApiModel, GenConfig, Generator};
use rivet_classpath::{Classpath, JdkImage};
use rivet_search::{
    add_assertions, distinct_tests, minimize, BranchObjective, Goal, Goals, Search, SearchConfig,
};
use rivet_testcase::{
    Assertion, Execution, ExecutionStatus, Executor, GoalId, ProbeId, Statement, StatementOutcome,
    TestCase, ValueSummary,
};

/// Runs tests over `lct.Examples` by interpreting `figure1`: probes 0/1 for `x + 5 > 0`,
/// 2/3 for `x + 5 > 2`, 4/5 for `y == 2789` (true/false), with branch distances.
struct FakeFigure1 {
    runs: u64,
}

fn record(d: &mut BTreeMap<u32, f64>, probe: u32, dist: f64) {
    let e = d.entry(probe).or_insert(f64::INFINITY);
    *e = e.min(dist);
}

impl Executor for FakeFigure1 {
    fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
        self.runs += tests.len() as u64;
        tests
            .iter()
            .map(|t| {
                let mut ints: Vec<Option<i32>> = Vec::new();
                let mut outcomes = Vec::new();
                let mut dist = BTreeMap::new();
                let mut thrown = false;
                for s in &t.statements {
                    if thrown {
                        outcomes.push(StatementOutcome::NotRun);
                        ints.push(None);
                        continue;
                    }
                    let (value, outcome) = match s {
                        Statement::Primitive(rivet_testcase::PrimitiveValue::Int(v)) => {
                            (Some(*v), ValueSummary::Int(*v))
                        }
                        Statement::Construct { .. } => (
                            None,
                            ValueSummary::Object {
                                identity: 0,
                                class: "lct.Examples".into(),
                            },
                        ),
                        Statement::Call { method, args, .. } if method.name == "figure1" => {
                            let x = args.first().and_then(|a| ints[a.0 as usize]).unwrap_or(0)
                                as i64
                                + 5;
                            let mut y =
                                args.get(1).and_then(|a| ints[a.0 as usize]).unwrap_or(0) as i64;
                            record(&mut dist, 0, if x > 0 { 0.0 } else { (1 - x) as f64 });
                            record(&mut dist, 1, if x <= 0 { 0.0 } else { x as f64 });
                            if x <= 0 {
                                y = 10;
                            }
                            record(&mut dist, 2, if x > 2 { 0.0 } else { (3 - x) as f64 });
                            record(&mut dist, 3, if x <= 2 { 0.0 } else { (x - 2) as f64 });
                            if x > 2 {
                                record(&mut dist, 4, (y - 2789).abs() as f64);
                                record(&mut dist, 5, if y != 2789 { 0.0 } else { 1.0 });
                                if y == 2789 {
                                    thrown = true;
                                    outcomes.push(StatementOutcome::Threw {
                                        class: "java.lang.IllegalStateException".into(),
                                        message: Some("error".into()),
                                    });
                                    ints.push(None);
                                    continue;
                                }
                            }
                            (None, ValueSummary::Int(y as i32))
                        }
                        _ => (None, ValueSummary::Void),
                    };
                    ints.push(value);
                    outcomes.push(StatementOutcome::Normal(outcome));
                }
                let covered = dist
                    .iter()
                    .filter(|(_, d)| **d == 0.0)
                    .map(|(p, _)| ProbeId(*p))
                    .collect();
                Execution {
                    status: ExecutionStatus::Completed,
                    outcomes,
                    covered,
                    distances: dist.into_iter().map(|(p, d)| (ProbeId(p), d)).collect(),
                    hits: Vec::new(),
                    seeds: Vec::new(),
                    duration: Duration::ZERO,
                    worker: None,
                    stray_threads: 0,
                    observations: Vec::new(),
                    snapshots: Vec::new(),
                }
            })
            .collect()
    }
}

fn model() -> ApiModel {
    let jdk = Arc::new(JdkImage::locate().expect("a JDK"));
    let cp = Arc::new(
        Classpath::from_paths([rivet_testkit::compiled_subjects(11)], Some(jdk))
            .expect("classpath"),
    );
    ApiModel::build(
        cp,
        &rivet_testcase::ClassName::from_binary("lct.Examples"),
        Some("figure1"),
        AccessMode::SamePackage,
    )
    .expect("model")
}

fn goals() -> Goals {
    let branch = |id: u32, controlling: Vec<GoalId>, what: &str| Goal {
        id: GoalId(id),
        objective: Arc::new(BranchObjective::new(ProbeId(id))),
        controlling,
        method: "figure1".into(),
        line: Some(12 + id as u16),
        what: what.into(),
    };
    Goals::new(vec![
        branch(0, vec![], "true"),
        branch(1, vec![], "false"),
        branch(2, vec![], "true"),
        branch(3, vec![], "false"),
        branch(4, vec![GoalId(2)], "true"),
        branch(5, vec![GoalId(2)], "false"),
    ])
}

fn config(seed: u64) -> SearchConfig {
    SearchConfig {
        seed,
        budget: Duration::from_secs(30),
        max_executions: Some(40_000),
        population: 20,
        ..SearchConfig::default()
    }
}

#[test]
fn search_covers_the_magic_number_branch_and_is_deterministic() {
    let model = model();
    let generator = Generator::new(&model, GenConfig::default());
    let goals = goals();
    let mut exec = FakeFigure1 { runs: 0 };
    let mut last = None;
    let result = Search::new(&generator, config(1)).run(&goals, &mut exec, &mut |p| last = Some(p));
    assert_eq!(
        result.archive.entries.len(),
        6,
        "covered {:?}",
        result.archive.covered()
    );
    assert!(last.is_some_and(|p| p.covered == 6));
    let again =
        Search::new(&generator, config(1)).run(&goals, &mut FakeFigure1 { runs: 0 }, &mut |_| {});
    assert_eq!(result.archive.entries, again.archive.entries);
    assert_eq!(result.executions, again.executions);

    let (minimized, _) = minimize(&mut exec, &goals, distinct_tests(&result.archive), None);
    let covered: std::collections::BTreeSet<GoalId> = minimized
        .iter()
        .flat_map(|m| m.goals.iter().copied())
        .collect();
    assert_eq!(covered.len(), 6);
    for m in &minimized {
        // A constructor, two ints and the call at most.
        assert!(m.test.len() <= 4, "not minimal: {:?}", m.test.test);
    }
    let (tests, _) = add_assertions(&mut exec, &model, &goals, minimized);
    assert!(tests.iter().any(|t| t.assertions.iter().any(|a| matches!(a, Assertion::Throws { class, .. } if class == "java.lang.IllegalStateException"))));
    assert!(tests.iter().any(|t| t
        .assertions
        .iter()
        .any(|a| matches!(a, Assertion::Equals { .. }))));
}
