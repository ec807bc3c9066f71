//! The members of one class a test may use (see [`Access`]) as callables: constructors,
//! methods and writable fields with their generic types, plus which no-argument methods only
//! read state (inspectors, used for regression assertions).

use std::collections::{HashMap, HashSet};

use rivet_classfile::{
    AccessFlags, AttributeBody, ClassFile, Member, MethodDescriptor, Opcode, Operand,
};
use rivet_testcase::MemberRef;

use crate::access::Access;

use rivet_testcase::{
    parse_class_supertype, parse_class_type_params, parse_field_signature, parse_method_signature,
    JType, TypeParams,
};

/// What a callable does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallableKind {
    Constructor,
    Method,
    FieldWrite,
}

/// A member a test may call (or a field it may write).
#[derive(Debug, Clone, PartialEq)]
pub struct Callable {
    pub kind: CallableKind,
    pub member: MemberRef,
    pub is_static: bool,
    /// Generic parameter types; the owner's type variables are substituted from a receiver's
    /// type arguments by [`Callable::instantiate`]. A field write has one, the field's type.
    pub params: Vec<JType>,
    /// The result type (for a constructor, the class type), None for void.
    pub returns: Option<JType>,
    /// The owner class's type parameter names, in order.
    pub owner_params: Vec<String>,
}

impl Callable {
    /// Parameter and return types with the owner's type variables bound to `receiver_args`
    /// (the receiver's type arguments, or those chosen for a constructor).
    pub fn instantiate(&self, receiver_args: &[JType]) -> (Vec<JType>, Option<JType>) {
        if receiver_args.is_empty() || self.owner_params.is_empty() {
            return (self.params.clone(), self.returns.clone());
        }
        let env: HashMap<String, JType> = self
            .owner_params
            .iter()
            .cloned()
            .zip(receiver_args.iter().cloned())
            .collect();
        (
            self.params.iter().map(|p| p.substitute(&env)).collect(),
            self.returns.as_ref().map(|r| r.substitute(&env)),
        )
    }

    /// `Owner.name(desc)`, for logs and comments.
    pub fn label(&self) -> String {
        self.member.to_string()
    }
}

/// The API of one class as a test with some [`Access`] sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassApi {
    /// Internal name.
    pub name: String,
    pub flags: AccessFlags,
    pub type_params: TypeParams,
    pub constructors: Vec<Callable>,
    /// Accessible methods declared in this class (not inherited), bridges and synthetics left
    /// out.
    pub methods: Vec<Callable>,
    /// Accessible non-final fields, as writes.
    pub field_writes: Vec<Callable>,
    /// Names of the enum constants (for enums).
    pub enum_constants: Vec<String>,
    /// (name, descriptor) of the no-argument methods that only read state.
    pub inspectors: HashSet<(String, String)>,
    /// Can a test name the class (an accessible top-level class, or a static member class
    /// accessible at every level)?
    pub nameable: bool,
    pub superclass: Option<String>,
    /// For an inner (non-static member) class: its enclosing class. Its constructors take the
    /// enclosing instance first, as in the class file.
    pub enclosing: Option<String>,
    /// The superclass with its type arguments in terms of this class's type variables (from
    /// the Signature attribute), when generic.
    pub super_type: Option<JType>,
    /// Accessible static final fields of reference type other than enum constants (`Locale.ROOT`,
    /// `BigDecimal.ZERO`), with their declared types.
    pub static_constants: Vec<(MemberRef, JType)>,
}

impl ClassApi {
    pub fn is_abstract(&self) -> bool {
        self.flags.is_abstract() || self.flags.is_interface()
    }

    /// The class type with its own type variables as arguments.
    pub fn self_type(&self) -> JType {
        JType::Class {
            name: self.name.as_str().into(),
            args: self
                .type_params
                .params
                .iter()
                .map(|(n, b)| JType::Var {
                    name: n.clone(),
                    erasure: Box::new(b.erased()),
                })
                .collect(),
        }
    }

