//! Seeded value generators: append to a test the statements that produce a value of a type
//! (reusing earlier values, constants of the class under test, null, arrays, enums, objects
//! from constructors and factories, JDK collections filled with elements of their generic
//! type, lambdas and class literals), calls of the class under test and calls on values the
//! test already holds.

use std::collections::HashMap;

use rivet_testcase::{MemberRef, PrimitiveValue, Statement, StatementId};

use crate::class_api::{Callable, CallableKind};
use crate::generate_special::{bind, CLASS};
use crate::model::{known_implementation, ApiModel};
use rivet_rng::Rng;
use rivet_testcase::TypedTest;
use rivet_testcase::{JType, Prim, OBJECT, STRING};

/// Probabilities and limits of generation.
#[derive(Debug, Clone, PartialEq)]
pub struct GenConfig {
    /// Nesting of values built to build a value.
    pub max_depth: usize,
    /// Longest test the generator grows.
    pub max_len: usize,
    /// Chance of `null` for a reference parameter.
    pub p_null: f64,
    /// Chance of reusing an earlier value of a compatible type.
    pub p_reuse: f64,
    /// Chance of taking a constant of the class under test for a number or string.
    pub p_constant: f64,
    /// Most elements of a generated array or collection.
    pub max_elements: usize,
}

/// NaN, the infinities, negative zero and the extremes, offered now and then for floats
/// and doubles (`Double.isNaN` checks are common guards).
const SPECIAL_FLOATS: [f64; 6] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    f64::MAX,
    f64::MIN_POSITIVE,
];

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_depth: 4,
            max_len: 60,
            p_null: 0.05,
            p_reuse: 0.6,
            p_constant: 0.35,
            max_elements: 3,
        }
    }
}

/// Builds values and calls over an [`ApiModel`].
#[derive(Debug)]
pub struct Generator<'m> {
    pub model: &'m ApiModel,
    pub config: GenConfig,
    /// Set while the argument of a call on a collection or map is made: an element is then a
    /// fresh value rather than one the test already holds, so that the elements differ.
    fresh_element: std::cell::Cell<bool>,
    /// The collection or map while the argument of a lookup in it is made (`contains`,
    /// `containsKey`, `remove` …): it is then, half the time, one of that collection's elements.
    query_element: std::cell::Cell<Option<StatementId>>,
}

pub(crate) const CHARS: &[u8] = b"abcxyzABZ019 _-.,;:/@#\n";

/// Chance that a fresh string is one the code under test was seen comparing or parsing.
pub(crate) const P_DYNAMIC: f64 = 0.2;

/// How often a producer of a type is one that parses program text, when the packages hold
/// some (`Constants::source_texts`).
pub(crate) const P_PARSER: f64 = 0.15;

/// How often a parser's argument is one of the packages' program texts (else any string).
const P_PROGRAM_ARGUMENT: f64 = 0.8;

/// How often a lookup's argument (`contains`, `containsKey`, `remove` …) on a collection or
/// map is one of that collection's own elements ([`ApiModel::element_values`]: what was
/// stored in it, what calls on it returned, what its iterators handed out), when it has any.
const P_QUERY_ELEMENT: f64 = 0.5;

/// How often a primitive argument that repeats an earlier argument of the same call (or an
/// array element an earlier element) is replaced by a fresh, different value.
const DISTINCT_ARGUMENTS: f64 = 0.8;

