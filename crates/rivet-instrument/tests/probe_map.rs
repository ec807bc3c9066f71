//! Probe numbering: deterministic ranges by class name, translation both ways, the TSV form,
//! and which classes get probes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use rivet_classfile::ClassName;

use std::collections::BTreeSet;
use std::path::Path;

use rivet_analysis::{BranchId, BranchKind};
use rivet_classfile::{ClassFile, CpIndex, Opcode, Operand};
use rivet_instrument::{
    encode_switch_tables, instrument_classpath, plan_class, ClassPlan, InstrumentConfig, ProbeMap,
    ProbeScope, SwitchTable, PROBES_CLASS,
};
use rivet_testcase::ProbeId;
use support::scratch;

fn subject_plans() -> Vec<ClassPlan> {
    rivet_testkit::class_files(&rivet_testkit::compiled_subjects(11))
        .iter()
        .map(|p| plan_class(&ClassFile::parse(&std::fs::read(p).unwrap()).unwrap()).unwrap())
        .collect()
}

#[test]
fn ranges_follow_class_names_whatever_the_order() {
    let plans = subject_plans();
    let (map, ranges) = ProbeMap::assign(&plans).unwrap();
    let mut reversed = plans.clone();
    reversed.reverse();
    let (map2, ranges2) = ProbeMap::assign(&reversed).unwrap();
    assert_eq!(map, map2);
    for (i, p) in plans.iter().enumerate() {
        let j = plans.len() - 1 - i;
        assert_eq!(ranges[i], ranges2[j], "{}", p.class);
    }
    // Contiguous, in name order, only classes with branches: each class's branch probes, then
    // its JaCoCo points.
    let mut next = 0;
    let mut last = String::new();
    let mut branches = 0;
    for c in map.classes() {
        assert_eq!(c.base, next, "{}", c.class);
        assert!(c.class.internal() > last.as_str());
        assert!(!c.branches.is_empty());
        assert!(c.points > 0, "{}", c.class);
        next += c.branches.len() as u32 + c.points;
        branches += c.branches.len() as u32;
        last = c.class.internal().to_string();
    }
    assert_eq!(map.probe_count(), next);
    assert_eq!(
        next,
        plans
            .iter()
            .filter(|p| p.branch_count > 0)
            .map(|p| p.branch_count + p.point_count)
            .sum::<u32>()
    );
    assert_eq!(branches, 353, "the subjects have 353 branches (JaCoCo)");
}

#[test]
fn probes_translate_both_ways() {
    let (map, _) = ProbeMap::assign(&subject_plans()).unwrap();
    let mut resolved = 0;
    for p in (0..map.probe_count()).map(ProbeId) {
        // Points resolve to no branch.
        let Some((c, b)) = map.resolve(p) else {
            continue;
        };
        resolved += 1;
        assert_eq!(map.probe(&c.class.binary(), b), Some(p));
        assert_eq!(map.probe(c.class.internal(), b), Some(p));
        let confirmers = c.confirmers(b).unwrap();
        assert!(!confirmers.is_empty());
        assert!(confirmers.iter().all(|q| map.resolve(*q).is_none()));
    }
    assert_eq!(resolved, 353);
    assert!(map.resolve(ProbeId(map.probe_count())).is_none());
    let avl = map.class("structures.AvlTree").unwrap();
    assert_eq!(avl.method_of(BranchId(0)).unwrap().0, "contains");
    assert_eq!(avl.branches[0].kind, BranchKind::True);
    assert!(map
        .probe("structures.AvlTree", BranchId(avl.branches.len() as u32))
        .is_none());
    assert!(map.class("no.Such").is_none());
}

#[test]
fn tsv_round_trips_and_rejects_garbage() {
    let (map, _) = ProbeMap::assign(&subject_plans()).unwrap();
    let tsv = map.to_tsv();
    let back = ProbeMap::from_tsv(&tsv, Path::new("t.tsv")).unwrap();
    assert_eq!(back, map);
    assert!(tsv.contains("strings.DateParser\t"));
    assert!(tsv.contains("\tcase 4,6,9,11\t"), "{tsv}");
    for bad in [
        String::new(),
        "nonsense\n".to_string(),
        tsv.replacen("\ttrue\t", "\tmaybe\t", 1),
        tsv.replacen("\t0\t0\t", "\t0\tx\t", 1),
        tsv.replacen("\tfalse\t", "\t", 1),
        tsv.replacen("\t23\n", "\tmany\n", 1),
        tsv.replacen("\t24\t23\n", "\t24,x\t23\n", 1),
    ] {
        let e = ProbeMap::from_tsv(&bad, Path::new("t.tsv")).unwrap_err();
        assert!(e.to_string().starts_with("t.tsv, line "), "{e}");
    }
}

