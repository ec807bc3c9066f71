//! The type hierarchy of a classpath: supertypes, subtypes known on the classpath, and
//! assignability of class and array types by the JVM's rules (those of `checkcast` and
//! `instanceof`, JVMS §6.5).

use rivet_classfile::ClassName;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use crate::classpath::Classpath;
use crate::error::{ClasspathError, HierarchyError};
use crate::header::ClassHeader;

const OBJECT: &str = "java/lang/Object";
/// The interfaces every array type implements.
const ARRAY_INTERFACES: [&str; 2] = ["java/lang/Cloneable", "java/io/Serializable"];

/// Which classes [`Hierarchy::subtypes`] searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubtypeScope {
    /// The classes of the user entries.
    UserClasses,
    /// The user classes and every JDK class (the first call reads the whole JDK).
    WithJdk,
}

/// Direct subtypes: supertype -> classes naming it as superclass or interface.
type SubtypeIndex = HashMap<String, Vec<String>>;

/// Answers questions about the types of a classpath. `Send + Sync`; class headers are
/// cached by the classpath, subtype indexes here.
#[derive(Debug)]
pub struct Hierarchy {
    classpath: Arc<Classpath>,
    user_index: Mutex<Option<Arc<SubtypeIndex>>>,
    jdk_index: Mutex<Option<Arc<SubtypeIndex>>>,
}

