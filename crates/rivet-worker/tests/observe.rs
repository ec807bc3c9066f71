//! The worker observes values along access paths at each call of a target method, on a real
//! JVM: receiver and argument fields (private ones too, also of java.util classes), lengths,
//! paths through null, null values, object identities shared by aliases; and nothing when no
//! observation is asked for.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use rivet_testcase::{
    Executor, MemberRef, Observation, ObservationSpec, ObservedPath, ObservedRoot, ObservedStep,
    ObservedValue,
};
use support::Builder;

fn path(root: ObservedRoot, steps: &[ObservedStep]) -> ObservedPath {
    ObservedPath {
        root,
        steps: steps.to_vec(),
    }
}

fn field(name: &str) -> ObservedStep {
    ObservedStep::Field(name.into())
}

const LIST: &str = "java/util/LinkedList";
const ADD: &str = "(Ljava/lang/Object;)Z";

#[test]
fn calls_of_the_target_report_the_values_along_each_path() {
    let mut pool = support::pool(1, Duration::from_secs(10));
    // list = new LinkedList(); list.add("a"); list.add(list); list.add(null)
    let mut b = Builder::new();
    let list = b.new_object(LIST, "()V", &[]);
    let a = b.string("a");
    b.call(LIST, "add", ADD, Some(list), &[a]);
    b.call(LIST, "add", ADD, Some(list), &[list]);
    let null = b.null("Ljava/lang/Object;");
    b.call(LIST, "add", ADD, Some(list), &[null]);
    let test = b.build();

    let size = path(ObservedRoot::Receiver, &[field("size")]);
    let first_item = path(ObservedRoot::Receiver, &[field("first"), field("item")]);
    let last_next = path(ObservedRoot::Receiver, &[field("last"), field("next")]);
    let through_null = path(
        ObservedRoot::Receiver,
        &[field("last"), field("next"), field("item")],
    );
    let obj = path(ObservedRoot::Argument(0), &[]);
    let receiver = path(ObservedRoot::Receiver, &[]);
    let no_such = path(ObservedRoot::Receiver, &[field("nothing")]);
    let length = path(ObservedRoot::Argument(0), &[ObservedStep::Length]);
    let spec = ObservationSpec {
        targets: vec![Observation {
            member: MemberRef::new(LIST, "add", ADD),
            paths: vec![
                size.clone(),
                first_item.clone(),
                last_next.clone(),
                through_null.clone(),
                obj.clone(),
                receiver.clone(),
                no_such.clone(),
                length.clone(),
            ],
        }],
        trace: false,
        snapshot: None,
    };
    pool.set_observation(&spec);
    let runs = pool.execute(std::slice::from_ref(&test));
    let e = &runs[0];
    assert!(e.is_completed(), "{:?}", e.status);
    assert_eq!(e.observations.len(), 3, "{:?}", e.observations);
    let (c1, c2, c3) = (&e.observations[0], &e.observations[1], &e.observations[2]);
    assert_eq!((c1.statement, c2.statement, c3.statement), (2, 3, 5));
    // LinkedList's private fields are read (java.util is opened to the harness), at the
    // entry of each call.
    assert_eq!(c1.value(&size), &ObservedValue::Int(0));
    assert_eq!(c2.value(&size), &ObservedValue::Int(1));
    assert_eq!(c3.value(&size), &ObservedValue::Int(2));
    assert_eq!(c1.value(&first_item), &ObservedValue::Undefined);
    let ObservedValue::Object { class, .. } = c2.value(&first_item) else {
        panic!("first.item is the string: {:?}", c2.value(&first_item));
    };
    assert_eq!(&**class, "java.lang.String");
    assert_eq!(c2.value(&last_next), &ObservedValue::Null);
    assert_eq!(c2.value(&through_null), &ObservedValue::Undefined);
    // In call 2 the argument is the receiver itself: the same identity.
    assert_eq!(c2.value(&obj), c2.value(&receiver));
    assert!(matches!(c2.value(&obj), ObservedValue::Object { .. }));
    assert_ne!(c1.value(&obj), c1.value(&receiver));
    assert_eq!(c3.value(&obj), &ObservedValue::Null);
    assert_eq!(c1.value(&no_such), &ObservedValue::Undefined);
    assert_eq!(c1.value(&length), &ObservedValue::Undefined);

    // Without a spec, nothing is observed.
    pool.set_observation(&ObservationSpec::default());
    let runs = pool.execute(std::slice::from_ref(&test));
    assert!(runs[0].is_completed());
    assert!(runs[0].observations.is_empty());
}

