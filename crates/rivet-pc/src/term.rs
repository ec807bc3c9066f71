//! Terms of path-condition clauses: 32- and 64-bit two's-complement integers and booleans
//! with Java's exact semantics (wrapping overflow, truncating division, masked shifts),
//! built by smart constructors that fold constants.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

/// A symbol of a path condition: an input value (`{arg1}`, `{this}.size`) or a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SymbolId(pub u32);

/// The Java type of a symbol. Every sort but `Long` is an `int`-valued term (the JVM widens
/// booleans, bytes, chars and shorts to `int`); a symbol's values stay in its type's range.
/// `Ref` symbols stand for references by logical address: 0 is `null`, equal numbers are the
/// same object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SymbolSort {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Ref,
}

impl SymbolSort {
    /// The bit width the symbol is declared with in the solver.
    pub fn width(self) -> u32 {
        match self {
            SymbolSort::Boolean => 1,
            SymbolSort::Byte => 8,
            SymbolSort::Char | SymbolSort::Short => 16,
            SymbolSort::Int | SymbolSort::Ref => 32,
            SymbolSort::Long => 64,
        }
    }

    /// True if the declared bits are sign-extended to the term's width (zero-extended otherwise).
    pub fn signed(self) -> bool {
        matches!(
            self,
            SymbolSort::Byte | SymbolSort::Short | SymbolSort::Int | SymbolSort::Long
        )
    }

    /// The sort of terms this symbol is read as.
    pub fn term_sort(self) -> Sort {
        match self {
            SymbolSort::Long => Sort::Long,
            _ => Sort::Int,
        }
    }

    /// Brings an arbitrary 64-bit value into this sort's range (truncate, then widen).
    pub fn normalize(self, v: i64) -> i64 {
        match self {
            SymbolSort::Boolean => v & 1,
            SymbolSort::Byte => i64::from(v as i8),
            SymbolSort::Char => i64::from(v as u16),
            SymbolSort::Short => i64::from(v as i16),
            SymbolSort::Int | SymbolSort::Ref => i64::from(v as i32),
            SymbolSort::Long => v,
        }
    }
}

/// The sort of a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sort {
    Bool,
    /// Java `int` (32 bits).
    Int,
    /// Java `long` (64 bits).
    Long,
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
}

/// Signed comparisons (`Eq`/`Ne` also compare booleans).
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

    pub fn holds<T: Ord>(self, a: T, b: T) -> bool {
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

/// The shape of a term node.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TermKind {
    Bool(bool),
    Int(i32),
    Long(i64),
    Var(SymbolId, SymbolSort),
    Unary(UnaryOp, Term),
    Binary(BinaryOp, Term, Term),
    Compare(CmpOp, Term, Term),
    Ite(Term, Term, Term),
}

#[derive(Debug)]
struct Node {
    kind: TermKind,
    sort: Sort,
    hash: u64,
    symbols: OnceLock<Box<[SymbolId]>>,
}

/// An immutable, shared term. Cloning is cheap; equality is structural.
#[derive(Clone)]
pub struct Term(Arc<Node>);

impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
            || (self.0.hash == other.0.hash && self.0.kind == other.0.kind)
    }
}

impl Eq for Term {}

impl Hash for Term {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash);
    }
}

impl Serialize for Term {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.kind.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Term {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Term, D::Error> {
        let kind = TermKind::deserialize(deserializer)?;
        Term::from_kind(kind).map_err(serde::de::Error::custom)
    }
}

impl fmt::Debug for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.display(&|s: SymbolId| format!("s{}", s.0)))
    }
}

/// The error of building a term from operands of the wrong sorts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ill-sorted term: {op} on {left:?} and {right:?}")]
pub struct SortError {
    pub op: &'static str,
    pub left: Sort,
    pub right: Sort,
}

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x100_0000_01b3).rotate_left(29) ^ (v >> 7)
}

