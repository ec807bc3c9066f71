//! Writing mutants: the class file with one mutant's change, and the class file with a reach
//! probe before every mutated instruction (to learn which tests reach which mutants).

use std::collections::BTreeMap;

use rivet_classfile::{
    ClassFile, ClassName, ConstantPool, FieldType, Instruction, Item, MethodDescriptor, Opcode,
    Operand, WriteError,
};

use crate::error::MutateError;
use crate::find::{empty_value, Mutant};
use crate::operator::{boundary, math, negation, Operator};

/// The Java class whose static `hit(int)` a reach probe calls, in internal form.
pub const REACH_CLASS: &str = "rivet/mutation/Reach";

fn insn(opcode: Opcode, operand: Operand) -> Item {
    Item::Insn(Instruction::new(opcode, operand))
}

fn plain(opcode: Opcode) -> Item {
    insn(opcode, Operand::None)
}

/// Instructions that push `n` as an int.
fn push_int(cp: &mut ConstantPool, n: u32) -> Item {
    match i16::try_from(n) {
        Ok(s) => insn(Opcode::SIPUSH, Operand::Short(s)),
        Err(_) => insn(
            Opcode::LDC_W,
            Operand::Constant(cp.intern_integer(n as i32)),
        ),
    }
}

/// The class file with `mutant` applied.
pub fn apply(class: &ClassFile, mutant: &Mutant) -> Result<Vec<u8>, MutateError> {
    let mut cf = class.clone();
    let mismatch = |reason: &str| MutateError::Mismatch {
        class: mutant.class.clone(),
        mutant: mutant.id.0,
        reason: reason.to_string(),
    };
    let write = |source: WriteError| MutateError::Write {
        class: mutant.class.clone(),
        mutant: mutant.id.0,
        source,
    };
    let original = cf
        .methods
        .get(mutant.method_index)
        .and_then(|m| m.code())
        .and_then(|c| c.instructions.get(mutant.instruction))
        .cloned()
        .ok_or_else(|| mismatch("no such instruction"))?;
    if original.offset != mutant.offset {
        return Err(mismatch("the instruction is at another offset"));
    }
    let op = original.opcode;
    let replaced = match mutant.operator {
        Operator::ConditionalsBoundary => boundary(op),
        Operator::NegateConditionals => negation(op),
        Operator::Math => math(op).map(|(to, _, _)| to),
        Operator::InvertNegs => Some(Opcode::NOP),
        _ => None,
    };
    if let Some(to) = replaced {
        // Same length, same stack effect: changed in place.
        set_instruction(&mut cf, mutant, |i| {
            i.opcode = to;
            if to == Opcode::NOP {
                i.operand = Operand::None;
            }
        });
        return cf.to_bytes().map_err(write);
    }
    match mutant.operator {
        Operator::Increments => {
            set_instruction(&mut cf, mutant, |i| {
                if let Operand::Iinc { delta, .. } = &mut i.operand {
                    *delta = -*delta;
                }
            });
        }
        Operator::VoidMethodCalls => remove_call(&mut cf, mutant, &original).map_err(write)?,
        Operator::EmptyReturns
        | Operator::FalseReturns
        | Operator::TrueReturns
        | Operator::NullReturns
        | Operator::PrimitiveReturns => replace_return(&mut cf, mutant).map_err(write)?,
        _ => return Err(mismatch("the operator does not apply to the instruction")),
    }
    cf.to_bytes().map_err(write)
}

fn set_instruction(cf: &mut ClassFile, mutant: &Mutant, change: impl FnOnce(&mut Instruction)) {
    if let Some(i) = cf
        .methods
        .get_mut(mutant.method_index)
        .and_then(|m| m.code_mut())
        .and_then(|c| c.instructions.get_mut(mutant.instruction))
    {
        change(i);
    }
}

/// The call becomes a `nop` after pops of its arguments and receiver.
fn remove_call(cf: &mut ClassFile, mutant: &Mutant, call: &Instruction) -> Result<(), WriteError> {
    let bad = |reason: &str| WriteError::BadEdit {
        method: mutant.method.clone(),
        reason: reason.to_string(),
    };
    let r = call
        .cp_index()
        .and_then(|ix| cf.constant_pool.member_ref(ix).ok())
        .ok_or_else(|| bad("the call's method reference is unreadable"))?;
    let d = MethodDescriptor::parse(r.descriptor).map_err(|_| bad("bad descriptor"))?;
    let mut pops: Vec<Item> = d
        .params
        .iter()
        .rev()
        .map(|p| {
            plain(if p.slots() == 2 {
                Opcode::POP2
            } else {
                Opcode::POP
            })
        })
        .collect();
    if call.opcode != Opcode::INVOKESTATIC {
        pops.push(plain(Opcode::POP));
    }
    // The code is laid out again either way (the nop is shorter than the call).
    pops.push(plain(Opcode::NOP));
    set_instruction(cf, mutant, |i| {
        i.opcode = Opcode::NOP;
        i.operand = Operand::None;
    });
    cf.edit_code(mutant.method_index, |ed, _| {
        ed.insert_before(mutant.offset, pops);
        Ok(())
    })
}

