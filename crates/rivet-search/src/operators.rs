//! Search operators on typed tests (EvoSuite's): insertion of calls, deletion of statements
//! with their dependents, change of values, arguments and calls, and single-point crossover whose
//! suffix is re-wired to compatible values of the other parent's prefix.

use std::collections::HashMap;

use rivet_api::{Generator, Rng};
use rivet_testcase::{remap, JType, Statement, StatementId, TypedTest};

/// Probability that an insertion is followed by another (σ, σ², …).
const SIGMA: f64 = 0.5;

/// Mutates `t` in place: deletion, change and insertion each with probability 1/3 (at least
/// one of them is applied).
pub fn mutate(g: &Generator<'_>, rng: &mut Rng, t: &mut TypedTest) {
    let mut changed = false;
    for _ in 0..4 {
        if rng.chance(1.0 / 3.0) && !t.is_empty() {
            changed |= delete(rng, t);
        }
        if rng.chance(1.0 / 3.0) && !t.is_empty() {
            changed |= change(g, rng, t);
        }
        if rng.chance(1.0 / 3.0) || t.is_empty() {
            changed |= insert(g, rng, t);
        }
        if changed {
            break;
        }
    }
    g.model.drop_self_insertions(t);
}

/// Removes each statement with probability 1/len (with its dependents).
pub fn delete(rng: &mut Rng, t: &mut TypedTest) -> bool {
    let n = t.len();
    let doomed: Vec<usize> = (0..n).filter(|_| rng.chance(1.0 / n as f64)).collect();
    if doomed.is_empty() {
        return false;
    }
    t.remove_with_dependents(&doomed);
    true
}

/// The share of insertions that repeat a call already in the test instead.
const REPEAT: f64 = 0.1;

/// Inserts calls at random positions (more likely at the end), σ-geometrically many; one in
/// ten repeats a call of the test right after it (same receiver, same arguments), since a
/// method that caches its result (a `toString` memoized in a field, a table built lazily)
/// branches on its second call, and a random insertion seldom makes one.
pub fn insert(g: &Generator<'_>, rng: &mut Rng, t: &mut TypedTest) -> bool {
    let mut any = false;
    let mut p = 1.0;
    while rng.chance(p) && t.len() < g.config.max_len {
        if rng.chance(REPEAT) && repeat_call(rng, t) {
            any = true;
            p *= SIGMA;
            continue;
        }
        let pos = if rng.chance(0.5) {
            t.len()
        } else {
            rng.below(t.len() + 1)
        };
        let on_existing = rng.chance(0.5);
        let added = t.insert_at(pos, |prefix| {
            if on_existing {
                g.call_on_existing(rng, prefix);
            } else {
                g.call_target(rng, prefix);
            }
        });
        any |= added > 0;
        p *= SIGMA;
    }
    any
}

/// Repeats a random method call of `t` right after it; false when `t` has no call.
pub fn repeat_call(rng: &mut Rng, t: &mut TypedTest) -> bool {
    let calls: Vec<usize> = t
        .statements()
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Statement::Call { .. }))
        .map(|(i, _)| i)
        .collect();
    if calls.is_empty() {
        return false;
    }
    t.repeat(calls[rng.below(calls.len())])
}

