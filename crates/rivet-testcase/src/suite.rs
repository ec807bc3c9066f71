//! Finished tests as every later stage sees them (the emitter, the verifier, the report): the
//! statements with their static types, the goals each covers and its regression assertions.

use std::fmt;

use crate::{ClassName, MemberRef, Statement, StatementId, TypedTest, ValueSummary};

/// A coverage goal's id, dense within one class's goals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalId(pub u32);

impl fmt::Display for GoalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g{}", self.0)
    }
}

/// A regression oracle of a test.
#[derive(Debug, Clone, PartialEq)]
pub enum Assertion {
    /// The value statement `of` produced.
    Equals {
        of: StatementId,
        value: ValueSummary,
    },
    /// What a read-only method returned on statement `of`'s value at the end of the test.
    Inspector {
        of: StatementId,
        method: MemberRef,
        value: ValueSummary,
    },
    /// Statement `at` (the last) throws; `class` is the thrown class or its nearest
    /// public superclass.
    Throws {
        at: StatementId,
        class: ClassName,
        message: Option<String>,
    },
    /// What `a.method(b)` returned at the end of the test, for two objects of the class under
    /// test: `equals` (true or false) or `compareTo` (its sign: -1, 0 or 1).
    Relation {
        a: StatementId,
        b: StatementId,
        method: MemberRef,
        value: ValueSummary,
    },
    /// `a.equals(b)` held, so their hash codes agree: the equals/hashCode contract.
    SameHash { a: StatementId, b: StatementId },
}

/// `Object.hashCode()`.
fn hash_code() -> MemberRef {
    MemberRef::new("java/lang/Object", "hashCode", "()I")
}

impl Assertion {
    /// The calls the assertion makes when it is checked, after the test's statements (an
    /// inspector's observer, the relation's call, the two hash codes); none for the others.
    pub fn observer_calls(&self) -> Vec<Statement> {
        match self {
            Assertion::Inspector { of, method, .. } => vec![observer_call(*of, method)],
            Assertion::Relation { a, b, method, .. } => vec![Statement::Call {
                method: method.clone(),
                receiver: Some(*a),
                args: vec![*b],
            }],
            Assertion::SameHash { a, b } => vec![
                observer_call(*a, &hash_code()),
                observer_call(*b, &hash_code()),
            ],
            Assertion::Equals { .. } | Assertion::Throws { .. } => Vec::new(),
        }
    }

    /// The statements whose values the assertion looks at.
    pub fn subjects(&self) -> Vec<StatementId> {
        match self {
            Assertion::Equals { of, .. } | Assertion::Inspector { of, .. } => vec![*of],
            Assertion::Relation { a, b, .. } | Assertion::SameHash { a, b } => vec![*a, *b],
            Assertion::Throws { .. } => Vec::new(),
        }
    }
}

/// The call an inspector assertion makes on statement `of`'s value: `of.method()` for an
/// instance method without parameters, `Owner.method(of)` for a static observer taking the
/// value (`java.util.Arrays.toString(int[])`).
pub fn observer_call(of: StatementId, method: &MemberRef) -> Statement {
    if method.descriptor.starts_with("()") {
        Statement::Call {
            method: method.clone(),
            receiver: Some(of),
            args: Vec::new(),
        }
    } else {
        Statement::Call {
            method: method.clone(),
            receiver: None,
            args: vec![of],
        }
    }
}

/// A finished test: statements, the goals it covers, its assertions.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedTest {
    pub test: TypedTest,
    pub goals: Vec<GoalId>,
    pub assertions: Vec<Assertion>,
}
