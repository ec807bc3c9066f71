//! Strings that are program text (a script a parser takes, `parseTestCode("function f(){…}")`):
//! which constants look like one, and syntax-aware mutations that keep them near parseable —
//! a statement moved in from another text, dropped or repeated, an identifier renamed to
//! another of the texts' identifiers, a number changed — on tokens and brackets, not bytes.

use rivet_rng::Rng;

use crate::class_api::{Callable, CallableKind};
use crate::snippets::{self, EXPRESSIONS, OPERATORS, STATEMENTS};

/// Most source texts kept from the harvested classes (the shortest first: small programs
/// mutate into the shapes branches need more easily than long ones).
pub const MAX_SOURCE_TEXTS: usize = 64;

/// Longest source text kept, in characters.
const MAX_SOURCE_LEN: usize = 600;

/// Does `s` look like program text: words and at least one statement or block, with its
/// brackets balanced? `var t;`, `function f(a) {return a}` do; an error message, a format
/// pattern (`{0}`) or a CSS rule list does not (most of the time).
pub fn looks_like_source(s: &str) -> bool {
    let n = s.chars().count();
    let control = s
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'));
    if !(4..=MAX_SOURCE_LEN).contains(&n) || control || s.contains("%s") || !balanced(s) {
        return false;
    }
    let toks = tokens(s);
    let words = toks.iter().filter(|t| t.kind == Kind::Ident).count();
    let has = |p: &str| {
        toks.iter()
            .any(|t| t.kind == Kind::Punct && &s[t.start..t.end] == p)
    };
    let statement = has(";") || (has("{") && has("(")) || (has("=") && has("("));
    // Prose: more words than punctuation and a sentence's full stop or colon.
    let punct = toks.iter().filter(|t| t.kind == Kind::Punct).count();
    // A colon without a block or a conditional (`a?b:c`, not a regular expression's `(?:`) is
    // a label's or a message's.
    let conditional = has("?") && !s.contains("(?");
    let prose = words > 2 * punct || has(":") && !has("{") && !conditional || s.contains(". ");
    words >= 1 && statement && !prose && !s.contains("{0}")
}

/// Is `p` a bracket (kept by the mutations that drop operators, so that brackets stay
/// balanced)?
fn is_bracket(p: &str) -> bool {
    matches!(p, "(" | ")" | "[" | "]" | "{" | "}")
}

/// Does `c` look like a parser of program text: one `String` parameter, and a name that says
/// so (`parseTestCode`, `parse`, `fromString`, `compile`, `…Source`, `…Script`)?
pub fn parses_text(c: &Callable) -> bool {
    const WORDS: &[&str] = &[
        "parse",
        "compile",
        "fromstring",
        "code",
        "source",
        "script",
        "text",
    ];
    let name = c.member.name.to_ascii_lowercase();
    matches!(c.params.as_slice(), [p] if p.is_string())
        && c.kind != CallableKind::FieldWrite
        && WORDS.iter().any(|w| name.contains(w))
}

/// The kind of a token of program text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Quoted,
    Punct,
    Space,
}