/// Changes each statement with probability 1/len: primitives and strings get a nearby
/// value, calls get another argument or are replaced by another call, nulls a fresh value.
pub fn change(g: &Generator<'_>, rng: &mut Rng, t: &mut TypedTest) -> bool {
    let n = t.len();
    let mut any = false;
    let mut i = 0;
    while i < t.len() {
        if !rng.chance(1.0 / n as f64) {
            i += 1;
            continue;
        }
        match t.statements()[i].clone() {
            Statement::Primitive(v) => {
                t.test.statements[i] = Statement::Primitive(g.mutate_primitive(rng, v));
                any = true;
            }
            Statement::String(s) => {
                t.test.statements[i] = Statement::String(g.mutate_string(rng, &s));
                any = true;
            }
            Statement::Null { .. } => {
                if let Some(ty) = t.types[i].clone() {
                    let mut new_id = None;
                    let added = t.insert_at(i, |prefix| {
                        new_id = g.value(rng, prefix, &ty, 1);
                    });
                    if let Some(new) = new_id {
                        let old = StatementId((i + added) as u32);
                        if new != old {
                            t.replace_uses(old, new);
                            any = true;
                        }
                    }
                    i += added;
                }
            }
            Statement::Call { args, .. } | Statement::Construct { args, .. } => {
                // Half the time another argument, otherwise (or without arguments) another call.
                if !args.is_empty() && rng.chance(0.5) {
                    any |= change_argument(g, rng, t, i, args.len());
                } else {
                    let before = t.len();
                    if replace_call(g, rng, t, i) {
                        any = true;
                        // Skip what was inserted in its place.
                        i = (i + t.len()).saturating_sub(before);
                    }
                }
            }
            Statement::Array { elements, .. } if !elements.is_empty() => {
                any |= change_argument(g, rng, t, i, elements.len());
            }
            _ => {}
        }
        i += 1;
    }
    any
}

/// Replaces the call or constructor at `i`: when later statements use its value, by another
/// way of producing a value of the same type (their uses re-pointed to it); otherwise by another
/// call on an existing object. The old statement goes.
fn replace_call(g: &Generator<'_>, rng: &mut Rng, t: &mut TypedTest, i: usize) -> bool {
    let old = StatementId(i as u32);
    let used = t.statements()[i + 1..]
        .iter()
        .any(|s| s.uses().contains(&old));
    let ty = t.types[i].clone();
    let mut new_id = None;
    let added = match (&ty, used) {
        (Some(ty), true) => t.insert_at(i, |prefix| {
            new_id = g.value(rng, prefix, ty, 1);
        }),
        (None, true) => return false,
        (_, false) => t.insert_at(i, |prefix| {
            g.call_on_existing(rng, prefix);
        }),
    };
    let old = i + added;
    if used {
        match new_id {
            Some(new) if new.0 as usize != old => {
                t.replace_uses(StatementId(old as u32), new);
            }
            // Nothing could stand in for it: keep the old call (and whatever was inserted).
            _ => return added > 0,
        }
    } else if added == 0 {
        return false;
    }
    t.remove_with_dependents(&[old]);
    true
}

/// Re-points argument `k` (random) of statement `i` to another compatible earlier value, or
/// to a fresh one inserted before it.
fn change_argument(
    g: &Generator<'_>,
    rng: &mut Rng,
    t: &mut TypedTest,
    i: usize,
    arity: usize,
) -> bool {
    let k = rng.below(arity);
    let Some(old) = argument(&t.statements()[i], k) else {
        return false;
    };
    let Some(ty) = t.types[old.0 as usize].clone() else {
        return false;
    };
    let candidates: Vec<usize> = t
        .values_before(i)
        .filter(|(j, v)| *j != old.0 as usize && stands_in(g, v, &ty))
        .map(|(j, _)| j)
        .collect();
    // A lookup's argument is mostly re-pointed to an element the test holds.
    let elements: Vec<usize> = if let Some(of) = g.model.lookup_in(t, i) {
        let elements = g.model.element_values(t, i, of);
        candidates
            .iter()
            .copied()
            .filter(|j| elements.contains(j))
            .collect()
    } else {
        Vec::new()
    };
    let mut i = i;
    let new = if !elements.is_empty() && rng.chance(0.5) {
        StatementId(*rng.pick(&elements).unwrap_or(&elements[0]) as u32)
    } else if !candidates.is_empty() && rng.chance(0.5) {
        StatementId(*rng.pick(&candidates).unwrap_or(&candidates[0]) as u32)
    } else {
        let mut new_id = None;
        let added = t.insert_at(i, |prefix| {
            new_id = g.value(rng, prefix, &ty, 1);
        });
        let Some(id) = new_id else {
            return false;
        };
        if !declare_as(t, id, &ty, i) {
            // What was inserted stays unused.
            return added > 0;
        }
        i += added;
        id
    };
    let f = |u: StatementId| Some(u);
    let Some(mut s) = remap(&t.statements()[i], &f) else {
        return false;
    };
    set_argument(&mut s, k, new);
    t.test.statements[i] = s;
    true
}

