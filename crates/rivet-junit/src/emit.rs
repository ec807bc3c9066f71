//! Rendering a test class: declarations named by type, literals inlined where a value is
//! used once, casts on arguments of overloaded calls, assertions after the statements they
//! check, the expected exception around the statement that throws (`throws`); with the line
//! of every test and assertion, so that the verifier can map compiler and JUnit messages back.

use rivet_testcase::ClassName;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use rivet_testcase::{
    Assertion, GeneratedTest, JType, LambdaBody, MemberRef, Statement, StatementId, TypedTest,
    ValueSummary, LAMBDA_FAILURE,
};

use crate::imports::{collect_classes, rivet_classfile_descriptor};
use crate::scratch;
use crate::throws::{expect_throws, ExpectedExceptions};

use crate::java::{
    char_literal, package_of, primitive_literal, string_literal, top_level, variable_base, Names,
};

/// The class annotation that makes JUnit 5 run the tests in the order they are written (each
/// test carries its `@Order`).
pub const FIXED_ORDER_5: &str =
    "@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)";

/// JUnit 5 (Jupiter) or JUnit 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JUnitVersion {
    Five,
    Four,
}

/// One test to render.
#[derive(Debug, Clone, PartialEq)]
pub struct TestSource {
    pub generated: GeneratedTest,
    /// What the test covers, for its comment (`AvlTree.insert line 64 (true)`).
    pub covers: Vec<String>,
    /// The method the test is named after (`insert`).
    pub subject: String,
}

/// A test class to render.
#[derive(Debug, Clone, PartialEq)]
pub struct TestClass {
    /// The class under test (`structures/AvlTree`).
    pub class_under_test: ClassName,
    pub junit: JUnitVersion,
    /// How tests expect exceptions (`assertThrows` unless the JUnit is older than 4.13).
    pub expected_exceptions: ExpectedExceptions,
    pub tests: Vec<TestSource>,
    /// Members (owner, name, descriptor) with overloads of the same arity: their arguments
    /// are cast to the parameter types, except at the positions given, declared with a type
    /// variable (`E`, `E[]`): a cast to its erasure (`(Enum[])`) would stop javac inferring
    /// the variable from the other arguments (`Class<DayOfWeek>`), and the call not compile.
    pub overloaded: BTreeMap<MemberRef, BTreeSet<usize>>,
    /// Inner (non-static member) classes: their constructors take the enclosing instance
    /// first and are written `outer.new Inner(…)`.
    pub inner_classes: BTreeSet<ClassName>,
}

/// Where a test sits in the emitted source (1-based lines, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestLines {
    pub name: String,
    /// The method's parameter types as JUnit selects a method by them
    /// (`java.nio.file.Path` for a test given its temporary directory; empty for none).
    pub parameter_types: String,
    pub start: u32,
    pub end: u32,
    /// The line of each assertion, by index into the test's assertions.
    pub assertions: Vec<(usize, u32)>,
}

/// The emitted test class.
#[derive(Debug, Clone, PartialEq)]
pub struct Emitted {
    /// Package (binary, `a.b`; empty for the unnamed package).
    pub package: String,
    /// The test class's simple name (a Java identifier), `AvlTreeRivetTest`.
    pub class_name: String,
    pub source: String,
    /// One entry per test, in order.
    pub tests: Vec<TestLines>,
}

impl Emitted {
    /// The path of the source under a source root: `a/b/AvlTreeRivetTest.java`.
    pub fn relative_path(&self) -> String {
        if self.package.is_empty() {
            format!("{}.java", self.class_name)
        } else {
            format!(
                "{}/{}.java",
                self.package.replace('.', "/"),
                self.class_name
            )
        }
    }

    /// The name of the test class.
    pub fn qualified_name(&self) -> ClassName {
        if self.package.is_empty() {
            ClassName::from_binary(&self.class_name)
        } else {
            ClassName::from_binary(&format!("{}.{}", self.package, self.class_name))
        }
    }

