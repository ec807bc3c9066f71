//! The API model of a class under test: what a test can call (constructors, static
//! factories, methods, public fields), how to obtain a value of any parameter type (public
//! constructors and factories, public subtypes on the classpath, known JDK implementations of
//! `List`/`Map`/…), what may be called on values a test holds, and assignability.

use rivet_testcase::ClassName;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use rivet_classfile::ClassFile;
use rivet_classpath::{Classpath, Hierarchy, SubtypeScope};

use crate::access::{Access, AccessMode};
use crate::class_api::{Callable, CallableKind, ClassApi};
use crate::constants::Constants;
use crate::error::ApiError;
use crate::functional::Sam;
use rivet_testcase::{JType, Prim, OBJECT, STRING};

/// The JDK implementation Rivet instantiates for a JDK interface or abstract class.
pub fn known_implementation(class: &str) -> Option<&'static str> {
    Some(match class {
        "java/util/List"
        | "java/util/Collection"
        | "java/lang/Iterable"
        | "java/util/AbstractList"
        | "java/util/AbstractCollection"
        | "java/util/RandomAccess" => "java/util/ArrayList",
        "java/util/Set" | "java/util/AbstractSet" => "java/util/LinkedHashSet",
        "java/util/SortedSet" | "java/util/NavigableSet" => "java/util/TreeSet",
        "java/util/Map" | "java/util/AbstractMap" => "java/util/LinkedHashMap",
        "java/util/SortedMap" | "java/util/NavigableMap" => "java/util/TreeMap",
        "java/util/Queue" | "java/util/Deque" | "java/util/AbstractSequentialList" => {
            "java/util/LinkedList"
        }
        // Abstract I/O and text types: in-memory stand-ins built from a string or bytes.
        "java/io/Reader" | "java/lang/Readable" => "java/io/StringReader",
        "java/io/InputStream" => "java/io/ByteArrayInputStream",
        "java/io/Writer" => "java/io/StringWriter",
        "java/io/OutputStream" => "java/io/ByteArrayOutputStream",
        "java/lang/CharSequence" | "java/lang/Appendable" => "java/lang/StringBuilder",
        _ => return None,
    })
}

/// Other JDK classes built for an abstract I/O type besides its [`known_implementation`]
/// (code often branches on `instanceof BufferedReader` or on a `Readable` that is no
/// `Reader`).
fn more_implementations(class: &str) -> &'static [&'static str] {
    match class {
        "java/io/Reader" => &["java/io/BufferedReader", "java/io/CharArrayReader"],
        "java/lang/Readable" => &["java/io/BufferedReader"],
        "java/io/InputStream" => &["java/io/BufferedInputStream"],
        _ => &[],
    }
}

/// Static JDK factories producing a type Rivet builds otherwise too: (type, owner, name,
/// descriptor).
const JDK_FACTORIES: &[(&str, &str, &str, &str)] = &[
    (
        "java/lang/Readable",
        "java/nio/CharBuffer",
        "wrap",
        "(Ljava/lang/CharSequence;)Ljava/nio/CharBuffer;",
    ),
    (
        "java/lang/ClassLoader",
        "java/lang/ClassLoader",
        "getSystemClassLoader",
        "()Ljava/lang/ClassLoader;",
    ),
];

/// JDK I/O types whose values a JDK constructor may take (a `BufferedReader` over a
/// `Reader`, an `ObjectOutputStream` over an `OutputStream`).
const WRAPPABLE: &[&str] = &[
    "java/io/Reader",
    "java/io/InputStream",
    "java/io/Writer",
    "java/io/OutputStream",
];

/// Methods a test may call on JDK I/O values it holds: (name, descriptor). Closing a stream
/// under the code; a serialization round trip (an object written to an `ObjectOutputStream`
/// over a `ByteArrayOutputStream`, whose bytes an `ObjectInputStream` reads back) reaches a
/// class's `writeObject` and `readObject`.
const JDK_IO_CALLS: &[(&str, &str)] = &[
    ("close", "()V"),
    ("flush", "()V"),
    ("toByteArray", "()[B"),
    ("writeObject", "(Ljava/lang/Object;)V"),
    ("readObject", "()Ljava/lang/Object;"),
];

