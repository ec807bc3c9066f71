//! The Z3 encoding of float and double terms in the floating-point theory (Float32 and
//! Float64, rounding to nearest even), with Java's rules made explicit where SMT-LIB's differ
//! or leave things unspecified: `drem` is `fmod` (built from `fp.rem`, IEEE's remainder),
//! `Math.min`/`Math.max` by `ite` (NaN wins, -0.0 below 0.0), float-to-integer conversions
//! saturate and map NaN to 0 (`fp.to_sbv` is unspecified there), `floatToIntBits` maps every
//! NaN to the canonical bits. Model values are read back as exact IEEE bits.

use z3::ast::{Ast as _, Bool, Float, RoundingMode, BV};

use crate::z3_backend::{Ast, Translation};
use rivet_pc::fp::{DOUBLE_NAN, FLOAT_NAN};
use rivet_pc::{BinaryOp, CmpOp, Sort, SymbolSort, Term, TermKind, UnaryOp};

/// True for the terms this module translates: float or double valued, conversions from
/// them, and their comparisons.
pub fn handles(t: &Term) -> bool {
    t.sort().is_fp()
        || match t.kind() {
            TermKind::Unary(op, _) => op.is_fp(),
            TermKind::Compare(_, a, _) => a.sort().is_fp(),
            _ => false,
        }
}

/// True if the term has a float or double subterm.
pub fn mentions_fp(t: &Term) -> bool {
    handles(t)
        || match t.kind() {
            TermKind::Unary(_, a) => mentions_fp(a),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                mentions_fp(a) || mentions_fp(b)
            }
            TermKind::Ite(c, a, b) => mentions_fp(c) || mentions_fp(a) || mentions_fp(b),
            TermKind::StrOp(_, args) => args.iter().any(mentions_fp),
            _ => false,
        }
}

fn z3_sort(sort: Sort) -> z3::Sort {
    if sort == Sort::Float {
        z3::Sort::float32()
    } else {
        z3::Sort::double()
    }
}

fn rne() -> RoundingMode {
    RoundingMode::round_nearest_ties_to_even()
}

/// A float constant with exactly these bits (every NaN is Z3's one NaN).
pub fn float_const(bits: u32) -> Float {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        Float::nan32()
    } else {
        Float::from_f32(v)
    }
}

/// A double constant with exactly these bits.
pub fn double_const(bits: u64) -> Float {
    let v = f64::from_bits(bits);
    if v.is_nan() {
        Float::nan64()
    } else {
        Float::from_f64(v)
    }
}

/// A constant of `sort` (float or double) with the value `v` (exact in both for the values
/// used here: powers of two and zero).
fn constant(sort: Sort, v: f64) -> Float {
    if sort == Sort::Float {
        float_const((v as f32).to_bits())
    } else {
        double_const(v.to_bits())
    }
}

/// A signed bit-vector converted to a float or double, rounding to nearest even
/// (`fp.to_fp` of a signed bit-vector, which the z3 crate does not wrap). None if Z3 refused.
fn from_signed(bv: &BV, sort: Sort) -> Option<Float> {
    let ctx = z3::Context::thread_local();
    let rm = rne();
    let s = z3_sort(sort);
    // SAFETY: every argument is a live AST or sort of the thread's context (`ctx`, which the
    // z3 crate's objects all use), and `wrap` takes a reference to the non-null result.
    unsafe {
        let raw = z3_sys::Z3_mk_fpa_to_fp_signed(
            ctx.get_z3_context(),
            rm.get_z3_ast(),
            bv.get_z3_ast(),
            s.get_z3_sort(),
        )?;
        Some(Float::wrap(&ctx, raw))
    }
}

/// Java's saturating conversion to a `bits`-bit integer: NaN to 0, values at or beyond the
/// range's ends to its ends, others truncated toward zero.
fn to_int(x: &Float, sort: Sort, bits: u32) -> BV {
    let limit = if bits == 32 {
        2f64.powi(31)
    } else {
        2f64.powi(63)
    };
    let (hi, lo) = (constant(sort, limit), constant(sort, -limit));
    let (max, min) = if bits == 32 {
        (i64::from(i32::MAX), i64::from(i32::MIN))
    } else {
        (i64::MAX, i64::MIN)
    };
    let truncated = x.to_sbv_with_rounding_mode(&RoundingMode::round_towards_zero(), bits);
    let inner = x.le(&lo).ite(&BV::from_i64(min, bits), &truncated);
    let inner = x.ge(&hi).ite(&BV::from_i64(max, bits), &inner);
    x.is_nan().ite(&BV::from_i64(0, bits), &inner)
}

/// `floatToIntBits` / `doubleToLongBits`: the IEEE bits, NaN canonical.
fn to_bits(x: &Float, sort: Sort) -> BV {
    let canonical = if sort == Sort::Float {
        BV::from_u64(u64::from(FLOAT_NAN), 32)
    } else {
        BV::from_u64(DOUBLE_NAN, 64)
    };
    x.is_nan().ite(&canonical, &x.to_ieee_bv())
}

