//! The carried-state screen: the suite run as JUnit runs it, one test after the other in one JVM
//! whose static state carries over (in the emitted order, then reversed), and every assertion
//! whose value differs there from what the test saw alone dropped before verification. JUnit
//! stops a test at its first failing assertion, so verification finds one such assertion per
//! test per round of javac and JUnit runs; a class with static state (a registry, a cache)
//! took a round per assertion and could run out of time with all its tests unverified.

use rivet_testcase::{Assertion, Execution, Executor, GeneratedTest, StatementOutcome, TestCase};
use tracing::debug;

use crate::assertions::same;

/// What the screen did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CarriedScreen {
    /// Assertions dropped (an expected exception's message cleared counts as one).
    pub dropped: usize,
    /// Tests run.
    pub executions: u64,
    /// Tests that ended otherwise than they did alone (an exception where none was expected,
    /// none or another where one was), which JUnit would fail: their index and how they
    /// ended, ascending, each once.
    pub unstable: Vec<(usize, String)>,
}

impl CarriedScreen {
    /// Adds what another pass did.
    pub fn absorb(&mut self, other: CarriedScreen) {
        self.dropped += other.dropped;
        self.executions += other.executions;
        for (i, why) in other.unstable {
            if !self.unstable.iter().any(|(j, _)| *j == i) {
                self.unstable.push((i, why));
            }
        }
        self.unstable.sort_by_key(|(i, _)| *i);
    }
}

/// Runs `tests` in `order` (the emitted order: indexes into `tests`) and in reverse on
/// `executor`, whose JVM keeps static state from test to test, and drops the assertions that
/// do not hold there. An assertion the run did not reach (an earlier statement threw) is left
/// to verification, which drops the whole test then.
pub fn screen_carried_state(
    executor: &mut dyn Executor,
    tests: &mut [GeneratedTest],
    order: &[usize],
) -> CarriedScreen {
    let mut done = CarriedScreen::default();
    if order.len() < 2 {
        // A single test has nothing to carry state over from.
        return done;
    }
    let reversed: Vec<usize> = order.iter().rev().copied().collect();
    for pass in [order, &reversed[..]] {
        done.absorb(screen_pass(executor, tests, pass));
    }
    if done.dropped > 0 {
        debug!(
            dropped = done.dropped,
            "assertions that do not hold with static state carried over"
        );
    }
    done
}

/// Runs `tests` once in `order` on `executor` and drops the assertions that do not hold
/// there, and names the tests that end otherwise: one pass of [`screen_carried_state`], or a
/// pass in a JVM that makes identity hash codes otherwise than the search's workers.
pub fn screen_pass(
    executor: &mut dyn Executor,
    tests: &mut [GeneratedTest],
    order: &[usize],
) -> CarriedScreen {
    let cases: Vec<TestCase> = order.iter().map(|&i| as_checked(&tests[i])).collect();
    let runs = executor.execute(&cases);
    let mut done = CarriedScreen {
        executions: runs.len() as u64,
        ..CarriedScreen::default()
    };
    for (&i, run) in order.iter().zip(&runs) {
        if let Some(why) = ends_otherwise(&tests[i], run) {
            done.absorb(CarriedScreen {
                unstable: vec![(i, why)],
                ..CarriedScreen::default()
            });
        }
        done.dropped += keep_holding(&mut tests[i], run);
    }
    done
}

/// How `run` (of [`as_checked`]`(g)`) ended otherwise than `g` expects: an exception where
/// it expects none or another one, or none where it expects one. None when it ended as
/// expected, or did not complete (a time-out says nothing of the test).
fn ends_otherwise(g: &GeneratedTest, run: &Execution) -> Option<String> {
    if !run.is_completed() {
        return None;
    }
    let expected = g.assertions.iter().find_map(|a| match a {
        Assertion::Throws { at, class, .. } => Some((at.0 as usize, class)),
        _ => None,
    });
    let threw = run
        .exception()
        .filter(|(k, _, _)| *k < g.test.len())
        .map(|(k, class, _)| (k, class));
    match (expected, threw) {
        (None, Some((k, class))) => Some(format!(
            "threw {} at statement {k}, where it had run through",
            class.binary()
        )),
        (Some((at, class)), None) => Some(format!(
            "did not throw its expected {} at statement {at}",
            class.binary()
        )),
        (Some((at, want)), Some((k, got))) if at != k || want != got => Some(format!(
            "threw {} at statement {k}, where it had thrown {} at statement {at}",
            got.binary(),
            want.binary()
        )),
        _ => None,
    }
}

