//! Guidance through calls for branch goals (EvoSuite's "callee branches"). When a branch's
//! nearest evaluated control-dependence ancestor took the outcome that leads to it and the
//! branch was still not reached, something threw in between, often inside a method of the
//! class called on the way (a private helper that validates its input). The approach level
//! alone is a plateau there; the progress those callees made (how many times their
//! "continuing" outcomes ran, those from which they can still return normally, per time the
//! ancestor's outcome was taken) refines it. The same holds after a branch was taken and a
//! method called next threw before JaCoCo's next probe confirmed it ([`UNCONFIRMED`]): with
//! DynaMOSA's targets, that branch is what stands between the search and the goals below it.
//!
//! A guided branch's fitness at approach level `a` (the nearest evaluated ancestors `a` levels
//! up, with best normalized distance ν): `a + 0.5 / (1 + progress)` when ν is 0 (the
//! ancestor's outcome was taken), else `a + 0.5 + 0.5 ν`. Level `a` stays inside `(a, a + 1)`,
//! so a run that reaches a nearer level always scores better, and within a level taking the
//! ancestor's outcome beats any distance to it. A branch with no control-dependence parent
//! counts its method's entry (a statement calling the method that ran) as its parent. Taken
//! but unconfirmed, a guided branch scores `UNCONFIRMED · (1 + 0.5 / (1 + progress))`, still
//! below any branch distance a run that did not take it can have.
//!
//! Runs count per probe, not per call: the counts of a callee that a statement of the test
//! also reaches without the branch's method (calling it, or a method that calls it) say
//! nothing about the branch's path, so such a callee earns no progress in that run; nor does
//! repeating a call that gets nowhere (progress is per time the path was taken).

use crate::goal::UNCONFIRMED;
use rivet_testcase::{
    Execution, MemberRef, ProbeId, Statement, StatementOutcome, TestCase, ValueSummary,
    UNRUNNABLE_CLASS,
};

/// One method called on the way to (or past) a branch.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CalleeOutcomes {
    /// The probes of its continuing branch outcomes (from which it can still return normally;
    /// outcomes that can only lead to a throw are left out).
    pub probes: Vec<ProbeId>,
    /// The members that run it when a test calls them, other than through the branch's
    /// method (itself included).
    pub entries: Vec<MemberRef>,
}

/// What a branch goal knows of the calls before and after it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CalleeGuidance {
    /// The methods called on every path to the branch (and what they call).
    pub before: Vec<CalleeOutcomes>,
    /// The methods called after the branch's outcome, on the way to the probe that confirms
    /// it (and what they call).
    pub after: Vec<CalleeOutcomes>,
    /// The method the branch lies in: for a branch with no control-dependence parent, a
    /// statement that calls it and ran stands for the parent taken.
    pub method: Option<MemberRef>,
}

impl CalleeGuidance {
    /// Is there anything to guide with?
    pub fn is_empty(&self) -> bool {
        self.before.is_empty() && self.after.is_empty()
    }

    /// Progress in `callees` ([`CalleeGuidance::before`] or [`CalleeGuidance::after`]) per
    /// time the path through them was taken (`reached`, at least 1): the summed hit counts of
    /// their continuing outcomes divided by `reached`, leaving out the callees a statement of
    /// `test` ran by another way.
    pub fn progress(
        callees: &[CalleeOutcomes],
        test: &TestCase,
        e: &Execution,
        reached: u32,
    ) -> f64 {
        let entered = entered(test, e);
        let sum: u64 = callees
            .iter()
            .filter(|c| !c.entries.iter().any(|m| entered.contains(&m)))
            .flat_map(|c| &c.probes)
            .map(|p| u64::from(e.hits(*p)))
            .sum();
        sum as f64 / f64::from(reached.max(1))
    }

