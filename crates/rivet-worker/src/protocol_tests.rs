//! Round-trip tests of the protocol: the Rust encoder against the Rust decoder, for arbitrary
//! test cases and results, and rejection of malformed frames.

use super::*;
use proptest::prelude::*;
use rivet_testcase::{
    LambdaBody, PrimitiveValue, ScratchEntry, Statement, StatementId, SCRATCH_FILE, SCRATCH_PATH,
    SCRATCH_STRING,
};

fn member() -> impl Strategy<Value = MemberRef> {
    (
        prop::sample::select(vec![
            "a/B",
            "structures/AvlTree",
            "java/lang/String",
            "é/ünï",
        ]),
        prop::sample::select(vec!["<init>", "insert", "f", "x\u{0}y"]),
        prop::sample::select(vec![
            "()V",
            "(I)Z",
            "I",
            "(Ljava/lang/String;[J)Ljava/lang/Object;",
        ]),
    )
        .prop_map(|(o, n, d)| MemberRef::new(o, n, d))
}

fn primitive() -> impl Strategy<Value = PrimitiveValue> {
    prop_oneof![
        any::<bool>().prop_map(PrimitiveValue::Boolean),
        any::<i8>().prop_map(PrimitiveValue::Byte),
        any::<u16>().prop_map(PrimitiveValue::Char),
        any::<i16>().prop_map(PrimitiveValue::Short),
        any::<i32>().prop_map(PrimitiveValue::Int),
        any::<i64>().prop_map(PrimitiveValue::Long),
        any::<u32>().prop_map(|b| PrimitiveValue::Float(f32::from_bits(b))),
        any::<u64>().prop_map(|b| PrimitiveValue::Double(f64::from_bits(b))),
    ]
}

/// A statement at position `at`, whose references point to earlier statements.
fn scratch_entry() -> impl Strategy<Value = ScratchEntry> {
    prop_oneof![
        Just(ScratchEntry::Missing),
        any::<String>().prop_map(|content| ScratchEntry::File { content }),
        prop::collection::vec(("[a-z]{1,5}", any::<String>()), 0..3)
            .prop_map(|files| ScratchEntry::Dir { files }),
    ]
}

fn statement(at: u32) -> BoxedStrategy<Statement> {
    let leaf = prop_oneof![
        primitive().prop_map(Statement::Primitive),
        any::<String>().prop_map(Statement::String),
        prop::sample::select(vec!["Ljava/util/List;", "[I", "I"]).prop_map(|d| Statement::Null {
            descriptor: d.to_string()
        }),
        (
            prop::sample::select(vec![SCRATCH_FILE, SCRATCH_PATH, SCRATCH_STRING]),
            "[a-z]{1,4}(/[a-z]{1,4}(\\.txt)?){0,2}",
            scratch_entry(),
        )
            .prop_map(|(d, path, entry)| Statement::Scratch {
                descriptor: d.to_string(),
                path,
                entry,
            }),
    ];
    if at == 0 {
        return leaf.boxed();
    }
    let id = (0..at).prop_map(StatementId);
    let ids = prop::collection::vec(id.clone(), 0..4);
    prop_oneof![
        leaf,
        (any::<String>(), ids.clone()).prop_map(|(component, elements)| Statement::Array {
            component,
            elements
        }),
        (member(), ids.clone())
            .prop_map(|(constructor, args)| Statement::Construct { constructor, args }),
        (member(), prop::option::of(id.clone()), ids).prop_map(|(method, receiver, args)| {
            Statement::Call {
                method,
                receiver,
                args,
            }
        }),
        (member(), prop::option::of(id.clone()), id.clone()).prop_map(
            |(field, receiver, value)| {
                Statement::FieldWrite {
                    field,
                    receiver,
                    value,
                }
            }
        ),
        prop::sample::select(vec!["V", "I", "[Ljava/lang/String;", "Ljava/util/List;"]).prop_map(
            |d| Statement::ClassLiteral {
                descriptor: d.to_string()
            }
        ),
        (member(), id, 0u8..4).prop_map(|(method, value, kind)| Statement::Lambda {
            interface: method.owner.clone(),
            method,
            body: match kind {
                0 => LambdaBody::Returns(value),
                1 => LambdaBody::Identity,
                2 => LambdaBody::Nothing,
                _ => LambdaBody::Throws,
            },
        }),
    ]
    .boxed()
}

fn test_case() -> impl Strategy<Value = TestCase> {
    (0usize..12).prop_flat_map(|n| {
        (0..n as u32)
            .map(statement)
            .collect::<Vec<_>>()
            .prop_map(|statements| TestCase { statements })
    })
}

