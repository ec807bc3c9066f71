//! Inputs that tell behaviours apart: a minimized test that passes one primitive value twice
//! to the same call or array (`compare(x, x)`, `new double[] {x, x}`) reaches its goals but
//! cannot tell an argument-order, comparison or arithmetic mutant from the original. Each
//! such test gets a variant whose second use is a value off by one; the variant replaces the
//! test when it still covers every goal the test is kept for.

use rivet_api::ApiModel;
use rivet_testcase::{Executor, PrimitiveValue, Statement, StatementId, TestCase, TypedTest};
use tracing::info_span;

use crate::goal::Goals;
use crate::minimize::{casts_hold, MinimizedTest};

/// The value one above `v` (wrapping), for numbers and chars; None for booleans.
fn off_by_one(v: PrimitiveValue) -> Option<PrimitiveValue> {
    Some(match v {
        PrimitiveValue::Boolean(_) => return None,
        PrimitiveValue::Byte(x) => PrimitiveValue::Byte(x.wrapping_add(1)),
        PrimitiveValue::Char(x) => PrimitiveValue::Char(x.wrapping_add(1)),
        PrimitiveValue::Short(x) => PrimitiveValue::Short(x.wrapping_add(1)),
        PrimitiveValue::Int(x) => PrimitiveValue::Int(x.wrapping_add(1)),
        PrimitiveValue::Long(x) => PrimitiveValue::Long(x.wrapping_add(1)),
        PrimitiveValue::Float(x) if x.is_finite() => PrimitiveValue::Float(x + 1.0),
        PrimitiveValue::Double(x) if x.is_finite() => PrimitiveValue::Double(x + 1.0),
        _ => return None,
    })
}

/// The operands of a call, a constructor call or an array.
fn operands(s: &Statement) -> Option<&[StatementId]> {
    match s {
        Statement::Call { args, .. } | Statement::Construct { args, .. } => Some(args),
        Statement::Array { elements, .. } => Some(elements),
        _ => None,
    }
}

fn operands_mut(s: &mut Statement) -> Option<&mut Vec<StatementId>> {
    match s {
        Statement::Call { args, .. } | Statement::Construct { args, .. } => Some(args),
        Statement::Array { elements, .. } => Some(elements),
        _ => None,
    }
}

/// A value other than the literal `s` (a primitive off by one, a string one character longer),
/// None for a statement that is no literal or a boolean.
fn other_literal(s: &Statement) -> Option<Statement> {
    match s {
        Statement::Primitive(v) => off_by_one(*v).map(Statement::Primitive),
        Statement::String(text) => Some(Statement::String(format!("{text}1"))),
        _ => None,
    }
}

/// The variant of `t` in which the second of two calls of one method on one receiver that
/// pass the same literal (`list.add(s); list.add(s)`: a collection of equal elements, which
/// hides any mix-up of their order) passes another literal instead.
fn repeated_element_variant(t: &TypedTest) -> Option<TypedTest> {
    let statements = t.statements();
    for (k2, s2) in statements.iter().enumerate() {
        let Statement::Call {
            method: m2,
            receiver: Some(r2),
            args: args2,
        } = s2
        else {
            continue;
        };
        for (i, a) in args2.iter().enumerate() {
            let repeated = statements[..k2].iter().any(|s1| {
                matches!(s1, Statement::Call { method, receiver: Some(r1), args }
                    if method == m2 && r1 == r2 && args.get(i) == Some(a))
            });
            let Some(other) = repeated
                .then(|| statements.get(a.0 as usize).and_then(other_literal))
                .flatten()
            else {
                continue;
            };
            let ty = t.types.get(a.0 as usize).cloned().flatten();
            let mut out = t.clone();
            let at = a.0 as usize + 1;
            out.insert_at(at, |pre| {
                pre.push(other, ty);
            });
            let mut changed = out.statements()[k2 + 1].clone();
            if let Some(o) = operands_mut(&mut changed).and_then(|o| o.get_mut(i)) {
                *o = StatementId(at as u32);
            }
            out.test.statements[k2 + 1] = changed;
            return Some(out);
        }
    }
    None
}

/// The variant of `t` whose first repeated primitive operand is, at its second use, a value
/// off by one, or else whose repeated element is another (`repeated_element_variant`); None
/// when no statement repeats one.
fn variant(t: &TypedTest) -> Option<TypedTest> {
    same_call_variant(t).or_else(|| repeated_element_variant(t))
}

