//! Functional interfaces (an interface with exactly one abstract method besides the public
//! methods of `Object`, inherited ones included) and the class literals a test may pass for a
//! `Class` parameter.

use std::collections::{BTreeMap, BTreeSet};

use rivet_classfile::{AccessFlags, MethodDescriptor};
use rivet_classpath::Classpath;
use rivet_testcase::{JType, MemberRef, OBJECT};

/// The single abstract method of a functional interface.
#[derive(Debug, Clone, PartialEq)]
pub struct Sam {
    /// The method as declared (its owner may be a superinterface).
    pub member: MemberRef,
    /// Erased parameter types.
    pub params: Vec<JType>,
    /// Erased result type, None for `void`.
    pub returns: Option<JType>,
}

/// Methods of `Object` an interface may redeclare without losing its functional shape.
fn is_object_method(name: &str, descriptor: &str) -> bool {
    matches!(
        (name, descriptor),
        ("equals", "(Ljava/lang/Object;)Z")
            | ("hashCode", "()I")
            | ("toString", "()Ljava/lang/String;")
    )
}

/// The single abstract method of interface `name`, when it is a functional interface (not an
/// annotation). Superinterfaces are followed; a default method in a subinterface overrides an
/// abstract one of the same name and descriptor.
pub fn find_sam(classpath: &Classpath, name: &str) -> Option<Sam> {
    let cf = classpath.class_file(name).ok()??;
    if !cf.access_flags.is_interface() || cf.access_flags.has(AccessFlags::ANNOTATION) {
        return None;
    }
    // (name, descriptor) → (declaring interface, abstract?), nearest declaration first.
    let mut seen: BTreeMap<(String, String), (String, bool)> = BTreeMap::new();
    let mut queue = vec![name.to_string()];
    let mut visited = BTreeSet::new();
    while let Some(i) = queue.pop() {
        if !visited.insert(i.clone()) || visited.len() > 32 {
            continue;
        }
        let Ok(Some(cf)) = classpath.class_file(&i) else {
            continue;
        };
        for m in &cf.methods {
            let (Ok(mname), Ok(desc)) = (cf.member_name(m), cf.member_descriptor(m)) else {
                continue;
            };
            if m.access_flags.is_static()
                || m.access_flags.is_private()
                || mname.starts_with('<')
                || is_object_method(mname, desc)
            {
                continue;
            }
            seen.entry((mname.to_string(), desc.to_string()))
                .or_insert((i.clone(), m.access_flags.is_abstract()));
        }
        if let Ok(supers) = cf.interface_names() {
            queue.extend(supers.into_iter().map(str::to_string));
        }
    }
    let mut abstract_methods = seen.into_iter().filter(|(_, (_, a))| *a);
    let ((mname, desc), (owner, _)) = abstract_methods.next()?;
    if abstract_methods.next().is_some() {
        return None;
    }
    let parsed = MethodDescriptor::parse(&desc).ok()?;
    Some(Sam {
        member: MemberRef::new(&owner, &mname, &desc),
        params: parsed.params.iter().map(JType::from_field_type).collect(),
        returns: parsed.ret.as_ref().map(JType::from_field_type),
    })
}

/// JDK enums offered for a `Class<E extends Enum<E>>` parameter when the code names none.
pub const JDK_ENUMS: &[&str] = &[
    "java/util/concurrent/TimeUnit",
    "java/math/RoundingMode",
    "java/time/DayOfWeek",
];

/// Class literals (as field descriptors, `V` for `void`) offered for any `Class` parameter:
/// the primitives and `void`, their wrappers, strings, arrays, common collections and the
/// roots of the hierarchy.
pub const COMMON_CLASS_LITERALS: &[&str] = &[
    "I",
    "Z",
    "C",
    "J",
    "D",
    "V",
    "Ljava/lang/Integer;",
    "Ljava/lang/Long;",
    "Ljava/lang/Boolean;",
    "Ljava/lang/Character;",
    "Ljava/lang/Double;",
    "Ljava/lang/String;",
    "Ljava/lang/Object;",
    "Ljava/lang/Number;",
    "Ljava/lang/CharSequence;",
    "Ljava/lang/Comparable;",
    "Ljava/lang/Runnable;",
    "Ljava/util/List;",
    "Ljava/util/ArrayList;",
    "Ljava/util/Map;",
    "Ljava/util/HashMap;",
    "[I",
    "[Ljava/lang/String;",
    "[Ljava/lang/Object;",
];

/// The class named by a `Class<T>` argument `t`, when it pins one down (not `Object`, not a
/// bare type variable).
pub fn pinned_class(t: &JType) -> Option<String> {
    match t {
        JType::Class { name, .. } if &**name != OBJECT => Some(name.to_string()),
        JType::Array(_) => Some(t.descriptor()),
        _ => None,
    }
}

/// Is `t` (a `Class` type argument) an enum bound (`E extends Enum<E>`)?
pub fn is_enum_bound(t: &JType) -> bool {
    t.class_name() == Some("java/lang/Enum")
}

/// A field descriptor for a class literal of internal name (or array descriptor) `c`.
pub fn literal_descriptor(c: &str) -> String {
    if c.starts_with('[') {
        c.to_string()
    } else {
        format!("L{c};")
    }
}
