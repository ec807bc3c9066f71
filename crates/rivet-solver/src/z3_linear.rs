//! Translation of linear queries (additions, subtractions, negations, multiplications,
//! divisions and remainders by constants, comparisons, boolean connectives) to Z3's integer arithmetic with Java's
//! wrapping made explicit: each operation's result is `raw - k * 2^w` with `k` a fresh
//! integer and the result kept in the signed `w`-bit range. Z3 decides such queries far
//! faster than their bit-vector form; queries with other operations (and any float or double
//! term) stay bit-vectors. Strings join them here, in Z3's sequence theory (`z3_string`):
//! their lengths, indices and char codes are integers.

use std::collections::HashMap;

use z3::ast::{Bool, Int, String as ZString};

use rivet_pc::{BinaryOp, CmpOp, Sort, StrOp, SymbolId, SymbolSort, Term, TermKind, UnaryOp};

use crate::ranges::{fits, Ranges};
use crate::z3_string;

#[derive(Clone)]
enum Lin {
    Bool(Bool),
    Int(Int),
    Str(ZString),
}

/// A linear query in Z3's integer arithmetic (with strings).
pub struct LinearQuery {
    pub assertions: Vec<Bool>,
    pub symbols: HashMap<(SymbolId, SymbolSort), Int>,
    /// String symbols.
    pub strings: HashMap<SymbolId, ZString>,
    /// Each string symbol printable ASCII: tried first, for readable values.
    pub printable: Vec<Bool>,
}

struct Translator {
    memo: HashMap<Term, Lin>,
    symbols: HashMap<(SymbolId, SymbolSort), Int>,
    strings: HashMap<SymbolId, ZString>,
    side: Vec<Bool>,
    wraps: u32,
    ranges: Ranges,
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
        // Never declared: float terms make the query non-linear; strings are sequences.
        SymbolSort::Float | SymbolSort::Double | SymbolSort::Str => (0, 0),
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
    /// `raw`, the value of node `t`, wrapped into `within` unless its range says it stays
    /// there.
    fn wrap_node(&mut self, t: &Term, raw: Int, bits: u32, within: (i128, i128)) -> Int {
        match self.ranges.raw(t) {
            Some(r) if fits(r, within) => raw,
            _ => self.wrap_into(raw, bits, within),
        }
    }

    /// `raw - k * 2^bits` for the `k` that brings it into `[lo, hi]`.
    fn wrap_into(&mut self, raw: Int, bits: u32, (lo, hi): (i128, i128)) -> Int {
        self.wraps += 1;
        let k = Int::new_const(format!("wrap{}", self.wraps));
        let modulus = Int::from_i128(1i128 << bits);
        let w = Int::sub(&[raw, Int::mul(&[k, modulus])]);
        self.side.push(w.ge(Int::from_i128(lo)));
        self.side.push(w.le(Int::from_i128(hi)));
        w
    }

    fn int(&mut self, t: &Term) -> Option<Int> {
        match self.lin(t)? {
            Lin::Int(i) => Some(i),
            _ => None,
        }
    }

