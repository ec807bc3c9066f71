//! Lazy initialization on hand-built states, no JVM: the tiny class model of
//! `test_classes` (`Object`; `t/Node` with `next` and `value`; `t/SubNode` extending it;
//! `t/Other`), and the choices a symbolic reference resolves into: null, an
//! alias of each type-compatible earlier input, a fresh object of each concrete class
//! within the heap scope.

use std::collections::HashMap;

use rivet_pc::{AccessPath, Clause, SymbolTable};
use rivet_solver::{SolveResult, Solver, SolverStats};

use super::*;
use crate::config::ExploreConfig;
use crate::context::Counters;
use crate::invariants::Invariants;
use crate::program::Program;
use crate::test_classes;

/// A solver the tests never need: lazy initialization without range invariants asks none.
struct NoSolver;

impl Solver for NoSolver {
    fn check(&mut self, _clauses: &[Term]) -> SolveResult {
        SolveResult::Unknown("no solver in these tests".into())
    }

    fn stats(&self) -> SolverStats {
        SolverStats::default()
    }
}

/// What an exploration's context owns.
struct World {
    program: Program,
    _classes: test_classes::ClassDir,
    symbols: SymbolTable,
    solver: NoSolver,
    config: ExploreConfig,
    counters: Counters,
}

impl World {
    fn new(tag: &str, config: ExploreConfig) -> World {
        let (program, classes) = test_classes::program(&format!("lazy-{tag}"));
        World {
            program,
            _classes: classes,
            symbols: SymbolTable::default(),
            solver: NoSolver,
            config,
            counters: Counters::default(),
        }
    }

    fn ctx(&mut self) -> Ctx<'_> {
        Ctx {
            program: &mut self.program,
            symbols: &mut self.symbols,
            solver: &mut self.solver,
            config: &self.config,
            counters: &mut self.counters,
        }
    }

    /// A new input reference `name` of class `ty` (internal name).
    fn input(&mut self, state: &mut SymbolicState, name: &str, ty: &str) -> SymRefId {
        let v = input_value(
            state,
            &mut self.ctx(),
            &format!("L{ty};"),
            AccessPath::root(name),
            None,
        )
        .expect("input");
        match v {
            Value::Ref(Reference::Symbolic(s)) => s,
            other => panic!("not a symbolic reference: {other:?}"),
        }
    }

    /// The states resolving `s` leads to (one when there is a single choice).
    fn resolve(&mut self, mut state: SymbolicState, s: SymRefId) -> Vec<SymbolicState> {
        match resolve(&mut state, &mut self.ctx(), s).expect("resolve") {
            Step::Continue => vec![state],
            Step::Fork(states) => states,
            Step::End(end) => panic!("resolution ended the path: {end:?}"),
        }
    }

    /// The choices resolving `s` offers, as `choice` describes them.
    fn choices(&mut self, state: &SymbolicState, s: SymRefId) -> Vec<String> {
        self.resolve(state.clone(), s)
            .iter()
            .map(|next| choice(next, s))
            .collect()
    }
}

/// How `s` was resolved in `state`: `null`, `alias <path>` (a root path reads `{name}`) or `fresh <class>`, checked
/// against the reference the state holds for it.
fn choice(state: &SymbolicState, s: SymRefId) -> String {
    let resolved = state.symrefs[s.0 as usize].resolved;
    let clause = state
        .pc
        .iter()
        .rev()
        .find(|c| {
            matches!(
                c,
                Clause::Null { .. } | Clause::Alias { .. } | Clause::Fresh { .. }
            )
        })
        .expect("a lazy-initialization clause");
    match (clause, resolved) {
        (Clause::Null { .. }, Some(Reference::Null)) => "null".into(),
        (Clause::Alias { target, .. }, Some(Reference::Object(_))) => format!("alias {target}"),
        (Clause::Fresh { class, .. }, Some(Reference::Object(id))) => {
            assert_eq!(state.object(id).map(|o| &*o.type_name), Some(&**class));
            format!("fresh {class}")
        }
        other => panic!("clause and resolution disagree: {other:?}"),
    }
}

/// The successor of resolving `s` that chose `wanted`.
fn pick(states: Vec<SymbolicState>, s: SymRefId, wanted: &str) -> SymbolicState {
    states
        .into_iter()
        .find(|next| choice(next, s) == wanted)
        .unwrap_or_else(|| panic!("no successor chose {wanted}"))
}

