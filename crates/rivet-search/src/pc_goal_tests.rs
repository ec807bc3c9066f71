//! Unit tests of SUSHI's distance: numeric (integer, float and double), null, alias and fresh
//! clauses over observed values, undefined paths, the best call, and tests that never call the
//! target.

use std::time::Duration;

use rivet_pc::{CmpOp, SymbolSort, SymbolTable};
use rivet_testcase::ExecutionStatus;

use super::*;

fn member() -> MemberRef {
    MemberRef::new("sushi/Sample", "foo", "(Lsushi/Sample$Node;)I")
}

fn obs(root: ObservedRoot, fields: &[&str]) -> ObservedPath {
    ObservedPath {
        root,
        steps: fields
            .iter()
            .map(|f| ObservedStep::Field(f.to_string()))
            .collect(),
    }
}

fn object(id: u32, class: &str) -> ObservedValue {
    ObservedValue::Object {
        id,
        class: class.into(),
    }
}

fn call(values: Vec<(ObservedPath, ObservedValue)>) -> CallObservation {
    CallObservation {
        member: member(),
        statement: 0,
        values: values.into_iter().collect(),
        trace: Vec::new(),
        trace_truncated: false,
    }
}

/// `{this}.size >= 15`, `{arg1} != null` (as fresh), `{this}.head == null`,
/// `{this}.tail == {arg1}`.
fn objective() -> PathConditionObjective {
    let mut table = SymbolTable::default();
    let this = AccessPath::root("this");
    let arg = AccessPath::root("arg1");
    let size = table.fresh(this.field("size"), SymbolSort::Int);
    let a = table.fresh(arg.clone(), SymbolSort::Ref);
    let head = table.fresh(this.field("head"), SymbolSort::Ref);
    let tail = table.fresh(this.field("tail"), SymbolSort::Ref);
    let eq = |x: Term, y: Term| Term::compare(CmpOp::Eq, x, y).unwrap_or_else(|e| panic!("{e}"));
    let var = |s, sort| Term::var(s, sort);
    let clauses = vec![
        Clause::Numeric(
            Term::compare(CmpOp::Ge, var(size, SymbolSort::Int), Term::int(15))
                .unwrap_or_else(|e| panic!("{e}")),
        ),
        Clause::Fresh {
            path: arg.clone(),
            class: "sushi/Sample$Node".into(),
            term: eq(var(a, SymbolSort::Ref), Term::int(1)),
        },
        Clause::Null {
            path: this.field("head"),
            term: eq(var(head, SymbolSort::Ref), Term::int(0)),
        },
        Clause::Alias {
            path: this.field("tail"),
            target: arg,
            term: eq(var(tail, SymbolSort::Ref), var(a, SymbolSort::Ref)),
        },
    ];
    PathConditionObjective::new(member(), Arc::new(PathCondition::new(clauses, &table)))
}

fn satisfying() -> Vec<(ObservedPath, ObservedValue)> {
    vec![
        (
            obs(ObservedRoot::Receiver, &["size"]),
            ObservedValue::Int(15),
        ),
        (
            obs(ObservedRoot::Argument(0), &[]),
            object(7, "sushi.Sample$Node"),
        ),
        (obs(ObservedRoot::Receiver, &["head"]), ObservedValue::Null),
        (
            obs(ObservedRoot::Receiver, &["tail"]),
            object(7, "sushi.Sample$Node"),
        ),
    ]
}

#[test]
fn the_observation_names_every_path_once() {
    let o = objective().observation();
    assert_eq!(o.member, member());
    assert_eq!(o.paths.len(), 4);
    assert!(o.paths.contains(&obs(ObservedRoot::Argument(0), &[])));
}

#[test]
fn a_satisfying_state_is_at_distance_zero() {
    assert_eq!(objective().distance(&call(satisfying())), 0.0);
}

#[test]
fn numeric_distance_shrinks_as_the_values_approach() {
    let o = objective();
    let at = |size: i64| {
        let mut v = satisfying();
        v[0].1 = ObservedValue::Int(size);
        o.distance(&call(v))
    };
    let (far, near, eq) = (at(0), at(14), at(15));
    assert!(far > near && near > 0.0, "{far} {near}");
    assert_eq!(eq, 0.0);
    // SUSHI: 1 - 1/(1 + |15 - 0| + ε).
    assert!((far - (1.0 - 1.0 / (16.0 + EPSILON))).abs() < 1e-12);
    assert!(far < 1.0);
}

#[test]
fn undefined_values_cost_one_per_clause() {
    let o = objective();
    let mut v = satisfying();
    v[0].1 = ObservedValue::Undefined;
    assert_eq!(o.distance(&call(v)), 1.0);
    // Nothing observed: every clause fails.
    assert_eq!(o.distance(&call(Vec::new())), 4.0);
}