    /// Reads the API of a parsed class as a test with `access` sees it.
    pub fn read(cf: &ClassFile, access: &Access) -> Result<ClassApi, String> {
        let name = cf.name().map_err(|e| e.to_string())?.to_string();
        let signature = |attrs: &[rivet_classfile::Attribute]| {
            attrs.iter().find_map(|a| match a.body {
                AttributeBody::Signature(i) => cf.constant_pool.utf8(i).ok(),
                _ => None,
            })
        };
        let type_params = signature(&cf.attributes)
            .and_then(parse_class_type_params)
            .unwrap_or_default();
        let owner_params: Vec<String> = type_params.params.iter().map(|(n, _)| n.clone()).collect();
        let nameable =
            access.allows(&name, cf.access_flags) && member_class_accessible(cf, &name, access);
        let mut api = ClassApi {
            name: name.clone(),
            flags: cf.access_flags,
            type_params: type_params.clone(),
            constructors: Vec::new(),
            methods: Vec::new(),
            field_writes: Vec::new(),
            enum_constants: Vec::new(),
            inspectors: HashSet::new(),
            nameable,
            superclass: cf.super_name().ok().flatten().map(str::to_string),
            enclosing: enclosing_instance_class(cf, &name),
            super_type: signature(&cf.attributes).and_then(parse_class_supertype),
            static_constants: Vec::new(),
        };
        for f in &cf.fields {
            let fname = cf.member_name(f).map_err(|e| e.to_string())?;
            let desc = cf.member_descriptor(f).map_err(|e| e.to_string())?;
            if f.access_flags.is_enum() {
                api.enum_constants.push(fname.to_string());
                continue;
            }
            if f.access_flags.is_static()
                && f.access_flags.has(AccessFlags::FINAL)
                && !f.is_synthetic()
                && access.allows(&name, f.access_flags)
                && (desc.starts_with('L') || desc.starts_with('['))
            {
                if let Some(ty) = JType::from_descriptor(desc) {
                    api.static_constants
                        .push((MemberRef::new(&name, fname, desc), ty));
                }
            }
            if !access.allows(&name, f.access_flags)
                || f.access_flags.has(AccessFlags::FINAL)
                || f.is_synthetic()
            {
                continue;
            }
            let Some(erased) = JType::from_descriptor(desc) else {
                continue;
            };
            let ty = signature(&f.attributes)
                .and_then(|s| parse_field_signature(s, &type_params))
                .unwrap_or(erased);
            api.field_writes.push(Callable {
                kind: CallableKind::FieldWrite,
                member: MemberRef::new(&name, fname, desc),
                is_static: f.access_flags.is_static(),
                params: vec![ty],
                returns: None,
                owner_params: owner_params.clone(),
            });
        }
        for m in &cf.methods {
            let mname = cf.member_name(m).map_err(|e| e.to_string())?;
            let desc = cf.member_descriptor(m).map_err(|e| e.to_string())?;
            if !access.allows(&name, m.access_flags)
                || m.is_synthetic()
                || m.access_flags.has(AccessFlags::BRIDGE)
            {
                continue;
            }
            if mname == "<clinit>" {
                continue;
            }
            let Ok(parsed) = MethodDescriptor::parse(desc) else {
                continue;
            };
            let erased: Vec<JType> = parsed.params.iter().map(JType::from_field_type).collect();
            let erased_ret = parsed.ret.as_ref().map(JType::from_field_type);
            let generic =
                signature(&m.attributes).and_then(|s| parse_method_signature(s, &type_params));
            let (params, ret) = match generic {
                // javac leaves synthetic parameters (outer instances, enum names) out of
                // signatures: trust a signature only when the counts agree.
                Some(g) if g.params.len() == erased.len() => (g.params, g.ret),
                _ => (erased, erased_ret),
            };
            let is_static = m.access_flags.is_static();
            if mname == "<init>" {
                if api.is_abstract() || cf.access_flags.is_enum() {
                    continue;
                }
                api.constructors.push(Callable {
                    kind: CallableKind::Constructor,
                    member: MemberRef::new(&name, mname, desc),
                    is_static: true,
                    params,
                    returns: Some(api.self_type()),
                    owner_params: owner_params.clone(),
                });
                continue;
            }
            if !is_static
                && parsed.params.is_empty()
                && is_primitive_or_string(parsed.ret.as_ref())
                && reads_only(cf, m, &mut HashSet::new())
            {
                api.inspectors.insert((mname.to_string(), desc.to_string()));
            }
            api.methods.push(Callable {
                kind: CallableKind::Method,
                member: MemberRef::new(&name, mname, desc),
                is_static,
                params,
                returns: ret,
                owner_params: owner_params.clone(),
            });
        }
        let ambiguous: Vec<MemberRef> = api
            .methods
            .iter()
            .filter(|a| api.methods.iter().any(|b| shadowed_by_generic(a, b)))
            .map(|a| a.member.clone())
            .collect();
        api.methods.retain(|m| !ambiguous.contains(&m.member));
        Ok(api)
    }
}

/// Is a call of `a` ambiguous in Java source because of the overload `b`, which takes a type
/// variable of its own where `a` takes a class (`defaultedMap(Map, V)` beside
/// `defaultedMap(Map, Factory)`: with the arguments' types exactly `a`'s, javac infers
/// `V = Factory` and finds neither more specific)? Such a method is left out of the API: no test
/// could call it without reflection.
fn shadowed_by_generic(a: &Callable, b: &Callable) -> bool {
    if a.member == b.member
        || a.member.name != b.member.name
        || a.params.len() != b.params.len()
        || a.is_static != b.is_static
    {
        return false;
    }
    let mut by_variable = false;
    for (pa, pb) in a.params.iter().zip(&b.params) {
        match pb {
            JType::Var { name, erasure }
                if (b.is_static || !b.owner_params.contains(name))
                    && erasure.class_name() == Some(rivet_testcase::OBJECT)
                    && pa.is_reference()
                    && pa.erased() != pb.erased() =>
            {
                by_variable = true;
            }
            _ if pa.erased() == pb.erased() => {}
            _ => return false,
        }
    }
    by_variable
}