/// A token: its kind and byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// Splits program text into identifiers, numbers, quoted strings (regular expression literals
/// among them), single punctuation characters and runs of white space.
fn tokens(s: &str) -> Vec<Token> {
    let b: Vec<(usize, char)> = s.char_indices().collect();
    let end_of = |i: usize| b.get(i).map_or(s.len(), |(o, _)| *o);
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (start, c) = b[i];
        let mut j = i + 1;
        let kind = if c.is_alphabetic() || c == '_' || c == '$' {
            while j < b.len() && (b[j].1.is_alphanumeric() || b[j].1 == '_' || b[j].1 == '$') {
                j += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() {
            while j < b.len() && (b[j].1.is_ascii_alphanumeric() || b[j].1 == '.') {
                j += 1;
            }
            Kind::Number
        } else if c == '"' || c == '\'' {
            while j < b.len() && b[j].1 != c {
                j += if b[j].1 == '\\' { 2 } else { 1 };
            }
            j = (j + 1).min(b.len());
            Kind::Quoted
        } else if let Some(end) = (c == '/' && regex_may_start(s, &out))
            .then(|| regex_end(&b, i))
            .flatten()
        {
            j = end;
            Kind::Quoted
        } else if c.is_whitespace() {
            while j < b.len() && b[j].1.is_whitespace() {
                j += 1;
            }
            Kind::Space
        } else {
            Kind::Punct
        };
        out.push(Token {
            kind,
            start,
            end: end_of(j),
        });
        i = j;
    }
    out
}

/// May a `/` after the tokens `before` open a regular expression literal (`/a(b/`)? Where an
/// operand is expected: at the start, after an operator or an opening bracket, or after
/// `return`; after an operand it divides.
fn regex_may_start(s: &str, before: &[Token]) -> bool {
    match before.iter().rev().find(|t| t.kind != Kind::Space) {
        None => true,
        Some(t) => match t.kind {
            Kind::Punct => !matches!(&s[t.start..t.end], ")" | "]" | "}"),
            Kind::Ident => matches!(&s[t.start..t.end], "return" | "typeof"),
            _ => false,
        },
    }
}

/// Where a regular expression literal opened by the `/` at `b[i]` ends (past its flags), if
/// it closes on the same line.
fn regex_end(b: &[(usize, char)], i: usize) -> Option<usize> {
    if matches!(b.get(i + 1), Some((_, '/' | '*'))) {
        return None;
    }
    let mut j = i + 1;
    let mut in_class = false;
    while j < b.len() && b[j].1 != '\n' {
        match b[j].1 {
            '\\' => j += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '/' if !in_class => {
                j += 1;
                while j < b.len() && b[j].1.is_ascii_alphabetic() {
                    j += 1;
                }
                return Some(j);
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// Are the text's (), [] and {} balanced and properly nested (quoted strings aside)?
fn balanced(s: &str) -> bool {
    let mut stack = Vec::new();
    for t in tokens(s) {
        if t.kind != Kind::Punct {
            continue;
        }
        match &s[t.start..t.end] {
            "(" => stack.push(')'),
            "[" => stack.push(']'),
            "{" => stack.push('}'),
            c @ (")" | "]" | "}") if stack.pop().map(String::from).as_deref() != Some(c) => {
                return false;
            }
            _ => {}
        }
    }
    stack.is_empty()
}

/// The statements of a text as byte ranges, at every nesting level: a statement starts at the
/// text's start or after `;`, `{` or `}`, and ends with its `;`, with the `}` that closes a
/// block it opened (`function f() {…}`, `if (x) {…}`), or before the `}` closing the block
/// around it.
fn statements(s: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let punct = |t: &Token| (t.kind == Kind::Punct).then(|| &s[t.start..t.end]);
    let mut starts = vec![0];
    for (i, t) in toks.iter().enumerate() {
        if matches!(punct(t), Some(";" | "{" | "}")) {
            starts.push(i + 1);
        }
    }
    let mut out = Vec::new();
    for first in starts {
        let mut i = first;
        while i < toks.len() && toks[i].kind == Kind::Space {
            i += 1;
        }
        if i >= toks.len() {
            continue;
        }
        let begin = toks[i].start;
        let mut depth = 0i32;
        let mut opened_block = false;
        let mut end = None;
        for t in &toks[i..] {
            match punct(t) {
                Some("(" | "[") => depth += 1,
                Some(")" | "]") => depth -= 1,
                Some("{") => {
                    depth += 1;
                    opened_block = true;
                }
                Some("}") => {
                    depth -= 1;
                    if depth < 0 {
                        end = Some(t.start);
                        break;
                    }
                    if depth == 0 && opened_block {
                        end = Some(t.end);
                        break;
                    }
                }
                Some(";") if depth == 0 => {
                    end = Some(t.end);
                    break;
                }
                _ => {}
            }
        }
        let end = end.unwrap_or(s.len());
        if s[begin..end].trim().len() > 1 && !out.contains(&(begin, end)) {
            out.push((begin, end));
        }
    }
    out
}

/// Byte offsets where a statement may go: the text's start and end, and after each `;`, `{`
/// and `}`.
fn insertion_points(s: &str, toks: &[Token]) -> Vec<usize> {
    let mut out = vec![0];
    for t in toks {
        if t.kind == Kind::Punct && matches!(&s[t.start..t.end], ";" | "{" | "}") {
            out.push(t.end);
        }
    }
    out.push(s.len());
    out
}

/// The identifiers of a text, keywords among them.
fn identifiers<'s>(s: &'s str, toks: &[Token]) -> Vec<&'s str> {
    let mut out: Vec<&str> = toks
        .iter()
        .filter(|t| t.kind == Kind::Ident)
        .map(|t| &s[t.start..t.end])
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The identifiers of a text that name something (keywords left out).
fn names<'s>(s: &'s str, toks: &[Token]) -> Vec<&'s str> {
    let mut out = identifiers(s, toks);
    out.retain(|n| !snippets::KEYWORDS.contains(n));
    out
}

/// A fresh small program (see [`snippets::program`]) over the names of `donor`.
pub fn fresh_program(rng: &mut Rng, donor: &str) -> String {
    snippets::program(rng, &names(donor, &tokens(donor)))
}

/// The program texts of a script file (a resource shipped with a package): its top-level
/// statements, comments taken out and white space shortened, each that looks like program
/// text and is at most [`MAX_SOURCE_LEN`] long. A file that is no program gives none.
pub fn texts_of_script(file: &str) -> Vec<String> {
    let s = without_comments(file);
    let mut out: Vec<String> = Vec::new();
    for (a, b) in top_level_statements(&s, &tokens(&s)) {
        let text = s[a..b].trim();
        if text.chars().count() <= MAX_SOURCE_LEN
            && looks_like_source(text)
            && !out.iter().any(|o| o == text)
        {
            out.push(text.to_string());
        }
    }
    out
}

/// The statements of a script at its top level, as byte ranges: one ends with a `;` outside
/// brackets, or with a `}` back at the top level when what follows does not continue it (an
/// `else`, `catch`, `finally`, `while`, an operator or a `;`).
fn top_level_statements(s: &str, toks: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut begin: Option<usize> = None;
    for (i, t) in toks.iter().enumerate() {
        if t.kind == Kind::Space {
            continue;
        }
        let start = *begin.get_or_insert(t.start);
        let p = (t.kind == Kind::Punct).then(|| &s[t.start..t.end]);
        match p {
            Some("(" | "[" | "{") => depth += 1,
            Some(")" | "]") => depth -= 1,
            Some("}") => {
                depth -= 1;
                let next = toks[i + 1..].iter().find(|n| n.kind != Kind::Space);
                let continued = next.is_some_and(|n| {
                    let word = &s[n.start..n.end];
                    matches!(word, "else" | "catch" | "finally" | "while")
                        || (n.kind == Kind::Punct && !matches!(word, "{" | "}"))
                });
                if depth == 0 && !continued {
                    out.push((start, t.end));
                    begin = None;
                }
            }
            Some(";") if depth == 0 => {
                out.push((start, t.end));
                begin = None;
            }
            _ => {}
        }
        if depth < 0 {
            depth = 0;
            begin = None;
        }
    }
    if let Some(start) = begin {
        out.push((start, s.len()));
    }
    out
}

/// `s` without `/* */` and `//` comments (outside quoted strings), each run of white space
/// one space, or one line break where it had one.
fn without_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    let mut quote: Option<char> = None;
    let mut space: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' {
                out.extend(chars.next());
            } else if c == q || c == '\n' {
                quote = None;
            }
            continue;
        }
        let comment = match (c, chars.peek()) {
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        break;
                    }
                    last = d;
                }
                true
            }
            ('/', Some('/')) => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
                space = Some('\n');
                true
            }
            _ => false,
        };
        if comment || c.is_whitespace() {
            if !comment {
                space = Some(if c == '\n' || space == Some('\n') {
                    '\n'
                } else {
                    ' '
                });
            } else if space.is_none() {
                space = Some(' ');
            }
            continue;
        }
        if let Some(sp) = space.take() {
            if !out.is_empty() {
                out.push(sp);
            }
        }
        if matches!(c, '"' | '\'' | '`') {
            quote = Some(c);
        }
        out.push(c);
    }
    out
}

