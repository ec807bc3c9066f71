//! Where the API model finds values beyond constructors and factories: lambdas for functional
//! interfaces, class literals for `Class` parameters, and the methods of the package's other
//! classes that return objects (a parser's result, a builder's `build()` and setters).

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use rivet_testcase::{JType, Statement, StatementOutcome, TestCase, OBJECT};

use crate::class_api::{Callable, ClassApi};
use crate::functional::{
    find_sam, is_enum_bound, literal_descriptor, pinned_class, Sam, COMMON_CLASS_LITERALS,
    JDK_ENUMS,
};
use crate::model::{known_implementation, ApiModel};
use rivet_rng::Rng;

/// Most package methods kept as producers (a huge package should not slow every lookup).
const MAX_PACKAGE_METHODS: usize = 4_000;

/// Most strings kept from the run (the oldest go first).
const MAX_DYNAMIC_STRINGS: usize = 256;

/// The strings the code under test compared, searched for or parsed so far in the run, in
/// order of first sight (EvoSuite's dynamic seeding).
#[derive(Debug, Default)]
pub struct DynamicStrings {
    order: VecDeque<String>,
    known: HashSet<String>,
}

/// How often a constructor or method ran in the run's tests, and how often it threw.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub runs: u32,
    pub throws: u32,
}

/// Runs after which a producer that threw every time is tried less.
const LEARNED_AFTER: u32 = 4;
/// The weight of such a producer (the others weigh 1).
const FAILING_WEIGHT: f64 = 0.15;

impl ApiModel {
    /// Learns from a test's outcomes which constructors and methods throw.
    pub fn observe_outcomes(&self, test: &TestCase, outcomes: &[StatementOutcome]) {
        let mut record = self.record.borrow_mut();
        for (s, o) in test.statements.iter().zip(outcomes) {
            let member = match s {
                Statement::Construct { constructor, .. } => constructor,
                Statement::Call { method, .. } => method,
                _ => continue,
            };
            let threw = match o {
                StatementOutcome::Normal(_) => false,
                StatementOutcome::Threw { .. } => true,
                StatementOutcome::NotRun => break,
            };
            let r = record.entry(member.clone()).or_default();
            r.runs = r.runs.saturating_add(1);
            r.throws = r.throws.saturating_add(u32::from(threw));
        }
    }

    /// The weight of a producer when picking one: low for one that threw every time it ran
    /// (at least a few times), else 1.
    pub fn producer_weight(&self, member: &rivet_testcase::MemberRef) -> f64 {
        match self.record.borrow().get(member) {
            Some(r) if r.runs >= LEARNED_AFTER && r.throws == r.runs => FAILING_WEIGHT,
            _ => 1.0,
        }
    }

    /// Static final fields (of the type's own class and of the class under test) whose
    /// declared type fits `name`: `Locale.ROOT` for a `Locale`, a class's `EMPTY` instance.
    pub fn constants_of(&self, name: &str) -> Vec<rivet_testcase::MemberRef> {
        let target = JType::class(name);
        let mut out = Vec::new();
        let own = self.class_api(name);
        for api in own.iter().chain(std::iter::once(&self.cut)) {
            if !api.nameable {
                continue;
            }
            for (field, ty) in &api.static_constants {
                if self.assignable(ty, &target) && !out.contains(field) {
                    out.push(field.clone());
                }
            }
        }
        out
    }

    /// Adds strings the code under test was seen comparing or parsing to the pool the
    /// generator draws strings from.
    pub fn observe_strings(&self, seen: &[String]) {
        if seen.is_empty() {
            return;
        }
        let mut pool = self.dynamic_strings.borrow_mut();
        for s in seen {
            if self.constants.strings.binary_search(s).is_ok() || pool.known.contains(s) {
                continue;
            }
            if pool.order.len() >= MAX_DYNAMIC_STRINGS {
                if let Some(old) = pool.order.pop_front() {
                    pool.known.remove(&old);
                }
            }
            pool.known.insert(s.clone());
            pool.order.push_back(s.clone());
        }
    }

    /// A string seen at run time, if any.
    pub fn dynamic_string(&self, rng: &mut Rng) -> Option<String> {
        let pool = self.dynamic_strings.borrow();
        if pool.order.is_empty() {
            return None;
        }
        pool.order.get(rng.below(pool.order.len())).cloned()
    }

    /// Sets the integers the search's current goals compare against (the literals of the
    /// path conditions it is after, and their neighbours): the generator offers them as it
    /// offers the class's constants.
    pub fn set_goal_ints(&self, ints: Arc<[i64]>) {
        *self.goal_ints.borrow_mut() = ints;
    }

    /// The integers of the current goals.
    pub fn goal_ints(&self) -> Arc<[i64]> {
        self.goal_ints.borrow().clone()
    }

    /// How many strings the run has seen so far (for reports and tests).
    pub fn dynamic_string_count(&self) -> usize {
        self.dynamic_strings.borrow().order.len()
    }

