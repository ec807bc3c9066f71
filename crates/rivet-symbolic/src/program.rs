//! The program under exploration: classes loaded from the classpath on demand, their field
//! layouts and static fields, method bodies with decoded instructions and exception
//! handlers, member-reference and virtual-dispatch caches, type tests through the
//! `Hierarchy`, and the branch ids of the target class.

use rivet_classfile::ClassName;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rivet_analysis::{analyze_class, ClassAnalysis};
use rivet_classfile::{
    AccessFlags, AttributeBody, ClassFile, Constant, CpIndex, FieldType, Instruction,
    MethodDescriptor, Operand,
};
use rivet_classpath::{Classpath, Hierarchy, SubtypeScope};

use crate::error::SymbolicError;

/// Index of a loaded class in the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId(pub u32);

/// A field of an instance layout or a static field.
#[derive(Debug, Clone)]
pub struct FieldSlot {
    pub owner: Arc<str>,
    pub name: Arc<str>,
    pub ty: FieldType,
    /// The ConstantValue of a static final field.
    pub constant: Option<Constant>,
}

/// A loaded class.
#[derive(Debug)]
pub struct ClassInfo {
    pub id: ClassId,
    pub name: Arc<str>,
    pub file: Arc<ClassFile>,
    pub super_name: Option<Arc<str>>,
    pub interfaces: Vec<Arc<str>>,
    pub access: AccessFlags,
    /// Instance fields, the superclass's first.
    pub fields: Vec<FieldSlot>,
    pub statics: Vec<FieldSlot>,
    static_index: HashMap<Arc<str>, usize>,
}

impl ClassInfo {
    pub fn is_interface(&self) -> bool {
        self.access.is_interface()
    }

    /// Concrete: neither abstract nor an interface.
    pub fn is_concrete(&self) -> bool {
        !self.access.is_abstract() && !self.access.is_interface()
    }

    /// The slot of instance field `name` declared by `owner`.
    pub fn field_slot(&self, owner: &str, name: &str) -> Option<usize> {
        self.fields
            .iter()
            .rposition(|f| &*f.owner == owner && &*f.name == name)
    }

    /// The slot of instance field `name` declared by the nearest class that declares it.
    pub fn field_by_name(&self, name: &str) -> Option<usize> {
        self.fields.iter().rposition(|f| &*f.name == name)
    }

    pub fn static_slot(&self, name: &str) -> Option<usize> {
        self.static_index.get(name).copied()
    }
}

/// An exception-table entry with the handler as an instruction index.
#[derive(Debug, Clone)]
pub struct Handler {
    pub start: u32,
    pub end: u32,
    pub handler: usize,
    pub catch: Option<Arc<str>>,
}

/// A method ready to run.
#[derive(Debug)]
pub struct MethodBody {
    pub class: ClassId,
    pub class_name: Arc<str>,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub signature: MethodDescriptor,
    pub access: AccessFlags,
    pub max_locals: usize,
    pub insns: Vec<Instruction>,
    pub handlers: Vec<Handler>,
    /// (branching instruction offset, destination offset) → branch id, for the target class.
    pub branches: HashMap<(u32, u32), u32>,
}

impl MethodBody {
    pub fn is_static(&self) -> bool {
        self.access.is_static()
    }

    /// The index of the instruction at `offset`.
    pub fn index_of(&self, offset: u32) -> Option<usize> {
        self.insns.binary_search_by_key(&offset, |i| i.offset).ok()
    }

    pub fn qualified(&self) -> String {
        format!("{}.{}{}", self.class_name, self.name, self.descriptor)
    }
}

/// A resolved member reference of some class's constant pool.
#[derive(Debug, Clone)]
pub struct MemberRefInfo {
    pub owner: Arc<str>,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    pub interface: bool,
}

/// Methods by (class, name, descriptor); None caches a miss.
type MethodCache = HashMap<(ClassId, Arc<str>, Arc<str>), Option<Arc<MethodBody>>>;

/// The branch analyses of target classes, shared by the programs of one explorer: each
/// exploration and each whole-test replay builds a program, and analysing the class again for
/// every method prepared took 7 % of an `AbstractPatriciaTrie` run's CPU.
pub type AnalysisCache = Arc<Mutex<HashMap<Arc<str>, Arc<ClassAnalysis>>>>;

