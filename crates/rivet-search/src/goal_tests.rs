//! Unit tests of the goals: control dependence, observation, snapshot requests, outcomes.

use std::time::Duration;

use rivet_testcase::{ExecutionStatus, ValueSummary};

use super::*;

fn run(covered: &[u32], distances: &[(u32, f64)], outcomes: Vec<StatementOutcome>) -> Execution {
    Execution {
        status: ExecutionStatus::Completed,
        outcomes,
        covered: covered.iter().map(|p| ProbeId(*p)).collect(),
        distances: distances.iter().map(|(p, d)| (ProbeId(*p), *d)).collect(),
        hits: Vec::new(),
        seeds: Vec::new(),
        duration: Duration::ZERO,
        worker: None,
        stray_threads: 0,
        observations: Vec::new(),
        snapshots: Vec::new(),
    }
}

fn branch(id: u32, controlling: Vec<GoalId>) -> Goal {
    Goal {
        id: GoalId(id),
        objective: Arc::new(BranchObjective::new(ProbeId(id))),
        controlling,
        method: "C.m".into(),
        line: Some(3),
        what: "true".into(),
    }
}

/// 0 ← 2 ← 4 (4 is control dependent on 2, which is control dependent on 0).
fn chain() -> Goals {
    Goals::new(vec![
        branch(0, vec![]),
        branch(1, vec![]),
        branch(2, vec![GoalId(0)]),
        branch(3, vec![GoalId(0)]),
        branch(4, vec![GoalId(2)]),
    ])
}

/// A goal that needs the calls of `a/C.m` observed (as a path-condition goal does).
#[derive(Debug)]
struct Watching;

impl Objective for Watching {
    fn fitness(&self, _: &TestCase, _: &Execution) -> f64 {
        1.0
    }

    fn observation(&self) -> Option<Observation> {
        Some(Observation {
            member: MemberRef::new("a/C", "m", "()V"),
            paths: Vec::new(),
        })
    }
}

#[test]
fn a_goal_that_observes_is_watched_while_active() {
    let mut goals = chain();
    let added = goals.add(Arc::new(Watching), "C.m".into(), None, "path".into());
    assert!(goals.is_watched(added));
    assert!(
        (0..5).all(|i| !goals.is_watched(GoalId(i))),
        "branches observe nothing"
    );
    goals.retire(added);
    assert!(!goals.is_watched(added));
    assert!(goals.observation().is_empty());
}

#[test]
fn a_snapshot_request_joins_the_observation_until_withdrawn() {
    let mut goals = chain();
    assert!(goals.observation().is_empty());
    let spec = SnapshotSpec {
        members: vec![MemberRef::new("a/C", "m", "()V")],
        packages: vec!["a".into()],
        max_objects: 8,
        max_depth: 4,
        max_per_test: 1,
    };
    goals.set_snapshot(Some(spec.clone()));
    assert_eq!(goals.observation().snapshot, Some(spec));
    assert!(!goals.observation().is_empty());
    // Adding and retiring goals keeps it.
    goals.retire(GoalId(1));
    assert!(goals.observation().snapshot.is_some());
    goals.set_snapshot(None);
    assert!(goals.observation().is_empty());
}

#[test]
fn sampled_snapshots_go_with_the_first_batches_then_one_in_every() {
    let mut goals = chain();
    let carried = |g: &Goals| -> Vec<u64> {
        (1..=12)
            .filter(|b| g.observation_for(*b).snapshot.is_some())
            .collect()
    };
    // No request: no batch carries one, sampled or not.
    goals.set_snapshot_sampling(SnapshotSampling { full: 2, every: 4 });
    assert!(carried(&goals).is_empty());
    goals.set_snapshot(Some(SnapshotSpec {
        members: vec![MemberRef::new("a/C", "m", "()V")],
        packages: vec!["a".into()],
        max_objects: 8,
        max_depth: 4,
        max_per_test: 1,
    }));
    assert_eq!(carried(&goals), vec![1, 2, 4, 8, 12]);
    // The batches left out keep the goals' own observation.
    goals.retire(GoalId(1));
    assert_eq!(
        goals.observation_for(3).targets,
        goals.observation().targets
    );
    // Unsampled by default.
    goals.set_snapshot_sampling(SnapshotSampling::default());
    assert_eq!(carried(&goals), (1..=12).collect::<Vec<u64>>());
}

#[test]
fn the_archive_keeps_snapshots_up_to_its_bound() {
    let snapshot = rivet_testcase::HeapSnapshot {
        member: MemberRef::new("a/C", "m", "()V"),
        statement: 0,
        receiver: None,
        arguments: Vec::new(),
        objects: Default::default(),
        truncated: false,
    };
    let mut archive = crate::Archive::default();
    archive.keep_snapshots(vec![snapshot.clone(); crate::MAX_PENDING_SNAPSHOTS - 1]);
    archive.keep_snapshots(vec![snapshot; 3]);
    assert_eq!(archive.snapshots.len(), crate::MAX_PENDING_SNAPSHOTS);
}

#[test]
fn a_branch_is_0_when_covered_and_nu_of_its_distance_when_evaluated() {
    let goals = chain();
    let t = TestCase::new();
    let e = run(&[0], &[(0, 0.0), (1, 3.0)], vec![]);
    assert_eq!(goals.fitness(GoalId(0), &t, &e), 0.0);
    assert_eq!(goals.fitness(GoalId(1), &t, &e), 0.75);
    assert_eq!(normalize(f64::NAN), 1.0);
}

