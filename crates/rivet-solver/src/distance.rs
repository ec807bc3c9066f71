//! Branch distance of `rivet-pc` clauses under a model, evaluated in Rust (Korel's and
//! Tracey's distances, composed through `!`, `&&`, `||`, `^` and `ite`): 0 exactly when the
//! clause holds, larger the further the model is from making it hold. Comparisons of floats
//! and doubles follow Java's semantics (every comparison with NaN is false except `!=`,
//! `-0.0 == 0.0`). The alternating variable method (`avm`) minimises their sum.

use rivet_pc::{BinaryOp, CmpOp, Concrete, Model, Sort, StrOp, Term, TermKind, UnaryOp};

/// The distance of a false comparison that has no numeric gap to close (a NaN operand, a
/// boolean, `!=` of equal values), and the constant Tracey adds to strict comparisons.
pub const K: f64 = 1.0;

/// `d / (d + 1)`: a distance in `[0, 1)`, monotone, exact near 0 (so tiny floating-point
/// gaps still count); infinity and NaN map to 1.
pub fn normalize(d: f64) -> f64 {
    if d.is_nan() || d.is_infinite() {
        1.0
    } else if d <= 0.0 {
        0.0
    } else {
        d / (d + 1.0)
    }
}

/// The sum over `clauses` of each clause's normalized distance to true: 0 exactly when the
/// model satisfies every clause (up to the rounding of large integer gaps, so callers confirm
/// with `Model::satisfies`).
pub fn fitness(model: &Model, clauses: &[Term]) -> f64 {
    clauses
        .iter()
        .map(|c| normalize(distance(model, c, true)))
        .sum()
}

/// How far `term` (a boolean term) is from evaluating to `want` under `model`.
pub fn distance(model: &Model, term: &Term, want: bool) -> f64 {
    match term.kind() {
        TermKind::Bool(b) => flat(*b == want),
        TermKind::Unary(UnaryOp::Not, a) if a.sort() == Sort::Bool => distance(model, a, !want),
        TermKind::Binary(op, a, b) if a.sort() == Sort::Bool => {
            let (da, db) = (|w| distance(model, a, w), |w| distance(model, b, w));
            match (op, want) {
                (BinaryOp::And, true) | (BinaryOp::Or, false) => da(want) + db(want),
                (BinaryOp::And, false) | (BinaryOp::Or, true) => da(want).min(db(want)),
                // Xor: one side true and the other false (want) or both alike (not want).
                (_, true) => (da(true) + db(false)).min(da(false) + db(true)),
                (_, false) => (da(true) + db(true)).min(da(false) + db(false)),
            }
        }
        TermKind::Ite(c, a, b) if a.sort() == Sort::Bool => {
            let then = distance(model, c, true) + distance(model, a, want);
            let other = distance(model, c, false) + distance(model, b, want);
            then.min(other)
        }
        TermKind::Compare(op, a, b) => {
            let wanted = if want { *op } else { negated(*op) };
            let (x, y) = (model.eval(a), model.eval(b));
            // `!(x < y)` on floats is not `x >= y` when one is NaN: the negated comparison
            // then holds.
            let nan = is_nan(&x) || is_nan(&y);
            if nan {
                // No gap to close: flat (the special values are probed when stuck).
                return flat(want == (*op == CmpOp::Ne));
            }
            if let (Concrete::Str(a), Concrete::Str(b)) = (&x, &y) {
                return string_distance(wanted, a.units(), b.units());
            }
            compare_distance(wanted, &x, &y)
        }
        TermKind::StrOp(op @ (StrOp::StartsWith | StrOp::EndsWith | StrOp::Contains), args)
            if want =>
        {
            let (Some(Concrete::Str(s)), Some(Concrete::Str(t))) = (
                args.first().map(|a| model.eval(a)),
                args.get(1).map(|a| model.eval(a)),
            ) else {
                return flat(model.eval(term) == Concrete::Bool(want));
            };
            affix_distance(*op, s.units(), t.units())
        }
        // Any other boolean term: true or false as evaluated, no gradient.
        _ => flat(model.eval(term) == Concrete::Bool(want)),
    }
}

fn flat(holds: bool) -> f64 {
    if holds {
        0.0
    } else {
        K
    }
}

fn negated(op: CmpOp) -> CmpOp {
    op.negate()
}

fn is_nan(c: &Concrete) -> bool {
    c.as_f64().is_some_and(f64::is_nan)
}

/// `x - y` as a double: exact for `int`s, close for `long`s (no overflow), IEEE for floats.
fn gap(x: &Concrete, y: &Concrete) -> f64 {
    match (x, y) {
        (Concrete::Long(a), Concrete::Long(b)) => (i128::from(*a) - i128::from(*b)) as f64,
        (Concrete::Int(a), Concrete::Int(b)) => f64::from(*a) - f64::from(*b),
        _ => {
            let d = x.as_number() - y.as_number();
            if d.is_nan() {
                // inf - inf: the operands are equal infinities.
                0.0
            } else {
                d
            }
        }
    }
}

