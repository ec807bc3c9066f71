//! The plan of a real subject (structures.AvlTree, compiled from the bundled sources): one
//! goal per branch of the class and its nested classes, each with its probe and place, then a
//! goal per callable method; no JVM is started.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rivet_analysis::analyze_class;
use rivet_api::{AccessMode, ApiModel};
use rivet_classpath::{Classpath, JdkImage};
use rivet_engine::ClassPlan;
use rivet_instrument::{plan_class, ProbeMap};

fn classpath() -> Arc<Classpath> {
    let jdk = Arc::new(JdkImage::locate().expect("a JDK"));
    Arc::new(
        Classpath::from_paths([rivet_testkit::compiled_subjects(11)], Some(jdk))
            .expect("classpath"),
    )
}

fn probes(cp: &Classpath, classes: &[&str]) -> ProbeMap {
    let plans: Vec<_> = classes
        .iter()
        .map(|c| {
            let cf = cp.class_file(c).expect("read").expect("found");
            plan_class(&cf).expect("plan")
        })
        .collect();
    ProbeMap::assign(&plans).expect("assign").0
}

/// The API model of a whole class, as a test in its package sees it.
fn model_of(cp: &Arc<Classpath>, class: &str) -> ApiModel {
    ApiModel::build(
        cp.clone(),
        &rivet_classfile::ClassName::from_binary(class),
        None,
        AccessMode::SamePackage,
    )
    .expect("model")
}

#[test]
fn avl_tree_goals_are_its_branches_with_probes_then_its_methods() {
    let cp = classpath();
    let model = model_of(&cp, "structures.AvlTree");
    let mut nested: Vec<String> = cp
        .package_classes("structures")
        .expect("list")
        .into_iter()
        .filter(|c| c.starts_with("structures/AvlTree$"))
        .collect();
    nested.insert(0, "structures/AvlTree".into());
    let names: Vec<&str> = nested.iter().map(String::as_str).collect();
    let map = probes(&cp, &names);
    let plan = ClassPlan::build(&cp, model, (None, &[]), &map).expect("plan");

    let mut expected = 0;
    for c in &names {
        let cf = cp.class_file(c).expect("read").expect("found");
        expected += analyze_class(&cf).expect("analysis").branch_count();
    }
    assert_eq!(plan.places.len(), expected);
    for (i, g) in plan.goals.iter().enumerate() {
        assert_eq!(g.id.0 as usize, i, "ids are dense");
        for c in &g.controlling {
            assert!(plan.goals.get(*c).is_some_and(|p| p.is_branch()));
        }
    }
    for (goal, place) in &plan.places {
        let probe = plan.probe(*goal).expect("every branch has its probe");
        assert_eq!(map.probe_of(place), Some(probe));
        assert!(plan.goals.get(*goal).is_some_and(|g| g.is_branch()));
    }
    let methods: Vec<String> = plan
        .goals
        .iter()
        .filter(|g| !g.is_branch())
        .map(|g| g.method.clone())
        .collect();
    assert!(
        methods.contains(&"AvlTree.insert".to_string()),
        "{methods:?}"
    );
    assert_eq!(plan.goals.len(), expected + methods.len());
}

/// The plan of `lct.Examples` restricted to `figure1`.
fn figure1_plan() -> ClassPlan {
    let cp = classpath();
    let model = ApiModel::build(
        cp.clone(),
        &rivet_classfile::ClassName::from_binary("lct.Examples"),
        Some("figure1"),
        AccessMode::SamePackage,
    )
    .expect("model");
    let map = probes(&cp, &["lct/Examples"]);
    ClassPlan::build(&cp, model, (Some("figure1"), &[]), &map).expect("plan")
}

#[test]
fn one_method_plans_only_its_branches() {
    let plan = figure1_plan();
    assert!(!plan.places.is_empty());
    assert!(plan.places.iter().all(|(_, p)| p.method == "figure1"));
    assert!(plan
        .goals
        .iter()
        .filter(|g| g.is_branch())
        .all(|g| g.method == "Examples.figure1"));
}

