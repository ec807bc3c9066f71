//! Branch distances as the runtime reports them through a real JVM, for instrumented int,
//! long, float, double, reference and switch branches, and exit calls turned into
//! `ExitRequested` (tests/java/fixture/Dist.java, run by tests/java/DistMain.java).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;

use rivet_analysis::BranchKind;
use rivet_instrument::{instrument_classpath, InstrumentConfig, ProbeMap};
use support::{cp, java_source, javac, run_java_ok, scratch};

/// Per call: probe id → (hit, distance), plus the other lines (exception, exit).
type Calls = BTreeMap<String, (BTreeMap<u32, (bool, f64)>, Vec<String>)>;

/// Per call: probe id → times taken.
type Counts = BTreeMap<String, BTreeMap<u32, u32>>;

struct Fixture {
    map: ProbeMap,
    calls: Calls,
    counts: Counts,
}

fn run(calls: &[&str]) -> Fixture {
    run_with(&[], calls)
}

/// `run` with system properties for the JVM (`-Dname=value`).
fn run_with(properties: &[&str], calls: &[&str]) -> Fixture {
    let dir = scratch(&format!("distances-{}-{}", properties.len(), calls.len()));
    let classes = dir.join("classes");
    javac("", &[java_source("fixture/Dist.java")], &classes);
    let inst = dir.join("instrumented");
    let report = instrument_classpath(
        std::slice::from_ref(&classes),
        &inst,
        &InstrumentConfig::default(),
    )
    .unwrap();
    let main = dir.join("main");
    javac(&cp(&[&inst]), &[java_source("DistMain.java")], &main);
    let classpath = cp(&[&inst, &main]);
    let mut args = vec!["-Xverify:all"];
    args.extend_from_slice(properties);
    args.extend(["-cp", &classpath, "DistMain"]);
    args.extend_from_slice(calls);
    let stdout = run_java_ok(&args);
    assert!(stdout.ends_with("done\n"), "{stdout}");
    let mut parsed = Calls::new();
    let mut counts = Counts::new();
    let mut cur: Option<String> = None;
    for line in stdout.lines() {
        if let Some(call) = line.strip_prefix("# ") {
            cur = Some(call.to_string());
            parsed.entry(call.to_string()).or_default();
        } else if let Some(rest) = line.strip_prefix("probe ") {
            let f: Vec<&str> = rest.split(' ').collect();
            let entry = parsed.get_mut(cur.as_ref().unwrap()).unwrap();
            let (hit, taken): (bool, u32) = (f[1] == "true", f[3].parse().unwrap());
            assert_eq!(hit, taken > 0, "{line}");
            entry
                .0
                .insert(f[0].parse().unwrap(), (hit, f[2].parse().unwrap()));
            counts
                .entry(cur.clone().unwrap())
                .or_default()
                .insert(f[0].parse().unwrap(), taken);
        } else if line != "done" {
            parsed
                .get_mut(cur.as_ref().unwrap())
                .unwrap()
                .1
                .push(line.to_string());
        }
    }
    Fixture {
        map: report.probes,
        calls: parsed,
        counts,
    }
}

impl Fixture {
    /// Probe ids of a method's branches, in branch order, with their kinds.
    fn branches(&self, method: &str) -> Vec<(u32, BranchKind)> {
        let c = self
            .map
            .class("fixture.Dist")
            .expect("fixture.Dist has probes");
        c.branches
            .iter()
            .enumerate()
            .filter(|(_, b)| c.methods[b.method].0 == method)
            .map(|(i, b)| (c.base + i as u32, b.kind.clone()))
            .collect()
    }

    /// (hit, distance) of the `n`-th branch of `method` in `call`; None when not evaluated.
    fn probe(&self, call: &str, method: &str, n: usize) -> Option<(bool, f64)> {
        let (p, _) = self.branches(method)[n].clone();
        self.calls[call].0.get(&p).copied()
    }

    /// How many times the `n`-th branch of `method` was taken in `call` (0 when never).
    fn taken(&self, call: &str, method: &str, n: usize) -> u32 {
        let (p, _) = self.branches(method)[n].clone();
        self.counts
            .get(call)
            .and_then(|c| c.get(&p))
            .copied()
            .unwrap_or(0)
    }

    fn other(&self, call: &str) -> &[String] {
        &self.calls[call].1
    }
}

