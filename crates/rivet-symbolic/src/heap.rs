//! The heap of a symbolic state: concrete objects created by the code, and input objects
//! created by lazy initialization (with the access path they were first reached by).

use std::sync::Arc;

use rivet_pc::{StrOp, SymbolId, Term};

use crate::program::ClassId;
use crate::value::Value;
use rivet_pc::AccessPath;

/// The contents of a string or string builder.
#[derive(Debug, Clone, PartialEq)]
pub enum StrValue {
    Concrete(Arc<str>),
    /// Depends on symbols, or an input string: its operations return fresh symbols.
    Opaque,
    /// A string term (with `ExploreConfig::symbolic_strings`): an input string's symbol
    /// (named by the object's access path) or what string operations made of it.
    Term(Term),
}

/// The elements of an array.
#[derive(Debug, Clone, PartialEq)]
pub enum Elements {
    /// An array of concrete length.
    Dense(Vec<Value>),
    /// An input array: the elements read so far, by concrete index; others are fresh
    /// symbols named by access path when first read.
    Sparse(Vec<(i32, Value)>),
    /// An array created with a symbolic length: the elements written so far; the others
    /// hold `default`.
    Filled {
        entries: Vec<(i32, Value)>,
        default: Value,
    },
    /// `toCharArray` of a string term: the elements written so far; the others are the
    /// string's units (`charAt(of, i)`), so that a solution for the string is one for the
    /// array.
    Chars {
        entries: Vec<(i32, Value)>,
        of: Term,
    },
}

impl Elements {
    /// The element at `i`, if known (for `Sparse`, only those read or written so far).
    pub fn get(&self, i: i32) -> Option<Value> {
        match self {
            Elements::Dense(e) => usize::try_from(i).ok().and_then(|i| e.get(i)).cloned(),
            Elements::Sparse(e) => e.iter().find(|(k, _)| *k == i).map(|(_, v)| v.clone()),
            Elements::Filled { entries, default } => Some(
                entries
                    .iter()
                    .find(|(k, _)| *k == i)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| default.clone()),
            ),
            Elements::Chars { entries, of } => match entries.iter().find(|(k, _)| *k == i) {
                Some((_, v)) => Some(v.clone()),
                None => Term::string_op(StrOp::CharAt, vec![of.clone(), Term::int(i)])
                    .ok()
                    .map(Value::Int),
            },
        }
    }

    /// Writes element `i` (in bounds).
    pub fn set(&mut self, i: i32, v: Value) {
        match self {
            Elements::Dense(e) => {
                if let Some(cell) = usize::try_from(i).ok().and_then(|i| e.get_mut(i)) {
                    *cell = v;
                }
            }
            Elements::Sparse(e)
            | Elements::Filled { entries: e, .. }
            | Elements::Chars { entries: e, .. } => match e.iter_mut().find(|(k, _)| *k == i) {
                Some(cell) => cell.1 = v,
                None => e.push((i, v)),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ObjKind {
    Instance(Vec<Value>),
    Array {
        /// Element descriptor (`I`, `Ljava/lang/Object;`).
        element: Arc<str>,
        length: Term,
        elements: Elements,
    },
    /// `java.lang.String`, `StringBuilder`, `StringBuffer`.
    Str(StrValue),
    /// A `java.lang.Class` for the type named (internal name or descriptor).
    Mirror(Arc<str>),
    /// A lambda or method reference made by `LambdaMetafactory`.
    Lambda(Arc<LambdaTarget>),
    /// A `VarHandle` of a field, made by `MethodHandles.Lookup.find(Static)VarHandle`.
    VarHandle(Arc<VarHandleTarget>),
}

/// The field a `VarHandle` object reads and writes.
#[derive(Debug, Clone, PartialEq)]
pub struct VarHandleTarget {
    /// The class declaring the field (internal name).
    pub owner: Arc<str>,
    pub field: Arc<str>,
    /// The field's type descriptor (`I`, `Ljava/lang/Object;`).
    pub descriptor: Arc<str>,
    pub is_static: bool,
}

/// What a lambda object runs when its interface method is called.
#[derive(Debug, Clone, PartialEq)]
pub struct LambdaTarget {
    /// The interface method's name and descriptor (erased).
    pub method: Arc<str>,
    pub method_descriptor: Arc<str>,
    /// Method-handle kind of the implementation (5 virtual, 6 static, 7 special,
    /// 8 constructor, 9 interface).
    pub kind: u8,
    pub owner: Arc<str>,
    pub name: Arc<str>,
    pub descriptor: Arc<str>,
    /// Captured values, passed before the call's arguments.
    pub captured: Vec<Value>,
}

/// How an input object was first reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Origin {
    pub path: AccessPath,
    /// The `Ref` symbol of the reference that was resolved to this object.
    pub symbol: SymbolId,
    /// The object's logical address (positive).
    pub address: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HeapObject {
    /// Internal class name, or the array descriptor (`[I`).
    pub type_name: Arc<str>,
    /// The class, for instances (and strings, mirrors); None for arrays.
    pub class: Option<ClassId>,
    pub kind: ObjKind,
    pub origin: Option<Origin>,
}

impl HeapObject {
    pub fn is_array(&self) -> bool {
        matches!(self.kind, ObjKind::Array { .. })
    }
}

/// Classes whose instances are modelled as strings.
pub fn is_string_class(name: &str) -> bool {
    matches!(
        name,
        "java/lang/String" | "java/lang/StringBuilder" | "java/lang/StringBuffer"
    )
}
