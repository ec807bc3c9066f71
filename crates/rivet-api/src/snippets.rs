//! Snippets of the C family of languages and of JavaScript that the mutations of program text
//! put in: statements around a name of the text, and expressions composed of literals of every
//! kind, operators and the text's own operands (`(x + 'a')`, `[1,'a'][0]`, `typeof(null)`), the
//! shapes a compiler's folding and inlining passes tell apart.

use rivet_rng::Rng;

/// Operators of the C family of languages (JavaScript, Java, C), which the mutations put after
/// a name or a number: with them an assignment becomes a compound one, a name an increment, a
/// value an operand.
pub(crate) const OPERATORS: &[&str] = &[
    "++", "--", "+", "-", "*", "/", "%", "=", "+=", "-=", "==", "!=", "===", "<", ">", "<=", "&&",
    "||", ",", ";", ".x", "()", "[0]",
];

/// Statements of the C family of languages and of JavaScript, their holes `@` filled with one
/// name of the text: branches, loops, declarations and jumps around the statements moved in
/// later, the shapes a compiler's passes rewrite (a declaration and the loop after it, an
/// assignment of an operation on the same variable, a jump at a block's end).
pub(crate) const STATEMENTS: &[&str] = &[
    "if(@){}",
    "if(@){}else{}",
    "while(@){}",
    "for(;@;){}",
    "for(var @=0;@<1;@++){}",
    "for(@ in @){}",
    "var @;for(@ in @){}",
    "do{}while(@);",
    "switch(@){case 1:break;default:}",
    "try{}catch(e){}",
    "try{}finally{}",
    "L:{break L;}",
    "var @;",
    "var @=@;",
    "@=@+1;",
    "@();",
    "function @(){}",
    "return @;",
    "return;",
    "break;",
    "continue;",
    "throw @;",
];

/// Expressions of the C family and of JavaScript that an operand (a name or a number, `@`)
/// becomes: literals of each kind, and operations the operand takes part in.
pub(crate) const EXPRESSIONS: &[&str] = &[
    "0",
    "1",
    "-1",
    "0.5",
    "'a'",
    "''",
    "true",
    "false",
    "null",
    "!@",
    "-@",
    "~@",
    "(@+1)",
    "(1+2)",
    "('a'+1)",
    "(@<<1)",
    "(@==1)",
    "(@?1:0)",
    "(@,0)",
    "[@]",
    "@.length",
    "typeof @",
    "void 0",
    "('a' in @)",
];

/// Literals of every kind of value, the operands a constant folder folds: numbers (integral,
/// fractional, out of the 32-bit range, not a number), strings (empty, numeric), booleans,
/// `null` and `undefined`, arrays, objects, a regular expression, the `Object` constructor and
/// calls of built-in constructors. No function: a function holding another is one whose
/// variables a closure may see, and the passes over local variables leave it alone
/// (Closure's `DeadAssignmentsElimination` lost every branch of `isVariableReadBeforeKill`).
const LITERALS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "0.5",
    "1e21",
    "NaN",
    "Infinity",
    "undefined",
    "'a'",
    "''",
    "'1'",
    "'ab'",
    "true",
    "false",
    "null",
    "void 0",
    "[]",
    "[1,'a']",
    "[,1]",
    "{}",
    "{a:1}",
    "/a/g",
    "Object",
    "this",
    "new Object()",
    "new Array(1)",
    "new String('a')",
];

/// Prefix operators, each put before a parenthesized operand (`-(-1)` stays a negation).
const UNARY: &[&str] = &["!", "-", "+", "~", "typeof ", "void "];

/// Binary operators: arithmetic, shifts, bitwise, comparisons, logical, the comma (written
/// between spaces: `a - -(1)` is no decrement, `a / /x/` no comment).
const BINARY: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "%",
    "<<",
    ">>",
    ">>>",
    "&",
    "|",
    "^",
    "==",
    "!=",
    "===",
    "!==",
    "<",
    ">",
    "<=",
    ">=",
    "&&",
    "||",
    "instanceof",
    "in",
    ",",
];

/// Assignment operators, plain and compound.
const ASSIGNMENTS: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", ">>>=", "&=", "|=", "^=",
];

