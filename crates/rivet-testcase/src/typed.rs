//! A test case with the static type of each statement's value, and the edits the search makes
//! on it (removing statements with their dependents, inserting a block, re-pointing uses),
//! keeping every reference well formed.

use crate::{Statement, StatementId, TestCase};

use crate::types::JType;

/// A test case and the static (declared) type of each statement's value; `None` for
/// statements that produce none. The emitter declares variables with these types (erased).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypedTest {
    pub test: TestCase,
    pub types: Vec<Option<JType>>,
}

/// The statement with every use mapped by `f`; None if some use maps to nothing.
pub fn remap(s: &Statement, f: &dyn Fn(StatementId) -> Option<StatementId>) -> Option<Statement> {
    Some(match s {
        Statement::Primitive(_)
        | Statement::String(_)
        | Statement::Null { .. }
        | Statement::ClassLiteral { .. }
        | Statement::Constant { .. }
        | Statement::Scratch { .. } => s.clone(),
        Statement::Lambda {
            interface,
            method,
            body,
        } => Statement::Lambda {
            interface: interface.clone(),
            method: method.clone(),
            body: match body {
                crate::LambdaBody::Returns(v) => crate::LambdaBody::Returns(f(*v)?),
                other => *other,
            },
        },
        Statement::Array {
            component,
            elements,
        } => Statement::Array {
            component: component.clone(),
            elements: elements.iter().map(|e| f(*e)).collect::<Option<_>>()?,
        },
        Statement::Construct { constructor, args } => Statement::Construct {
            constructor: constructor.clone(),
            args: args.iter().map(|e| f(*e)).collect::<Option<_>>()?,
        },
        Statement::Call {
            method,
            receiver,
            args,
        } => Statement::Call {
            method: method.clone(),
            receiver: match receiver {
                Some(r) => Some(f(*r)?),
                None => None,
            },
            args: args.iter().map(|e| f(*e)).collect::<Option<_>>()?,
        },
        Statement::FieldWrite {
            field,
            receiver,
            value,
        } => Statement::FieldWrite {
            field: field.clone(),
            receiver: match receiver {
                Some(r) => Some(f(*r)?),
                None => None,
            },
            value: f(*value)?,
        },
    })
}

impl TypedTest {
    pub fn new() -> TypedTest {
        TypedTest::default()
    }

    pub fn len(&self) -> usize {
        self.test.len()
    }

    pub fn is_empty(&self) -> bool {
        self.test.is_empty()
    }

    pub fn statements(&self) -> &[Statement] {
        &self.test.statements
    }

    pub fn push(&mut self, s: Statement, ty: Option<JType>) -> StatementId {
        self.types.push(ty);
        self.test.push(s)
    }

    /// The type the test casts statement `i`'s result to where it assigns it: variables are
    /// declared with erased types, so a call whose erased return type differs from its
    /// variable's (`Object` from `V get(Object)` into a `String`) is cast to the variable's
    /// erased type. None for other statements, and for results assigned as they are.
    pub fn result_cast(&self, i: usize) -> Option<JType> {
        let Some(Statement::Call { method, .. }) = self.test.statements.get(i) else {
            return None;
        };
        let declared = self.types.get(i)?.as_ref()?.erased();
        let returned = JType::from_descriptor(method.descriptor.rsplit(')').next()?)?;
        (returned.is_reference() && declared.is_reference() && returned.erased() != declared)
            .then_some(declared)
    }

    /// The statements that use `id`, directly or not (ascending, `id` excluded).
    pub fn dependents(&self, id: usize) -> Vec<usize> {
        let mut dead = vec![false; self.len()];
        if id < dead.len() {
            dead[id] = true;
        }
        let mut out = Vec::new();
        for (i, s) in self.test.statements.iter().enumerate().skip(id + 1) {
            if s.uses()
                .iter()
                .any(|u| dead.get(u.0 as usize).copied().unwrap_or(false))
            {
                dead[i] = true;
                out.push(i);
            }
        }
        out
    }

    /// Removes the statements in `ids` and all statements that depend on them.
    pub fn remove_with_dependents(&mut self, ids: &[usize]) {
        let n = self.len();
        let mut dead = vec![false; n];
        for &i in ids {
            if i < n {
                dead[i] = true;
            }
        }
        for i in 0..n {
            if !dead[i]
                && self.test.statements[i]
                    .uses()
                    .iter()
                    .any(|u| dead.get(u.0 as usize).copied().unwrap_or(true))
            {
                dead[i] = true;
            }
        }
        self.retain(&dead.iter().map(|d| !d).collect::<Vec<_>>());
    }

    /// Keeps the statements whose flag is set (the caller guarantees that no kept statement
    /// uses a dropped one; such statements are dropped too).
    pub fn retain(&mut self, keep: &[bool]) {
        let mut map: Vec<Option<StatementId>> = vec![None; self.len()];
        let mut out = TypedTest::new();
        for (i, s) in self.test.statements.iter().enumerate() {
            if !keep.get(i).copied().unwrap_or(false) {
                continue;
            }
            let f = |u: StatementId| map.get(u.0 as usize).copied().flatten();
            if let Some(s) = remap(s, &f) {
                map[i] = Some(out.push(s, self.types[i].clone()));
            }
        }
        *self = out;
    }

