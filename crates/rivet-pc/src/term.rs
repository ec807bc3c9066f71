//! Terms of path-condition clauses: 32- and 64-bit two's-complement integers, booleans, and
//! IEEE 754 floats and doubles, with Java's exact semantics (wrapping overflow, truncating
//! division, masked shifts; round-to-nearest-even float arithmetic, NaN-aware comparisons,
//! saturating float-to-integer conversions), built by smart constructors that fold constants.
//! The float operations' constructors and folding live in `term_float`; the operators in `ops`.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

pub use crate::display::TermDisplay;
pub use crate::ops::{BinaryOp, CmpOp, Sort, UnaryOp};
use crate::string::{JavaString, StrOp};

/// A symbol of a path condition: an input value (`{arg1}`, `{this}.size`) or a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SymbolId(pub u32);

/// The Java type of a symbol. Every sort but `Long`, `Float` and `Double` is an `int`-valued
/// term (the JVM widens booleans, bytes, chars and shorts to `int`); a symbol's values stay in
/// its type's range. `Ref` symbols stand for references by logical address: 0 is `null`, equal
/// numbers are the same object. A model holds a `Float` symbol's value as its IEEE bits
/// (zero-extended `u32`) and a `Double` symbol's as its bits (`u64` read as `i64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum SymbolSort {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Ref,
    Float,
    Double,
    /// A `java.lang.String` value (its contents; a model holds it in `Model::strings`).
    Str,
}

impl SymbolSort {
    /// The bit width the symbol is declared with in the solver.
    pub fn width(self) -> u32 {
        match self {
            SymbolSort::Boolean => 1,
            SymbolSort::Byte => 8,
            SymbolSort::Char | SymbolSort::Short => 16,
            SymbolSort::Int | SymbolSort::Ref | SymbolSort::Float => 32,
            SymbolSort::Long | SymbolSort::Double => 64,
            // Strings are sequences, not bit-vectors.
            SymbolSort::Str => 0,
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
            SymbolSort::Float => Sort::Float,
            SymbolSort::Double => Sort::Double,
            SymbolSort::Str => Sort::Str,
            _ => Sort::Int,
        }
    }

    /// Brings an arbitrary 64-bit value into this sort's range (truncate, then widen; float
    /// bits are truncated to 32 and zero-extended).
    pub fn normalize(self, v: i64) -> i64 {
        match self {
            SymbolSort::Boolean => v & 1,
            SymbolSort::Byte => i64::from(v as i8),
            SymbolSort::Char => i64::from(v as u16),
            SymbolSort::Short => i64::from(v as i16),
            SymbolSort::Int | SymbolSort::Ref => i64::from(v as i32),
            SymbolSort::Long | SymbolSort::Double => v,
            SymbolSort::Float => i64::from(v as u32),
            SymbolSort::Str => 0,
        }
    }
}

/// The shape of a term node.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TermKind {
    Bool(bool),
    Int(i32),
    Long(i64),
    /// A float constant by its IEEE bits (every NaN, -0.0 and the infinities kept exactly).
    Float(u32),
    /// A double constant by its IEEE bits.
    Double(u64),
    Var(SymbolId, SymbolSort),
    Unary(UnaryOp, Term),
    Binary(BinaryOp, Term, Term),
    Compare(CmpOp, Term, Term),
    Ite(Term, Term, Term),
    /// A string constant.
    Str(JavaString),
    /// A string operation (see `StrOp` for its operands and semantics).
    StrOp(StrOp, Arc<[Term]>),
}

#[derive(Debug)]
struct Node {
    kind: TermKind,
    sort: Sort,
    hash: u64,
    /// The number of nodes of the term read as a tree (shared subterms counted each time
    /// they occur), saturating: how large the term's text and any walk that does not share
    /// would be.
    tree_size: u64,
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
        TermKind::Float(v) => (8u8, *v).hash(&mut h),
        TermKind::Double(v) => (9u8, *v).hash(&mut h),
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
        TermKind::Str(text) => (8u8, text).hash(&mut h),
        TermKind::StrOp(op, args) => {
            (9u8, *op).hash(&mut h);
            return args.iter().fold(h.finish(), |acc, a| mix(acc, a.0.hash));
        }
    }
    h.finish()
}

/// One node plus its operands' tree sizes, saturating.
fn tree_size_of(kind: &TermKind) -> u64 {
    operands_of(kind).fold(1u64, |n, a| n.saturating_add(a.tree_size()))
}