/// Accesses put after an operand: a property, an element, a call of a known method.
const ACCESSES: &[&str] = &[
    ".length",
    "[0]",
    "[1]",
    "[2]",
    "[-1]",
    "[0.5]",
    "['a']",
    ".a",
    ".toString()",
];

/// One of the [`LITERALS`].
fn literal(rng: &mut Rng) -> &'static str {
    rng.pick(LITERALS).map_or("0", |l| l)
}

/// How deep [`expression`] nests.
const MAX_DEPTH: usize = 2;

/// An expression composed of literals, `operand` and operators, at most [`MAX_DEPTH`] levels
/// deep: a literal or the operand; a prefix operator on one; two joined by a binary operator;
/// an access on one or on a literal; a conditional.
pub(crate) fn expression(rng: &mut Rng, operand: &str, depth: usize) -> String {
    let leaf = |rng: &mut Rng| {
        if rng.chance(0.35) {
            operand.to_string()
        } else {
            literal(rng).to_string()
        }
    };
    if depth >= MAX_DEPTH {
        return leaf(rng);
    }
    match rng.below(8) {
        0 | 1 => leaf(rng),
        2 => {
            let op = rng.pick(UNARY).map_or("!", |o| o);
            format!("{op}({})", expression(rng, operand, depth + 1))
        }
        3..=5 => {
            let op = rng.pick(BINARY).map_or("+", |o| o);
            let left = expression(rng, operand, depth + 1);
            let right = expression(rng, operand, depth + 1);
            format!("({left} {op} {right})")
        }
        6 => {
            // Half the time on a literal itself (`[,1][0]`, `({a:1}).a`, `'ab'.length`).
            let access = rng.pick(ACCESSES).map_or(".a", |a| a);
            let on = if rng.chance(0.5) {
                literal(rng).to_string()
            } else {
                expression(rng, operand, depth + 1)
            };
            format!("({on}){access}")
        }
        _ => {
            let test = expression(rng, operand, depth + 1);
            format!("({test}?{}:{})", leaf(rng), leaf(rng))
        }
    }
}

/// A statement around `name`: an assignment (plain, compound, or of an operation on the name
/// itself, `x=x+1`), a declaration, an expression statement, an assignment inside an
/// expression that reads the name after it (`(x=1) + x`), a branch on an expression.
pub(crate) fn statement(rng: &mut Rng, name: &str) -> String {
    let e = expression(rng, name, 0);
    match rng.below(6) {
        0 => {
            let op = rng.pick(ASSIGNMENTS).map_or("=", |o| o);
            format!("{name}{op}{e};")
        }
        1 => {
            let op = rng.pick(BINARY).map_or("+", |o| o);
            format!("{name}={name} {op} {e};")
        }
        2 => format!("var {name}={e};"),
        // In parentheses: `{a:1};` would be a block.
        3 => format!("({e});"),
        // Whether an assignment is dead depends on what its own expression does after it
        // (`(x=1) , x` reads the value, `(x=1) && (x=2)` may kill it).
        4 => {
            let op = rng.pick(ASSIGNMENTS).map_or("=", |o| o);
            let join = rng.pick(BINARY).map_or(",", |o| o);
            let after = if rng.chance(0.5) {
                name.to_string()
            } else {
                expression(rng, name, 1)
            };
            format!("(({name}{op}{e}) {join} {after});")
        }
        _ => format!("if({e}){{{name}={};}}", expression(rng, name, 1)),
    }
}

/// Words of JavaScript and of the C family that are no names (never assigned to).
pub(crate) const KEYWORDS: &[&str] = &[
    "break",
    "case",
    "catch",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "undefined",
    "NaN",
    "Infinity",
    "let",
    "const",
    "class",
    "static",
    "public",
    "private",
    "int",
];

/// Where a composed statement stands: whether a `return`, a `break` or `continue`, a
/// labelled `break` may end its block, and how deep in blocks it is.
#[derive(Clone, Copy, Default)]
struct Place {
    function: bool,
    looping: bool,
    labelled: Option<usize>,
    depth: usize,
}

impl Place {
    /// The place of a block one level further in.
    fn inner(self) -> Place {
        Place {
            depth: self.depth + 1,
            ..self
        }
    }

    /// The place of a loop's body.
    fn in_loop(self) -> Place {
        Place {
            looping: true,
            ..self.inner()
        }
    }
}

/// How deep composed control structures nest.
const MAX_NESTING: usize = 2;

