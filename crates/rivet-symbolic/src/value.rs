//! Values of the symbolic state: integers, longs, floats and doubles as solver terms
//! (constants fold, so concrete values stay concrete), references concrete, null, or
//! symbolic (not yet resolved by lazy initialization).

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
    Float(Term),
    Double(Term),
    Ref(Reference),
    /// The result of `lcmp` not yet used: a following `if<cond>` becomes the comparison of
    /// the two operands.
    Cmp(Term, Term),
    /// The result of `fcmpl`/`dcmpl` (`nan` -1) or `fcmpg`/`dcmpg` (`nan` 1) not yet used: a
    /// following `if<cond>` becomes an IEEE comparison of the operands.
    FCmp(Term, Term, i32),
    /// The second slot of a long or double in the locals; also uninitialized locals.
    Top,
}

impl Value {
    pub fn int(v: i32) -> Value {
        Value::Int(Term::int(v))
    }

    pub fn float(v: f32) -> Value {
        Value::Float(Term::float(v))
    }

    pub fn double(v: f64) -> Value {
        Value::Double(Term::double(v))
    }

    pub fn null() -> Value {
        Value::Ref(Reference::Null)
    }

    /// A pending comparison turned into its int value; other values unchanged.
    pub fn settled(self) -> Value {
        match self {
            Value::Cmp(a, b) => Value::Int(cmp_as_int(&a, &b)),
            Value::FCmp(a, b, nan) => Value::Int(fcmp_as_int(&a, &b, nan)),
            other => other,
        }
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
            b'F' => Value::float(0.0),
            b'D' => Value::double(0.0),
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

/// `fcmpl`/`fcmpg`/`dcmpl`/`dcmpg`'s value as an int term: -1, 0 or 1, `nan` when an
/// operand is NaN.
pub fn fcmp_as_int(a: &Term, b: &Term, nan: i32) -> Term {
    let build = || -> Result<Term, rivet_pc::SortError> {
        let gt = Term::compare(CmpOp::Gt, a.clone(), b.clone())?;
        let eq = Term::compare(CmpOp::Eq, a.clone(), b.clone())?;
        let lt = Term::compare(CmpOp::Lt, a.clone(), b.clone())?;
        let inner = Term::ite(lt, Term::int(-1), Term::int(nan))?;
        let inner = Term::ite(eq, Term::int(0), inner)?;
        Term::ite(gt, Term::int(1), inner)
    };
    build().unwrap_or_else(|_| Term::int(nan))
}

/// The IEEE condition under which `if<op>` jumps after `fcmp`/`dcmp` of `a` and `b` (`nan`
/// the instruction's result for NaN): `r op 0` with `r` the comparison's result. Where NaN
/// makes the jump, the condition is the negation of the opposite ordered comparison
/// (`fcmpg; ifge` jumps on `!(a < b)`), so it holds on NaN.
pub fn fcmp_condition(op: CmpOp, a: Term, b: Term, nan: i32) -> Result<Term, rivet_pc::SortError> {
    // Does NaN make `nan op 0` true?
    let nan_jumps = op.holds(nan, 0);
    let ordered = |o: CmpOp| Term::compare(o, a.clone(), b.clone());
    match op {
        CmpOp::Eq => ordered(CmpOp::Eq),
        CmpOp::Ne => ordered(CmpOp::Ne),
        _ if nan_jumps => Term::negation(ordered(op.negate())?),
        _ => ordered(op),
    }
}

/// True if a term is a plain symbol.
pub fn is_symbol(t: &Term) -> bool {
    matches!(t.kind(), TermKind::Var(..))
}