impl<'m> Generator<'m> {
    pub fn new(model: &'m ApiModel, config: GenConfig) -> Generator<'m> {
        Generator {
            model,
            config,
            fresh_element: std::cell::Cell::new(false),
            query_element: std::cell::Cell::new(None),
        }
    }

    /// A test of `calls` random calls of the class under test.
    pub fn random_test(&self, rng: &mut Rng, calls: usize) -> TypedTest {
        let mut t = TypedTest::new();
        for _ in 0..calls {
            if t.len() >= self.config.max_len {
                break;
            }
            self.call_target(rng, &mut t);
        }
        self.model.drop_self_insertions(&mut t);
        t
    }

    /// Appends a call of a random target (constructor, factory, method or field of the class
    /// under test). False when nothing could be appended.
    pub fn call_target(&self, rng: &mut Rng, t: &mut TypedTest) -> bool {
        // Prefer methods over creators once an instance exists.
        let targets = &self.model.targets;
        let Some(c) = rng.pick(targets) else {
            return false;
        };
        self.call(rng, t, c, 0).is_some() || !t.is_empty()
    }

    /// Appends a call of a method on a value the test already holds (a public method of a
    /// user class, a method filling a JDK collection, any query or update of a JDK value the
    /// class under test handed out). Falls back to a target call.
    pub fn call_on_existing(&self, rng: &mut Rng, t: &mut TypedTest) -> bool {
        // A JDK-typed value the class handed out gets the JDK type's queries too (`views`).
        let methods_on = |i: usize, ty: &JType| {
            if self.model.handed_out(t, i) {
                self.model.methods_on_handed_out(ty)
            } else {
                self.model.methods_on(ty)
            }
        };
        let candidates: Vec<(usize, JType)> = t
            .values_before(t.len())
            .filter(|(i, ty)| {
                ty.is_reference()
                    && !matches!(t.statements()[*i], Statement::Null { .. })
                    && !methods_on(*i, ty).is_empty()
            })
            .map(|(i, ty)| (i, ty.clone()))
            .collect();
        let Some((receiver, ty)) = rng.pick(&candidates).cloned() else {
            return self.call_target(rng, t);
        };
        let methods = methods_on(receiver, &ty);
        let Some(m) = rng.pick(&methods).cloned() else {
            return false;
        };
        self.call_with_receiver(rng, t, &m, Some((StatementId(receiver as u32), ty)), 0)
            .is_some()
    }

    /// Appends a call of `c` (receiver and arguments found or built); returns the call's id.
    pub fn call(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        c: &Callable,
        depth: usize,
    ) -> Option<StatementId> {
        let receiver = if c.is_static || c.kind == CallableKind::Constructor {
            None
        } else {
            let owner = JType::class(c.member.owner.internal());
            let r = self.reference(rng, t, &owner, depth + 1, true)?;
            let ty = t.types[r.0 as usize].clone().unwrap_or(owner);
            Some((r, ty))
        };
        self.call_with_receiver(rng, t, c, receiver, depth)
    }

    fn call_with_receiver(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        c: &Callable,
        receiver: Option<(StatementId, JType)>,
        depth: usize,
    ) -> Option<StatementId> {
        let receiver_args: Vec<JType> = receiver
            .as_ref()
            .map(|(_, ty)| self.model.owner_args(ty, c.member.owner.internal()))
            .unwrap_or_default();
        let (params, returns) = c.instantiate(&receiver_args);
        let mut args = Vec::with_capacity(params.len());
        // A generic method's type variables, bound by the arguments chosen so far.
        let mut env = HashMap::new();
        let parser =
            !self.model.constants.source_texts.is_empty() && crate::source_text::parses_text(c);
        for p in &params {
            let p = if env.is_empty() {
                p.clone()
            } else {
                p.substitute(&env)
            };
            let holder = receiver
                .as_ref()
                .is_some_and(|(_, ty)| self.model.holds_elements(ty));
            self.fresh_element
                .set(holder && crate::elements::inserts_elements(&c.member.name));
            let lookup = holder && crate::elements::queries_elements(&c.member.name);
            self.query_element
                .set(receiver.as_ref().map(|(r, _)| *r).filter(|_| lookup));
            // A parser's text is mostly one of the packages' programs.
            let id = if parser && rng.chance(P_PROGRAM_ARGUMENT) {
                self.program_text(rng)
                    .map(|text| t.push(Statement::String(text), Some(p.clone())))
            } else {
                self.value(rng, t, &p, depth + 1)
            };
            self.fresh_element.set(false);
            self.query_element.set(None);
            let mut id = id?;
            // Distinct parameters mostly get distinct values: `f(x, x)` reaches branches but
            // cannot tell an argument-order or comparison mutant from the original.
            if let (JType::Prim(prim), true) = (&p, args.contains(&id)) {
                if rng.chance(DISTINCT_ARGUMENTS) {
                    id = self.distinct_primitive(rng, t, *prim, id);
                }
            } else if args.contains(&id) && rng.chance(DISTINCT_ARGUMENTS) {
                // Likewise objects: `execPool(list, list)` never holds an element only the
                // second list has.
                id = self.distinct_reference(rng, t, &p, depth + 1, id);
            }
            if let Some(Some(actual)) = t.types.get(id.0 as usize) {
                let actual = actual.clone();
                bind(&p, &actual, &mut env);
            }
            args.push(id);
        }
        let returns = returns.map(|r| {
            if env.is_empty() {
                r
            } else {
                r.substitute(&env)
            }
        });
        let ty = returns
            .map(|r| if r.is_concrete() { r } else { r.erased() })
            .map(|r| self.model.declarable(&r));
        let id = match c.kind {
            CallableKind::Constructor => t.push(
                Statement::Construct {
                    constructor: c.member.clone(),
                    args,
                },
                Some(
                    ty.map(|t| t.erased())
                        .unwrap_or_else(|| JType::class(c.member.owner.internal())),
                ),
            ),
            CallableKind::Method => t.push(
                Statement::Call {
                    method: c.member.clone(),
                    receiver: receiver.map(|r| r.0),
                    args,
                },
                ty,
            ),
            CallableKind::FieldWrite => t.push(
                Statement::FieldWrite {
                    field: c.member.clone(),
                    receiver: receiver.map(|r| r.0),
                    value: *args.first()?,
                },
                None,
            ),
        };
        Some(id)
    }

    /// Appends statements producing a value of `ty` (or finds an earlier one); its id.
    pub fn value(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        ty: &JType,
        depth: usize,
    ) -> Option<StatementId> {
        match ty {
            JType::Prim(p) => {
                let reuse: Vec<usize> = t
                    .values_before(t.len())
                    .filter(|(_, v)| *v == ty)
                    .map(|(i, _)| i)
                    .collect();
                if !reuse.is_empty() && rng.chance(self.config.p_reuse * 0.5) {
                    return rng.pick(&reuse).map(|i| StatementId(*i as u32));
                }
                let v = self.primitive(rng, *p);
                Some(t.push(Statement::Primitive(v), Some(ty.clone())))
            }
            JType::Var { erasure, .. } => {
                let id = self.value(rng, t, erasure, depth)?;
                // A null for a type variable keeps the variable as its type: written without
                // a cast, so that javac infers the variable from the other arguments.
                if id.0 as usize + 1 == t.len()
                    && matches!(t.statements().last(), Some(Statement::Null { .. }))
                {
                    t.types[id.0 as usize] = Some(ty.clone());
                }
                Some(id)
            }
            _ => self.reference(rng, t, ty, depth, false),
        }
    }

    /// A reference value of `ty`; never `null` when `non_null`.
    fn reference(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        ty: &JType,
        depth: usize,
        non_null: bool,
    ) -> Option<StatementId> {
        let reuse: Vec<usize> = t
            .values_before(t.len())
            .filter(|(i, v)| {
                // A null is made afresh for each parameter (it costs nothing and is written
                // with a cast to that parameter's type).
                v.is_reference()
                    && !matches!(t.statements()[*i], Statement::Null { .. })
                    && self.model.assignable(v, ty)
                    && !self.bound_otherwise(v, ty)
            })
            .map(|(i, _)| i)
            .collect();
        // Strings are cheap to make afresh and distinct ones matter (map keys): reused half
        // as often as other references.
        let p_reuse = if non_null {
            0.9
        } else if ty.is_string() {
            self.config.p_reuse * 0.5
        } else {
            self.config.p_reuse
        };
        // An element of a collection is mostly fresh (and never the collection itself, which
        // is not among `reuse` then: only values that hold no elements are).
        let fresh_element = self.fresh_element.replace(false);
        let (reuse, p_reuse) = if fresh_element {
            let plain: Vec<usize> = reuse
                .into_iter()
                .filter(|i| {
                    t.types[*i]
                        .as_ref()
                        .is_some_and(|v| !self.model.holds_elements(v))
                })
                .collect();
            (plain, p_reuse * 0.25)
        } else {
            (reuse, p_reuse)
        };
        // A lookup's argument is mostly an element its collection holds or handed out.
        if let Some(of) = self.query_element.take() {
            if rng.chance(P_QUERY_ELEMENT) {
                let elements: Vec<usize> = self
                    .model
                    .element_values(t, t.len(), of.0 as usize)
                    .into_iter()
                    .filter(|i| reuse.contains(i))
                    .collect();
                if let Some(i) = rng.pick(&elements) {
                    return Some(StatementId(*i as u32));
                }
            }
        }
        if !reuse.is_empty() && rng.chance(p_reuse) {
            return rng.pick(&reuse).map(|i| StatementId(*i as u32));
        }
        if !non_null && (rng.chance(self.config.p_null) || depth > self.config.max_depth) {
            return Some(self.null(t, ty));
        }
        // A receiver whose only producers need a receiver of their own (a tree node made by
        // another node's method) cannot be built past a few levels: give up.
        if depth > 2 * self.config.max_depth {
            return None;
        }
        match ty {
            JType::Array(component) => {
                let n = self.array_length(rng, component);
                let mut elements = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut e = self.value(rng, t, component, depth + 1)?;
                    // Distinct elements, mostly: `[3, 3]` hides an index mix-up.
                    if let (JType::Prim(p), true) = (&**component, elements.contains(&e)) {
                        if rng.chance(DISTINCT_ARGUMENTS) {
                            e = self.distinct_primitive(rng, t, *p, e);
                        }
                    }
                    elements.push(e);
                }
                let component_erased = component.erased();
                Some(t.push(
                    Statement::Array {
                        component: component_erased.descriptor(),
                        elements,
                    },
                    Some(JType::Array(Box::new(component_erased))),
                ))
            }
            JType::Var { erasure, .. } => self.reference(rng, t, erasure, depth, non_null),
            JType::Prim(p) => Some(t.push(
                Statement::Primitive(self.primitive(rng, *p)),
                Some(ty.clone()),
            )),
            JType::Class { name, args } => {
                let id = self.object(rng, t, name, args, depth, non_null)?;
                let raw = self.model.declarable(&JType::class(name));
                if matches!(
                    t.statements().get(id.0 as usize),
                    Some(Statement::Null { .. })
                ) {
                    // A null made for another class on the way (a pick for `Object`) is this
                    // parameter's null: its cast must pick this parameter's overload.
                    if id.0 as usize + 1 == t.len() {
                        t.types[id.0 as usize] = Some(raw);
                    }
                } else {
                    as_parameter_type(t, id, &raw, args);
                }
                Some(id)
            }
        }
    }

