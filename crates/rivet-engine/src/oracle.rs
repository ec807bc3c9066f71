//! Mutation-based assertion selection, as EvoSuite does it: from which assertions of which
//! test tell which mutant from the original (the soft copy's kill matrix), keep the fewest
//! assertions that still kill every mutant the suite kills, plus each test's expected
//! exception and the result of its last call; then drop tests that kill nothing and cover no
//! goal alone.

use rivet_report::OracleReport;
use std::collections::{BTreeMap, BTreeSet};

/// What one test did against one mutant.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TestKill {
    /// The test failed on its own (an exception, an expected exception missing): a kill
    /// without any value assertion.
    pub failed: bool,
    /// The value assertions (indexes into the test's assertions) that failed.
    pub assertions: BTreeSet<usize>,
}

/// One test as selection sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestOracles {
    /// How many assertions it has.
    pub assertions: usize,
    /// Assertions always kept: the expected exception, the last call's result.
    pub kept: BTreeSet<usize>,
    /// The goals it covers.
    pub goals: BTreeSet<u32>,
}

/// The selection: per test, the assertions kept (None: the test is dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub tests: Vec<Option<BTreeSet<usize>>>,
}

fn median(mut v: Vec<usize>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

impl Selected {
    pub fn report(&self, tests: &[TestOracles]) -> OracleReport {
        let before: Vec<usize> = tests.iter().map(|t| t.assertions).collect();
        let after: Vec<usize> = self.tests.iter().flatten().map(BTreeSet::len).collect();
        OracleReport {
            assertions_before: before.iter().sum(),
            assertions_after: after.iter().sum(),
            median_before: median(before),
            median_after: median(after),
            tests_dropped: self.tests.iter().filter(|t| t.is_none()).count(),
        }
    }
}

/// Selects assertions and tests. `kills[m][t]` is what test `t` did to mutant `m` (absent:
/// the test does not reach it or passed without a failed assertion).
pub fn select(tests: &[TestOracles], kills: &[BTreeMap<usize, TestKill>]) -> Selected {
    // Each candidate assertion (test, index) and the mutants it kills.
    let mut by_assertion: BTreeMap<(usize, usize), BTreeSet<usize>> = BTreeMap::new();
    // Mutants killed without a candidate assertion: a test failing, a kept assertion.
    let mut free: BTreeSet<usize> = BTreeSet::new();
    for (m, row) in kills.iter().enumerate() {
        for (&t, k) in row {
            let kept = tests.get(t).map(|x| &x.kept);
            if k.failed
                || k.assertions
                    .iter()
                    .any(|a| kept.is_some_and(|s| s.contains(a)))
            {
                free.insert(m);
            }
            for &a in &k.assertions {
                if !kept.is_some_and(|s| s.contains(&a)) {
                    by_assertion.entry((t, a)).or_default().insert(m);
                }
            }
        }
    }
    // Greedy set cover of the mutants only candidate assertions kill.
    let mut needed: BTreeSet<usize> = by_assertion
        .values()
        .flatten()
        .copied()
        .filter(|m| !free.contains(m))
        .collect();
    let mut chosen: BTreeSet<(usize, usize)> = BTreeSet::new();
    while !needed.is_empty() {
        let best = by_assertion
            .iter()
            .filter(|(k, _)| !chosen.contains(*k))
            .map(|(k, ms)| (ms.intersection(&needed).count(), std::cmp::Reverse(*k)))
            .max();
        let Some((n, std::cmp::Reverse(k))) = best else {
            break;
        };
        if n == 0 {
            break;
        }
        chosen.insert(k);
        for m in &by_assertion[&k] {
            needed.remove(m);
        }
    }
    // No chosen assertion whose mutants the others kill anyway.
    for k in chosen.clone() {
        let others: BTreeSet<usize> = chosen
            .iter()
            .filter(|o| **o != k)
            .flat_map(|o| by_assertion[o].iter().copied())
            .chain(free.iter().copied())
            .collect();
        if by_assertion[&k].iter().all(|m| others.contains(m)) {
            chosen.remove(&k);
        }
    }
    let mut out: Vec<Option<BTreeSet<usize>>> = tests
        .iter()
        .enumerate()
        .map(|(t, x)| {
            let mut keep = x.kept.clone();
            keep.extend(chosen.iter().filter(|(ct, _)| *ct == t).map(|(_, a)| *a));
            Some(keep)
        })
        .collect();
    drop_idle_tests(tests, kills, &mut out);
    Selected { tests: out }
}

/// Drops, one at a time, tests that kill no mutant with what they keep and cover no goal
/// that no other remaining test covers.
fn drop_idle_tests(
    tests: &[TestOracles],
    kills: &[BTreeMap<usize, TestKill>],
    out: &mut [Option<BTreeSet<usize>>],
) {
    let kills_any = |t: usize, keep: &BTreeSet<usize>| {
        kills.iter().any(|row| {
            row.get(&t)
                .is_some_and(|k| k.failed || k.assertions.iter().any(|a| keep.contains(a)))
        })
    };
    for t in (0..tests.len()).rev() {
        let Some(keep) = &out[t] else { continue };
        if kills_any(t, keep) {
            continue;
        }
        let alone = tests[t].goals.iter().any(|g| {
            !(0..tests.len()).any(|o| o != t && out[o].is_some() && tests[o].goals.contains(g))
        });
        if !alone {
            out[t] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(assertions: usize, kept: &[usize], goals: &[u32]) -> TestOracles {
        TestOracles {
            assertions,
            kept: kept.iter().copied().collect(),
            goals: goals.iter().copied().collect(),
        }
    }

    fn kill(assertions: &[usize]) -> TestKill {
        TestKill {
            failed: false,
            assertions: assertions.iter().copied().collect(),
        }
    }

    #[test]
    fn keeps_the_fewest_assertions_that_kill_what_all_of_them_kill() {
        // Test 0 has four assertions: 0 kills m0 and m1, 1 kills m1, 2 kills m2, 3 nothing;
        // assertion 3 is its last call's result (kept). Test 1's only assertion kills m2 too.
        let tests = vec![test(4, &[3], &[1]), test(1, &[], &[2])];
        let kills = vec![
            BTreeMap::from([(0, kill(&[0]))]),
            BTreeMap::from([(0, kill(&[0, 1]))]),
            BTreeMap::from([(0, kill(&[2])), (1, kill(&[0]))]),
        ];
        let s = select(&tests, &kills);
        let kept0 = s.tests[0].clone().unwrap();
        let kept1 = s.tests[1].clone().unwrap();
        assert!(kept0.contains(&0) && kept0.contains(&3) && !kept0.contains(&1));
        // m2 is killed once: by test 0's assertion 2 or test 1's assertion 0, not both.
        assert_eq!(kept0.contains(&2) as usize + kept1.contains(&0) as usize, 1);
        let r = s.report(&tests);
        assert_eq!(r.assertions_before, 5);
        assert_eq!(r.assertions_after, 3);
    }

    #[test]
    fn mutants_killed_by_a_failing_test_need_no_assertion() {
        let tests = vec![test(2, &[], &[1]), test(1, &[], &[2])];
        let kills = vec![BTreeMap::from([
            (
                0,
                TestKill {
                    failed: true,
                    assertions: BTreeSet::new(),
                },
            ),
            (1, kill(&[0])),
        ])];
        let s = select(&tests, &kills);
        assert_eq!(
            s.tests[1],
            Some(BTreeSet::new()),
            "its assertion kills nothing new"
        );
    }

    #[test]
    fn a_test_that_kills_nothing_goes_unless_it_alone_covers_a_goal() {
        // Tests 0 and 1 cover goal 1, test 2 covers goal 2; none kills anything.
        let tests = vec![test(1, &[], &[1]), test(1, &[], &[1]), test(1, &[], &[2])];
        let s = select(&tests, &[]);
        let dropped: Vec<bool> = s.tests.iter().map(Option::is_none).collect();
        assert_eq!(dropped, vec![false, true, false]);
        assert_eq!(s.report(&tests).tests_dropped, 1);
    }
}
