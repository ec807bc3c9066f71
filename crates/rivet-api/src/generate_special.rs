//! Values that are not objects built by calls: class literals for `Class` parameters, lambdas
//! for functional interfaces (a constant result from the pool of values, the identity, a no-op,
//! a throwing body; `Comparator`s also in natural and reverse order), and the binding of a
//! generic method's type variables from the arguments already chosen.

use std::collections::HashMap;

use rivet_testcase::{
    ClassName, JType, LambdaBody, MemberRef, Prim, ScratchEntry, Statement, StatementId, TypedTest,
};

use crate::functional::{is_enum_bound, Sam};
use crate::generate::{Generator, CHARS, P_DYNAMIC};
use crate::source_text::{fresh_program, looks_like_source, mutate_source};
use rivet_rng::Rng;

/// How often a fresh string is one of the packages' program texts, when there are any.
const P_SOURCE_TEXT: f64 = 0.15;

/// The class `java.lang.Class`.
pub(crate) const CLASS: &str = "java/lang/Class";

impl Generator<'_> {
    /// Appends a class literal for a `Class` parameter whose type arguments are `args`.
    /// A fresh primitive of type `p` whose value differs from statement `than`'s (when a few
    /// draws find one).
    pub(crate) fn distinct_primitive(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        p: Prim,
        than: StatementId,
    ) -> StatementId {
        let old = match t.statements().get(than.0 as usize) {
            Some(Statement::Primitive(v)) => Some(*v),
            _ => None,
        };
        let mut v = self.primitive(rng, p);
        for _ in 0..4 {
            if Some(v) != old {
                break;
            }
            v = self.primitive(rng, p);
        }
        t.push(Statement::Primitive(v), Some(JType::Prim(p)))
    }

    /// Another value of reference type `ty` than `than` (a few tries; `than` if none came).
    pub(crate) fn distinct_reference(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        ty: &JType,
        depth: usize,
        than: StatementId,
    ) -> StatementId {
        for _ in 0..3 {
            match self.value(rng, t, ty, depth) {
                Some(id) if id != than => return id,
                _ => {}
            }
        }
        than
    }

    pub(crate) fn class_literal(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        args: &[JType],
    ) -> Option<StatementId> {
        // Now and then a class outside the bound (a non-enum for `Class<E extends Enum<E>>`),
        // declared raw so that the test compiles: code checks `isEnum()` and the like.
        if args.first().is_some_and(is_enum_bound) && rng.chance(0.15) {
            let options = self.model.class_literals(None);
            let descriptor = rng.pick(&options)?.clone();
            return Some(t.push(
                Statement::ClassLiteral { descriptor },
                Some(JType::class(CLASS)),
            ));
        }
        let options = self.model.class_literals(args.first());
        let descriptor = rng.pick(&options)?.clone();
        // For a bounded type variable (`Class<C>`, `C extends Collection<V>`) the literal may
        // lie outside the bound (the JVM does not check it): declared raw, it compiles.
        // (An enum bound gets enums, within it.)
        let bounded = matches!(args.first(), Some(a @ JType::Var { erasure, .. })
            if erasure.class_name() != Some(rivet_testcase::OBJECT) && !is_enum_bound(a));
        let ty = if bounded {
            JType::class(CLASS)
        } else {
            JType::Class {
                name: CLASS.into(),
                args: vec![literal_type(&descriptor)],
            }
        };
        Some(t.push(Statement::ClassLiteral { descriptor }, Some(ty)))
    }

    /// Appends a lambda implementing `interface` (whose single abstract method is `sam`).
    pub(crate) fn lambda(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        interface: &str,
        sam: &Sam,
        depth: usize,
    ) -> Option<StatementId> {
        if interface == "java/util/Comparator" && rng.chance(0.4) {
            let name = if rng.chance(0.5) {
                "naturalOrder"
            } else {
                "reverseOrder"
            };
            let method = MemberRef::new(interface, name, "()Ljava/util/Comparator;");
            return Some(t.push(
                Statement::Call {
                    method,
                    receiver: None,
                    args: Vec::new(),
                },
                Some(JType::class(interface)),
            ));
        }
        let body = match &sam.returns {
            None if rng.chance(0.15) => LambdaBody::Throws,
            None => LambdaBody::Nothing,
            Some(r) => {
                let roll = rng.unit();
                let identity = sam
                    .params
                    .first()
                    .is_some_and(|p| self.model.assignable(p, r));
                if roll < 0.1 {
                    LambdaBody::Throws
                } else if identity && roll < 0.35 {
                    LambdaBody::Identity
                } else {
                    LambdaBody::Returns(self.value(rng, t, r, depth + 1)?)
                }
            }
        };
        Some(t.push(
            Statement::Lambda {
                interface: ClassName::from_internal(interface),
                method: sam.member.clone(),
                body,
            },
            Some(JType::class(interface)),
        ))
    }

    /// A file, directory or missing path beneath the test's own temporary directory, as a
    /// `File` or `Path` (`descriptor`): a path one or two steps deep from a small vocabulary
    /// (so that two values of a test often meet), a file with a short content, or a
    /// directory of a few files.
    pub(crate) fn scratch(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        descriptor: &str,
    ) -> StatementId {
        const DIRS: &[&str] = &["d0", "d1", "sub"];
        const FILES: &[&str] = &["a.txt", "b.txt", "data.bin", "c", "empty.txt"];
        // Contents from a fixed set: the run's strings may hold the worker's own paths.
        const CONTENTS: &[&str] = &[
            "",
            "abc",
            "line 1\nline 2\n",
            "first\n\nthird\n",
            "0123456789",
            "\u{e9}t\u{e9}\n",
        ];
        let content = |rng: &mut Rng| -> String { CONTENTS[rng.below(CONTENTS.len())].to_string() };
        let mut path = String::new();
        if rng.chance(0.5) {
            path.push_str(DIRS[rng.below(DIRS.len())]);
            path.push('/');
        }
        let dir = rng.chance(0.3);
        path.push_str(if dir {
            DIRS[rng.below(DIRS.len())]
        } else {
            FILES[rng.below(FILES.len())]
        });
        let entry = if dir {
            let mut files: Vec<(String, String)> = Vec::new();
            for _ in 0..rng.below(4) {
                let name = FILES[rng.below(FILES.len())].to_string();
                if !files.iter().any(|(n, _)| *n == name) {
                    files.push((name, content(rng)));
                }
            }
            ScratchEntry::Dir { files }
        } else if rng.chance(0.35) {
            ScratchEntry::Missing
        } else {
            ScratchEntry::File {
                content: content(rng),
            }
        };
        let ty = JType::from_descriptor(descriptor).unwrap_or_else(JType::object);
        t.push(
            Statement::Scratch {
                descriptor: descriptor.to_string(),
                path,
                entry,
            },
            Some(ty),
        )
    }
}

