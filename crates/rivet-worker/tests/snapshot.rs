//! The worker snapshots the objects a test built at calls of target methods, on a real JVM:
//! the receiver's own data read through private fields as it was at the call, objects of
//! other packages listed unread, aliases sharing their id, bounds marking a snapshot
//! truncated, at most the asked number of calls per test (a sample of its calls, in call
//! order); nothing without a spec.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use rivet_testcase::{
    Executor, HeapSnapshot, MemberRef, ObservationSpec, ObservedValue, PrimitiveValue,
    SnapshotObject, SnapshotSpec,
};
use support::Builder;

const LIST: &str = "structures/NodeCachingList";

fn spec(max_objects: u32, max_per_test: u32) -> ObservationSpec {
    ObservationSpec {
        targets: Vec::new(),
        trace: false,
        snapshot: Some(SnapshotSpec {
            members: vec![MemberRef::new(LIST, "removeAt", "(I)I")],
            packages: vec!["structures".into()],
            max_objects,
            max_depth: 40,
            max_per_test,
        }),
    }
}

fn object<'a>(s: &'a HeapSnapshot, v: Option<&ObservedValue>) -> &'a SnapshotObject {
    v.and_then(|v| s.object(v))
        .map(|(_, o)| o)
        .unwrap_or_else(|| panic!("an object of the snapshot: {v:?}"))
}

fn id(v: Option<&ObservedValue>) -> u32 {
    match v {
        Some(ObservedValue::Object { id, .. }) => *id,
        other => panic!("an object: {other:?}"),
    }
}

#[test]
fn calls_of_targets_snapshot_the_reachable_own_data() {
    let mut pool = support::pool(1, Duration::from_secs(10));
    // list = new NodeCachingList(); list.addLast(5); list.addLast(6); list.removeAt(0);
    // list.removeAt(0); list.removeAt(0) (throws: empty)
    let mut b = Builder::new();
    let list = b.new_object(LIST, "()V", &[]);
    let five = b.prim(PrimitiveValue::Int(5));
    let six = b.prim(PrimitiveValue::Int(6));
    b.call(LIST, "addLast", "(I)V", Some(list), &[five]);
    b.call(LIST, "addLast", "(I)V", Some(list), &[six]);
    let zero = b.prim(PrimitiveValue::Int(0));
    b.call(LIST, "removeAt", "(I)I", Some(list), &[zero]);
    b.call(LIST, "removeAt", "(I)I", Some(list), &[zero]);
    b.call(LIST, "removeAt", "(I)I", Some(list), &[zero]);
    let test = b.build();

    pool.set_observation(&spec(64, 3));
    let runs = pool.execute(std::slice::from_ref(&test));
    let e = &runs[0];
    assert_eq!(e.snapshots.len(), 3, "{:?}", e.snapshots);
    let (s1, s2) = (&e.snapshots[0], &e.snapshots[1]);
    assert_eq!(
        (s1.statement, s2.statement, e.snapshots[2].statement),
        (6, 7, 8)
    );
    assert_eq!(s1.arguments, vec![ObservedValue::Int(0)]);
    assert!(!s1.truncated);
    // At the first removal: size 2, a circular list through the header, back pointers.
    let l = object(s1, s1.receiver.as_ref());
    assert_eq!(&*l.class.name, "structures.NodeCachingList");
    assert_eq!(l.field("size"), Some(&ObservedValue::Int(2)));
    assert_eq!(l.field("cacheSize"), Some(&ObservedValue::Int(0)));
    assert_eq!(l.field("firstCached"), Some(&ObservedValue::Null));
    let header = object(s1, l.field("header"));
    let n1 = object(s1, header.field("next"));
    assert_eq!(n1.field("value"), Some(&ObservedValue::Int(5)));
    assert_eq!(id(n1.field("previous")), id(l.field("header")));
    let n2 = object(s1, n1.field("next"));
    assert_eq!(n2.field("value"), Some(&ObservedValue::Int(6)));
    assert_eq!(id(n2.field("next")), id(l.field("header")));
    let value = l.class.fields.iter().find(|f| &*f.name == "size").unwrap();
    assert!(value.is_integer() && !value.is_reference());
    assert_eq!(&*value.owner, "structures.NodeCachingList");
    // At the second, as the first removal left it: one node, one cached.
    let l = object(s2, s2.receiver.as_ref());
    assert_eq!(l.field("size"), Some(&ObservedValue::Int(1)));
    assert_eq!(l.field("cacheSize"), Some(&ObservedValue::Int(1)));
    let cached = object(s2, l.field("firstCached"));
    assert_eq!(cached.field("previous"), Some(&ObservedValue::Null));
    assert_eq!(cached.field("value"), Some(&ObservedValue::Int(5)));

    // Two of the three calls, in call order, the same two every time.
    pool.set_observation(&spec(64, 2));
    let sample = |pool: &mut rivet_worker::WorkerPool| -> Vec<u32> {
        let runs = pool.execute(std::slice::from_ref(&test));
        runs[0].snapshots.iter().map(|s| s.statement).collect()
    };
    let first = sample(&mut pool);
    assert_eq!(first.len(), 2);
    assert!(first[0] < first[1] && first.iter().all(|s| (6..=8).contains(s)));
    assert_eq!(sample(&mut pool), first);

    // A bound of two objects: the rest listed unread, the snapshot truncated.
    pool.set_observation(&spec(2, 1));
    let runs = pool.execute(std::slice::from_ref(&test));
    let s = &runs[0].snapshots;
    assert_eq!(s.len(), 1);
    assert!(s[0].truncated);
    let read = s[0].objects.values().filter(|o| o.values.is_some()).count();
    assert_eq!(read, 2);
    assert!(s[0].objects.len() > 2);

    // Without a spec, nothing.
    pool.set_observation(&ObservationSpec::default());
    let runs = pool.execute(std::slice::from_ref(&test));
    assert!(runs[0].snapshots.is_empty());
}