#[test]
fn reference_clauses_are_zero_or_one() {
    let o = objective();
    let mut v = satisfying();
    v[2].1 = object(9, "sushi.Sample$Node"); // head not null
    v[3].1 = object(8, "sushi.Sample$Node"); // tail is another object
    assert_eq!(o.distance(&call(v)), 2.0);
    let mut v = satisfying();
    v[1].1 = object(7, "sushi.Other"); // fresh of the wrong class
    assert_eq!(o.distance(&call(v)), 1.0);
    let mut v = satisfying();
    v[1].1 = ObservedValue::Null; // fresh needs an object; the alias then fails too
    assert_eq!(o.distance(&call(v)), 2.0);
}

#[test]
fn fresh_objects_must_differ_from_earlier_fresh_ones() {
    let mut table = SymbolTable::default();
    let this = AccessPath::root("this");
    let a = table.fresh(this.field("a"), SymbolSort::Ref);
    let b = table.fresh(this.field("b"), SymbolSort::Ref);
    let eq = |s| {
        Term::compare(CmpOp::Eq, Term::var(s, SymbolSort::Ref), Term::int(1))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let fresh = |f: &str, s| Clause::Fresh {
        path: this.field(f),
        class: "p/N".into(),
        term: eq(s),
    };
    let pc = PathCondition::new(vec![fresh("a", a), fresh("b", b)], &table);
    let o = PathConditionObjective::new(member(), Arc::new(pc));
    let both = |x, y| {
        call(vec![
            (obs(ObservedRoot::Receiver, &["a"]), object(x, "p.N")),
            (obs(ObservedRoot::Receiver, &["b"]), object(y, "p.N")),
        ])
    };
    assert_eq!(o.distance(&both(1, 2)), 0.0);
    assert_eq!(o.distance(&both(1, 1)), 1.0);
}

#[test]
fn fitness_takes_the_best_call_and_penalizes_no_call() {
    let o = objective();
    let run = |observations| Execution {
        status: ExecutionStatus::Completed,
        outcomes: Vec::new(),
        covered: Vec::new(),
        distances: Vec::new(),
        hits: Vec::new(),
        seeds: Vec::new(),
        duration: Duration::ZERO,
        worker: None,
        stray_threads: 0,
        observations,
        snapshots: Vec::new(),
    };
    let test = TestCase::default();
    assert_eq!(o.fitness(&test, &run(Vec::new())), 5.0);
    let mut worse = satisfying();
    worse[0].1 = ObservedValue::Int(3);
    let mut other = call(satisfying());
    other.member = MemberRef::new("sushi/Sample", "bar", "()V");
    let e = run(vec![call(worse), other.clone(), call(satisfying())]);
    assert_eq!(o.fitness(&test, &e), 0.0);
    assert_eq!(o.fitness(&test, &run(vec![other])), 5.0);
    // The best call wins in either order, though a worse call after it is not read to the end.
    let mut two = satisfying();
    two[2].1 = object(9, "sushi.Sample$Node");
    two[3].1 = object(8, "sushi.Sample$Node");
    let mut one = satisfying();
    one[1].1 = object(7, "sushi.Other");
    let (two, one) = (call(two), call(one));
    assert_eq!(o.distance(&two), 2.0);
    assert_eq!(o.fitness(&test, &run(vec![one.clone(), two.clone()])), 1.0);
    assert_eq!(o.fitness(&test, &run(vec![two, one])), 1.0);
}

#[test]
fn access_paths_map_to_observed_paths() {
    let p = AccessPath::root("arg2").field("items").index("3").length();
    let o = observed_path(&p).unwrap_or_else(|| panic!("observable"));
    assert_eq!(o.root, ObservedRoot::Argument(1));
    assert_eq!(
        o.steps,
        vec![
            ObservedStep::Field("items".into()),
            ObservedStep::Index(3),
            ObservedStep::Length
        ]
    );
    assert!(observed_path(&AccessPath::root("size#2")).is_none());
    assert!(observed_path(&AccessPath::root("arg0")).is_none());
}

/// The objective of one numeric clause built by `clause` from the symbols `{arg1}.x` (double),
/// `{this}.ratio` (float) and `{this}.count` (int).
fn fp_objective(clause: impl FnOnce(Term, Term, Term) -> Term) -> PathConditionObjective {
    let mut table = SymbolTable::default();
    let x = table.fresh(AccessPath::root("arg1").field("x"), SymbolSort::Double);
    let ratio = table.fresh(AccessPath::root("this").field("ratio"), SymbolSort::Float);
    let count = table.fresh(AccessPath::root("this").field("count"), SymbolSort::Int);
    let term = clause(
        Term::var(x, SymbolSort::Double),
        Term::var(ratio, SymbolSort::Float),
        Term::var(count, SymbolSort::Int),
    );
    let pc = PathCondition::new(vec![Clause::Numeric(term)], &table);
    PathConditionObjective::new(member(), Arc::new(pc))
}

fn ok<T>(r: Result<T, rivet_pc::SortError>) -> T {
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn x_path() -> ObservedPath {
    obs(ObservedRoot::Argument(0), &["x"])
}

/// SUSHI's δ of a false comparison whose sides are `gap` apart.
fn sushi(gap: f64) -> f64 {
    1.0 - 1.0 / (1.0 + gap + EPSILON)
}

#[test]
fn a_double_comparison_gets_a_gradient() {
    // {arg1}.x < 10.0
    let o = fp_objective(|x, _, _| ok(Term::compare(CmpOp::Lt, x, Term::double(10.0))));
    assert_eq!(o.observation().paths, vec![x_path()]);
    let at = |v: ObservedValue| o.distance(&call(vec![(x_path(), v)]));
    let (far, near) = (
        at(ObservedValue::double(12.5)),
        at(ObservedValue::double(10.5)),
    );
    assert!(far > near && near > 0.0, "{far} {near}");
    assert!((far - sushi(2.5)).abs() < 1e-12, "{far}");
    assert!((near - sushi(0.5)).abs() < 1e-12, "{near}");
    // The boundary itself is false but close; below it the clause holds.
    assert!(at(ObservedValue::double(10.0)) < near);
    assert_eq!(at(ObservedValue::double(9.999)), 0.0);
    assert_eq!(at(ObservedValue::double(f64::NEG_INFINITY)), 0.0);
    // NaN compares false and is as far as can be; so are infinities.
    assert_eq!(at(ObservedValue::double(f64::NAN)), 1.0);
    assert_eq!(at(ObservedValue::Double(0xfff8_0000_0000_0001)), 1.0);
    assert_eq!(at(ObservedValue::double(f64::INFINITY)), 1.0);
    // A large finite gap is still below the maximum.
    assert!(at(ObservedValue::double(1e6)) < 1.0);
    // Undefined, or not a floating-point value: one.
    assert_eq!(at(ObservedValue::Undefined), 1.0);
    assert_eq!(at(ObservedValue::Int(3)), 1.0);
    assert_eq!(at(ObservedValue::Null), 1.0);
    // A float read for a double symbol widens exactly.
    assert_eq!(at(ObservedValue::float(12.5)), far);
}

#[test]
fn a_negated_float_comparison_gets_a_gradient() {
    // !({arg1}.x < 10.0): holds for x >= 10.0 and for NaN.
    let o = fp_objective(|x, _, _| {
        ok(Term::negation(ok(Term::compare(
            CmpOp::Lt,
            x,
            Term::double(10.0),
        ))))
    });
    let at = |v: f64| o.distance(&call(vec![(x_path(), ObservedValue::double(v))]));
    let (far, near) = (at(3.0), at(9.0));
    assert!(far > near && near > 0.0, "{far} {near}");
    assert!((far - sushi(7.0)).abs() < 1e-12, "{far}");
    assert_eq!(at(10.0), 0.0);
    assert_eq!(at(f64::NAN), 0.0);
    assert_eq!(at(f64::NEG_INFINITY), 1.0);
}

#[test]
fn a_float_symbol_is_evaluated_on_its_own_bits() {
    // {this}.ratio == 0.1f: exactly the float 0.1f, which no double rounding would give.
    let ratio = obs(ObservedRoot::Receiver, &["ratio"]);
    let o = fp_objective(|_, r, _| ok(Term::compare(CmpOp::Eq, r, Term::float(0.1))));
    let at = |v: ObservedValue| o.distance(&call(vec![(ratio.clone(), v)]));
    assert_eq!(at(ObservedValue::float(0.1)), 0.0);
    let off = at(ObservedValue::float(0.25));
    let gap = 0.25 - f64::from(0.1f32);
    assert!((off - sushi(gap)).abs() < 1e-12, "{off}");
    // The next float up is at a tiny but non-zero distance.
    let next = at(ObservedValue::Float(0.1f32.to_bits() + 1));
    assert!(next > 0.0 && next < off, "{next}");
    assert_eq!(at(ObservedValue::float(f32::NAN)), 1.0);
    // A double (which a float field never holds) is not read as a float.
    assert_eq!(at(ObservedValue::double(0.1)), 1.0);
}

#[test]
fn an_integer_symbol_converted_to_double_gets_the_double_gap() {
    // (double) {this}.count > 2.5
    let count = obs(ObservedRoot::Receiver, &["count"]);
    let o = fp_objective(|_, _, c| {
        let d = ok(Term::unary(UnaryOp::I2D, c));
        ok(Term::compare(CmpOp::Gt, d, Term::double(2.5)))
    });
    let at = |v: i64| o.distance(&call(vec![(count.clone(), ObservedValue::Int(v))]));
    assert_eq!(at(3), 0.0);
    assert!((at(2) - sushi(0.5)).abs() < 1e-12);
    assert!((at(-10) - sushi(12.5)).abs() < 1e-12);
}

#[test]
fn literals_are_the_constants_compared_against_and_their_neighbours() {
    // `{this}.size >= 15`: 14, 15 and 16; reference clauses add none.
    assert_eq!(objective().literals(), &[14, 15, 16]);
}

#[test]
fn the_goals_offer_the_literals_of_active_goals_only() {
    let mut goals = crate::Goals::default();
    assert!(goals.literals().is_empty());
    let id = goals.add(
        Arc::new(objective()),
        "Sample.foo".into(),
        None,
        "path 0".into(),
    );
    assert_eq!(&goals.literals()[..], &[14, 15, 16]);
    goals.retire(id);
    assert!(goals.literals().is_empty());
}