/// Is `imp` (a [`known_implementation`]) a collection, filled by calls after a no-argument
/// constructor? The others are built from their constructor's value (a string, bytes).
fn is_collection(imp: &str) -> bool {
    imp.starts_with("java/util/")
}

/// Can a test pass a value of `t` to a JDK constructor (a primitive, a string, an array of
/// primitives, or a reader or stream it builds)?
fn simple_value(t: &JType) -> bool {
    match t {
        JType::Array(c) => c.prim().is_some(),
        _ => {
            t.prim().is_some()
                || t.is_string()
                || t.class_name().is_some_and(|c| WRAPPABLE.contains(&c))
        }
    }
}

/// Methods of JDK collections a test may call to fill them.
const JDK_FILLERS: &[&str] = &["add", "put", "addFirst", "addLast", "push", "offer"];

/// Methods never called by generated tests (they make tests nondeterministic or hang).
pub(crate) const NEVER_CALL: &[&str] = &[
    "wait",
    "notify",
    "notifyAll",
    "hashCode",
    "getClass",
    "finalize",
];

/// The callable API of a class under test and of the types its parameters need.
#[derive(Debug)]
pub struct ApiModel {
    classpath: Arc<Classpath>,
    hierarchy: Hierarchy,
    /// The class under test.
    pub class: ClassName,
    pub cut: Arc<ClassApi>,
    /// What the tests may use.
    pub access: Access,
    /// What tests call on the class under test: constructors, static factories, the selected
    /// public methods (all of them without `--method`) and public field writes; without
    /// `--method`, also the methods of the package's classes that run it (its drivers, see
    /// `drivers.rs`).
    pub targets: Vec<Callable>,
    /// Constants of the class under test and its nested classes.
    pub constants: Constants,
    /// Parts of the class the tests cannot reach, with the reason.
    pub untestable: Vec<String>,
    classes: RefCell<HashMap<String, Option<Arc<ClassApi>>>>,
    producers: RefCell<HashMap<String, Arc<Vec<Callable>>>>,
    methods_on: RefCell<HashMap<String, Arc<Vec<Callable>>>>,
    /// JDK methods on values the class handed out, by type (see `views`).
    pub(crate) views_on: RefCell<HashMap<String, Arc<Vec<Callable>>>>,
    /// Is one class assignable to another: by the first, then the second (looked up without
    /// copying either name).
    assignable: RefCell<HashMap<String, HashMap<String, bool>>>,
    pub(crate) functional: RefCell<HashMap<String, Option<Arc<Sam>>>>,
    /// Methods of the other classes of the package (nested ones included) returning objects,
    /// read once (see [`ApiModel::package_methods`]).
    pub(crate) package_methods: std::cell::OnceCell<Arc<Vec<Callable>>>,
    /// The nameable classes of the package, read once.
    pub(crate) package_apis: std::cell::OnceCell<Vec<Arc<ClassApi>>>,
    /// Strings the code under test compared or parsed during the run (dynamic seeding).
    pub(crate) dynamic_strings: RefCell<crate::supply::DynamicStrings>,
    /// Integers the search's current goals compare against (path-condition literals).
    pub(crate) goal_ints: RefCell<Arc<[i64]>>,
    /// How often each constructor and method ran and threw during the run (producers that
    /// always throw are tried less).
    pub(crate) record: RefCell<HashMap<rivet_testcase::MemberRef, crate::supply::Record>>,
}

/// Converts a binary name (`a.b.C$D`) to an internal name (`a/b/C$D`).
pub fn internal_name(binary: &str) -> String {
    ClassName::from_binary(binary).internal().to_string()
}

