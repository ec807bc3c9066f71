//! The finish stage: minimize the archived tests, give values passed twice distinct ones
//! where the goals allow, add regression assertions, name and describe
//! each test for the emitter, then verify the emitted class with javac and JUnit (twice), or
//! emit it unverified when no JUnit is at hand.

use std::collections::{BTreeMap, BTreeSet};

use rivet_api::ApiModel;
use rivet_junit::{emit, Emitted, ExpectedExceptions, JUnitVersion, TestClass, TestSource};
use rivet_search::{
    add_assertions, as_checked, discriminate, distinct_tests, minimize, Archive, Goal, Goals,
};
use rivet_testcase::{ClassName, Executor, GeneratedTest, GoalId, MemberRef, Statement, TestCase};
use rivet_verify::Verifier;

use crate::error::EngineError;
use rivet_report::DroppedTestRow;
use rivet_strategy::ClassPlan;

/// Minimized tests with stable assertions, and the executions that took.
pub fn suite(
    plan: &ClassPlan,
    archive: &Archive,
    executor: &mut dyn Executor,
) -> (Vec<GeneratedTest>, u64) {
    let api = Some(&plan.model);
    let (minimized, n) = minimize(executor, &plan.goals, distinct_tests(archive), api);
    let (distinct, d) = discriminate(executor, &plan.goals, minimized, api);
    let (generated, m) = add_assertions(executor, &plan.model, &plan.goals, distinct);
    (generated, n + d + m)
}

/// The test class to emit for the class under test, for `junit` with its expected
/// exceptions written as `expected_exceptions` says.
pub fn test_class(
    plan: &ClassPlan,
    generated: &[GeneratedTest],
    (junit, expected_exceptions): (JUnitVersion, ExpectedExceptions),
) -> TestClass {
    TestClass {
        class_under_test: plan.class.clone(),
        junit,
        expected_exceptions,
        tests: by_length(generated)
            .into_iter()
            .map(|g| test_source(g, &plan.goals, &plan.class))
            .collect(),
        overloaded: overloaded_members(&plan.model, generated),
        inner_classes: inner_classes(&plan.model, generated),
    }
}

/// Shorter tests first (stable): JUnit 5 runs them first, as written, before the longer tests
/// that tend to leave more static state behind.
fn by_length(generated: &[GeneratedTest]) -> Vec<&GeneratedTest> {
    emitted_order(generated)
        .into_iter()
        .map(|i| &generated[i])
        .collect()
}

/// The indexes of `generated` in the order the test class lists them.
pub fn emitted_order(generated: &[GeneratedTest]) -> Vec<usize> {
    let mut v: Vec<usize> = (0..generated.len()).collect();
    v.sort_by_key(|&i| generated[i].test.len());
    v
}

/// The emitted class after verification.
pub struct Checked {
    pub class: TestClass,
    pub emitted: Emitted,
    /// None when the tests could not be verified (no JUnit).
    pub verified: Option<Verification>,
}

/// What verification dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    pub dropped_tests: usize,
    pub dropped_assertions: usize,
    /// Each dropped test with the reason.
    pub reasons: Vec<DroppedTestRow>,
}

/// Verifies the class with `verifier` when there is one, else emits it as it is.
pub fn check(
    class: TestClass,
    verifier: Option<&Verifier>,
    class_name: &ClassName,
) -> Result<Checked, EngineError> {
    match verifier {
        Some(v) => {
            let v = v.verify(class).map_err(|source| EngineError::Verify {
                class: class_name.clone(),
                source: Box::new(source),
            })?;
            Ok(Checked {
                class: v.class,
                emitted: v.emitted,
                verified: Some(Verification {
                    dropped_tests: v.dropped_tests.len(),
                    dropped_assertions: v.dropped_assertions,
                    reasons: v
                        .reasons
                        .into_iter()
                        .map(|d| DroppedTestRow {
                            test: d.test,
                            reason: d.reason,
                        })
                        .collect(),
                }),
            })
        }
        None => {
            let emitted = emit(&class);
            Ok(Checked {
                class,
                emitted,
                verified: None,
            })
        }
    }
}

