//! Whole-test replay for the concolic strategy (mode (a), EvoSuite+DSE): a test expanded so
//! that each use of a primitive is its own statement, turned into the executor's steps, and
//! the expanded test with the primitives and strings the solver changed.

use std::collections::HashMap;

use rivet_pc::SymbolSort;
use rivet_symbolic::{TestStep, WholeTest};
use rivet_testcase::{PrimitiveValue, Statement, StatementId, TypedTest};

/// `test` with every use of a primitive by a call, constructor or array its own copy, placed
/// right before its user; and the new index of statement `at`.
pub(crate) fn expand(test: &TypedTest, at: usize) -> (TypedTest, usize) {
    let mut out = TypedTest::new();
    let mut map: HashMap<u32, StatementId> = HashMap::new();
    let mut new_at = at;
    for (i, s) in test.statements().iter().enumerate() {
        if matches!(s, Statement::Primitive(_)) {
            // Copied at each use instead (unused primitives are dropped with nothing lost).
            continue;
        }
        let uses_of = |ids: &[StatementId], out: &mut TypedTest| -> Vec<StatementId> {
            ids.iter()
                .map(|u| match test.statements().get(u.0 as usize) {
                    Some(p @ Statement::Primitive(_)) => {
                        let ty = test.types.get(u.0 as usize).cloned().flatten();
                        out.push(p.clone(), ty)
                    }
                    _ => map.get(&u.0).copied().unwrap_or(*u),
                })
                .collect()
        };
        let expanded = match s {
            Statement::Call {
                method,
                receiver,
                args,
            } => Statement::Call {
                method: method.clone(),
                receiver: receiver.map(|r| map.get(&r.0).copied().unwrap_or(r)),
                args: uses_of(args, &mut out),
            },
            Statement::Construct { constructor, args } => Statement::Construct {
                constructor: constructor.clone(),
                args: uses_of(args, &mut out),
            },
            Statement::Array {
                component,
                elements,
            } => Statement::Array {
                component: component.clone(),
                elements: uses_of(elements, &mut out),
            },
            other => {
                // A primitive used here (a field write, a lambda's result) is copied once.
                let f = |u: StatementId| Some(map.get(&u.0).copied().unwrap_or(u));
                let mut fixed = rivet_testcase::remap(other, &f).unwrap_or_else(|| other.clone());
                for u in other.uses() {
                    if let Some(p @ Statement::Primitive(_)) = test.statements().get(u.0 as usize) {
                        let ty = test.types.get(u.0 as usize).cloned().flatten();
                        let copy = out.push(p.clone(), ty);
                        let g = |v: StatementId| Some(if v == u { copy } else { v });
                        fixed = rivet_testcase::remap(&fixed, &g).unwrap_or(fixed);
                    }
                }
                fixed
            }
        };
        let ty = test.types.get(i).cloned().flatten();
        let id = out.push(expanded, ty);
        map.insert(i as u32, id);
        if i == at {
            new_at = id.0 as usize;
        }
    }
    (out, new_at)
}

/// The executor's steps for the statements of `test` up to `at`; None if one of them is of
/// a kind the replay does not run (lambdas, class literals, constants, field writes).
pub(crate) fn steps(test: &TypedTest, at: usize) -> Option<Vec<TestStep>> {
    let index = |ids: &[StatementId]| ids.iter().map(|u| u.0 as usize).collect::<Vec<_>>();
    test.statements()
        .iter()
        .take(at + 1)
        .map(|s| {
            Some(match s {
                Statement::Primitive(p) => {
                    let (sort, value) = symbol_of(*p);
                    TestStep::Primitive { sort, value }
                }
                Statement::String(text) => TestStep::Str(text.clone()),
                Statement::Null { .. } => TestStep::Null,
                Statement::Array {
                    component,
                    elements,
                } => TestStep::Array {
                    component: component.clone(),
                    elements: index(elements),
                },
                Statement::Construct { constructor, args } => TestStep::New {
                    class: constructor.owner.clone(),
                    descriptor: constructor.descriptor.clone(),
                    args: index(args),
                },
                Statement::Call {
                    method,
                    receiver,
                    args,
                } => TestStep::Call {
                    class: method.owner.clone(),
                    name: method.name.clone(),
                    descriptor: method.descriptor.clone(),
                    receiver: receiver.map(|r| r.0 as usize),
                    args: index(args),
                },
                _ => return None,
            })
        })
        .collect()
}

/// The whole test to replay for the call at `at` of `test` (expanded), steered along
/// `prefix`; with the expanded test and the call's index in it.
pub(crate) fn whole_test(
    class: &rivet_classfile::ClassName,
    test: &TypedTest,
    at: usize,
    prefix: &[u32],
) -> Option<(WholeTest, TypedTest, usize)> {
    let (expanded, at) = expand(test, at);
    let steps = steps(&expanded, at)?;
    Some((
        WholeTest {
            class: class.clone(),
            steps,
            target: at,
            prefix: prefix.to_vec(),
        },
        expanded,
        at,
    ))
}

