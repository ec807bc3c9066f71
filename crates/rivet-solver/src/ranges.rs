//! Conservative ranges of integer terms, so that the linear translation spells out Java's
//! wrapping only where a result may leave its type: `c - '0'`, `n * 10 + d` over digits and
//! string lengths never wrap, and a fresh wrap variable per operation makes Z3's integer and
//! string procedures slow (seconds instead of milliseconds on a date parser's conditions).

use std::collections::HashMap;

use rivet_pc::{BinaryOp, Sort, StrOp, SymbolSort, Term, TermKind, UnaryOp};

/// A closed range of values.
pub type Range = (i128, i128);

fn bits_range(bits: u32) -> Range {
    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
}

/// The values of a term's sort (booleans 0 and 1).
fn sort_range(sort: Sort) -> Range {
    match sort {
        Sort::Long => bits_range(64),
        Sort::Bool => (0, 1),
        _ => bits_range(32),
    }
}

/// The values a symbol of `sort` takes.
pub fn symbol_range(sort: SymbolSort) -> Range {
    match sort {
        SymbolSort::Boolean => (0, 1),
        SymbolSort::Byte => bits_range(8),
        SymbolSort::Char => (0, 65_535),
        SymbolSort::Short => bits_range(16),
        SymbolSort::Long | SymbolSort::Double => bits_range(64),
        SymbolSort::Float => (0, i128::from(u32::MAX)),
        _ => bits_range(32),
    }
}

/// Does `r` lie within `within`?
pub fn fits(r: Range, within: Range) -> bool {
    r.0 >= within.0 && r.1 <= within.1
}

fn hull(a: Range, b: Range) -> Range {
    (a.0.min(b.0), a.1.max(b.1))
}

/// Ranges of terms, remembered per term.
#[derive(Default)]
pub struct Ranges {
    memo: HashMap<Term, Range>,
}

impl Ranges {
    /// The range of the Java value of `t` (an integer or boolean term).
    pub fn of(&mut self, t: &Term) -> Range {
        if let Some(r) = self.memo.get(t) {
            return *r;
        }
        let whole = sort_range(t.sort());
        let r = match t.kind() {
            TermKind::Int(v) => (i128::from(*v), i128::from(*v)),
            TermKind::Long(v) => (i128::from(*v), i128::from(*v)),
            TermKind::Bool(b) => (i128::from(*b), i128::from(*b)),
            TermKind::Var(_, sort) => symbol_range(*sort),
            TermKind::StrOp(op, _) => match op {
                StrOp::CharAt => (-1, 65_535),
                StrOp::Length => (0, i128::from(i32::MAX)),
                StrOp::IndexOf => (-1, i128::from(i32::MAX)),
                StrOp::ParseDigits => (-1, i128::from(i64::MAX)),
                _ => whole,
            },
            TermKind::Ite(_, a, b) => hull(self.of(a), self.of(b)),
            TermKind::Unary(UnaryOp::I2L, a) => self.of(a),
            // A narrowing cast keeps its operand's range only when it fits the target type:
            // `(char)` of a byte is 0..65535, not -128..127.
            TermKind::Unary(
                op @ (UnaryOp::L2I | UnaryOp::I2B | UnaryOp::I2S | UnaryOp::I2C),
                a,
            ) => {
                let target = match op {
                    UnaryOp::I2B => bits_range(8),
                    UnaryOp::I2S => bits_range(16),
                    UnaryOp::I2C => (0, 65_535),
                    _ => bits_range(32),
                };
                let raw = self.of(a);
                if fits(raw, target) {
                    raw
                } else {
                    target
                }
            }
            _ => match self.raw(t) {
                Some(raw) if fits(raw, whole) => raw,
                _ => whole,
            },
        };
        let r = (r.0.max(whole.0), r.1.min(whole.1));
        self.memo.insert(t.clone(), r);
        r
    }