/// One statement of a composed program: half the time (above the innermost block) a control
/// structure around blocks of composed statements (a branch with or without an `else`, a loop
/// of each kind, a labelled block, a `try` with a `catch`, a `finally` or both, a `switch`),
/// else a [`statement`].
fn compound(rng: &mut Rng, pool: &[&str], place: Place) -> String {
    let name = *rng.pick(pool).unwrap_or(&"x");
    if place.depth >= MAX_NESTING || rng.chance(0.5) {
        return statement(rng, name);
    }
    let e = expression(rng, name, 1);
    let inner = place.inner();
    match rng.below(10) {
        0 => format!("if({e}){{{}}}", block(rng, pool, inner)),
        1 | 2 => {
            let then = block(rng, pool, inner);
            format!("if({e}){{{then}}}else{{{}}}", block(rng, pool, inner))
        }
        3 => format!("while({e}){{{}}}", block(rng, pool, place.in_loop())),
        4 => format!("do{{{}}}while({e});", block(rng, pool, place.in_loop())),
        5 => {
            // With its own declaration, or with none (a declaration before it may move in).
            let body = block(rng, pool, place.in_loop());
            let init = if rng.chance(0.5) {
                format!("var {name}=0")
            } else {
                String::new()
            };
            format!("for({init};{name} < {e};{name}++){{{body}}}")
        }
        6 => format!(
            "for({name} in {e}){{{}}}",
            block(rng, pool, place.in_loop())
        ),
        7 => {
            let label = Place {
                labelled: Some(place.depth),
                ..inner
            };
            format!("L{}:{{{}}}", place.depth, block(rng, pool, label))
        }
        8 => {
            let tried = block(rng, pool, inner);
            let caught = format!("catch(err){{{}}}", block(rng, pool, inner));
            let last = format!("finally{{{}}}", block(rng, pool, inner));
            match rng.below(3) {
                0 => format!("try{{{tried}}}{caught}"),
                1 => format!("try{{{tried}}}{last}"),
                _ => format!("try{{{tried}}}{caught}{last}"),
            }
        }
        _ => {
            let case = literal(rng);
            let first = block(rng, pool, inner);
            format!(
                "switch({e}){{case {case}:{first}break;default:{}}}",
                block(rng, pool, inner)
            )
        }
    }
}

/// A block's statements: one composed statement (two, three times in ten), then, two times
/// in five, an exit the place allows (`throw`, `return` with or without a value, `break`, `continue`, a labelled
/// `break`): an exit at a block's end is what a pass that minimizes exits rewrites.
fn block(rng: &mut Rng, pool: &[&str], place: Place) -> String {
    let mut out = compound(rng, pool, place);
    if rng.chance(0.3) {
        out.push_str(&compound(rng, pool, place));
    }
    if rng.chance(0.4) {
        let name = *rng.pick(pool).unwrap_or(&"x");
        let mut exits = vec![format!("throw {name};")];
        if place.function {
            exits.push("return;".to_string());
            exits.push(format!("return {};", expression(rng, name, 1)));
        }
        if place.looping {
            exits.push("break;".to_string());
            exits.push("continue;".to_string());
        }
        if let Some(depth) = place.labelled {
            exits.push(format!("break L{depth};"));
        }
        if let Some(exit) = rng.pick(&exits) {
            out.push_str(exit);
        }
    }
    out
}

/// How long a composed program may be (in bytes): longer draws are drawn again, up to
/// [`MAX_DRAWS`] times.
const MAX_PROGRAM_LEN: usize = 480;
/// How many times a program is drawn before one statement over `x` stands in.
const MAX_DRAWS: usize = 16;