/// A JVM type named by an internal name or an array descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JvmType<'a> {
    Primitive(u8),
    Class(&'a str),
    /// The component type's descriptor.
    Array(&'a str),
}

impl<'a> JvmType<'a> {
    /// A top-level name: `[...` is an array descriptor, `Lname;` a class descriptor,
    /// anything else an internal class name.
    fn from_name(name: &'a str) -> Result<JvmType<'a>, HierarchyError> {
        if name.starts_with('[') || (name.starts_with('L') && name.ends_with(';')) {
            return JvmType::from_descriptor(name);
        }
        if crate::name::is_class_name(name) {
            Ok(JvmType::Class(name))
        } else {
            Err(bad_type(name))
        }
    }

    /// A field descriptor (`I`, `Ljava/lang/String;`, `[[J`).
    fn from_descriptor(descriptor: &'a str) -> Result<JvmType<'a>, HierarchyError> {
        match descriptor.as_bytes() {
            [b @ (b'B' | b'C' | b'D' | b'F' | b'I' | b'J' | b'S' | b'Z')] => {
                Ok(JvmType::Primitive(*b))
            }
            [b'[', ..] => {
                let component = &descriptor[1..];
                JvmType::from_descriptor(component)?;
                Ok(JvmType::Array(component))
            }
            [b'L', .., b';'] => {
                let name = &descriptor[1..descriptor.len() - 1];
                if crate::name::is_class_name(name) {
                    Ok(JvmType::Class(name))
                } else {
                    Err(bad_type(descriptor))
                }
            }
            _ => Err(bad_type(descriptor)),
        }
    }
}

fn bad_type(descriptor: &str) -> HierarchyError {
    HierarchyError::BadType {
        descriptor: descriptor.to_string(),
    }
}

impl Hierarchy {
    pub fn new(classpath: Arc<Classpath>) -> Hierarchy {
        Hierarchy {
            classpath,
            user_index: Mutex::new(None),
            jdk_index: Mutex::new(None),
        }
    }

    pub fn classpath(&self) -> &Arc<Classpath> {
        &self.classpath
    }

    /// The header of a class that must be on the classpath.
    pub fn header(&self, class: &str) -> Result<Arc<ClassHeader>, HierarchyError> {
        self.classpath
            .class_header(class)?
            .ok_or_else(|| HierarchyError::ClassNotFound {
                class: ClassName::from_internal(class),
            })
    }

    /// The header of `supertype`, named as a supertype by `class`.
    fn supertype_header(
        &self,
        class: &str,
        supertype: &str,
    ) -> Result<Arc<ClassHeader>, HierarchyError> {
        self.classpath
            .class_header(supertype)?
            .ok_or_else(|| HierarchyError::MissingSupertype {
                class: ClassName::from_internal(class),
                supertype: ClassName::from_internal(supertype),
            })
    }

    /// The superclass chain of `class`, nearest first, ending with `java/lang/Object`
    /// (empty for Object itself; `[Object]` for interfaces).
    pub fn superclasses(&self, class: &str) -> Result<Vec<String>, HierarchyError> {
        let mut chain = Vec::new();
        let mut current = self.header(class)?;
        while let Some(parent) = current.super_name.clone() {
            if chain.contains(&parent) || parent == class {
                break; // A cycle: only malformed classpaths have one.
            }
            let next = self.supertype_header(&current.name, &parent)?;
            chain.push(parent);
            current = next;
        }
        Ok(chain)
    }

    /// Every interface `class` implements, directly or through its superclasses and
    /// superinterfaces, in breadth-first order, each once.
    pub fn interfaces(&self, class: &str) -> Result<Vec<String>, HierarchyError> {
        let mut queue: VecDeque<Arc<ClassHeader>> = VecDeque::new();
        queue.push_back(self.header(class)?);
        for superclass in self.superclasses(class)? {
            queue.push_back(self.header(&superclass)?);
        }
        let mut seen = HashSet::new();
        let mut interfaces = Vec::new();
        while let Some(header) = queue.pop_front() {
            for interface in &header.interfaces {
                if seen.insert(interface.clone()) {
                    queue.push_back(self.supertype_header(&header.name, interface)?);
                    interfaces.push(interface.clone());
                }
            }
        }
        Ok(interfaces)
    }

    /// All supertypes of `class`: its superclasses (nearest first) then its interfaces.
    pub fn supertypes(&self, class: &str) -> Result<Vec<String>, HierarchyError> {
        let mut all = self.superclasses(class)?;
        all.extend(self.interfaces(class)?);
        Ok(all)
    }

    /// The classes in `scope` that extend or implement `class`, directly or not; sorted.
    pub fn subtypes(
        &self,
        class: &str,
        scope: SubtypeScope,
    ) -> Result<Vec<String>, HierarchyError> {
        let index = self.subtype_index(scope)?;
        let mut found = BTreeSet::new();
        let mut queue = vec![class];
        while let Some(current) = queue.pop() {
            for sub in index.get(current).into_iter().flatten() {
                if sub != class && found.insert(sub.as_str()) {
                    queue.push(sub);
                }
            }
        }
        Ok(found.into_iter().map(str::to_string).collect())
    }

    /// The classes in `scope` that name `class` as superclass or interface; sorted.
    pub fn direct_subtypes(
        &self,
        class: &str,
        scope: SubtypeScope,
    ) -> Result<Vec<String>, HierarchyError> {
        let index = self.subtype_index(scope)?;
        Ok(index.get(class).cloned().unwrap_or_default())
    }

    fn subtype_index(&self, scope: SubtypeScope) -> Result<Arc<SubtypeIndex>, HierarchyError> {
        let slot = match scope {
            SubtypeScope::UserClasses => &self.user_index,
            SubtypeScope::WithJdk => &self.jdk_index,
        };
        let mut guard = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(index) = guard.as_ref() {
            return Ok(index.clone());
        }
        let mut index = SubtypeIndex::new();
        let mut add = |header: &ClassHeader| {
            for supertype in header.super_name.iter().chain(&header.interfaces) {
                index
                    .entry(supertype.clone())
                    .or_default()
                    .push(header.name.clone());
            }
        };
        let jdk = self.classpath.jdk();
        for name in self.classpath.user_classes()? {
            // A user class shadowed by a JDK class (a `java/lang/String.class` in a user
            // directory) is never loaded: leave it out.
            if let Some(jdk) = jdk {
                if jdk.contains(&name)? {
                    continue;
                }
            }
            if let Some(header) = self.classpath.class_header(&name)? {
                add(&header);
            }
        }
        if scope == SubtypeScope::WithJdk {
            if let Some(jdk) = jdk {
                for class in jdk.classes()? {
                    let class = class?;
                    let header = ClassHeader::parse(&class.bytes).map_err(|source| {
                        ClasspathError::BadClass {
                            path: jdk.path().to_path_buf(),
                            class: ClassName::from_internal(&class.name),
                            source: Box::new(source),
                        }
                    })?;
                    add(&header);
                }
            }
        }
        for subs in index.values_mut() {
            subs.sort();
            subs.dedup();
        }
        let index = Arc::new(index);
        *guard = Some(index.clone());
        Ok(index)
    }

    /// True if `class` is `ancestor` or extends or implements it, directly or not. Errors
    /// only when the answer depends on a class missing from the classpath.
    pub fn is_subtype_of(&self, class: &str, ancestor: &str) -> Result<bool, HierarchyError> {
        if class == ancestor || ancestor == OBJECT {
            return Ok(true);
        }
        let mut queue = VecDeque::from([self.header(class)?]);
        let mut seen = HashSet::from([class.to_string()]);
        let mut missing: Option<HierarchyError> = None;
        while let Some(header) = queue.pop_front() {
            for supertype in header.super_name.iter().chain(&header.interfaces) {
                if supertype == ancestor {
                    return Ok(true);
                }
                if !seen.insert(supertype.clone()) {
                    continue;
                }
                match self.supertype_header(&header.name, supertype) {
                    Ok(next) => queue.push_back(next),
                    Err(e @ HierarchyError::MissingSupertype { .. }) => {
                        missing.get_or_insert(e);
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        match missing {
            Some(e) => Err(e),
            None => Ok(false),
        }
    }

    /// True if a value of type `from` may be stored where type `to` is expected, by the JVM
    /// rules of `checkcast`: a class to itself and its supertypes; anything but a primitive
    /// to `java/lang/Object`; arrays to `Cloneable` and `Serializable`, and to arrays whose
    /// component type they are assignable to when both components are references (`[I` is
    /// assignable only to `[I`).
    ///
    /// `from` and `to` are internal names (`java/util/ArrayList`) or descriptors of arrays
    /// (`[I`, `[Ljava/lang/String;`) or classes (`Ljava/util/List;`).
    pub fn is_assignable(&self, from: &str, to: &str) -> Result<bool, HierarchyError> {
        self.assignable(JvmType::from_name(from)?, JvmType::from_name(to)?)
    }

    fn assignable(&self, from: JvmType<'_>, to: JvmType<'_>) -> Result<bool, HierarchyError> {
        match (from, to) {
            (JvmType::Primitive(a), JvmType::Primitive(b)) => Ok(a == b),
            (JvmType::Primitive(_), _) | (_, JvmType::Primitive(_)) => Ok(false),
            (JvmType::Class(a), JvmType::Class(b)) => self.is_subtype_of(a, b),
            (JvmType::Class(_), JvmType::Array(_)) => Ok(false),
            (JvmType::Array(_), JvmType::Class(b)) => {
                Ok(b == OBJECT || ARRAY_INTERFACES.contains(&b))
            }
            (JvmType::Array(a), JvmType::Array(b)) => {
                let (a, b) = (JvmType::from_descriptor(a)?, JvmType::from_descriptor(b)?);
                self.assignable(a, b)
            }
        }
    }
}