#[test]
fn a_branch_with_confirmers_counts_only_when_one_of_them_ran() {
    let goal = |id: u32| Goal {
        id: GoalId(id),
        objective: Arc::new(BranchObjective::confirmed_by(
            ProbeId(id),
            vec![ProbeId(10), ProbeId(11)],
        )),
        controlling: vec![],
        method: "C.m".into(),
        line: Some(3),
        what: "true".into(),
    };
    let goals = Goals::new(vec![goal(0)]);
    let t = TestCase::new();
    // Taken, then threw before JaCoCo's next probe: not covered, but better than any
    // distance of a branch not taken.
    let threw = run(&[0], &[(0, 0.0)], vec![]);
    assert_eq!(goals.fitness(GoalId(0), &t, &threw), UNCONFIRMED);
    assert!(UNCONFIRMED > 0.0 && UNCONFIRMED < normalize(1e-300));
    assert!(goals.covered(&t, &threw).is_empty());
    let went_on = run(&[0, 11], &[(0, 0.0)], vec![]);
    assert_eq!(goals.fitness(GoalId(0), &t, &went_on), 0.0);
    assert!(goals.covered(&t, &went_on).contains(&GoalId(0)));
}

#[test]
fn an_unevaluated_branch_adds_its_approach_level() {
    let goals = chain();
    let t = TestCase::new();
    // Only branch 0's condition ran (distance 1 from taking it): 4 is two levels below.
    let e = run(&[], &[(0, 1.0)], vec![]);
    assert_eq!(goals.fitness(GoalId(2), &t, &e), 1.5);
    assert_eq!(goals.fitness(GoalId(4), &t, &e), 2.5);
    let nothing = run(&[], &[], vec![]);
    assert_eq!(goals.fitness(GoalId(4), &t, &nothing), UNREACHED);
}

#[test]
fn a_test_holding_an_object_whose_methods_run_a_branch_is_nearer_than_one_that_does_not() {
    let view = "a/C$View";
    let goal = |id: u32, controlling: Vec<GoalId>| Goal {
        id: GoalId(id),
        objective: Arc::new(BranchObjective::new(ProbeId(id)).held_by(vec![view.into()])),
        controlling,
        method: "C$View.isEmpty".into(),
        line: Some(3),
        what: "true".into(),
    };
    // 1 lies below 0 in the view's method.
    let goals = Goals::new(vec![goal(0, vec![]), goal(1, vec![GoalId(0)])]);
    let t = TestCase::new();
    let object = |class: &str| {
        StatementOutcome::Normal(ValueSummary::Object {
            identity: 0,
            class: class.into(),
        })
    };
    let holds = run(&[], &[], vec![object("a/C"), object("a.C$View")]);
    let other = run(&[], &[], vec![object("a/C"), object("a/C$Other")]);
    for g in [GoalId(0), GoalId(1)] {
        assert_eq!(goals.fitness(g, &t, &holds), HELD);
        assert_eq!(goals.fitness(g, &t, &other), UNREACHED);
    }
    assert!(HELD < UNREACHED && HELD > MAX_LEVEL as f64 + 1.0);
    // Once the method ran, its branches' own distances and levels count, as without holders.
    let entered = run(&[], &[(0, 3.0)], vec![object("a/C$View")]);
    assert_eq!(goals.fitness(GoalId(0), &t, &entered), 0.75);
    assert_eq!(goals.fitness(GoalId(1), &t, &entered), 1.75);
    // A threw outcome, a null or a primitive holds nothing.
    let threw = run(
        &[],
        &[],
        vec![StatementOutcome::Threw {
            class: view.into(),
            message: None,
        }],
    );
    assert_eq!(goals.fitness(GoalId(0), &t, &threw), UNREACHED);
}

#[test]
fn a_method_goal_needs_a_call_that_ran() {
    let member = MemberRef::new("a/C", "m", "()V");
    let goals = Goals::new(vec![Goal {
        id: GoalId(0),
        objective: Arc::new(MethodObjective {
            member: member.clone(),
        }),
        controlling: vec![],
        method: "C.m".into(),
        line: None,
        what: "call".into(),
    }]);
    let mut t = TestCase::new();
    let r = t.push(Statement::Null {
        descriptor: "La/C;".into(),
    });
    t.push(Statement::Call {
        method: member,
        receiver: Some(r),
        args: vec![],
    });
    let ran = run(
        &[],
        &[],
        vec![
            StatementOutcome::Normal(ValueSummary::Null),
            StatementOutcome::Threw {
                class: "java.lang.NullPointerException".into(),
                message: None,
            },
        ],
    );
    assert_eq!(goals.fitness(GoalId(0), &t, &ran), 0.0);
    assert!(goals.covered(&t, &ran).contains(&GoalId(0)));
    let unrunnable = run(
        &[],
        &[],
        vec![
            StatementOutcome::Normal(ValueSummary::Null),
            StatementOutcome::Threw {
                class: UNRUNNABLE_CLASS.into(),
                message: None,
            },
        ],
    );
    assert_eq!(goals.fitness(GoalId(0), &t, &unrunnable), 1.0);
}

#[test]
fn goals_added_during_a_run_are_found_by_probe_and_retired_ones_stay() {
    let mut goals = chain();
    let id = goals.add(
        Arc::new(BranchObjective::new(ProbeId(9))),
        "C.n".into(),
        None,
        "false".into(),
    );
    assert_eq!(id, GoalId(5));
    let e = run(&[9], &[(9, 0.0)], vec![]);
    assert!(goals.covered(&TestCase::new(), &e).contains(&id));
    goals.retire(id);
    assert!(goals.is_retired(id));
    assert_eq!(goals.active(), 5);
    assert_eq!(goals.len(), 6);
}