/// Classes, methods and caches of one exploration. Single-threaded.
#[derive(Debug)]
pub struct Program {
    classpath: Arc<Classpath>,
    hierarchy: Arc<Hierarchy>,
    target: Arc<str>,
    classes: Vec<Arc<ClassInfo>>,
    by_name: HashMap<Arc<str>, ClassId>,
    missing: HashMap<Arc<str>, ()>,
    member_refs: HashMap<(ClassId, u16), Arc<MemberRefInfo>>,
    methods: MethodCache,
    virtual_cache: MethodCache,
    assignable: HashMap<(Arc<str>, Arc<str>), bool>,
    concrete_subtypes: HashMap<Arc<str>, Arc<[Arc<str>]>>,
    analyses: AnalysisCache,
    /// Classes beyond the target whose branches are recorded too (`ExploreConfig::cover`):
    /// the k-th one's ids are [`covered_branch`]`(k, id)`.
    covered: Vec<Arc<str>>,
}

fn bad(class: &str, reason: impl Into<String>) -> SymbolicError {
    SymbolicError::BadClass {
        class: ClassName::from_internal(class),
        reason: reason.into(),
    }
}

/// Where the ids of the covered classes' branches start: the target class's are below.
pub const COVERED_BRANCH_BASE: u32 = 1 << 20;

/// The recorded id of branch `local` of the `k`-th covered class.
pub fn covered_branch(k: usize, local: u32) -> u32 {
    COVERED_BRANCH_BASE * (k as u32 + 1) + local
}

/// The covered class index and local id of a recorded id; None for the target class's.
pub fn split_covered_branch(id: u32) -> Option<(usize, u32)> {
    (id >= COVERED_BRANCH_BASE).then(|| {
        (
            (id / COVERED_BRANCH_BASE - 1) as usize,
            id % COVERED_BRANCH_BASE,
        )
    })
}

impl Program {
    /// A program whose branch ids are reported for class `target` (internal name).
    pub fn new(classpath: Arc<Classpath>, hierarchy: Arc<Hierarchy>, target: &str) -> Program {
        Program {
            classpath,
            hierarchy,
            target: Arc::from(target),
            classes: Vec::new(),
            by_name: HashMap::new(),
            missing: HashMap::new(),
            member_refs: HashMap::new(),
            methods: HashMap::new(),
            virtual_cache: HashMap::new(),
            assignable: HashMap::new(),
            concrete_subtypes: HashMap::new(),
            analyses: AnalysisCache::default(),
            covered: Vec::new(),
        }
    }

    /// The same program, recording the branches of the `covered` classes (internal names) too.
    pub fn covering(mut self, covered: &[Arc<str>]) -> Program {
        self.covered = covered.to_vec();
        self
    }

    /// The same program, reading and keeping the target classes' analyses in `cache`.
    pub fn sharing_analyses(mut self, cache: &AnalysisCache) -> Program {
        self.analyses = Arc::clone(cache);
        self
    }

    /// The branch analysis of target class `class`, from the cache or made once.
    fn target_analysis(&self, class: &ClassInfo) -> Result<Arc<ClassAnalysis>, SymbolicError> {
        let cached = self
            .analyses
            .lock()
            .ok()
            .and_then(|c| c.get(&class.name).cloned());
        if let Some(a) = cached {
            return Ok(a);
        }
        let a = Arc::new(analyze_class(&class.file).map_err(|e| bad(&class.name, e.to_string()))?);
        if let Ok(mut c) = self.analyses.lock() {
            c.insert(class.name.clone(), Arc::clone(&a));
        }
        Ok(a)
    }

    pub fn target(&self) -> &Arc<str> {
        &self.target
    }

    pub fn hierarchy(&self) -> &Arc<Hierarchy> {
        &self.hierarchy
    }

    pub fn class_by_id(&self, id: ClassId) -> &Arc<ClassInfo> {
        &self.classes[id.0 as usize]
    }

