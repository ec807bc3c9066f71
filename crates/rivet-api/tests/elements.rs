//! Which values of a test are a collection's elements, and which calls look one up.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use rivet_api::ApiModel;
use rivet_testcase::{JType, MemberRef, Statement, StatementId, TypedTest};

fn model() -> ApiModel {
    common::model_on(
        vec![rivet_testkit::compiled_subjects(11)],
        "sushi.Scheduler",
    )
}

fn call(
    t: &mut TypedTest,
    owner: &str,
    name: &str,
    descriptor: &str,
    receiver: StatementId,
    args: Vec<StatementId>,
    ty: &str,
) -> StatementId {
    t.push(
        Statement::Call {
            method: MemberRef::new(owner, name, descriptor),
            receiver: Some(receiver),
            args,
        },
        Some(JType::from_descriptor(ty).unwrap()),
    )
}

fn string(t: &mut TypedTest, s: &str) -> StatementId {
    t.push(
        Statement::String(s.into()),
        Some(JType::class("java/lang/String")),
    )
}

#[test]
fn a_collections_elements_are_what_it_stored_and_handed_back_and_lookups_are_told() {
    let model = model();
    let mut t = TypedTest::new();
    let list = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class("java/util/ArrayList")),
    );
    let stored = string(&mut t, "stored");
    let list_ty = "java/util/ArrayList";
    call(
        &mut t,
        list_ty,
        "add",
        "(Ljava/lang/Object;)Z",
        list,
        vec![stored],
        "Z",
    );
    let iterator = call(
        &mut t,
        list_ty,
        "iterator",
        "()Ljava/util/Iterator;",
        list,
        vec![],
        "Ljava/util/Iterator;",
    );
    let next = call(
        &mut t,
        "java/util/Iterator",
        "next",
        "()Ljava/lang/Object;",
        iterator,
        vec![],
        "Ljava/lang/Object;",
    );
    let other = string(&mut t, "other");
    let lookup = call(
        &mut t,
        list_ty,
        "contains",
        "(Ljava/lang/Object;)Z",
        list,
        vec![other],
        "Z",
    );
    // A call of the same name on a value that holds no elements is no lookup.
    let text_contains = call(
        &mut t,
        "java/lang/String",
        "contains",
        "(Ljava/lang/CharSequence;)Z",
        other,
        vec![stored],
        "Z",
    );

    let elements = model.element_values(&t, t.len(), list.0 as usize);
    assert_eq!(
        elements,
        vec![stored.0 as usize, next.0 as usize],
        "{:?}",
        t.statements()
    );
    // Only what came before counts.
    assert_eq!(
        model.element_values(&t, next.0 as usize, list.0 as usize),
        vec![stored.0 as usize]
    );
    // Another collection's elements are not this one's.
    let other_list = t.push(
        Statement::Construct {
            constructor: MemberRef::new("java/util/ArrayList", "<init>", "()V"),
            args: vec![],
        },
        Some(JType::class("java/util/ArrayList")),
    );
    call(
        &mut t,
        list_ty,
        "add",
        "(Ljava/lang/Object;)Z",
        other_list,
        vec![other],
        "Z",
    );
    assert_eq!(
        model.element_values(&t, t.len(), other_list.0 as usize),
        vec![other.0 as usize]
    );
    assert_eq!(model.element_values(&t, t.len(), list.0 as usize), elements);
    assert_eq!(
        model.lookup_in(&t, lookup.0 as usize),
        Some(list.0 as usize)
    );
    assert_eq!(model.lookup_in(&t, text_contains.0 as usize), None);
    assert_eq!(model.lookup_in(&t, iterator.0 as usize), None);
}