    /// How many statements of `test` entered the branch's method (see [`entered`]); 0
    /// without a method.
    pub fn entries(&self, test: &TestCase, e: &Execution) -> u32 {
        let Some(member) = &self.method else {
            return 0;
        };
        let n = entered(test, e).iter().filter(|m| **m == member).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// The member each statement of `test` that entered one called, in order: calls and
/// constructions that ran (returned, or threw other than as unrunnable), not on a null
/// receiver.
pub fn entered<'t>(test: &'t TestCase, e: &Execution) -> Vec<&'t MemberRef> {
    let null = |r: &rivet_testcase::StatementId| {
        matches!(
            e.outcomes.get(r.0 as usize),
            Some(StatementOutcome::Normal(ValueSummary::Null))
        )
    };
    test.statements
        .iter()
        .zip(&e.outcomes)
        .filter(|(_, o)| match o {
            StatementOutcome::Normal(_) => true,
            StatementOutcome::Threw { class, .. } => !class.is(UNRUNNABLE_CLASS),
            StatementOutcome::NotRun => false,
        })
        .filter_map(|(s, _)| match s {
            Statement::Call {
                method, receiver, ..
            } if !receiver.as_ref().is_some_and(null) => Some(method),
            Statement::Construct { constructor, .. } => Some(constructor),
            _ => None,
        })
        .collect()
}

/// The fitness of a guided branch whose nearest evaluated ancestors are `approach` (≥ 1)
/// levels up, with best normalized distance `nu`, after `progress` in the callees (see the
/// module documentation): inside `(approach, approach + 1)`.
pub fn guided_fitness(approach: usize, nu: f64, progress: f64) -> f64 {
    let a = approach as f64;
    if nu > 0.0 {
        a + 0.5 + 0.5 * nu.min(1.0)
    } else {
        a + 0.5 / (1.0 + progress.max(0.0))
    }
}