    /// Loads class `name` (internal) with its superclasses; `Ok(None)` if not on the classpath.
    pub fn load(&mut self, name: &str) -> Result<Option<Arc<ClassInfo>>, SymbolicError> {
        if let Some(id) = self.by_name.get(name) {
            return Ok(Some(self.classes[id.0 as usize].clone()));
        }
        if self.missing.contains_key(name) {
            return Ok(None);
        }
        let file = self
            .classpath
            .class_file(name)
            .map_err(|source| SymbolicError::Classpath {
                class: ClassName::from_internal(name),
                source,
            })?;
        let Some(file) = file else {
            self.missing.insert(Arc::from(name), ());
            return Ok(None);
        };
        let cp = &file.constant_pool;
        let super_name = file
            .super_name()
            .map_err(|e| bad(name, e.to_string()))?
            .map(Arc::<str>::from);
        let interfaces = file
            .interface_names()
            .map_err(|e| bad(name, e.to_string()))?
            .into_iter()
            .map(Arc::<str>::from)
            .collect();
        let mut fields = match &super_name {
            Some(s) => match self.load(s)? {
                Some(sup) => sup.fields.clone(),
                None => {
                    return Err(SymbolicError::ClassNotFound {
                        class: ClassName::from_internal(s),
                    })
                }
            },
            None => Vec::new(),
        };
        let owner: Arc<str> = Arc::from(name);
        let mut statics = Vec::new();
        for f in &file.fields {
            let fname: Arc<str> = Arc::from(cp.utf8(f.name).map_err(|e| bad(name, e.to_string()))?);
            let desc = cp
                .utf8(f.descriptor)
                .map_err(|e| bad(name, e.to_string()))?;
            let ty = FieldType::parse(desc).map_err(|e| bad(name, e.to_string()))?;
            let constant = f.attributes.iter().find_map(|a| match &a.body {
                AttributeBody::ConstantValue(i) => cp.get(*i).cloned(),
                _ => None,
            });
            let slot = FieldSlot {
                owner: owner.clone(),
                name: fname,
                ty,
                constant,
            };
            if f.access_flags.is_static() {
                statics.push(slot);
            } else {
                fields.push(slot);
            }
        }
        let static_index = statics
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i))
            .collect();
        let id = ClassId(self.classes.len() as u32);
        let info = Arc::new(ClassInfo {
            id,
            name: owner.clone(),
            access: file.access_flags,
            file,
            super_name,
            interfaces,
            fields,
            statics,
            static_index,
        });
        self.classes.push(info.clone());
        self.by_name.insert(owner, id);
        Ok(Some(info))
    }

    /// Loads a class that must exist.
    pub fn require(&mut self, name: &str) -> Result<Arc<ClassInfo>, SymbolicError> {
        self.load(name)?
            .ok_or_else(|| SymbolicError::ClassNotFound {
                class: ClassName::from_internal(name),
            })
    }

    /// The member reference at `index` of class `class`'s constant pool.
    pub fn member_ref(
        &mut self,
        class: ClassId,
        index: CpIndex,
    ) -> Result<Arc<MemberRefInfo>, SymbolicError> {
        if let Some(r) = self.member_refs.get(&(class, index.0)) {
            return Ok(r.clone());
        }
        let info = self.class_by_id(class).clone();
        let r = info
            .file
            .constant_pool
            .member_ref(index)
            .map_err(|e| bad(&info.name, e.to_string()))?;
        let out = Arc::new(MemberRefInfo {
            owner: Arc::from(r.owner),
            name: Arc::from(r.name),
            descriptor: Arc::from(r.descriptor),
            interface: r.interface,
        });
        self.member_refs.insert((class, index.0), out.clone());
        Ok(out)
    }

    /// The method `name descriptor` declared by `class` itself, prepared to run.
    pub fn declared_method(
        &mut self,
        class: &Arc<ClassInfo>,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Arc<MethodBody>>, SymbolicError> {
        let key = (
            class.id,
            Arc::<str>::from(name),
            Arc::<str>::from(descriptor),
        );
        if let Some(m) = self.methods.get(&key) {
            return Ok(m.clone());
        }
        let body = match class.file.find_method(name, descriptor) {
            None => None,
            Some(m) => Some(Arc::new(self.prepare(class, m, name, descriptor)?)),
        };
        self.methods.insert(key, body.clone());
        Ok(body)
    }

    fn prepare(
        &mut self,
        class: &Arc<ClassInfo>,
        m: &rivet_classfile::Member,
        name: &str,
        descriptor: &str,
    ) -> Result<MethodBody, SymbolicError> {
        let signature =
            MethodDescriptor::parse(descriptor).map_err(|e| bad(&class.name, e.to_string()))?;
        let (max_locals, insns, mut handlers_raw) = match m.code() {
            Some(code) => (
                usize::from(code.max_locals),
                code.instructions.clone(),
                code.exception_table.clone(),
            ),
            None => (signature.param_slots() as usize + 1, Vec::new(), Vec::new()),
        };
        let mut handlers = Vec::new();
        for h in handlers_raw.drain(..) {
            let handler = insns
                .binary_search_by_key(&h.handler_pc, |i| i.offset)
                .map_err(|_| {
                    bad(
                        &class.name,
                        format!(
                            "{name}{descriptor}: handler at {} is not an instruction",
                            h.handler_pc
                        ),
                    )
                })?;
            let catch = if h.catch_type.0 == 0 {
                None
            } else {
                Some(Arc::from(
                    class
                        .file
                        .constant_pool
                        .class_name(h.catch_type)
                        .map_err(|e| bad(&class.name, e.to_string()))?,
                ))
            };
            handlers.push(Handler {
                start: h.start_pc,
                end: h.end_pc,
                handler,
                catch,
            });
        }
        let mut branches = HashMap::new();
        let covered = self.covered.iter().position(|c| *c == class.name);
        if (class.name == self.target || covered.is_some()) && m.code().is_some() {
            let id = |local: u32| covered.map_or(local, |k| covered_branch(k, local));
            let analysis = self.target_analysis(class)?;
            if let Some(ma) = analysis
                .methods
                .iter()
                .find(|ma| ma.name == name && ma.descriptor == descriptor)
            {
                for b in &ma.branches {
                    for offset in std::iter::once(b.offset).chain(b.duplicates.iter().copied()) {
                        if let Some(dest) =
                            destination(&insns, offset, &b.kind, b.target, offset == b.offset)
                        {
                            branches.insert((offset, dest), id(b.id.0));
                        }
                    }
                }
            }
        }
        Ok(MethodBody {
            class: class.id,
            class_name: class.name.clone(),
            name: Arc::from(name),
            descriptor: Arc::from(descriptor),
            signature,
            access: m.access_flags,
            max_locals,
            insns,
            handlers,
            branches,
        })
    }

    /// Resolves a method as `invokestatic`/`invokespecial` do: in `owner`, then its
    /// superclasses, then its superinterfaces.
    pub fn resolve_method(
        &mut self,
        owner: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Arc<MethodBody>>, SymbolicError> {
        let Some(mut class) = self.load(owner)? else {
            return Ok(None);
        };
        loop {
            if let Some(m) = self.declared_method(&class, name, descriptor)? {
                return Ok(Some(m));
            }
            match class.super_name.clone() {
                Some(s) => class = self.require(&s)?,
                None => break,
            }
        }
        self.interface_method(owner, name, descriptor)
    }

    /// A non-abstract method from the superinterfaces of `class` (default methods).
    fn interface_method(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
    ) -> Result<Option<Arc<MethodBody>>, SymbolicError> {
        let mut queue: Vec<Arc<str>> = vec![Arc::from(class)];
        let mut seen: Vec<Arc<str>> = Vec::new();
        let mut abstract_found = None;
        while let Some(c) = queue.pop() {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c.clone());
            let Some(info) = self.load(&c)? else { continue };
            if info.is_interface() {
                if let Some(m) = self.declared_method(&info, name, descriptor)? {
                    if !m.access.is_abstract() {
                        return Ok(Some(m));
                    }
                    abstract_found.get_or_insert(m);
                }
            }
            queue.extend(info.interfaces.iter().cloned());
            if let Some(s) = &info.super_name {
                queue.push(s.clone());
            }
        }
        Ok(abstract_found)
    }

    /// Virtual dispatch: the method `name descriptor` that runs for a receiver of `class`.
    pub fn dispatch(
        &mut self,
        class: ClassId,
        name: &Arc<str>,
        descriptor: &Arc<str>,
    ) -> Result<Option<Arc<MethodBody>>, SymbolicError> {
        let key = (class, name.clone(), descriptor.clone());
        if let Some(m) = self.virtual_cache.get(&key) {
            return Ok(m.clone());
        }
        let mut current = Some(self.class_by_id(class).clone());
        let mut found = None;
        while let Some(c) = current {
            if let Some(m) = self.declared_method(&c, name, descriptor)? {
                if !m.access.is_abstract() && !m.access.is_static() {
                    found = Some(m);
                    break;
                }
            }
            current = match &c.super_name {
                Some(s) => Some(self.require(s)?),
                None => None,
            };
        }
        if found.is_none() {
            let cname = self.class_by_id(class).name.clone();
            found = self.interface_method(&cname, name, descriptor)?;
        }
        self.virtual_cache.insert(key, found.clone());
        Ok(found)
    }

    /// True if a value of type `from` may be stored where `to` is expected (internal names
    /// or array descriptors). Unknown classes make it false.
    pub fn is_assignable(&mut self, from: &str, to: &str) -> bool {
        if from == to || to == "java/lang/Object" {
            return true;
        }
        let key = (Arc::<str>::from(from), Arc::<str>::from(to));
        if let Some(v) = self.assignable.get(&key) {
            return *v;
        }
        let v = self.hierarchy.is_assignable(from, to).unwrap_or(false);
        self.assignable.insert(key, v);
        v
    }

    /// The concrete classes a reference of static type `ty` may point to when it is fresh:
    /// `ty` itself if concrete, and its concrete subtypes among the user classes; sorted,
    /// `ty` first. Array types and `java.lang.Object` expand to themselves. JDK interfaces
    /// and abstract classes with no implementation among the user classes expand to their
    /// usual JDK implementations (see `jdk_defaults`).
    pub fn concrete_subtypes(&mut self, ty: &str) -> Result<Arc<[Arc<str>]>, SymbolicError> {
        if let Some(v) = self.concrete_subtypes.get(ty) {
            return Ok(v.clone());
        }
        let mut out: Vec<Arc<str>> = Vec::new();
        if ty.starts_with('[') || ty == "java/lang/Object" {
            // Every class is an Object: a fresh Object is just an Object (`expand-only`
            // invariants widen it).
            out.push(Arc::from(ty));
        } else {
            if let Some(c) = self.load(ty)? {
                if c.is_concrete() {
                    out.push(c.name.clone());
                }
            }
            let mut subs = self
                .hierarchy
                .subtypes(ty, SubtypeScope::UserClasses)
                .map_err(|source| SymbolicError::Hierarchy {
                    class: ClassName::from_internal(ty),
                    source,
                })?;
            // A JDK type stands for its usual JDK implementations and the user classes of
            // the explored class's own package: not for every implementation in every jar of
            // the classpath (a `Map` parameter of commons-collections4 `LRUMap` expanded to
            // guava's private map classes, which no test can build).
            let jdk_type = self
                .classpath
                .jdk()
                .is_some_and(|jdk| jdk.contains(ty).unwrap_or(false));
            if jdk_type {
                let package = ClassName::from_internal(&self.target).package().to_string();
                subs.retain(|s| ClassName::from_internal(s).package() == package);
                for d in jdk_defaults(ty) {
                    if !out.iter().any(|o| &**o == *d) {
                        out.push(Arc::from(*d));
                    }
                }
            }
            for s in subs {
                if let Some(c) = self.load(&s)? {
                    if c.is_concrete() && !out.contains(&c.name) {
                        out.push(c.name.clone());
                    }
                }
            }
        }
        if out.is_empty() {
            out.extend(jdk_defaults(ty).iter().map(|c| Arc::<str>::from(*c)));
        }
        let out: Arc<[Arc<str>]> = out.into();
        self.concrete_subtypes.insert(Arc::from(ty), out.clone());
        Ok(out)
    }
}