/// The variant of `t` whose first operand repeated within one call is, at its second use, a
/// value off by one.
fn same_call_variant(t: &TypedTest) -> Option<TypedTest> {
    let statements = t.statements();
    for (k, s) in statements.iter().enumerate() {
        let Some(ops) = operands(s) else { continue };
        for (i, a) in ops.iter().enumerate() {
            if !ops[..i].contains(a) {
                continue;
            }
            let Some(Statement::Primitive(v)) = statements.get(a.0 as usize) else {
                continue;
            };
            let Some(other) = off_by_one(*v) else {
                continue;
            };
            let ty = t.types.get(a.0 as usize).cloned().flatten();
            let mut out = t.clone();
            let at = a.0 as usize + 1;
            out.insert_at(at, |pre| {
                pre.push(Statement::Primitive(other), ty);
            });
            // Statement `k` moved one down; its `i`-th operand becomes the new value.
            let mut changed = out.statements()[k + 1].clone();
            if let Some(o) = operands_mut(&mut changed).and_then(|o| o.get_mut(i)) {
                *o = StatementId(at as u32);
            }
            out.test.statements[k + 1] = changed;
            return Some(out);
        }
    }
    None
}

/// Replaces tests by their discriminating variants where those still cover the tests' goals;
/// the tests and the executions spent.
/// With `api`, a variant whose results break a cast the written test makes is not taken.
pub fn discriminate(
    executor: &mut dyn Executor,
    goals: &Goals,
    tests: Vec<MinimizedTest>,
    api: Option<&ApiModel>,
) -> (Vec<MinimizedTest>, u64) {
    let _span = info_span!("discriminate", tests = tests.len()).entered();
    let mut tests = tests;
    let variants: Vec<(usize, TypedTest)> = tests
        .iter()
        .enumerate()
        .filter_map(|(i, m)| variant(&m.test).map(|v| (i, v)))
        .collect();
    if variants.is_empty() {
        return (tests, 0);
    }
    let cases: Vec<TestCase> = variants.iter().map(|(_, v)| v.test.clone()).collect();
    let runs = executor.execute(&cases);
    for ((i, v), e) in variants.into_iter().zip(&runs) {
        if !e.is_completed() || !casts_hold(api, &v, e) {
            continue;
        }
        let covered = goals.covered(&v.test, e);
        if tests[i].goals.iter().all(|g| covered.contains(g)) {
            tests[i].test = v;
        }
    }
    (tests, runs.len() as u64)
}

#[cfg(test)]
mod tests {
    use rivet_testcase::{JType, MemberRef, Prim};

    use super::*;

    #[test]
    fn a_value_passed_twice_is_passed_once_and_off_by_one() {
        let mut t = TypedTest::new();
        let x = t.push(
            Statement::Primitive(PrimitiveValue::Int(7)),
            Some(JType::Prim(Prim::Int)),
        );
        t.push(
            Statement::Call {
                method: MemberRef::new("a/B", "compare", "(II)I"),
                receiver: None,
                args: vec![x, x],
            },
            Some(JType::Prim(Prim::Int)),
        );
        let v = variant(&t).expect("a variant");
        assert_eq!(v.len(), 3);
        assert_eq!(
            v.statements()[1],
            Statement::Primitive(PrimitiveValue::Int(8))
        );
        match &v.statements()[2] {
            Statement::Call { args, .. } => {
                assert_eq!(args, &vec![StatementId(0), StatementId(1)])
            }
            other => panic!("{other:?}"),
        }
        assert!(variant(&v).is_none(), "nothing repeats any more");
    }

    #[test]
    fn an_element_added_twice_is_added_once_and_then_another() {
        let mut t = TypedTest::new();
        let list = t.push(
            Statement::Construct {
                constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
                args: vec![],
            },
            Some(JType::class("java/util/ArrayList")),
        );
        let s = t.push(
            Statement::String("ab".into()),
            Some(JType::class("java/lang/String")),
        );
        let add = || Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "add", "(Ljava/lang/Object;)Z"),
            receiver: Some(list),
            args: vec![s],
        };
        t.push(add(), Some(JType::Prim(Prim::Boolean)));
        t.push(add(), Some(JType::Prim(Prim::Boolean)));
        let v = variant(&t).expect("a variant");
        assert_eq!(v.statements()[2], Statement::String("ab1".into()));
        let args_of = |k: usize| match &v.statements()[k] {
            Statement::Call { args, .. } => args.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(args_of(3), vec![StatementId(1)]);
        assert_eq!(args_of(4), vec![StatementId(2)]);
        assert!(variant(&v).is_none(), "the elements differ now");
    }
}