/// The fitness of a guided branch that was taken but not confirmed, after `progress` in the
/// methods called after it: inside `(UNCONFIRMED, 1.5 UNCONFIRMED]`.
pub fn unconfirmed_fitness(progress: f64) -> f64 {
    UNCONFIRMED * (1.0 + 0.5 / (1.0 + progress.max(0.0)))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use rivet_testcase::{ExecutionStatus, GoalId};

    use super::*;
    use crate::{normalize, BranchObjective, Goal, Goals, UNREACHED};

    /// A run: probe → (distance, times taken); covered are those at distance 0.
    fn run(probes: &[(u32, f64, u32)], outcomes: Vec<StatementOutcome>) -> Execution {
        let mut probes = probes.to_vec();
        probes.sort_by_key(|(p, _, _)| *p);
        let mut e = Execution::without_result(ExecutionStatus::Completed, 0, Duration::ZERO, None);
        e.outcomes = outcomes;
        e.distances = probes.iter().map(|(p, d, _)| (ProbeId(*p), *d)).collect();
        e.covered = probes
            .iter()
            .filter(|(_, d, _)| *d == 0.0)
            .map(|(p, _, _)| ProbeId(*p))
            .collect();
        e.hits = probes
            .iter()
            .filter(|(_, _, n)| *n > 0)
            .map(|(p, _, n)| (ProbeId(*p), *n))
            .collect();
        e
    }

    fn member() -> MemberRef {
        MemberRef::new("a/C", "m", "(I)V")
    }

    /// A callee with these continuing outcomes, which tests can also call directly as `name`.
    fn callee(probes: &[u32], name: &str) -> CalleeOutcomes {
        CalleeOutcomes {
            probes: probes.iter().map(|p| ProbeId(*p)).collect(),
            entries: vec![MemberRef::new("a/C", name, "()V")],
        }
    }

    /// 0 ← 2 ← 4: branch 4 lies two levels below 0, after calls whose continuing outcomes
    /// are probes 10 and 11 (branch 5 is the same branch without guidance). Branch 6 counts
    /// when JaCoCo's point 30 runs, after calls whose continuing outcomes are probes 20 and
    /// 21 (branch 7: the same without guidance).
    fn goals() -> Goals {
        let goal = |id: u32, controlling: Vec<GoalId>, guided: bool| {
            let mut o = if id < 6 {
                BranchObjective::new(ProbeId(id))
            } else {
                BranchObjective::confirmed_by(ProbeId(id), vec![ProbeId(30)])
            };
            if guided {
                o = o.with_callees(CalleeGuidance {
                    before: vec![callee(&[10, 11], "h")],
                    after: vec![callee(&[20, 21], "k")],
                    method: Some(member()),
                });
            }
            Goal {
                id: GoalId(id),
                objective: Arc::new(o),
                controlling,
                method: "C.m".into(),
                line: None,
                what: "true".into(),
            }
        };
        Goals::new(vec![
            goal(0, vec![], false),
            goal(1, vec![], false),
            goal(2, vec![GoalId(0)], false),
            goal(3, vec![GoalId(0)], false),
            goal(4, vec![GoalId(2)], true),
            goal(5, vec![GoalId(2)], false),
            goal(6, vec![], true),
            goal(7, vec![], false),
        ])
    }

    /// A test calling `a/C.m` once (it threw), and the outcome of its statements.
    fn calling() -> (TestCase, Vec<StatementOutcome>) {
        let mut t = TestCase::new();
        let x = t.push(Statement::Primitive(rivet_testcase::PrimitiveValue::Int(1)));
        t.push(Statement::Call {
            method: member(),
            receiver: None,
            args: vec![x],
        });
        let outcomes = vec![
            StatementOutcome::Normal(ValueSummary::Int(1)),
            StatementOutcome::Threw {
                class: "java.lang.IllegalArgumentException".into(),
                message: None,
            },
        ];
        (t, outcomes)
    }

    #[test]
    fn progress_in_the_callees_refines_each_plateau_without_leaving_its_level() {
        let goals = goals();
        let (call, outcomes) = calling();
        let none = TestCase::new();
        // Runs from farthest to nearest, with the approach level each must stay inside.
        let cases: Vec<(&str, &TestCase, Execution, Option<usize>)> = vec![
            ("nothing ran", &none, run(&[], vec![]), None),
            (
                "entered, no progress",
                &call,
                run(&[], outcomes.clone()),
                Some(3),
            ),
            (
                "entered, callees went on",
                &call,
                run(&[(10, 0.0, 3), (11, 0.0, 1)], outcomes),
                Some(3),
            ),
            ("0 five away", &none, run(&[(0, 5.0, 0)], vec![]), Some(2)),
            ("0 one away", &none, run(&[(0, 1.0, 0)], vec![]), Some(2)),
            ("0 taken", &none, run(&[(0, 0.0, 1)], vec![]), Some(2)),
            (
                "0 taken, callees once",
                &none,
                run(&[(0, 0.0, 1), (10, 0.0, 1)], vec![]),
                Some(2),
            ),
            (
                "0 taken, callees 9 times",
                &none,
                run(&[(0, 0.0, 1), (10, 0.0, 4), (11, 0.0, 5)], vec![]),
                Some(2),
            ),
            ("2 three away", &none, run(&[(2, 3.0, 0)], vec![]), Some(1)),
            (
                "2 taken, callees 1000 times",
                &none,
                run(&[(2, 0.0, 1), (10, 0.0, 1000)], vec![]),
                Some(1),
            ),
            ("4 one away", &none, run(&[(4, 1.0, 0)], vec![]), Some(0)),
            ("4 taken", &none, run(&[(4, 0.0, 1)], vec![]), Some(0)),
        ];
        let mut last = f64::INFINITY;
        for (what, t, e, level) in &cases {
            let f = goals.fitness(GoalId(4), t, e);
            assert!(f < last, "{what}: {f} is not better than {last}");
            match level {
                None => assert_eq!(f, UNREACHED, "{what}"),
                Some(0) => assert!((0.0..1.0).contains(&f), "{what}: {f}"),
                Some(a) => {
                    let a = *a as f64;
                    assert!(f > a && f < a + 1.0, "{what}: {f} outside level {a}");
                }
            }
            last = f;
        }
        assert_eq!(goals.fitness(GoalId(4), &none, &cases[11].2), 0.0);
    }

    #[test]
    fn repeating_a_call_that_gets_nowhere_earns_nothing() {
        let goals = goals();
        let t = TestCase::new();
        let once = run(&[(2, 0.0, 1), (10, 0.0, 4)], vec![]);
        let twice = run(&[(2, 0.0, 2), (10, 0.0, 8)], vec![]);
        let better = run(&[(2, 0.0, 2), (10, 0.0, 9)], vec![]);
        let f = |e: &Execution| goals.fitness(GoalId(4), &t, e);
        assert_eq!(f(&once), f(&twice));
        assert!(f(&better) < f(&twice));
        assert_eq!(f(&once), 1.0 + 0.5 / 5.0);
    }

    #[test]
    fn without_guidance_the_plateau_stays_flat() {
        let goals = goals();
        let (call, outcomes) = calling();
        let cases: Vec<(Execution, f64)> = vec![
            (run(&[(2, 0.0, 1)], vec![]), 1.0),
            (run(&[(2, 0.0, 1), (10, 0.0, 50)], vec![]), 1.0),
            (run(&[(0, 1.0, 0)], vec![]), 2.5),
            (run(&[], outcomes), UNREACHED),
        ];
        for (e, expected) in &cases {
            assert_eq!(goals.fitness(GoalId(5), &call, e), *expected, "{e:?}");
        }
    }

    #[test]
    fn a_call_on_a_null_receiver_never_entered_the_method() {
        let g = CalleeGuidance {
            before: vec![callee(&[10], "h")],
            after: vec![],
            method: Some(member()),
        };
        let mut t = TestCase::new();
        let r = t.push(Statement::Null {
            descriptor: "La/C;".into(),
        });
        t.push(Statement::Call {
            method: member(),
            receiver: Some(r),
            args: vec![],
        });
        let npe = StatementOutcome::Threw {
            class: "java.lang.NullPointerException".into(),
            message: None,
        };
        let on_null = run(&[], vec![StatementOutcome::Normal(ValueSummary::Null), npe]);
        assert_eq!(g.entries(&t, &on_null), 0);
        let (call, outcomes) = calling();
        assert_eq!(g.entries(&call, &run(&[], outcomes)), 1);
    }

    #[test]
    fn progress_after_a_taken_branch_refines_unconfirmed_and_stays_below_any_distance() {
        let goals = goals();
        let t = TestCase::new();
        // (what, run, fitness of the guided branch 6, of the unguided branch 7)
        let tiny = normalize(1e-300);
        let cases: Vec<(&str, Execution, Option<f64>, f64)> = vec![
            (
                "not taken",
                run(&[(6, 1e-300, 0), (7, 1e-300, 0)], vec![]),
                Some(tiny),
                tiny,
            ),
            (
                "taken, threw at once",
                run(&[(6, 0.0, 1), (7, 0.0, 1)], vec![]),
                None,
                UNCONFIRMED,
            ),
            (
                "taken, callees went on",
                run(
                    &[(6, 0.0, 1), (7, 0.0, 1), (20, 0.0, 2), (21, 0.0, 5)],
                    vec![],
                ),
                None,
                UNCONFIRMED,
            ),
            (
                "taken and confirmed",
                run(&[(6, 0.0, 1), (7, 0.0, 1), (30, 0.0, 1)], vec![]),
                Some(0.0),
                0.0,
            ),
        ];
        let mut last = f64::INFINITY;
        for (what, e, guided, unguided) in &cases {
            let f = goals.fitness(GoalId(6), &t, e);
            assert!(f < last, "{what}: {f:e} is not better than {last:e}");
            match guided {
                Some(x) => assert_eq!(f, *x, "{what}"),
                None => assert!(f > UNCONFIRMED && f <= 1.5 * UNCONFIRMED, "{what}: {f:e}"),
            }
            assert_eq!(goals.fitness(GoalId(7), &t, e), *unguided, "{what}");
            last = f;
        }
        assert!(
            goals.covered(&t, &cases[2].1).is_empty(),
            "unconfirmed is not covered"
        );
    }

    #[test]
    fn a_callee_the_test_also_runs_by_another_way_earns_no_progress() {
        let goals = goals();
        let (mut t, mut outcomes) = calling();
        let progress = [(2, 0.0, 1), (10, 0.0, 6), (6, 0.0, 1), (20, 0.0, 6)];
        let alone = run(&progress, outcomes.clone());
        let just_m = t.clone();
        // The same run, with a statement calling the helper `h` (before branch 4) directly.
        t.push(Statement::Call {
            method: MemberRef::new("a/C", "h", "()V"),
            receiver: None,
            args: vec![],
        });
        outcomes.push(StatementOutcome::Normal(ValueSummary::Void));
        let also_h = run(&progress, outcomes.clone());
        assert_eq!(goals.fitness(GoalId(4), &just_m, &alone), 1.0 + 0.5 / 7.0);
        assert_eq!(
            goals.fitness(GoalId(4), &t, &also_h),
            1.5,
            "h's counts say nothing"
        );
        // `k` (after branch 6) is not called directly: its progress still counts.
        assert_eq!(
            goals.fitness(GoalId(6), &t, &also_h),
            unconfirmed_fitness(6.0)
        );
        // A call of `h` that never ran does not spoil anything.
        outcomes[2] = StatementOutcome::NotRun;
        let h_not_run = run(&progress, outcomes);
        assert_eq!(goals.fitness(GoalId(4), &t, &h_not_run), 1.0 + 0.5 / 7.0);
    }
}