    /// The range of the mathematical (unwrapped) result of an arithmetic node over its
    /// operands' Java values; None for other nodes.
    pub fn raw(&mut self, t: &Term) -> Option<Range> {
        Some(match t.kind() {
            TermKind::Unary(UnaryOp::Neg, a) => {
                let (lo, hi) = self.of(a);
                (-hi, -lo)
            }
            TermKind::Unary(UnaryOp::L2I | UnaryOp::I2B | UnaryOp::I2S | UnaryOp::I2C, a) => {
                self.of(a)
            }
            TermKind::Binary(BinaryOp::Add, a, b) => {
                let ((al, ah), (bl, bh)) = (self.of(a), self.of(b));
                (al + bl, ah + bh)
            }
            TermKind::Binary(BinaryOp::Sub, a, b) => {
                let ((al, ah), (bl, bh)) = (self.of(a), self.of(b));
                (al - bh, ah - bl)
            }
            TermKind::Binary(BinaryOp::Mul, a, b) => {
                let ((al, ah), (bl, bh)) = (self.of(a), self.of(b));
                let products = [
                    al.checked_mul(bl)?,
                    al.checked_mul(bh)?,
                    ah.checked_mul(bl)?,
                    ah.checked_mul(bh)?,
                ];
                let lo = products.iter().copied().min()?;
                let hi = products.iter().copied().max()?;
                (lo, hi)
            }
            TermKind::Binary(BinaryOp::Div, a, b) => {
                let c = i128::from(b.as_const().filter(|c| *c != 0)?);
                let (lo, hi) = self.of(a);
                let (x, y) = (lo / c, hi / c);
                (x.min(y), x.max(y))
            }
            TermKind::Binary(BinaryOp::Rem, a, b) => {
                let m = i128::from(b.as_const().filter(|c| *c != 0)?).abs() - 1;
                let (lo, hi) = self.of(a);
                (lo.max(-m).min(0), hi.min(m).max(0))
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_pc::{StrOp, SymbolId};

    #[test]
    fn digit_arithmetic_stays_in_range_and_overflow_is_seen() {
        let s = Term::var(SymbolId(0), SymbolSort::Str);
        let c =
            Term::string_op(StrOp::CharAt, vec![s, Term::int(0)]).unwrap_or_else(|e| panic!("{e}"));
        let d = Term::binary(BinaryOp::Sub, c, Term::int(48)).unwrap_or_else(|e| panic!("{e}"));
        let n =
            Term::binary(BinaryOp::Mul, d.clone(), Term::int(10)).unwrap_or_else(|e| panic!("{e}"));
        let mut r = Ranges::default();
        assert_eq!(r.of(&d), (-49, 65_487));
        assert!(fits(r.raw(&n).unwrap_or((0, 0)), bits_range(32)));
        let x = Term::var(SymbolId(1), SymbolSort::Int);
        let y = Term::binary(BinaryOp::Add, x, Term::int(1)).unwrap_or_else(|e| panic!("{e}"));
        assert!(!fits(r.raw(&y).unwrap_or((0, 0)), bits_range(32)));
        assert_eq!(r.of(&y), bits_range(32));
    }

    #[test]
    fn a_narrowing_cast_has_its_target_types_range() {
        // `(short) (char) b` for a byte b: (char) is 0..65535 (a negative byte wraps), so the
        // short cast wraps again (the proptest case `(short) (char) -128 == -128`).
        let b = Term::var(SymbolId(0), SymbolSort::Byte);
        let c = Term::unary(UnaryOp::I2C, b.clone()).unwrap_or_else(|e| panic!("{e}"));
        let s = Term::unary(UnaryOp::I2S, c.clone()).unwrap_or_else(|e| panic!("{e}"));
        let mut r = Ranges::default();
        assert_eq!(r.of(&c), (0, 65_535));
        assert!(!fits(r.raw(&s).unwrap_or((0, 0)), bits_range(16)));
        // A cast its operand fits keeps the operand's range.
        let widened = Term::unary(UnaryOp::I2S, b).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.of(&widened), bits_range(8));
    }
}
