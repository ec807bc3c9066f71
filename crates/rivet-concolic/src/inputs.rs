//! Inputs from a concolic solution: which arguments of the traced call a path condition
//! constrains (primitives, strings by their contents' symbol) and the test with those
//! arguments set from the solver's model.

use std::collections::BTreeMap;

use rivet_classfile::{FieldType, MethodDescriptor};
use rivet_pc::PathCondition;
use rivet_testcase::{JType, PrimitiveValue, Statement, StatementId, TypedTest};

/// The symbols of one argument a path condition mentions.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct ArgSymbols {
    /// The argument itself: a primitive value, or a reference (0 is null).
    value: Option<rivet_pc::SymbolId>,
    /// A string argument's contents.
    text: Option<rivet_pc::SymbolId>,
    /// The condition says the argument is null.
    null: bool,
}

/// The symbols per argument position (0-based) of a path condition whose inputs are all
/// arguments of the call, primitive or string (values of calls the executor did not follow
/// may appear too: they are not inputs); None if it needs anything else (the receiver,
/// fields, array elements).
pub(crate) fn arguments_only(pc: &PathCondition) -> Option<BTreeMap<usize, ArgSymbols>> {
    let mut args: BTreeMap<usize, ArgSymbols> = BTreeMap::new();
    for (id, info) in &pc.symbols {
        let root = info.path.root_name();
        if root == "this" {
            return None;
        }
        let Some(n) = root
            .strip_prefix("arg")
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if n == 0 {
            return None;
        }
        let entry = args.entry(n - 1).or_default();
        match info.path.steps().as_slice() {
            [_] if info.sort == rivet_pc::SymbolSort::Str => entry.text = Some(*id),
            [_] => entry.value = Some(*id),
            _ => return None,
        }
    }
    for c in &pc.clauses {
        if let rivet_pc::Clause::Null { path, .. } = c {
            let n = path
                .root_name()
                .strip_prefix("arg")
                .and_then(|n| n.parse::<usize>().ok());
            if let (Some(n), None) = (n, path.parent()) {
                args.entry(n.checked_sub(1)?).or_default().null = true;
            }
        }
    }
    Some(args)
}

/// `test` with the arguments of its call at `statement` set from `model`, and the call's new
/// index; None when the call is not there or an argument's type does not fit its symbols.
pub(crate) fn with_arguments(
    test: &TypedTest,
    statement: usize,
    args: &BTreeMap<usize, ArgSymbols>,
    model: &rivet_pc::Model,
) -> Option<(TypedTest, usize)> {
    let (member, uses) = match test.statements().get(statement)? {
        Statement::Call { method, args, .. } => (method, args.clone()),
        Statement::Construct { constructor, args } => (constructor, args.clone()),
        _ => return None,
    };
    let params = MethodDescriptor::parse(&member.descriptor).ok()?.params;
    let mut out = test.clone();
    // New values go right before the call (whose earlier arguments keep their ids). A symbol
    // of the condition without a value reads as 0 (the solver's completion); what the
    // condition does not mention keeps its value.
    let value = |s: rivet_pc::SymbolId| model.get(s).unwrap_or(0);
    let mut fixed = uses.clone();
    let mut call = statement;
    for (&i, symbols) in args {
        let param = params.get(i)?;
        let (new, ty) = match param {
            FieldType::Object(c) if c == "java/lang/String" => {
                if symbols.null {
                    let d = "Ljava/lang/String;".to_string();
                    (
                        Statement::Null { descriptor: d },
                        JType::from_descriptor("Ljava/lang/String;"),
                    )
                } else {
                    let old = match uses
                        .get(i)
                        .and_then(|u| test.statements().get(u.0 as usize))
                    {
                        Some(Statement::String(s)) => s.encode_utf16().collect(),
                        _ => Vec::new(),
                    };
                    let text = string_value(&old, symbols, model)?;
                    (
                        Statement::String(text),
                        JType::from_descriptor("Ljava/lang/String;"),
                    )
                }
            }
            _ => {
                if symbols.text.is_some() {
                    return None;
                }
                let Some(v) = symbols.value else { continue };
                let p = primitive(param, value(v))?;
                (
                    Statement::Primitive(p),
                    JType::from_descriptor(p.descriptor()),
                )
            }
        };
        out.insert_at(call, |t| {
            t.push(new, ty);
        });
        *fixed.get_mut(i)? = StatementId(call as u32);
        call += 1;
    }
    let replaced = match out.statements().get(call)? {
        Statement::Call {
            method, receiver, ..
        } => Statement::Call {
            method: method.clone(),
            receiver: *receiver,
            args: fixed,
        },
        Statement::Construct { constructor, .. } => Statement::Construct {
            constructor: constructor.clone(),
            args: fixed,
        },
        _ => return None,
    };
    out.test.statements[call] = replaced;
    Some((out, call))
}