#[test]
fn distances_through_a_jvm() {
    let calls = [
        "lt:13",
        "lt:3",
        "eqInt:5:8",
        "nonZero:0",
        "eqLong:5:8",
        "eqLong:9007199254740993:9007199254740992",
        "ltLong:10:3",
        "ltDouble:2.0:1.5",
        "ltDouble:NaN:1",
        "eqDouble:1.0:1.25",
        "gtFloat:1.0:2.5",
        "isNull:o1",
        "isNull:null",
        "same:o1:o2",
        "sw:3",
        "sw:6",
        "sparse:9",
        "loop:8",
        "loop:0",
    ];
    let f = run(&calls);
    let hit = Some((true, 0.0));
    // `if (x < 10)` is `if_icmpge else`: branch 0 (jump taken) is x >= 10, branch 1 is x < 10.
    assert_eq!(f.branches("lt")[0].1, BranchKind::True);
    assert_eq!(f.probe("lt:13", "lt", 0), hit);
    assert_eq!(
        f.probe("lt:13", "lt", 1),
        Some((false, 4.0)),
        "x = 13: |13 - 10| + 1"
    );
    assert_eq!(
        f.probe("lt:3", "lt", 0),
        Some((false, 7.0)),
        "x = 3 from x >= 10"
    );
    assert_eq!(f.probe("lt:3", "lt", 1), hit);
    // `if (a == b)` is `if_icmpne`.
    assert_eq!(f.probe("eqInt:5:8", "eqInt", 0), hit);
    assert_eq!(f.probe("eqInt:5:8", "eqInt", 1), Some((false, 3.0)));
    // `if (x != 0)` is `ifeq`: x = 0 takes it; the other side is 1 away.
    assert_eq!(f.probe("nonZero:0", "nonZero", 0), hit);
    assert_eq!(f.probe("nonZero:0", "nonZero", 1), Some((false, 1.0)));
    // longs: `lcmp; ifne` and `lcmp; ifge`.
    assert_eq!(f.probe("eqLong:5:8", "eqLong", 0), hit);
    assert_eq!(f.probe("eqLong:5:8", "eqLong", 1), Some((false, 3.0)));
    let big = "eqLong:9007199254740993:9007199254740992";
    assert_eq!(
        f.probe(big, "eqLong", 0),
        hit,
        "2^53 + 1 != 2^53 although equal as doubles"
    );
    assert_eq!(f.probe(big, "eqLong", 1), Some((false, 1.0)));
    assert_eq!(f.probe("ltLong:10:3", "ltLong", 0), hit);
    assert_eq!(f.probe("ltLong:10:3", "ltLong", 1), Some((false, 8.0)));
    // doubles and floats: `dcmpg; ifge`, `dcmpl; ifne`, `fcmpl; ifle`.
    assert_eq!(f.probe("ltDouble:2.0:1.5", "ltDouble", 0), hit);
    assert_eq!(
        f.probe("ltDouble:2.0:1.5", "ltDouble", 1),
        Some((false, 1.5))
    );
    assert_eq!(f.probe("ltDouble:NaN:1", "ltDouble", 0), hit);
    assert_eq!(f.probe("ltDouble:NaN:1", "ltDouble", 1), Some((false, 1.0)));
    assert_eq!(f.probe("eqDouble:1.0:1.25", "eqDouble", 0), hit);
    assert_eq!(
        f.probe("eqDouble:1.0:1.25", "eqDouble", 1),
        Some((false, 0.25))
    );
    assert_eq!(f.probe("gtFloat:1.0:2.5", "gtFloat", 0), hit);
    assert_eq!(f.probe("gtFloat:1.0:2.5", "gtFloat", 1), Some((false, 2.5)));
    // references: `ifnonnull`, `if_acmpne`.
    assert_eq!(f.probe("isNull:o1", "isNull", 0), hit);
    assert_eq!(f.probe("isNull:o1", "isNull", 1), Some((false, 1.0)));
    assert_eq!(f.probe("isNull:null", "isNull", 1), hit);
    assert_eq!(f.probe("isNull:null", "isNull", 0), Some((false, 1.0)));
    assert_eq!(f.probe("same:o1:o2", "same", 0), hit);
    assert_eq!(f.probe("same:o1:o2", "same", 1), Some((false, 1.0)));
    // tableswitch: default, then the case groups {1}, {5, 6}, {10}.
    let sw = f.branches("sw");
    assert_eq!(
        sw.iter().map(|b| b.1.clone()).collect::<Vec<_>>(),
        vec![
            BranchKind::Default,
            BranchKind::Case(vec![1]),
            BranchKind::Case(vec![5, 6]),
            BranchKind::Case(vec![10])
        ]
    );
    assert_eq!(f.probe("sw:3", "sw", 0), hit);
    assert_eq!(f.probe("sw:3", "sw", 1), Some((false, 2.0)));
    assert_eq!(
        f.probe("sw:3", "sw", 2),
        Some((false, 2.0)),
        "min(|3-5|, |3-6|)"
    );
    assert_eq!(f.probe("sw:3", "sw", 3), Some((false, 7.0)));
    assert_eq!(f.probe("sw:6", "sw", 0), Some((false, 1.0)));
    assert_eq!(f.probe("sw:6", "sw", 2), hit);
    // lookupswitch.
    assert_eq!(f.probe("sparse:9", "sparse", 0), hit);
    assert_eq!(f.probe("sparse:9", "sparse", 1), Some((false, 1009.0)));
    assert_eq!(f.probe("sparse:9", "sparse", 2), Some((false, 2.0)));
    assert_eq!(f.probe("sparse:9", "sparse", 3), Some((false, 99991.0)));
    // The loop: javac tests `i < n` first (`if_icmpge` out of the loop), then the body's
    // `if (i * 3 == 20)` (`if_icmpne`).
    assert_eq!(f.probe("loop:8", "loop", 0), hit);
    assert_eq!(f.probe("loop:8", "loop", 1), hit);
    assert_eq!(f.probe("loop:8", "loop", 2), hit);
    assert_eq!(
        f.probe("loop:8", "loop", 3),
        Some((false, 1.0)),
        "i = 7: |21 - 20|"
    );
    assert_eq!(f.probe("loop:0", "loop", 0), hit);
    assert_eq!(
        f.probe("loop:0", "loop", 1),
        Some((false, 1.0)),
        "0 < 0 is 1 away"
    );
    assert_eq!(f.probe("loop:0", "loop", 2), None, "the body never ran");
    // Times taken: the exit once, the body 8 times, `i * 3 != 20` in every iteration.
    let taken: Vec<u32> = (0..4).map(|n| f.taken("loop:8", "loop", n)).collect();
    assert_eq!(taken, [1, 8, 8, 0]);
    assert_eq!(f.taken("loop:0", "loop", 0), 1);
    assert_eq!(f.taken("sw:6", "sw", 2), 1);
    for call in calls {
        assert!(f.other(call).is_empty(), "{call}: {:?}", f.other(call));
    }
}

