//! The lines of the assertions that relate two objects of the class under test: what
//! `a.equals(b)` and the sign of `a.compareTo(b)` were, and that equal objects have equal
//! hash codes (the `equals`/`hashCode` contract).

use rivet_testcase::{Assertion, ValueSummary};

/// The Java line of a relation or contract assertion over the variables `refs` names; None for
/// other assertions.
pub(crate) fn contract_line(a: &Assertion, refs: &[String]) -> Option<String> {
    let name = |id: &rivet_testcase::StatementId| refs.get(id.0 as usize).cloned();
    match a {
        Assertion::Relation {
            a,
            b,
            method,
            value,
        } => {
            let call = format!("{}.{}({})", name(a)?, method.name, name(b)?);
            match value {
                ValueSummary::Boolean(true) => Some(format!("assertTrue({call});")),
                ValueSummary::Boolean(false) => Some(format!("assertFalse({call});")),
                ValueSummary::Int(sign) => {
                    Some(format!("assertEquals({sign}, Integer.signum({call}));"))
                }
                _ => None,
            }
        }
        Assertion::SameHash { a, b } => Some(format!(
            "assertEquals({}.hashCode(), {}.hashCode());",
            name(a)?,
            name(b)?
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_testcase::{MemberRef, StatementId};

    #[test]
    fn relations_read_as_assertions_on_the_two_variables() {
        let refs = vec!["range0".to_string(), "range1".to_string()];
        let equals = Assertion::Relation {
            a: StatementId(1),
            b: StatementId(0),
            method: MemberRef::new("a/Range", "equals", "(Ljava/lang/Object;)Z"),
            value: ValueSummary::Boolean(true),
        };
        assert_eq!(
            contract_line(&equals, &refs).as_deref(),
            Some("assertTrue(range1.equals(range0));")
        );
        let compare = Assertion::Relation {
            a: StatementId(0),
            b: StatementId(1),
            method: MemberRef::new("a/Range", "compareTo", "(La/Range;)I"),
            value: ValueSummary::Int(-1),
        };
        assert_eq!(
            contract_line(&compare, &refs).as_deref(),
            Some("assertEquals(-1, Integer.signum(range0.compareTo(range1)));")
        );
        let hash = Assertion::SameHash {
            a: StatementId(0),
            b: StatementId(1),
        };
        assert_eq!(
            contract_line(&hash, &refs).as_deref(),
            Some("assertEquals(range0.hashCode(), range1.hashCode());")
        );
    }
}