/// A syntax-aware mutation of program text `s`, with `donor` (another text, or `s` itself)
/// giving statements and identifiers; None when the chosen mutation does not apply.
pub fn mutate_source(rng: &mut Rng, s: &str, donor: &str) -> Option<String> {
    let toks = tokens(s);
    let donor_toks = tokens(donor);
    match rng.below(10) {
        // A statement of the donor, or a statement of the C family with a name of the text,
        // put where a statement may start.
        0 | 1 => {
            let at = *rng.pick(&insertion_points(s, &toks))?;
            let roll = rng.unit();
            let mut piece = if roll < 0.45 {
                let name = *rng.pick(&names(s, &toks))?;
                if roll < 0.2 {
                    rng.pick(STATEMENTS)?.replace('@', name)
                } else {
                    snippets::statement(rng, name)
                }
            } else {
                let (a, b) = *rng.pick(&statements(donor, &donor_toks))?;
                donor[a..b].to_string()
            };
            if !piece.ends_with(';') && !piece.ends_with('}') {
                piece.push(';');
            }
            Some(format!("{}{piece}{}", &s[..at], &s[at..]))
        }
        // A statement dropped.
        2 => {
            let (a, b) = *rng.pick(&statements(s, &toks))?;
            Some(format!("{}{}", &s[..a], &s[b..]))
        }
        // One occurrence of an identifier renamed to another (of the text or the donor): a
        // use becomes a use of another variable, a property write a variable write.
        3 | 4 => {
            let sites: Vec<&Token> = toks.iter().filter(|t| t.kind == Kind::Ident).collect();
            let site = **rng.pick(&sites)?;
            let mut names = identifiers(s, &toks);
            names.extend(identifiers(donor, &donor_toks));
            let name = *rng.pick(&names)?;
            Some(format!("{}{name}{}", &s[..site.start], &s[site.end..]))
        }
        // An operator put after an identifier or a number (`x=y` to `x+=y`, `x` to `x++`),
        // or an operator token dropped.
        6 | 7 => {
            let after: Vec<&Token> = toks
                .iter()
                .filter(|t| matches!(t.kind, Kind::Number | Kind::Ident))
                .collect();
            if rng.chance(0.75) {
                let site = **rng.pick(&after)?;
                let op = rng.pick(OPERATORS)?;
                Some(format!("{}{op}{}", &s[..site.end], &s[site.end..]))
            } else {
                let ops: Vec<&Token> = toks
                    .iter()
                    .filter(|t| t.kind == Kind::Punct && !is_bracket(&s[t.start..t.end]))
                    .collect();
                let site = **rng.pick(&ops)?;
                Some(format!("{}{}", &s[..site.start], &s[site.end..]))
            }
        }
        // An operand (a name or a number) put into an expression, or replaced by a literal.
        8 => {
            let sites: Vec<&Token> = toks
                .iter()
                .filter(|t| matches!(t.kind, Kind::Number | Kind::Ident))
                .collect();
            let site = **rng.pick(&sites)?;
            let operand = &s[site.start..site.end];
            let expression = if rng.chance(0.5) {
                rng.pick(EXPRESSIONS)?.replace('@', operand)
            } else {
                snippets::expression(rng, operand, 0)
            };
            Some(format!(
                "{}{expression}{}",
                &s[..site.start],
                &s[site.end..]
            ))
        }
        // A number changed, or an identifier's use replaced by a number.
        _ => {
            let sites: Vec<&Token> = toks
                .iter()
                .filter(|t| matches!(t.kind, Kind::Number | Kind::Ident))
                .collect();
            let site = **rng.pick(&sites)?;
            let n = rng.range_i64(0, 9);
            Some(format!("{}{n}{}", &s[..site.start], &s[site.end..]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_text_looks_like_source_and_messages_do_not() {
        for s in [
            "var t;",
            "t=y.prototype;",
            "function f(a) {  return function() {return a}}",
            "(function(t){})(y.prototype);",
        ] {
            assert!(looks_like_source(s), "{s}");
        }
        for s in [
            "Code contains errors; no tree was generated.\n",
            "function {0} masks variable (IE bug)",
            "abc",
            "f(a",
            "{main}",
            "Expected a string; found: null",
            "%s(%s, '%s', %s);",
            "\n;a/b.proto\u{12}\u{6}x(y);",
        ] {
            assert!(!looks_like_source(s), "{s}");
        }
    }

    #[test]
    fn parsers_take_one_string_and_say_so() {
        let callable = |name: &str, params: Vec<rivet_testcase::JType>| Callable {
            kind: CallableKind::Method,
            member: rivet_testcase::MemberRef::new("a/Compiler", name, "()V"),
            is_static: false,
            params,
            returns: Some(rivet_testcase::JType::class("a/Node")),
            owner_params: Vec::new(),
        };
        let string = || rivet_testcase::JType::class("java/lang/String");
        assert!(parses_text(&callable("parseTestCode", vec![string()])));
        assert!(parses_text(&callable("fromString", vec![string()])));
        assert!(!parses_text(&callable("newString", vec![string()])));
        assert!(!parses_text(&callable("parse", vec![string(), string()])));
        assert!(!parses_text(&callable(
            "parse",
            vec![rivet_testcase::JType::Prim(rivet_testcase::Prim::Int)]
        )));
    }

    #[test]
    fn statements_are_found_at_every_level() {
        let s = "var x=1; function f(a){x=a; if(a){a++}} g();";
        let st: Vec<&str> = statements(s, &tokens(s))
            .into_iter()
            .map(|(a, b)| &s[a..b])
            .collect();
        for want in [
            "var x=1;",
            "function f(a){x=a; if(a){a++}}",
            "x=a;",
            "if(a){a++}",
            "a++",
            "g();",
        ] {
            assert!(st.contains(&want), "{want} missing from {st:?}");
        }
    }

    #[test]
    fn mutations_of_balanced_text_stay_balanced_and_change_it() {
        let s = "function f(a){var x=1; x=a; return x}";
        let donor = "var t; t=y.prototype;";
        let mut rng = Rng::new(7);
        let mut changed = 0;
        for _ in 0..500 {
            if let Some(m) = mutate_source(&mut rng, s, donor) {
                assert!(balanced(&m), "{m}");
                changed += usize::from(m != s);
            }
        }
        assert!(changed > 300, "{changed}");
    }

    #[test]
    fn control_statements_and_operators_come_in_with_the_texts_names() {
        let s = "function f(a){var x; x=a; return x}";
        let mut rng = Rng::new(5);
        let out: Vec<String> = (0..4000)
            .filter_map(|_| mutate_source(&mut rng, s, s))
            .collect();
        for want in ["if(x){}", "while(a){}", "x++", "x+=a"] {
            assert!(out.iter().any(|m| m.contains(want)), "{want} never made");
        }
        // No control statement names anything but the text's own names.
        assert!(out.iter().all(|m| !m.contains("@")));
    }

    #[test]
    fn a_donor_statement_can_land_in_a_function_body() {
        let s = "function f(a){return a}";
        let mut rng = Rng::new(1);
        let found = (0..400).any(|_| {
            mutate_source(&mut rng, s, "t=y;").is_some_and(|m| m.contains("{t=y;return a}"))
        });
        assert!(found);
    }

    #[test]
    fn a_script_gives_its_top_level_statements_without_comments() {
        let file = "/* licence\n * text */\n// a comment\nvar $j = {};\n\n/** doc */\n$j.f = function(a, b) {\n  // inner\n  if (a) { return '//' + b; }\n  for (var i = 0; i < b; i++) {}\n};\nJust prose here.\n";
        let texts = texts_of_script(file);
        assert_eq!(
            texts,
            vec![
                "var $j = {};".to_string(),
                "$j.f = function(a, b) {\nif (a) { return '//' + b; }\nfor (var i = 0; i < b; i++) {}\n};"
                    .to_string(),
            ]
        );
    }

    #[test]
    fn a_regular_expression_literal_is_one_token_and_a_division_is_not() {
        let s = "var re = /f (.{1,})\\(/g; x = a / b / c;";
        assert!(balanced(s));
        let quoted: Vec<&str> = tokens(s)
            .into_iter()
            .filter(|t| t.kind == Kind::Quoted)
            .map(|t| &s[t.start..t.end])
            .collect();
        assert_eq!(quoted, vec!["/f (.{1,})\\(/g"]);
    }

    #[test]
    fn operands_become_expressions_with_their_names() {
        let s = "var x=y;";
        let mut rng = Rng::new(3);
        let out: Vec<String> = (0..3000)
            .filter_map(|_| mutate_source(&mut rng, s, s))
            .collect();
        for want in [
            "var x=!y;",
            "var x=(y+1);",
            "var x=null;",
            "var x=typeof y;",
        ] {
            assert!(out.iter().any(|m| m == want), "{want} never made");
        }
        assert!(out
            .iter()
            .any(|m| m.contains("for(y in y){}") || m.contains("for(x in x){}")));
    }

    #[test]
    fn fresh_programs_are_balanced_source_over_the_donors_names() {
        let donor = "function check(expr){var className=expr.name; return className}";
        let mut rng = Rng::new(9);
        let out: Vec<String> = (0..500).map(|_| fresh_program(&mut rng, donor)).collect();
        let odd: Vec<&String> = out
            .iter()
            .filter(|p| !balanced(p) || p.len() > MAX_SOURCE_LEN)
            .collect();
        assert!(odd.is_empty(), "{odd:?}");
        // A statement of literals alone (`((0.5)['a']);`) names nothing to look like source.
        let plain = out.iter().filter(|p| !looks_like_source(p)).count();
        assert!(plain < 25, "{plain} of 500 do not look like source");
        assert!(out.iter().any(|p| p.contains("className")));
        assert!(!out.iter().any(|p| p.contains("var return")));
    }
}
