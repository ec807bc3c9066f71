//! Java's floating-point semantics on values: the float and double operations of the term
//! language evaluated exactly as the JVM does (IEEE 754 round to nearest even, `drem` as C's
//! `fmod`, saturating float-to-integer conversions with NaN to 0, `Math.min`/`Math.max` with
//! NaN and -0.0 rules). Values travel as `Concrete` with their IEEE bits.

use crate::eval::Concrete;
use crate::term::{BinaryOp, CmpOp, UnaryOp};

/// The canonical float NaN (`Float.floatToIntBits(Float.NaN)`).
pub const FLOAT_NAN: u32 = 0x7fc0_0000;
/// The canonical double NaN (`Double.doubleToLongBits(Double.NaN)`).
pub const DOUBLE_NAN: u64 = 0x7ff8_0000_0000_0000;

/// `Math.min` for doubles: NaN if either is NaN, -0.0 below 0.0.
pub fn java_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else if a < b {
        a
    } else {
        b
    }
}

/// `Math.max` for doubles: NaN if either is NaN, 0.0 above -0.0.
pub fn java_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else if a > b {
        a
    } else {
        b
    }
}

/// `Math.min` for floats.
pub fn java_min_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() {
            a
        } else {
            b
        }
    } else if a < b {
        a
    } else {
        b
    }
}

/// `Math.max` for floats.
pub fn java_max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a == 0.0 && b == 0.0 {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else if a > b {
        a
    } else {
        b
    }
}

/// `Float.floatToIntBits`: the bits, NaN canonical.
pub fn float_to_int_bits(v: f32) -> i32 {
    if v.is_nan() {
        FLOAT_NAN as i32
    } else {
        v.to_bits() as i32
    }
}

/// `Double.doubleToLongBits`: the bits, NaN canonical.
pub fn double_to_long_bits(v: f64) -> i64 {
    if v.is_nan() {
        DOUBLE_NAN as i64
    } else {
        v.to_bits() as i64
    }
}

/// The JVM's comparison with NaN semantics: `fcmpl`/`dcmpl` (`nan_result` -1) and
/// `fcmpg`/`dcmpg` (`nan_result` 1).
pub fn java_cmp(a: f64, b: f64, nan_result: i32) -> i32 {
    if a.is_nan() || b.is_nan() {
        nan_result
    } else if a < b {
        -1
    } else if a > b {
        1
    } else {
        0
    }
}

/// A unary operation that takes or makes a float or double, on an operand of the right sort
/// (anything else reads as 0 of the operand's kind). Rust's `as` casts are Java's: round to
/// nearest even between number types, and float-to-integer casts saturate with NaN to 0.
pub fn unary(op: UnaryOp, a: Concrete) -> Concrete {
    let int = |c: Concrete| match c {
        Concrete::Int(v) => v,
        _ => 0,
    };
    let long = |c: Concrete| match c {
        Concrete::Long(v) => v,
        _ => 0,
    };
    let float = |c: Concrete| c.as_f32().unwrap_or(0.0);
    let double = |c: Concrete| c.as_f64().unwrap_or(0.0);
    match op {
        UnaryOp::I2F => Concrete::float(int(a) as f32),
        UnaryOp::I2D => Concrete::double(f64::from(int(a))),
        UnaryOp::L2F => Concrete::float(long(a) as f32),
        UnaryOp::L2D => Concrete::double(long(a) as f64),
        UnaryOp::F2D => Concrete::double(f64::from(float(a))),
        UnaryOp::D2F => Concrete::float(double(a) as f32),
        UnaryOp::F2I => Concrete::Int(float(a) as i32),
        UnaryOp::F2L => Concrete::Long(float(a) as i64),
        UnaryOp::D2I => Concrete::Int(double(a) as i32),
        UnaryOp::D2L => Concrete::Long(double(a) as i64),
        UnaryOp::Sqrt => Concrete::double(double(a).sqrt()),
        UnaryOp::F2Bits => Concrete::Int(float_to_int_bits(float(a))),
        UnaryOp::D2Bits => Concrete::Long(double_to_long_bits(double(a))),
        UnaryOp::Abs | UnaryOp::Neg => match a {
            Concrete::Float(bits) => Concrete::Float(if op == UnaryOp::Abs {
                bits & 0x7fff_ffff
            } else {
                bits ^ 0x8000_0000
            }),
            Concrete::Double(bits) => Concrete::Double(if op == UnaryOp::Abs {
                bits & 0x7fff_ffff_ffff_ffff
            } else {
                bits ^ 0x8000_0000_0000_0000
            }),
            other => other,
        },
        // Integer-only operations never reach here with float operands.
        UnaryOp::Not | UnaryOp::I2L | UnaryOp::L2I | UnaryOp::I2B | UnaryOp::I2C | UnaryOp::I2S => {
            a
        }
    }
}

/// A binary operation on two floats or two doubles (`Rem` is Java's `drem`/`frem`, C's
/// `fmod`, which Rust's `%` is).
pub fn binary(op: BinaryOp, a: Concrete, b: Concrete) -> Concrete {
    match (&a, &b) {
        (Concrete::Float(_), Concrete::Float(_)) => {
            let (x, y) = (a.as_f32().unwrap_or(0.0), b.as_f32().unwrap_or(0.0));
            Concrete::float(match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Rem => x % y,
                BinaryOp::Min => java_min_f32(x, y),
                BinaryOp::Max => java_max_f32(x, y),
                _ => f32::NAN,
            })
        }
        _ => {
            let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
            Concrete::double(match op {
                BinaryOp::Add => x + y,
                BinaryOp::Sub => x - y,
                BinaryOp::Mul => x * y,
                BinaryOp::Div => x / y,
                BinaryOp::Rem => x % y,
                BinaryOp::Min => java_min(x, y),
                BinaryOp::Max => java_max(x, y),
                _ => f64::NAN,
            })
        }
    }
}

/// IEEE comparison: false with NaN except `Ne`; `-0.0 == 0.0`. (A float widens to double
/// exactly, so comparing as doubles is comparing as floats.)
pub fn compare(op: CmpOp, a: Concrete, b: Concrete) -> bool {
    let (x, y) = (
        a.as_f64().unwrap_or(f64::NAN),
        b.as_f64().unwrap_or(f64::NAN),
    );
    op.holds(x, y)
}

#[cfg(test)]
#[path = "fp_tests.rs"]
mod tests;
