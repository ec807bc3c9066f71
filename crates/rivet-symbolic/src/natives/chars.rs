//! `Character.isDigit(char)` and `Character.isWhitespace(char)` over char terms, so that a
//! string's characters classified by the JDK stay inputs a test can set (a black-box call's
//! fresh result is not one).

use std::sync::Arc;

use rivet_pc::{BinaryOp, CmpOp, Term};

use super::{finish, not_followed};
use crate::context::{Ctx, Split, Step};
use crate::error::SymbolicError;
use crate::interp;
use crate::program::MethodBody;
use crate::state::SymbolicState;
use crate::value::Value;

/// The first char past ASCII's `0`–`9` that `Character.isDigit` accepts (ARABIC-INDIC DIGIT
/// ZERO): below it, the ASCII digits are the only ones.
const FIRST_OTHER_DIGIT: i32 = 0x0660;

/// The chars `Character.isWhitespace` accepts, as inclusive ranges: the controls `\t`–`\r`
/// and `\u001C`–`\u001F`, and the Unicode space, line and paragraph separators other than
/// the non-breaking spaces U+00A0, U+2007 and U+202F.
const WHITESPACE: [(i32, i32); 8] = [
    (0x09, 0x0D),
    (0x1C, 0x20),
    (0x1680, 0x1680),
    (0x2000, 0x2006),
    (0x2008, 0x200A),
    (0x2028, 0x2029),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
];

/// `Character.isDigit(C)Z` or `Character.isWhitespace(C)Z` on `args[0]`. A symbolic digit
/// test assumes the char below [`FIRST_OTHER_DIGIT`] (the inputs it leaves out are
/// non-ASCII digits); past it, the call is not followed.
pub(super) fn char_class(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    target: &Arc<MethodBody>,
    args: &[Value],
) -> Result<Step, SymbolicError> {
    let Some(Value::Int(c)) = args.first() else {
        return not_followed(state, ctx, target);
    };
    let c = c.clone();
    let err = |e: rivet_pc::SortError| interp::method_error(target, e.to_string());
    let within = |lo: i32, hi: i32| -> Result<Term, rivet_pc::SortError> {
        let ge = Term::compare(CmpOp::Ge, c.clone(), Term::int(lo))?;
        let le = Term::compare(CmpOp::Le, c.clone(), Term::int(hi))?;
        Term::binary(BinaryOp::And, ge, le)
    };
    let holds = match &*target.name {
        "isDigit" => {
            let below =
                Term::compare(CmpOp::Lt, c.clone(), Term::int(FIRST_OTHER_DIGIT)).map_err(err)?;
            match ctx.split(state, below) {
                // The other side (a non-ASCII char) is left out: this state now assumes it.
                Split::True | Split::Both(_) => {}
                Split::False | Split::Bound => return not_followed(state, ctx, target),
            }
            within(i32::from(b'0'), i32::from(b'9')).map_err(err)?
        }
        _ => {
            let mut any = Term::bool(false);
            for (lo, hi) in WHITESPACE {
                let r = within(lo, hi).map_err(err)?;
                any = Term::binary(BinaryOp::Or, any, r).map_err(err)?;
            }
            any
        }
    };
    let v = Term::ite(holds, Term::int(1), Term::int(0)).map_err(err)?;
    finish(state, Some(Value::Int(v)))
}
