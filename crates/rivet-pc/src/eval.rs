//! Models (values of symbols) and the evaluation of terms under a model with Java's exact
//! integer and floating-point semantics (the latter in `fp`); the reference the Z3
//! translation is tested against.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::string::{eval_str_op, JavaString};
use crate::term::{BinaryOp, CmpOp, SymbolId, Term, TermKind, UnaryOp};

/// The value of a term.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Concrete {
    Bool(bool),
    Int(i32),
    Long(i64),
    /// A float by its IEEE bits.
    Float(u32),
    /// A double by its IEEE bits.
    Double(u64),
    /// A string's contents.
    Str(JavaString),
}

impl Concrete {
    pub fn float(v: f32) -> Concrete {
        Concrete::Float(v.to_bits())
    }

    pub fn double(v: f64) -> Concrete {
        Concrete::Double(v.to_bits())
    }

    /// The value as a model holds it: integers widened to 64 bits (booleans as 0/1), floats
    /// and doubles by their bits (see `SymbolSort`).
    /// Strings read as 0 (a model holds them apart, in `Model::strings`).
    pub fn as_i64(&self) -> i64 {
        match *self {
            Concrete::Bool(b) => i64::from(b),
            Concrete::Int(v) => i64::from(v),
            Concrete::Long(v) => v,
            Concrete::Float(bits) => i64::from(bits),
            Concrete::Double(bits) => bits as i64,
            Concrete::Str(_) => 0,
        }
    }