/// The usual JDK implementations of common JDK interfaces and abstract classes (lists, sets,
/// maps, queues, char sequences, numbers), which such a type expands to beside the user
/// classes of the explored class's package.
pub fn jdk_defaults(ty: &str) -> &'static [&'static str] {
    match ty {
        "java/util/List"
        | "java/util/Collection"
        | "java/lang/Iterable"
        | "java/util/AbstractList"
        | "java/util/AbstractCollection" => &["java/util/ArrayList", "java/util/LinkedList"],
        "java/util/Queue" | "java/util/Deque" => &["java/util/ArrayDeque", "java/util/LinkedList"],
        "java/util/Set" | "java/util/AbstractSet" => &["java/util/HashSet", "java/util/TreeSet"],
        "java/util/SortedSet" | "java/util/NavigableSet" => &["java/util/TreeSet"],
        "java/util/Map" | "java/util/AbstractMap" => &["java/util/HashMap", "java/util/TreeMap"],
        "java/util/SortedMap" | "java/util/NavigableMap" => &["java/util/TreeMap"],
        "java/lang/CharSequence" => &["java/lang/String"],
        "java/lang/Number" => &["java/lang/Integer", "java/lang/Long"],
        "java/lang/Comparable" => &["java/lang/Integer", "java/lang/String"],
        _ => &[],
    }
}

/// The offset control reaches when branch `kind` of the instruction at `offset` is taken.
fn destination(
    insns: &[Instruction],
    offset: u32,
    kind: &rivet_analysis::BranchKind,
    target: u32,
    original: bool,
) -> Option<u32> {
    use rivet_analysis::BranchKind;
    let i = insns.binary_search_by_key(&offset, |i| i.offset).ok()?;
    let insn = &insns[i];
    match kind {
        BranchKind::False => insns.get(i + 1).map(|n| n.offset),
        BranchKind::True => match insn.operand {
            Operand::Jump(t) => Some(t),
            _ => None,
        },
        _ if original => Some(target),
        _ => None,
    }
}

#[cfg(test)]
#[path = "program_tests.rs"]
mod tests;