    /// Inserts at `pos` the statements `build` appends to the prefix `[0, pos)`; the
    /// statements from `pos` on follow, their references shifted. Returns how many were added.
    pub fn insert_at(&mut self, pos: usize, build: impl FnOnce(&mut TypedTest)) -> usize {
        let pos = pos.min(self.len());
        let mut prefix = TypedTest {
            test: TestCase {
                statements: self.test.statements[..pos].to_vec(),
            },
            types: self.types[..pos].to_vec(),
        };
        build(&mut prefix);
        let added = prefix.len() - pos;
        let shift = |u: StatementId| {
            Some(if (u.0 as usize) < pos {
                u
            } else {
                StatementId(u.0 + added as u32)
            })
        };
        for i in pos..self.len() {
            if let Some(s) = remap(&self.test.statements[i], &shift) {
                prefix.push(s, self.types[i].clone());
            }
        }
        *self = prefix;
        added
    }

    /// Replaces uses of `old` by `new` in the statements after `new`.
    pub fn replace_uses(&mut self, old: StatementId, new: StatementId) {
        for i in (new.0 as usize + 1)..self.len() {
            let f = |u: StatementId| Some(if u == old { new } else { u });
            if let Some(s) = remap(&self.test.statements[i], &f) {
                self.test.statements[i] = s;
            }
        }
    }

    /// Inserts a copy of statement `i` (same operands) right after it; false when there is
    /// no statement `i`.
    pub fn repeat(&mut self, i: usize) -> bool {
        let (Some(s), Some(ty)) = (self.test.statements.get(i), self.types.get(i)) else {
            return false;
        };
        let (s, ty) = (s.clone(), ty.clone());
        self.insert_at(i + 1, |prefix| {
            prefix.push(s, ty);
        }) > 0
    }

    /// Statements before `before` producing a value (the emitter will declare them).
    pub fn values_before(&self, before: usize) -> impl Iterator<Item = (usize, &JType)> {
        self.types
            .iter()
            .take(before)
            .enumerate()
            .filter_map(|(i, t)| t.as_ref().map(|t| (i, t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MemberRef, PrimitiveValue};

    fn sample() -> TypedTest {
        let mut t = TypedTest::new();
        let list = t.push(
            Statement::Construct {
                constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
                args: vec![],
            },
            Some(JType::class("java/util/ArrayList")),
        );
        let one = t.push(
            Statement::Primitive(PrimitiveValue::Int(1)),
            Some(JType::class("java/lang/Integer")),
        );
        t.push(
            Statement::Call {
                method: MemberRef::new("java/util/ArrayList", "add", "(Ljava/lang/Object;)Z"),
                receiver: Some(list),
                args: vec![one],
            },
            Some(JType::Prim(crate::types::Prim::Boolean)),
        );
        t
    }

    #[test]
    fn a_generic_result_is_cast_to_its_variables_type_only() {
        let mut t = sample();
        let list = StatementId(0);
        let get = |descriptor: &str| Statement::Call {
            method: MemberRef::new("java/util/ArrayList", "get", descriptor),
            receiver: Some(list),
            args: vec![StatementId(1)],
        };
        let string = Some(JType::class("java/lang/String"));
        t.push(get("(I)Ljava/lang/Object;"), string.clone());
        t.push(get("(I)Ljava/lang/String;"), string.clone());
        t.push(get("(I)Ljava/lang/Object;"), Some(JType::object()));
        assert_eq!(t.result_cast(3), string);
        assert_eq!(t.result_cast(4), None, "the same type needs no cast");
        assert_eq!(t.result_cast(5), None);
        assert_eq!(t.result_cast(2), None, "a primitive result is not cast");
        assert_eq!(t.result_cast(0), None, "a constructor is not cast");
    }

    #[test]
    fn a_repeated_call_follows_the_original_with_the_same_operands() {
        let mut t = sample();
        // A later statement that uses the call's result shifts past the copy.
        t.push(
            Statement::Array {
                component: "Z".into(),
                elements: vec![StatementId(2)],
            },
            Some(JType::class("[Z")),
        );
        assert!(t.repeat(2));
        assert_eq!(t.len(), 5);
        assert_eq!(t.statements()[3], t.statements()[2]);
        assert_eq!(
            t.statements()[4],
            Statement::Array {
                component: "Z".into(),
                elements: vec![StatementId(2)],
            }
        );
        assert_eq!(t.types[3], t.types[2]);
        assert!(t.test.validate().is_ok());
        assert!(!t.repeat(5));
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn removal_takes_dependents_and_insertion_shifts() {
        let mut t = sample();
        assert_eq!(t.dependents(1), vec![2]);
        t.remove_with_dependents(&[1]);
        assert_eq!(t.len(), 1);
        assert!(t.test.validate().is_ok());

        let mut t = sample();
        let added = t.insert_at(1, |p| {
            p.push(
                Statement::String("x".into()),
                Some(JType::class("java/lang/String")),
            );
        });
        assert_eq!(added, 1);
        assert_eq!(t.len(), 4);
        assert!(t.test.validate().is_ok());
        match &t.statements()[3] {
            Statement::Call { receiver, args, .. } => {
                assert_eq!(*receiver, Some(StatementId(0)));
                assert_eq!(args, &vec![StatementId(2)]);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
