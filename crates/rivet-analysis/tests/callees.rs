//! Guidance through calls on the compiled subjects: which branches of the methods a branch's
//! method calls on every path to it can still lead to a normal return (`callee_guidance`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use rivet_analysis::{analyze_class, BranchId, CalleeOutcomes, ClassAnalysis};
use rivet_classfile::ClassFile;

fn subject(internal: &str) -> (ClassFile, ClassAnalysis) {
    let path = rivet_testkit::compiled_subjects(11).join(format!("{internal}.class"));
    let cf = ClassFile::parse(&std::fs::read(&path).expect("class file")).expect("parse");
    let a = analyze_class(&cf).expect("analyze");
    (cf, a)
}

/// `method:line:kind`, with `a`, `b`, … after the line when several jumps share it (`digits:60b:true`).
fn labels(a: &ClassAnalysis) -> BTreeMap<BranchId, String> {
    let mut out = BTreeMap::new();
    for m in &a.methods {
        let mut insns_on_line: BTreeMap<Option<u16>, Vec<usize>> = BTreeMap::new();
        for b in &m.branches {
            let v = insns_on_line.entry(b.line).or_default();
            if !v.contains(&b.insn) {
                v.push(b.insn);
            }
        }
        for b in &m.branches {
            let on_line = &insns_on_line[&b.line];
            let line = b.line.map_or("?".to_string(), |l| l.to_string());
            let suffix = if on_line.len() > 1 {
                let i = on_line.iter().position(|x| *x == b.insn).unwrap();
                char::from(b'a' + i as u8).to_string()
            } else {
                String::new()
            };
            out.insert(b.id, format!("{}:{line}{suffix}:{}", m.name, b.kind));
        }
    }
    out
}

const DIGITS: &[&str] = &[
    "digits:58:true",
    "digits:58:false",
    "digits:60a:false",
    "digits:60b:true",
];
const DAYS_IN: &[&str] = &[
    "daysIn:33:default",
    "daysIn:33:case 2",
    "daysIn:33:case 4,6,9,11",
    "daysIn:35:true",
    "daysIn:35:false",
];
const IS_LEAP: &[&str] = &[
    "isLeap:47:true",
    "isLeap:47:false",
    "isLeap:50:true",
    "isLeap:50:false",
    "isLeap:53:true",
    "isLeap:53:false",
];

#[test]
fn continuing_branches_leave_out_the_outcomes_that_can_only_throw() {
    let (cf, a) = subject("strings/DateParser");
    let l = labels(&a);
    let cases: &[(&str, &[&str])] = &[
        // `c < '0' || c > '9'` throws on `c < '0'` taken and on `c <= '9'` not taken.
        ("digits", DIGITS),
        (
            "parse",
            &[
                "parse:9:true",
                "parse:12a:false",
                "parse:12b:false",
                "parse:12c:true",
                "parse:18a:false",
                "parse:18b:true",
                "parse:21a:false",
                "parse:21b:true",
            ],
        ),
        ("daysIn", DAYS_IN),
    ];
    for (method, expected) in cases {
        let m = a.methods.iter().find(|m| m.name == *method).unwrap();
        let got: Vec<&str> = a
            .continuing_branches(&cf, m)
            .iter()
            .map(|b| l[b].as_str())
            .collect();
        assert_eq!(got, *expected, "{method}");
    }
}

