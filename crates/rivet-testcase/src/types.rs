//! Java types as the API model sees them: primitives, classes with generic type arguments,
//! arrays and type variables (with their erasure), parsed from descriptors and from
//! Signature attributes (JVMS §4.7.9.1).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::PrimitiveValue;
use rivet_classfile::FieldType;

/// A primitive type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Prim {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
}

impl Prim {
    pub fn descriptor(self) -> &'static str {
        match self {
            Prim::Boolean => "Z",
            Prim::Byte => "B",
            Prim::Char => "C",
            Prim::Short => "S",
            Prim::Int => "I",
            Prim::Long => "J",
            Prim::Float => "F",
            Prim::Double => "D",
        }
    }

    /// The Java keyword (`int`).
    pub fn java_name(self) -> &'static str {
        match self {
            Prim::Boolean => "boolean",
            Prim::Byte => "byte",
            Prim::Char => "char",
            Prim::Short => "short",
            Prim::Int => "int",
            Prim::Long => "long",
            Prim::Float => "float",
            Prim::Double => "double",
        }
    }

    /// The wrapper class (internal name).
    pub fn boxed(self) -> &'static str {
        match self {
            Prim::Boolean => "java/lang/Boolean",
            Prim::Byte => "java/lang/Byte",
            Prim::Char => "java/lang/Character",
            Prim::Short => "java/lang/Short",
            Prim::Int => "java/lang/Integer",
            Prim::Long => "java/lang/Long",
            Prim::Float => "java/lang/Float",
            Prim::Double => "java/lang/Double",
        }
    }

    /// The primitive a wrapper class boxes.
    pub fn unboxed(class: &str) -> Option<Prim> {
        Some(match class {
            "java/lang/Boolean" => Prim::Boolean,
            "java/lang/Byte" => Prim::Byte,
            "java/lang/Character" => Prim::Char,
            "java/lang/Short" => Prim::Short,
            "java/lang/Integer" => Prim::Int,
            "java/lang/Long" => Prim::Long,
            "java/lang/Float" => Prim::Float,
            "java/lang/Double" => Prim::Double,
            _ => return None,
        })
    }

    /// The primitive type of a value.
    pub fn of(value: PrimitiveValue) -> Prim {
        match value {
            PrimitiveValue::Boolean(_) => Prim::Boolean,
            PrimitiveValue::Byte(_) => Prim::Byte,
            PrimitiveValue::Char(_) => Prim::Char,
            PrimitiveValue::Short(_) => Prim::Short,
            PrimitiveValue::Int(_) => Prim::Int,
            PrimitiveValue::Long(_) => Prim::Long,
            PrimitiveValue::Float(_) => Prim::Float,
            PrimitiveValue::Double(_) => Prim::Double,
        }
    }
}

/// A Java type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JType {
    Prim(Prim),
    /// A class or interface by internal name (shared: tests hold a type per value, and the
    /// search copies tests by the hundred thousand), with type arguments (empty when raw or
    /// not generic).
    Class {
        name: Arc<str>,
        args: Vec<JType>,
    },
    Array(Box<JType>),
    /// A type variable that no binding resolved, with its erasure.
    Var {
        name: String,
        erasure: Box<JType>,
    },
}

pub const OBJECT: &str = "java/lang/Object";
pub const STRING: &str = "java/lang/String";

impl JType {
    /// A class type without type arguments.
    pub fn class(name: &str) -> JType {
        JType::Class {
            name: name.into(),
            args: Vec::new(),
        }
    }

    pub fn object() -> JType {
        JType::class(OBJECT)
    }

    /// The type of a field descriptor.
    pub fn from_field_type(t: &FieldType) -> JType {
        match t {
            FieldType::Boolean => JType::Prim(Prim::Boolean),
            FieldType::Byte => JType::Prim(Prim::Byte),
            FieldType::Char => JType::Prim(Prim::Char),
            FieldType::Short => JType::Prim(Prim::Short),
            FieldType::Int => JType::Prim(Prim::Int),
            FieldType::Long => JType::Prim(Prim::Long),
            FieldType::Float => JType::Prim(Prim::Float),
            FieldType::Double => JType::Prim(Prim::Double),
            FieldType::Object(n) => JType::class(n),
            FieldType::Array(c) => JType::Array(Box::new(JType::from_field_type(c))),
        }
    }

    /// Parses a field descriptor (`I`, `[Ljava/lang/String;`).
    pub fn from_descriptor(d: &str) -> Option<JType> {
        FieldType::parse(d).ok().map(|t| JType::from_field_type(&t))
    }

    /// The erased type: no type arguments, variables replaced by their erasure.
    pub fn erased(&self) -> JType {
        match self {
            JType::Prim(p) => JType::Prim(*p),
            JType::Class { name, .. } => JType::Class {
                name: name.clone(),
                args: Vec::new(),
            },
            JType::Array(c) => JType::Array(Box::new(c.erased())),
            JType::Var { erasure, .. } => erasure.erased(),
        }
    }

