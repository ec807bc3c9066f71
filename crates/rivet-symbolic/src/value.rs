//! Values of the symbolic state: integers and longs as solver terms, floats and doubles
//! concrete, references concrete, null, or symbolic (not yet resolved by lazy
//! initialization).

use rivet_pc::{CmpOp, Term, TermKind};

/// Index of an object in a state's heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u32);

/// Index of a symbolic reference in a state's table of symbolic references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymRefId(pub u32);

/// A reference value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reference {
    Null,
    Object(ObjectId),
    /// An input reference; lazy initialization resolves it at its first use.
    Symbolic(SymRefId),
}

/// A JVM value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `int` and the types the JVM widens to it (boolean, byte, char, short).
    Int(Term),
    Long(Term),
    Float(f32),
    Double(f64),
    Ref(Reference),
    /// The result of `lcmp` (or a float comparison) not yet used: a following `if<cond>`
    /// becomes the comparison of the two operands.
    Cmp(Term, Term),
    /// The second slot of a long or double in the locals; also uninitialized locals.
    Top,
}

impl Value {
    pub fn int(v: i32) -> Value {
        Value::Int(Term::int(v))
    }

    pub fn null() -> Value {
        Value::Ref(Reference::Null)
    }

    /// True for long and double (two slots).
    pub fn is_wide(&self) -> bool {
        matches!(self, Value::Long(_) | Value::Double(_))
    }

    /// The constant `int` this value holds, if it is one.
    pub fn as_const_int(&self) -> Option<i32> {
        match self {
            Value::Int(t) => t.as_int(),
            _ => None,
        }
    }

    /// The default value of a field or array element of descriptor `ty`'s first letter.
    pub fn default_for(descriptor_start: u8) -> Value {
        match descriptor_start {
            b'J' => Value::Long(Term::long(0)),
            b'F' => Value::Float(0.0),
            b'D' => Value::Double(0.0),
            b'L' | b'[' => Value::null(),
            _ => Value::int(0),
        }
    }
}

/// `lcmp`'s value as an int term: -1, 0 or 1.
pub fn cmp_as_int(a: &Term, b: &Term) -> Term {
    if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
        return Term::int(x.cmp(&y) as i32);
    }
    let lt = Term::compare(CmpOp::Lt, a.clone(), b.clone());
    let eq = Term::compare(CmpOp::Eq, a.clone(), b.clone());
    match (lt, eq) {
        (Ok(lt), Ok(eq)) => {
            let inner = Term::ite(eq, Term::int(0), Term::int(1)).unwrap_or_else(|_| Term::int(0));
            Term::ite(lt, Term::int(-1), inner).unwrap_or_else(|_| Term::int(0))
        }
        _ => Term::int(0),
    }
}

/// True if a term is a plain symbol.
pub fn is_symbol(t: &Term) -> bool {
    matches!(t.kind(), TermKind::Var(..))
}