#[test]
fn a_branch_is_guided_by_the_callees_before_and_after_it() {
    let (cf, a) = subject("strings/DateParser");
    let l = labels(&a);
    let names = |callees: &[CalleeOutcomes]| -> Vec<&str> {
        callees
            .iter()
            .flat_map(|c| c.continuing.iter().map(|x| l[x].as_str()))
            .collect()
    };
    let guidance: BTreeMap<&str, (Vec<&str>, Vec<&str>)> = a
        .callee_guidance(&cf)
        .iter()
        .map(|(b, g)| (l[b].as_str(), (names(&g.before), names(&g.after))))
        .collect();
    let concat = |parts: &[&[&'static str]]| -> Vec<&'static str> { parts.concat() };
    let parse_continuing = [
        "parse:9:true",
        "parse:12a:false",
        "parse:12b:false",
        "parse:12c:true",
        "parse:18a:false",
        "parse:18b:true",
        "parse:21a:false",
        "parse:21b:true",
    ];
    let none = Vec::new;
    // branch → (callee outcomes before it, callee outcomes after it)
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = vec![
        // After the three digits() calls: the month and day checks. Going on leads to the
        // call of daysIn, throwing calls nothing of the class.
        ("parse:18a:true", DIGITS.to_vec(), none()),
        (
            "parse:18a:false",
            DIGITS.to_vec(),
            concat(&[DAYS_IN, IS_LEAP]),
        ),
        // `day > daysIn(year, month)` comes after daysIn, which calls isLeap.
        ("parse:21a:true", DIGITS.to_vec(), none()),
        (
            "parse:21a:false",
            DIGITS.to_vec(),
            concat(&[DAYS_IN, IS_LEAP]),
        ),
        (
            "parse:21b:true",
            concat(&[DAYS_IN, IS_LEAP, DIGITS]),
            none(),
        ),
        // The last '-' check comes before any call; its outcome that goes on leads to them.
        (
            "parse:12c:true",
            none(),
            concat(&[DAYS_IN, IS_LEAP, DIGITS]),
        ),
        ("parse:12c:false", none(), none()),
        ("parse:9:true", none(), concat(&[DAYS_IN, IS_LEAP, DIGITS])),
        // isLeapDay calls parse first: parse's continuing branches and, deeper, its callees'.
        (
            "isLeapDay:29a:true",
            concat(&[&parse_continuing, DAYS_IN, IS_LEAP, DIGITS]),
            none(),
        ),
        ("daysIn:33:case 2", none(), IS_LEAP.to_vec()),
        ("daysIn:35:true", IS_LEAP.to_vec(), none()),
        ("digits:60a:true", none(), none()),
        ("isLeap:47:true", none(), none()),
    ];
    for (branch, before, after) in cases {
        let got = guidance.get(branch).cloned().unwrap_or_default();
        assert_eq!(got, (before, after), "{branch}");
    }
}

#[test]
fn a_callee_names_the_methods_that_reach_it_other_than_through_the_branch() {
    let (cf, a) = subject("strings/DateParser");
    let l = labels(&a);
    let name = |i: usize| a.methods[i].name.as_str();
    let by_label: BTreeMap<&str, BranchId> = l.iter().map(|(b, s)| (s.as_str(), *b)).collect();
    let guidance = a.callee_guidance(&cf);
    // (branch, before or after, callee) → the methods that reach the callee, not via the
    // branch's method.
    let cases: &[(&str, bool, &str, &[&str])] = &[
        // isLeapDay's parse is reached only from isLeapDay (and itself); digits from parse.
        ("isLeapDay:29a:true", true, "parse", &["parse"]),
        ("isLeapDay:29a:true", true, "digits", &["parse", "digits"]),
        (
            "isLeapDay:29a:true",
            true,
            "isLeap",
            &["parse", "daysIn", "isLeap"],
        ),
        // Seen from parse, digits is reached only through parse itself.
        ("parse:12c:true", false, "digits", &["digits"]),
        ("parse:12c:true", false, "isLeap", &["daysIn", "isLeap"]),
    ];
    for (branch, before, callee, expected) in cases {
        let g = &guidance[&by_label[branch]];
        let side = if *before { &g.before } else { &g.after };
        let c = side
            .iter()
            .find(|c| name(c.method) == *callee)
            .unwrap_or_else(|| panic!("{branch}: no {callee}"));
        let got: Vec<&str> = c.entries.iter().map(|i| name(*i)).collect();
        assert_eq!(got, *expected, "{branch} {callee}");
    }
}