    /// The erased field descriptor (`Ljava/util/List;`).
    pub fn descriptor(&self) -> String {
        match self {
            JType::Prim(p) => p.descriptor().to_string(),
            JType::Class { name, .. } => format!("L{name};"),
            JType::Array(c) => format!("[{}", c.descriptor()),
            JType::Var { erasure, .. } => erasure.descriptor(),
        }
    }

    /// The name the class hierarchy takes: an internal class name, or an array descriptor.
    pub fn hierarchy_name(&self) -> Cow<'_, str> {
        match self {
            JType::Class { name, .. } => Cow::Borrowed(name),
            JType::Var { erasure, .. } => erasure.hierarchy_name(),
            other => Cow::Owned(other.descriptor()),
        }
    }

    /// The internal class name of an (erased) class type.
    pub fn class_name(&self) -> Option<&str> {
        match self {
            JType::Class { name, .. } => Some(name),
            JType::Var { erasure, .. } => erasure.class_name(),
            _ => None,
        }
    }

    pub fn prim(&self) -> Option<Prim> {
        match self {
            JType::Prim(p) => Some(*p),
            _ => None,
        }
    }

    pub fn is_reference(&self) -> bool {
        !matches!(self, JType::Prim(_))
    }

    pub fn is_string(&self) -> bool {
        self.class_name() == Some(STRING)
    }

    /// The type arguments of a class type.
    pub fn args(&self) -> &[JType] {
        match self {
            JType::Class { args, .. } => args,
            _ => &[],
        }
    }

    /// Replaces type variables bound in `env`; unbound ones stay variables.
    pub fn substitute(&self, env: &HashMap<String, JType>) -> JType {
        match self {
            JType::Var { name, .. } => env.get(name).cloned().unwrap_or_else(|| self.clone()),
            JType::Class { name, args } => JType::Class {
                name: name.clone(),
                args: args.iter().map(|a| a.substitute(env)).collect(),
            },
            JType::Array(c) => JType::Array(Box::new(c.substitute(env))),
            JType::Prim(_) => self.clone(),
        }
    }

    /// Does the type mention no type variable?
    pub fn is_concrete(&self) -> bool {
        match self {
            JType::Var { .. } => false,
            JType::Class { args, .. } => args.iter().all(JType::is_concrete),
            JType::Array(c) => c.is_concrete(),
            JType::Prim(_) => true,
        }
    }
}

impl fmt::Display for JType {
    /// Java-like spelling with generics (`java.util.List<sushi.Process>`), for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JType::Prim(p) => f.write_str(p.java_name()),
            JType::Class { name, args } => {
                write!(f, "{}", rivet_classfile::ClassName::from_internal(name))?;
                if !args.is_empty() {
                    f.write_str("<")?;
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{a}")?;
                    }
                    f.write_str(">")?;
                }
                Ok(())
            }
            JType::Array(c) => write!(f, "{c}[]"),
            JType::Var { name, .. } => f.write_str(name),
        }
    }
}

/// A generic method or class signature, parsed: type parameters with their first bound.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypeParams {
    pub params: Vec<(String, JType)>,
}

impl TypeParams {
    /// An environment mapping each parameter to a variable with its erasure.
    pub fn as_vars(&self) -> HashMap<String, JType> {
        self.params
            .iter()
            .map(|(n, b)| {
                (
                    n.clone(),
                    JType::Var {
                        name: n.clone(),
                        erasure: Box::new(b.erased()),
                    },
                )
            })
            .collect()
    }
}

/// A parsed method signature: its type parameters, parameter types and return type.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodSignature {
    pub type_params: TypeParams,
    pub params: Vec<JType>,
    pub ret: Option<JType>,
}

struct SigParser<'a> {
    s: &'a [u8],
    pos: usize,
    /// Bounds of the type variables in scope (class's, then method's).
    bounds: HashMap<String, JType>,
}