#[test]
fn switch_tables_encode_big_endian() {
    let t = [SwitchTable {
        id: 2,
        default_probe: 7,
        keys: vec![(-1, 8), (4, 9)],
    }];
    assert_eq!(
        encode_switch_tables(&t),
        [
            0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0, 2, 255, 255, 255, 255, 0, 0, 0, 8, 0, 0,
            0, 4, 0, 0, 0, 9
        ]
    );
}

fn mentions(path: &Path, text: &str) -> bool {
    let bytes = std::fs::read(path).unwrap();
    bytes.windows(text.len()).any(|w| w == text.as_bytes())
}

/// How many calls of `Probes.loop` the classes under `dir` (the runtime's own left out) hold.
fn loop_calls(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.ends_with("rivet") {
            n += loop_calls(&path);
        } else if path.extension().is_some_and(|e| e == "class") {
            let cf = ClassFile::parse(&std::fs::read(&path).unwrap()).unwrap();
            n += cf
                .methods
                .iter()
                .filter_map(|m| m.code())
                .flat_map(|c| c.instructions.iter())
                .filter(|x| x.opcode == Opcode::INVOKESTATIC)
                .filter_map(|x| match x.operand {
                    Operand::Constant(i) => cf.constant_pool.member_ref(i).ok(),
                    _ => None,
                })
                .filter(|r| r.owner == PROBES_CLASS && r.name == "loop")
                .count();
        }
    }
    n
}

/// The methods of the probe runtime that the class file at `path` refers to.
fn probe_methods(path: &Path) -> BTreeSet<String> {
    let cf = ClassFile::parse(&std::fs::read(path).unwrap()).unwrap();
    (1..cf.constant_pool.entries().len())
        .filter_map(|i| cf.constant_pool.member_ref(CpIndex(i as u16)).ok())
        .filter(|r| r.owner == PROBES_CLASS)
        .map(|r| r.name.to_string())
        .collect()
}

#[test]
fn only_the_classes_in_scope_get_probes_but_every_class_loses_its_exits() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let out = scratch("scope");
    let config = InstrumentConfig {
        scope: ProbeScope::Classes(vec![
            ClassName::from_binary("structures.AvlTree"),
            ClassName::from_binary("lct/Examples"),
        ]),
        threads: 2,
        ..InstrumentConfig::default()
    };
    let r = instrument_classpath(std::slice::from_ref(&subjects), &out, &config).unwrap();
    let names: Vec<String> = r
        .probes
        .classes()
        .iter()
        .map(|c| c.class.binary())
        .collect();
    assert_eq!(names, ["lct.Examples", "structures.AvlTree"]);
    assert_eq!(r.probes.classes()[0].base, 0);
    assert_eq!(r.probed, 2);
    assert_eq!(
        r.exits, 2,
        "hostile.Hostile calls System.exit and Runtime.halt"
    );
    assert!(mentions(
        &out.join("structures/AvlTree.class"),
        "rivet/runtime/Probes"
    ));
    assert!(!mentions(
        &out.join("sushi/Sample.class"),
        "rivet/runtime/Probes"
    ));
    // Outside the scope no probes: an exit call redirected, loops watched.
    let hostile = out.join("hostile/Hostile.class");
    assert!(mentions(&hostile, "rivet/runtime/Exits"));
    assert_eq!(
        probe_methods(&hostile),
        BTreeSet::from(["loop".to_string()])
    );
    assert!(r.loop_sites >= 3, "Hostile loops for ever in three places");
    assert_eq!(r.loop_sites, loop_calls(&out));
    // Classes without exit calls or loops outside the scope are copied byte for byte.
    assert_eq!(
        std::fs::read(out.join("sushi/Sample.class")).unwrap(),
        std::fs::read(subjects.join("sushi/Sample.class")).unwrap()
    );
    assert!(ProbeScope::Classes(vec![ClassName::from_binary("a.B")]).includes("a/B$C"));
    assert!(!ProbeScope::Classes(vec![ClassName::from_binary("a.B")]).includes("a/BC"));
}

#[test]
fn instrumented_classes_are_not_instrumented_twice() {
    let subjects = rivet_testkit::compiled_subjects(11);
    let dir = scratch("twice");
    let once = dir.join("once");
    instrument_classpath(
        std::slice::from_ref(&subjects),
        &once,
        &InstrumentConfig::default(),
    )
    .unwrap();
    let twice = dir.join("twice");
    let r = instrument_classpath(
        std::slice::from_ref(&once),
        &twice,
        &InstrumentConfig::default(),
    )
    .unwrap();
    assert_eq!(r.probed, 0);
    assert!(r.probes.classes().is_empty());
    assert!(
        r.unprobed
            .iter()
            .all(|s| s.reason.contains("already instrumented")),
        "{:?}",
        r.unprobed
    );
    assert_eq!(
        std::fs::read(twice.join("structures/AvlTree.class")).unwrap(),
        std::fs::read(once.join("structures/AvlTree.class")).unwrap()
    );
}