/// The test case a test method runs: its statements, then its assertions' observer calls.
pub fn as_checked(g: &GeneratedTest) -> TestCase {
    let mut t = g.test.clone();
    for a in &g.assertions {
        for call in a.observer_calls() {
            t.push(call, None);
        }
    }
    t.test
}

/// Drops the assertions of `g` that `run` (of [`as_checked`]`(g)`) contradicts, clearing an
/// expected exception's message instead when only the message differs; how many went.
fn keep_holding(g: &mut GeneratedTest, run: &Execution) -> usize {
    let mut next = g.test.len();
    let mut holding = Vec::with_capacity(g.assertions.len());
    let mut dropped = 0;
    for mut a in std::mem::take(&mut g.assertions) {
        let calls = a.observer_calls().len();
        let observed: Vec<&StatementOutcome> = (next..next + calls)
            .filter_map(|k| run.outcomes.get(k))
            .collect();
        next += calls;
        match check(&a, run, &observed) {
            Check::Holds | Check::Unreached => holding.push(a),
            Check::Fails => dropped += 1,
            Check::OtherMessage => {
                if let Assertion::Throws { message, .. } = &mut a {
                    *message = None;
                }
                dropped += 1;
                holding.push(a);
            }
        }
    }
    g.assertions = holding;
    dropped
}

/// What a run says of one assertion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Holds,
    Fails,
    /// The run did not get to it.
    Unreached,
    /// The expected exception came with another message.
    OtherMessage,
}

fn check(a: &Assertion, run: &Execution, observed: &[&StatementOutcome]) -> Check {
    let value_at = |k: u32| run.outcomes.get(k as usize);
    let compare = |got: Option<&StatementOutcome>,
                   want: &dyn Fn(&rivet_testcase::ValueSummary) -> bool| {
        match got {
            Some(StatementOutcome::Normal(v)) if want(v) => Check::Holds,
            Some(StatementOutcome::Normal(_)) => Check::Fails,
            _ => Check::Unreached,
        }
    };
    match a {
        Assertion::Equals { of, value } => compare(value_at(of.0), &|v| same(v, value)),
        Assertion::Inspector { value, .. } => {
            compare(observed.first().copied(), &|v| same(v, value))
        }
        Assertion::Relation { value, .. } => {
            compare(observed.first().copied(), &|v| same(&sign_of(v), value))
        }
        Assertion::SameHash { .. } => match observed {
            [StatementOutcome::Normal(x), StatementOutcome::Normal(y)] if same(x, y) => {
                Check::Holds
            }
            [StatementOutcome::Normal(_), StatementOutcome::Normal(_)] => Check::Fails,
            _ => Check::Unreached,
        },
        Assertion::Throws { at, message, .. } => match value_at(at.0) {
            Some(StatementOutcome::Threw { message: got, .. }) => {
                if message.is_none() || message.as_deref() == got.as_deref() {
                    Check::Holds
                } else {
                    Check::OtherMessage
                }
            }
            // It completed where JUnit would see no exception: the whole test fails there, which
            // verification finds.
            _ => Check::Unreached,
        },
    }
}