/// The sort and model value of a primitive (floats and doubles by their bits).
fn symbol_of(p: PrimitiveValue) -> (SymbolSort, i64) {
    match p {
        PrimitiveValue::Boolean(b) => (SymbolSort::Boolean, i64::from(b)),
        PrimitiveValue::Byte(v) => (SymbolSort::Byte, i64::from(v)),
        PrimitiveValue::Char(v) => (SymbolSort::Char, i64::from(v)),
        PrimitiveValue::Short(v) => (SymbolSort::Short, i64::from(v)),
        PrimitiveValue::Int(v) => (SymbolSort::Int, i64::from(v)),
        PrimitiveValue::Long(v) => (SymbolSort::Long, v),
        PrimitiveValue::Float(v) => (SymbolSort::Float, i64::from(v.to_bits())),
        PrimitiveValue::Double(v) => (SymbolSort::Double, v.to_bits() as i64),
    }
}

/// A model value as a primitive of the same type as `old`.
fn with_value(old: PrimitiveValue, v: i64) -> PrimitiveValue {
    match old {
        PrimitiveValue::Boolean(_) => PrimitiveValue::Boolean(v != 0),
        PrimitiveValue::Byte(_) => PrimitiveValue::Byte(v as i8),
        PrimitiveValue::Char(_) => PrimitiveValue::Char(v as u16),
        PrimitiveValue::Short(_) => PrimitiveValue::Short(v as i16),
        PrimitiveValue::Int(_) => PrimitiveValue::Int(v as i32),
        PrimitiveValue::Long(_) => PrimitiveValue::Long(v),
        PrimitiveValue::Float(_) => PrimitiveValue::Float(f32::from_bits(v as u32)),
        PrimitiveValue::Double(_) => PrimitiveValue::Double(f64::from_bits(v as u64)),
    }
}

/// `expanded` with the primitives at the indices of `changed` and the strings at those of
/// `strings` set to their new values.
pub(crate) fn with_values(
    expanded: &TypedTest,
    changed: &[(usize, i64)],
    strings: &[(usize, rivet_pc::JavaString)],
) -> TypedTest {
    let mut out = expanded.clone();
    for &(k, v) in changed {
        if let Some(Statement::Primitive(p)) = out.test.statements.get(k) {
            out.test.statements[k] = Statement::Primitive(with_value(*p, v));
        }
    }
    for (k, v) in strings {
        if let Some(Statement::String(_)) = out.test.statements.get(*k) {
            out.test.statements[*k] = Statement::String(v.to_text_lossy());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_testcase::MemberRef;

    #[test]
    fn each_use_of_a_primitive_becomes_its_own_statement_before_its_user() {
        let mut t = TypedTest::new();
        let five = t.push(Statement::Primitive(PrimitiveValue::Int(5)), None);
        let g = t.push(
            Statement::Construct {
                constructor: MemberRef::new("a/G", "<init>", "(I)V"),
                args: vec![five],
            },
            None,
        );
        let call = t.push(
            Statement::Call {
                method: MemberRef::new("a/G", "m", "(II)I"),
                receiver: Some(g),
                args: vec![five, five],
            },
            None,
        );
        let (out, at) = expand(&t, call.0 as usize);
        // 5, new G, 5, 5, g.m
        assert_eq!(out.len(), 5, "{out:?}");
        assert_eq!(at, 4);
        let Statement::Call { receiver, args, .. } = &out.statements()[at] else {
            panic!("{out:?}");
        };
        assert_eq!(*receiver, Some(StatementId(1)));
        assert_eq!(args, &vec![StatementId(2), StatementId(3)]);
        let steps = steps(&out, at).unwrap();
        assert_eq!(steps.len(), 5);
        assert!(matches!(
            steps[4],
            TestStep::Call {
                receiver: Some(1),
                ..
            }
        ));
        // A new value for one use leaves the other alone.
        let changed = with_values(&out, &[(3, 9)], &[]);
        assert_eq!(
            changed.statements()[3],
            Statement::Primitive(PrimitiveValue::Int(9))
        );
        assert_eq!(
            changed.statements()[2],
            Statement::Primitive(PrimitiveValue::Int(5))
        );
    }

    #[test]
    fn tests_with_lambdas_before_the_call_are_not_replayed() {
        let mut t = TypedTest::new();
        t.push(
            Statement::ClassLiteral {
                descriptor: "I".into(),
            },
            None,
        );
        let call = t.push(
            Statement::Call {
                method: MemberRef::new("a/G", "s", "()V"),
                receiver: None,
                args: vec![],
            },
            None,
        );
        assert!(whole_test(
            &rivet_classfile::ClassName::from_internal("a/G"),
            &t,
            call.0 as usize,
            &[1]
        )
        .is_none());
    }
}
