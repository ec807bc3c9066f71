//! Test names that say what the test shows: the call it is about, what that call did, and
//! what about its arguments tells this test from the others
//! (`checkedCast_throwsIllegalArgumentException_forNegative`,
//! `indexOf_returnsMinusOne_forEmptyArray`). The emitter makes them unique.

use rivet_testcase::{
    Assertion, ClassName, PrimitiveValue, Statement, StatementId, TypedTest, ValueSummary,
};

use crate::emit::TestSource;

/// The name of a test (before it is made unique in its class).
pub(crate) fn descriptive_name(t: &TestSource, cut: &str) -> String {
    let g = &t.generated;
    let statements = g.test.statements();
    let thrown = g.assertions.iter().find_map(|a| match a {
        Assertion::Throws { at, class, .. } => Some((*at, class)),
        _ => None,
    });
    // The call the test is about: the one that throws, else the last call on the class.
    let shown = thrown.map(|(at, _)| at.0 as usize).or_else(|| {
        statements.iter().rposition(|s| match s {
            Statement::Call { method, .. } => method.owner.internal() == cut,
            Statement::Construct { constructor, .. } => constructor.owner.internal() == cut,
            _ => false,
        })
    });
    let Some(k) = shown else {
        return format!("test{}", crate::java::method_part(&t.subject));
    };
    let (subject, args) = match &statements[k] {
        Statement::Call { method, args, .. } => (lower_camel(&method.name), args.as_slice()),
        Statement::Construct { constructor, args } => (
            format!(
                "new{}",
                ClassName::from_internal(constructor.owner.internal())
                    .simple()
                    .rsplit('$')
                    .next()
                    .unwrap_or_default()
            ),
            args.as_slice(),
        ),
        _ => (lower_camel(&t.subject), &[][..]),
    };
    let outcome = match thrown {
        Some((_, class)) => Some(format!(
            "throws{}",
            class.simple().rsplit('$').next().unwrap_or_default()
        )),
        None => g.assertions.iter().find_map(|a| match a {
            Assertion::Equals { of, value } if of.0 as usize == k => returns(value),
            _ => None,
        }),
    };
    let condition = condition(&g.test, args);
    let mut name = identifier(&subject);
    for part in [outcome, condition].into_iter().flatten() {
        name.push('_');
        name.push_str(&part);
    }
    if clashes(&name) {
        return format!("test{}", crate::java::method_part(&name));
    }
    name
}

/// A test method with this name would not compile or would hide what the test calls: one of
/// `Object`'s methods, or a name that shadows JUnit's statically imported assertions.
fn clashes(name: &str) -> bool {
    const OBJECT: [&str; 9] = [
        "equals",
        "hashCode",
        "toString",
        "getClass",
        "notify",
        "notifyAll",
        "wait",
        "clone",
        "finalize",
    ];
    OBJECT.contains(&name) || name.starts_with("assert") || name == "fail"
}

/// `returnsTrue`, `returnsMinusOne`, `returnsNull` …
fn returns(v: &ValueSummary) -> Option<String> {
    let number = match v {
        ValueSummary::Byte(x) => Some(i64::from(*x)),
        ValueSummary::Short(x) => Some(i64::from(*x)),
        ValueSummary::Char(x) => Some(i64::from(*x)),
        ValueSummary::Int(x) => Some(i64::from(*x)),
        ValueSummary::Long(x) => Some(*x),
        ValueSummary::Float(x) if x.fract() == 0.0 && x.abs() < 1e9 => Some(*x as i64),
        ValueSummary::Double(x) if x.fract() == 0.0 && x.abs() < 1e9 => Some(*x as i64),
        _ => None,
    };
    Some(match (v, number) {
        (_, Some(0)) => "returnsZero".into(),
        (_, Some(1)) => "returnsOne".into(),
        (_, Some(-1)) => "returnsMinusOne".into(),
        (_, Some(n)) if n < 0 => "returnsNegative".into(),
        (_, Some(_)) => "returnsPositive".into(),
        (ValueSummary::Boolean(true), _) => "returnsTrue".into(),
        (ValueSummary::Boolean(false), _) => "returnsFalse".into(),
        (ValueSummary::Null, _) => "returnsNull".into(),
        (ValueSummary::String(s), _) if s.is_empty() => "returnsEmptyString".into(),
        (ValueSummary::Float(x), _) if x.is_nan() => "returnsNaN".into(),
        (ValueSummary::Double(x), _) if x.is_nan() => "returnsNaN".into(),
        _ => return None,
    })
}

/// What about the call's arguments sets this test apart: a null, an empty string or array,
/// a negative or zero number (the first such argument).
fn condition(test: &TypedTest, args: &[StatementId]) -> Option<String> {
    let statements = test.statements();
    args.iter()
        .find_map(|a| match statements.get(a.0 as usize)? {
            Statement::Null { .. } => Some("forNull".into()),
            Statement::String(s) if s.is_empty() => Some("forEmptyString".into()),
            Statement::Array { elements, .. } if elements.is_empty() => {
                Some("forEmptyArray".into())
            }
            Statement::Primitive(p) => match p {
                PrimitiveValue::Int(x) if *x < 0 => Some("forNegative".into()),
                PrimitiveValue::Long(x) if *x < 0 => Some("forNegative".into()),
                PrimitiveValue::Int(0) | PrimitiveValue::Long(0) => Some("forZero".into()),
                _ => None,
            },
            _ => None,
        })
}

fn lower_camel(name: &str) -> String {
    let part = crate::java::method_part(name);
    let mut c = part.chars();
    match c.next() {
        Some(f) => f.to_ascii_lowercase().to_string() + c.as_str(),
        None => "method".into(),
    }
}

/// Only ASCII letters, digits and underscores, not starting with a digit.
fn identifier(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if cleaned.chars().next().is_none_or(|c| c.is_ascii_digit()) {
        format!("test{cleaned}")
    } else {
        cleaned
    }
}