    /// A string's contents.
    pub fn as_str(&self) -> Option<&JavaString> {
        match self {
            Concrete::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A float's value.
    pub fn as_f32(&self) -> Option<f32> {
        match *self {
            Concrete::Float(bits) => Some(f32::from_bits(bits)),
            _ => None,
        }
    }

    /// A float's or double's value (a float widened, exactly).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Concrete::Float(bits) => Some(f64::from(f32::from_bits(bits))),
            Concrete::Double(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// The value as a number: integers, floats and doubles as `f64` (longs rounded),
    /// booleans as 0/1, strings as their length.
    pub fn as_number(&self) -> f64 {
        match self {
            Concrete::Bool(b) => f64::from(u8::from(*b)),
            Concrete::Int(v) => f64::from(*v),
            Concrete::Long(v) => *v as f64,
            Concrete::Float(_) | Concrete::Double(_) => self.as_f64().unwrap_or(f64::NAN),
            Concrete::Str(s) => s.len() as f64,
        }
    }

    /// Equality as a test compares values: bitwise, except that every NaN equals every NaN.
    pub fn same(&self, other: &Concrete) -> bool {
        match (self.as_f64(), other.as_f64()) {
            (Some(x), Some(y)) if x.is_nan() && y.is_nan() => {
                std::mem::discriminant(self) == std::mem::discriminant(other)
            }
            _ => self == other,
        }
    }
}

/// Subterms of more nodes than this (as a tree) have their values remembered in one
/// evaluation.
const MEMO_FROM: u64 = 16;

/// Values of symbols; a symbol without a value reads as 0, a string symbol as the empty
/// string (Z3's model completion).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
    values: HashMap<SymbolId, i64>,
    /// The values of string symbols.
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    strings: HashMap<SymbolId, JavaString>,
}

impl Model {
    pub fn new() -> Model {
        Model::default()
    }

    /// Sets a symbol's value, already in its sort's range (see `SymbolSort::normalize`).
    pub fn set(&mut self, symbol: SymbolId, value: i64) {
        self.values.insert(symbol, value);
    }

    pub fn get(&self, symbol: SymbolId) -> Option<i64> {
        self.values.get(&symbol).copied()
    }

    /// Sets a string symbol's value.
    pub fn set_string(&mut self, symbol: SymbolId, value: JavaString) {
        self.strings.insert(symbol, value);
    }

    pub fn get_string(&self, symbol: SymbolId) -> Option<&JavaString> {
        self.strings.get(&symbol)
    }

    /// The string symbols' values.
    pub fn strings(&self) -> impl Iterator<Item = (SymbolId, &JavaString)> + '_ {
        self.strings.iter().map(|(s, v)| (*s, v))
    }

    pub fn len(&self) -> usize {
        self.values.len() + self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.strings.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (SymbolId, i64)> + '_ {
        self.values.iter().map(|(s, v)| (*s, *v))
    }

    /// The model with each symbol renamed as `map` says (symbols it maps to None dropped).
    pub fn renamed(&self, map: &dyn Fn(SymbolId) -> Option<SymbolId>) -> Model {
        Model {
            values: self
                .values
                .iter()
                .filter_map(|(s, v)| Some((map(*s)?, *v)))
                .collect(),
            strings: self
                .strings
                .iter()
                .filter_map(|(s, v)| Some((map(*s)?, v.clone())))
                .collect(),
        }
    }

    /// Copies every value of `other` into this model, overwriting.
    pub fn merge(&mut self, other: &Model) {
        self.values
            .extend(other.values.iter().map(|(s, v)| (*s, *v)));
        self.strings
            .extend(other.strings.iter().map(|(s, v)| (*s, v.clone())));
    }

    /// Evaluates a term; symbols without a value are 0. A subterm the term shares is
    /// evaluated once, so the cost is linear in the term's distinct nodes however deep its
    /// sharing goes (`b * b` squared again and again).
    pub fn eval(&self, term: &Term) -> Concrete {
        self.eval_in(term, &mut HashMap::new())
    }

    /// `eval`, remembering the values of shared subterms in `memo` (by node); small
    /// subterms are cheaper to evaluate again than to look up.
    fn eval_in(&self, term: &Term, memo: &mut HashMap<usize, Concrete>) -> Concrete {
        let remembered = term.tree_size() > MEMO_FROM;
        if remembered {
            if let Some(v) = memo.get(&term.node_key()) {
                return v.clone();
            }
        }
        let value = self.eval_node(term, memo);
        if remembered {
            memo.insert(term.node_key(), value.clone());
        }
        value
    }

    fn eval_node(&self, term: &Term, memo: &mut HashMap<usize, Concrete>) -> Concrete {
        match term.kind() {
            TermKind::Bool(b) => Concrete::Bool(*b),
            TermKind::Int(v) => Concrete::Int(*v),
            TermKind::Long(v) => Concrete::Long(*v),
            TermKind::Float(bits) => Concrete::Float(*bits),
            TermKind::Double(bits) => Concrete::Double(*bits),
            TermKind::Var(s, crate::term::SymbolSort::Str) => {
                Concrete::Str(self.strings.get(s).cloned().unwrap_or_default())
            }
            TermKind::Str(text) => Concrete::Str(text.clone()),
            TermKind::StrOp(op, args) => {
                let values: Vec<Concrete> = args.iter().map(|a| self.eval_in(a, memo)).collect();
                eval_str_op(*op, &values).unwrap_or(Concrete::Int(0))
            }
            TermKind::Var(s, sort) => {
                let v = sort.normalize(self.get(*s).unwrap_or(0));
                match sort.term_sort() {
                    crate::term::Sort::Long => Concrete::Long(v),
                    crate::term::Sort::Float => Concrete::Float(v as u32),
                    crate::term::Sort::Double => Concrete::Double(v as u64),
                    _ => Concrete::Int(v as i32),
                }
            }
            TermKind::Unary(op, a) => {
                let a = self.eval_in(a, memo);
                if op.is_fp() || matches!(a, Concrete::Float(_) | Concrete::Double(_)) {
                    return crate::fp::unary(*op, a);
                }
                match (op, a) {
                    (UnaryOp::Not, Concrete::Bool(b)) => Concrete::Bool(!b),
                    (UnaryOp::I2L, v) => Concrete::Long(unary_value(*op, v.as_i64())),
                    (_, Concrete::Long(v)) if *op != UnaryOp::L2I => {
                        Concrete::Long(unary_value(*op, v))
                    }
                    (_, v) => Concrete::Int(unary_value(*op, v.as_i64()) as i32),
                }
            }
            TermKind::Binary(op, a, b) => match (self.eval_in(a, memo), self.eval_in(b, memo)) {
                (x @ (Concrete::Float(_) | Concrete::Double(_)), y) => crate::fp::binary(*op, x, y),
                (Concrete::Bool(x), Concrete::Bool(y)) => Concrete::Bool(match op {
                    BinaryOp::And => x & y,
                    BinaryOp::Or => x | y,
                    _ => x ^ y,
                }),
                (Concrete::Long(x), y) => Concrete::Long(binary_value(*op, true, x, y.as_i64())),
                (x, y) => Concrete::Int(binary_value(*op, false, x.as_i64(), y.as_i64()) as i32),
            },
            TermKind::Compare(op, a, b) => {
                let (x, y) = (self.eval_in(a, memo), self.eval_in(b, memo));
                if matches!(x, Concrete::Float(_) | Concrete::Double(_)) {
                    return Concrete::Bool(crate::fp::compare(*op, x, y));
                }
                if let (Concrete::Str(a), Concrete::Str(b)) = (&x, &y) {
                    return Concrete::Bool((a == b) == (*op == CmpOp::Eq));
                }
                Concrete::Bool(op.holds(x.as_i64(), y.as_i64()))
            }
            TermKind::Ite(c, a, b) => {
                if self.eval_in(c, memo) == Concrete::Bool(true) {
                    self.eval_in(a, memo)
                } else {
                    self.eval_in(b, memo)
                }
            }
        }
    }

    /// True if every clause evaluates to true.
    pub fn satisfies(&self, clauses: &[Term]) -> bool {
        clauses.iter().all(|c| self.eval(c) == Concrete::Bool(true))
    }
}

/// A unary operation on a value already in the operand's range; the result is widened to
/// 64 bits (an `int` result is in `i32` range).
pub fn unary_value(op: UnaryOp, v: i64) -> i64 {
    match op {
        UnaryOp::Neg => v.wrapping_neg(),
        UnaryOp::Not => i64::from(v == 0),
        UnaryOp::I2L => v,
        UnaryOp::L2I => i64::from(v as i32),
        UnaryOp::I2B => i64::from(v as i8),
        UnaryOp::I2C => i64::from(v as u16),
        UnaryOp::I2S => i64::from(v as i16),
        // Float operations go through `fp::unary`; on integers they leave the value.
        _ => v,
    }
}

/// A binary operation with Java's semantics on `int` (`long = false`, operands in `i32`
/// range) or `long`; the shift count is masked to 5 or 6 bits; a zero divisor yields 0.
pub fn binary_value(op: BinaryOp, long: bool, x: i64, y: i64) -> i64 {
    if long {
        match op {
            BinaryOp::Add => x.wrapping_add(y),
            BinaryOp::Sub => x.wrapping_sub(y),
            BinaryOp::Mul => x.wrapping_mul(y),
            BinaryOp::Div => x.checked_div(y).unwrap_or(if y == 0 { 0 } else { x }),
            BinaryOp::Rem => x.checked_rem(y).unwrap_or(0),
            BinaryOp::Shl => x.wrapping_shl((y & 63) as u32),
            BinaryOp::Shr => x.wrapping_shr((y & 63) as u32),
            BinaryOp::Ushr => ((x as u64) >> (y & 63)) as i64,
            BinaryOp::And => x & y,
            BinaryOp::Or => x | y,
            BinaryOp::Xor => x ^ y,
            BinaryOp::Min => x.min(y),
            BinaryOp::Max => x.max(y),
        }
    } else {
        let (x, y) = (x as i32, y as i32);
        let r = match op {
            BinaryOp::Add => x.wrapping_add(y),
            BinaryOp::Sub => x.wrapping_sub(y),
            BinaryOp::Mul => x.wrapping_mul(y),
            BinaryOp::Div => x.checked_div(y).unwrap_or(if y == 0 { 0 } else { x }),
            BinaryOp::Rem => x.checked_rem(y).unwrap_or(0),
            BinaryOp::Shl => x.wrapping_shl((y & 31) as u32),
            BinaryOp::Shr => x.wrapping_shr((y & 31) as u32),
            BinaryOp::Ushr => ((x as u32) >> (y & 31)) as i32,
            BinaryOp::And => x & y,
            BinaryOp::Or => x | y,
            BinaryOp::Xor => x ^ y,
            BinaryOp::Min => x.min(y),
            BinaryOp::Max => x.max(y),
        };
        i64::from(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::SymbolSort;

    #[test]
    fn java_division_and_shifts() {
        assert_eq!(binary_value(BinaryOp::Div, false, -7, 2), -3);
        assert_eq!(binary_value(BinaryOp::Rem, false, -7, 2), -1);
        assert_eq!(
            binary_value(BinaryOp::Div, false, i64::from(i32::MIN), -1),
            i64::from(i32::MIN)
        );
        assert_eq!(
            binary_value(BinaryOp::Rem, false, i64::from(i32::MIN), -1),
            0
        );
        assert_eq!(binary_value(BinaryOp::Shl, false, 1, 33), 2);
        assert_eq!(binary_value(BinaryOp::Ushr, false, -1, 28), 15);
        assert_eq!(binary_value(BinaryOp::Shl, true, 1, 65), 2);
        assert_eq!(binary_value(BinaryOp::Div, true, i64::MIN, -1), i64::MIN);
    }

    #[test]
    fn symbols_read_in_their_range() {
        let mut m = Model::new();
        m.set(SymbolId(0), 200);
        let b = Term::var(SymbolId(0), SymbolSort::Byte);
        assert_eq!(m.eval(&b), Concrete::Int(-56));
        let c = Term::var(SymbolId(0), SymbolSort::Char);
        assert_eq!(m.eval(&c), Concrete::Int(200));
    }

    /// `b *= b` sixty times: a term of 61 distinct nodes and 2^61 - 1 tree nodes. Evaluation,
    /// its symbols and its text cost its distinct nodes (the old walks never returned).
    #[test]
    fn a_value_squared_again_and_again_evaluates_linearly() {
        let x = Term::var(SymbolId(7), SymbolSort::Int);
        let mut b = x.clone();
        for _ in 0..60 {
            b = Term::binary(BinaryOp::Mul, b.clone(), b).unwrap();
        }
        let mut m = Model::new();
        m.set(SymbolId(7), 3);
        let mut expect: i32 = 3;
        for _ in 0..60 {
            expect = expect.wrapping_mul(expect);
        }
        assert_eq!(m.eval(&b), Concrete::Int(expect));
        assert_eq!(b.symbols(), &[SymbolId(7)]);
        assert_eq!(b.variables(), vec![(SymbolId(7), SymbolSort::Int)]);
        assert_eq!(b.tree_size(), (1u64 << 61) - 1);
        let text = format!("{b:?}");
        assert!(text.starts_with("<term ") && text.len() < 100, "{text}");
    }
}
