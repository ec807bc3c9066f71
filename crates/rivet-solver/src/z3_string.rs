//! Strings in Z3's sequence theory: string constants (escaped, so every UTF-16 unit is one
//! Z3 character), the operations of `rivet_pc::StrOp` with exactly the semantics of
//! `rivet_pc::string` (Java's `toString` of negative numbers, `parseDigits`' bound, ASCII
//! case mapping unrolled over strings up to `CASE_MAP_BOUND` units), and reading a string
//! symbol's value back from a model. Z3 4.8's API lacks `str.to_code`, `str.from_code`,
//! `str.to_int`, `str.from_int` and `str.indexof`: their declarations are taken, once per
//! thread, from a small SMT-LIB text Z3 parses.

use z3::ast::{Ast, Bool, Dynamic, Int, String as ZString};
use z3::FuncDecl;

use rivet_pc::JavaString;

/// Case mapping (`toLowerCase`/`toUpperCase` of ASCII letters) is spelled out unit by unit
/// for strings up to this length; longer strings are not models of such a clause.
pub const CASE_MAP_BOUND: i64 = 32;

/// The longest value of a string symbol in a model: Java tests need short strings, and Z3
/// 4.8 can spend minutes and gigabytes on an offset like `Integer.MAX_VALUE` into a string
/// of unbounded length (a bound makes such offsets plainly out of range).
pub const MAX_LENGTH: i64 = 512;

/// Strings longer than this are not read back from a model (the answer is then unknown).
const MAX_READ: i64 = 4096;

/// `s` is printable ASCII (the values tried first).
pub fn printable(s: &ZString) -> Option<Bool> {
    VOCABULARY.with(|v| v.as_ref().map(|v| v.in_re.apply(&[s, &v.ascii]).as_bool()))?
}

/// An upper bound of the length of string term `t` (symbols are at most `MAX_LENGTH`).
pub fn max_len(t: &rivet_pc::Term) -> i64 {
    use rivet_pc::{StrOp, TermKind};
    match t.kind() {
        TermKind::Str(s) => s.len() as i64,
        TermKind::StrOp(op, args) => {
            let arg = |k: usize| args.get(k).map_or(0, max_len);
            match op {
                StrOp::Concat => arg(0).saturating_add(arg(1)),
                StrOp::Substr => arg(0),
                StrOp::FromInt => 20,
                StrOp::FromChar => 1,
                StrOp::ToLowerAscii | StrOp::ToUpperAscii => arg(0).min(CASE_MAP_BOUND),
                _ => 0,
            }
        }
        TermKind::Ite(_, a, b) => max_len(a).max(max_len(b)),
        _ => MAX_LENGTH,
    }
}

/// What a string symbol's value must be: at most `MAX_LENGTH` units, each a basic-plane
/// character other than a surrogate (else Z3 may pick characters Java strings hold as
/// two units).
pub fn well_formed(s: &ZString) -> Option<Bool> {
    let plain =
        VOCABULARY.with(|v| v.as_ref().map(|v| v.in_re.apply(&[s, &v.plain]).as_bool()))??;
    Some(Bool::and(&[
        &s.length().le(Int::from_i64(MAX_LENGTH)),
        &plain,
    ]))
}

/// SMT-LIB's `str.substr`, with offset and count clamped to the string's length first (the
/// same value: Z3 4.8 otherwise unfolds a large constant offset).
pub fn substr(s: &ZString, offset: &Int, count: &Int) -> ZString {
    let len = s.length();
    let clamp = |x: &Int| x.le(&len).ite(x, &len);
    s.substr(clamp(offset), clamp(count))
}

/// SMT-LIB's `str.indexof`.
pub fn index_of(s: &ZString, t: &ZString, from: &Int) -> Option<Int> {
    let len = s.length();
    let from_clamped = from.le(&len).ite(from, &len);
    let found = apply(|v| &v.index_of, &[s, t, &from_clamped])?.as_int()?;
    Some(from.le(&len).ite(&found, &Int::from_i64(-1)))
}

/// The declarations the crate does not wrap.
struct Vocabulary {
    to_code: FuncDecl,
    from_code: FuncDecl,
    to_int: FuncDecl,
    from_int: FuncDecl,
    index_of: FuncDecl,
    in_re: FuncDecl,
    /// Strings of basic-plane characters other than surrogates (what a Java string of
    /// whole characters holds, unit for unit).
    plain: Dynamic,
    /// Strings of printable ASCII.
    ascii: Dynamic,
}

