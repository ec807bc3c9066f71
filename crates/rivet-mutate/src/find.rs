//! Finding a class's mutants: every instruction each default operator changes, with the
//! method and line it is in, filtered as PIT filters (no static initializers, bridges or
//! compiler-made methods, no assertion switches, no mutant that changes nothing).

use rivet_classfile::{
    ClassFile, ClassName, Code, Constant, FieldType, Instruction, MethodDescriptor, Opcode, Operand,
};
use serde::{Deserialize, Serialize};

use crate::error::MutateError;
use crate::operator::{boundary, math, negation, Operator};

/// A mutant's number within its class (in the order found: methods, then instructions, then
/// operators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MutantId(pub u32);

impl std::fmt::Display for MutantId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One change of one instruction by one operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutant {
    pub id: MutantId,
    pub class: ClassName,
    pub method: String,
    pub descriptor: String,
    /// Index of the method in the class file.
    pub method_index: usize,
    /// Index of the instruction in the method's code.
    pub instruction: usize,
    /// Its code offset in the original class.
    pub offset: u32,
    pub line: Option<u32>,
    pub operator: Operator,
    /// What it changes, as PIT says it (`negated conditional`).
    pub description: String,
}

const ACC_BRIDGE: u16 = 0x0040;

/// The source line of the instruction at `offset`.
pub(crate) fn line_of(code: &Code, offset: u32) -> Option<u32> {
    code.line_numbers()
        .filter(|l| u32::from(l.start_pc) <= offset)
        .max_by_key(|l| l.start_pc)
        .map(|l| u32::from(l.line))
}

/// The empty value EMPTY_RETURNS returns for a declared return type, if it has one.
pub(crate) fn empty_value(ret: &str) -> Option<&'static str> {
    Some(match ret {
        "java/lang/String" => "\"\"",
        "java/util/Optional" => "Optional.empty",
        "java/util/List" | "java/util/Collection" => "Collections.emptyList",
        "java/util/Set" => "Collections.emptySet",
        "java/util/Map" => "Collections.emptyMap",
        "java/util/stream/Stream" => "Stream.empty",
        "java/lang/Integer"
        | "java/lang/Short"
        | "java/lang/Long"
        | "java/lang/Byte"
        | "java/lang/Character"
        | "java/lang/Float"
        | "java/lang/Double" => "0",
        _ => return None,
    })
}

fn is_zero_constant(i: &Instruction) -> bool {
    matches!(
        i.opcode,
        Opcode::ICONST_0 | Opcode::LCONST_0 | Opcode::FCONST_0 | Opcode::DCONST_0
    ) || matches!(
        (i.opcode, &i.operand),
        (
            Opcode::BIPUSH | Opcode::SIPUSH,
            Operand::Byte(0) | Operand::Short(0)
        )
    )
}

/// True when the instruction reads a static field named `$assertionsDisabled`.
fn reads_assertion_switch(cf: &ClassFile, i: &Instruction) -> bool {
    i.opcode == Opcode::GETSTATIC
        && i.cp_index()
            .and_then(|ix| cf.constant_pool.member_ref(ix).ok())
            .is_some_and(|r| r.name == "$assertionsDisabled")
}

/// The `Boolean.TRUE`/`FALSE` field an instruction reads, if it does.
fn boolean_constant(cf: &ClassFile, i: &Instruction) -> Option<bool> {
    if i.opcode != Opcode::GETSTATIC {
        return None;
    }
    let r = cf.constant_pool.member_ref(i.cp_index()?).ok()?;
    (r.owner == "java/lang/Boolean").then_some(r.name == "TRUE")
}

/// The offsets jumps, switches and exception handlers lead to.
fn jump_targets(code: &Code) -> std::collections::HashSet<u32> {
    let mut out: std::collections::HashSet<u32> =
        code.instructions.iter().flat_map(|i| i.targets()).collect();
    out.extend(code.exception_table.iter().map(|h| h.handler_pc));
    out
}

