//! Regression assertions: what each minimized test did, observed on two runs, kept only where
//! both runs agree: values returned by calls (primitives, wrappers, strings, null), read-only
//! getters ("inspectors") of the objects the test built, and the exception that ends a test.
//! Values that look like identity hash codes or clock readings are never asserted.

use rivet_testcase::ClassName;
use std::collections::BTreeSet;

use rivet_api::ApiModel;
use rivet_testcase::{
    Assertion, Execution, Executor, GeneratedTest, GoalId, JType, MemberRef, Prim, Statement,
    StatementId, StatementOutcome, TestCase, TypedTest, ValueSummary, EXIT_REQUESTED_CLASS,
    SANDBOX_REFUSED_CLASS, UNRUNNABLE_CLASS,
};
use tracing::info_span;

use crate::goal::Goals;
use crate::minimize::MinimizedTest;
use crate::relations::{relation_assertions, relations, Observed};

/// Thrown when the heap is exhausted.
const OUT_OF_MEMORY: &str = "java.lang.OutOfMemoryError";
/// Most objects whose inspectors a test asserts on.
const MAX_OBSERVED: usize = 3;
/// Most assertions per test.
const MAX_ASSERTIONS: usize = 12;

/// Adds assertions to minimized tests; returns the tests and the executions spent.
pub fn add_assertions(
    executor: &mut dyn Executor,
    model: &ApiModel,
    goals: &Goals,
    tests: Vec<MinimizedTest>,
) -> (Vec<GeneratedTest>, u64) {
    let _span = info_span!("assertions", tests = tests.len()).entered();
    let mut executions = 0u64;
    let mut tests: Vec<TypedTest> = tests.into_iter().map(|m| m.test).collect();
    // Two runs of every test, again after cutting what JUnit would run differently.
    let (mut first, mut second) = twice(executor, &tests, &mut executions);
    let cut = cut_unrunnable(&mut tests, &first);
    if cut {
        (first, second) = twice(executor, &tests, &mut executions);
    }
    // Inspector variants: the test followed by getter calls on the objects it built.
    let mut variants: Vec<(TypedTest, Vec<Observed>)> = tests
        .iter()
        .zip(&first)
        .map(|(t, e)| inspector_variant(model, t, e))
        .collect();
    let mut observed: Vec<Option<(Execution, Execution)>> = vec![None; tests.len()];
    for _round in 0..3 {
        let pending: Vec<usize> = (0..tests.len())
            .filter(|&i| observed[i].is_none() && !variants[i].1.is_empty())
            .collect();
        if pending.is_empty() {
            break;
        }
        let batch: Vec<TypedTest> = pending.iter().map(|&i| variants[i].0.clone()).collect();
        let (a, b) = twice(executor, &batch, &mut executions);
        for ((i, ea), eb) in pending.into_iter().zip(a).zip(b) {
            let base = tests[i].len();
            let thrown = [&ea, &eb]
                .iter()
                .filter_map(|e| e.exception().map(|x| x.0))
                .filter(|k| *k >= base)
                .min();
            match thrown {
                Some(k) if ea.is_completed() => {
                    // Drop the inspector that threw and try again.
                    let idx = k - base;
                    variants[i].1.remove(idx);
                    let mut v = tests[i].clone();
                    for o in &variants[i].1 {
                        v.push(o.statement(), None);
                    }
                    variants[i].0 = v;
                }
                _ if ea.is_completed() && eb.is_completed() => observed[i] = Some((ea, eb)),
                _ => variants[i].1.clear(),
            }
        }
    }
    let mut out = Vec::with_capacity(tests.len());
    for (i, t) in tests.into_iter().enumerate() {
        let (a, b) = (&first[i], &second[i]);
        let covered: BTreeSet<GoalId> = if a.is_completed() {
            goals.covered(&t.test, a)
        } else {
            BTreeSet::new()
        };
        let mut assertions = Vec::new();
        if a.is_completed() && b.is_completed() {
            for (k, s) in t.statements().iter().enumerate() {
                if !matches!(s, Statement::Call { .. }) {
                    continue;
                }
                if let (Some(StatementOutcome::Normal(va)), Some(StatementOutcome::Normal(vb))) =
                    (a.outcomes.get(k), b.outcomes.get(k))
                {
                    if same(va, vb) && assertable(va) {
                        assertions.push(Assertion::Equals {
                            of: StatementId(k as u32),
                            value: va.clone(),
                        });
                    }
                }
            }
            if let (Some((k, ca, ma)), Some((kb, cb, mb))) = (a.exception(), b.exception()) {
                if k == kb && ca == cb && k + 1 == t.len() {
                    let class = ClassName::from_internal(&model.nameable_ancestor(ca.internal()));
                    let message =
                        (ma == mb && &class == ca && !ca.is("java.lang.NullPointerException"))
                            .then(|| ma.map(str::to_string))
                            .flatten()
                            .filter(|m| !looks_unstable(m));
                    assertions.push(Assertion::Throws {
                        at: StatementId(k as u32),
                        class,
                        message,
                    });
                }
            }
            if let Some((ea, eb)) = &observed[i] {
                let base = t.len();
                let normal = |e: &Execution, j: usize| match e.outcomes.get(base + j) {
                    Some(StatementOutcome::Normal(v)) => Some(v.clone()),
                    _ => None,
                };
                let first: Vec<Option<ValueSummary>> =
                    (0..variants[i].1.len()).map(|j| normal(ea, j)).collect();
                let second: Vec<Option<ValueSummary>> =
                    (0..variants[i].1.len()).map(|j| normal(eb, j)).collect();
                // Relations first: a test has room for a dozen assertions, and the class's
                // inspectors alone can fill it.
                assertions.extend(relation_assertions(
                    &variants[i].1,
                    &first.iter().map(Option::as_ref).collect::<Vec<_>>(),
                    &second.iter().map(Option::as_ref).collect::<Vec<_>>(),
                ));
                for (j, o) in variants[i].1.iter().enumerate() {
                    let Observed::Inspector(of, method) = o else {
                        continue;
                    };
                    if let (Some(va), Some(vb)) = (&first[j], &second[j]) {
                        if same(va, vb) && assertable(va) {
                            assertions.push(Assertion::Inspector {
                                of: *of,
                                method: method.clone(),
                                value: va.clone(),
                            });
                        }
                    }
                }
            }
        }
        if a.is_completed() && b.is_completed() {
            not_null_results(&t, a, &mut assertions);
        }
        truncate_assertions(&mut assertions);
        out.push(GeneratedTest {
            test: t,
            goals: covered.into_iter().collect(),
            assertions,
        });
    }
    (out, executions)
}

