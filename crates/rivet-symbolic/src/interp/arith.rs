//! Arithmetic, conversions and comparisons: ints, longs, floats and doubles as terms with
//! Java's exact semantics (a symbolic integer divisor splits the path on zero; float
//! arithmetic never throws), constants folding as Java computes.

use rivet_classfile::Opcode;
use rivet_pc::{BinaryOp, CmpOp, Term, UnaryOp};

use super::{advance, control, Ctx, Ops, Split, Step};
use crate::error::SymbolicError;
use crate::state::SymbolicState;
use crate::value::Value;

fn term_err(state: &SymbolicState, e: rivet_pc::SortError) -> SymbolicError {
    match state.frames.last() {
        Some(f) => super::bytecode_error(f, e.to_string()),
        None => super::no_frame(),
    }
}

/// The binary arithmetic and logic instructions (`iadd` .. `lxor`).
pub fn binary(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    op: Opcode,
) -> Result<Step, SymbolicError> {
    let kind = (op.0 - 96) % 4; // 0 int, 1 long, 2 float, 3 double (for add..neg)
    let base = op.0;
    let value = if (116..=119).contains(&base) {
        negation(state, kind)?
    } else if base >= 120 {
        shift_or_logic(state, base)?
    } else {
        let bop = match (base - 96) / 4 {
            0 => BinaryOp::Add,
            1 => BinaryOp::Sub,
            2 => BinaryOp::Mul,
            3 => BinaryOp::Div,
            _ => BinaryOp::Rem,
        };
        match kind {
            0 | 1 if matches!(bop, BinaryOp::Div | BinaryOp::Rem) => {
                return integer_division(state, ctx, bop, kind == 1)
            }
            0 => {
                let b = Ops::pop_int(state)?;
                let a = Ops::pop_int(state)?;
                Value::Int(apply(state, bop, a, b)?)
            }
            1 => {
                let b = Ops::pop_long(state)?;
                let a = Ops::pop_long(state)?;
                Value::Long(apply(state, bop, a, b)?)
            }
            2 => {
                let b = Ops::pop_float(state)?;
                let a = Ops::pop_float(state)?;
                Value::Float(apply(state, bop, a, b)?)
            }
            _ => {
                let b = Ops::pop_double(state)?;
                let a = Ops::pop_double(state)?;
                Value::Double(apply(state, bop, a, b)?)
            }
        }
    };
    Ops::push(state, value)?;
    advance(state);
    Ok(Step::Continue)
}

/// `a bop b` as a term.
fn apply(state: &SymbolicState, bop: BinaryOp, a: Term, b: Term) -> Result<Term, SymbolicError> {
    Term::binary(bop, a, b).map_err(|e| term_err(state, e))
}

/// `ineg` .. `dneg` (`kind`: 0 int, 1 long, 2 float, 3 double).
fn negation(state: &mut SymbolicState, kind: u8) -> Result<Value, SymbolicError> {
    let neg = |state: &SymbolicState, t: Term| {
        Term::unary(UnaryOp::Neg, t).map_err(|e| term_err(state, e))
    };
    Ok(match kind {
        0 => {
            let t = Ops::pop_int(state)?;
            Value::Int(neg(state, t)?)
        }
        1 => {
            let t = Ops::pop_long(state)?;
            Value::Long(neg(state, t)?)
        }
        2 => {
            let t = Ops::pop_float(state)?;
            Value::Float(neg(state, t)?)
        }
        _ => {
            let t = Ops::pop_double(state)?;
            Value::Double(neg(state, t)?)
        }
    })
}

/// Shifts and logic (`ishl` .. `lxor`, opcodes 120..=131): int and long alternate; shift
/// counts are ints.
fn shift_or_logic(state: &mut SymbolicState, base: u8) -> Result<Value, SymbolicError> {
    let long = base % 2 == 1;
    let bop = match base {
        120 | 121 => BinaryOp::Shl,
        122 | 123 => BinaryOp::Shr,
        124 | 125 => BinaryOp::Ushr,
        126 | 127 => BinaryOp::And,
        128 | 129 => BinaryOp::Or,
        _ => BinaryOp::Xor,
    };
    let shift = base <= 125;
    let b = if long && !shift {
        Ops::pop_long(state)?
    } else {
        Ops::pop_int(state)?
    };
    let a = if long {
        Ops::pop_long(state)?
    } else {
        Ops::pop_int(state)?
    };
    let t = apply(state, bop, a, b)?;
    Ok(if long { Value::Long(t) } else { Value::Int(t) })
}

