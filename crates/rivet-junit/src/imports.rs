//! The classes a test class names (for its imports), and the parameter types of a method
//! descriptor.

use std::collections::BTreeSet;

use rivet_testcase::{Assertion, GeneratedTest, JType, MemberRef, Statement};

use crate::java::{classes_of, top_level};

pub(crate) fn collect_classes(g: &GeneratedTest, used: &mut BTreeSet<String>) {
    for ty in g.test.types.iter().flatten() {
        classes_of(&ty.erased(), used);
    }
    for s in g.test.statements() {
        match s {
            Statement::Construct { constructor: m, .. }
            | Statement::Call {
                method: m,
                receiver: None,
                ..
            } => {
                used.insert(top_level(m.owner.internal()).to_string());
                collect_param_classes(m, used);
            }
            Statement::Call { method: m, .. } => collect_param_classes(m, used),
            Statement::FieldWrite {
                field,
                receiver: None,
                ..
            } => {
                used.insert(top_level(field.owner.internal()).to_string());
            }
            Statement::Array { component, .. } => {
                if let Some(t) = JType::from_descriptor(component) {
                    classes_of(&t, used);
                }
            }
            Statement::Null { descriptor } | Statement::ClassLiteral { descriptor } => {
                if let Some(t) = JType::from_descriptor(descriptor) {
                    classes_of(&t, used);
                }
            }
            Statement::Lambda { interface, .. } => {
                used.insert(top_level(interface.internal()).to_string());
            }
            Statement::Constant { field } => {
                used.insert(top_level(field.owner.internal()).to_string());
            }
            _ => {}
        }
    }
    for a in &g.assertions {
        if let Assertion::Throws { class, .. } = a {
            used.insert(top_level(class.internal()).to_string());
        }
    }
}

fn collect_param_classes(m: &MemberRef, used: &mut BTreeSet<String>) {
    if let Ok(d) = rivet_classfile_descriptor(&m.descriptor) {
        for p in d {
            classes_of(&p, used);
        }
    }
}

/// Parameter types of a method descriptor.
pub(crate) fn rivet_classfile_descriptor(descriptor: &str) -> Result<Vec<JType>, ()> {
    let inner = descriptor
        .strip_prefix('(')
        .and_then(|d| d.split_once(')'))
        .map(|(p, _)| p)
        .ok_or(())?;
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let len = field_len(rest).ok_or(())?;
        out.push(JType::from_descriptor(&rest[..len]).ok_or(())?);
        rest = &rest[len..];
    }
    Ok(out)
}

fn field_len(s: &str) -> Option<usize> {
    match s.as_bytes().first()? {
        b'[' => Some(1 + field_len(&s[1..])?),
        b'L' => Some(s.find(';')? + 1),
        _ => Some(1),
    }
}