/// The returned value is popped and replaced before the return.
fn replace_return(cf: &mut ClassFile, mutant: &Mutant) -> Result<(), WriteError> {
    let bad = |reason: &str| WriteError::BadEdit {
        method: mutant.method.clone(),
        reason: reason.to_string(),
    };
    let d = MethodDescriptor::parse(&mutant.descriptor).map_err(|_| bad("bad descriptor"))?;
    let ret = d.ret.ok_or_else(|| bad("a void method returns nothing"))?;
    let pop = plain(if ret.slots() == 2 {
        Opcode::POP2
    } else {
        Opcode::POP
    });
    let operator = mutant.operator;
    cf.edit_code(mutant.method_index, |ed, cp| {
        let mut items = vec![pop];
        items.extend(replacement(cp, &ret, operator).ok_or_else(|| bad("no replacement"))?);
        ed.insert_before(mutant.offset, items);
        ed.add_max_stack(2);
        Ok(())
    })
}

/// The instructions pushing what a return mutant returns instead.
fn replacement(cp: &mut ConstantPool, ret: &FieldType, operator: Operator) -> Option<Vec<Item>> {
    let static_call = |cp: &mut ConstantPool, owner: &str, name: &str, d: &str, iface: bool| {
        insn(
            Opcode::INVOKESTATIC,
            Operand::Constant(cp.intern_method_ref(owner, name, d, iface)),
        )
    };
    Some(match (operator, ret) {
        (Operator::FalseReturns | Operator::TrueReturns, FieldType::Boolean) => {
            vec![plain(if operator == Operator::TrueReturns {
                Opcode::ICONST_1
            } else {
                Opcode::ICONST_0
            })]
        }
        (Operator::FalseReturns | Operator::TrueReturns, FieldType::Object(_)) => {
            let name = if operator == Operator::TrueReturns {
                "TRUE"
            } else {
                "FALSE"
            };
            let f = cp.intern_field_ref("java/lang/Boolean", name, "Ljava/lang/Boolean;");
            vec![insn(Opcode::GETSTATIC, Operand::Constant(f))]
        }
        (Operator::PrimitiveReturns, t) => vec![plain(zero(t)?)],
        (Operator::NullReturns, _) => vec![plain(Opcode::ACONST_NULL)],
        (Operator::EmptyReturns, FieldType::Object(o)) => {
            empty_value(o)?;
            match o.as_str() {
                "java/lang/String" => {
                    let s = cp.intern_string("");
                    vec![insn(Opcode::LDC_W, Operand::Constant(s))]
                }
                "java/util/Optional" => {
                    vec![static_call(cp, o, "empty", "()Ljava/util/Optional;", false)]
                }
                "java/util/stream/Stream" => vec![static_call(
                    cp,
                    o,
                    "empty",
                    "()Ljava/util/stream/Stream;",
                    true,
                )],
                "java/util/List" | "java/util/Collection" => vec![static_call(
                    cp,
                    "java/util/Collections",
                    "emptyList",
                    "()Ljava/util/List;",
                    false,
                )],
                "java/util/Set" => vec![static_call(
                    cp,
                    "java/util/Collections",
                    "emptySet",
                    "()Ljava/util/Set;",
                    false,
                )],
                "java/util/Map" => vec![static_call(
                    cp,
                    "java/util/Collections",
                    "emptyMap",
                    "()Ljava/util/Map;",
                    false,
                )],
                boxed => {
                    let (prim, d) = match boxed {
                        "java/lang/Integer" => (FieldType::Int, "I"),
                        "java/lang/Short" => (FieldType::Short, "S"),
                        "java/lang/Long" => (FieldType::Long, "J"),
                        "java/lang/Byte" => (FieldType::Byte, "B"),
                        "java/lang/Character" => (FieldType::Char, "C"),
                        "java/lang/Float" => (FieldType::Float, "F"),
                        _ => (FieldType::Double, "D"),
                    };
                    let descriptor = format!("({d})L{boxed};");
                    vec![
                        plain(zero(&prim)?),
                        static_call(cp, boxed, "valueOf", &descriptor, false),
                    ]
                }
            }
        }
        _ => return None,
    })
}

fn zero(t: &FieldType) -> Option<Opcode> {
    Some(match t {
        FieldType::Int | FieldType::Short | FieldType::Char | FieldType::Byte => Opcode::ICONST_0,
        FieldType::Long => Opcode::LCONST_0,
        FieldType::Float => Opcode::FCONST_0,
        FieldType::Double => Opcode::DCONST_0,
        _ => return None,
    })
}

/// The class file with a call of `Reach.hit(first + id)` before every instruction a mutant
/// changes.
pub fn reach_probes(
    class: &ClassFile,
    mutants: &[Mutant],
    first: u32,
) -> Result<Vec<u8>, MutateError> {
    let mut cf = class.clone();
    let mut by_method: BTreeMap<usize, Vec<&Mutant>> = BTreeMap::new();
    for m in mutants {
        by_method.entry(m.method_index).or_default().push(m);
    }
    for (method, ms) in by_method {
        let edited = cf.edit_code(method, |ed, cp| {
            let hit = cp.intern_method_ref(REACH_CLASS, "hit", "(I)V", false);
            for m in &ms {
                let items = vec![
                    push_int(cp, first + m.id.0),
                    insn(Opcode::INVOKESTATIC, Operand::Constant(hit)),
                ];
                ed.insert_before(m.offset, items);
            }
            ed.add_max_stack(1);
            Ok(())
        });
        edited.map_err(|source| MutateError::Write {
            class: ms[0].class.clone(),
            mutant: ms[0].id.0,
            source,
        })?;
    }
    cf.to_bytes().map_err(|source| MutateError::Write {
        class: class
            .name()
            .map_or_else(|_| ClassName::from_internal("?"), ClassName::from_internal),
        mutant: 0,
        source,
    })
}
