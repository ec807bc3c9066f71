//! Whether the casts a written test makes of its calls' results hold for the values a run
//! returned. The worker never casts; a value that breaks the type the test knows (a raw
//! collection holding another element type, a view returned where an element was expected)
//! passes there and throws `ClassCastException` under JUnit.

use std::fmt;

use rivet_testcase::{
    ClassName, Execution, JType, MemberRef, Statement, StatementOutcome, TypedTest, ValueSummary,
};

use crate::ApiModel;

/// A result the written test would cast to a type its run-time class does not have.
#[derive(Debug, Clone, PartialEq)]
pub struct FailingCast {
    /// The statement whose result it is, and the method it calls.
    pub statement: usize,
    pub method: MemberRef,
    /// The result's run-time class.
    pub class: ClassName,
    /// The type the test casts it to.
    pub cast_to: JType,
}

impl fmt::Display for FailingCast {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "statement {} ({}) returned a {}, which the test casts to {}",
            self.statement,
            self.method,
            self.class.binary(),
            self.cast_to
        )
    }
}

impl ApiModel {
    /// The first result of `e` (a run of `t`) that the written test would cast to a type its
    /// run-time class does not have ([`TypedTest::result_cast`]); None when every cast holds
    /// or cannot be decided (a class the classpath does not have, a hidden class).
    pub fn failing_cast(&self, t: &TypedTest, e: &Execution) -> Option<FailingCast> {
        if !e.is_completed() {
            return None;
        }
        (0..t.len()).find_map(|i| {
            // The outcome first: it is cheaper to read than the statement's types.
            let string;
            let class = match e.outcomes.get(i)? {
                StatementOutcome::Normal(ValueSummary::Object { class, .. }) => class,
                StatementOutcome::Normal(ValueSummary::String(_)) => {
                    string = ClassName::from_internal("java/lang/String");
                    &string
                }
                _ => return None,
            };
            let cast_to = t.result_cast(i)?;
            let Some(Statement::Call { method, .. }) = t.statements().get(i) else {
                return None;
            };
            let holds = self
                .hierarchy()
                .is_assignable(class.internal(), &cast_to.hierarchy_name());
            matches!(holds, Ok(false)).then(|| FailingCast {
                statement: i,
                method: method.clone(),
                class: class.clone(),
                cast_to,
            })
        })
    }
}