/// An `int` as the sign a `compareTo` relation asserts; other values as they are.
fn sign_of(v: &rivet_testcase::ValueSummary) -> rivet_testcase::ValueSummary {
    match v {
        rivet_testcase::ValueSummary::Int(x) => rivet_testcase::ValueSummary::Int(x.signum()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_testcase::{
        ExecutionStatus, JType, MemberRef, Statement, StatementId, TypedTest, ValueSummary,
    };

    /// A class with a static counter: `next()` returns how many calls came before it in this
    /// JVM, `fail()` throws with that count as its message; the fake keeps the counter from
    /// test to test, as a JVM without resets does.
    struct Counter {
        calls: i32,
    }

    impl Executor for Counter {
        fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
            tests
                .iter()
                .map(|t| {
                    let n = t.statements.len();
                    let mut e = Execution::without_result(
                        ExecutionStatus::Completed,
                        n,
                        std::time::Duration::ZERO,
                        None,
                    );
                    for (k, s) in t.statements.iter().enumerate() {
                        let Statement::Call { method, .. } = s else {
                            continue;
                        };
                        let seen = self.calls;
                        self.calls += 1;
                        if method.name == "fail" {
                            e.outcomes[k] = StatementOutcome::Threw {
                                class: "java.lang.IllegalStateException".into(),
                                message: Some(format!("after {seen}")),
                            };
                            break;
                        }
                        e.outcomes[k] = StatementOutcome::Normal(ValueSummary::Int(seen));
                    }
                    e
                })
                .collect()
        }
    }

    fn call(name: &str) -> Statement {
        Statement::Call {
            method: MemberRef::new("p/Counter", name, "()I"),
            receiver: None,
            args: vec![],
        }
    }

    /// A test of `calls`, asserting what each returned alone (0, 1, ...), the last one
    /// `fail` expected to throw with the message it has alone.
    fn test(calls: &[&str]) -> GeneratedTest {
        let mut t = TypedTest::new();
        let mut assertions = Vec::new();
        for (k, name) in calls.iter().enumerate() {
            t.push(call(name), Some(JType::Prim(rivet_testcase::Prim::Int)));
            assertions.push(if *name == "fail" {
                Assertion::Throws {
                    at: StatementId(k as u32),
                    class: "java.lang.IllegalStateException".into(),
                    message: Some(format!("after {k}")),
                }
            } else {
                Assertion::Equals {
                    of: StatementId(k as u32),
                    value: ValueSummary::Int(k as i32),
                }
            });
        }
        GeneratedTest {
            test: t,
            goals: Vec::new(),
            assertions,
        }
    }

    #[test]
    fn assertions_that_hold_only_in_a_fresh_jvm_are_dropped_at_once() {
        let mut tests = vec![test(&["next", "next"]), test(&["next", "fail"])];
        let done = screen_carried_state(&mut Counter { calls: 0 }, &mut tests, &[0, 1]);
        // The first test runs first in the emitted order, but last in the reversed one.
        assert_eq!(tests[0].assertions, Vec::new());
        // The second's value and message differ in both passes; the exception stays.
        assert_eq!(
            tests[1].assertions,
            vec![Assertion::Throws {
                at: StatementId(1),
                class: "java.lang.IllegalStateException".into(),
                message: None,
            }]
        );
        assert_eq!(done.dropped, 4);
        assert_eq!(done.executions, 4);
    }

    #[test]
    fn a_test_that_ends_otherwise_is_named_once() {
        // Alone, `fail` returned (no exception expected); here it throws.
        let mut unexpected = test(&["next"]);
        unexpected.test = {
            let mut t = TypedTest::new();
            t.push(call("fail"), Some(JType::Prim(rivet_testcase::Prim::Int)));
            t
        };
        // Alone, `next` threw; here it returns.
        let mut missing = test(&["next"]);
        missing.assertions = vec![Assertion::Throws {
            at: StatementId(0),
            class: "java.lang.IllegalStateException".into(),
            message: None,
        }];
        let mut tests = vec![unexpected, missing, test(&["fail"])];
        let done = screen_carried_state(&mut Counter { calls: 0 }, &mut tests, &[0, 1, 2]);
        let unstable: Vec<usize> = done.unstable.iter().map(|(i, _)| *i).collect();
        assert_eq!(unstable, [0, 1], "{:?}", done.unstable);
        assert!(done.unstable[0]
            .1
            .contains("threw java.lang.IllegalStateException"));
        assert!(done.unstable[1].1.contains("did not throw"));
    }

    #[test]
    fn a_single_test_or_a_class_without_static_state_keeps_its_assertions() {
        let mut one = vec![test(&["next", "next"])];
        let done = screen_carried_state(&mut Counter { calls: 5 }, &mut one, &[0]);
        assert_eq!(done, CarriedScreen::default());
        assert_eq!(one[0].assertions.len(), 2);

        /// Every test starts from a fresh counter.
        struct Fresh;
        impl Executor for Fresh {
            fn execute(&mut self, tests: &[TestCase]) -> Vec<Execution> {
                tests
                    .iter()
                    .flat_map(|t| Counter { calls: 0 }.execute(std::slice::from_ref(t)))
                    .collect()
            }
        }
        let mut two = vec![test(&["next"]), test(&["next", "fail"])];
        let done = screen_carried_state(&mut Fresh, &mut two, &[0, 1]);
        assert_eq!(done.dropped, 0);
        assert_eq!(two[0].assertions.len() + two[1].assertions.len(), 3);
    }
}
