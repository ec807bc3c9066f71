//! What the inspector variant of a test observes after its statements: observers of single
//! values, and the relations between two objects of the class under test that the class
//! defines (`a.equals(b)`, `a.compareTo(b)`, and their hash codes, which must agree when they
//! are equal). The observations become assertions only when two runs agree.

use std::collections::BTreeMap;

use rivet_api::ApiModel;
use rivet_testcase::{observer_call, Assertion, MemberRef, Statement, StatementId, ValueSummary};

/// A call the inspector variant makes after the test's statements.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Observed {
    /// An observer of one value, asserted as it returned.
    Inspector(StatementId, MemberRef),
    /// `a.method(b)` (`equals`, `compareTo`), asserted as a relation.
    Relation(StatementId, StatementId, MemberRef),
    /// `of.hashCode()`: compared with another's when the two are equal, never asserted as is
    /// (an identity hash differs from JVM to JVM).
    Hash(StatementId),
}

impl Observed {
    /// The statement that makes the call.
    pub(crate) fn statement(&self) -> Statement {
        match self {
            Observed::Inspector(of, m) => observer_call(*of, m),
            Observed::Relation(a, b, m) => Statement::Call {
                method: m.clone(),
                receiver: Some(*a),
                args: vec![*b],
            },
            Observed::Hash(of) => {
                observer_call(*of, &MemberRef::new("java/lang/Object", "hashCode", "()I"))
            }
        }
    }
}

/// The relations the class under test defines between two of its objects `a` and `b`: an
/// `equals` it declares (with `hashCode`, their hash codes too) and a `compareTo` taking one of
/// its own objects or any object.
pub(crate) fn relations(model: &ApiModel, a: StatementId, b: StatementId) -> Vec<Observed> {
    let Some(api) = model.class_api(model.class.internal()) else {
        return Vec::new();
    };
    let declares = |name: &str, descriptor: &str| {
        api.methods
            .iter()
            .find(|m| !m.is_static && m.member.name == name && m.member.descriptor == descriptor)
            .map(|m| m.member.clone())
    };
    let mut out = Vec::new();
    if let Some(equals) = declares("equals", "(Ljava/lang/Object;)Z") {
        out.push(Observed::Relation(a, b, equals));
        if declares("hashCode", "()I").is_some() {
            out.extend([Observed::Hash(a), Observed::Hash(b)]);
        }
    }
    let own = format!("(L{};)I", model.class.internal());
    let compare =
        declares("compareTo", &own).or_else(|| declares("compareTo", "(Ljava/lang/Object;)I"));
    out.extend(compare.map(|m| Observed::Relation(a, b, m)));
    out
}

/// The assertions of the relations observed in two runs that agree: `equals` as it was, the
/// sign of `compareTo`, and the same hash code for objects found equal.
pub(crate) fn relation_assertions(
    observed: &[Observed],
    first: &[Option<&ValueSummary>],
    second: &[Option<&ValueSummary>],
) -> Vec<Assertion> {
    let mut out = Vec::new();
    let mut hashes: BTreeMap<StatementId, (i32, i32)> = BTreeMap::new();
    for (j, o) in observed.iter().enumerate() {
        let (Some(va), Some(vb)) = (
            first.get(j).copied().flatten(),
            second.get(j).copied().flatten(),
        ) else {
            continue;
        };
        match (o, va, vb) {
            (Observed::Hash(of), ValueSummary::Int(x), ValueSummary::Int(y)) => {
                hashes.insert(*of, (*x, *y));
            }
            (Observed::Relation(a, b, m), ValueSummary::Boolean(x), ValueSummary::Boolean(y))
                if x == y =>
            {
                out.push(Assertion::Relation {
                    a: *a,
                    b: *b,
                    method: m.clone(),
                    value: ValueSummary::Boolean(*x),
                });
            }
            (Observed::Relation(a, b, m), ValueSummary::Int(x), ValueSummary::Int(y))
                if x.signum() == y.signum() =>
            {
                out.push(Assertion::Relation {
                    a: *a,
                    b: *b,
                    method: m.clone(),
                    value: ValueSummary::Int(x.signum()),
                });
            }
            _ => {}
        }
    }
    let equal_pairs: Vec<(StatementId, StatementId)> = out
        .iter()
        .filter_map(|x| match x {
            Assertion::Relation {
                a,
                b,
                method,
                value: ValueSummary::Boolean(true),
            } if method.name == "equals" => Some((*a, *b)),
            _ => None,
        })
        .collect();
    for (a, b) in equal_pairs {
        if let (Some(ha), Some(hb)) = (hashes.get(&a), hashes.get(&b)) {
            // Equal in both runs (the values themselves may differ between runs).
            if ha.0 == hb.0 && ha.1 == hb.1 {
                out.push(Assertion::SameHash { a, b });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreeing_runs_give_the_relation_the_sign_and_the_hash_contract() {
        let (a, b) = (StatementId(0), StatementId(1));
        let equals = MemberRef::new("p/R", "equals", "(Ljava/lang/Object;)Z");
        let compare = MemberRef::new("p/R", "compareTo", "(Lp/R;)I");
        let observed = vec![
            Observed::Relation(a, b, equals.clone()),
            Observed::Hash(a),
            Observed::Hash(b),
            Observed::Relation(a, b, compare.clone()),
        ];
        let t = ValueSummary::Boolean(true);
        let (h1, h2) = (ValueSummary::Int(77), ValueSummary::Int(91));
        let (c1, c2) = (ValueSummary::Int(-5), ValueSummary::Int(-2));
        let first = [Some(&t), Some(&h1), Some(&h1), Some(&c1)];
        let second = [Some(&t), Some(&h2), Some(&h2), Some(&c2)];
        let got = relation_assertions(&observed, &first, &second);
        assert_eq!(
            got,
            vec![
                Assertion::Relation {
                    a,
                    b,
                    method: equals,
                    value: ValueSummary::Boolean(true)
                },
                Assertion::Relation {
                    a,
                    b,
                    method: compare,
                    value: ValueSummary::Int(-1)
                },
                Assertion::SameHash { a, b },
            ]
        );
        // Hash codes that differ (a broken contract) or runs that disagree give nothing.
        let f = ValueSummary::Boolean(false);
        let broken = [Some(&t), Some(&h1), Some(&h2), None];
        assert_eq!(relation_assertions(&observed, &broken, &broken).len(), 1);
        let disagree = [Some(&f), None, None, None];
        assert!(relation_assertions(&observed, &first, &disagree)
            .iter()
            .all(|x| !matches!(x, Assertion::Relation { method, .. } if method.name == "equals")));
    }
}