/// Java's `drem`/`frem` (`fmod`: the dividend's sign, `|r| < |y|`) from IEEE's remainder
/// `r = x - y * round(x / y)`: when `r` is non-zero with the sign opposite to `x`'s, adding
/// `|y|` toward `x`'s sign gives the truncated remainder, exactly (it is representable).
/// NaN, infinite dividends, zero divisors, infinite divisors and zero results are already
/// Java's in `fp.rem`.
fn fmod(x: &Float, y: &Float) -> Float {
    let r = x.rem(y);
    let ay = y.unary_abs();
    let toward = x.is_negative().ite(&ay.unary_neg(), &ay);
    let fix = Bool::and(&[
        &r.is_zero().not(),
        &r.is_nan().not(),
        &r.is_negative().eq(x.is_negative()).not(),
    ]);
    fix.ite(&r.add_with_rounding_mode(&toward, &rne()), &r)
}

/// `Math.min` (`min` true) or `Math.max` with Java's rules.
fn min_max(x: &Float, y: &Float, min: bool) -> Float {
    let both_zero = Bool::and(&[&x.is_zero(), &y.is_zero()]);
    // Of two zeros, min takes the negative one, max the positive one.
    let zeros = if min {
        x.is_negative().ite(x, y)
    } else {
        x.is_negative().ite(y, x)
    };
    let ordered = if min { x.lt(y) } else { x.gt(y) };
    let pick = both_zero.ite(&zeros, &ordered.ite(x, y));
    let pick = y.is_nan().ite(y, &pick);
    x.is_nan().ite(x, &pick)
}

impl Translation {
    /// The float or double a term stands for (an ill-sorted term marks the query unusable).
    pub(crate) fn fp(&mut self, t: &Term) -> Float {
        match self.ast(t) {
            Ast::Fp(f) => f,
            _ => {
                self.unsupported = true;
                Float::nan64()
            }
        }
    }

    /// Translates a term `handles` accepts.
    pub(crate) fn fp_ast(&mut self, t: &Term) -> Ast {
        match t.kind() {
            TermKind::Float(bits) => Ast::Fp(float_const(*bits)),
            TermKind::Double(bits) => Ast::Fp(double_const(*bits)),
            TermKind::Var(s, sort) => {
                let key = (*s, *sort);
                let x = self
                    .floats
                    .entry(key)
                    .or_insert_with(|| {
                        let name = format!("s{}_{:?}", s.0, sort);
                        if *sort == SymbolSort::Float {
                            Float::new_const_float32(name)
                        } else {
                            Float::new_const_double(name)
                        }
                    })
                    .clone();
                Ast::Fp(x)
            }
            TermKind::Unary(op, a) => self.fp_unary(*op, a, t.sort()),
            TermKind::Binary(op, a, b) => {
                let (x, y) = (self.fp(a), self.fp(b));
                let rm = rne();
                Ast::Fp(match op {
                    BinaryOp::Add => x.add_with_rounding_mode(&y, &rm),
                    BinaryOp::Sub => x.sub_with_rounding_mode(&y, &rm),
                    BinaryOp::Mul => x.mul_with_rounding_mode(&y, &rm),
                    BinaryOp::Div => x.div_with_rounding_mode(&y, &rm),
                    BinaryOp::Rem => fmod(&x, &y),
                    BinaryOp::Min => min_max(&x, &y, true),
                    BinaryOp::Max => min_max(&x, &y, false),
                    _ => {
                        self.unsupported = true;
                        x
                    }
                })
            }
            TermKind::Compare(op, a, b) => {
                let (x, y) = (self.fp(a), self.fp(b));
                Ast::Bool(match op {
                    CmpOp::Eq => x.eq_fpa(&y),
                    CmpOp::Ne => x.eq_fpa(&y).not(),
                    CmpOp::Lt => x.lt(&y),
                    CmpOp::Le => x.le(&y),
                    CmpOp::Gt => x.gt(&y),
                    CmpOp::Ge => x.ge(&y),
                })
            }
            TermKind::Ite(c, a, b) => {
                let c = self.boolean(c);
                let (x, y) = (self.fp(a), self.fp(b));
                Ast::Fp(c.ite(&x, &y))
            }
            TermKind::Bool(_)
            | TermKind::Int(_)
            | TermKind::Long(_)
            | TermKind::Str(_)
            | TermKind::StrOp(..) => {
                self.unsupported = true;
                Ast::Fp(Float::nan64())
            }
        }
    }