/// The test's comment lines and the method it is named after.
fn test_source(g: &GeneratedTest, goals: &Goals, owner: &ClassName) -> TestSource {
    let branch_goals: Vec<&Goal> = g
        .goals
        .iter()
        .filter_map(|id| goals.get(*id))
        .filter(|x| x.is_branch())
        .collect();
    let mut covers: Vec<String> = if branch_goals.is_empty() {
        g.goals
            .iter()
            .filter_map(|id| goals.get(*id))
            .map(|x| x.label())
            .collect()
    } else {
        branch_goals.iter().map(|x| x.label()).collect()
    };
    // Two branches of one line with the same outcome (`a && b`) read the same: say it once.
    let mut seen = BTreeSet::new();
    covers.retain(|c| seen.insert(c.clone()));
    let subject = branch_goals
        .first()
        .map(|x| x.method.rsplit('.').next().unwrap_or(&x.method).to_string())
        .or_else(|| {
            g.test.statements().iter().rev().find_map(|s| match s {
                Statement::Call { method, .. } if method.owner == *owner => {
                    Some(method.name.clone())
                }
                Statement::Construct { constructor, .. } if constructor.owner == *owner => {
                    Some("<init>".to_string())
                }
                _ => None,
            })
        })
        .unwrap_or_else(|| "Api".to_string());
    TestSource {
        generated: g.clone(),
        covers,
        subject,
    }
}

/// Members called with same-arity overloads (their arguments get casts).
/// The inner (non-static member) classes whose constructors the tests call.
fn inner_classes(model: &ApiModel, tests: &[GeneratedTest]) -> BTreeSet<ClassName> {
    let mut out = BTreeSet::new();
    for g in tests {
        for s in g.test.statements() {
            if let Statement::Construct { constructor, .. } = s {
                let owner = constructor.owner.internal();
                if model
                    .class_api(owner)
                    .is_some_and(|a| a.enclosing.is_some())
                {
                    out.insert(constructor.owner.clone());
                }
            }
        }
    }
    out
}

/// The overloaded members the tests call, each with its parameters declared with a type
/// variable (not cast when emitted).
fn overloaded_members(
    model: &ApiModel,
    tests: &[GeneratedTest],
) -> BTreeMap<MemberRef, BTreeSet<usize>> {
    let mut out = BTreeMap::new();
    for t in tests {
        for s in t.test.statements() {
            let m = match s {
                Statement::Call { method, .. } => method,
                Statement::Construct { constructor, .. } => constructor,
                _ => continue,
            };
            if !out.contains_key(m) && model.is_overloaded(m) {
                out.insert(m.clone(), model.type_variable_params(m));
            }
        }
    }
    out
}

/// For every branch goal the final tests cover when run again on the instrumented classes
/// (statements, then the inspector calls of their assertions, as emitted), the name of the
/// first such test; and the executions spent. This, not what the search believed, is what the
/// report says, so that it matches JaCoCo on the written tests.
pub fn final_coverage(
    plan: &ClassPlan,
    class: &TestClass,
    emitted: &Emitted,
    executor: &mut dyn Executor,
) -> (BTreeMap<GoalId, String>, u64) {
    // In the order JUnit runs them, which the emitted class fixes: as written (JUnit 5), by
    // name (JUnit 4).
    let mut order: Vec<usize> = (0..class.tests.len().min(emitted.tests.len())).collect();
    if class.junit == JUnitVersion::Four {
        order.sort_by(|&a, &b| emitted.tests[a].name.cmp(&emitted.tests[b].name));
    }
    let cases: Vec<TestCase> = order
        .iter()
        .map(|&i| as_checked(&class.tests[i].generated))
        .collect();
    let runs = executor.execute(&cases);
    // As JaCoCo counts: a branch is covered by the first test (in JUnit's order) that hit one
    // of its confirming points.
    let mut out = BTreeMap::new();
    for (id, _) in &plan.places {
        let first = runs
            .iter()
            .zip(&order)
            .find(|(run, _)| plan.jacoco_covered(*id, &run.covered));
        if let Some((_, &i)) = first {
            out.insert(*id, emitted.tests[i].name.clone());
        }
    }
    (out, runs.len() as u64)
}

/// Branch goals the archive has tests for that no test of `class` (what verification left)
/// covers: their tests were dropped, so they go back to the search.
pub fn lost_goals(plan: &ClassPlan, archive: &Archive, class: &TestClass) -> Vec<GoalId> {
    let kept: BTreeSet<GoalId> = class
        .tests
        .iter()
        .flat_map(|t| t.generated.goals.iter().copied())
        .collect();
    plan.places
        .iter()
        .map(|(g, _)| *g)
        .filter(|g| archive.is_covered(*g) && !kept.contains(g))
        .collect()
}