/// Cuts each test before what makes its runs differ from JUnit's: an exit request, a sandbox
/// refusal, an unrunnable statement or running out of memory (how long the last takes depends
/// on the heap of the JVM that runs the suite: 40 s and gigabytes under JUnit's defaults where
/// a worker takes a moment), and a text with an identity hash fed to later calls. True when a
/// test changed.
fn cut_unrunnable(tests: &mut [TypedTest], first: &[Execution]) -> bool {
    let mut cut = false;
    for (t, e) in tests.iter_mut().zip(first) {
        if let Some((k, class, _)) = e.exception() {
            if class.is(EXIT_REQUESTED_CLASS)
                || class.is(SANDBOX_REFUSED_CLASS)
                || class.is(UNRUNNABLE_CLASS)
                || class.is(OUT_OF_MEMORY)
            {
                let keep: Vec<bool> = (0..t.len()).map(|i| i < k).collect();
                t.retain(&keep);
                cut = true;
            }
        }
        // A text with an identity hash in it (`Hex@1b6d3586[charsetName=UTF-8]`) fed to later
        // calls makes them depend on the JVM's hashes (the text's length, its digits), which
        // differ from run to run elsewhere: such a value goes, with what uses it.
        let unstable: Vec<usize> = (0..t.len())
            .filter(|&k| {
                matches!(
                    e.outcomes.get(k),
                    Some(StatementOutcome::Normal(ValueSummary::String(text))) if looks_unstable(text)
                ) && !t.dependents(k).is_empty()
            })
            .collect();
        if !unstable.is_empty() {
            t.remove_with_dependents(&unstable);
            cut = true;
        }
    }
    cut
}

/// An object a call returned that no other assertion looks into is at least not null (what
/// kills a mutant returning null instead): `assertNotNull(result)`. Put last, so that they are
/// the first to go when a test has too many assertions.
fn not_null_results(t: &TypedTest, e: &Execution, assertions: &mut Vec<Assertion>) {
    let looked_into: BTreeSet<StatementId> =
        assertions.iter().flat_map(Assertion::subjects).collect();
    for (k, s) in t.statements().iter().enumerate() {
        let id = StatementId(k as u32);
        if matches!(s, Statement::Call { .. })
            && !looked_into.contains(&id)
            && matches!(
                e.outcomes.get(k),
                Some(StatementOutcome::Normal(ValueSummary::Object { .. }))
            )
        {
            let Some(StatementOutcome::Normal(value)) = e.outcomes.get(k) else {
                continue;
            };
            assertions.push(Assertion::Equals {
                of: id,
                value: value.clone(),
            });
        }
    }
}

