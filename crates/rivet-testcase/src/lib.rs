//! Rivet's test-case model, the types every stage shares: a test is a sequence of statements
//! over the API of the code under test (values, constructor calls, method calls, field
//! writes), each argument referring to an earlier statement, with the static type of each
//! value ([`TypedTest`], [`JType`]); what running it produced ([`Execution`]: each
//! statement's outcome, the probes covered, branch distances) and the [`Executor`] trait that
//! runs tests; and finished tests with their goals and assertions ([`GeneratedTest`]).
//!
//! Types are named by JVM internal names and members by JVM descriptors, so that the worker
//! can resolve them exactly; generators produce these values, never Java text.

mod execution;
mod observe;
mod outcome;
mod scratch;
mod snapshot;
mod suite;
mod typed;
mod types;

pub use execution::{
    Execution, ExecutionStatus, Executor, ProbeId, WorkerId, EXIT_REQUESTED_CLASS,
    SANDBOX_REFUSED_CLASS, UNRUNNABLE_CLASS,
};
pub use observe::{
    CallObservation, Observation, ObservationSpec, ObservedPath, ObservedRoot, ObservedStep,
    ObservedValue, MAX_TRACE,
};
pub use outcome::{StatementOutcome, ValueSummary};
pub use scratch::{is_scratch_path, ScratchEntry, SCRATCH_FILE, SCRATCH_PATH, SCRATCH_STRING};
pub use snapshot::{HeapSnapshot, SnapshotClass, SnapshotField, SnapshotObject, SnapshotSpec};
pub use suite::{observer_call, Assertion, GeneratedTest, GoalId};
pub use typed::{remap, TypedTest};
pub use types::{
    parse_class_supertype, parse_class_type_params, parse_field_signature, parse_method_signature,
    JType, MethodSignature, Prim, TypeParams, OBJECT, STRING,
};

pub use rivet_classfile::ClassName;
use std::fmt;

/// Index of a statement within its test case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StatementId(pub u32);

impl fmt::Display for StatementId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// A primitive constant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PrimitiveValue {
    Boolean(bool),
    Byte(i8),
    Char(u16),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
}

impl PrimitiveValue {
    /// The JVM descriptor of the value's type (`I`, `J`, …).
    pub fn descriptor(self) -> &'static str {
        match self {
            PrimitiveValue::Boolean(_) => "Z",
            PrimitiveValue::Byte(_) => "B",
            PrimitiveValue::Char(_) => "C",
            PrimitiveValue::Short(_) => "S",
            PrimitiveValue::Int(_) => "I",
            PrimitiveValue::Long(_) => "J",
            PrimitiveValue::Float(_) => "F",
            PrimitiveValue::Double(_) => "D",
        }
    }
}

/// A member reference: owner class, member name and JVM descriptor.
#[derive(Debug, Clone, Eq, PartialOrd, Ord)]
pub struct MemberRef {
    pub owner: ClassName,
    pub name: String,
    pub descriptor: String,
}

/// Equal when all three parts are, compared name first: the search compares every call of a
/// test with its goals' members, most of which share the owner (the class under test) and
/// differ by name, so comparing the long owner first spent an eighth of its thread.
impl PartialEq for MemberRef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.descriptor == other.descriptor && self.owner == other.owner
    }
}

impl std::hash::Hash for MemberRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.owner.hash(state);
        self.name.hash(state);
        self.descriptor.hash(state);
    }
}

impl MemberRef {
    /// `owner` in either form (`a/b/C` or `a.b.C`).
    pub fn new(owner: &str, name: &str, descriptor: &str) -> Self {
        MemberRef {
            owner: ClassName::from_internal(owner),
            name: name.to_string(),
            descriptor: descriptor.to_string(),
        }
    }
}

impl fmt::Display for MemberRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}{}", self.owner, self.name, self.descriptor)
    }
}

/// One statement of a test case.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Primitive(PrimitiveValue),
    String(String),
    /// `null` of a declared type (a field descriptor such as `Ljava/util/List;`).
    Null {
        descriptor: String,
    },
    /// A new array of a component type (field descriptor) holding earlier values.
    Array {
        component: String,
        elements: Vec<StatementId>,
    },
    /// `new C(args)`; `constructor.name` is `<init>`.
    Construct {
        constructor: MemberRef,
        args: Vec<StatementId>,
    },
    /// A method call; `receiver` is None for static methods.
    Call {
        method: MemberRef,
        receiver: Option<StatementId>,
        args: Vec<StatementId>,
    },
    /// A write of a public field; `receiver` is None for static fields.
    FieldWrite {
        field: MemberRef,
        receiver: Option<StatementId>,
        value: StatementId,
    },
    /// A class literal (`int.class`, `String[].class`, `void.class`): a field descriptor, or
    /// `V`.
    ClassLiteral {
        descriptor: String,
    },
    /// The value of a static final field (a constant such as `Locale.ROOT`).
    Constant {
        field: MemberRef,
    },
    /// A lambda implementing the functional interface `interface`, whose single abstract
    /// method is `method` (declared by `interface` or one of its superinterfaces).
    Lambda {
        interface: ClassName,
        method: MemberRef,
        body: LambdaBody,
    },
    /// A path beneath the test's own temporary directory, as a `File`, `Path` or `String`
    /// (`descriptor`, one of the `SCRATCH_*`), with `entry` made there first; `path` is
    /// relative (`is_scratch_path`).
    Scratch {
        descriptor: String,
        path: String,
        entry: ScratchEntry,
    },
}