fn value() -> impl Strategy<Value = ValueSummary> {
    prop_oneof![
        Just(ValueSummary::Void),
        any::<bool>().prop_map(ValueSummary::Boolean),
        any::<i8>().prop_map(ValueSummary::Byte),
        any::<u16>().prop_map(ValueSummary::Char),
        any::<i16>().prop_map(ValueSummary::Short),
        any::<i32>().prop_map(ValueSummary::Int),
        any::<i64>().prop_map(ValueSummary::Long),
        any::<u32>().prop_map(|b| ValueSummary::Float(f32::from_bits(b))),
        any::<u64>().prop_map(|b| ValueSummary::Double(f64::from_bits(b))),
        Just(ValueSummary::Null),
        any::<String>().prop_map(ValueSummary::String),
        (any::<u32>(), class_name())
            .prop_map(|(identity, class)| ValueSummary::Object { identity, class }),
    ]
}

fn outcome() -> impl Strategy<Value = StatementOutcome> {
    prop_oneof![
        Just(StatementOutcome::NotRun),
        value().prop_map(StatementOutcome::Normal),
        (class_name(), prop::option::of(any::<String>()))
            .prop_map(|(class, message)| StatementOutcome::Threw { class, message }),
    ]
}

fn class_name() -> impl Strategy<Value = rivet_testcase::ClassName> {
    "[a-z]{1,6}(\\.[a-z]{1,6}){0,2}\\.[A-Z][A-Za-z0-9$_]{0,10}"
        .prop_map(|n| rivet_testcase::ClassName::from_binary(&n))
}

fn payload(frame: &[u8]) -> &[u8] {
    let n = u32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize;
    assert_eq!(n, frame.len() - 4, "length prefix");
    &frame[4..]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn batches_round_trip(id in any::<u32>(), tests in prop::collection::vec(test_case(), 0..8)) {
        let frame = encode_batch(BatchId(id), &tests).expect("encodes");
        let decoded = decode_request(payload(&frame)).expect("decodes");
        // Debug text compares NaNs equal; the re-encoding compares their bits.
        prop_assert_eq!(format!("{:?}", decoded), format!("{:?}", Request::Batch { id: BatchId(id), tests: tests.clone(), observation: Default::default() }));
        let Request::Batch { tests: again, .. } = decoded else { unreachable!() };
        prop_assert_eq!(encode_batch(BatchId(id), &again).expect("re-encodes"), frame);
    }

    #[test]
    fn results_round_trip(
        batch in any::<u32>(), index in any::<u32>(), duration_ns in any::<u64>(), stray_threads in any::<u32>(),
        outcomes in prop::collection::vec(outcome(), 0..12),
        probes in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u64>()), 0..20),
        seeds in prop::collection::vec(any::<String>(), 0..4),
    ) {
        let r = Response::Result(TestResult {
            batch: BatchId(batch), index, duration_ns, stray_threads, outcomes,
            probes: probes.into_iter().map(|(p, hits, d)| ProbeRecord { probe: ProbeId(p), hits, distance: f64::from_bits(d) }).collect(),
            seeds,
            observed: Vec::new(),
            snapshots: Default::default(),
        });
        let frame = encode_response(&r).expect("encodes");
        let decoded = decode_response(payload(&frame)).expect("decodes");
        prop_assert_eq!(format!("{:?}", &decoded), format!("{:?}", &r));
        prop_assert_eq!(encode_response(&decoded).expect("re-encodes"), frame);
    }

    #[test]
    fn truncated_batches_are_errors_not_panics(tests in prop::collection::vec(test_case(), 1..4), cut in any::<prop::sample::Index>()) {
        let frame = encode_batch(BatchId(1), &tests).expect("encodes");
        let body = payload(&frame);
        let cut = cut.index(body.len());
        prop_assert!(decode_request(&body[..cut]).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode_request(&bytes);
        let _ = decode_response(&bytes);
    }
}

#[test]
fn member_table_lists_each_member_once() {
    let m = MemberRef::new("structures/AvlTree", "insert", "(I)Z");
    let mut t = TestCase::new();
    let tree = t.push(Statement::Construct {
        constructor: MemberRef::new("structures/AvlTree", "<init>", "()V"),
        args: vec![],
    });
    for k in 0..50 {
        let key = t.push(Statement::Primitive(PrimitiveValue::Int(k)));
        t.push(Statement::Call {
            method: m.clone(),
            receiver: Some(tree),
            args: vec![key],
        });
    }
    let frame = encode_batch(BatchId(7), [&t, &t]).expect("encodes");
    let needle = b"insert";
    let count = frame.windows(needle.len()).filter(|w| w == needle).count();
    assert_eq!(count, 1);
}

#[test]
fn many_members_round_trip() {
    let mut t = TestCase::new();
    for k in 0..100 {
        t.push(Statement::Call {
            method: MemberRef::new("a/B", &format!("m{}", k % 40), "()I"),
            receiver: None,
            args: vec![],
        });
    }
    let frame = encode_batch(BatchId(1), [&t]).expect("encodes");
    let Ok(Request::Batch { tests, .. }) = decode_request(payload(&frame)) else {
        panic!("does not decode")
    };
    assert_eq!(tests, vec![t]);
    assert_eq!(frame.windows(3).filter(|w| w == b"a/B").count(), 40);
}