/// Keeps at most [`MAX_ASSERTIONS`], always keeping an expected exception.
fn truncate_assertions(assertions: &mut Vec<Assertion>) {
    if assertions.len() <= MAX_ASSERTIONS {
        return;
    }
    let throws: Vec<Assertion> = assertions
        .iter()
        .filter(|a| matches!(a, Assertion::Throws { .. }))
        .cloned()
        .collect();
    assertions.retain(|a| !matches!(a, Assertion::Throws { .. }));
    assertions.truncate(MAX_ASSERTIONS - throws.len());
    assertions.extend(throws);
}

fn twice(
    executor: &mut dyn Executor,
    tests: &[TypedTest],
    executions: &mut u64,
) -> (Vec<Execution>, Vec<Execution>) {
    let mut cases: Vec<TestCase> = tests.iter().map(|t| t.test.clone()).collect();
    cases.extend(tests.iter().map(|t| t.test.clone()));
    let mut runs = executor.execute(&cases);
    *executions += runs.len() as u64;
    let second = runs.split_off(tests.len().min(runs.len()));
    (runs, second)
}

/// Most returned objects whose text (`toString`, `Arrays.toString`) a test asserts.
const MAX_TEXTS: usize = 4;

/// The observer of a value's text: `Arrays.toString` or `deepToString` for arrays, its own
/// `toString` for objects.
fn text_observer(ty: &JType) -> MemberRef {
    match ty.erased() {
        JType::Array(c) => match *c {
            JType::Prim(p) => MemberRef::new(
                "java/util/Arrays",
                "toString",
                &format!("([{})Ljava/lang/String;", p.descriptor()),
            ),
            _ => MemberRef::new(
                "java/util/Arrays",
                "deepToString",
                "([Ljava/lang/Object;)Ljava/lang/String;",
            ),
        },
        _ => MemberRef::new("java/lang/Object", "toString", "()Ljava/lang/String;"),
    }
}

/// Whether a class (or a superclass below `Object` the model knows) declares `toString`.
fn declares_to_string(model: &ApiModel, class: &str) -> bool {
    let mut current = Some(class.to_string());
    let mut depth = 0;
    while let Some(c) = current.take() {
        if c == rivet_testcase::OBJECT || depth > 16 {
            return false;
        }
        let Some(api) = model.class_api(&c) else {
            return false;
        };
        if api.methods.iter().any(|m| {
            !m.is_static
                && m.member.name == "toString"
                && m.member.descriptor == "()Ljava/lang/String;"
        }) {
            return true;
        }
        current = api.superclass.clone();
        depth += 1;
    }
    false
}

/// The test followed by inspector calls on (up to [`MAX_OBSERVED`]) objects it built,
/// preferring objects of the class under test and later statements, and by the relations the
/// class defines between its two latest objects (`relations`).
fn inspector_variant(model: &ApiModel, t: &TypedTest, e: &Execution) -> (TypedTest, Vec<Observed>) {
    let mut calls = Vec::new();
    if !e.is_completed() || e.exception().is_some() {
        return (t.clone(), calls);
    }
    let mut candidates: Vec<(bool, usize, JType)> = Vec::new();
    let mut seen_identities = BTreeSet::new();
    let mut unboxed: Vec<(StatementId, MemberRef)> = Vec::new();
    // What calls returned, by their text: arrays, collections, JDK values (BigDecimal), the
    // library's own objects. Unstable texts (identity hashes) are not asserted later.
    let mut texts: Vec<(StatementId, MemberRef)> = Vec::new();
    for (k, ty) in t
        .values_before(t.len())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        let Some(StatementOutcome::Normal(ValueSummary::Object { identity, class })) =
            e.outcomes.get(k)
        else {
            continue;
        };
        if !seen_identities.insert(*identity) {
            continue;
        }
        // A wrapper returned by a call: its primitive value.
        if let Some(p) = ty.class_name().and_then(Prim::unboxed) {
            if matches!(t.statements()[k], Statement::Call { .. }) && class.internal() == p.boxed()
            {
                let owner = p.boxed();
                let method = MemberRef::new(
                    owner,
                    &format!("{}Value", p.java_name()),
                    &format!("(){}", p.descriptor()),
                );
                let of = StatementId(k as u32);
                unboxed.push((of, method));
            }
            continue;
        }
        let is_cut = ty.class_name() == Some(model.class.internal());
        let returned = matches!(t.statements()[k], Statement::Call { .. });
        let runtime = class;
        let textual = matches!(ty.erased(), JType::Array(_))
            || (returned && !is_cut)
            || declares_to_string(model, runtime.internal());
        if textual && texts.len() < MAX_TEXTS {
            texts.push((StatementId(k as u32), text_observer(ty)));
        }
        if !matches!(ty.erased(), JType::Array(_)) {
            candidates.push((is_cut, k, ty.clone()));
        }
    }
    candidates.sort_by_key(|(is_cut, k, _)| (!is_cut, std::cmp::Reverse(*k)));
    let mut v = t.clone();
    unboxed.reverse();
    for (of, m) in unboxed {
        calls.push(Observed::Inspector(of, m));
    }
    texts.reverse();
    for (of, m) in texts {
        calls.push(Observed::Inspector(of, m));
    }
    let own: Vec<StatementId> = candidates
        .iter()
        .filter(|(is_cut, _, _)| *is_cut)
        .map(|(_, k, _)| StatementId(*k as u32))
        .take(2)
        .collect();
    for (_, k, ty) in candidates.into_iter().take(MAX_OBSERVED) {
        for m in model.inspectors(&ty) {
            calls.push(Observed::Inspector(StatementId(k as u32), m.member.clone()));
        }
    }
    if let [later, earlier] = own[..] {
        calls.extend(relations(model, later, earlier));
    }
    for o in &calls {
        v.push(o.statement(), None);
    }
    (v, calls)
}

