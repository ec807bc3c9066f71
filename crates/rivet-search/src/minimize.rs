//! Minimization of archived tests: each test is cut after its first exception, then every
//! statement whose removal (with its dependents) keeps the test's goals covered is removed,
//! trying all tests at once, one statement each per batch. The suite is then the smallest
//! greedy cover of the goals the minimized tests cover.

use std::collections::{BTreeMap, BTreeSet};

use rivet_api::ApiModel;
use rivet_testcase::{Execution, Executor, GoalId, StatementOutcome, TestCase, TypedTest};
use tracing::{debug, info_span};

use crate::archive::Archive;
use crate::goal::Goals;

/// A test and the goals it must keep covering.
#[derive(Debug, Clone, PartialEq)]
pub struct MinimizedTest {
    pub test: TypedTest,
    pub goals: BTreeSet<GoalId>,
}

/// The distinct tests of an archive, each with the goals it is kept for (ordered by their
/// first goal).
pub fn distinct_tests(archive: &Archive) -> Vec<MinimizedTest> {
    let mut out: Vec<MinimizedTest> = Vec::new();
    for (g, t) in &archive.entries {
        match out.iter_mut().find(|m| &m.test == t) {
            Some(m) => {
                m.goals.insert(*g);
            }
            None => out.push(MinimizedTest {
                test: t.clone(),
                goals: BTreeSet::from([*g]),
            }),
        }
    }
    out
}

/// Do the casts the written test makes of `t`'s results hold for run `e` (always without
/// `api`)?
pub(crate) fn casts_hold(api: Option<&ApiModel>, t: &TypedTest, e: &Execution) -> bool {
    api.is_none_or(|api| api.failing_cast(t, e).is_none())
}

/// Minimizes the tests, then picks a greedy cover of the goals they cover.
/// With `api`, a candidate whose results break a cast the written test makes
/// (`ApiModel::failing_cast`) is not kept.
pub fn minimize(
    executor: &mut dyn Executor,
    goals: &Goals,
    tests: Vec<MinimizedTest>,
    api: Option<&ApiModel>,
) -> (Vec<MinimizedTest>, u64) {
    let _span = info_span!("minimize", tests = tests.len()).entered();
    let mut executions = 0u64;
    let mut tests = tests;
    // Cut each test after its first exception (nothing after it runs).
    let runs = executor.execute(&cases(&tests));
    executions += runs.len() as u64;
    for (m, e) in tests.iter_mut().zip(&runs) {
        if let Some(k) = e
            .outcomes
            .iter()
            .position(|o| matches!(o, StatementOutcome::Threw { .. }))
        {
            let keep: Vec<bool> = (0..m.test.len()).map(|i| i <= k).collect();
            m.test.retain(&keep);
        }
    }
    let mut cursor: Vec<isize> = tests.iter().map(|m| m.test.len() as isize - 1).collect();
    loop {
        let mut batch: Vec<(usize, TypedTest)> = Vec::new();
        for (i, m) in tests.iter().enumerate() {
            if cursor[i] >= 0 {
                let mut candidate = m.test.clone();
                candidate.remove_with_dependents(&[cursor[i] as usize]);
                batch.push((i, candidate));
            }
        }
        if batch.is_empty() {
            break;
        }
        let runs = executor.execute(
            &batch
                .iter()
                .map(|(_, t)| t.test.clone())
                .collect::<Vec<_>>(),
        );
        executions += runs.len() as u64;
        for ((i, candidate), e) in batch.into_iter().zip(&runs) {
            let keeps = e.is_completed()
                && casts_hold(api, &candidate, e)
                && tests[i].goals.is_subset(&goals.covered(&candidate.test, e));
            if keeps {
                cursor[i] = (cursor[i] - 1).min(candidate.len() as isize - 1);
                tests[i].test = candidate;
            } else {
                cursor[i] -= 1;
            }
        }
    }
    // The goals each minimized test covers now, and a greedy cover.
    let runs = executor.execute(&cases(&tests));
    executions += runs.len() as u64;
    let covers: Vec<BTreeSet<GoalId>> = tests
        .iter()
        .zip(&runs)
        .map(|(m, e)| {
            if e.is_completed() {
                goals.covered(&m.test.test, e)
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    let mut uncovered: BTreeSet<GoalId> = covers.iter().flatten().copied().collect();
    let mut chosen: BTreeMap<usize, BTreeSet<GoalId>> = BTreeMap::new();
    while !uncovered.is_empty() {
        let best = (0..tests.len())
            .filter(|i| !chosen.contains_key(i))
            .max_by(|&a, &b| {
                let ca = covers[a].intersection(&uncovered).count();
                let cb = covers[b].intersection(&uncovered).count();
                ca.cmp(&cb)
                    .then(tests[b].test.len().cmp(&tests[a].test.len()))
                    .then(b.cmp(&a))
            });
        let Some(best) = best else { break };
        let gained: BTreeSet<GoalId> = covers[best].intersection(&uncovered).copied().collect();
        if gained.is_empty() {
            break;
        }
        for g in &gained {
            uncovered.remove(g);
        }
        chosen.insert(best, covers[best].clone());
    }
    let out: Vec<MinimizedTest> = chosen
        .into_iter()
        .map(|(i, goals)| MinimizedTest {
            test: tests[i].test.clone(),
            goals,
        })
        .collect();
    debug!(kept = out.len(), executions, "minimized");
    (out, executions)
}

fn cases(tests: &[MinimizedTest]) -> Vec<TestCase> {
    tests.iter().map(|m| m.test.test.clone()).collect()
}