#[test]
fn control_frames_round_trip() {
    assert_eq!(
        decode_request(payload(&encode_ping(42))),
        Ok(Request::Ping(42))
    );
    assert_eq!(
        decode_request(payload(&encode_shutdown())),
        Ok(Request::Shutdown)
    );
    assert_eq!(
        decode_request(payload(&encode_limits(Duration::from_millis(250), true, 0))),
        Ok(Request::Limits {
            limit: Duration::from_millis(250),
            adaptive: true,
            probes: 0
        })
    );
    assert_eq!(
        decode_request(payload(&encode_limits(Duration::from_secs(1), false, 4096))),
        Ok(Request::Limits {
            limit: Duration::from_secs(1),
            adaptive: false,
            probes: 4096
        })
    );
    for r in [
        Response::Pong(9),
        Response::Error {
            batch: None,
            message: "x".into(),
        },
        Response::Error {
            batch: Some(BatchId(3)),
            message: "ü".into(),
        },
        Response::Ready(Ready {
            version: PROTOCOL_VERSION,
            java_version: "17".into(),
            vm_name: "VM".into(),
        }),
    ] {
        let frame = encode_response(&r).expect("encodes");
        assert_eq!(decode_response(payload(&frame)), Ok(r));
    }
}

#[test]
fn read_frame_rejects_garbage_lengths() {
    let mut garbage: &[u8] = b"Hello, world\n";
    assert!(read_frame(&mut garbage).is_err());
    let mut empty: &[u8] = b"";
    assert!(matches!(read_frame(&mut empty), Ok(None)));
    let frame = encode_ping(1);
    let mut r: &[u8] = &frame;
    assert_eq!(
        read_frame(&mut r).expect("reads"),
        Some(frame[4..].to_vec())
    );
}

/// The named constants of the Java side (`Wire.java`), as `NAME -> value`.
fn java_constants() -> std::collections::HashMap<String, i64> {
    constants_of(include_str!("../java/rivet/worker/Wire.java"))
}

/// The `static final int` constants of a Java source.
pub(crate) fn constants_of(src: &str) -> std::collections::HashMap<String, i64> {
    let mut out = std::collections::HashMap::new();
    for line in src.lines() {
        let Some(rest) = line.trim().strip_prefix("static final int ") else {
            continue;
        };
        let Some((name, value)) = rest.trim_end_matches(';').split_once(" = ") else {
            continue;
        };
        let value = value.trim();
        let parsed = match value.strip_prefix("0x") {
            Some(hex) => i64::from_str_radix(hex, 16),
            None => value.parse(),
        };
        if let Ok(v) = parsed {
            out.insert(name.trim().to_string(), v);
        }
    }
    out
}

#[test]
fn java_and_rust_agree_on_the_wire_constants() {
    let java = java_constants();
    let expect = |name: &str, rust: i64| {
        assert_eq!(
            java.get(name),
            Some(&rust),
            "Wire.{name} differs from the Rust side"
        );
    };
    expect("VERSION", i64::from(PROTOCOL_VERSION));
    expect("NONE", i64::from(NONE as i32));
    expect("REQ_BATCH", i64::from(REQ_BATCH));
    expect("REQ_PING", i64::from(REQ_PING));
    expect("REQ_SHUTDOWN", i64::from(REQ_SHUTDOWN));
    expect("REQ_LIMITS", i64::from(REQ_LIMITS));
    expect("RESP_READY", i64::from(RESP_READY));
    expect("RESP_RESULT", i64::from(RESP_RESULT));
    expect("RESP_PONG", i64::from(RESP_PONG));
    expect("RESP_ERROR", i64::from(RESP_ERROR));
    let src = include_str!("../java/rivet/worker/Wire.java");
    let magic = std::str::from_utf8(MAGIC).unwrap_or_default();
    assert!(
        src.contains(&format!("MAGIC = \"{magic}\"")),
        "Wire.MAGIC differs from {magic}"
    );
}

#[test]
fn java_and_rust_agree_on_the_observation_tags() {
    use super::observe_wire::tag;
    let java = constants_of(include_str!("../java/rivet/worker/Observer.java"));
    for (name, rust) in [
        ("ROOT_RECEIVER", tag::ROOT_RECEIVER),
        ("ROOT_ARGUMENT", tag::ROOT_ARGUMENT),
        ("STEP_FIELD", tag::STEP_FIELD),
        ("STEP_INDEX", tag::STEP_INDEX),
        ("STEP_LENGTH", tag::STEP_LENGTH),
        ("OBS_UNDEFINED", tag::OBS_UNDEFINED),
        ("OBS_NULL", tag::OBS_NULL),
        ("OBS_INT", tag::OBS_INT),
        ("OBS_OBJECT", tag::OBS_OBJECT),
    ] {
        assert_eq!(
            java.get(name),
            Some(&i64::from(rust)),
            "Observer.{name} differs"
        );
    }
}
