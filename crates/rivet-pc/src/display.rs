//! The readable form of terms: Java-like infix with precedence-driven parentheses, symbols
//! named by the caller, float and double constants as Java literals that parse back exactly.

use std::fmt;

use crate::string::StrOp;
use crate::term::{BinaryOp, CmpOp, Sort, SymbolId, Term, TermKind, UnaryOp};

/// A term rendered with symbol names; see [`Term::display`].
pub struct TermDisplay<'a> {
    term: &'a Term,
    name: &'a dyn Fn(SymbolId) -> String,
}

impl<'a> TermDisplay<'a> {
    pub(crate) fn new(term: &'a Term, name: &'a dyn Fn(SymbolId) -> String) -> TermDisplay<'a> {
        TermDisplay { term, name }
    }
}

/// The name of a unary operation written as a call (`Math.sqrt(x)`), if it is one.
fn call_name(op: UnaryOp) -> Option<&'static str> {
    Some(match op {
        UnaryOp::Sqrt => "Math.sqrt",
        UnaryOp::Abs => "Math.abs",
        UnaryOp::F2Bits => "Float.floatToIntBits",
        UnaryOp::D2Bits => "Double.doubleToLongBits",
        _ => return None,
    })
}

fn precedence(t: &Term) -> u8 {
    match t.kind() {
        TermKind::Ite(..) => 1,
        TermKind::Binary(BinaryOp::Or, ..) => 3,
        TermKind::Binary(BinaryOp::Xor, ..) => 4,
        TermKind::Binary(BinaryOp::And, ..) => 5,
        TermKind::Compare(CmpOp::Eq | CmpOp::Ne, ..) => 6,
        TermKind::Compare(..) => 7,
        TermKind::Binary(BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Ushr, ..) => 8,
        TermKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => 9,
        TermKind::Binary(BinaryOp::Min | BinaryOp::Max, ..) => 12,
        TermKind::Binary(..) => 10,
        TermKind::Unary(op, _) if call_name(*op).is_some() => 12,
        TermKind::Unary(..) => 11,
        _ => 12,
    }
}

/// A subterm of more nodes than this (as a tree) is written as a short reference instead of
/// in full: its text would grow exponentially with the depth of its sharing.
const WRITTEN_UP_TO: u64 = 4096;

impl TermDisplay<'_> {
    fn write(&self, t: &Term, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if t.tree_size() > WRITTEN_UP_TO {
            return write!(
                f,
                "<term {:016x} of {} nodes>",
                t.structure_hash(),
                t.tree_size()
            );
        }
        let sub = |child: &Term, min: u8, f: &mut fmt::Formatter<'_>| -> fmt::Result {
            if precedence(child) < min {
                f.write_str("(")?;
                self.write(child, f)?;
                f.write_str(")")
            } else {
                self.write(child, f)
            }
        };
        let p = precedence(t);
        match t.kind() {
            TermKind::Bool(b) => write!(f, "{b}"),
            TermKind::Int(v) => write!(f, "{v}"),
            TermKind::Long(v) => write!(f, "{v}L"),
            TermKind::Float(bits) => {
                f.write_str(&crate::term_float::float_literal(f32::from_bits(*bits)))
            }
            TermKind::Double(bits) => {
                f.write_str(&crate::term_float::double_literal(f64::from_bits(*bits)))
            }
            TermKind::Var(s, _) => f.write_str(&(self.name)(*s)),
            TermKind::Unary(op, a) if call_name(*op).is_some() => {
                write!(f, "{}(", call_name(*op).unwrap_or("?"))?;
                self.write(a, f)?;
                f.write_str(")")
            }
            TermKind::Binary(op @ (BinaryOp::Min | BinaryOp::Max), a, b) => {
                let name = if *op == BinaryOp::Min {
                    "Math.min"
                } else {
                    "Math.max"
                };
                write!(f, "{name}(")?;
                self.write(a, f)?;
                f.write_str(", ")?;
                self.write(b, f)?;
                f.write_str(")")
            }
            TermKind::Unary(op, a) => {
                let prefix = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::I2L => "(long) ",
                    UnaryOp::L2I => "(int) ",
                    UnaryOp::I2B => "(byte) ",
                    UnaryOp::I2C => "(char) ",
                    UnaryOp::I2S => "(short) ",
                    UnaryOp::I2F | UnaryOp::L2F | UnaryOp::D2F => "(float) ",
                    UnaryOp::I2D | UnaryOp::L2D | UnaryOp::F2D => "(double) ",
                    UnaryOp::F2I | UnaryOp::D2I => "(int) ",
                    UnaryOp::F2L | UnaryOp::D2L => "(long) ",
                    _ => "?",
                };
                f.write_str(prefix)?;
                sub(a, p, f)
            }
            TermKind::Binary(op, a, b) => {
                let sym = match op {
                    BinaryOp::Add => "+",
                    BinaryOp::Sub => "-",
                    BinaryOp::Mul => "*",
                    BinaryOp::Div => "/",
                    BinaryOp::Rem => "%",
                    BinaryOp::Shl => "<<",
                    BinaryOp::Shr => ">>",
                    BinaryOp::Ushr => ">>>",
                    BinaryOp::And if a.sort() == Sort::Bool => "&&",
                    BinaryOp::Or if a.sort() == Sort::Bool => "||",
                    BinaryOp::And => "&",
                    BinaryOp::Or => "|",
                    BinaryOp::Xor => "^",
                    BinaryOp::Min | BinaryOp::Max => "?",
                };
                // Shift operands are parenthesized unless atomic, for readability.
                let shift = matches!(op, BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Ushr);
                sub(a, if shift { 11 } else { p }, f)?;
                write!(f, " {sym} ")?;
                sub(b, if shift { 11 } else { p + 1 }, f)
            }
            TermKind::Compare(op, a, b) => {
                sub(a, p + 1, f)?;
                write!(f, " {} ", op.symbol())?;
                sub(b, p + 1, f)
            }
            TermKind::Str(text) => f.write_str(&text.literal()),
            TermKind::StrOp(op, args) => {
                // Methods as calls on their first operand (`s.charAt(i)`), the rest as
                // functions.
                let method = !matches!(op, StrOp::FromInt | StrOp::FromChar | StrOp::ParseDigits);
                let rest = if method {
                    sub(&args[0], 12, f)?;
                    write!(f, ".{}(", op.name())?;
                    &args[1..]
                } else {
                    write!(f, "{}(", op.name())?;
                    &args[..]
                };
                for (i, a) in rest.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    self.write(a, f)?;
                }
                f.write_str(")")
            }
            TermKind::Ite(c, a, b) => {
                sub(c, 2, f)?;
                f.write_str(" ? ")?;
                sub(a, 2, f)?;
                f.write_str(" : ")?;
                sub(b, 1, f)
            }
        }
    }
}

impl fmt::Display for TermDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(self.term, f)
    }
}