    /// The single abstract method of `name` when it is a functional interface a test can name
    /// (and write a lambda for); None otherwise. JDK types Rivet builds otherwise (`Iterable`,
    /// `Comparable`) are left out.
    pub fn functional(&self, name: &str) -> Option<Arc<Sam>> {
        if let Some(hit) = self.functional.borrow().get(name) {
            return hit.clone();
        }
        let sam = if known_implementation(name).is_some()
            || name == "java/lang/Comparable"
            || !self.is_nameable(name)
        {
            None
        } else {
            find_sam(self.classpath(), name).map(Arc::new)
        };
        self.functional
            .borrow_mut()
            .insert(name.to_string(), sam.clone());
        sam
    }

    /// The nameable classes of the class under test's package (its nested classes included,
    /// itself too), read once.
    pub(crate) fn package_apis(&self) -> &[Arc<ClassApi>] {
        self.package_apis.get_or_init(|| {
            let package = self.class.package();
            self.classpath()
                .package_classes(package)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| self.class_api(n))
                .filter(|api| api.nameable)
                .collect()
        })
    }

    /// Accessible methods, static and instance, of the nameable classes in the class under
    /// test's package other than itself (its nested classes included) that return a
    /// reference other than `Object` and `String`. Sorted by member.
    pub fn package_methods(&self) -> Arc<Vec<Callable>> {
        self.package_methods
            .get_or_init(|| {
                let mut out = Vec::new();
                for api in self.package_apis() {
                    if api.name == self.class.internal() || out.len() >= MAX_PACKAGE_METHODS {
                        continue;
                    }
                    for m in &api.methods {
                        let Some(r) = &m.returns else { continue };
                        let erased = r.erased();
                        if erased.is_reference()
                            && erased.class_name() != Some(OBJECT)
                            && !erased.is_string()
                            && !matches!(erased, JType::Array(_))
                        {
                            out.push(m.clone());
                        }
                    }
                }
                out.sort_by_key(|a| a.member.to_string());
                Arc::new(out)
            })
            .clone()
    }

    /// Enums of the class under test's package (its nested ones included) that a test can
    /// name, sorted.
    pub fn package_enums(&self) -> Vec<String> {
        self.package_apis()
            .iter()
            .filter(|a| a.flags.is_enum())
            .map(|a| a.name.clone())
            .collect()
    }

    /// Names of the classes [`ApiModel::class_literals`] offers, as code that looks classes up
    /// by name reads them: `int`, `java.lang.String`, `java.util.Map$Entry`-style binary
    /// names, array names both as `Class.getName` (`[I`) and as source (`int[]`).
    pub fn class_name_strings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for d in self.class_literals(None) {
            match JType::from_descriptor(&d) {
                Some(JType::Prim(p)) => out.push(p.java_name().to_string()),
                Some(JType::Class { name, .. }) => {
                    out.push(rivet_testcase::ClassName::from_internal(&name).binary())
                }
                Some(t @ JType::Array(_)) => {
                    out.push(d.replace('/', "."));
                    out.push(t.to_string());
                }
                _ => out.push("void".to_string()),
            }
        }
        out
    }

    /// Class literals (field descriptors, `V` for `void`) for a `Class<T>` parameter whose
    /// argument is `arg`: enums for `T extends Enum<T>`; the class itself (and the JDK class
    /// Rivet builds for it) when `T` is pinned down; otherwise primitives, wrappers, strings,
    /// arrays and collections, the class under test and the classes its code names in class
    /// literals, casts and `instanceof`. Only classes a test can name.
    pub fn class_literals(&self, arg: Option<&JType>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let add = |c: &str, out: &mut Vec<String>| {
            let d = literal_descriptor(c);
            let element = d.trim_start_matches('[');
            let nameable = match element.strip_prefix('L').and_then(|e| e.strip_suffix(';')) {
                Some(class) => self.is_nameable(class),
                None => true,
            };
            if nameable && !out.contains(&d) {
                out.push(d);
            }
        };
        if let Some(a) = arg {
            if is_enum_bound(a) {
                for e in self.package_enums() {
                    add(&e, &mut out);
                }
                let named = self.constants.literals.iter().chain(&self.constants.casts);
                for c in named {
                    if self.class_api(c).is_some_and(|api| api.flags.is_enum()) {
                        add(c, &mut out);
                    }
                }
                for e in JDK_ENUMS {
                    add(e, &mut out);
                }
                return out;
            }
            if let Some(c) = pinned_class(a) {
                add(&c, &mut out);
                if let Some(imp) = known_implementation(&c) {
                    add(imp, &mut out);
                }
                return out;
            }
        }
        for d in COMMON_CLASS_LITERALS {
            if !out.iter().any(|o| o == d) {
                out.push(d.to_string());
            }
        }
        add(self.class.internal(), &mut out);
        let named = self.constants.literals.iter().chain(&self.constants.casts);
        for c in named {
            add(c, &mut out);
        }
        out
    }
}