/// The symbolic reference held by field `name` of the input object `s` resolved to.
fn field_ref(world: &mut World, state: &SymbolicState, s: SymRefId, name: &str) -> SymRefId {
    let Some(Reference::Object(id)) = state.symrefs[s.0 as usize].resolved else {
        panic!("not resolved to an object");
    };
    let obj = state.object(id).expect("object");
    let class = world.program.class_by_id(obj.class.expect("class")).clone();
    let slot = class.field_by_name(name).expect("field");
    match &obj.kind {
        ObjKind::Instance(fields) => match fields[slot] {
            Value::Ref(Reference::Symbolic(f)) => f,
            ref other => panic!("field {name} holds {other:?}"),
        },
        other => panic!("not an instance: {other:?}"),
    }
}

#[test]
fn a_reference_resolves_to_null_or_a_fresh_object_of_each_concrete_class() {
    let mut world = World::new("first", ExploreConfig::default());
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    assert_eq!(
        world.choices(&state, a),
        ["null", "fresh t/Node", "fresh t/SubNode"]
    );
    // Each choice that forks is one decision deeper; a fresh object is an input.
    for next in world.resolve(state, a) {
        assert_eq!(next.depth, 1);
        let fresh = choice(&next, a).starts_with("fresh");
        assert_eq!(next.inputs.len(), usize::from(fresh));
    }
}

#[test]
fn a_fresh_object_has_its_superclass_fields_first_each_a_new_input() {
    let mut world = World::new("fields", ExploreConfig::default());
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/SubNode");
    let state = pick(world.resolve(state, a), a, "fresh t/SubNode");
    let Some(Reference::Object(id)) = state.symrefs[a.0 as usize].resolved else {
        panic!("not an object");
    };
    let ObjKind::Instance(fields) = &state.object(id).expect("object").kind else {
        panic!("not an instance");
    };
    assert_eq!(fields.len(), 3, "next, value, extra");
    assert!(matches!(fields[0], Value::Ref(Reference::Symbolic(_))));
    assert!(matches!(&fields[1], Value::Int(t) if t.as_const().is_none()));
    assert!(matches!(&fields[2], Value::Int(t) if t.as_const().is_none()));
    // The reference field's symbolic reference is named by its access path and knows its
    // holder.
    let next = field_ref(&mut world, &state, a, "next");
    let sr = &state.symrefs[next.0 as usize];
    assert_eq!(sr.path, AccessPath::root("a").field("next"));
    assert_eq!(&*sr.ty, "t/Node");
    assert_eq!(
        sr.holder
            .as_ref()
            .map(|(h, owner, name)| (*h, &**owner, &**name)),
        Some((id, "t/Node", "next"))
    );
}

#[test]
fn aliases_are_the_earlier_inputs_of_a_compatible_type() {
    let mut world = World::new("alias", ExploreConfig::default());
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    let b = world.input(&mut state, "b", "t/Other");
    let c = world.input(&mut state, "c", "t/Node");
    let d = world.input(&mut state, "d", "java/lang/Object");
    let e = world.input(&mut state, "e", "t/SubNode");
    let state = pick(world.resolve(state, a), a, "fresh t/Node");
    let state = pick(world.resolve(state, b), b, "fresh t/Other");
    // A Node reference may alias the Node, never the Other.
    assert_eq!(
        world.choices(&state, c),
        ["null", "alias {a}", "fresh t/Node", "fresh t/SubNode"]
    );
    // An Object reference may alias both, in order of resolution; a fresh Object is an
    // Object.
    assert_eq!(
        world.choices(&state, d),
        ["null", "alias {a}", "alias {b}", "fresh java/lang/Object"]
    );
    // A SubNode reference may not alias a plain Node.
    assert_eq!(world.choices(&state, e), ["null", "fresh t/SubNode"]);
}

#[test]
fn of_the_choices_a_cast_rejects_only_the_first_is_kept() {
    let mut world = World::new("cast", ExploreConfig::default());
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    let b = world.input(&mut state, "b", "t/Other");
    let c = world.input(&mut state, "c", "t/Other");
    let d = world.input(&mut state, "d", "java/lang/Object");
    let state = pick(world.resolve(state, a), a, "fresh t/Node");
    let state = pick(world.resolve(state, b), b, "fresh t/Other");
    let mut state = pick(world.resolve(state, c), c, "fresh t/Other");
    // Without a cast an Object may alias every input and be a fresh Object.
    assert_eq!(
        world.choices(&state, d),
        [
            "null",
            "alias {a}",
            "alias {b}",
            "alias {c}",
            "fresh java/lang/Object"
        ]
    );
    // Cast to Node: the Node alias and a fresh Node stay; of the three choices that throw at
    // the cast, one.
    state.symrefs[d.0 as usize].cast = Some("t/Node".into());
    assert_eq!(
        world.choices(&state, d),
        ["null", "alias {a}", "alias {b}", "fresh t/Node"]
    );
}