fn hash_kind(kind: &TermKind) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match kind {
        TermKind::Bool(b) => (0u8, *b).hash(&mut h),
        TermKind::Int(v) => (1u8, *v).hash(&mut h),
        TermKind::Long(v) => (2u8, *v).hash(&mut h),
        TermKind::Var(s, sort) => (3u8, *s, *sort).hash(&mut h),
        TermKind::Unary(op, a) => {
            (4u8, *op).hash(&mut h);
            return mix(h.finish(), a.0.hash);
        }
        TermKind::Binary(op, a, b) => {
            (5u8, *op).hash(&mut h);
            return mix(mix(h.finish(), a.0.hash), b.0.hash);
        }
        TermKind::Compare(op, a, b) => {
            (6u8, *op).hash(&mut h);
            return mix(mix(h.finish(), a.0.hash), b.0.hash);
        }
        TermKind::Ite(c, a, b) => {
            7u8.hash(&mut h);
            return mix(mix(mix(h.finish(), c.0.hash), a.0.hash), b.0.hash);
        }
    }
    h.finish()
}

impl Term {
    fn make(kind: TermKind, sort: Sort) -> Term {
        let hash = hash_kind(&kind);
        Term(Arc::new(Node {
            kind,
            sort,
            hash,
            symbols: OnceLock::new(),
        }))
    }

    /// The term of exactly this shape, without folding or simplification (so a serialised
    /// term reads back equal); errors if the operands' sorts do not fit the node.
    pub fn from_kind(kind: TermKind) -> Result<Term, SortError> {
        let err = |op, left, right| SortError { op, left, right };
        let sort = match &kind {
            TermKind::Bool(_) => Sort::Bool,
            TermKind::Int(_) => Sort::Int,
            TermKind::Long(_) => Sort::Long,
            TermKind::Var(_, s) => s.term_sort(),
            TermKind::Unary(op, a) => {
                unary_sort(*op, a.sort()).ok_or_else(|| err("unary", a.sort(), a.sort()))?
            }
            TermKind::Binary(op, a, b) => {
                if !binary_fits(*op, a.sort(), b.sort()) {
                    return Err(err("binary", a.sort(), b.sort()));
                }
                a.sort()
            }
            TermKind::Compare(op, a, b) => {
                let bools = a.sort() == Sort::Bool && !matches!(op, CmpOp::Eq | CmpOp::Ne);
                if a.sort() != b.sort() || bools {
                    return Err(err("compare", a.sort(), b.sort()));
                }
                Sort::Bool
            }
            TermKind::Ite(c, a, b) => {
                if c.sort() != Sort::Bool || a.sort() != b.sort() {
                    return Err(err("ite", a.sort(), b.sort()));
                }
                a.sort()
            }
        };
        Ok(Term::make(kind, sort))
    }

    pub fn kind(&self) -> &TermKind {
        &self.0.kind
    }

    pub fn sort(&self) -> Sort {
        self.0.sort
    }

    pub fn bool(b: bool) -> Term {
        Term::make(TermKind::Bool(b), Sort::Bool)
    }

    pub fn int(v: i32) -> Term {
        Term::make(TermKind::Int(v), Sort::Int)
    }

    pub fn long(v: i64) -> Term {
        Term::make(TermKind::Long(v), Sort::Long)
    }

    pub fn var(id: SymbolId, sort: SymbolSort) -> Term {
        Term::make(TermKind::Var(id, sort), sort.term_sort())
    }