/// A node's operands, in order (none for a constant or a symbol).
fn operands_of(kind: &TermKind) -> impl DoubleEndedIterator<Item = &Term> + '_ {
    let (fixed, rest): ([Option<&Term>; 3], &[Term]) = match kind {
        TermKind::Bool(_)
        | TermKind::Int(_)
        | TermKind::Long(_)
        | TermKind::Float(_)
        | TermKind::Double(_)
        | TermKind::Var(..)
        | TermKind::Str(_) => ([None, None, None], &[]),
        TermKind::Unary(_, a) => ([Some(a), None, None], &[]),
        TermKind::Binary(_, a, b) | TermKind::Compare(_, a, b) => ([Some(a), Some(b), None], &[]),
        TermKind::Ite(c, a, b) => ([Some(c), Some(a), Some(b)], &[]),
        TermKind::StrOp(_, args) => ([None, None, None], args),
    };
    fixed.into_iter().flatten().chain(rest.iter())
}

impl Term {
    pub(crate) fn make(kind: TermKind, sort: Sort) -> Term {
        let hash = hash_kind(&kind);
        let tree_size = tree_size_of(&kind);
        Term(Arc::new(Node {
            kind,
            sort,
            hash,
            tree_size,
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
            TermKind::Float(_) => Sort::Float,
            TermKind::Double(_) => Sort::Double,
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
                let bools = matches!(a.sort(), Sort::Bool | Sort::Str)
                    && !matches!(op, CmpOp::Eq | CmpOp::Ne);
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
            TermKind::Str(_) => Sort::Str,
            TermKind::StrOp(op, args) => crate::term_string::check_operands(*op, args)?,
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
            TermKind::Int(_)
                | TermKind::Long(_)
                | TermKind::Bool(_)
                | TermKind::Float(_)
                | TermKind::Double(_)
                | TermKind::Str(_)
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

    /// Each operand's symbols are computed once and kept, so a term that shares its
    /// subterms (`b * b`, squared again and again) costs its number of distinct nodes.
    fn collect_symbols(&self, out: &mut Vec<SymbolId>) {
        if let TermKind::Var(s, _) = &self.0.kind {
            out.push(*s);
            return;
        }
        for operand in self.operands() {
            out.extend_from_slice(operand.symbols());
        }
    }

    /// The node's operands, in order (none for a constant or a symbol).
    pub fn operands(&self) -> impl DoubleEndedIterator<Item = &Term> + '_ {
        operands_of(&self.0.kind)
    }

    /// The number of nodes of the term read as a tree, saturating: the size of its text, and
    /// the cost of any walk that does not remember shared subterms (see `Term::visit_dag`).
    pub fn tree_size(&self) -> u64 {
        self.0.tree_size
    }

    /// The hash of the term's structure (equal terms hash alike).
    pub fn structure_hash(&self) -> u64 {
        self.0.hash
    }

    /// A key naming this node (not its structure) while the term is alive: what a walk over
    /// the term's DAG remembers a shared subterm by.
    pub fn node_key(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// Calls `visit` once per distinct node of the term (shared subterms once), operands
    /// before the nodes using them; linear in the number of distinct nodes.
    pub fn visit_dag(&self, visit: &mut dyn FnMut(&Term)) {
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(self, false)];
        while let Some((t, expanded)) = stack.pop() {
            if expanded {
                visit(t);
                continue;
            }
            if !seen.insert(t.node_key()) {
                continue;
            }
            stack.push((t, true));
            for operand in t.operands().rev() {
                stack.push((operand, false));
            }
        }
    }

    /// The symbols of the term with their sorts, each once, in the order `visit_dag` meets
    /// them.
    pub fn variables(&self) -> Vec<(SymbolId, SymbolSort)> {
        let mut out: Vec<(SymbolId, SymbolSort)> = Vec::new();
        self.visit_dag(&mut |t| {
            if let TermKind::Var(s, sort) = t.kind() {
                if !out.iter().any(|(o, _)| o == s) {
                    out.push((*s, *sort));
                }
            }
        });
        out
    }

    fn constant(sort: Sort, v: i64) -> Term {
        match sort {
            Sort::Long => Term::long(v),
            Sort::Bool => Term::bool(v != 0),
            Sort::Int => Term::int(v as i32),
            Sort::Float => Term::make(TermKind::Float(v as u32), Sort::Float),
            Sort::Double => Term::make(TermKind::Double(v as u64), Sort::Double),
            Sort::Str => Term::make(TermKind::Str(JavaString::default()), Sort::Str),
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
        if op.is_fp() || a.sort().is_fp() {
            return Ok(crate::term_float::fp_unary(op, a, sort));
        }
        if let Some(b) = a.as_bool() {
            return Ok(Term::bool(!b));
        }
        if let Some(v) = a.as_const() {
            return Ok(Term::constant(sort, crate::eval::unary_value(op, v)));
        }
        match (op, a.kind()) {
            // On floats only `==` and `!=` negate each other (ordered comparisons are false
            // on NaN both ways).
            (UnaryOp::Not, TermKind::Compare(c, x, y))
                if !x.sort().is_fp() || matches!(c, CmpOp::Eq | CmpOp::Ne) =>
            {
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
        if sort.is_fp() {
            return Ok(crate::term_float::fp_binary(op, a, b));
        }
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
        let equality_only = matches!(a.sort(), Sort::Bool | Sort::Str);
        let ok = a.sort() == b.sort() && (!equality_only || matches!(op, CmpOp::Eq | CmpOp::Ne));
        if !ok {
            return Err(SortError {
                op: "compare",
                left: a.sort(),
                right: b.sort(),
            });
        }
        if a.sort().is_fp() {
            return Ok(crate::term_float::fp_compare(op, a, b));
        }
        if a.sort() == Sort::Str {
            return crate::term_string::str_compare(op, a, b);
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
        // `(c ? 1 : 0) == 0` (a Java boolean tested by `ifeq`) is `!c`: a comparison of an
        // `ite` of constants with a constant is the condition, its negation, or a constant.
        for (x, y, o) in [(&a, &b, op), (&b, &a, op.swap())] {
            let (TermKind::Ite(c, t, e), Some(k)) = (x.kind(), y.as_const()) else {
                continue;
            };
            let (Some(t), Some(e)) = (t.as_const(), e.as_const()) else {
                continue;
            };
            return match (o.holds(t, k), o.holds(e, k)) {
                (true, true) => Ok(Term::bool(true)),
                (false, false) => Ok(Term::bool(false)),
                (true, false) => Ok(c.clone()),
                (false, true) => Term::negation(c.clone()),
            };
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
            TermKind::Bool(_)
            | TermKind::Int(_)
            | TermKind::Long(_)
            | TermKind::Float(_)
            | TermKind::Double(_) => self.clone(),
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
            TermKind::Str(_) => self.clone(),
            TermKind::StrOp(op, args) => Term::make(
                TermKind::StrOp(*op, args.iter().map(|a| a.rename(map)).collect()),
                self.sort(),
            ),
        }
    }

    /// Renders the term in Java-like infix form, naming symbols with `name`.
    pub fn display<'a>(&'a self, name: &'a dyn Fn(SymbolId) -> String) -> TermDisplay<'a> {
        TermDisplay::new(self, name)
    }
}

/// The sort of a unary operation on an operand of `sort`, if it applies to it.
pub(crate) fn unary_sort(op: UnaryOp, sort: Sort) -> Option<Sort> {
    Some(match (op, sort) {
        (UnaryOp::Neg, s @ (Sort::Int | Sort::Long)) => s,
        (UnaryOp::Not, Sort::Bool) => Sort::Bool,
        (UnaryOp::I2L, Sort::Int) => Sort::Long,
        (UnaryOp::L2I, Sort::Long) => Sort::Int,
        (UnaryOp::I2B | UnaryOp::I2C | UnaryOp::I2S, Sort::Int) => Sort::Int,
        (UnaryOp::Neg | UnaryOp::Abs, s @ (Sort::Float | Sort::Double)) => s,
        (UnaryOp::I2F, Sort::Int) | (UnaryOp::L2F, Sort::Long) | (UnaryOp::D2F, Sort::Double) => {
            Sort::Float
        }
        (UnaryOp::I2D, Sort::Int)
        | (UnaryOp::L2D, Sort::Long)
        | (UnaryOp::F2D, Sort::Float)
        | (UnaryOp::Sqrt, Sort::Double) => Sort::Double,
        (UnaryOp::F2I | UnaryOp::F2Bits, Sort::Float) | (UnaryOp::D2I, Sort::Double) => Sort::Int,
        (UnaryOp::F2L, Sort::Float) | (UnaryOp::D2L | UnaryOp::D2Bits, Sort::Double) => Sort::Long,
        _ => return None,
    })
}

/// Do operands of these sorts fit a binary operation? Both of one sort, booleans only for the
/// logical operations, shift counts `int`.
fn binary_fits(op: BinaryOp, a: Sort, b: Sort) -> bool {
    let shift = matches!(op, BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Ushr);
    let logic = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
    let minmax = matches!(op, BinaryOp::Min | BinaryOp::Max);
    if a == Sort::Str || b == Sort::Str {
        false
    } else if a.is_fp() {
        !shift && !logic && a == b
    } else if minmax {
        false
    } else if shift {
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

#[cfg(test)]
#[path = "term_tests.rs"]
mod tests;