impl ApiModel {
    /// Models class `class` (binary or internal name) as a test in its package with access
    /// `mode` sees it. `method` restricts the targets to the methods of that name
    /// (constructors and factories stay).
    pub fn build(
        classpath: Arc<Classpath>,
        class: &ClassName,
        method: Option<&str>,
        mode: AccessMode,
    ) -> Result<ApiModel, ApiError> {
        let name = class.internal().to_string();
        let class_name = class.clone();
        let binary = class_name.clone();
        let access = Access::beside(&class_name, mode);
        let cf = classpath
            .class_file(&name)
            .map_err(|source| ApiError::Classpath {
                class: binary.clone(),
                source,
            })?
            .ok_or_else(|| ApiError::ClassNotFound {
                class: binary.clone(),
            })?;
        if cf
            .access_flags
            .has(rivet_classfile::AccessFlags::ANNOTATION)
        {
            return Err(ApiError::Annotation { class: binary });
        }
        if cf.access_flags.is_interface() {
            return Err(ApiError::Interface { class: binary });
        }
        // A test in a JDK package would split a package of a named module.
        if classpath
            .jdk()
            .is_some_and(|jdk| jdk.contains(&name).unwrap_or(false))
        {
            return Err(ApiError::JdkPackage { class: binary });
        }
        let cut = ClassApi::read(&cf, &access).map_err(|reason| ApiError::BadClass {
            class: binary.clone(),
            reason,
        })?;
        if !cut.nameable {
            return Err(match mode {
                AccessMode::Public => ApiError::NotPublic { class: binary },
                AccessMode::SamePackage => ApiError::NotNameable { class: binary },
            });
        }
        let nested = nested_classes(&classpath, &name).map_err(|source| ApiError::Classpath {
            class: binary.clone(),
            source,
        })?;
        let mut all: Vec<&ClassFile> = vec![&cf];
        all.extend(nested.iter().map(|c| c.as_ref()));
        let constants = Constants::harvest(all);
        let cut = Arc::new(cut);
        let model = ApiModel {
            hierarchy: Hierarchy::new(classpath.clone()),
            classpath,
            class: class_name,
            cut: cut.clone(),
            access,
            targets: Vec::new(),
            constants,
            untestable: Vec::new(),
            classes: RefCell::new(HashMap::from([(name.clone(), Some(cut.clone()))])),
            producers: RefCell::new(HashMap::new()),
            methods_on: RefCell::new(HashMap::new()),
            views_on: RefCell::new(HashMap::new()),
            assignable: RefCell::new(HashMap::new()),
            functional: RefCell::new(HashMap::new()),
            package_methods: std::cell::OnceCell::new(),
            package_apis: std::cell::OnceCell::new(),
            dynamic_strings: RefCell::new(Default::default()),
            goal_ints: RefCell::new(Arc::from(Vec::new())),
            record: RefCell::new(HashMap::new()),
        };
        model.finish(method)
    }

    fn finish(mut self, method: Option<&str>) -> Result<ApiModel, ApiError> {
        let binary = self.class.clone();
        let creators = self.producers(&JType::class(self.class.internal()));
        let methods: Vec<Callable> = self
            .inherited_methods(self.class.internal())
            .into_iter()
            .filter(|m| !NEVER_CALL.contains(&m.member.name.as_str()))
            .collect();
        let selected: Vec<Callable> = match method {
            Some(wanted) => {
                let s: Vec<Callable> = methods
                    .iter()
                    .filter(|m| m.member.name == wanted)
                    .cloned()
                    .collect();
                if s.is_empty() {
                    return Err(ApiError::MethodNotFound {
                        class: binary,
                        method: wanted.to_string(),
                    });
                }
                s
            }
            None => methods.clone(),
        };
        let has_static = selected.iter().any(|m| m.is_static);
        let has_instance = selected.iter().any(|m| !m.is_static);
        // What a test may use: "public", or "accessible" from the class's package.
        let scope = match self.access.mode {
            AccessMode::Public => "public",
            AccessMode::SamePackage => "accessible",
        };
        if creators.is_empty() {
            if !has_static {
                let what = if self.cut.flags.is_abstract() {
                    format!("it is abstract and no {scope} concrete subclass is on the classpath")
                } else {
                    format!("it has no {scope} constructor and no {scope} static factory method")
                };
                return Err(ApiError::Untestable {
                    class: binary,
                    reason: format!("{what}, and no {scope} static method to call"),
                });
            }
            if has_instance {
                self.untestable.push(format!(
                    "instance methods of {binary}: no {scope} constructor or static factory creates an instance"
                ));
            }
        }
        // Creators among the targets: constructors and static factories; methods of other
        // classes (a builder's `create()`) only when there are none, else they stay producers
        // and would crowd out the class's own methods.
        let direct: Vec<Callable> = creators
            .iter()
            .filter(|c| {
                let owner = JType::class(c.member.owner.internal());
                c.kind == CallableKind::Constructor
                    || (c.is_static
                        && self.assignable(&owner, &JType::class(self.class.internal())))
            })
            .cloned()
            .collect();
        let mut targets: Vec<Callable> = if direct.is_empty() {
            creators.iter().cloned().collect()
        } else {
            direct
        };
        for m in selected {
            if !targets.iter().any(|t| t.member == m.member) {
                targets.push(m);
            }
        }
        if method.is_none() {
            targets.extend(self.cut.field_writes.iter().cloned());
            targets.extend(self.driver_calls());
        }
        self.targets = targets;
        Ok(self)
    }