#[test]
fn finished_tests_are_named_after_the_method_of_their_first_branch_and_list_each_label_once() {
    use rivet_engine::finish::{final_coverage, test_class};
    use rivet_junit::{emit, ExpectedExceptions, JUnitVersion};
    use rivet_testcase::{GeneratedTest, TypedTest};

    let plan = figure1_plan();
    let branch = plan.places[0].0;
    let method_goal = plan
        .goals
        .iter()
        .find(|g| !g.is_branch())
        .expect("a method goal")
        .id;
    let generated = vec![
        GeneratedTest {
            test: TypedTest::new(),
            goals: vec![branch, branch, method_goal],
            assertions: vec![],
        },
        GeneratedTest {
            test: TypedTest::new(),
            goals: vec![method_goal],
            assertions: vec![],
        },
    ];
    let class = test_class(
        &plan,
        &generated,
        (JUnitVersion::Five, ExpectedExceptions::AssertThrows),
    );
    assert_eq!(class.class_under_test.internal(), "lct/Examples");
    assert_eq!(class.tests[0].subject, "figure1");
    assert_eq!(
        class.tests[0].covers.len(),
        1,
        "{:?}",
        class.tests[0].covers
    );
    assert!(class.tests[0].covers[0].starts_with("Examples.figure1 line"));
    assert_eq!(
        class.tests[1].subject, "Api",
        "no branch and no call: a generic name"
    );
    let emitted = emit(&class);
    let probe = plan.probe(branch).expect("a probed branch");
    let point = plan.confirmers[&branch][0];
    assert!(
        !plan.confirmers[&branch].contains(&probe),
        "JaCoCo's points confirm a branch, not its own probe"
    );
    // Taking the branch is not enough: JaCoCo counts it once one of its points ran.
    let mut taken_only = Rerun(vec![vec![probe], vec![probe]]);
    let (covering, _) = final_coverage(&plan, &class, &emitted, &mut taken_only);
    assert!(covering.is_empty(), "{covering:?}");
    // The report follows the final tests run again in the order JUnit runs them (JUnit 5: as
    // written), not the goals the search credited them with: here only the second test,
    // testApi, takes the branch.
    let mut rerun = Rerun(vec![vec![], vec![probe, point]]);
    let (covering, executions) = final_coverage(&plan, &class, &emitted, &mut rerun);
    assert_eq!(executions, 2);
    assert_eq!(covering.get(&branch), Some(&emitted.tests[1].name));
    // JUnit 4 runs them by name: testApi before testFigure1, so the first run is testApi's.
    let class4 = test_class(
        &plan,
        &generated,
        (JUnitVersion::Four, ExpectedExceptions::AssertThrows),
    );
    let emitted4 = emit(&class4);
    assert!(emitted4.tests[1].name < emitted4.tests[0].name);
    let mut rerun4 = Rerun(vec![vec![probe, point], vec![]]);
    let (covering4, _) = final_coverage(&plan, &class4, &emitted4, &mut rerun4);
    assert_eq!(covering4.get(&branch), Some(&emitted4.tests[1].name));
    assert_eq!(
        covering.get(&method_goal),
        None,
        "only branches are reported"
    );
    assert_eq!(covering.len(), 1);
}

/// An executor whose n-th test run covers the n-th list of probes.
struct Rerun(Vec<Vec<rivet_testcase::ProbeId>>);

impl rivet_testcase::Executor for Rerun {
    fn execute(&mut self, tests: &[rivet_testcase::TestCase]) -> Vec<rivet_testcase::Execution> {
        tests
            .iter()
            .zip(&self.0)
            .map(|(t, covered)| {
                let mut e = rivet_testcase::Execution::without_result(
                    rivet_testcase::ExecutionStatus::Completed,
                    t.statements.len(),
                    std::time::Duration::ZERO,
                    None,
                );
                e.covered = covered.clone();
                e
            })
            .collect()
    }
}

#[test]
fn goals_whose_tests_verification_dropped_are_lost_and_only_those() {
    use rivet_engine::finish::{lost_goals, test_class};
    use rivet_junit::{ExpectedExceptions, JUnitVersion};
    use rivet_search::Archive;
    use rivet_testcase::{GeneratedTest, TypedTest};

    let plan = figure1_plan();
    let (a, b) = (plan.places[0].0, plan.places[1].0);
    let mut archive = Archive::default();
    archive.update(&TypedTest::new(), &[a, b].into_iter().collect());
    // Verification kept a test for `a` only.
    let kept = vec![GeneratedTest {
        test: TypedTest::new(),
        goals: vec![a],
        assertions: vec![],
    }];
    let class = test_class(
        &plan,
        &kept,
        (JUnitVersion::Five, ExpectedExceptions::AssertThrows),
    );
    assert_eq!(lost_goals(&plan, &archive, &class), vec![b]);
    let none = test_class(
        &plan,
        &[],
        (JUnitVersion::Five, ExpectedExceptions::AssertThrows),
    );
    assert_eq!(lost_goals(&plan, &archive, &none), vec![a, b]);
    assert!(lost_goals(&plan, &Archive::default(), &none).is_empty());
}

/// A branch by method, line, which jump on the line (0 for the first) and outcome.
type Jump = (&'static str, u16, usize, &'static str);

