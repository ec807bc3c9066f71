//! Round trips of the snapshot parts: a batch's snapshot spec and a result's snapshots read
//! back as written; snapshots are named by the spec their batch was sent with; the Java side
//! uses the same tags.

use std::sync::Arc;

use rivet_testcase::{
    MemberRef, ObservationSpec, ObservedValue, SnapshotClass, SnapshotField, SnapshotSpec,
    Statement, StatementId, TestCase,
};

use super::{snapshots, tag, RawObject, RawSnapshot, RawSnapshots, RawValue};
use crate::protocol::{
    decode_request, decode_response, encode_batch_observing, encode_response, BatchId, Request,
    Response, TestResult,
};

fn member() -> MemberRef {
    MemberRef::new("structures/NodeCachingList", "removeAt", "(I)I")
}

fn spec() -> ObservationSpec {
    ObservationSpec {
        targets: Vec::new(),
        trace: false,
        snapshot: Some(SnapshotSpec {
            members: vec![member()],
            packages: vec!["structures".into()],
            max_objects: 64,
            max_depth: 40,
            max_per_test: 2,
        }),
    }
}

fn node_class() -> Arc<SnapshotClass> {
    let field = |name: &str, descriptor: &str| SnapshotField {
        owner: "structures.NodeCachingList$Node".into(),
        name: name.into(),
        descriptor: descriptor.into(),
    };
    Arc::new(SnapshotClass {
        name: "structures.NodeCachingList$Node".into(),
        fields: vec![
            field("value", "I"),
            field("next", "Lstructures/NodeCachingList$Node;"),
        ],
    })
}

/// Two nodes pointing at each other, the first the receiver, the call's argument 7.
fn raw() -> RawSnapshots {
    RawSnapshots {
        classes: vec![node_class()],
        snapshots: vec![RawSnapshot {
            statement: 4,
            target: 0,
            receiver: Some(RawValue::Object(1)),
            arguments: vec![RawValue::Int(7)],
            objects: vec![
                RawObject {
                    id: 1,
                    class: 0,
                    values: Some(vec![RawValue::Int(-3), RawValue::Object(2)]),
                },
                RawObject {
                    id: 2,
                    class: 0,
                    values: None,
                },
            ],
            truncated: true,
        }],
    }
}

#[test]
fn a_batch_carries_its_snapshot_spec() {
    let mut t = TestCase::new();
    t.statements.push(Statement::Null {
        descriptor: "Lstructures/NodeCachingList;".into(),
    });
    t.statements.push(Statement::Call {
        method: MemberRef::new("structures/NodeCachingList", "size", "()I"),
        receiver: Some(StatementId(0)),
        args: vec![],
    });
    let s = spec();
    assert!(!s.is_empty());
    let frame = encode_batch_observing(BatchId(1), [&t], &s).unwrap_or_default();
    let Ok(Request::Batch { observation, .. }) = decode_request(&frame[4..]) else {
        panic!("decodes");
    };
    assert_eq!(observation, s);
}

#[test]
fn a_result_carries_its_snapshots() {
    let result = TestResult {
        batch: BatchId(1),
        index: 0,
        duration_ns: 5,
        stray_threads: 0,
        outcomes: Vec::new(),
        probes: Vec::new(),
        seeds: Vec::new(),
        observed: Vec::new(),
        snapshots: raw(),
    };
    let frame = encode_response(&Response::Result(result.clone())).unwrap_or_default();
    let Ok(Response::Result(back)) = decode_response(&frame[4..]) else {
        panic!("decodes");
    };
    assert_eq!(back, result);
}

#[test]
fn snapshots_are_named_by_their_spec() {
    let named = snapshots(raw(), &spec());
    assert_eq!(named.len(), 1);
    let s = &named[0];
    assert_eq!(s.member, member());
    assert_eq!(s.statement, 4);
    assert!(s.truncated);
    assert_eq!(s.arguments, vec![ObservedValue::Int(7)]);
    let (id, receiver) = s
        .receiver
        .as_ref()
        .and_then(|r| s.object(r))
        .unwrap_or_else(|| panic!("the receiver is an object of the snapshot"));
    assert_eq!(id, 1);
    assert_eq!(receiver.field("value"), Some(&ObservedValue::Int(-3)));
    let next = receiver.field("next").cloned();
    assert_eq!(
        next,
        Some(ObservedValue::Object {
            id: 2,
            class: "structures.NodeCachingList$Node".into()
        })
    );
    assert!(s.objects.get(&2).is_some_and(|o| o.values.is_none()));
    // Without a snapshot spec, or for an unknown target, nothing.
    assert!(snapshots(raw(), &ObservationSpec::default()).is_empty());
    let mut unknown = raw();
    unknown.snapshots[0].target = 3;
    assert!(snapshots(unknown, &spec()).is_empty());
    // A reference to an object the snapshot does not list drops the snapshot.
    let mut dangling = raw();
    dangling.snapshots[0].arguments = vec![RawValue::Object(9)];
    assert!(snapshots(dangling, &spec()).is_empty());
}

#[test]
fn java_and_rust_agree_on_the_snapshot_tags() {
    let java =
        super::super::tests::constants_of(include_str!("../java/rivet/worker/Snapshots.java"));
    for (name, rust) in [
        ("V_UNDEFINED", tag::V_UNDEFINED),
        ("V_NULL", tag::V_NULL),
        ("V_INT", tag::V_INT),
        ("V_OBJECT", tag::V_OBJECT),
        ("V_FLOAT", tag::V_FLOAT),
        ("V_DOUBLE", tag::V_DOUBLE),
    ] {
        assert_eq!(
            java.get(name),
            Some(&i64::from(rust)),
            "Snapshots.{name} differs"
        );
    }
    let observer =
        super::super::tests::constants_of(include_str!("../java/rivet/worker/Observer.java"));
    assert_eq!(
        observer.get("FLAG_SNAPSHOT"),
        Some(&i64::from(super::FLAG_SNAPSHOT))
    );
}