fn is_primitive_or_string(t: Option<&rivet_classfile::FieldType>) -> bool {
    use rivet_classfile::FieldType as F;
    match t {
        Some(F::Object(n)) => n == "java/lang/String" || rivet_testcase::Prim::unboxed(n).is_some(),
        Some(F::Array(_)) | None => false,
        Some(_) => true,
    }
}

/// The enclosing class of `name` when it is a non-static member ("inner") class, whose
/// instances a test creates through an enclosing instance (`outer.new Inner()`).
fn enclosing_instance_class(cf: &ClassFile, name: &str) -> Option<String> {
    let inner = cf.attribute(|b| match b {
        AttributeBody::InnerClasses(v) => Some(v),
        _ => None,
    })?;
    let e = inner
        .iter()
        .find(|e| cf.constant_pool.class_name(e.inner_class).ok() == Some(name))?;
    let flags = AccessFlags(e.access_flags);
    if e.outer_class.0 == 0 || flags.is_static() || flags.is_interface() || flags.is_enum() {
        return None;
    }
    cf.constant_pool
        .class_name(e.outer_class)
        .ok()
        .map(str::to_string)
}

/// Is `name` a top-level class, or a member class every level of which is accessible (so
/// that a test with `access` can name it)? Inner (non-static) levels are allowed: their
/// instances are created through an enclosing instance.
fn member_class_accessible(cf: &ClassFile, name: &str, access: &Access) -> bool {
    let Some(inner) = cf.attribute(|b| match b {
        AttributeBody::InnerClasses(v) => Some(v),
        _ => None,
    }) else {
        return !name.contains('$');
    };
    let mut current = name.to_string();
    loop {
        let entry = inner
            .iter()
            .find(|e| cf.constant_pool.class_name(e.inner_class).ok() == Some(current.as_str()));
        let Some(e) = entry else {
            return !current.contains('$');
        };
        if e.outer_class.0 == 0 || e.inner_name.0 == 0 {
            return false; // local or anonymous
        }
        let flags = AccessFlags(e.access_flags);
        if !access.allows(&current, flags) {
            return false;
        }
        match cf.constant_pool.class_name(e.outer_class) {
            Ok(outer) => current = outer.to_string(),
            Err(_) => return false,
        }
    }
}

/// JDK classes whose methods read without writing (for inspectors calling them).
const PURE_JDK: &[&str] = &[
    "java/lang/String",
    "java/lang/Math",
    "java/lang/StrictMath",
    "java/lang/Integer",
    "java/lang/Long",
    "java/lang/Short",
    "java/lang/Byte",
    "java/lang/Character",
    "java/lang/Boolean",
    "java/lang/Float",
    "java/lang/Double",
    "java/lang/StringBuilder",
    "java/util/Objects",
    "java/util/Arrays",
];

/// Read-only methods of JDK collections.
const PURE_COLLECTION_METHODS: &[&str] = &[
    "size",
    "isEmpty",
    "get",
    "contains",
    "containsKey",
    "containsValue",
    "peek",
    "peekFirst",
    "peekLast",
    "getFirst",
    "getLast",
    "indexOf",
    "length",
    "charAt",
    "equals",
    "intValue",
    "longValue",
    "doubleValue",
    "booleanValue",
];

/// Does method `m` of `cf` only read fields (no field or array writes, and calls only to
/// read-only JDK methods or to read-only private/final methods of the same class)?
fn reads_only(cf: &ClassFile, m: &Member, visiting: &mut HashSet<(String, String)>) -> bool {
    let Some(code) = m.code() else { return false };
    let Ok(this) = cf.name() else { return false };
    for insn in &code.instructions {
        let op = insn.opcode;
        if op == Opcode::PUTFIELD || op == Opcode::PUTSTATIC || op == Opcode::MONITORENTER {
            return false;
        }
        if (Opcode::IASTORE.0..=Opcode::SASTORE.0).contains(&op.0) {
            return false;
        }
        if op == Opcode::INVOKEDYNAMIC {
            continue; // string concatenation
        }
        let index = match &insn.operand {
            Operand::Constant(i)
                if op == Opcode::INVOKEVIRTUAL
                    || op == Opcode::INVOKESPECIAL
                    || op == Opcode::INVOKESTATIC =>
            {
                *i
            }
            Operand::InvokeInterface { index, .. } => *index,
            _ => continue,
        };
        let Ok(r) = cf.constant_pool.member_ref(index) else {
            return false;
        };
        if r.owner == this {
            if r.name == "<init>" {
                return false;
            }
            let key = (r.name.to_string(), r.descriptor.to_string());
            if visiting.contains(&key) {
                continue;
            }
            visiting.insert(key);
            let Some(callee) = cf.find_method(r.name, r.descriptor) else {
                return false;
            };
            if !reads_only(cf, callee, visiting) {
                return false;
            }
        } else if PURE_JDK.contains(&r.owner)
            || (r.owner.starts_with("java/util/") && PURE_COLLECTION_METHODS.contains(&r.name))
            || (r.name == "<init>" && r.owner.starts_with("java/lang/"))
        {
            continue;
        } else {
            return false;
        }
    }
    true
}