    pub fn classpath(&self) -> &Arc<Classpath> {
        &self.classpath
    }

    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// The API of a class (internal name), read once; None when absent or unreadable.
    pub fn class_api(&self, name: &str) -> Option<Arc<ClassApi>> {
        if let Some(hit) = self.classes.borrow().get(name) {
            return hit.clone();
        }
        let api = match self.classpath.class_file(name) {
            Ok(Some(cf)) => ClassApi::read(&cf, &self.access).ok().map(Arc::new),
            Ok(None) => None,
            Err(e) => {
                tracing::debug!(class = name, error = %e, "class unreadable");
                None
            }
        };
        self.classes
            .borrow_mut()
            .insert(name.to_string(), api.clone());
        api
    }

    /// Is `name` a JDK class?
    pub fn is_jdk(&self, name: &str) -> bool {
        self.classpath
            .jdk()
            .is_some_and(|jdk| jdk.contains(name).unwrap_or(false))
    }

    /// Public instance and static methods of a user class and its user superclasses (the
    /// nearest declaration of each name and descriptor wins), sorted.
    fn inherited_methods(&self, name: &str) -> Vec<Callable> {
        let mut seen: BTreeMap<(String, String), Callable> = BTreeMap::new();
        let mut current = Some(name.to_string());
        let mut depth = 0;
        while let Some(c) = current.take() {
            if c == OBJECT || depth > 16 || (c != name && self.is_jdk(&c)) {
                break;
            }
            let Some(api) = self.class_api(&c) else { break };
            for m in &api.methods {
                if c != name && m.is_static {
                    continue;
                }
                seen.entry((m.member.name.clone(), m.member.descriptor.clone()))
                    .or_insert_with(|| m.clone());
            }
            current = api.superclass.clone();
            depth += 1;
        }
        seen.into_values().collect()
    }