/// The `T` of the `Class<T>` a class literal has: the wrapper for a primitive, `Void` for
/// `void`.
fn literal_type(descriptor: &str) -> JType {
    match JType::from_descriptor(descriptor) {
        Some(JType::Prim(p)) => JType::class(p.boxed()),
        Some(other) => other,
        None => JType::class("java/lang/Void"),
    }
}

/// Binds the type variables of `pattern` (a parameter type) to the parts of `actual` (the
/// static type of the argument chosen for it) in `env`, first binding wins, so that later
/// parameters of a generic method agree with earlier ones (`Class<E>` then `E...`).
pub(crate) fn bind(pattern: &JType, actual: &JType, env: &mut HashMap<String, JType>) {
    match (pattern, actual) {
        (JType::Var { name, .. }, a) if a.is_reference() && a.is_concrete() => {
            env.entry(name.clone()).or_insert_with(|| a.clone());
        }
        (JType::Class { name: p, args: pa }, JType::Class { name: q, args: qa })
            if p == q && pa.len() == qa.len() =>
        {
            for (x, y) in pa.iter().zip(qa) {
                bind(x, y, env);
            }
        }
        (JType::Array(p), JType::Array(q)) => bind(p, q, env),
        _ => {}
    }
}

/// Strings: fresh, from the class's pools, and near a given one.
impl Generator<'_> {
    /// A fresh string: a string the code was seen comparing or parsing, a constant of the class
    /// under test, or a short random one.
    pub fn string(&self, rng: &mut Rng) -> String {
        if rng.chance(P_DYNAMIC) {
            if let Some(s) = self.model.dynamic_string(rng) {
                return s;
            }
        }
        if self.model.constants.names_classes && rng.chance(0.15) {
            if let Some(s) = rng.pick(&self.model.class_name_strings()) {
                return s.clone();
            }
        }
        if let Some(text) = self.source_text(rng) {
            return text;
        }
        let strings = &self.model.constants.strings;
        if !strings.is_empty() && rng.chance(self.config.p_constant + 0.15) {
            return strings[rng.below(strings.len())].clone();
        }
        let n = rng.below(7);
        (0..n)
            .map(|_| CHARS[rng.below(CHARS.len())] as char)
            .collect()
    }

    /// A constant of the class under test or a string seen at run time (empty when there is
    /// none).
    fn pool_string(&self, rng: &mut Rng) -> String {
        if rng.chance(0.5) {
            if let Some(s) = self.model.dynamic_string(rng) {
                return s;
            }
        }
        rng.pick(&self.model.constants.strings)
            .cloned()
            .unwrap_or_default()
    }

    /// Sometimes (when the packages hold program text) one of those texts, half the time
    /// with a statement of another moved in or another syntax-aware change.
    fn source_text(&self, rng: &mut Rng) -> Option<String> {
        let texts = &self.model.constants.source_texts;
        if texts.is_empty() || !rng.chance(P_SOURCE_TEXT) {
            return None;
        }
        self.program_text(rng)
    }

    /// One of the packages' program texts, half the time changed as [`mutate_source`] does,
    /// or (one time in four) a small program composed over the names of one
    /// ([`fresh_program`]); None when they hold none.
    pub(crate) fn program_text(&self, rng: &mut Rng) -> Option<String> {
        let texts = &self.model.constants.source_texts;
        let text = rng.pick(texts)?;
        if rng.chance(0.25) {
            return Some(fresh_program(rng, text));
        }
        if rng.chance(0.5) {
            let donor = rng.pick(texts)?;
            if let Some(m) = mutate_source(rng, text, donor) {
                return Some(m);
            }
        }
        Some(text.clone())
    }

    /// A string near `s`: for program text, mostly a syntax-aware change (a statement of
    /// another text moved in, one dropped, an identifier renamed); else one character
    /// inserted, removed or replaced, a constant written over part of it, or a fresh string.
    pub fn mutate_string(&self, rng: &mut Rng, s: &str) -> String {
        if rng.chance(0.75) && looks_like_source(s) {
            let texts = &self.model.constants.source_texts;
            let donor = match rng.pick(texts) {
                Some(d) if rng.chance(0.7) => d.as_str(),
                _ => s,
            };
            if let Some(m) = mutate_source(rng, s, donor) {
                return m;
            }
        }
        let mut chars: Vec<char> = s.chars().collect();
        match rng.below(7) {
            0 if !chars.is_empty() => {
                chars.remove(rng.below(chars.len()));
            }
            // A constant or a string seen at run time written over part of the string, the
            // length kept: a valid IBAN becomes one that `startsWith("DE")`.
            5 if !chars.is_empty() => {
                let piece: Vec<char> = self.pool_string(rng).chars().collect();
                if piece.is_empty() || piece.len() > chars.len() {
                    return self.string(rng);
                }
                let at = if rng.chance(0.5) {
                    0
                } else {
                    rng.below(chars.len() - piece.len() + 1)
                };
                chars.splice(at..at + piece.len(), piece);
            }
            1 => {
                let at = rng.below(chars.len() + 1);
                chars.insert(at, CHARS[rng.below(CHARS.len())] as char);
            }
            2 if !chars.is_empty() => {
                let at = rng.below(chars.len());
                chars[at] = CHARS[rng.below(CHARS.len())] as char;
            }
            // A small step of one character's code, so that branch distances on characters
            // (`c < '0'`, `charAt(4) != '-'`) can guide the search.
            3 | 4 if !chars.is_empty() => {
                let at = rng.below(chars.len());
                let delta = rng.range_i64(1, 9) * if rng.chance(0.5) { 1 } else { -1 };
                let code = (chars[at] as i64 + delta).clamp(32, 126) as u32;
                chars[at] = char::from_u32(code).unwrap_or(chars[at]);
            }
            _ => return self.string(rng),
        }
        chars.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str, erasure: &str) -> JType {
        JType::Var {
            name: n.into(),
            erasure: Box::new(JType::class(erasure)),
        }
    }

    #[test]
    fn class_argument_binds_later_array_parameter() {
        let mut env = HashMap::new();
        let class_e = JType::Class {
            name: CLASS.into(),
            args: vec![var("E", "java/lang/Enum")],
        };
        let unit = JType::class("java/util/concurrent/TimeUnit");
        let actual = JType::Class {
            name: CLASS.into(),
            args: vec![unit.clone()],
        };
        bind(&class_e, &actual, &mut env);
        let array_e = JType::Array(Box::new(var("E", "java/lang/Enum")));
        assert_eq!(
            array_e.substitute(&env),
            JType::Array(Box::new(unit.clone()))
        );
        // The first binding wins.
        bind(
            &var("E", "java/lang/Enum"),
            &JType::class("java/lang/String"),
            &mut env,
        );
        assert_eq!(env.get("E"), Some(&unit));
        // Primitives and mismatched shapes bind nothing.
        let mut other = HashMap::new();
        bind(
            &var("T", "java/lang/Object"),
            &JType::Prim(rivet_testcase::Prim::Int),
            &mut other,
        );
        bind(&class_e, &JType::class("java/util/List"), &mut other);
        assert!(other.is_empty());
    }

    #[test]
    fn literal_types_box_primitives() {
        assert_eq!(literal_type("I"), JType::class("java/lang/Integer"));
        assert_eq!(literal_type("V"), JType::class("java/lang/Void"));
        assert_eq!(
            literal_type("[I"),
            JType::Array(Box::new(JType::Prim(rivet_testcase::Prim::Int)))
        );
    }
}
