//! Arithmetic, conversions and comparisons: ints and longs as terms with Java's exact
//! semantics (a symbolic divisor splits the path on zero), floats and doubles concrete.

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
    // Negations.
    if (116..=119).contains(&base) {
        let v = match kind {
            0 => Value::Int(
                Term::unary(UnaryOp::Neg, Ops::pop_int(state)?).map_err(|e| term_err(state, e))?,
            ),
            1 => Value::Long(
                Term::unary(UnaryOp::Neg, Ops::pop_long(state)?).map_err(|e| term_err(state, e))?,
            ),
            2 => Value::Float(-Ops::pop_float(state)?),
            _ => Value::Double(-Ops::pop_double(state)?),
        };
        Ops::push(state, v)?;
        advance(state);
        return Ok(Step::Continue);
    }
    // Shifts and logic (120..=131): int and long alternate; shift counts are ints.
    if base >= 120 {
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
        let t = Term::binary(bop, a, b).map_err(|e| term_err(state, e))?;
        Ops::push(state, if long { Value::Long(t) } else { Value::Int(t) })?;
        advance(state);
        return Ok(Step::Continue);
    }
    let bop = match (base - 96) / 4 {
        0 => BinaryOp::Add,
        1 => BinaryOp::Sub,
        2 => BinaryOp::Mul,
        3 => BinaryOp::Div,
        _ => BinaryOp::Rem,
    };
    match kind {
        0 | 1 => {
            let (b, a) = if kind == 0 {
                (Ops::pop_int(state)?, Ops::pop_int(state)?)
            } else {
                (Ops::pop_long(state)?, Ops::pop_long(state)?)
            };
            if matches!(bop, BinaryOp::Div | BinaryOp::Rem) {
                let zero = if kind == 0 {
                    Term::int(0)
                } else {
                    Term::long(0)
                };
                let is_zero =
                    Term::compare(CmpOp::Eq, b.clone(), zero).map_err(|e| term_err(state, e))?;
                let result = Term::binary(bop, a, b).map_err(|e| term_err(state, e))?;
                let value = if kind == 0 {
                    Value::Int(result)
                } else {
                    Value::Long(result)
                };
                return Ok(match ctx.split(state, is_zero) {
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
                });
            }
            let t = Term::binary(bop, a, b).map_err(|e| term_err(state, e))?;
            Ops::push(
                state,
                if kind == 0 {
                    Value::Int(t)
                } else {
                    Value::Long(t)
                },
            )?;
        }
        2 => {
            let b = Ops::pop_float(state)?;
            let a = Ops::pop_float(state)?;
            let r = match bop {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::Div => a / b,
                _ => a % b,
            };
            Ops::push(state, Value::Float(r))?;
        }
        _ => {
            let b = Ops::pop_double(state)?;
            let a = Ops::pop_double(state)?;
            let r = match bop {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                BinaryOp::Div => a / b,
                _ => a % b,
            };
            Ops::push(state, Value::Double(r))?;
        }
    }
    advance(state);
    Ok(Step::Continue)
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

/// Java's float-to-int conversion (NaN to 0, saturating).
fn f2i(v: f64) -> i32 {
    v as i32
}

/// `i2l` .. `i2s`: int/long terms convert exactly; a symbolic int or long converted to a
/// float or double is concretized first.
pub fn convert(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    op: Opcode,
) -> Result<(), SymbolicError> {
    let un = |state: &SymbolicState, op, t| Term::unary(op, t).map_err(|e| term_err(state, e));
    let v = match op {
        Opcode::I2L => {
            let t = Ops::pop_int(state)?;
            Value::Long(un(state, UnaryOp::I2L, t)?)
        }
        Opcode::L2I => {
            let t = Ops::pop_long(state)?;
            Value::Int(un(state, UnaryOp::L2I, t)?)
        }
        Opcode::I2B => {
            let t = Ops::pop_int(state)?;
            Value::Int(un(state, UnaryOp::I2B, t)?)
        }
        Opcode::I2C => {
            let t = Ops::pop_int(state)?;
            Value::Int(un(state, UnaryOp::I2C, t)?)
        }
        Opcode::I2S => {
            let t = Ops::pop_int(state)?;
            Value::Int(un(state, UnaryOp::I2S, t)?)
        }
        Opcode::I2F | Opcode::I2D => {
            let t = Ops::pop_int(state)?;
            let v = ctx.concretize(state, &t);
            if op == Opcode::I2F {
                Value::Float(v as f32)
            } else {
                Value::Double(v as f64)
            }
        }
        Opcode::L2F | Opcode::L2D => {
            let t = Ops::pop_long(state)?;
            let v = ctx.concretize(state, &t);
            if op == Opcode::L2F {
                Value::Float(v as f32)
            } else {
                Value::Double(v as f64)
            }
        }
        Opcode::F2I => Value::int(f2i(f64::from(Ops::pop_float(state)?))),
        Opcode::F2L => Value::Long(Term::long(Ops::pop_float(state)? as i64)),
        Opcode::F2D => Value::Double(f64::from(Ops::pop_float(state)?)),
        Opcode::D2I => Value::int(f2i(Ops::pop_double(state)?)),
        Opcode::D2L => Value::Long(Term::long(Ops::pop_double(state)? as i64)),
        _ => Value::Float(Ops::pop_double(state)? as f32),
    };
    Ops::push(state, v)
}

/// `lcmp` leaves a pending comparison for the `if` that follows; float comparisons are
/// concrete.
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
                let b = f64::from(Ops::pop_float(state)?);
                (f64::from(Ops::pop_float(state)?), b)
            };
            let nan_result = if matches!(op, Opcode::FCMPG | Opcode::DCMPG) {
                1
            } else {
                -1
            };
            let r = if a.is_nan() || b.is_nan() {
                nan_result
            } else if a < b {
                -1
            } else if a > b {
                1
            } else {
                0
            };
            Value::int(r)
        }
    };
    Ops::push(state, v)
}