/// May a value of type `v` stand in for one of type `ty`: assignable, and with its type
/// arguments. A parameterized value in place of a raw one (`DayOfWeek.class` for a raw `Class`)
/// changes what javac infers for a generic method's other arguments (commons-lang3's
/// `generateBitVector(Class<E>, E...)` with an `Enum[]` no longer compiles).
fn stands_in(g: &Generator<'_>, v: &JType, ty: &JType) -> bool {
    g.model.assignable(v, ty) && v.args() == ty.args()
}

/// Declares the value `id`, made for type `ty`, raw when `ty` is raw and it was made from
/// statement `fresh_from` on; false when it is an earlier parameterized value, which cannot.
fn declare_as(t: &mut TypedTest, id: StatementId, ty: &JType, fresh_from: usize) -> bool {
    let Some(Some(made)) = t.types.get_mut(id.0 as usize) else {
        return true;
    };
    if !ty.args().is_empty() || made.args().is_empty() {
        return true;
    }
    if (id.0 as usize) < fresh_from {
        return false;
    }
    *made = ty.clone();
    true
}

fn argument(s: &Statement, k: usize) -> Option<StatementId> {
    match s {
        Statement::Call { args, .. } | Statement::Construct { args, .. } => args.get(k).copied(),
        Statement::Array { elements, .. } => elements.get(k).copied(),
        _ => None,
    }
}

fn set_argument(s: &mut Statement, k: usize, v: StatementId) {
    match s {
        Statement::Call { args, .. } | Statement::Construct { args, .. } => {
            if let Some(a) = args.get_mut(k) {
                *a = v;
            }
        }
        Statement::Array { elements, .. } => {
            if let Some(a) = elements.get_mut(k) {
                *a = v;
            }
        }
        _ => {}
    }
}