/// Equal, with floating-point values compared by bits (NaN equals NaN).
pub(crate) fn same(a: &ValueSummary, b: &ValueSummary) -> bool {
    match (a, b) {
        (ValueSummary::Float(x), ValueSummary::Float(y)) => x.to_bits() == y.to_bits(),
        (ValueSummary::Double(x), ValueSummary::Double(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Values worth an assertion: primitives, strings and null, unless they look like identity
/// hash codes or clock readings.
fn assertable(v: &ValueSummary) -> bool {
    match v {
        ValueSummary::Void | ValueSummary::Object { .. } => false,
        ValueSummary::String(s) => s.chars().count() <= 500 && !looks_unstable(s),
        ValueSummary::Long(x) => !looks_like_time(*x),
        _ => true,
    }
}

/// Text with an identity hash (`Foo@1b6d3586`) or a clock reading in it.
fn looks_unstable(s: &str) -> bool {
    let bytes = s.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'@' {
            let hex = bytes[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
            if hex >= 5 {
                return true;
            }
        }
    }
    let mut digits = 0;
    for c in s.chars() {
        if c.is_ascii_digit() {
            digits += 1;
            if digits >= 12 {
                return true;
            }
        } else {
            digits = 0;
        }
    }
    false
}

/// Milliseconds or nanoseconds since the epoch within ten years of now.
fn looks_like_time(x: i64) -> bool {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let ten_years_ms = 10 * 365 * 24 * 3600 * 1000i64;
    (x - now_ms).abs() < ten_years_ms || (x / 1_000_000 - now_ms).abs() < ten_years_ms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstable_values_are_recognized() {
        assert!(looks_unstable("structures.AvlTree@1b6d3586"));
        assert!(looks_unstable("at 1700000000000"));
        assert!(!looks_unstable("index 5, size 3"));
        assert!(!assertable(&ValueSummary::Long(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis() as i64
        )));
        assert!(assertable(&ValueSummary::Long(42)));
        assert!(same(
            &ValueSummary::Double(f64::NAN),
            &ValueSummary::Double(f64::NAN)
        ));
    }

    #[test]
    fn objects_no_assertion_looks_into_are_asserted_not_null() {
        use rivet_testcase::{ExecutionStatus, JType};
        let mut t = TypedTest::new();
        let call = |name: &str| Statement::Call {
            method: MemberRef::new("a/B", name, "()Ljava/lang/Object;"),
            receiver: None,
            args: vec![],
        };
        for name in ["x", "y", "z", "w"] {
            t.push(call(name), Some(JType::object()));
        }
        let object = |identity| {
            StatementOutcome::Normal(ValueSummary::Object {
                identity,
                class: "a.C".into(),
            })
        };
        let mut e = Execution::without_result(
            ExecutionStatus::Completed,
            4,
            std::time::Duration::ZERO,
            None,
        );
        e.outcomes = vec![
            object(1),
            object(2),
            StatementOutcome::Normal(ValueSummary::Null),
            object(3),
        ];
        let mut assertions = vec![Assertion::Inspector {
            of: StatementId(1),
            method: MemberRef::new("a/C", "size", "()I"),
            value: ValueSummary::Int(0),
        }];
        not_null_results(&t, &e, &mut assertions);
        let not_null: Vec<u32> = assertions[1..]
            .iter()
            .filter_map(|a| match a {
                Assertion::Equals { of, .. } => Some(of.0),
                _ => None,
            })
            .collect();
        // y is looked into, z returned null (asserted elsewhere as null), x and w are objects.
        assert_eq!(not_null, vec![0, 3]);
    }
}