    /// The test whose lines contain `line`.
    pub fn test_at(&self, line: u32) -> Option<usize> {
        self.tests
            .iter()
            .position(|t| (t.start..=t.end).contains(&line))
    }
}

/// The test class name for a class under test: `<Simple>RivetTest`.
pub fn test_class_name(class_under_test: &ClassName) -> String {
    let simple: String = class_under_test
        .simple()
        .chars()
        .map(|c| if c == '$' { '_' } else { c })
        .collect();
    format!("{simple}RivetTest")
}

/// Renders the test class. Pure: the same input gives the same text.
pub fn emit(class: &TestClass) -> Emitted {
    let package_internal = package_of(class.class_under_test.internal()).to_string();
    let package = package_internal.replace('/', ".");
    let class_name = test_class_name(&class.class_under_test);
    let mut used: BTreeSet<String> = BTreeSet::new();
    used.insert(top_level(class.class_under_test.internal()).to_string());
    for t in &class.tests {
        collect_classes(&t.generated, &mut used);
    }
    let any_scratch = class
        .tests
        .iter()
        .any(|t| scratch::uses_scratch(&t.generated));
    if any_scratch {
        scratch::classes(class.junit, &mut used);
    }
    let reserved: BTreeSet<String> = [class_name.clone(), "Test".to_string()]
        .into_iter()
        .collect();
    let names = Names::new(&package_internal, &used, &reserved);

    let mut lines: Vec<String> = Vec::new();
    if !package.is_empty() {
        lines.push(format!("package {package};"));
        lines.push(String::new());
    }
    match class.junit {
        JUnitVersion::Five => {
            lines.push("import static org.junit.jupiter.api.Assertions.*;".into());
            lines.push(String::new());
            lines.push("import org.junit.jupiter.api.Test;".into());
        }
        JUnitVersion::Four => {
            lines.push("import static org.junit.Assert.*;".into());
            lines.push(String::new());
            lines.push("import org.junit.Test;".into());
        }
    }
    for i in &names.imports {
        lines.push(format!("import {i};"));
    }
    lines.push(String::new());
    lines.push(format!(
        "/** Regression tests of {{@link {}}}, generated by Rivet. */",
        names.class(class.class_under_test.internal())
    ));
    lines.push("@SuppressWarnings({\"rawtypes\", \"unchecked\", \"deprecation\"})".into());
    // Tests run in a fixed order (JUnit 5: the order written, JUnit 4: by name), so that the
    // coverage measured on the class is the coverage Rivet reports (each test also passes
    // alone and in any other order).
    lines.push(
        match class.junit {
            JUnitVersion::Five => FIXED_ORDER_5,
            JUnitVersion::Four => {
                "@org.junit.FixMethodOrder(org.junit.runners.MethodSorters.NAME_ASCENDING)"
            }
        }
        .into(),
    );
    lines.push(format!("public class {class_name} {{"));
    lines.extend(scratch::rule_lines(&names, class.junit, any_scratch));
    let mut test_lines = Vec::new();
    let mut used_names: BTreeMap<String, usize> = BTreeMap::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for t in &class.tests {
        // What the test shows; the second test showing the same gets `_2`, and so on.
        let base = crate::naming::descriptive_name(t, class.class_under_test.internal());
        let n = used_names.entry(base.clone()).or_insert(0);
        *n += 1;
        let mut name = if *n == 1 {
            base.clone()
        } else {
            format!("{base}_{n}")
        };
        while taken.contains(&name) {
            *n += 1;
            name = format!("{base}_{n}");
        }
        taken.insert(name.clone());
        lines.push(String::new());
        let start = lines.len() as u32 + 1;
        lines.push("    @Test".into());
        if class.junit == JUnitVersion::Five {
            lines.push(format!(
                "    @org.junit.jupiter.api.Order({})",
                test_lines.len() + 1
            ));
        }
        lines.push(format!(
            "    public void {name}({}) throws Throwable {{",
            scratch::parameters(&names, class.junit, &t.generated)
        ));
        if !t.covers.is_empty() {
            lines.push(format!("        // Covers {}", covers_comment(&t.covers)));
        }
        for l in scratch::prologue(&names, class.junit, &t.generated) {
            lines.push(format!("        {l}"));
        }
        let mut assertion_lines = Vec::new();
        let body = Body::new(&names, class, &t.generated);
        for (text, assertion) in body.render() {
            if let Some(a) = assertion {
                assertion_lines.push((a, lines.len() as u32 + 1));
            }
            lines.push(format!("        {text}"));
        }
        lines.push("    }".into());
        test_lines.push(TestLines {
            name,
            parameter_types: scratch::parameter_types(class.junit, &t.generated),
            start,
            end: lines.len() as u32,
            assertions: assertion_lines,
        });
    }
    lines.push("}".into());
    let mut source = lines.join("\n");
    source.push('\n');
    Emitted {
        package,
        class_name,
        source,
        tests: test_lines,
    }
}