    /// Ways to obtain a value of class type `ty` (erased): constructors and static factories
    /// of the class, of its public concrete subtypes on the user classpath, of the JDK class
    /// Rivet uses for it, and methods of the class under test returning it. Sorted by member.
    pub fn producers(&self, ty: &JType) -> Arc<Vec<Callable>> {
        let Some(name) = ty.class_name().map(str::to_string) else {
            return Arc::new(Vec::new());
        };
        if let Some(hit) = self.producers.borrow().get(&name) {
            return hit.clone();
        }
        let mut out: Vec<Callable> = Vec::new();
        let add_class = |api: &ClassApi, out: &mut Vec<Callable>, jdk: bool| {
            if !api.nameable || api.is_abstract() {
                return;
            }
            for c in &api.constructors {
                if jdk && !c.params.iter().all(simple_value) {
                    continue;
                }
                out.push(c.clone());
            }
            if !jdk {
                for m in &api.methods {
                    let returns_self =
                        m.returns.as_ref().and_then(|r| r.class_name()) == Some(api.name.as_str());
                    if m.is_static && returns_self {
                        out.push(m.clone());
                    }
                }
            }
        };
        if let Some(imp) = known_implementation(&name) {
            if let Some(api) = self.class_api(imp) {
                add_class(&api, &mut out, true);
                if is_collection(imp) {
                    out.retain(|c| c.params.is_empty());
                }
            }
            for more in more_implementations(&name) {
                if let Some(api) = self.class_api(more) {
                    add_class(&api, &mut out, true);
                }
            }
        } else if let Some(api) = self.class_api(&name) {
            let jdk = self.is_jdk(&name);
            add_class(&api, &mut out, jdk);
            if !jdk && !api.flags.has(rivet_classfile::AccessFlags::FINAL) {
                if let Ok(subs) = self.hierarchy.subtypes(&name, SubtypeScope::UserClasses) {
                    for s in subs {
                        if let Some(sub) = self.class_api(&s) {
                            add_class(&sub, &mut out, false);
                        }
                    }
                }
            }
        }
        for (ty, owner, method, descriptor) in JDK_FACTORIES {
            if *ty == name {
                if let Some(m) = self.class_api(owner).and_then(|api| {
                    api.methods
                        .iter()
                        .find(|m| m.member.name == *method && m.member.descriptor == *descriptor)
                        .cloned()
                }) {
                    out.push(m);
                }
            }
        }
        // Methods of the package's other classes returning the type: a parser returning what
        // it parsed, a builder's `build()` and its setters.
        if name != OBJECT && name != STRING && Prim::unboxed(&name).is_none() {
            let jdk = self.is_jdk(&name);
            if !jdk || out.is_empty() {
                let target = JType::class(&name);
                for m in self.package_methods().iter() {
                    if let Some(r) = &m.returns {
                        if self.assignable(&r.erased(), &target) {
                            out.push(m.clone());
                        }
                    }
                }
            }
        }
        if name != self.class.internal() && name != OBJECT && name != STRING {
            let cut = self.cut.clone();
            for m in self.inherited_methods(&cut.name) {
                if let Some(r) = &m.returns {
                    if r.is_reference() && self.assignable(&r.erased(), &JType::class(&name)) {
                        out.push(m);
                    }
                }
            }
        }
        out.sort_by_key(|a| a.member.to_string());
        out.dedup_by(|a, b| a.member == b.member);
        let out = Arc::new(out);
        self.producers.borrow_mut().insert(name, out.clone());
        out
    }

    /// What a test may call on a value of type `ty`: for user classes their public methods
    /// and field writes (inherited ones too); for JDK collections the methods that fill them.
    pub fn methods_on(&self, ty: &JType) -> Arc<Vec<Callable>> {
        let Some(name) = ty.class_name().map(str::to_string) else {
            return Arc::new(Vec::new());
        };
        if let Some(hit) = self.methods_on.borrow().get(&name) {
            return hit.clone();
        }
        let mut out = Vec::new();
        if self.is_jdk(&name) {
            if name.starts_with("java/util/") {
                let mut current = Some(name.clone());
                while let Some(c) = current.take() {
                    let Some(api) = self.class_api(&c) else { break };
                    for m in &api.methods {
                        if !m.is_static
                            && JDK_FILLERS.contains(&m.member.name.as_str())
                            && m.params.len() <= 2
                            && !out.iter().any(|o: &Callable| {
                                o.member.name == m.member.name
                                    && o.member.descriptor == m.member.descriptor
                            })
                        {
                            out.push(m.clone());
                        }
                    }
                    current = api.superclass.clone().filter(|s| s != OBJECT);
                }
                // `add(int, E)` and friends: only the one-element forms.
                out.retain(|m| m.params.first().and_then(JType::prim) != Some(Prim::Int));
            } else if name.starts_with("java/io/") {
                if let Some(api) = self.class_api(&name) {
                    let mut current = Some(api);
                    while let Some(a) = current.take() {
                        for m in &a.methods {
                            let call = (m.member.name.as_str(), m.member.descriptor.as_str());
                            if !m.is_static
                                && JDK_IO_CALLS.contains(&call)
                                && !out
                                    .iter()
                                    .any(|o: &Callable| o.member.name == m.member.name)
                            {
                                out.push(m.clone());
                            }
                        }
                        current = a
                            .superclass
                            .as_deref()
                            .filter(|s| *s != OBJECT)
                            .and_then(|s| self.class_api(s));
                    }
                }
            }
        } else {
            out = self
                .inherited_methods(&name)
                .into_iter()
                .filter(|m| !m.is_static && !NEVER_CALL.contains(&m.member.name.as_str()))
                .collect();
            if let Some(api) = self.class_api(&name) {
                out.extend(api.field_writes.iter().filter(|f| !f.is_static).cloned());
            }
        }
        out.sort_by_key(|a| a.member.to_string());
        let out = Arc::new(out);
        self.methods_on.borrow_mut().insert(name, out.clone());
        out
    }

