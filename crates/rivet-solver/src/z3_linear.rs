//! Translation of linear queries (additions, subtractions, negations and multiplications by
//! constants, comparisons, boolean connectives) to Z3's integer arithmetic with Java's
//! wrapping made explicit: each operation's result is `raw - k * 2^w` with `k` a fresh
//! integer and the result kept in the signed `w`-bit range. Z3 decides such queries far
//! faster than their bit-vector form; queries with other operations (and any float or double
//! term) stay bit-vectors.

use std::collections::HashMap;

use z3::ast::{Bool, Int};

use rivet_pc::{BinaryOp, CmpOp, Sort, SymbolId, SymbolSort, Term, TermKind, UnaryOp};

#[derive(Clone)]
enum Lin {
    Bool(Bool),
    Int(Int),
}

/// A linear query in Z3's integer arithmetic.
pub struct LinearQuery {
    pub assertions: Vec<Bool>,
    pub symbols: HashMap<(SymbolId, SymbolSort), Int>,
}

struct Translator {
    memo: HashMap<Term, Lin>,
    symbols: HashMap<(SymbolId, SymbolSort), Int>,
    side: Vec<Bool>,
    wraps: u32,
}

fn range(bits: u32) -> (i128, i128) {
    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
}

fn domain(sort: SymbolSort) -> (i128, i128) {
    match sort {
        SymbolSort::Boolean => (0, 1),
        SymbolSort::Byte => range(8),
        SymbolSort::Char => (0, 65_535),
        SymbolSort::Short => range(16),
        SymbolSort::Int | SymbolSort::Ref => range(32),
        SymbolSort::Long => range(64),
        // Never declared: float terms make the query non-linear.
        SymbolSort::Float | SymbolSort::Double => (0, 0),
    }
}

impl Translator {
    fn width(t: &Term) -> u32 {
        if t.sort() == Sort::Long {
            64
        } else {
            32
        }
    }

    /// `raw` brought into the signed `bits`-bit range as Java's wrapping does.
    fn wrap(&mut self, raw: Int, bits: u32) -> Int {
        self.wraps += 1;
        let k = Int::new_const(format!("wrap{}", self.wraps));
        let modulus = Int::from_i128(1i128 << bits);
        let w = Int::sub(&[raw, Int::mul(&[k, modulus])]);
        let (lo, hi) = range(bits);
        self.side.push(w.ge(Int::from_i128(lo)));
        self.side.push(w.le(Int::from_i128(hi)));
        w
    }

    fn int(&mut self, t: &Term) -> Option<Int> {
        match self.lin(t)? {
            Lin::Int(i) => Some(i),
            Lin::Bool(_) => None,
        }
    }

    fn boolean(&mut self, t: &Term) -> Option<Bool> {
        match self.lin(t)? {
            Lin::Bool(b) => Some(b),
            Lin::Int(_) => None,
        }
    }

    fn lin(&mut self, t: &Term) -> Option<Lin> {
        if let Some(done) = self.memo.get(t) {
            return Some(done.clone());
        }
        if crate::z3_float::handles(t) {
            return None;
        }
        let out = match t.kind() {
            TermKind::Bool(b) => Lin::Bool(Bool::from_bool(*b)),
            TermKind::Int(v) => Lin::Int(Int::from_i64(i64::from(*v))),
            TermKind::Long(v) => Lin::Int(Int::from_i64(*v)),
            TermKind::Float(_) | TermKind::Double(_) => return None,
            TermKind::Var(s, sort) => {
                let (s, sort) = (*s, *sort);
                if let Some(x) = self.symbols.get(&(s, sort)) {
                    Lin::Int(x.clone())
                } else {
                    let x = Int::new_const(format!("i{}_{:?}", s.0, sort));
                    let (lo, hi) = domain(sort);
                    self.side.push(x.ge(Int::from_i128(lo)));
                    self.side.push(x.le(Int::from_i128(hi)));
                    self.symbols.insert((s, sort), x.clone());
                    Lin::Int(x)
                }
            }
            TermKind::Unary(UnaryOp::Not, a) => Lin::Bool(self.boolean(a)?.not()),
            TermKind::Unary(UnaryOp::I2L, a) => Lin::Int(self.int(a)?),
            TermKind::Unary(UnaryOp::Neg, a) => {
                let bits = Self::width(a);
                let x = self.int(a)?;
                Lin::Int(self.wrap(x.unary_minus(), bits))
            }
            TermKind::Unary(..) => return None,
            TermKind::Binary(op, a, b) if a.sort() == Sort::Bool => {
                let (x, y) = (self.boolean(a)?, self.boolean(b)?);
                Lin::Bool(match op {
                    BinaryOp::And => Bool::and(&[&x, &y]),
                    BinaryOp::Or => Bool::or(&[&x, &y]),
                    BinaryOp::Xor => x.xor(&y),
                    _ => return None,
                })
            }
            TermKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
                let bits = Self::width(a);
                let (x, y) = (self.int(a)?, self.int(b)?);
                let raw = if *op == BinaryOp::Add {
                    Int::add(&[x, y])
                } else {
                    Int::sub(&[x, y])
                };
                Lin::Int(self.wrap(raw, bits))
            }
            TermKind::Binary(BinaryOp::Mul, a, b) if a.is_const() || b.is_const() => {
                let bits = Self::width(a);
                let (x, y) = (self.int(a)?, self.int(b)?);
                Lin::Int(self.wrap(Int::mul(&[x, y]), bits))
            }
            TermKind::Binary(..) => return None,
            TermKind::Compare(op, a, b) if a.sort() == Sort::Bool => {
                let eq = self.boolean(a)?.eq(self.boolean(b)?);
                Lin::Bool(if *op == CmpOp::Eq { eq } else { eq.not() })
            }
            TermKind::Compare(op, a, b) => {
                let (x, y) = (self.int(a)?, self.int(b)?);
                Lin::Bool(match op {
                    CmpOp::Eq => x.eq(&y),
                    CmpOp::Ne => x.eq(&y).not(),
                    CmpOp::Lt => x.lt(&y),
                    CmpOp::Le => x.le(&y),
                    CmpOp::Gt => x.gt(&y),
                    CmpOp::Ge => x.ge(&y),
                })
            }
            TermKind::Ite(c, a, b) => {
                let c = self.boolean(c)?;
                match (self.lin(a)?, self.lin(b)?) {
                    (Lin::Bool(x), Lin::Bool(y)) => Lin::Bool(c.ite(&x, &y)),
                    (Lin::Int(x), Lin::Int(y)) => Lin::Int(c.ite(&x, &y)),
                    _ => return None,
                }
            }
        };
        self.memo.insert(t.clone(), out.clone());
        Some(out)
    }
}

/// The linear form of `clauses`, or None if one uses a non-linear operation.
pub fn translate(clauses: &[Term]) -> Option<LinearQuery> {
    let mut tr = Translator {
        memo: HashMap::new(),
        symbols: HashMap::new(),
        side: Vec::new(),
        wraps: 0,
    };
    let mut assertions = Vec::with_capacity(clauses.len());
    for c in clauses {
        assertions.push(tr.boolean(c)?);
    }
    assertions.extend(tr.side);
    Some(LinearQuery {
        assertions,
        symbols: tr.symbols,
    })
}