/// The guidance through calls the plan gives branch goals of `strings.DateParser`: the callee
/// outcomes (`method:line:kind`) before and after a branch, and the members that run a callee
/// other than through the branch's method.
#[test]
fn date_parser_branches_after_calls_are_guided_by_the_callees_continuing_outcomes() {
    let cp = classpath();
    let model = model_of(&cp, "strings.DateParser");
    let map = probes(&cp, &["strings/DateParser"]);
    let plan = ClassPlan::build(&cp, model, (None, &[]), &map).expect("plan");
    let class = map.class("strings.DateParser").expect("probes");
    let describe = |p: &rivet_testcase::ProbeId| -> String {
        let (c, b) = map.resolve(*p).expect("a branch probe");
        let (m, _) = c.method_of(b).expect("its method");
        let info = &c.branches[b.0 as usize];
        format!("{m}:{}:{}", info.line.expect("a line"), info.kind)
    };
    let goal = |method: &str, line: u16, nth_jump: usize, kind: &str| {
        let mut jumps: Vec<u32> = plan
            .places
            .iter()
            .filter(|(_, p)| p.method == method && p.line == Some(line))
            .map(|(_, p)| p.offset)
            .collect();
        jumps.dedup();
        let offset = jumps[nth_jump];
        plan.places
            .iter()
            .find(|(_, p)| p.offset == offset && p.method == method && p.kind.to_string() == kind)
            .expect("the branch")
            .0
    };
    let digits = [
        "digits:58:true",
        "digits:58:false",
        "digits:60:false",
        "digits:60:true",
    ];
    // (method, line, which jump on the line, outcome) → the callee outcomes guiding it.
    let cases: &[(Jump, &[&str])] = &[
        // month < 1, month > 12, day < 1: after the three digits() calls; digits' outcomes
        // that can only throw (`c < '0'`, `c > '9'`) are left out.
        (("parse", 18, 0, "true"), &digits),
        (("parse", 18, 1, "false"), &digits),
        (("parse", 21, 0, "true"), &digits),
        // The length and '-' checks come before any call.
        (("parse", 12, 2, "true"), &[]),
        (("isLeap", 47, 0, "true"), &[]),
    ];
    for ((method, line, nth, kind), expected) in cases {
        let g = goal(method, *line, *nth, kind);
        let objective = &plan.goals.get(g).expect("goal").objective;
        let got: Vec<String> = objective
            .callees()
            .map(|c| {
                c.before
                    .iter()
                    .flat_map(|x| &x.probes)
                    .map(describe)
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(got, *expected, "{method}:{line}#{nth}:{kind}");
        if let Some(c) = objective.callees() {
            let m = c.method.as_ref().expect("its method");
            assert_eq!(
                (m.name.as_str(), m.descriptor.as_str()),
                (*method, "(Ljava/lang/String;)[I")
            );
        }
    }
    // The methods whose outcomes guide a branch before and after it (one call deep and more).
    let methods = |callees: &[rivet_search::CalleeOutcomes]| -> Vec<String> {
        let set: std::collections::BTreeSet<String> = callees
            .iter()
            .flat_map(|c| &c.probes)
            .map(|p| {
                describe(p)
                    .split(':')
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        set.into_iter().collect()
    };
    let strings = |s: &[&str]| -> Vec<String> { s.iter().map(|x| x.to_string()).collect() };
    let deep = ["daysIn", "digits", "isLeap"];
    let cases: &[(Jump, &[&str], &[&str])] = &[
        // isLeapDay's first check follows parse(text): parse's continuing outcomes and,
        // deeper, those of digits, daysIn and isLeap.
        (
            ("isLeapDay", 29, 0, "false"),
            &["daysIn", "digits", "isLeap", "parse"],
            &[],
        ),
        // Past the last '-' check come the digits() calls, then daysIn's: what stands
        // between the check and JaCoCo's next probe.
        (("parse", 12, 2, "true"), &[], &deep),
        (("parse", 12, 2, "false"), &[], &[]),
    ];
    for ((method, line, nth, kind), before, after) in cases {
        let g = plan
            .goals
            .get(goal(method, *line, *nth, kind))
            .expect("goal");
        let (b, a) = g
            .objective
            .callees()
            .map(|c| (methods(&c.before), methods(&c.after)))
            .unwrap_or_default();
        assert_eq!(
            (b, a),
            (strings(before), strings(after)),
            "{method}:{line}#{nth}:{kind}"
        );
    }
    // A test calling daysIn runs isLeap outside parse: the members named for isLeap.
    let dash = plan.goals.get(goal("parse", 12, 2, "true")).expect("goal");
    let is_leap = dash
        .objective
        .callees()
        .expect("guided")
        .after
        .iter()
        .find(|c| describe(&c.probes[0]).starts_with("isLeap:"))
        .expect("isLeap guides it");
    let entries: Vec<(&str, &str)> = is_leap
        .entries
        .iter()
        .map(|m| (m.owner.internal(), m.name.as_str()))
        .collect();
    assert_eq!(
        entries,
        [
            ("strings/DateParser", "daysIn"),
            ("strings/DateParser", "isLeap")
        ]
    );
    assert_eq!(class.branches.len(), 37);
}

#[test]
fn a_method_reaches_the_branches_of_the_private_helpers_it_calls() {
    let cp = classpath();
    let model = model_of(&cp, "structures.NodeCachingList");
    let names = [
        "structures/NodeCachingList",
        "structures/NodeCachingList$Node",
    ];
    let map = probes(&cp, &names);
    let plan = ClassPlan::build(&cp, model, (None, &[]), &map).expect("plan");
    let of_method = |name: &str| -> std::collections::BTreeSet<_> {
        plan.places
            .iter()
            .filter(|(_, p)| p.method == name)
            .map(|(g, _)| *g)
            .collect()
    };
    let reached = |name: &str, descriptor: &str| {
        plan.callee_branches
            .get(&(name.to_string(), descriptor.to_string()))
            .cloned()
            .unwrap_or_default()
    };
    let node = of_method("node");
    let recycle = of_method("recycle");
    assert!(!node.is_empty() && !recycle.is_empty());
    // removeAt calls node() and unlink(), which calls recycle().
    let remove_at = reached("removeAt", "(I)I");
    assert!(remove_at.is_superset(&node), "{remove_at:?}");
    assert!(remove_at.is_superset(&recycle), "{remove_at:?}");
    // get calls node() only; contains calls nothing of its class.
    let get = reached("get", "(I)I");
    assert!(
        get.is_superset(&node) && get.is_disjoint(&recycle),
        "{get:?}"
    );
    assert!(reached("contains", "(I)Z").is_empty());
}

/// commons-collections4's TreeBidiMap hands out views and iterators (`ViewMapIterator`, a kind
/// of `ViewIterator`): a test that holds one is nearer the branches of their instance methods
/// (and of their superclasses') than a test that does not, and holding the map itself brings
/// none of them nearer, nor the map's own.
#[test]
fn a_view_the_test_holds_brings_the_branches_of_its_methods_nearer() {
    use rivet_search::{HELD, UNREACHED};
    use rivet_testcase::{Execution, ExecutionStatus, StatementOutcome, TestCase, ValueSummary};

    let jdk = Arc::new(JdkImage::locate().expect("a JDK"));
    let jar = rivet_testkit::debian_jar("commons-collections4");
    let cp = Arc::new(Classpath::from_paths([jar], Some(jdk)).expect("classpath"));
    let class = "org.apache.commons.collections4.bidimap.TreeBidiMap";
    let internal = class.replace('.', "/");
    let model = model_of(&cp, class);
    let mut names: Vec<String> = cp
        .package_classes("org/apache/commons/collections4/bidimap")
        .expect("list")
        .into_iter()
        .filter(|c| c.starts_with(&format!("{internal}$")))
        .collect();
    names.insert(0, internal.clone());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let map = probes(&cp, &names);
    let plan = ClassPlan::build(&cp, model, (None, &[]), &map).expect("plan");
    let holding = |class: &str| {
        let mut e =
            Execution::without_result(ExecutionStatus::Completed, 1, Default::default(), None);
        e.outcomes = vec![StatementOutcome::Normal(ValueSummary::Object {
            identity: 0,
            class: class.into(),
        })];
        e
    };
    let goals_of = |class: &str, method: &str| -> Vec<_> {
        plan.places
            .iter()
            .filter(|(_, p)| p.class.internal() == class && p.method == method)
            .map(|(g, _)| *g)
            .collect()
    };
    let inverse_entries = format!("{internal}$InverseEntryView");
    let map_iterator = format!("{internal}$ViewMapIterator");
    let t = TestCase::new();
    // InverseEntryView.contains runs on an InverseEntryView only; ViewIterator.hasNext on any
    // of its subclasses (the map iterator).
    let contains = goals_of(&inverse_entries, "contains");
    let has_next = goals_of(&format!("{internal}$ViewIterator"), "hasNext");
    let own = goals_of(&internal, "doPut");
    assert!(!contains.is_empty() && !has_next.is_empty() && !own.is_empty());
    for g in &contains {
        assert_eq!(plan.goals.fitness(*g, &t, &holding(&inverse_entries)), HELD);
        assert_eq!(
            plan.goals.fitness(*g, &t, &holding(&map_iterator)),
            UNREACHED
        );
        assert_eq!(plan.goals.fitness(*g, &t, &holding(&internal)), UNREACHED);
    }
    for g in &has_next {
        assert_eq!(plan.goals.fitness(*g, &t, &holding(&map_iterator)), HELD);
        assert_eq!(
            plan.goals.fitness(*g, &t, &holding(&inverse_entries)),
            UNREACHED
        );
    }
    for g in &own {
        assert_eq!(plan.goals.fitness(*g, &t, &holding(&internal)), UNREACHED);
    }
}
