//! The mutants of a fixture class with one method per operator, pinned against PIT's
//! documented behaviour: which instructions each default operator changes, what it does not
//! touch (the static initializer, the assertion switch, a return of the value it would
//! return), and that every mutant is a class file that reads back with its change in place.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::OnceLock;

use rivet_classfile::{ClassFile, Opcode};
use rivet_mutate::{MutableClass, MutantId, Operator};

/// The fixture, compiled once per test binary: its tests run on threads of one process, and
/// one test's javac rewriting the class file while another read it gave that one an empty
/// file.
fn ops() -> MutableClass {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    let bytes = BYTES.get_or_init(|| {
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mut/Ops.java");
        let out = rivet_testkit::cache_dir().join("mutate-ops");
        rivet_testkit::javac(rivet_testkit::Jdk::Jdk17, 11, "", &[src], &out);
        std::fs::read(out.join("mut/Ops.class")).expect("compiled fixture")
    });
    MutableClass::parse(bytes).expect("parse Ops")
}

#[test]
fn each_operator_makes_the_mutants_pit_documents() {
    let class = ops();
    let listing: String = class
        .mutants
        .iter()
        .map(|m| {
            format!(
                "{:>2} {}:{} {} {}\n",
                m.id.0,
                m.method,
                m.line.unwrap_or(0),
                m.operator,
                m.description
            )
        })
        .collect();
    insta::assert_snapshot!(listing);
    // Every default operator shows up, and nothing of the static initializer.
    for op in Operator::ALL {
        assert!(
            class.mutants.iter().any(|m| m.operator == op),
            "no {op} mutant"
        );
    }
    assert!(class.mutants.iter().all(|m| m.method != "<clinit>"));
}

#[test]
fn every_mutant_reads_back_with_its_change_and_nothing_else() {
    let class = ops();
    for m in &class.mutants {
        let bytes = class.mutant_bytes(m.id).expect("write mutant");
        let cf = ClassFile::parse(&bytes).expect("mutant parses");
        let before = class.class.methods[m.method_index].code().unwrap();
        let after = cf.methods[m.method_index].code().unwrap();
        match m.operator {
            Operator::ConditionalsBoundary | Operator::NegateConditionals | Operator::Math => {
                // One opcode changed in place.
                let changed: Vec<usize> = (0..before.instructions.len())
                    .filter(|&i| before.instructions[i].opcode != after.instructions[i].opcode)
                    .collect();
                assert_eq!(changed, vec![m.instruction], "{}", m.description);
            }
            Operator::InvertNegs => {
                assert_eq!(after.instructions[m.instruction].opcode, Opcode::NOP);
            }
            _ => {
                // Other methods are untouched.
                for (i, method) in cf.methods.iter().enumerate() {
                    if i != m.method_index {
                        assert_eq!(method.code(), class.class.methods[i].code());
                    }
                }
            }
        }
    }
    // Reach probes: one call of Reach.hit per mutant.
    let probed = ClassFile::parse(&class.reach_bytes(0).expect("reach")).expect("parse");
    let calls = probed
        .methods
        .iter()
        .filter_map(|m| m.code())
        .flat_map(|c| c.instructions.iter())
        .filter(|i| {
            i.opcode == Opcode::INVOKESTATIC
                && i.cp_index()
                    .and_then(|ix| probed.constant_pool.member_ref(ix).ok())
                    .is_some_and(|r| r.owner == rivet_mutate::REACH_CLASS)
        })
        .count();
    assert_eq!(calls, class.mutants.len());
    assert!(class.mutant_bytes(MutantId(10_000)).is_err());
}