    /// Is `v` a non-generic class other than `ty`'s, where `ty` is parameterized? javac does
    /// not pass a `Properties` (a `Map<Object, Object>`) as a `Map<String, V>`.
    fn bound_otherwise(&self, v: &JType, ty: &JType) -> bool {
        let (Some(from), Some(to)) = (v.class_name(), ty.class_name()) else {
            return false;
        };
        from != to
            && !ty.args().is_empty()
            && self
                .model
                .class_api(from)
                .is_some_and(|api| api.type_params.params.is_empty())
    }

    /// `null` of `ty`, declared as a type the test can name (a parameter of a private nested
    /// class's type gets its nearest nameable supertype).
    fn null(&self, t: &mut TypedTest, ty: &JType) -> StatementId {
        let erased = ty.erased();
        t.push(
            Statement::Null {
                descriptor: erased.descriptor(),
            },
            Some(self.model.declarable(&erased)),
        )
    }

    pub(crate) fn object(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        name: &str,
        args: &[JType],
        depth: usize,
        non_null: bool,
    ) -> Option<StatementId> {
        if let Some(p) = Prim::unboxed(name) {
            return Some(t.push(
                Statement::Primitive(self.primitive(rng, p)),
                Some(JType::class(name)),
            ));
        }
        match name {
            // Files beneath the test's own temporary directory (JUnit's `@TempDir`).
            "java/io/File" | "java/nio/file/Path" if rng.chance(0.8) => {
                return Some(self.scratch(rng, t, &format!("L{name};")));
            }
            STRING | "java/lang/CharSequence" => {
                let s = self.string(rng);
                return Some(t.push(Statement::String(s), Some(JType::class(STRING))));
            }
            "java/lang/Number" => {
                return self.object(rng, t, "java/lang/Integer", &[], depth, non_null)
            }
            "java/lang/Comparable" => {
                let pick = if rng.chance(0.5) {
                    STRING
                } else {
                    "java/lang/Integer"
                };
                return self.object(rng, t, pick, &[], depth, non_null);
            }
            OBJECT => {
                // A type the code tests with instanceof or casts to, now and then.
                let casts = &self.model.constants.casts;
                if !casts.is_empty() && rng.chance(0.4) {
                    let pick = rng.pick(casts)?.clone();
                    if let Some(id) = self.object(rng, t, &pick, &[], depth, non_null) {
                        return Some(id);
                    }
                }
                let choice = rng.below(5);
                let pick = match choice {
                    0 => STRING,
                    1 => "java/lang/Integer",
                    // Equal hash codes, unequal values: Long 1 beside Integer 1 reaches the
                    // collision branches of hash tables.
                    4 => "java/lang/Long",
                    2 if !self
                        .model
                        .producers(&JType::class(self.model.class.internal()))
                        .is_empty() =>
                    {
                        self.model.class.internal()
                    }
                    _ => {
                        let ctor = MemberRef::new(OBJECT, "<init>", "()V");
                        return Some(t.push(
                            Statement::Construct {
                                constructor: ctor,
                                args: vec![],
                            },
                            Some(JType::object()),
                        ));
                    }
                };
                let pick = pick.to_string();
                return self.object(rng, t, &pick, &[], depth, non_null);
            }
            _ => {}
        }
        // A `Class` is also the `java.lang.reflect.Type` code asks for.
        if name == CLASS || name == "java/lang/reflect/Type" {
            if let Some(id) = self.class_literal(rng, t, args) {
                return Some(id);
            }
        }
        // A private enum's constants cannot be named (`Outer.Private.valueOf` does not compile).
        let constants = if self.model.class_api(name).is_some() && !self.model.is_nameable(name) {
            Vec::new()
        } else {
            self.model.enum_constants(name)
        };
        if !constants.is_empty() {
            let c = rng.pick(&constants)?.clone();
            let s = t.push(Statement::String(c), Some(JType::class(STRING)));
            let value_of =
                MemberRef::new(name, "valueOf", &format!("(Ljava/lang/String;)L{name};"));
            return Some(t.push(
                Statement::Call {
                    method: value_of,
                    receiver: None,
                    args: vec![s],
                },
                Some(JType::class(name)),
            ));
        }
        // An interface or abstract class the code tests with `instanceof` or casts to one of
        // its subtypes: now and then a value of that subtype (cast seeding beyond `Object`).
        if rng.chance(0.2) {
            let target = JType::class(name);
            let fitting: Vec<&String> = self
                .model
                .constants
                .casts
                .iter()
                .filter(|c| c.as_str() != name && self.model.assignable(&JType::class(c), &target))
                .collect();
            if let Some(pick) = rng.pick(&fitting).map(|c| c.to_string()) {
                if let Some(id) = self.object(rng, t, &pick, &[], depth + 1, non_null) {
                    return Some(id);
                }
            }
        }
        // A constant of the type (`Locale.ROOT`, the class's own `EMPTY`), now and then.
        if rng.chance(0.2) {
            if let Some(field) = rng.pick(&self.model.constants_of(name)).cloned() {
                let ty =
                    JType::from_descriptor(&field.descriptor).map(|t| self.model.declarable(&t));
                return Some(t.push(Statement::Constant { field }, ty));
            }
        }
        if let Some(id) = self.as_class_under_test(rng, t, name, depth, non_null) {
            return Some(id);
        }
        let producers = self.model.producers(&JType::class(name));
        if let Some(sam) = self.model.functional(name) {
            if producers.is_empty() || rng.chance(0.6) {
                if let Some(id) = self.lambda(rng, t, name, &sam, depth) {
                    return Some(id);
                }
            }
        }
        let Some(p) = self.pick_producer(rng, &producers) else {
            return (!non_null).then(|| self.null(t, &JType::class(name)));
        };
        let id = self.call(rng, t, &p, depth)?;
        // A JDK collection standing for an interface keeps the interface's type arguments.
        if let Some(imp) = known_implementation(name) {
            if p.member.owner.internal() == imp && !args.is_empty() {
                let ty = JType::Class {
                    name: imp.into(),
                    args: args.to_vec(),
                };
                t.types[id.0 as usize] = Some(ty.clone());
                self.fill(rng, t, id, &ty, depth);
            }
        } else if self.model.is_jdk(name) && !args.is_empty() {
            let ty = JType::Class {
                name: name.into(),
                args: args.to_vec(),
            };
            t.types[id.0 as usize] = Some(ty.clone());
            self.fill(rng, t, id, &ty, depth);
        }
        Some(id)
    }