impl<'a> SigParser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    fn ident(&mut self, stops: &[u8]) -> Option<String> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if stops.contains(&c) {
                break;
            }
            self.pos += 1;
        }
        (self.pos > start).then(|| String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn type_params(&mut self) -> Option<TypeParams> {
        let mut out = TypeParams::default();
        if self.eat(b'<').is_none() {
            return Some(out);
        }
        while self.peek()? != b'>' {
            let name = self.ident(b":")?;
            // Make the variable known before its bound (`T:Ljava/lang/Comparable<TT;>;`).
            self.bounds
                .entry(name.clone())
                .or_insert_with(JType::object);
            let mut first: Option<JType> = None;
            while self.eat(b':').is_some() {
                if matches!(self.peek(), Some(b'L' | b'T' | b'[')) {
                    let b = self.reference()?;
                    first.get_or_insert(b);
                }
            }
            let bound = first.map(|b| b.erased()).unwrap_or_else(JType::object);
            self.bounds.insert(name.clone(), bound.clone());
            out.params.push((name, bound));
        }
        self.pos += 1;
        Some(out)
    }

    fn java_type(&mut self) -> Option<JType> {
        let c = self.peek()?;
        let prim = match c {
            b'Z' => Prim::Boolean,
            b'B' => Prim::Byte,
            b'C' => Prim::Char,
            b'S' => Prim::Short,
            b'I' => Prim::Int,
            b'J' => Prim::Long,
            b'F' => Prim::Float,
            b'D' => Prim::Double,
            _ => return self.reference(),
        };
        self.pos += 1;
        Some(JType::Prim(prim))
    }

    fn reference(&mut self) -> Option<JType> {
        match self.peek()? {
            b'L' => {
                self.pos += 1;
                let mut name = self.ident(b"<.;")?;
                let mut args = self.type_args()?;
                while self.eat(b'.').is_some() {
                    let inner = self.ident(b"<.;")?;
                    name = format!("{name}${inner}");
                    args = self.type_args()?;
                }
                self.eat(b';')?;
                Some(JType::Class {
                    name: name.into(),
                    args,
                })
            }
            b'T' => {
                self.pos += 1;
                let name = self.ident(b";")?;
                self.eat(b';')?;
                let erasure = self
                    .bounds
                    .get(&name)
                    .cloned()
                    .unwrap_or_else(JType::object);
                Some(JType::Var {
                    name,
                    erasure: Box::new(erasure.erased()),
                })
            }
            b'[' => {
                self.pos += 1;
                Some(JType::Array(Box::new(self.java_type()?)))
            }
            _ => None,
        }
    }

    fn type_args(&mut self) -> Option<Vec<JType>> {
        let mut args = Vec::new();
        if self.eat(b'<').is_none() {
            return Some(args);
        }
        while self.peek()? != b'>' {
            match self.peek()? {
                b'*' => {
                    self.pos += 1;
                    args.push(JType::object());
                }
                b'+' | b'-' => {
                    self.pos += 1;
                    args.push(self.reference()?);
                }
                _ => args.push(self.reference()?),
            }
        }
        self.pos += 1;
        Some(args)
    }
}

/// Parses a class signature's type parameters (the rest, supertypes, is not needed).
pub fn parse_class_type_params(signature: &str) -> Option<TypeParams> {
    let mut p = SigParser {
        s: signature.as_bytes(),
        pos: 0,
        bounds: HashMap::new(),
    };
    p.type_params()
}

/// Parses the superclass of a class signature, with its type arguments in terms of the
/// class's own type variables (`AbstractPatriciaTrie<String, E>` for `PatriciaTrie<E>`).
pub fn parse_class_supertype(signature: &str) -> Option<JType> {
    let mut p = SigParser {
        s: signature.as_bytes(),
        pos: 0,
        bounds: HashMap::new(),
    };
    let params = p.type_params()?;
    p.bounds = params.params.into_iter().collect();
    p.reference()
}

/// Parses a method signature; `class_params` are the type parameters of its class.
pub fn parse_method_signature(
    signature: &str,
    class_params: &TypeParams,
) -> Option<MethodSignature> {
    let mut p = SigParser {
        s: signature.as_bytes(),
        pos: 0,
        bounds: class_params.params.iter().cloned().collect(),
    };
    let type_params = p.type_params()?;
    p.eat(b'(')?;
    let mut params = Vec::new();
    while p.peek()? != b')' {
        params.push(p.java_type()?);
    }
    p.pos += 1;
    let ret = if p.eat(b'V').is_some() {
        None
    } else {
        Some(p.java_type()?)
    };
    Some(MethodSignature {
        type_params,
        params,
        ret,
    })
}

/// Parses a field signature (`Ljava/util/List<Ljava/lang/String;>;`).
pub fn parse_field_signature(signature: &str, class_params: &TypeParams) -> Option<JType> {
    let mut p = SigParser {
        s: signature.as_bytes(),
        pos: 0,
        bounds: class_params.params.iter().cloned().collect(),
    };
    p.java_type()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_signatures_with_generics_parse() {
        let class =
            parse_class_type_params("<E:Ljava/lang/Object;>Ljava/util/AbstractList<TE;>;").unwrap();
        assert_eq!(class.params[0].0, "E");
        let m = parse_method_signature(
            "(Ljava/util/List<Lsushi/Process;>;Ljava/util/Map<TE;+[I>;)V",
            &class,
        )
        .unwrap();
        assert_eq!(m.params[0].to_string(), "java.util.List<sushi.Process>");
        assert_eq!(m.params[1].to_string(), "java.util.Map<E, int[]>");
        assert_eq!(m.params[1].descriptor(), "Ljava/util/Map;");
        assert!(m.ret.is_none());
        let g = parse_method_signature(
            "<T::Ljava/lang/Comparable<-TT;>;>(Ljava/util/Collection<+TT;>;)TT;",
            &TypeParams::default(),
        )
        .unwrap();
        assert_eq!(g.ret.unwrap().descriptor(), "Ljava/lang/Comparable;");
        let inner =
            parse_field_signature("La/Outer<TE;>.Inner<Ljava/lang/String;>;", &class).unwrap();
        assert_eq!(inner.class_name(), Some("a/Outer$Inner"));
        let env: HashMap<String, JType> = [("E".to_string(), JType::class(STRING))].into();
        let m = parse_method_signature("(TE;)Z", &class).unwrap();
        assert_eq!(m.params[0].substitute(&env), JType::class(STRING));
    }
}