#[test]
fn a_field_may_alias_its_own_holder() {
    let mut world = World::new("self", ExploreConfig::default());
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    let state = pick(world.resolve(state, a), a, "fresh t/Node");
    let next = field_ref(&mut world, &state, a, "next");
    let cyclic = pick(world.resolve(state.clone(), next), next, "alias {a}");
    // The alias is the holder itself: `a.next == a`.
    assert_eq!(
        cyclic.deref(Reference::Symbolic(next)),
        cyclic.deref(Reference::Symbolic(a))
    );
    assert_eq!(cyclic.inputs.len(), 1, "an alias is no new input");
}

#[test]
fn the_heap_scope_bounds_fresh_objects_per_class() {
    let config = ExploreConfig {
        heap_scope: HashMap::from([("t/Node".to_string(), 1)]),
        ..ExploreConfig::default()
    };
    let mut world = World::new("scope", config);
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    // Within the scope: the first Node may be fresh.
    assert_eq!(
        world.choices(&state, a),
        ["null", "fresh t/Node", "fresh t/SubNode"]
    );
    let state = pick(world.resolve(state, a), a, "fresh t/Node");
    assert_eq!(state.scope.get("t/Node"), Some(&1));
    // The scope is spent: `a.next` is null, `a` itself or a fresh SubNode (another class,
    // unbounded), and the pruned choice is counted.
    let next = field_ref(&mut world, &state, a, "next");
    let pruned = world.counters.pruned;
    assert_eq!(
        world.choices(&state, next),
        ["null", "alias {a}", "fresh t/SubNode"]
    );
    assert_eq!(world.counters.pruned, pruned + 1);
}

#[test]
fn without_a_scope_the_same_field_may_be_a_fresh_node() {
    let mut world = World::new("noscope", ExploreConfig::default());
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    let state = pick(world.resolve(state, a), a, "fresh t/Node");
    let next = field_ref(&mut world, &state, a, "next");
    assert_eq!(
        world.choices(&state, next),
        ["null", "alias {a}", "fresh t/Node", "fresh t/SubNode"]
    );
    let deeper = pick(world.resolve(state, next), next, "fresh t/Node");
    assert_eq!(deeper.scope.get("t/Node"), Some(&2));
    assert_eq!(deeper.inputs.len(), 2);
}

#[test]
fn a_choice_at_the_depth_bound_ends_the_path() {
    let config = ExploreConfig {
        depth: 3,
        ..ExploreConfig::default()
    };
    let mut world = World::new("depth", config);
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    state.depth = 3;
    let step = resolve(&mut state, &mut world.ctx(), a).expect("resolve");
    assert!(
        matches!(&step, Step::End(PathEnd::Bound(reason)) if reason == "depth"),
        "{step:?}"
    );
}

#[test]
fn a_not_null_invariant_removes_the_null_choice_and_counts_its_use() {
    let config = ExploreConfig {
        invariants: Invariants::parse("not-null t.Node.next\n").expect("invariants"),
        ..ExploreConfig::default()
    };
    let mut world = World::new("notnull", config);
    let mut state = SymbolicState::new();
    let a = world.input(&mut state, "a", "t/Node");
    // A root input has no holder: the invariant does not apply to it.
    let state = pick(world.resolve(state, a), a, "fresh t/Node");
    assert!(world.counters.invariant_uses.is_empty());
    let next = field_ref(&mut world, &state, a, "next");
    assert_eq!(
        world.choices(&state, next),
        ["alias {a}", "fresh t/Node", "fresh t/SubNode"]
    );
    assert_eq!(world.counters.invariant_uses.get(&0), Some(&1));
}

#[test]
fn primitive_inputs_are_symbols_of_their_sort_named_by_path() {
    let mut world = World::new("prims", ExploreConfig::default());
    let mut state = SymbolicState::new();
    for (descriptor, long) in [("I", false), ("J", true), ("Z", false)] {
        let v = input_value(
            &mut state,
            &mut world.ctx(),
            descriptor,
            AccessPath::root(descriptor),
            None,
        )
        .expect("input");
        match (v, long) {
            (Value::Int(t), false) | (Value::Long(t), true) => assert!(t.as_const().is_none()),
            (other, _) => panic!("{descriptor}: {other:?}"),
        }
    }
    assert_eq!(world.symbols.len(), 3);
    assert!(state.symrefs.is_empty(), "no reference was made");
}