    /// Adds a few elements to a new JDK collection.
    fn fill(&self, rng: &mut Rng, t: &mut TypedTest, id: StatementId, ty: &JType, depth: usize) {
        let fillers = self.model.methods_on(ty);
        let Some(add) = fillers
            .iter()
            .find(|m| m.member.name == "add" || m.member.name == "put")
            .cloned()
        else {
            return;
        };
        let n = rng.below(self.config.max_elements + 1);
        for _ in 0..n {
            if t.len() >= self.config.max_len {
                break;
            }
            self.call_with_receiver(rng, t, &add, Some((id, ty.clone())), depth + 1);
        }
    }

    /// A fresh primitive value.
    pub fn primitive(&self, rng: &mut Rng, p: Prim) -> PrimitiveValue {
        let ints = &self.model.constants.ints;
        let int = |rng: &mut Rng, lo: i64, hi: i64| -> i64 {
            let roll = rng.unit();
            if roll < self.config.p_constant {
                // Half the time, when the search is after path conditions, their literals
                // (read only here: most primitives are no constant draw).
                let goal_ints = self.model.goal_ints();
                let pool: &[i64] = if !goal_ints.is_empty() && rng.chance(0.5) {
                    &goal_ints
                } else {
                    ints
                };
                let fitting: Vec<i64> = pool
                    .iter()
                    .copied()
                    .filter(|v| (lo..=hi).contains(v))
                    .collect();
                if let Some(v) = rng.pick(&fitting) {
                    return *v;
                }
            }
            if roll < 0.85 {
                rng.range_i64(lo.max(-10), hi.min(10))
            } else if roll < 0.95 {
                rng.range_i64(lo.max(-1000), hi.min(1000))
            } else if roll < 0.98 {
                rng.range_i64(lo.max(-65_536), hi.min(65_536))
            } else {
                // The extremes rather than any huge value: a random 58,463,489 passed as a
                // capacity allocates hundreds of megabytes and slows every run of the test.
                let extremes = [lo, lo + 1, hi - 1, hi];
                extremes[rng.below(extremes.len())]
            }
        };
        match p {
            Prim::Boolean => PrimitiveValue::Boolean(rng.chance(0.5)),
            Prim::Byte => PrimitiveValue::Byte(int(rng, i8::MIN as i64, i8::MAX as i64) as i8),
            Prim::Short => PrimitiveValue::Short(int(rng, i16::MIN as i64, i16::MAX as i64) as i16),
            Prim::Int => PrimitiveValue::Int(int(rng, i32::MIN as i64, i32::MAX as i64) as i32),
            Prim::Long => PrimitiveValue::Long(int(rng, i64::MIN / 2, i64::MAX / 2)),
            Prim::Char => {
                if rng.chance(self.config.p_constant) {
                    let fitting: Vec<i64> = ints
                        .iter()
                        .copied()
                        .filter(|v| (32..127).contains(v))
                        .collect();
                    if let Some(v) = rng.pick(&fitting) {
                        return PrimitiveValue::Char(*v as u16);
                    }
                }
                PrimitiveValue::Char(CHARS[rng.below(CHARS.len())] as u16)
            }
            Prim::Float | Prim::Double => {
                let floats = &self.model.constants.floats;
                let v = if rng.chance(self.config.p_constant) && !floats.is_empty() {
                    floats[rng.below(floats.len())]
                } else if rng.chance(0.05) {
                    // The values floating-point code checks for.
                    SPECIAL_FLOATS[rng.below(SPECIAL_FLOATS.len())]
                } else if rng.chance(0.5) {
                    int(rng, -1000, 1000) as f64
                } else {
                    (rng.range_i64(-1000, 1000) as f64) / 8.0
                };
                if p == Prim::Float {
                    PrimitiveValue::Float(v as f32)
                } else {
                    PrimitiveValue::Double(v)
                }
            }
        }
    }