    fn boolean(&mut self, t: &Term) -> Option<Bool> {
        match self.lin(t)? {
            Lin::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn string(&mut self, t: &Term) -> Option<ZString> {
        match self.lin(t)? {
            Lin::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A string operation (its integer results are in range without wrapping: lengths,
    /// indices and codes are small; `parseDigits` is bounded by `long`'s range).
    fn string_op(&mut self, op: StrOp, args: &[Term]) -> Option<Lin> {
        let arg = |k: usize| args.get(k);
        // A constant index past any length the string can have is out of range: folded here,
        // for Z3 4.8 unfolds `str.at(s, 2147483647)` into as many characters.
        let longest = arg(0).map_or(0, z3_string::max_len);
        let constant = |k: usize| arg(k).and_then(Term::as_const);
        let outside = |k: usize| constant(k).is_some_and(|c| c < 0 || c >= longest);
        match op {
            StrOp::CharAt if outside(1) => return Some(Lin::Int(Int::from_i64(-1))),
            StrOp::IndexOf if constant(2).is_some_and(|c| c < 0 || c > longest) => {
                return Some(Lin::Int(Int::from_i64(-1)))
            }
            StrOp::Substr if outside(1) || constant(2).is_some_and(|c| c <= 0) => {
                return Some(Lin::Str(z3_string::constant(&Default::default())?))
            }
            StrOp::Substr if constant(2).is_some_and(|c| c > longest) => {
                let s = self.string(arg(0)?)?;
                let o = self.int(arg(1)?)?;
                return Some(Lin::Str(z3_string::substr(&s, &o, &Int::from_i64(longest))));
            }
            _ => {}
        }
        Some(match op {
            StrOp::Length => Lin::Int(self.string(arg(0)?)?.length()),
            StrOp::CharAt => {
                let (s, i) = (self.string(arg(0)?)?, self.int(arg(1)?)?);
                Lin::Int(z3_string::char_at(&s, &i)?)
            }
            StrOp::Concat => {
                let (a, b) = (self.string(arg(0)?)?, self.string(arg(1)?)?);
                Lin::Str(ZString::concat(&[a, b]))
            }
            StrOp::Substr => {
                let s = self.string(arg(0)?)?;
                let (o, n) = (self.int(arg(1)?)?, self.int(arg(2)?)?);
                Lin::Str(z3_string::substr(&s, &o, &n))
            }
            StrOp::IndexOf => {
                let (s, t) = (self.string(arg(0)?)?, self.string(arg(1)?)?);
                let from = self.int(arg(2)?)?;
                Lin::Int(z3_string::index_of(&s, &t, &from)?)
            }
            StrOp::Contains => {
                let (s, t) = (self.string(arg(0)?)?, self.string(arg(1)?)?);
                Lin::Bool(s.contains(&t))
            }
            StrOp::StartsWith => {
                let (s, t) = (self.string(arg(0)?)?, self.string(arg(1)?)?);
                Lin::Bool(t.prefix(&s))
            }
            StrOp::EndsWith => {
                let (s, t) = (self.string(arg(0)?)?, self.string(arg(1)?)?);
                Lin::Bool(t.suffix(&s))
            }
            StrOp::FromInt => Lin::Str(z3_string::from_int(&self.int(arg(0)?)?)?),
            StrOp::ParseDigits => Lin::Int(z3_string::parse_digits(&self.string(arg(0)?)?)?),
            StrOp::FromChar => Lin::Str(z3_string::from_char(&self.int(arg(0)?)?)?),
            StrOp::ToLowerAscii | StrOp::ToUpperAscii => {
                let s = self.string(arg(0)?)?;
                let lower = op == StrOp::ToLowerAscii;
                self.wraps += 1;
                Lin::Str(z3_string::case_map(&s, lower, self.wraps, &mut self.side)?)
            }
        })
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
            TermKind::Str(text) => Lin::Str(z3_string::constant(text)?),
            TermKind::StrOp(op, args) => self.string_op(*op, args)?,
            TermKind::Var(s, SymbolSort::Str) => {
                if let Some(x) = self.strings.get(s) {
                    Lin::Str(x.clone())
                } else {
                    let x = ZString::new_const(format!("str{}", s.0));
                    self.side.push(z3_string::well_formed(&x)?);
                    self.strings.insert(*s, x.clone());
                    Lin::Str(x)
                }
            }
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
                Lin::Int(self.wrap_node(t, x.unary_minus(), bits, range(bits)))
            }
            // Narrowing: the low bits, read signed (char: unsigned).
            TermKind::Unary(UnaryOp::L2I, a) => {
                let x = self.int(a)?;
                Lin::Int(self.wrap_node(t, x, 32, range(32)))
            }
            TermKind::Unary(UnaryOp::I2B, a) => {
                let x = self.int(a)?;
                Lin::Int(self.wrap_node(t, x, 8, range(8)))
            }
            TermKind::Unary(UnaryOp::I2S, a) => {
                let x = self.int(a)?;
                Lin::Int(self.wrap_node(t, x, 16, range(16)))
            }
            TermKind::Unary(UnaryOp::I2C, a) => {
                let x = self.int(a)?;
                Lin::Int(self.wrap_node(t, x, 16, (0, 65_535)))
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
                Lin::Int(self.wrap_node(t, raw, bits, range(bits)))
            }
            TermKind::Binary(BinaryOp::Mul, a, b) if a.is_const() || b.is_const() => {
                let bits = Self::width(a);
                let (x, y) = (self.int(a)?, self.int(b)?);
                Lin::Int(self.wrap_node(t, Int::mul(&[x, y]), bits, range(bits)))
            }
            TermKind::Binary(op @ (BinaryOp::Div | BinaryOp::Rem), a, b)
                if b.as_const().is_some_and(|c| c != 0) =>
            {
                // Java truncates toward zero: |x| / |c| with the signs put back.
                let c = b.as_const()?;
                let bits = Self::width(a);
                let x = self.int(a)?;
                let m = Int::from_i64(c.checked_abs()?);
                let zero = Int::from_i64(0);
                let up = x.div(&m);
                let down = x.unary_minus().div(&m).unary_minus();
                let q = x.ge(&zero).ite(&up, &down);
                if *op == BinaryOp::Rem {
                    Lin::Int(Int::sub(&[x, Int::mul(&[q, m])]))
                } else if c > 0 {
                    Lin::Int(q)
                } else {
                    // `MIN / -1` wraps to MIN.
                    Lin::Int(self.wrap_node(t, q.unary_minus(), bits, range(bits)))
                }
            }
            TermKind::Binary(..) => return None,
            TermKind::Compare(op, a, b) if a.sort() == Sort::Bool => {
                let eq = self.boolean(a)?.eq(self.boolean(b)?);
                Lin::Bool(if *op == CmpOp::Eq { eq } else { eq.not() })
            }
            TermKind::Compare(op, a, b) if a.sort() == Sort::Str => {
                let eq = self.string(a)?.eq(self.string(b)?);
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
                    (Lin::Str(x), Lin::Str(y)) => Lin::Str(c.ite(&x, &y)),
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
        strings: HashMap::new(),
        side: Vec::new(),
        wraps: 0,
        ranges: Ranges::default(),
    };
    let mut assertions = Vec::with_capacity(clauses.len());
    for c in clauses {
        assertions.push(tr.boolean(c)?);
    }
    assertions.extend(tr.side);
    let printable = tr
        .strings
        .values()
        .map(z3_string::printable)
        .collect::<Option<Vec<Bool>>>()?;
    Some(LinearQuery {
        assertions,
        symbols: tr.symbols,
        strings: tr.strings,
        printable,
    })
}