/// A string from a model: the contents' value when the model has one, else the old string
/// (the condition does not constrain it). None past the longest string the executor
/// considers.
fn string_value(old: &[u16], symbols: &ArgSymbols, model: &rivet_pc::Model) -> Option<String> {
    let units = match symbols.text.and_then(|s| model.get_string(s)) {
        Some(v) => v.units().to_vec(),
        None => old.to_vec(),
    };
    if units.len() > rivet_symbolic::lazy::MAX_SYMBOLIC_STRING as usize {
        return None;
    }
    Some(String::from_utf16_lossy(&units))
}

/// A model value as a value of a parameter type.
fn primitive(t: &FieldType, v: i64) -> Option<PrimitiveValue> {
    Some(match t {
        FieldType::Int => PrimitiveValue::Int(v as i32),
        FieldType::Long => PrimitiveValue::Long(v),
        FieldType::Short => PrimitiveValue::Short(v as i16),
        FieldType::Byte => PrimitiveValue::Byte(v as i8),
        FieldType::Char => PrimitiveValue::Char(v as u16),
        FieldType::Boolean => PrimitiveValue::Boolean(v != 0),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use rivet_pc::{AccessPath, Clause, CmpOp, Model, SymbolSort, SymbolTable, Term};
    use rivet_testcase::MemberRef;

    use rivet_pc::PathCondition;

    use super::*;

    /// `{arg2} > {arg1}`, plus `{x} > 0` over a symbol rooted at `extra` when given.
    fn condition(extra: Option<AccessPath>, extra_sort: SymbolSort) -> (PathCondition, Model) {
        let mut table = SymbolTable::default();
        let _this = table.fresh(AccessPath::root("this"), SymbolSort::Ref);
        let a1 = table.fresh(AccessPath::root("arg1"), SymbolSort::Int);
        let a2 = table.fresh(AccessPath::root("arg2"), SymbolSort::Int);
        let mut clauses = vec![Clause::Numeric(
            Term::compare(
                CmpOp::Gt,
                Term::var(a2, SymbolSort::Int),
                Term::var(a1, SymbolSort::Int),
            )
            .unwrap(),
        )];
        if let Some(path) = extra {
            let x = table.fresh(path, extra_sort);
            clauses.push(Clause::Numeric(
                Term::compare(CmpOp::Gt, Term::var(x, extra_sort), Term::int(0)).unwrap(),
            ));
        }
        let mut model = Model::new();
        model.set(a2, 7); // {arg1} has no value: it reads as 0
        (PathCondition::new(clauses, &table), model)
    }

    #[test]
    fn argument_conditions_become_new_argument_values_before_the_call() {
        let (pc, model) = condition(
            Some(AccessPath::root("Integer.parseInt#1")),
            SymbolSort::Int,
        );
        let args = arguments_only(&pc).expect("arguments and black-box results only");
        assert_eq!(args.keys().copied().collect::<Vec<_>>(), vec![0, 1]);
        // new Examples(); e.figure15(100, 5); then a use of the result.
        let figure15 = MemberRef::new("lct/Examples", "figure15", "(II)I");
        let mut t = TypedTest::new();
        let e = t.push(
            Statement::Construct {
                constructor: MemberRef::new("lct/Examples", "<init>", "()V"),
                args: vec![],
            },
            None,
        );
        let x = t.push(Statement::Primitive(PrimitiveValue::Int(100)), None);
        let y = t.push(Statement::Primitive(PrimitiveValue::Int(5)), None);
        let call = t.push(
            Statement::Call {
                method: figure15.clone(),
                receiver: Some(e),
                args: vec![x, y],
            },
            None,
        );
        t.push(
            Statement::Call {
                method: figure15,
                receiver: Some(e),
                args: vec![call, y],
            },
            None,
        );
        let (out, at) = with_arguments(&t, call.0 as usize, &args, &model).unwrap();
        assert_eq!(at, 5);
        let Statement::Call { args: used, .. } = &out.statements()[at] else {
            panic!("the call moved to {at}");
        };
        let value = |id: StatementId| match &out.statements()[id.0 as usize] {
            Statement::Primitive(v) => *v,
            other => panic!("{other:?}"),
        };
        assert_eq!(value(used[0]), PrimitiveValue::Int(0));
        assert_eq!(value(used[1]), PrimitiveValue::Int(7));
        // The later call still uses the first call's result, now at its new place.
        let Statement::Call { args: later, .. } = &out.statements()[6] else {
            panic!("{out:?}");
        };
        assert_eq!(later[0], StatementId(5));
        assert_eq!(value(later[1]), PrimitiveValue::Int(5));
    }

    #[test]
    fn conditions_on_the_receiver_fields_or_references_are_heap_goals() {
        for (path, sort) in [
            (AccessPath::root("this").field("size"), SymbolSort::Int),
            (AccessPath::root("arg1").field("next"), SymbolSort::Ref),
        ] {
            let (pc, _) = condition(Some(path.clone()), sort);
            assert!(arguments_only(&pc).is_none(), "{path}");
        }
        // A reference argument that is not a string: no test from the model.
        let (pc, model) = condition(Some(AccessPath::root("arg3")), SymbolSort::Ref);
        let args = arguments_only(&pc).unwrap();
        let mut t = TypedTest::new();
        let r = t.push(
            Statement::Null {
                descriptor: "Ljava/util/List;".into(),
            },
            None,
        );
        let call = t.push(
            Statement::Call {
                method: MemberRef::new("a/C", "m", "(IILjava/util/List;)V"),
                receiver: None,
                args: vec![r, r, r],
            },
            None,
        );
        assert!(with_arguments(&t, call.0 as usize, &args, &model).is_none());
    }

    #[test]
    fn string_arguments_take_their_contents_from_the_model() {
        let mut table = SymbolTable::default();
        let s = AccessPath::root("arg1");
        let _reference = table.fresh(s.clone(), SymbolSort::Ref);
        let text = table.fresh(s.clone(), SymbolSort::Str);
        let var = Term::var(text, SymbolSort::Str);
        let len = Term::string_op(rivet_pc::StrOp::Length, vec![var]).unwrap();
        let clauses = vec![Clause::Numeric(
            Term::compare(CmpOp::Eq, len, Term::int(10)).unwrap(),
        )];
        let pc = PathCondition::new(clauses, &table);
        let args = arguments_only(&pc).unwrap();
        let mut t = TypedTest::new();
        let old = t.push(Statement::String("xyz".into()), None);
        let call = t.push(
            Statement::Call {
                method: MemberRef::new("strings/DateParser", "parse", "(Ljava/lang/String;)[I"),
                receiver: None,
                args: vec![old],
            },
            None,
        );
        let at_call = |model: &Model| {
            let (out, at) = with_arguments(&t, call.0 as usize, &args, model).unwrap();
            let Statement::Call { args: used, .. } = &out.statements()[at] else {
                panic!("{out:?}");
            };
            out.statements()[used[0].0 as usize].clone()
        };
        let mut model = Model::new();
        model.set_string(text, rivet_pc::JavaString::from("2024-02-29"));
        assert_eq!(at_call(&model), Statement::String("2024-02-29".into()));
        // No value in the model: the old string stays.
        assert_eq!(at_call(&Model::new()), Statement::String("xyz".into()));
    }
}
