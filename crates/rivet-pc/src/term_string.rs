//! String terms: constants, the folding constructor of the string operations (folding
//! exactly as `string::eval_str_op` computes), and equality of strings.

use std::sync::Arc;

use crate::eval::Concrete;
use crate::string::{eval_str_op, JavaString, StrArg, StrOp};
use crate::term::{CmpOp, Sort, SortError, Term, TermKind};

/// The result sort of `op` on `args`, or the error naming the misfit.
pub(crate) fn check_operands(op: StrOp, args: &[Term]) -> Result<Sort, SortError> {
    let wanted = op.operands();
    let misfit = |left: Sort, right: Sort| SortError {
        op: op.name(),
        left,
        right,
    };
    if wanted.len() != args.len() {
        let first = args.first().map_or(Sort::Str, Term::sort);
        return Err(misfit(first, first));
    }
    for (w, a) in wanted.iter().zip(args) {
        let fits = match w {
            StrArg::Str => a.sort() == Sort::Str,
            StrArg::Int => a.sort() == Sort::Int,
            StrArg::Integral => matches!(a.sort(), Sort::Int | Sort::Long),
        };
        if !fits {
            let expected = match w {
                StrArg::Str => Sort::Str,
                StrArg::Int | StrArg::Integral => Sort::Int,
            };
            return Err(misfit(a.sort(), expected));
        }
    }
    Ok(op.result())
}

impl Term {
    /// A string constant.
    pub fn string(text: JavaString) -> Term {
        Term::make(TermKind::Str(text), Sort::Str)
    }

    /// A string constant from Rust text.
    pub fn str_const(text: &str) -> Term {
        Term::string(JavaString::from(text))
    }

    /// The constant value of a string term, if it is one.
    pub fn as_string(&self) -> Option<&JavaString> {
        match self.kind() {
            TermKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A string operation; folds when every operand is a constant, and drops concatenations
    /// with the empty string.
    pub fn string_op(op: StrOp, args: Vec<Term>) -> Result<Term, SortError> {
        let sort = check_operands(op, &args)?;
        let constants: Option<Vec<Concrete>> = args.iter().map(Term::as_concrete).collect();
        if let Some(values) = constants {
            if let Some(v) = eval_str_op(op, &values) {
                return Ok(Term::from_concrete(v));
            }
        }
        if op == StrOp::Concat {
            match (args[0].as_string(), args[1].as_string()) {
                (Some(e), _) if e.is_empty() => return Ok(args[1].clone()),
                (_, Some(e)) if e.is_empty() => return Ok(args[0].clone()),
                _ => {}
            }
        }
        Ok(Term::make(TermKind::StrOp(op, Arc::from(args)), sort))
    }
}

/// `a == b` or `a != b` on strings (other comparisons are refused by `Term::compare`).
pub(crate) fn str_compare(op: CmpOp, a: Term, b: Term) -> Result<Term, SortError> {
    if let (Some(x), Some(y)) = (a.as_string(), b.as_string()) {
        return Ok(Term::bool((x == y) == (op == CmpOp::Eq)));
    }
    if a == b {
        return Ok(Term::bool(op == CmpOp::Eq));
    }
    Ok(Term::make(TermKind::Compare(op, a, b), Sort::Bool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::{SymbolId, SymbolSort};

    #[test]
    fn constants_fold_and_operands_are_checked() {
        let hello = Term::str_const("hello");
        let five = Term::string_op(StrOp::Length, vec![hello.clone()]);
        assert_eq!(five, Ok(Term::int(5)));
        let s = Term::var(SymbolId(0), SymbolSort::Str);
        let cat = Term::string_op(StrOp::Concat, vec![s.clone(), Term::str_const("")]);
        assert_eq!(cat, Ok(s.clone()));
        assert!(Term::string_op(StrOp::CharAt, vec![s.clone(), Term::long(1)]).is_err());
        assert!(Term::string_op(StrOp::Length, vec![Term::int(1)]).is_err());
        assert!(Term::compare(CmpOp::Lt, s.clone(), hello.clone()).is_err());
        assert_eq!(
            Term::compare(CmpOp::Ne, hello.clone(), Term::str_const("hello")),
            Ok(Term::bool(false))
        );
        let eq = Term::compare(CmpOp::Eq, s, hello);
        assert!(matches!(eq.map(|t| t.sort()), Ok(Sort::Bool)));
    }
}