/// A fresh small program over `names` (of another text, keywords left out) and the two
/// parameters `a` and `b`: one to three composed statements (control structures nest two
/// deep), half the time the body of a function `f(a,b)` (a compiler's passes over local
/// variables and their flow need one) that ends in a `return`; at most [`MAX_PROGRAM_LEN`]
/// long (or, when the names are too long for that, one statement over `x`).
pub(crate) fn program(rng: &mut Rng, names: &[&str]) -> String {
    let mut pool: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !KEYWORDS.contains(n))
        .collect();
    pool.extend(["a", "b", "x"]);
    for _ in 0..MAX_DRAWS {
        let function = rng.chance(0.5);
        let place = Place {
            function,
            ..Place::default()
        };
        let mut body = String::new();
        for _ in 0..1 + rng.below(3) {
            body.push_str(&compound(rng, &pool, place));
        }
        let out = if function {
            let ret = *rng.pick(&pool).unwrap_or(&"a");
            format!("function f(a,b){{{body}return {ret};}}")
        } else {
            body
        };
        if out.len() <= MAX_PROGRAM_LEN {
            return out;
        }
    }
    // Names so long that no draw fits (a text's identifiers are seldom that long).
    statement(rng, "x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_nest_literals_and_operators_around_the_operand() {
        let mut rng = Rng::new(2);
        let out: Vec<String> = (0..2000).map(|_| expression(&mut rng, "v", 0)).collect();
        for want in [
            "v", "null", "'a'", "[1,'a']", "{a:1}", "typeof (", "===", ".length", "?",
        ] {
            assert!(out.iter().any(|e| e.contains(want)), "{want} never made");
        }
        // Two operators deep at most: a binary operation's operands are leaves or one more
        // operation.
        assert!(out.iter().any(|e| e.matches('(').count() >= 3));
        assert!(out.iter().all(|e| e.len() < 200), "{out:?}");
    }

    #[test]
    fn statements_assign_the_name_an_operation_on_itself() {
        let mut rng = Rng::new(4);
        let out: Vec<String> = (0..1000).map(|_| statement(&mut rng, "x")).collect();
        assert!(out.iter().any(|s| s.starts_with("x=x + ")));
        assert!(out.iter().any(|s| s.starts_with("x+=")));
        assert!(out.iter().any(|s| s.starts_with("var x=")));
        assert!(out.iter().any(|s| s.starts_with("if(")));
        assert!(out
            .iter()
            .any(|s| s.starts_with("((x=") && s.ends_with(" , x);")));
        assert!(out.iter().all(|s| s.ends_with(';') || s.ends_with('}')));
    }

    #[test]
    fn programs_name_no_keyword_and_half_are_functions() {
        let mut rng = Rng::new(6);
        let out: Vec<String> = (0..1000)
            .map(|_| program(&mut rng, &["function", "node", "var"]))
            .collect();
        let functions = out
            .iter()
            .filter(|p| p.starts_with("function f(a,b){"))
            .count();
        assert!((350..650).contains(&functions), "{functions} of 1000");
        assert!(out.iter().any(|p| p.contains("node")));
        assert!(!out
            .iter()
            .any(|p| p.contains("var var") || p.contains("function=")));
    }

    #[test]
    fn programs_nest_control_structures_and_exit_only_where_they_may() {
        let mut rng = Rng::new(8);
        let out: Vec<String> = (0..2000).map(|_| program(&mut rng, &["n"])).collect();
        for want in [
            "else{",
            "while(",
            "do{",
            "for(var ",
            "for(;",
            " in ",
            "L0:{",
            "break L0;",
            "try{",
            "catch(err){",
            "finally{",
            "switch(",
            "break;",
            "continue;",
            "return;",
            "throw ",
        ] {
            assert!(out.iter().any(|p| p.contains(want)), "{want} never made");
        }
        for p in out.iter().filter(|p| !p.starts_with("function f(a,b){")) {
            assert!(!p.contains("return"), "a return outside a function: {p}");
        }
        for p in &out {
            for exit in ["continue;", "break;"] {
                if let Some(at) = p.find(exit) {
                    let before = &p[..at];
                    let loops = ["while(", "do{", "for("];
                    let in_switch = exit == "break;" && before.contains("switch(");
                    assert!(
                        loops.iter().any(|l| before.contains(l)) || in_switch,
                        "{exit} outside a loop: {p}"
                    );
                }
            }
        }
    }

    #[test]
    fn names_too_long_for_any_program_give_one_statement_over_x() {
        // Fifty names each longer than a program may be: nearly every draw uses one.
        let long: Vec<String> = (0..50)
            .map(|i| format!("{}{i}", "n".repeat(MAX_PROGRAM_LEN)))
            .collect();
        let names: Vec<&str> = long.iter().map(String::as_str).collect();
        let mut rng = Rng::new(3);
        for _ in 0..20 {
            let p = program(&mut rng, &names);
            assert!(p.len() <= MAX_PROGRAM_LEN, "{} bytes", p.len());
        }
    }
}