const GAUGE: &str = "fixtures/Gauge";
const FIX: &str = "geometry/Fix";

#[test]
fn floats_and_doubles_arrive_with_their_exact_bits() {
    use rivet_testcase::PrimitiveValue;
    let mut pool = support::pool(1, Duration::from_secs(10));
    // new Gauge(-0.0f, 0.1).read(); new Gauge(NaN, 1e-310).read();
    // new Fix("A", 12.5, -3.0).getX(); Values.aFloat(0.1f)
    let mut b = Builder::new();
    let neg_zero = b.prim(PrimitiveValue::Float(-0.0));
    let tenth = b.prim(PrimitiveValue::Double(0.1));
    let g1 = b.new_object(GAUGE, "(FD)V", &[neg_zero, tenth]);
    b.call(GAUGE, "read", "()D", Some(g1), &[]);
    let nan = b.prim(PrimitiveValue::Float(f32::NAN));
    let subnormal = b.prim(PrimitiveValue::Double(1e-310));
    let g2 = b.new_object(GAUGE, "(FD)V", &[nan, subnormal]);
    b.call(GAUGE, "read", "()D", Some(g2), &[]);
    let name = b.string("A");
    let x = b.prim(PrimitiveValue::Double(12.5));
    let y = b.prim(PrimitiveValue::Double(-3.0));
    let fix = b.new_object(FIX, "(Ljava/lang/String;DD)V", &[name, x, y]);
    b.call(FIX, "getX", "()D", Some(fix), &[]);
    let f = b.prim(PrimitiveValue::Float(0.1));
    b.values("aFloat", "(F)F", &[f]);
    let test = b.build();

    let ratio = path(ObservedRoot::Receiver, &[field("ratio")]);
    let level = path(ObservedRoot::Receiver, &[field("level")]);
    let fix_x = path(ObservedRoot::Receiver, &[field("x")]);
    let arg = path(ObservedRoot::Argument(0), &[]);
    let spec = ObservationSpec {
        targets: vec![
            Observation {
                member: MemberRef::new(GAUGE, "read", "()D"),
                paths: vec![ratio.clone(), level.clone()],
            },
            Observation {
                member: MemberRef::new(FIX, "getX", "()D"),
                paths: vec![fix_x.clone()],
            },
            Observation {
                member: MemberRef::new("fixtures/Values", "aFloat", "(F)F"),
                paths: vec![arg.clone()],
            },
        ],
        trace: false,
        snapshot: None,
    };
    pool.set_observation(&spec);
    let runs = pool.execute(std::slice::from_ref(&test));
    let e = &runs[0];
    assert!(e.is_completed(), "{:?}", e.status);
    assert_eq!(e.observations.len(), 4, "{:?}", e.observations);
    let [c1, c2, c3, c4] = [0, 1, 2, 3].map(|i| &e.observations[i]);
    // A float field arrives as a float (its own 32 bits, not widened), a double as a double.
    assert_eq!(c1.value(&ratio), &ObservedValue::Float(0x8000_0000));
    assert_eq!(c1.value(&level), &ObservedValue::Double(0.1f64.to_bits()));
    let ObservedValue::Float(bits) = c2.value(&ratio) else {
        panic!("a float: {:?}", c2.value(&ratio));
    };
    assert!(f32::from_bits(*bits).is_nan());
    assert_eq!(c2.value(&level), &ObservedValue::double(1e-310));
    assert_eq!(c3.value(&fix_x), &ObservedValue::double(12.5));
    // A float argument, boxed by the harness, reads as a float.
    assert_eq!(c4.value(&arg), &ObservedValue::float(0.1));
}