/// The distance of a string (in)equality to true: the edit distance between the strings
/// for `==` (each substitution weighted by how far apart the two units are, normalized, as
/// EvoSuite's string distance), `K` for `!=` of equal strings.
fn string_distance(op: CmpOp, a: &[u16], b: &[u16]) -> f64 {
    let equal = a == b;
    match op {
        CmpOp::Ne => flat(!equal),
        _ if equal => 0.0,
        _ => {
            // Levenshtein over units, substitutions costing the normalized unit gap.
            let mut row: Vec<f64> = (0..=b.len()).map(|j| j as f64).collect();
            for (i, &ca) in a.iter().enumerate() {
                let mut diagonal = row[0];
                row[0] = (i + 1) as f64;
                for (j, &cb) in b.iter().enumerate() {
                    let substitute = if ca == cb {
                        0.0
                    } else {
                        normalize((f64::from(ca) - f64::from(cb)).abs())
                    };
                    let next = (diagonal + substitute)
                        .min(row[j] + 1.0)
                        .min(row[j + 1] + 1.0);
                    diagonal = row[j + 1];
                    row[j + 1] = next;
                }
            }
            row[b.len()].max(f64::MIN_POSITIVE)
        }
    }
}

/// How far `s` is from starting with, ending with or containing `t`: the string distance of
/// `t` from the part of `s` where it should be (the best window for `contains`).
fn affix_distance(op: StrOp, s: &[u16], t: &[u16]) -> f64 {
    let n = t.len().min(s.len());
    match op {
        StrOp::StartsWith => string_distance(CmpOp::Eq, &s[..n], t),
        StrOp::EndsWith => string_distance(CmpOp::Eq, &s[s.len() - n..], t),
        _ => {
            if s.len() < t.len() {
                return string_distance(CmpOp::Eq, s, t);
            }
            (0..=s.len() - t.len())
                .map(|i| string_distance(CmpOp::Eq, &s[i..i + t.len()], t))
                .fold(f64::INFINITY, f64::min)
        }
    }
}

/// The distance of `x op y` (no NaN operand) to true.
fn compare_distance(op: CmpOp, x: &Concrete, y: &Concrete) -> f64 {
    let holds = match (x, y) {
        (Concrete::Long(a), Concrete::Long(b)) => op.holds(a, b),
        (Concrete::Int(a), Concrete::Int(b)) => op.holds(a, b),
        (Concrete::Bool(a), Concrete::Bool(b)) => op.holds(a, b),
        _ => {
            let (a, b) = (x.as_number(), y.as_number());
            op.holds(a, b)
        }
    };
    if holds {
        return 0.0;
    }
    let d = gap(x, y);
    // Integers: `x < y` is `x - y + 1 <= 0`. Floats and doubles have no next value to step
    // to by 1: their strict comparisons add nothing, so the distance stays continuous at the
    // boundary (a cliff of K there traps the search when another clause pulls back).
    let k = if matches!(x, Concrete::Float(_) | Concrete::Double(_)) {
        0.0
    } else {
        K
    };
    let out = match op {
        CmpOp::Eq => d.abs(),
        CmpOp::Ne => K,
        // x < y false: x >= y, distance x - y + K.
        CmpOp::Lt => d + k,
        CmpOp::Le => d,
        CmpOp::Gt => -d + k,
        CmpOp::Ge => -d,
    };
    // Gaps too small to see (huge operands of a float comparison) still count.
    if out > 0.0 {
        out
    } else {
        f64::MIN_POSITIVE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_pc::{SymbolId, SymbolSort};

    fn d(v: f64) -> Term {
        Term::double(v)
    }

    fn x() -> Term {
        Term::var(SymbolId(0), SymbolSort::Double)
    }

    fn cmp(op: CmpOp, a: Term, b: Term) -> Term {
        Term::compare(op, a, b).unwrap_or_else(|e| panic!("{e}"))
    }

    fn with(v: f64) -> Model {
        let mut m = Model::new();
        m.set(SymbolId(0), v.to_bits() as i64);
        m
    }

    #[test]
    fn distance_shrinks_towards_the_boundary() {
        let c = cmp(CmpOp::Gt, x(), d(10.0));
        assert_eq!(distance(&with(11.0), &c, true), 0.0);
        let far = distance(&with(0.0), &c, true);
        let near = distance(&with(9.0), &c, true);
        assert!(near < far && near > 0.0);
        assert!(distance(&with(10.0), &c, true) > 0.0);
    }

    #[test]
    fn nan_makes_every_comparison_false_but_ne() {
        let m = with(f64::NAN);
        for op in [CmpOp::Eq, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge] {
            let c = cmp(op, x(), d(1.0));
            assert_eq!(distance(&m, &c, true), K, "{op:?}");
            assert_eq!(distance(&m, &c, false), 0.0, "{op:?}");
            let not = Term::unary(UnaryOp::Not, c).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(distance(&m, &not, true), 0.0, "{op:?}");
        }
        let ne = cmp(CmpOp::Ne, x(), d(1.0));
        assert_eq!(distance(&m, &ne, true), 0.0);
    }

    #[test]
    fn conjunction_and_disjunction_compose() {
        let a = cmp(CmpOp::Gt, x(), d(10.0));
        let b = cmp(CmpOp::Lt, x(), d(0.0));
        let or = Term::binary(BinaryOp::Or, a.clone(), b.clone()).unwrap_or_else(|e| panic!("{e}"));
        let and = Term::binary(BinaryOp::And, a, b).unwrap_or_else(|e| panic!("{e}"));
        let m = with(8.0);
        assert!(distance(&m, &or, true) > 0.0);
        assert!(distance(&m, &or, true) < distance(&m, &and, true));
        assert_eq!(distance(&with(-1.0), &or, true), 0.0);
    }

    #[test]
    fn zero_fitness_means_satisfied() {
        let c = [cmp(CmpOp::Ge, x(), d(-0.0)), cmp(CmpOp::Le, x(), d(0.0))];
        let m = with(0.0);
        assert_eq!(fitness(&m, &c), 0.0);
        assert!(m.satisfies(&c));
    }
}
