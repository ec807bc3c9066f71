//! Round trips of the observation sections: a batch's targets and a result's observed calls
//! read back as written, and calls are named by the spec their batch was sent with.

use rivet_testcase::{
    CallObservation, MemberRef, Observation, ObservationSpec, ObservedPath, ObservedRoot,
    ObservedStep, ObservedValue, Statement, StatementId, TestCase,
};

use super::{observations, RawCall};
use crate::protocol::{
    decode_request, decode_response, encode_batch, encode_batch_observing, encode_response,
    BatchId, Request, Response, TestResult,
};

fn member() -> MemberRef {
    MemberRef::new(
        "sushi/Sample",
        "sample",
        "(Ljava/util/LinkedList;Ljava/lang/Object;)Z",
    )
}

fn spec() -> ObservationSpec {
    ObservationSpec {
        targets: vec![Observation {
            member: member(),
            paths: vec![
                ObservedPath {
                    root: ObservedRoot::Argument(0),
                    steps: vec![ObservedStep::Field("size".into())],
                },
                ObservedPath {
                    root: ObservedRoot::Receiver,
                    steps: vec![
                        ObservedStep::Field("items".into()),
                        ObservedStep::Index(3),
                        ObservedStep::Length,
                    ],
                },
            ],
        }],
        trace: true,
        snapshot: None,
    }
}

fn test() -> TestCase {
    let mut t = TestCase::new();
    t.statements.push(Statement::Null {
        descriptor: "Ljava/util/LinkedList;".into(),
    });
    t.statements.push(Statement::Call {
        method: member(),
        receiver: Some(StatementId(0)),
        args: vec![StatementId(0), StatementId(0)],
    });
    t
}

#[test]
fn a_batch_carries_its_observation_spec_and_none_when_empty() {
    let t = test();
    let s = spec();
    let frame = encode_batch_observing(BatchId(3), [&t], &s).unwrap_or_default();
    let Ok(Request::Batch {
        observation, tests, ..
    }) = decode_request(&frame[4..])
    else {
        panic!("decodes");
    };
    assert_eq!(observation, s);
    assert_eq!(tests, vec![t.clone()]);
    // The target's member shares the batch's member table with the call.
    let plain = encode_batch(BatchId(3), [&t]).unwrap_or_default();
    let empty = ObservationSpec::default();
    assert_eq!(
        encode_batch_observing(BatchId(3), [&t], &empty).unwrap_or_default(),
        plain
    );
    assert!(frame.len() > plain.len());
    // Traces alone (targets without paths) are a section of their own.
    let traces_only = ObservationSpec {
        targets: vec![Observation {
            member: member(),
            paths: Vec::new(),
        }],
        trace: true,
        snapshot: None,
    };
    assert!(!traces_only.is_empty());
    let frame = encode_batch_observing(BatchId(4), [&t], &traces_only).unwrap_or_default();
    let Ok(Request::Batch { observation, .. }) = decode_request(&frame[4..]) else {
        panic!("decodes");
    };
    assert_eq!(observation, traces_only);
}

#[test]
fn observed_calls_round_trip_and_take_their_paths_from_the_spec() {
    let calls = vec![
        RawCall {
            statement: 1,
            target: 0,
            trace: vec![7, 8, 12, 7],
            truncated: true,
            values: vec![
                ObservedValue::Int(-15),
                ObservedValue::Object {
                    id: 2,
                    class: "java.util.LinkedList".into(),
                },
            ],
        },
        RawCall {
            statement: 4,
            target: 0,
            values: vec![ObservedValue::Null, ObservedValue::Undefined],
            trace: Vec::new(),
            truncated: false,
        },
        // Floats and doubles keep their exact bits: a NaN payload, -0.0, subnormals.
        RawCall {
            statement: 7,
            target: 0,
            values: vec![
                ObservedValue::Float(0x7fc0_0001),
                ObservedValue::double(-0.0),
            ],
            trace: Vec::new(),
            truncated: false,
        },
        RawCall {
            statement: 8,
            target: 0,
            values: vec![
                ObservedValue::float(f32::from_bits(1)),
                ObservedValue::Double(0xfff8_0000_0000_00ff),
            ],
            trace: Vec::new(),
            truncated: false,
        },
        // Unknown target and a wrong number of values: dropped.
        RawCall {
            statement: 5,
            target: 9,
            values: Vec::new(),
            trace: Vec::new(),
            truncated: false,
        },
        RawCall {
            statement: 6,
            target: 0,
            values: vec![ObservedValue::Null],
            trace: Vec::new(),
            truncated: false,
        },
    ];
    let r = Response::Result(TestResult {
        batch: BatchId(1),
        index: 0,
        duration_ns: 5,
        stray_threads: 0,
        outcomes: Vec::new(),
        probes: Vec::new(),
        seeds: Vec::new(),
        observed: calls.clone(),
        snapshots: Default::default(),
    });
    let frame = encode_response(&r).unwrap_or_default();
    let Ok(Response::Result(back)) = decode_response(&frame[4..]) else {
        panic!("decodes");
    };
    assert_eq!(back.observed, calls);
    let named: Vec<CallObservation> = observations(back.observed, &spec());
    assert_eq!(named.len(), 4);
    assert_eq!(named[0].statement, 1);
    assert_eq!(
        named[0].trace,
        [7, 8, 12, 7].map(rivet_testcase::ProbeId).to_vec()
    );
    assert!(named[0].trace_truncated && !named[1].trace_truncated);
    assert!(named[1].trace.is_empty());
    assert_eq!(
        named[0].value(&spec().targets[0].paths[0]),
        &ObservedValue::Int(-15)
    );
    assert_eq!(
        named[1].value(&spec().targets[0].paths[1]),
        &ObservedValue::Undefined
    );
    assert_eq!(
        named[1].value(&spec().targets[0].paths[0]),
        &ObservedValue::Null
    );
    let paths = &spec().targets[0].paths;
    assert_eq!(
        named[2].value(&paths[0]),
        &ObservedValue::Float(0x7fc0_0001)
    );
    let ObservedValue::Double(bits) = named[2].value(&paths[1]) else {
        panic!("a double: {:?}", named[2].value(&paths[1]));
    };
    assert_eq!(*bits, 0x8000_0000_0000_0000, "-0.0 keeps its sign");
    assert_eq!(
        named[3].value(&paths[0]).as_f64(),
        Some(f64::from(f32::from_bits(1)))
    );
    assert_eq!(
        named[3].value(&paths[1]),
        &ObservedValue::Double(0xfff8_0000_0000_00ff)
    );
    assert!(named[3].value(&paths[1]).as_f64().is_some_and(f64::is_nan));
}

#[test]
fn an_unknown_value_tag_is_an_error() {
    let call = RawCall {
        statement: 1,
        target: 0,
        values: vec![ObservedValue::float(1.5)],
        trace: Vec::new(),
        truncated: false,
    };
    let r = Response::Result(TestResult {
        batch: BatchId(1),
        index: 0,
        duration_ns: 5,
        stray_threads: 0,
        outcomes: Vec::new(),
        probes: Vec::new(),
        seeds: Vec::new(),
        observed: vec![call],
        snapshots: Default::default(),
    });
    let mut frame = encode_response(&r).unwrap_or_default();
    // The float's tag is followed by its four bytes, the truncated flag and the trace count:
    // it is the 10th byte from the end.
    let at = frame.len() - 10;
    assert_eq!(frame[at], super::tag::OBS_FLOAT);
    frame[at] = 99;
    assert!(decode_response(&frame[4..]).is_err());
}
