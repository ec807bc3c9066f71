//! Output goals (EvoSuite's output coverage): per method of the class under test, each
//! category of the value it returns (negative, zero, positive; true, false; null, non-null;
//! the empty string, a non-empty one). A suite that covers them has tests whose results tell
//! the method's behaviours apart, which is what catches a mutant that changes a result.

use rivet_testcase::{
    Execution, JType, MemberRef, Prim, Statement, StatementOutcome, TestCase, ValueSummary,
};

use crate::goal::{normalize, Objective};

/// A category of returned values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputCategory {
    Negative,
    Zero,
    Positive,
    True,
    False,
    Null,
    NonNull,
    EmptyString,
    NonEmptyString,
}

impl OutputCategory {
    /// The categories of a method's return type (none for void).
    pub fn of(returns: &JType) -> Vec<OutputCategory> {
        use OutputCategory::*;
        match returns.prim() {
            Some(Prim::Boolean) => vec![True, False],
            Some(Prim::Char) => vec![Zero, Positive],
            Some(_) => vec![Negative, Zero, Positive],
            None if returns.is_string() => vec![Null, EmptyString, NonEmptyString],
            None => vec![Null, NonNull],
        }
    }

    /// How it reads in a goal's description and a test's name (`returns negative`).
    pub fn text(self) -> &'static str {
        use OutputCategory::*;
        match self {
            Negative => "returns negative",
            Zero => "returns zero",
            Positive => "returns positive",
            True => "returns true",
            False => "returns false",
            Null => "returns null",
            NonNull => "returns an object",
            EmptyString => "returns empty",
            NonEmptyString => "returns text",
        }
    }

    /// How far a returned value is from the category: 0 inside it.
    fn distance(self, v: &ValueSummary) -> f64 {
        use OutputCategory::*;
        let number = match v {
            ValueSummary::Byte(x) => Some(f64::from(*x)),
            ValueSummary::Short(x) => Some(f64::from(*x)),
            ValueSummary::Char(x) => Some(f64::from(*x)),
            ValueSummary::Int(x) => Some(f64::from(*x)),
            ValueSummary::Long(x) => Some(*x as f64),
            ValueSummary::Float(x) => Some(f64::from(*x)),
            ValueSummary::Double(x) => Some(*x),
            _ => None,
        };
        let far = 1.0;
        match (self, number, v) {
            (Negative, Some(x), _) => (x + 1.0).max(0.0),
            (Zero, Some(x), _) => x.abs(),
            (Positive, Some(x), _) => (1.0 - x).max(0.0),
            (True, _, ValueSummary::Boolean(b)) | (False, _, ValueSummary::Boolean(b)) => {
                if *b == (self == True) {
                    0.0
                } else {
                    far
                }
            }
            (Null, _, ValueSummary::Null) => 0.0,
            (NonNull, _, ValueSummary::Object { .. } | ValueSummary::String(_)) => 0.0,
            (EmptyString, _, ValueSummary::String(s)) => s.chars().count() as f64,
            (NonEmptyString, _, ValueSummary::String(s)) if !s.is_empty() => 0.0,
            _ => far,
        }
    }
}

/// Covered when a call of `member` returns a value of `category`.
#[derive(Debug, Clone)]
pub struct OutputObjective {
    pub member: MemberRef,
    pub category: OutputCategory,
}

impl Objective for OutputObjective {
    fn fitness(&self, test: &TestCase, e: &Execution) -> f64 {
        let mut best = f64::INFINITY;
        for (s, o) in test.statements.iter().zip(&e.outcomes) {
            let Statement::Call { method, .. } = s else {
                continue;
            };
            if *method != self.member {
                continue;
            }
            if let StatementOutcome::Normal(v) = o {
                best = best.min(self.category.distance(v));
            }
        }
        if best == 0.0 {
            0.0
        } else if best.is_finite() {
            // Called, with a result in another category: closer than not called.
            0.5 + 0.5 * normalize(best)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_reach_zero_exactly_inside_the_category() {
        use OutputCategory::*;
        assert_eq!(Negative.distance(&ValueSummary::Int(-3)), 0.0);
        assert_eq!(Negative.distance(&ValueSummary::Int(0)), 1.0);
        assert_eq!(Zero.distance(&ValueSummary::Long(-2)), 2.0);
        assert_eq!(Positive.distance(&ValueSummary::Double(0.5)), 0.5);
        assert_eq!(Positive.distance(&ValueSummary::Int(1)), 0.0);
        assert_eq!(True.distance(&ValueSummary::Boolean(true)), 0.0);
        assert_eq!(False.distance(&ValueSummary::Boolean(true)), 1.0);
        assert_eq!(
            EmptyString.distance(&ValueSummary::String("ab".into())),
            2.0
        );
        assert_eq!(
            NonEmptyString.distance(&ValueSummary::String("".into())),
            1.0
        );
        assert_eq!(Null.distance(&ValueSummary::Null), 0.0);
        assert_eq!(
            OutputCategory::of(&JType::Prim(Prim::Boolean)),
            vec![True, False]
        );
    }
}