fn covers_comment(covers: &[String]) -> String {
    const MAX: usize = 4;
    let mut s = covers
        .iter()
        .take(MAX)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if covers.len() > MAX {
        let _ = write!(s, "; and {} more", covers.len() - MAX);
    }
    s
}

/// The body of one test method.
struct Body<'a> {
    names: &'a Names,
    class: &'a TestClass,
    g: &'a GeneratedTest,
    /// How each statement's value is referred to: a variable or an inlined literal.
    refs: Vec<String>,
    /// Statements whose value is written inline where used (not declared).
    inline: Vec<bool>,
    /// Calls whose value only its assertion reads: asserted inline.
    assert_inline: Vec<bool>,
}

impl<'a> Body<'a> {
    fn new(names: &'a Names, class: &'a TestClass, g: &'a GeneratedTest) -> Body<'a> {
        let t: &TypedTest = &g.test;
        let n = t.len();
        let mut uses = vec![0usize; n];
        for s in t.statements() {
            for u in s.uses() {
                if let Some(c) = uses.get_mut(u.0 as usize) {
                    *c += 1;
                }
            }
        }
        // Values a call or field write is made on: these need a variable.
        let mut receivers = vec![false; n];
        for s in t.statements() {
            if let Statement::Call {
                receiver: Some(r), ..
            }
            | Statement::FieldWrite {
                receiver: Some(r), ..
            } = s
            {
                if let Some(x) = receivers.get_mut(r.0 as usize) {
                    *x = true;
                }
            }
            // An inner class's enclosing instance (`outer.new Inner()`).
            if let Statement::Construct { constructor, args } = s {
                if class.inner_classes.contains(&constructor.owner) {
                    if let Some(x) = args.first().and_then(|o| receivers.get_mut(o.0 as usize)) {
                        *x = true;
                    }
                }
            }
        }
        let mut asserted = vec![0usize; n];
        for a in &g.assertions {
            for of in a.subjects() {
                if let Some(c) = asserted.get_mut(of.0 as usize) {
                    *c += 1;
                }
            }
        }
        let throws_at = g.assertions.iter().find_map(|a| match a {
            Assertion::Throws { at, .. } => Some(at.0 as usize),
            _ => None,
        });
        let mut inline = vec![false; n];
        let mut assert_inline = vec![false; n];
        let mut refs = vec![String::new(); n];
        let mut counters: BTreeMap<String, usize> = BTreeMap::new();
        for (i, s) in t.statements().iter().enumerate() {
            let literal = match s {
                Statement::Primitive(v) => Some(primitive_literal(*v)),
                Statement::String(v) => Some(string_literal(v)),
                // A raw-typed class literal (outside a generic bound) stays a raw variable.
                Statement::ClassLiteral { descriptor }
                    if t.types[i].as_ref().is_some_and(|ty| !ty.args().is_empty()) =>
                {
                    Some(class_literal(names, descriptor))
                }
                _ => None,
            };
            // `null` is written where it is passed: a variable would need a type, and the
            // parameter's may be one the test cannot name (a private nested class).
            if matches!(s, Statement::Null { .. }) && !receivers[i] && asserted[i] == 0 {
                inline[i] = true;
                refs[i] = "null".into();
                continue;
            }
            if let Some(l) = literal {
                if uses[i] <= 1 && asserted[i] == 0 {
                    inline[i] = true;
                    refs[i] = l;
                    continue;
                }
            }
            if matches!(s, Statement::Call { .. })
                && uses[i] == 0
                && asserted[i] == 1
                && Some(i) != throws_at
            {
                let only_equals = g
                    .assertions
                    .iter()
                    .any(|a| matches!(a, Assertion::Equals { of, .. } if of.0 as usize == i));
                if only_equals {
                    assert_inline[i] = true;
                    continue;
                }
            }
            if let Some(ty) = &t.types[i] {
                let base = variable_base(&ty.erased());
                let c = counters.entry(base.clone()).or_insert(0);
                refs[i] = format!("{base}{c}");
                *c += 1;
            }
        }
        Body {
            names,
            class,
            g,
            refs,
            inline,
            assert_inline,
        }
    }

    /// The lines of the body, each with the index of the assertion it renders.
    fn render(&self) -> Vec<(String, Option<usize>)> {
        let t = &self.g.test;
        let mut out: Vec<(String, Option<usize>)> = Vec::new();
        let mut uses = vec![0usize; t.len()];
        for s in t.statements() {
            for u in s.uses() {
                if let Some(c) = uses.get_mut(u.0 as usize) {
                    *c += 1;
                }
            }
        }
        let asserted: BTreeSet<usize> = self
            .g
            .assertions
            .iter()
            .flat_map(|a| a.subjects())
            .map(|of| of.0 as usize)
            .collect();
        for (i, s) in t.statements().iter().enumerate() {
            if self.inline[i] {
                continue;
            }
            let throws = self
                .g
                .assertions
                .iter()
                .enumerate()
                .find(|(_, a)| matches!(a, Assertion::Throws { at, .. } if at.0 as usize == i));
            if let Some((ai, Assertion::Throws { class, message, .. })) = throws {
                let expr = self.expression(s);
                let exception = self.names.class(class.internal());
                out.extend(expect_throws(
                    self.class.expected_exceptions,
                    (&exception, class),
                    &expr,
                    message.as_deref(),
                    ai,
                ));
                continue;
            }
            if self.assert_inline[i] {
                for (ai, a) in self.g.assertions.iter().enumerate() {
                    if let Assertion::Equals { of, value } = a {
                        if of.0 as usize == i {
                            let ty = t.types[i].clone().unwrap_or_else(JType::object);
                            out.push((equals(&ty, value, &self.expression(s)), Some(ai)));
                        }
                    }
                }
                continue;
            }
            if let Statement::Scratch { path, entry, .. } = s {
                out.extend(
                    scratch::setup(self.names, path, entry)
                        .into_iter()
                        .map(|l| (l, None)),
                );
            }
            let expr = self.expression(s);
            let declare = t.types[i].is_some()
                && (uses[i] > 0
                    || asserted.contains(&i)
                    || !matches!(s, Statement::Call { .. } | Statement::Construct { .. }));
            match (&t.types[i], declare) {
                (Some(ty), true) => out.push((
                    format!(
                        "{} {} = {}{expr};",
                        self.declared_type(s, ty),
                        self.refs[i],
                        self.erasure_cast(i, s, ty)
                    ),
                    None,
                )),
                _ => out.push((format!("{expr};"), None)),
            }
            for (ai, a) in self.g.assertions.iter().enumerate() {
                if let Assertion::Equals { of, value } = a {
                    if of.0 as usize == i {
                        let ty = t.types[i].clone().unwrap_or_else(JType::object);
                        out.push((equals(&ty, value, &self.refs[i]), Some(ai)));
                    }
                }
            }
        }
        for (ai, a) in self.g.assertions.iter().enumerate() {
            if let Assertion::Inspector { of, method, value } = a {
                let receiver = &self.refs[of.0 as usize];
                let ret =
                    JType::from_descriptor(method.descriptor.rsplit(')').next().unwrap_or("V"))
                        .unwrap_or_else(JType::object);
                // An instance observer on the value, or a static one taking it.
                let call = if method.descriptor.starts_with("()") {
                    format!("{receiver}.{}()", method.name)
                } else {
                    format!(
                        "{}.{}({receiver})",
                        ClassName::from_internal(method.owner.internal()).binary(),
                        method.name
                    )
                };
                let line = crate::array_assert::array_equals(method, value, receiver)
                    .unwrap_or_else(|| equals(&ret, value, &call));
                out.push((line, Some(ai)));
            }
        }
        for (ai, a) in self.g.assertions.iter().enumerate() {
            if let Some(line) = crate::contracts::contract_line(a, &self.refs) {
                out.push((line, Some(ai)));
            }
        }
        out
    }

    /// The cast a call's result needs to be assigned to its variable
    /// ([`TypedTest::result_cast`]): a method returning a type variable (`K firstKey()`)
    /// returns its erasure (`Comparable`, `Object`) where the test knows the bound type
    /// (`Integer`). The strategies kept only tests whose results pass it
    /// (`ApiModel::failing_cast`).
    fn erasure_cast(&self, i: usize, s: &Statement, ty: &JType) -> String {
        match self.g.test.result_cast(i) {
            Some(_) => format!("({}) ", self.declared_type(s, ty)),
            None => String::new(),
        }
    }

    /// The type a statement's variable is declared with: erased, except a class literal's
    /// (`Class<String>`), so that generic methods taking it infer their result type.
    fn declared_type(&self, s: &Statement, ty: &JType) -> String {
        match (s, ty.args()) {
            (Statement::ClassLiteral { .. }, [arg]) => {
                format!(
                    "{}<{}>",
                    self.names.ty(&ty.erased()),
                    self.names.ty(&arg.erased())
                )
            }
            _ => self.names.ty(&ty.erased()),
        }
    }

    /// The Java expression of a statement (without declaration).
    fn expression(&self, s: &Statement) -> String {
        match s {
            Statement::Primitive(v) => primitive_literal(*v),
            Statement::String(v) => string_literal(v),
            Statement::Null { .. } => "null".into(),
            Statement::Array {
                component,
                elements,
            } => {
                let ty = JType::from_descriptor(component).unwrap_or_else(JType::object);
                let items: Vec<String> = elements
                    .iter()
                    .map(|e| self.argument(*e, &ty, false))
                    .collect();
                if items.is_empty() {
                    crate::java::empty_array(&self.names.ty(&ty))
                } else {
                    format!("new {}[] {{{}}}", self.names.ty(&ty), items.join(", "))
                }
            }
            Statement::Construct { constructor, args } => {
                let owner = constructor.owner.internal();
                match args.split_first() {
                    Some((outer, _)) if self.class.inner_classes.contains(&constructor.owner) => {
                        let (enclosing, simple) = owner.rsplit_once('$').unwrap_or(("", owner));
                        // Through a subclass instance the simple name could find another
                        // member class (a private one of the subclass): the enclosing
                        // instance is seen as the declaring class.
                        let seen = self
                            .g
                            .test
                            .types
                            .get(outer.0 as usize)
                            .cloned()
                            .flatten()
                            .map(|t| t.erased());
                        let outer_ref = &self.refs[outer.0 as usize];
                        let outer_text =
                            if seen.as_ref().and_then(JType::class_name) == Some(enclosing) {
                                outer_ref.clone()
                            } else {
                                format!("(({}) {outer_ref})", self.names.class(enclosing))
                            };
                        format!(
                            "{outer_text}.new {simple}({})",
                            self.arguments_from(constructor, args, 1)
                        )
                    }
                    _ => format!(
                        "new {}({})",
                        self.names.class(owner),
                        self.arguments(constructor, args)
                    ),
                }
            }
            Statement::Call {
                method,
                receiver,
                args,
            } => {
                let target = match receiver {
                    Some(r) => self.refs[r.0 as usize].clone(),
                    None => self.names.class(method.owner.internal()),
                };
                format!("{target}.{}({})", method.name, self.arguments(method, args))
            }
            Statement::FieldWrite {
                field,
                receiver,
                value,
            } => {
                let target = match receiver {
                    Some(r) => self.refs[r.0 as usize].clone(),
                    None => self.names.class(field.owner.internal()),
                };
                let ty = JType::from_descriptor(&field.descriptor).unwrap_or_else(JType::object);
                format!(
                    "{target}.{} = {}",
                    field.name,
                    self.argument(*value, &ty, false)
                )
            }
            Statement::ClassLiteral { descriptor } => class_literal(self.names, descriptor),
            Statement::Scratch {
                descriptor, path, ..
            } => scratch::value(descriptor, path),
            Statement::Constant { field } => {
                format!(
                    "{}.{}",
                    self.names.class(field.owner.internal()),
                    field.name
                )
            }
            Statement::Lambda { method, body, .. } => {
                let arity = rivet_classfile_descriptor(&method.descriptor)
                    .map(|p| p.len())
                    .unwrap_or(0);
                let params: Vec<String> = (0..arity).map(|k| format!("{LAMBDA_ARG}{k}")).collect();
                let result = match body {
                    LambdaBody::Returns(v) => self.refs[v.0 as usize].clone(),
                    LambdaBody::Identity => format!("{LAMBDA_ARG}0"),
                    LambdaBody::Nothing => "{ }".to_string(),
                    LambdaBody::Throws => format!(
                        "{{ throw new IllegalStateException({}); }}",
                        string_literal(LAMBDA_FAILURE)
                    ),
                };
                format!("({}) -> {result}", params.join(", "))
            }
        }
    }

    fn arguments(&self, m: &MemberRef, args: &[StatementId]) -> String {
        self.arguments_from(m, args, 0)
    }

    /// The arguments from the `skip`th on (an inner class's constructor takes its enclosing
    /// instance first, written before `.new`).
    fn arguments_from(&self, m: &MemberRef, args: &[StatementId], skip: usize) -> String {
        let params = rivet_classfile_descriptor(&m.descriptor).unwrap_or_default();
        let overloaded = self.class.overloaded.get(m);
        args.iter()
            .enumerate()
            .skip(skip)
            .map(|(k, a)| {
                let p = params.get(k).cloned().unwrap_or_else(JType::object);
                let cast = overloaded.is_some_and(|variables| !variables.contains(&k));
                self.argument(*a, &p, cast)
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A value passed where `param` is expected; cast when the call is overloaded or the
    /// value is null.
    fn argument(&self, id: StatementId, param: &JType, overloaded: bool) -> String {
        let i = id.0 as usize;
        let text = self.refs.get(i).cloned().unwrap_or_else(|| "null".into());
        // A string written inline is a `String` to javac, whatever type the value was made
        // for (a `Comparable<T>` parameter: then the overload needs its cast, or javac infers
        // T from the string and rejects the other arguments).
        let inline_string = self.inline.get(i).copied().unwrap_or(false)
            && matches!(self.g.test.statements().get(i), Some(Statement::String(_)));
        let own = if inline_string {
            Some(JType::class("java/lang/String"))
        } else {
            self.g
                .test
                .types
                .get(i)
                .cloned()
                .flatten()
                .map(|t| t.erased())
        };
        let param = param.erased();
        let differs = own.as_ref() != Some(&param);
        // An inline `null` fits every overload (inherited ones too, which the class's
        // overload set does not know): a cast to the parameter's type picks the one that ran,
        // unless the test cannot name that type (then the null's own type differs, and a
        // bare `null` is the only spelling that compiles) or it is a type variable's (a cast
        // to its erasure would stop javac inferring the variable from the other arguments).
        // A known overload always gets its cast (below), whatever the null was made for.
        if matches!(
            self.g.test.statements().get(i),
            Some(Statement::Null { .. })
        ) && text == "null"
            && !overloaded
        {
            let variable = matches!(self.g.test.types.get(i), Some(Some(JType::Var { .. })));
            return if differs || variable {
                text
            } else {
                format!("({}) null", self.names.ty(&param))
            };
        }
        let null = text == "null";
        // A boxed value written inline is a primitive literal to javac (`6`, not an
        // `Integer`): among overloads taking `int` and `Integer` it needs its cast.
        let boxed_literal = self.inline.get(i).copied().unwrap_or(false)
            && matches!(
                self.g.test.statements().get(i),
                Some(Statement::Primitive(_))
            )
            && own.as_ref().is_some_and(JType::is_reference);
        if overloaded && (differs || null || boxed_literal) {
            // `(Object) -9` would parse as a subtraction from a variable named Object.
            if text.starts_with('-') {
                format!("({}) ({text})", self.names.ty(&param))
            } else {
                format!("({}) {text}", self.names.ty(&param))
            }
        } else {
            text
        }
    }
}

/// The prefix of a generated lambda's parameter names (`lambdaArg0`), unlike any variable the
/// emitter declares.
const LAMBDA_ARG: &str = "lambdaArg";

/// `int.class`, `String[].class`, `void.class`.
fn class_literal(names: &Names, descriptor: &str) -> String {
    match JType::from_descriptor(descriptor) {
        Some(t) => format!("{}.class", names.ty(&t)),
        None => "void.class".to_string(),
    }
}

/// An equality assertion of `actual` (an expression of type `ty`) against an observed value.
/// Floating-point values are asserted exactly (a delta of 0, NaN equal to NaN, as both JUnits
/// compare): Java's floating point has been strict since Java 17 and the value was the same on
/// two runs, so a tolerance would only let a wrong result pass.
fn equals(_ty: &JType, value: &ValueSummary, actual: &str) -> String {
    match value {
        ValueSummary::Boolean(true) => format!("assertTrue({actual});"),
        ValueSummary::Boolean(false) => format!("assertFalse({actual});"),
        ValueSummary::Null => format!("assertNull({actual});"),
        ValueSummary::String(s) => format!("assertEquals({}, {actual});", string_literal(s)),
        ValueSummary::Int(x) => format!("assertEquals({x}, {actual});"),
        ValueSummary::Long(x) => format!("assertEquals({x}L, {actual});"),
        ValueSummary::Short(x) => format!("assertEquals((short) {x}, {actual});"),
        ValueSummary::Byte(x) => format!("assertEquals((byte) {x}, {actual});"),
        ValueSummary::Char(x) => format!("assertEquals({}, {actual});", char_literal(*x)),
        ValueSummary::Float(x) => format!(
            "assertEquals({}, {actual}, 0.0F);",
            primitive_literal(rivet_testcase::PrimitiveValue::Float(*x))
        ),
        ValueSummary::Double(x) => format!(
            "assertEquals({}, {actual}, 0.0);",
            primitive_literal(rivet_testcase::PrimitiveValue::Double(*x))
        ),
        ValueSummary::Void | ValueSummary::Object { .. } => format!("assertNotNull({actual});"),
    }
}