    fn fp_unary(&mut self, op: UnaryOp, a: &Term, sort: Sort) -> Ast {
        let from_int = |tr: &mut Translation, a: &Term| -> Ast {
            let bv = tr.bv(a);
            match from_signed(&bv, sort) {
                Some(f) => Ast::Fp(f),
                None => {
                    tr.unsupported = true;
                    Ast::Fp(Float::nan64())
                }
            }
        };
        match op {
            UnaryOp::I2F | UnaryOp::I2D | UnaryOp::L2F | UnaryOp::L2D => from_int(self, a),
            UnaryOp::F2D | UnaryOp::D2F => {
                let x = self.fp(a);
                Ast::Fp(x.to_fp_with_rounding_mode(&rne(), &z3_sort(sort)))
            }
            UnaryOp::F2I | UnaryOp::D2I => {
                let x = self.fp(a);
                Ast::Bv(to_int(&x, a.sort(), 32))
            }
            UnaryOp::F2L | UnaryOp::D2L => {
                let x = self.fp(a);
                Ast::Bv(to_int(&x, a.sort(), 64))
            }
            UnaryOp::F2Bits | UnaryOp::D2Bits => {
                let x = self.fp(a);
                Ast::Bv(to_bits(&x, a.sort()))
            }
            UnaryOp::Sqrt => Ast::Fp(self.fp(a).sqrt()),
            UnaryOp::Abs => Ast::Fp(self.fp(a).unary_abs()),
            UnaryOp::Neg => Ast::Fp(self.fp(a).unary_neg()),
            UnaryOp::Not
            | UnaryOp::I2L
            | UnaryOp::L2I
            | UnaryOp::I2B
            | UnaryOp::I2C
            | UnaryOp::I2S => {
                self.unsupported = true;
                Ast::Fp(Float::nan64())
            }
        }
    }
}

/// A float symbol's value in a Z3 model as a `rivet-pc` model holds it (its IEEE bits; NaN
/// canonical).
pub fn model_bits(model: &z3::Model, sort: SymbolSort, x: &Float) -> Option<i64> {
    let nan = model.eval(&x.is_nan(), true)?.as_bool()?;
    if nan {
        return Some(if sort == SymbolSort::Float {
            i64::from(FLOAT_NAN)
        } else {
            DOUBLE_NAN as i64
        });
    }
    let bits = model.eval(&x.to_ieee_bv(), true)?.as_u64()?;
    Some(sort.normalize(bits as i64))
}

/// Z3's value of `term` when every symbol it mentions has its value in `inputs` (0 if
/// missing), by Z3's simplifier on the translation with the symbols replaced by constants:
/// the reference the Rust evaluator is checked against. None if the term cannot be
/// translated or Z3 does not reduce it to a constant.
pub fn z3_value(term: &Term, inputs: &rivet_pc::Model) -> Option<rivet_pc::Concrete> {
    use rivet_pc::Concrete;
    let pinned = pin(term, inputs)?;
    let mut tr = Translation::new();
    let value = tr.ast(&pinned);
    if tr.unsupported {
        return None;
    }
    Some(match value {
        Ast::Bool(b) => Concrete::Bool(b.simplify().as_bool()?),
        Ast::Bv(b) => {
            let raw = b.simplify().as_u64()?;
            if term.sort() == Sort::Long {
                Concrete::Long(raw as i64)
            } else {
                Concrete::Int(raw as u32 as i32)
            }
        }
        Ast::Fp(x) => {
            let nan = x.is_nan().simplify().as_bool()?;
            let float = term.sort() == Sort::Float;
            let bits = if nan {
                if float {
                    u64::from(FLOAT_NAN)
                } else {
                    DOUBLE_NAN
                }
            } else {
                x.to_ieee_bv().simplify().as_u64()?
            };
            if float {
                Concrete::Float(bits as u32)
            } else {
                Concrete::Double(bits)
            }
        }
    })
}

/// The term with each symbol replaced by its value's constant, rebuilt without folding.
fn pin(t: &Term, inputs: &rivet_pc::Model) -> Option<Term> {
    Some(match t.kind() {
        TermKind::Var(s, sort) => {
            let v = sort.normalize(inputs.get(*s).unwrap_or(0));
            match sort.term_sort() {
                Sort::Long => Term::long(v),
                Sort::Float => Term::from_concrete(rivet_pc::Concrete::Float(v as u32)),
                Sort::Double => Term::from_concrete(rivet_pc::Concrete::Double(v as u64)),
                _ => Term::int(v as i32),
            }
        }
        TermKind::Unary(op, a) => Term::from_kind(TermKind::Unary(*op, pin(a, inputs)?)).ok()?,
        TermKind::Binary(op, a, b) => {
            Term::from_kind(TermKind::Binary(*op, pin(a, inputs)?, pin(b, inputs)?)).ok()?
        }
        TermKind::Compare(op, a, b) => {
            Term::from_kind(TermKind::Compare(*op, pin(a, inputs)?, pin(b, inputs)?)).ok()?
        }
        TermKind::Ite(c, a, b) => Term::from_kind(TermKind::Ite(
            pin(c, inputs)?,
            pin(a, inputs)?,
            pin(b, inputs)?,
        ))
        .ok()?,
        _ => t.clone(),
    })
}