/// What a generated lambda does when called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LambdaBody {
    /// Returns an earlier value (captured).
    Returns(StatementId),
    /// Returns its first argument.
    Identity,
    /// Does nothing (for a `void` method).
    Nothing,
    /// Throws an `IllegalStateException` with the message [`LAMBDA_FAILURE`].
    Throws,
}

/// The message of the exception a [`LambdaBody::Throws`] lambda throws.
pub const LAMBDA_FAILURE: &str = "thrown by a Rivet lambda";

impl Statement {
    /// The statements this one reads.
    pub fn uses(&self) -> Vec<StatementId> {
        match self {
            Statement::Primitive(_) | Statement::String(_) | Statement::Null { .. } => Vec::new(),
            Statement::Array { elements, .. } => elements.clone(),
            Statement::Construct { args, .. } => args.clone(),
            Statement::Call { receiver, args, .. } => {
                receiver.iter().chain(args).copied().collect()
            }
            Statement::FieldWrite {
                receiver, value, ..
            } => receiver.iter().copied().chain([*value]).collect(),
            Statement::ClassLiteral { .. }
            | Statement::Constant { .. }
            | Statement::Scratch { .. } => Vec::new(),
            Statement::Lambda { body, .. } => match body {
                LambdaBody::Returns(v) => vec![*v],
                _ => Vec::new(),
            },
        }
    }

    /// Does the statement produce a value later statements may use?
    pub fn produces_value(&self) -> bool {
        match self {
            Statement::Call { method, .. } => !method.descriptor.ends_with(")V"),
            Statement::FieldWrite { .. } => false,
            _ => true,
        }
    }
}

/// A test case: statements in execution order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TestCase {
    pub statements: Vec<Statement>,
}

/// A test case whose references are not well formed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TestCaseError {
    #[error("statement {at} refers to {used}, which is not an earlier statement")]
    ForwardReference { at: StatementId, used: StatementId },
    #[error("statement {at} uses {used}, which produces no value")]
    NoValue { at: StatementId, used: StatementId },
}

impl TestCase {
    pub fn new() -> Self {
        TestCase::default()
    }

    /// Appends a statement and returns its id.
    pub fn push(&mut self, s: Statement) -> StatementId {
        self.statements.push(s);
        StatementId(self.statements.len() as u32 - 1)
    }

    pub fn len(&self) -> usize {
        self.statements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Checks that every reference points to an earlier statement that produces a value.
    pub fn validate(&self) -> Result<(), TestCaseError> {
        for (i, s) in self.statements.iter().enumerate() {
            let at = StatementId(i as u32);
            for used in s.uses() {
                if used.0 as usize >= i {
                    return Err(TestCaseError::ForwardReference { at, used });
                }
                if !self.statements[used.0 as usize].produces_value() {
                    return Err(TestCaseError::NoValue { at, used });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_rejects_forward_and_void_references() {
        let mut t = TestCase::new();
        let n = t.push(Statement::Primitive(PrimitiveValue::Int(3)));
        let list = t.push(Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "(I)V"),
            args: vec![n],
        });
        let clear = t.push(Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "clear", "()V"),
            receiver: Some(list),
            args: vec![],
        });
        assert_eq!(t.validate(), Ok(()));
        t.push(Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "add", "(Ljava/lang/Object;)Z"),
            receiver: Some(list),
            args: vec![clear],
        });
        assert_eq!(
            t.validate(),
            Err(TestCaseError::NoValue {
                at: StatementId(3),
                used: clear
            })
        );
        t.statements[3] = Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "add", "(Ljava/lang/Object;)Z"),
            receiver: Some(StatementId(5)),
            args: vec![],
        };
        assert!(matches!(
            t.validate(),
            Err(TestCaseError::ForwardReference { .. })
        ));
    }

    #[test]
    fn member_refs_are_equal_exactly_when_all_three_parts_are() {
        let m = MemberRef::new("a/B", "f", "()V");
        let variants = [
            MemberRef::new("a/B", "f", "()V"),
            MemberRef::new("a/C", "f", "()V"),
            MemberRef::new("a/B", "g", "()V"),
            MemberRef::new("a/B", "f", "(I)V"),
        ];
        let hash = |r: &MemberRef| {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            r.hash(&mut h);
            h.finish()
        };
        let equal: Vec<bool> = variants.iter().map(|v| *v == m).collect();
        assert_eq!(equal, [true, false, false, false]);
        for v in &variants {
            assert_eq!(*v == m, v.cmp(&m) == std::cmp::Ordering::Equal, "{v:?}");
        }
        assert_eq!(hash(&variants[0]), hash(&m));
    }
}