const TEMPLATE: &str = "(declare-fun s () String)(declare-fun t () String)(declare-fun i () Int)
(assert (= (str.to_code s) i))
(assert (= (str.from_code i) s))
(assert (= (str.to_int s) i))
(assert (= (str.from_int i) s))
(assert (= (str.indexof s t i) i))
(assert (str.in_re s (re.* (re.union (re.range \"\\u{0}\" \"\\u{d7ff}\") (re.range \"\\u{e000}\" \"\\u{ffff}\")))))
(assert (str.in_re s (re.* (re.range \" \" \"~\"))))";

fn vocabulary() -> Option<Vocabulary> {
    let solver = z3::Solver::new();
    solver.from_string(TEMPLATE);
    let assertions = solver.get_assertions();
    let decl = |k: usize| -> Option<FuncDecl> {
        let eq = assertions.get(k)?;
        let lhs = eq.nth_child(0)?;
        lhs.safe_decl().ok()
    };
    let membership = assertions.get(5)?;
    Some(Vocabulary {
        to_code: decl(0)?,
        from_code: decl(1)?,
        to_int: decl(2)?,
        from_int: decl(3)?,
        index_of: decl(4)?,
        in_re: membership.safe_decl().ok()?,
        plain: membership.nth_child(1)?,
        ascii: assertions.get(6)?.nth_child(1)?,
    })
}

thread_local! {
    static VOCABULARY: Option<Vocabulary> = vocabulary();
}

fn apply(pick: fn(&Vocabulary) -> &FuncDecl, args: &[&dyn Ast]) -> Option<Dynamic> {
    VOCABULARY.with(|v| v.as_ref().map(|v| pick(v).apply(args)))
}

/// The escaped text Z3 reads as exactly these units (printable ASCII as is, the rest as
/// `\u{..}`).
fn escaped(s: &JavaString) -> std::string::String {
    let mut out = std::string::String::with_capacity(s.len());
    for &u in s.units() {
        match u {
            0x20..=0x7e if u != 0x5c => out.push(char::from(u as u8)),
            _ => out.push_str(&format!("\\u{{{u:x}}}")),
        }
    }
    out
}

/// A string constant.
pub fn constant(s: &JavaString) -> Option<ZString> {
    use std::str::FromStr;
    ZString::from_str(&escaped(s)).ok()
}

/// The code of the unit at `i`, or -1 out of range (guarded: Z3 4.8 gives up on `str.at`
/// at a large constant index).
pub fn char_at(s: &ZString, i: &Int) -> Option<Int> {
    let code = apply(|v| &v.to_code, &[&s.at(i.clone())])?.as_int()?;
    let inside = Bool::and(&[&i.ge(Int::from_i64(0)), &i.lt(s.length())]);
    Some(inside.ite(&code, &Int::from_i64(-1)))
}

/// The one-unit string of code `c` in `[0, 0xFFFF]`, else empty.
pub fn from_char(c: &Int) -> Option<ZString> {
    let unit = apply(|v| &v.from_code, &[c])?.as_string()?;
    let inside = Bool::and(&[&c.ge(Int::from_i64(0)), &c.le(Int::from_i64(0xffff))]);
    Some(inside.ite(&unit, &empty()?))
}

fn empty() -> Option<ZString> {
    constant(&JavaString::default())
}

/// Java's `toString` of an integer value.
pub fn from_int(n: &Int) -> Option<ZString> {
    let plain = apply(|v| &v.from_int, &[n])?.as_string()?;
    let negated = apply(|v| &v.from_int, &[&n.unary_minus()])?.as_string()?;
    let minus = constant(&JavaString::from("-"))?;
    let signed = ZString::concat(&[minus, negated]);
    Some(n.ge(Int::from_i64(0)).ite(&plain, &signed))
}

/// The value of a non-empty string of ASCII digits up to `i64::MAX`, else -1.
pub fn parse_digits(s: &ZString) -> Option<Int> {
    let v = apply(|v| &v.to_int, &[s])?.as_int()?;
    Some(v.le(Int::from_i64(i64::MAX)).ite(&v, &Int::from_i64(-1)))
}

/// ASCII case mapping of `s` as a fresh string `r` with the constraints that define it,
/// pushed onto `side`: `|r| = |s| <= CASE_MAP_BOUND`, and each unit of `r` the unit of `s`
/// with a letter of the mapped case replaced, spelled as string equalities (Z3 4.8 solves
/// these where arithmetic on `str.to_code` makes it give up).
pub fn case_map(s: &ZString, lower: bool, fresh: u32, side: &mut Vec<Bool>) -> Option<ZString> {
    let r = ZString::new_const(format!("case{fresh}"));
    side.push(r.length().eq(s.length()));
    side.push(s.length().le(Int::from_i64(CASE_MAP_BOUND)));
    let (from, to) = if lower { (b'A', b'a') } else { (b'a', b'A') };
    let letters: Vec<(ZString, ZString)> = (0..26u8)
        .map(|k| {
            let one = |c: u8| constant(&JavaString::from_units(&[u16::from(c + k)]));
            Some((one(from)?, one(to)?))
        })
        .collect::<Option<_>>()?;
    for i in 0..CASE_MAP_BOUND {
        let unit = s.at(Int::from_i64(i));
        let mapped = letters
            .iter()
            .fold(unit.clone(), |rest, (x, y)| unit.eq(x).ite(y, &rest));
        side.push(r.at(Int::from_i64(i)).eq(&mapped));
    }
    Some(r)
}

/// A string symbol's value in `model`, if it is one a Java string can hold (every unit
/// `<= 0xFFFF`, at most `MAX_READ` units).
pub fn read(model: &z3::Model, s: &ZString) -> Option<JavaString> {
    let len = model.eval(&s.length(), true)?.as_i64()?;
    if !(0..=MAX_READ).contains(&len) {
        return None;
    }
    let mut units = Vec::with_capacity(len as usize);
    for i in 0..len {
        let code = model
            .eval(&char_at(s, &Int::from_i64(i))?, true)?
            .as_i64()?;
        units.push(u16::try_from(code).ok()?);
    }
    Some(JavaString::from_units(&units))
}
