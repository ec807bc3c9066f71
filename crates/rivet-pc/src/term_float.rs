//! Float and double terms: constants kept by their exact IEEE bits, the folding constructors
//! of the floating-point operations (folding exactly as Java computes, through `fp`), and
//! constants written as Java literals that parse back to the same bits.

use crate::eval::Concrete;
use crate::term::{BinaryOp, CmpOp, Sort, Term, TermKind, UnaryOp};

impl Term {
    /// A float constant (its bits kept exactly: NaN, -0.0, infinities, subnormals).
    pub fn float(v: f32) -> Term {
        Term::make(TermKind::Float(v.to_bits()), Sort::Float)
    }

    /// A double constant (its bits kept exactly).
    pub fn double(v: f64) -> Term {
        Term::make(TermKind::Double(v.to_bits()), Sort::Double)
    }

    pub fn as_float(&self) -> Option<f32> {
        match self.kind() {
            TermKind::Float(bits) => Some(f32::from_bits(*bits)),
            _ => None,
        }
    }

    pub fn as_double(&self) -> Option<f64> {
        match self.kind() {
            TermKind::Double(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// The value of a constant term of any sort.
    pub fn as_concrete(&self) -> Option<Concrete> {
        Some(match self.kind() {
            TermKind::Bool(b) => Concrete::Bool(*b),
            TermKind::Int(v) => Concrete::Int(*v),
            TermKind::Long(v) => Concrete::Long(*v),
            TermKind::Float(bits) => Concrete::Float(*bits),
            TermKind::Double(bits) => Concrete::Double(*bits),
            TermKind::Str(s) => Concrete::Str(s.clone()),
            _ => return None,
        })
    }

    /// The constant term of a value.
    pub fn from_concrete(c: Concrete) -> Term {
        match c {
            Concrete::Bool(b) => Term::bool(b),
            Concrete::Int(v) => Term::int(v),
            Concrete::Long(v) => Term::long(v),
            Concrete::Float(bits) => Term::make(TermKind::Float(bits), Sort::Float),
            Concrete::Double(bits) => Term::make(TermKind::Double(bits), Sort::Double),
            Concrete::Str(s) => Term::string(s),
        }
    }

    /// The clause that holds exactly when `self` (a float or double term) is the value
    /// `value` (NaN: any NaN): `x != x` for NaN, `x == c` for other non-zero values (IEEE
    /// equality is identity there), and `floatToIntBits(x) == bits` for the two zeros.
    pub fn fp_is(&self, value: Concrete) -> Option<Term> {
        let v = value.as_f64()?;
        let k = Term::from_concrete(value.clone());
        if k.sort() != self.sort() {
            return None;
        }
        if v.is_nan() {
            return Term::compare(CmpOp::Ne, self.clone(), self.clone()).ok();
        }
        if v != 0.0 {
            return Term::compare(CmpOp::Eq, self.clone(), k).ok();
        }
        let (op, bits) = if self.sort() == Sort::Float {
            (UnaryOp::F2Bits, Term::int(value.as_i64() as i32))
        } else {
            (UnaryOp::D2Bits, Term::long(value.as_i64()))
        };
        let b = Term::unary(op, self.clone()).ok()?;
        Term::compare(CmpOp::Eq, b, bits).ok()
    }
}

/// A unary operation that takes or makes a float or double, already sort-checked.
pub(crate) fn fp_unary(op: UnaryOp, a: Term, sort: Sort) -> Term {
    if let Some(c) = a.as_concrete() {
        return Term::from_concrete(crate::fp::unary(op, c));
    }
    match (op, a.kind()) {
        // Negation flips the sign bit, twice is identity; a float widened and narrowed back
        // is itself.
        (UnaryOp::Neg, TermKind::Unary(UnaryOp::Neg, inner))
        | (UnaryOp::D2F, TermKind::Unary(UnaryOp::F2D, inner)) => return inner.clone(),
        (UnaryOp::Abs, TermKind::Unary(UnaryOp::Abs | UnaryOp::Neg, inner)) => {
            return Term::make(TermKind::Unary(UnaryOp::Abs, inner.clone()), sort)
        }
        _ => {}
    }
    Term::make(TermKind::Unary(op, a), sort)
}

/// A binary operation on two floats or two doubles, already sort-checked.
pub(crate) fn fp_binary(op: BinaryOp, a: Term, b: Term) -> Term {
    let sort = a.sort();
    if let (Some(x), Some(y)) = (a.as_concrete(), b.as_concrete()) {
        return Term::from_concrete(crate::fp::binary(op, x, y));
    }
    // IEEE addition and multiplication commute exactly: constants go right.
    let commutative = matches!(op, BinaryOp::Add | BinaryOp::Mul);
    let (a, b) = if commutative && a.is_const() && !b.is_const() {
        (b, a)
    } else {
        (a, b)
    };
    Term::make(TermKind::Binary(op, a, b), sort)
}

/// An IEEE comparison of two floats or two doubles, already sort-checked.
pub(crate) fn fp_compare(op: CmpOp, a: Term, b: Term) -> Term {
    if let (Some(x), Some(y)) = (a.as_concrete(), b.as_concrete()) {
        return Term::bool(crate::fp::compare(op, x, y));
    }
    Term::make(TermKind::Compare(op, a, b), Sort::Bool)
}

/// A float constant as a Java literal that reads back to the same value (`0.1f`, `-0.0f`,
/// `1.0E-45f`, `Float.NaN`, `Float.POSITIVE_INFINITY`).
pub fn float_literal(v: f32) -> String {
    if v.is_nan() {
        "Float.NaN".to_string()
    } else if v.is_infinite() {
        let sign = if v > 0.0 { "POSITIVE" } else { "NEGATIVE" };
        format!("Float.{sign}_INFINITY")
    } else {
        format!("{}f", java_digits(&format!("{v:?}")))
    }
}

/// A double constant as a Java literal that reads back to the same value (`0.1`, `-0.0`,
/// `1.0E300`, `Double.NaN`, `Double.NEGATIVE_INFINITY`).
pub fn double_literal(v: f64) -> String {
    if v.is_nan() {
        "Double.NaN".to_string()
    } else if v.is_infinite() {
        let sign = if v > 0.0 { "POSITIVE" } else { "NEGATIVE" };
        format!("Double.{sign}_INFINITY")
    } else {
        java_digits(&format!("{v:?}"))
    }
}

/// Rust's shortest round-trip digits (`1e300`, `0.1`, `5.0`) with a decimal point in the
/// mantissa, as Java writes them (`1.0E300`).
fn java_digits(rust: &str) -> String {
    match rust.split_once('e') {
        Some((mantissa, exp)) => {
            let mantissa = if mantissa.contains('.') {
                mantissa.to_string()
            } else {
                format!("{mantissa}.0")
            };
            format!("{mantissa}E{exp}")
        }
        None => rust.to_string(),
    }
}
