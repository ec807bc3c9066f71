//! Robustness of the parser, writer and code editor: arbitrary bytes and mutated real class
//! files (tests/fixtures) never make them panic; what parses writes, and parses again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use proptest::prelude::*;
use rivet_classfile::{AttributeBody, ClassFile};
use std::sync::OnceLock;
use support::check::check_class_bytes;

/// The fixture class files, plus a Java 5 (major 49, no StackMapTable) variant of each.
fn seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut files = Vec::new();
        support::collect(std::path::Path::new(dir), "class", &mut files);
        let mut out = Vec::new();
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let mut cf = ClassFile::parse(&bytes).unwrap();
            assert_eq!(
                cf.to_bytes().unwrap(),
                bytes,
                "{} does not round-trip",
                f.display()
            );
            cf.major_version = 49;
            for m in &mut cf.methods {
                if let Some(c) = m.code_mut() {
                    c.attributes
                        .retain(|a| !matches!(a.body, AttributeBody::StackMapTable(_)));
                }
            }
            out.push(bytes);
            out.push(cf.to_bytes().unwrap());
        }
        assert!(out.len() >= 20);
        out
    })
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        value: u8,
    },
    /// Overwrites two bytes with a boundary value (counts, lengths, indexes).
    SetU16 {
        at: usize,
        value: u16,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Truncate {
        at: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<usize>();
    let boundary = prop_oneof![
        Just(0u16),
        Just(1),
        Just(2),
        Just(0x7FFF),
        Just(0x8000),
        Just(0xFFFF),
        any::<u16>()
    ];
    prop_oneof![
        4 => (at, 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        3 => (at, any::<u8>()).prop_map(|(at, value)| Mutation::Set { at, value }),
        3 => (at, boundary).prop_map(|(at, value)| Mutation::SetU16 { at, value }),
        1 => (at, proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Mutation::Insert { at, bytes }),
        1 => (at, 1usize..16).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => at.prop_map(|at| Mutation::Truncate { at }),
    ]
}

fn apply(data: &mut Vec<u8>, m: &Mutation) {
    if data.is_empty() {
        return;
    }
    let n = data.len();
    match m {
        Mutation::Flip { at, bit } => data[at % n] ^= 1 << bit,
        Mutation::Set { at, value } => data[at % n] = *value,
        Mutation::SetU16 { at, value } => {
            let i = at % n.saturating_sub(1).max(1);
            for (k, b) in value.to_be_bytes().into_iter().enumerate() {
                if let Some(slot) = data.get_mut(i + k) {
                    *slot = b;
                }
            }
        }
        Mutation::Insert { at, bytes } => {
            let i = at % (n + 1);
            data.splice(i..i, bytes.iter().copied());
        }
        Mutation::Delete { at, len } => {
            let i = at % n;
            data.drain(i..(i + len).min(n));
        }
        Mutation::Truncate { at } => data.truncate(at % n),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_class_files_never_panic(
        seed in any::<prop::sample::Index>(),
        muts in proptest::collection::vec(mutation(), 1..6),
    ) {
        let seeds = seeds();
        let mut data = seeds[seed.index(seeds.len())].clone();
        for m in &muts {
            apply(&mut data, m);
        }
        check_class_bytes(&data);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        check_class_bytes(&data);
    }

    /// A valid header, then arbitrary bytes: gets past the magic and version checks.
    #[test]
    fn arbitrary_bodies_never_panic(
        major in 45u16..=69,
        body in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut data = vec![0xCA, 0xFE, 0xBA, 0xBE, 0, 0];
        data.extend_from_slice(&major.to_be_bytes());
        data.extend_from_slice(&body);
        check_class_bytes(&data);
    }
}

#[test]
fn fixtures_pass_the_check_unmutated() {
    for s in seeds() {
        check_class_bytes(s);
    }
}

#[test]
fn descriptors_with_multibyte_characters_are_errors_not_panics() {
    use rivet_classfile::{FieldType, MethodDescriptor};
    assert!(FieldType::parse("é").is_err());
    assert!(MethodDescriptor::parse("(é)V").is_err());
    assert!(MethodDescriptor::parse("(I)é").is_err());
    assert!(FieldType::parse("[é").is_err());
}

/// Inputs the fuzzer found (tests/regressions): each once broke the property.
#[test]
fn fuzzer_regressions_pass_the_check() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/regressions");
    let mut files = Vec::new();
    support::collect(std::path::Path::new(dir), "class", &mut files);
    assert!(!files.is_empty());
    for f in files {
        check_class_bytes(&std::fs::read(&f).unwrap());
    }
}