#[test]
fn exit_calls_become_exit_requested() {
    let calls = ["exit:3", "halt:4", "runtimeExit:5", "swallowedExit:6"];
    let f = run(&calls);
    let expect = |call: &str, lines: &[&str]| {
        assert_eq!(f.other(call), lines, "{call}");
    };
    expect(
        "exit:3",
        &["exception rivet.runtime.ExitRequested", "exit 3"],
    );
    expect(
        "halt:4",
        &["exception rivet.runtime.ExitRequested", "exit 4"],
    );
    expect(
        "runtimeExit:5",
        &["exception rivet.runtime.ExitRequested", "exit 5"],
    );
    expect("swallowedExit:6", &["exit 6"]);
}

#[test]
fn equality_probes_record_how_far_apart_the_operands_of_a_relational_jump_are() {
    let calls = [
        "lt:10",
        "lt:13",
        "ltLong:4:4",
        "gtFloat:2.5:1.0",
        "eqInt:5:5",
    ];
    let f = run_with(&["-Drivet.equalityBase=100000"], &calls);
    let equality = |call: &str, method: &str| {
        let (taken, _) = f.branches(method)[0].clone();
        f.calls[call].0.get(&(100_000 + taken)).copied()
    };
    assert_eq!(equality("lt:10", "lt"), Some((true, 0.0)), "x == 10");
    assert_eq!(equality("lt:13", "lt"), Some((false, 3.0)), "|13 - 10|");
    assert_eq!(equality("ltLong:4:4", "ltLong"), Some((true, 0.0)));
    assert_eq!(equality("gtFloat:2.5:1.0", "gtFloat"), Some((false, 1.5)));
    assert_eq!(equality("eqInt:5:5", "eqInt"), None, "== has no boundary");
    // Without the property nothing beyond the classes' probes is recorded.
    let plain = run(&["lt:10"]);
    let end = plain.map.probe_count();
    assert!(plain.calls["lt:10"].0.keys().all(|p| *p < end));
}