/// `idiv`, `irem`, `ldiv`, `lrem`: a divisor that may be zero splits the path, the zero
/// side throwing `ArithmeticException`.
fn integer_division(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    bop: BinaryOp,
    long: bool,
) -> Result<Step, SymbolicError> {
    let (b, a, zero) = if long {
        (Ops::pop_long(state)?, Ops::pop_long(state)?, Term::long(0))
    } else {
        (Ops::pop_int(state)?, Ops::pop_int(state)?, Term::int(0))
    };
    let is_zero = Term::compare(CmpOp::Eq, b.clone(), zero).map_err(|e| term_err(state, e))?;
    let result = apply(state, bop, a, b)?;
    let value = if long {
        Value::Long(result)
    } else {
        Value::Int(result)
    };
    Ok(match ctx.split(state, is_zero) {
        Split::True => {
            control::throw_new(state, ctx, "java/lang/ArithmeticException")?;
            Step::Continue
        }
        Split::False => {
            Ops::push(state, value)?;
            advance(state);
            Step::Continue
        }
        Split::Both(mut other) => {
            Ops::push(&mut other, value)?;
            advance(&mut other);
            control::throw_new(state, ctx, "java/lang/ArithmeticException")?;
            control::fork(state, *other)
        }
        Split::Bound => Step::End(super::PathEnd::Bound("depth".into())),
    })
}

pub fn iinc(state: &mut SymbolicState, index: u16, delta: i16) -> Result<(), SymbolicError> {
    let frame = state.frames.last_mut().ok_or_else(super::no_frame)?;
    let i = usize::from(index);
    let Some(Value::Int(t)) = frame.locals.get(i).cloned() else {
        return Err(super::bytecode_error(
            frame,
            format!("iinc of non-int local {index}"),
        ));
    };
    let r = Term::binary(BinaryOp::Add, t, Term::int(i32::from(delta)))
        .map_err(|e| super::bytecode_error(frame, e.to_string()))?;
    frame.locals[i] = Value::Int(r);
    Ok(())
}

/// `i2l` .. `i2s`: every conversion is a term with Java's semantics (floats round to
/// nearest even, float-to-integer conversions saturate with NaN to 0).
pub fn convert(state: &mut SymbolicState, op: Opcode) -> Result<(), SymbolicError> {
    let un = |state: &SymbolicState, op, t| Term::unary(op, t).map_err(|e| term_err(state, e));
    let (uop, from, to) = match op {
        Opcode::I2L => (UnaryOp::I2L, b'I', b'J'),
        Opcode::I2F => (UnaryOp::I2F, b'I', b'F'),
        Opcode::I2D => (UnaryOp::I2D, b'I', b'D'),
        Opcode::L2I => (UnaryOp::L2I, b'J', b'I'),
        Opcode::L2F => (UnaryOp::L2F, b'J', b'F'),
        Opcode::L2D => (UnaryOp::L2D, b'J', b'D'),
        Opcode::F2I => (UnaryOp::F2I, b'F', b'I'),
        Opcode::F2L => (UnaryOp::F2L, b'F', b'J'),
        Opcode::F2D => (UnaryOp::F2D, b'F', b'D'),
        Opcode::D2I => (UnaryOp::D2I, b'D', b'I'),
        Opcode::D2L => (UnaryOp::D2L, b'D', b'J'),
        Opcode::D2F => (UnaryOp::D2F, b'D', b'F'),
        Opcode::I2B => (UnaryOp::I2B, b'I', b'I'),
        Opcode::I2C => (UnaryOp::I2C, b'I', b'I'),
        _ => (UnaryOp::I2S, b'I', b'I'),
    };
    let t = match from {
        b'I' => Ops::pop_int(state)?,
        b'J' => Ops::pop_long(state)?,
        b'F' => Ops::pop_float(state)?,
        _ => Ops::pop_double(state)?,
    };
    let r = un(state, uop, t)?;
    let v = match to {
        b'I' => Value::Int(r),
        b'J' => Value::Long(r),
        b'F' => Value::Float(r),
        _ => Value::Double(r),
    };
    Ops::push(state, v)
}

/// `lcmp` and the float comparisons leave a pending comparison for the `if` that follows
/// (constants fold to the instruction's int result).
pub fn compare(state: &mut SymbolicState, op: Opcode) -> Result<(), SymbolicError> {
    let v = match op {
        Opcode::LCMP => {
            let b = Ops::pop_long(state)?;
            let a = Ops::pop_long(state)?;
            Value::Cmp(a, b)
        }
        _ => {
            let double = matches!(op, Opcode::DCMPL | Opcode::DCMPG);
            let (a, b) = if double {
                let b = Ops::pop_double(state)?;
                (Ops::pop_double(state)?, b)
            } else {
                let b = Ops::pop_float(state)?;
                (Ops::pop_float(state)?, b)
            };
            let nan = if matches!(op, Opcode::FCMPG | Opcode::DCMPG) {
                1
            } else {
                -1
            };
            match (a.as_concrete(), b.as_concrete()) {
                (Some(x), Some(y)) => Value::int(rivet_pc::fp::java_cmp(
                    x.as_f64().unwrap_or(f64::NAN),
                    y.as_f64().unwrap_or(f64::NAN),
                    nan,
                )),
                _ => Value::FCmp(a, b, nan),
            }
        }
    };
    Ops::push(state, v)
}