/// The code of `assert` statements: from the check of `$assertionsDisabled` to where its
/// jump leads (PIT does not mutate assertions).
fn assertion_code(cf: &ClassFile, code: &Code) -> Vec<std::ops::Range<u32>> {
    code.instructions
        .windows(2)
        .filter(|w| reads_assertion_switch(cf, &w[0]) && w[1].opcode == Opcode::IFNE)
        .filter_map(|w| match w[1].operand {
            Operand::Jump(target) if target > w[0].offset => Some(w[0].offset..target),
            _ => None,
        })
        .collect()
}

/// Whether the methods of this class are worth mutating at all: code, not a static
/// initializer, not a bridge, not compiler-made (lambda bodies are kept), not an enum's
/// `values`/`valueOf`.
fn mutable_method(cf: &ClassFile, index: usize) -> Option<(&str, &str, &Code)> {
    let m = cf.methods.get(index)?;
    let name = cf.member_name(m).ok()?;
    let descriptor = cf.member_descriptor(m).ok()?;
    let code = m.code()?;
    let compiler_made = (m.is_synthetic() && !name.starts_with("lambda$"))
        || m.access_flags.has(ACC_BRIDGE)
        || name == "<clinit>"
        || (cf.access_flags.is_enum() && (name == "values" || name == "valueOf"));
    (!compiler_made).then_some((name, descriptor, code))
}

/// Every mutant of a class, numbered from 0.
pub fn find_mutants(cf: &ClassFile) -> Result<Vec<Mutant>, MutateError> {
    let class = ClassName::from_internal(cf.name().map_err(|source| MutateError::Parse {
        class: None,
        source,
    })?);
    let mut out = Vec::new();
    for index in 0..cf.methods.len() {
        let Some((name, descriptor, code)) = mutable_method(cf, index) else {
            continue;
        };
        let Ok(parsed) = MethodDescriptor::parse(descriptor) else {
            continue;
        };
        let sites = MethodSites {
            cf,
            class: &class,
            name,
            descriptor: &parsed,
        };
        let targets = jump_targets(code);
        let assertions = assertion_code(cf, code);
        for (ii, insn) in code.instructions.iter().enumerate() {
            if assertions.iter().any(|r| r.contains(&insn.offset)) {
                continue;
            }
            // The instruction before, when it is the only way in.
            let previous = ii
                .checked_sub(1)
                .and_then(|p| code.instructions.get(p))
                .filter(|_| !targets.contains(&insn.offset));
            for (operator, description) in sites.changes(insn, previous) {
                out.push(Mutant {
                    id: MutantId(out.len() as u32),
                    class: class.clone(),
                    method: name.to_string(),
                    descriptor: descriptor.to_string(),
                    method_index: index,
                    instruction: ii,
                    offset: insn.offset,
                    line: line_of(code, insn.offset),
                    operator,
                    description,
                });
            }
        }
    }
    Ok(out)
}

/// One method, to find its mutants.
struct MethodSites<'a> {
    cf: &'a ClassFile,
    class: &'a ClassName,
    name: &'a str,
    descriptor: &'a MethodDescriptor,
}