    /// A primitive value near `v` (a small step, a sign flip, or a fresh value).
    pub fn mutate_primitive(&self, rng: &mut Rng, v: PrimitiveValue) -> PrimitiveValue {
        if rng.chance(0.3) {
            return self.primitive(rng, Prim::of(v));
        }
        let delta = rng.range_i64(1, 10) * if rng.chance(0.5) { 1 } else { -1 };
        match v {
            PrimitiveValue::Boolean(b) => PrimitiveValue::Boolean(!b),
            PrimitiveValue::Byte(x) => PrimitiveValue::Byte(x.wrapping_add(delta as i8)),
            PrimitiveValue::Short(x) => PrimitiveValue::Short(x.wrapping_add(delta as i16)),
            PrimitiveValue::Int(x) => PrimitiveValue::Int(if rng.chance(0.1) {
                x.wrapping_neg()
            } else {
                x.wrapping_add(delta as i32)
            }),
            PrimitiveValue::Long(x) => PrimitiveValue::Long(x.wrapping_add(delta)),
            PrimitiveValue::Char(x) => {
                PrimitiveValue::Char(((x as i64 + delta).clamp(32, 126)) as u16)
            }
            PrimitiveValue::Float(x) => {
                PrimitiveValue::Float(x + delta as f32 * if rng.chance(0.5) { 1.0 } else { 0.125 })
            }
            PrimitiveValue::Double(x) => {
                PrimitiveValue::Double(x + delta as f64 * if rng.chance(0.5) { 1.0 } else { 0.125 })
            }
        }
    }
}

/// A value just made by a producer of another, non-generic class for a parameterized type (a
/// `Properties` for a `Map<String, V>`) is declared with the parameter's raw type: javac
/// converts a raw type to any parameterization, but not a non-generic subtype bound to other
/// type arguments. Only the last statement is retyped (nothing uses it yet); `raw` is the
/// parameter's class as the test can name it.
fn as_parameter_type(t: &mut TypedTest, id: StatementId, raw: &JType, args: &[JType]) {
    let last = id.0 as usize + 1 == t.len();
    if args.is_empty() || !last {
        return;
    }
    if let Some(Some(got)) = t.types.get(id.0 as usize) {
        if got.class_name() != raw.class_name() && got.args().is_empty() {
            t.types[id.0 as usize] = Some(raw.clone());
        }
    }
}
