//! The operators of path-condition terms (sorts, unary, binary and comparison operators) and
//! the facts about them that do not depend on a term: negation and swapping of comparisons.

use serde::{Deserialize, Serialize};

/// The sort of a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sort {
    Bool,
    /// Java `int` (32 bits).
    Int,
    /// Java `long` (64 bits).
    Long,
    /// Java `float` (IEEE 754 binary32).
    Float,
    /// Java `double` (IEEE 754 binary64).
    Double,
    /// A Java string's contents (see `string`).
    Str,
}

impl Sort {
    /// True for `Float` and `Double`.
    pub fn is_fp(self) -> bool {
        matches!(self, Sort::Float | Sort::Double)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnaryOp {
    /// Arithmetic negation (`ineg`, `lneg`), wrapping.
    Neg,
    /// Boolean negation.
    Not,
    I2L,
    L2I,
    I2B,
    I2C,
    I2S,
    /// Java's widening and narrowing conversions with floats and doubles (round to nearest
    /// even; `f2i`, `f2l`, `d2i`, `d2l` saturate and map NaN to 0).
    I2F,
    I2D,
    L2F,
    L2D,
    F2D,
    D2F,
    F2I,
    F2L,
    D2I,
    D2L,
    /// `Math.sqrt` (doubles only), correctly rounded.
    Sqrt,
    /// `Math.abs` of a float or double: the sign bit cleared.
    Abs,
    /// `Float.floatToIntBits` / `Double.doubleToLongBits`: the IEEE bits, every NaN as the
    /// canonical one. Equal bits mean the same value, so it concretizes exactly.
    F2Bits,
    D2Bits,
}

impl UnaryOp {
    /// True for the operations that take or make a float or double.
    pub fn is_fp(self) -> bool {
        !matches!(
            self,
            UnaryOp::Neg
                | UnaryOp::Not
                | UnaryOp::I2L
                | UnaryOp::L2I
                | UnaryOp::I2B
                | UnaryOp::I2C
                | UnaryOp::I2S
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Truncating division; a zero divisor yields 0 (the interpreter throws before).
    Div,
    /// Remainder with the dividend's sign; a zero divisor yields 0.
    Rem,
    /// Shifts take an `int` count masked to 5 (int) or 6 (long) bits.
    Shl,
    Shr,
    Ushr,
    /// Bitwise on integers, logical on booleans.
    And,
    Or,
    Xor,
    /// `Math.min` / `Math.max` of floats or doubles: NaN if either is NaN, -0.0 below 0.0.
    Min,
    Max,
}

/// Signed comparisons (`Eq`/`Ne` also compare booleans). On floats and doubles they are
/// IEEE's: every comparison with NaN is false except `Ne`, and `-0.0 == 0.0`; so on them
/// `negate` is not the negation (a negated float comparison stays a `Not`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The comparison that holds exactly when this one does not.
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// The comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swap(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }

    /// Whether `a op b` holds; with a partial order (floats), as IEEE 754 compares: false
    /// for unordered operands except `Ne`.
    pub fn holds<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}