    /// No-argument read-only methods (returning a primitive, a wrapper or a String) that an
    /// assertion may call on a value of static type `ty`, sorted.
    pub fn inspectors(&self, ty: &JType) -> Vec<Callable> {
        let Some(name) = ty.class_name() else {
            return Vec::new();
        };
        if self.is_jdk(name) {
            if !name.starts_with("java/util/") {
                return Vec::new();
            }
            let mut out = Vec::new();
            let mut current = Some(name.to_string());
            while let Some(c) = current.take() {
                let Some(api) = self.class_api(&c) else { break };
                for m in &api.methods {
                    if !m.is_static
                        && m.params.is_empty()
                        && (m.member.name == "size" || m.member.name == "isEmpty")
                        && !out
                            .iter()
                            .any(|o: &Callable| o.member.name == m.member.name)
                    {
                        out.push(m.clone());
                    }
                }
                current = api.superclass.clone().filter(|s| s != OBJECT);
            }
            return out;
        }
        let mut out = Vec::new();
        let mut current = Some(name.to_string());
        let mut depth = 0;
        while let Some(c) = current.take() {
            if c == OBJECT || depth > 16 || self.is_jdk(&c) {
                break;
            }
            let Some(api) = self.class_api(&c) else { break };
            for m in &api.methods {
                let key = (m.member.name.clone(), m.member.descriptor.clone());
                if api.inspectors.contains(&key)
                    && m.member.name != "hashCode"
                    && !out.iter().any(|o: &Callable| {
                        o.member.name == m.member.name && o.member.descriptor == m.member.descriptor
                    })
                {
                    out.push(m.clone());
                }
            }
            current = api.superclass.clone();
            depth += 1;
        }
        out.sort_by_key(|a| a.member.to_string());
        out
    }

    /// May a value of static type `from` be passed where `to` is expected (erased types by
    /// the JVM's rules; differing type arguments of the same class are refused)?
    pub fn assignable(&self, from: &JType, to: &JType) -> bool {
        match (from, to) {
            (_, JType::Var { erasure, .. }) => return self.assignable(from, erasure),
            (JType::Var { erasure, .. }, _) => return self.assignable(erasure, to),
            (JType::Prim(a), JType::Prim(b)) => return a == b,
            (JType::Prim(_), _) | (_, JType::Prim(_)) => return false,
            (JType::Class { name: a, args: x }, JType::Class { name: b, args: y })
                if a == b
                    && !x.is_empty()
                    && !y.is_empty()
                    && x.iter().all(JType::is_concrete)
                    && y.iter().all(JType::is_concrete) =>
            {
                return x == y;
            }
            _ => {}
        }
        let (a, b) = (from.hierarchy_name(), to.hierarchy_name());
        if a == b || b == OBJECT {
            return true;
        }
        if let Some(hit) = self.assignable.borrow().get(&*a).and_then(|m| m.get(&*b)) {
            return *hit;
        }
        let ok = self.hierarchy.is_assignable(&a, &b).unwrap_or(false);
        self.assignable
            .borrow_mut()
            .entry(a.into_owned())
            .or_default()
            .insert(b.into_owned(), ok);
        ok
    }