impl MethodSites<'_> {
    /// The operators that change `insn` (after `previous`), with their descriptions.
    fn changes(
        &self,
        insn: &Instruction,
        previous: Option<&Instruction>,
    ) -> Vec<(Operator, String)> {
        let op = insn.opcode;
        let mut out = Vec::new();
        let after_assertion_switch = previous.is_some_and(|p| reads_assertion_switch(self.cf, p));
        if !after_assertion_switch {
            if boundary(op).is_some() {
                out.push((
                    Operator::ConditionalsBoundary,
                    "changed conditional boundary".to_string(),
                ));
            }
            if negation(op).is_some() {
                out.push((
                    Operator::NegateConditionals,
                    "negated conditional".to_string(),
                ));
            }
        }
        if let Some((_, from, to)) = math(op) {
            let kind = match op.0 % 4 {
                0 => "integer",
                1 => "long",
                2 => "float",
                _ => "double",
            };
            let kind = if op.0 >= 120 {
                if op.0.is_multiple_of(2) {
                    "integer"
                } else {
                    "long"
                }
            } else {
                kind
            };
            out.push((Operator::Math, format!("Replaced {kind} {from} with {to}")));
        }
        if let (Opcode::IINC, Operand::Iinc { delta, .. }) = (op, &insn.operand) {
            if *delta != 0 && *delta != i16::MIN {
                out.push((
                    Operator::Increments,
                    format!("Changed increment from {delta} to {}", -delta),
                ));
            }
        }
        if matches!(
            op,
            Opcode::INEG | Opcode::LNEG | Opcode::FNEG | Opcode::DNEG
        ) {
            out.push((Operator::InvertNegs, "removed negation".to_string()));
        }
        if let Some(text) = self.void_call(insn) {
            out.push((Operator::VoidMethodCalls, text));
        }
        if op.is_return() && op != Opcode::RETURN {
            out.extend(self.return_changes(previous));
        }
        out
    }

    /// `removed call to owner::name` when `insn` calls a method returning void (not a
    /// constructor).
    fn void_call(&self, insn: &Instruction) -> Option<String> {
        if !matches!(
            insn.opcode,
            Opcode::INVOKEVIRTUAL
                | Opcode::INVOKESPECIAL
                | Opcode::INVOKESTATIC
                | Opcode::INVOKEINTERFACE
        ) {
            return None;
        }
        let r = self.cf.constant_pool.member_ref(insn.cp_index()?).ok()?;
        let d = MethodDescriptor::parse(r.descriptor).ok()?;
        (d.ret.is_none() && r.name != "<init>")
            .then(|| format!("removed call to {}::{}", r.owner, r.name))
    }

    fn return_changes(&self, previous: Option<&Instruction>) -> Vec<(Operator, String)> {
        let at = format!("{}::{}", self.class.internal(), self.name);
        let Some(ret) = &self.descriptor.ret else {
            return Vec::new();
        };
        let prev_const = previous.and_then(|p| match p.opcode {
            Opcode::ICONST_0 => Some(false),
            Opcode::ICONST_1 => Some(true),
            _ => boolean_constant(self.cf, p),
        });
        let booleans = |out: &mut Vec<(Operator, String)>| {
            if prev_const != Some(false) {
                out.push((
                    Operator::FalseReturns,
                    format!("replaced boolean return with false for {at}"),
                ));
            }
            if prev_const != Some(true) {
                out.push((
                    Operator::TrueReturns,
                    format!("replaced boolean return with true for {at}"),
                ));
            }
        };
        let mut out = Vec::new();
        match ret {
            FieldType::Boolean => booleans(&mut out),
            FieldType::Object(o) if o == "java/lang/Boolean" => booleans(&mut out),
            FieldType::Byte => {}
            FieldType::Int
            | FieldType::Short
            | FieldType::Long
            | FieldType::Char
            | FieldType::Float
            | FieldType::Double => {
                if !previous.is_some_and(is_zero_constant) {
                    let kind = match ret {
                        FieldType::Int => "int",
                        FieldType::Short => "short",
                        FieldType::Long => "long",
                        FieldType::Char => "char",
                        FieldType::Float => "float",
                        _ => "double",
                    };
                    out.push((
                        Operator::PrimitiveReturns,
                        format!("replaced {kind} return with 0 for {at}"),
                    ));
                }
            }
            FieldType::Object(o) => match empty_value(o) {
                Some(empty) => {
                    let already = previous.is_some_and(|p| self.pushes_empty_string(p));
                    if !(already && empty == "\"\"") {
                        out.push((
                            Operator::EmptyReturns,
                            format!("replaced return value with {empty} for {at}"),
                        ));
                    }
                }
                None => {
                    if previous.is_none_or(|p| p.opcode != Opcode::ACONST_NULL) {
                        out.push((
                            Operator::NullReturns,
                            format!("replaced return value with null for {at}"),
                        ));
                    }
                }
            },
            FieldType::Array(_) => {
                if previous.is_none_or(|p| p.opcode != Opcode::ACONST_NULL) {
                    out.push((
                        Operator::NullReturns,
                        format!("replaced return value with null for {at}"),
                    ));
                }
            }
        }
        out
    }

    fn pushes_empty_string(&self, i: &Instruction) -> bool {
        matches!(i.opcode, Opcode::LDC | Opcode::LDC_W)
            && i.cp_index().is_some_and(|ix| {
                matches!(self.cf.constant_pool.get(ix), Some(Constant::String { string })
                    if self.cf.constant_pool.utf8(*string).is_ok_and(|t| t.is_empty()))
            })
    }
}