/// Single-point crossover: `a[..i] ++ b[j..]`, the suffix's references to `b[..j]` re-wired
/// to compatible values of the child (or fresh ones).
pub fn crossover(g: &Generator<'_>, rng: &mut Rng, a: &TypedTest, b: &TypedTest) -> TypedTest {
    let i = rng.below(a.len() + 1);
    let j = rng.below(b.len() + 1);
    let mut child = a.clone();
    child.retain(&(0..a.len()).map(|k| k < i).collect::<Vec<_>>());
    let mut map: HashMap<u32, StatementId> = HashMap::new();
    for k in j..b.len() {
        if child.len() >= g.config.max_len {
            break;
        }
        let s = &b.statements()[k];
        let mut ok = true;
        for u in s.uses() {
            if map.contains_key(&u.0) {
                continue;
            }
            let Some(ty) = b.types[u.0 as usize].clone() else {
                ok = false;
                break;
            };
            let found: Vec<usize> = child
                .values_before(child.len())
                .filter(|(_, v)| stands_in(g, v, &ty))
                .map(|(x, _)| x)
                .collect();
            let fresh_from = child.len();
            let id = match found.last() {
                Some(x) if rng.chance(0.8) => Some(StatementId(*x as u32)),
                _ => match &b.statements()[u.0 as usize] {
                    lit @ (Statement::Primitive(_)
                    | Statement::String(_)
                    | Statement::Null { .. }) => Some(child.push(lit.clone(), Some(ty.clone()))),
                    _ => g.value(rng, &mut child, &ty, 1),
                },
            }
            .filter(|id| declare_as(&mut child, *id, &ty, fresh_from));
            match id {
                Some(id) => {
                    map.insert(u.0, id);
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if !ok {
            continue;
        }
        let f = |u: StatementId| map.get(&u.0).copied();
        if let Some(s) = remap(s, &f) {
            let id = child.push(s, b.types[k].clone());
            map.insert(k as u32, id);
        }
    }
    child
}

#[cfg(test)]
mod tests {
    use rivet_testcase::{MemberRef, PrimitiveValue};

    use super::*;

    #[test]
    fn a_repeated_call_is_a_call_of_the_test_with_the_same_operands() {
        let mut t = TypedTest::new();
        let f = t.push(
            Statement::Construct {
                constructor: MemberRef::new("p/F", "<init>", "(I)V"),
                args: vec![],
            },
            Some(JType::class("p/F")),
        );
        let one = t.push(Statement::Primitive(PrimitiveValue::Int(1)), None);
        t.push(
            Statement::Call {
                method: MemberRef::new("p/F", "toString", "()Ljava/lang/String;"),
                receiver: Some(f),
                args: vec![],
            },
            Some(JType::class("java/lang/String")),
        );
        t.push(
            Statement::Call {
                method: MemberRef::new("p/F", "add", "(I)V"),
                receiver: Some(f),
                args: vec![one],
            },
            None,
        );
        let mut rng = Rng::new(7);
        for _ in 0..20 {
            let mut u = t.clone();
            assert!(repeat_call(&mut rng, &mut u));
            assert_eq!(u.len(), 5);
            let copy = (2..4).find(|&i| u.statements()[i] == u.statements()[i + 1]);
            assert!(copy.is_some(), "no call followed by its copy: {u:?}");
        }
        let mut only_values = TypedTest::new();
        only_values.push(Statement::Primitive(PrimitiveValue::Int(1)), None);
        assert!(!repeat_call(&mut rng, &mut only_values));
        assert_eq!(only_values.len(), 1);
    }

    /// A call `bits(Class, Enum[])` of a generic `<E extends Enum<E>> bits(Class<E>, E...)`
    /// whose class literal is declared raw (it was made outside the bound, so the array is an
    /// `Enum[]`), beside a `Class<RoundingMode>` literal.
    fn raw_class_call() -> TypedTest {
        let class = JType::class("java/lang/Class");
        let mut t = TypedTest::new();
        let raw = t.push(
            Statement::ClassLiteral {
                descriptor: "Ljava/time/DayOfWeek;".into(),
            },
            Some(class.clone()),
        );
        t.push(
            Statement::ClassLiteral {
                descriptor: "Ljava/math/RoundingMode;".into(),
            },
            Some(JType::Class {
                name: "java/lang/Class".into(),
                args: vec![JType::class("java/math/RoundingMode")],
            }),
        );
        let array = t.push(
            Statement::Array {
                component: "Ljava/lang/Enum;".into(),
                elements: vec![],
            },
            Some(JType::Array(Box::new(JType::class("java/lang/Enum")))),
        );
        t.push(
            Statement::Call {
                method: MemberRef::new("p/E", "bits", "(Ljava/lang/Class;[Ljava/lang/Enum;)J"),
                receiver: None,
                args: vec![raw, array],
            },
            Some(JType::Prim(rivet_testcase::Prim::Long)),
        );
        t
    }

    #[test]
    fn a_raw_argument_is_replaced_only_by_a_raw_value() {
        let jdk = std::sync::Arc::new(rivet_classpath::JdkImage::locate().expect("a JDK"));
        let cp = std::sync::Arc::new(
            rivet_classpath::Classpath::from_paths(
                [rivet_testkit::compiled_subjects(11)],
                Some(jdk),
            )
            .expect("classpath"),
        );
        let model = rivet_api::ApiModel::build(
            cp,
            &rivet_testcase::ClassName::from_binary("lct.Examples"),
            None,
            rivet_api::AccessMode::SamePackage,
        )
        .expect("model");
        let g = Generator::new(&model, rivet_api::GenConfig::default());
        let mut changed = 0;
        for seed in 0..60 {
            let mut t = raw_class_call();
            let mut rng = Rng::new(seed);
            let call = t.len() - 1;
            // The first argument (the class literal): `k` is drawn below 1.
            if !change_argument(&g, &mut rng, &mut t, call, 1) {
                continue;
            }
            let Some(Statement::Call { args, .. }) = t.statements().last() else {
                panic!("the call went: {t:?}");
            };
            let ty = t.types[args[0].0 as usize].clone().expect("a type");
            assert!(ty.args().is_empty(), "seed {seed}: {ty:?} in {t:?}");
            changed += 1;
        }
        assert!(changed > 10, "only {changed} changes");
    }
}