    /// The constant value of an `int` term, if it is one.
    pub fn as_int(&self) -> Option<i32> {
        match self.0.kind {
            TermKind::Int(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_long(&self) -> Option<i64> {
        match self.0.kind {
            TermKind::Long(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.0.kind {
            TermKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The constant value of an int or long term, widened.
    pub fn as_const(&self) -> Option<i64> {
        match self.0.kind {
            TermKind::Int(v) => Some(i64::from(v)),
            TermKind::Long(v) => Some(v),
            _ => None,
        }
    }

    pub fn is_const(&self) -> bool {
        matches!(
            self.0.kind,
            TermKind::Int(_) | TermKind::Long(_) | TermKind::Bool(_)
        )
    }

    /// The symbols the term mentions, sorted and without repeats (computed once).
    pub fn symbols(&self) -> &[SymbolId] {
        self.0.symbols.get_or_init(|| {
            let mut out = Vec::new();
            self.collect_symbols(&mut out);
            out.sort_unstable();
            out.dedup();
            out.into_boxed_slice()
        })
    }

    fn collect_symbols(&self, out: &mut Vec<SymbolId>) {
        if let Some(done) = self.0.symbols.get() {
            out.extend_from_slice(done);
            return;
        }
        match &self.0.kind {
            TermKind::Bool(_) | TermKind::Int(_) | TermKind::Long(_) => {}
            TermKind::Var(s, _) => out.push(*s),
            TermKind::Unary(_, a) => a.collect_symbols(out),
            TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => {
                a.collect_symbols(out);
                b.collect_symbols(out);
            }
            TermKind::Ite(c, a, b) => {
                c.collect_symbols(out);
                a.collect_symbols(out);
                b.collect_symbols(out);
            }
        }
    }

    fn constant(sort: Sort, v: i64) -> Term {
        match sort {
            Sort::Long => Term::long(v),
            Sort::Bool => Term::bool(v != 0),
            Sort::Int => Term::int(v as i32),
        }
    }

    /// A unary operation; errors if the operand's sort does not fit.
    pub fn unary(op: UnaryOp, a: Term) -> Result<Term, SortError> {
        let bad = |op| SortError {
            op,
            left: a.sort(),
            right: a.sort(),
        };
        let Some(sort) = unary_sort(op, a.sort()) else {
            return Err(bad("unary"));
        };
        if let Some(b) = a.as_bool() {
            return Ok(Term::bool(!b));
        }
        if let Some(v) = a.as_const() {
            return Ok(Term::constant(sort, crate::eval::unary_value(op, v)));
        }
        match (op, a.kind()) {
            (UnaryOp::Not, TermKind::Compare(c, x, y)) => {
                return Ok(Term::make(
                    TermKind::Compare(c.negate(), x.clone(), y.clone()),
                    Sort::Bool,
                ));
            }
            (UnaryOp::Not, TermKind::Unary(UnaryOp::Not, inner)) => return Ok(inner.clone()),
            (UnaryOp::Neg, TermKind::Unary(UnaryOp::Neg, inner)) => return Ok(inner.clone()),
            _ => {}
        }
        Ok(Term::make(TermKind::Unary(op, a), sort))
    }

    /// Boolean negation; comparisons flip their operator (`a < b` becomes `a >= b`).
    pub fn negation(a: Term) -> Result<Term, SortError> {
        Term::unary(UnaryOp::Not, a)
    }

    /// A binary operation; both operands of the same sort (shift counts are `int`).
    pub fn binary(op: BinaryOp, a: Term, b: Term) -> Result<Term, SortError> {
        if !binary_fits(op, a.sort(), b.sort()) {
            return Err(SortError {
                op: "binary",
                left: a.sort(),
                right: b.sort(),
            });
        }
        let sort = a.sort();
        // `true && x` is x, `false || x` is x, and the like.
        for (k, other) in [(&a, &b), (&b, &a)] {
            match (op, k.as_bool()) {
                (BinaryOp::And, Some(true))
                | (BinaryOp::Or, Some(false))
                | (BinaryOp::Xor, Some(false)) => return Ok(other.clone()),
                (BinaryOp::And, Some(false)) => return Ok(Term::bool(false)),
                (BinaryOp::Or, Some(true)) => return Ok(Term::bool(true)),
                _ => {}
            }
        }
        if let (Some(x), Some(y)) = (a.as_bool(), b.as_bool()) {
            let v = match op {
                BinaryOp::And => x & y,
                BinaryOp::Or => x | y,
                _ => x ^ y,
            };
            return Ok(Term::bool(v));
        }
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            return Ok(Term::constant(
                sort,
                crate::eval::binary_value(op, sort == Sort::Long, x, y),
            ));
        }
        // Constants go right in commutative operations (`1 + x` is `x + 1`).
        let commutative = matches!(
            op,
            BinaryOp::Add | BinaryOp::Mul | BinaryOp::And | BinaryOp::Or | BinaryOp::Xor
        );
        let (a, b) = if commutative && a.is_const() && !b.is_const() {
            (b, a)
        } else {
            (a, b)
        };
        if let Some(t) = simplify_binary(op, &a, &b) {
            return Ok(t);
        }
        Ok(Term::make(TermKind::Binary(op, a, b), sort))
    }

    /// A signed comparison of two terms of the same sort.
    pub fn compare(op: CmpOp, a: Term, b: Term) -> Result<Term, SortError> {
        let ok =
            a.sort() == b.sort() && (a.sort() != Sort::Bool || matches!(op, CmpOp::Eq | CmpOp::Ne));
        if !ok {
            return Err(SortError {
                op: "compare",
                left: a.sort(),
                right: b.sort(),
            });
        }
        if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
            return Ok(Term::bool(op.holds(x, y)));
        }
        if let (Some(x), Some(y)) = (a.as_bool(), b.as_bool()) {
            return Ok(Term::bool(op.holds(x, y)));
        }
        if a == b {
            return Ok(Term::bool(matches!(op, CmpOp::Eq | CmpOp::Le | CmpOp::Ge)));
        }
        Ok(Term::make(TermKind::Compare(op, a, b), Sort::Bool))
    }

    /// `if c then a else b`; `a` and `b` of the same sort, `c` boolean.
    pub fn ite(c: Term, a: Term, b: Term) -> Result<Term, SortError> {
        if c.sort() != Sort::Bool || a.sort() != b.sort() {
            return Err(SortError {
                op: "ite",
                left: a.sort(),
                right: b.sort(),
            });
        }
        if let Some(cv) = c.as_bool() {
            return Ok(if cv { a } else { b });
        }
        if a == b {
            return Ok(a);
        }
        let sort = a.sort();
        Ok(Term::make(TermKind::Ite(c, a, b), sort))
    }

    /// The term with every symbol replaced as `map` says (symbols it leaves out stay).
    pub fn rename(&self, map: &dyn Fn(SymbolId) -> Option<SymbolId>) -> Term {
        match self.kind() {
            TermKind::Bool(_) | TermKind::Int(_) | TermKind::Long(_) => self.clone(),
            TermKind::Var(s, sort) => match map(*s) {
                Some(n) => Term::var(n, *sort),
                None => self.clone(),
            },
            TermKind::Unary(op, a) => Term::make(TermKind::Unary(*op, a.rename(map)), self.sort()),
            TermKind::Binary(op, a, b) => Term::make(
                TermKind::Binary(*op, a.rename(map), b.rename(map)),
                self.sort(),
            ),
            TermKind::Compare(op, a, b) => Term::make(
                TermKind::Compare(*op, a.rename(map), b.rename(map)),
                Sort::Bool,
            ),
            TermKind::Ite(c, a, b) => Term::make(
                TermKind::Ite(c.rename(map), a.rename(map), b.rename(map)),
                self.sort(),
            ),
        }
    }

    /// Renders the term in Java-like infix form, naming symbols with `name`.
    pub fn display<'a>(&'a self, name: &'a dyn Fn(SymbolId) -> String) -> TermDisplay<'a> {
        TermDisplay { term: self, name }
    }
}

/// The sort of a unary operation on an operand of `sort`, if it applies to it.
fn unary_sort(op: UnaryOp, sort: Sort) -> Option<Sort> {
    Some(match (op, sort) {
        (UnaryOp::Neg, s @ (Sort::Int | Sort::Long)) => s,
        (UnaryOp::Not, Sort::Bool) => Sort::Bool,
        (UnaryOp::I2L, Sort::Int) => Sort::Long,
        (UnaryOp::L2I, Sort::Long) => Sort::Int,
        (UnaryOp::I2B | UnaryOp::I2C | UnaryOp::I2S, Sort::Int) => Sort::Int,
        _ => return None,
    })
}

/// Do operands of these sorts fit a binary operation? Both of one sort, booleans only for the
/// logical operations, shift counts `int`.
fn binary_fits(op: BinaryOp, a: Sort, b: Sort) -> bool {
    let shift = matches!(op, BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Ushr);
    let logic = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
    if shift {
        matches!(a, Sort::Int | Sort::Long) && b == Sort::Int
    } else if a == Sort::Bool {
        logic && b == Sort::Bool
    } else {
        a == b
    }
}

/// `x + c1 + c2` → `x + (c1 + c2)`, `x + 0` → `x`, `x * 1` → `x`, and the like, all under
/// wrapping arithmetic (so exact for Java).
fn simplify_binary(op: BinaryOp, a: &Term, b: &Term) -> Option<Term> {
    let long = a.sort() == Sort::Long;
    let zero = |t: &Term| t.as_const() == Some(0);
    match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Or | BinaryOp::Xor if zero(b) => {
            return Some(a.clone())
        }
        BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Ushr => {
            let mask = if long { 63 } else { 31 };
            if b.as_const().map(|c| c & mask) == Some(0) {
                return Some(a.clone());
            }
        }
        BinaryOp::Add if zero(a) => return Some(b.clone()),
        BinaryOp::Mul | BinaryOp::Div if b.as_const() == Some(1) => return Some(a.clone()),
        BinaryOp::Mul if a.as_const() == Some(1) => return Some(b.clone()),
        _ => {}
    }
    // Reassociate constants: (x ± c1) ± c2.
    if matches!(op, BinaryOp::Add | BinaryOp::Sub) {
        let c2 = b.as_const()?;
        let inner_const = match a.kind() {
            TermKind::Binary(inner @ (BinaryOp::Add | BinaryOp::Sub), x, c1) => {
                c1.as_const().map(|c1| (*inner, x, c1))
            }
            _ => None,
        };
        if let Some((inner, x, c1)) = inner_const {
            let c1 = if inner == BinaryOp::Sub {
                c1.wrapping_neg()
            } else {
                c1
            };
            let c2 = if op == BinaryOp::Sub {
                c2.wrapping_neg()
            } else {
                c2
            };
            let sum = c1.wrapping_add(c2);
            let sum = if long { sum } else { i64::from(sum as i32) };
            if sum == 0 {
                return Some(x.clone());
            }
            let (op, c) = if sum < 0 && sum != i64::MIN && (long || sum != i64::from(i32::MIN)) {
                (BinaryOp::Sub, sum.wrapping_neg())
            } else {
                (BinaryOp::Add, sum)
            };
            let c = Term::constant(a.sort(), c);
            return Some(Term::make(TermKind::Binary(op, x.clone(), c), a.sort()));
        }
        // x + (-c) → x - c, x - (-c) → x + c (not for the minimum value).
        let min = if long { i64::MIN } else { i64::from(i32::MIN) };
        if c2 < 0 && c2 != min {
            let flipped = if op == BinaryOp::Add {
                BinaryOp::Sub
            } else {
                BinaryOp::Add
            };
            let c = Term::constant(a.sort(), c2.wrapping_neg());
            return Some(Term::make(
                TermKind::Binary(flipped, a.clone(), c),
                a.sort(),
            ));
        }
    }
    None
}

/// A term rendered with symbol names; see [`Term::display`].
pub struct TermDisplay<'a> {
    term: &'a Term,
    name: &'a dyn Fn(SymbolId) -> String,
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
        TermKind::Binary(..) => 10,
        TermKind::Unary(..) => 11,
        _ => 12,
    }
}

impl TermDisplay<'_> {
    fn write(&self, t: &Term, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
            TermKind::Var(s, _) => f.write_str(&(self.name)(*s)),
            TermKind::Unary(op, a) => {
                let prefix = match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::I2L => "(long) ",
                    UnaryOp::L2I => "(int) ",
                    UnaryOp::I2B => "(byte) ",
                    UnaryOp::I2C => "(char) ",
                    UnaryOp::I2S => "(short) ",
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

#[cfg(test)]
#[path = "term_tests.rs"]
mod tests;