    /// The type arguments of `owner` (a superclass of the receiver's class, or that class)
    /// as seen from a receiver of static type `receiver`: `PatriciaTrie` (raw) is an
    /// `AbstractPatriciaTrie<String, E>`, so an inherited `put(K, V)` takes a `String` key.
    /// Empty when unknown or raw.
    pub fn owner_args(&self, receiver: &JType, owner: &str) -> Vec<JType> {
        let mut current = receiver.clone();
        for _ in 0..16 {
            let Some(name) = current.class_name().map(str::to_string) else {
                break;
            };
            if name == owner {
                return current.args().to_vec();
            }
            let Some(api) = self.class_api(&name) else {
                break;
            };
            let Some(sup) = api.super_type.clone() else {
                break;
            };
            let env: HashMap<String, JType> = api
                .type_params
                .params
                .iter()
                .map(|(n, _)| n.clone())
                .zip(current.args().iter().cloned())
                .collect();
            current = if env.is_empty() {
                sup
            } else {
                sup.substitute(&env)
            };
        }
        Vec::new()
    }

    /// The source spelling of a class for a test (`a.b.Outer.Inner`), when it can be named.
    pub fn is_nameable(&self, class: &str) -> bool {
        self.class_api(class).is_some_and(|a| a.nameable)
    }

    /// The type a test declares a value of static type `ty` with: `ty` itself when the test
    /// can name it (or it is not a class type), else its nearest nameable superclass other
    /// than `Object`, else its first nameable interface, else `Object` (a method may declare
    /// a return type that a test in another package cannot name, such as a package-private
    /// iterator class).
    pub fn declarable(&self, ty: &JType) -> JType {
        let Some(name) = ty.class_name() else {
            return ty.clone();
        };
        match self.class_api(name) {
            // Unknown here: left as it is.
            None => return ty.clone(),
            Some(api) if api.nameable => return ty.clone(),
            Some(_) => {}
        }
        let supertypes = self.hierarchy.supertypes(name).unwrap_or_default();
        supertypes
            .iter()
            .filter(|s| s.as_str() != OBJECT)
            .find(|s| self.is_nameable(s))
            .map_or_else(|| JType::class(OBJECT), |s| JType::class(s))
    }

    /// The nearest public, nameable superclass of a class (itself if nameable), for
    /// declaring exceptions and values whose runtime class is private.
    pub fn nameable_ancestor(&self, class: &str) -> String {
        let mut current = class.to_string();
        for _ in 0..32 {
            match self.class_api(&current) {
                Some(api) if api.nameable => return current,
                Some(api) => match &api.superclass {
                    Some(s) => current = s.clone(),
                    None => break,
                },
                None => break,
            }
        }
        OBJECT.to_string()
    }

    /// Names of the enum constants of `class`.
    pub fn enum_constants(&self, class: &str) -> Vec<String> {
        self.class_api(class)
            .filter(|a| a.flags.is_enum())
            .map(|a| a.enum_constants.clone())
            .unwrap_or_default()
    }

    /// Is the callable one of the class under test's own (a target)?
    pub fn is_target(&self, c: &Callable) -> bool {
        self.targets.iter().any(|t| t.member == c.member)
    }
}

/// The class files of the classes nested in `name` (`name$…`) on the user classpath.
fn nested_classes(
    classpath: &Classpath,
    name: &str,
) -> Result<Vec<Arc<ClassFile>>, rivet_classpath::ClasspathError> {
    let package = name.rsplit_once('/').map_or("", |(p, _)| p);
    let prefix = format!("{name}$");
    let mut out = Vec::new();
    for c in classpath.package_classes(package)? {
        if c.starts_with(&prefix) {
            if let Some(cf) = classpath.class_file(&c)? {
                out.push(cf);
            }
        }
    }
    Ok(out)
}
