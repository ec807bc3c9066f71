//! Concrete mode: the input a path describes (its reference clauses give the heap shape,
//! its model the primitive values) built by direct heap setup, then run by the same
//! interpreter with no symbols, to check that it follows the path's branches.

use std::collections::HashMap;
use std::sync::Arc;

use rivet_pc::{Sort, SymbolSort, Term};

use crate::error::SymbolicError;
use crate::explorer::{Explorer, MethodSpec, PathRecord};
use crate::heap::{Elements, ObjKind};
use crate::interp::{self, Ctx, PathEnd, Step};
use crate::state::SymbolicState;
use crate::value::{ObjectId, Reference, Value};
use rivet_pc::{AccessPath, Clause, PathNode, SymbolTable};

/// The input of one path, independent of the exploration's symbol table.
#[derive(Debug, Clone)]
pub struct PathInput {
    /// The reference clauses, in order.
    pub shape: Vec<Clause>,
    /// Values of primitive inputs by access path.
    pub values: Vec<(AccessPath, SymbolSort, i64)>,
    /// Contents of input strings by access path (symbolic strings).
    pub strings: Vec<(AccessPath, rivet_pc::JavaString)>,
}

impl PathRecord {
    /// The input this path's PC and model describe.
    pub fn input(&self, symbols: &SymbolTable) -> PathInput {
        let shape = self
            .pc
            .iter()
            .filter(|c| !matches!(c, Clause::Numeric(_)))
            .cloned()
            .collect();
        let mut values = Vec::new();
        for (s, v) in self.model.iter() {
            if let Some(info) = symbols.info(s) {
                if info.sort != SymbolSort::Ref {
                    values.push((info.path.clone(), info.sort, v));
                }
            }
        }
        let strings = self
            .model
            .strings()
            .filter_map(|(s, v)| Some((symbols.info(s)?.path.clone(), v.clone())))
            .collect();
        PathInput {
            shape,
            values,
            strings,
        }
    }
}

/// What a concrete run did.
#[derive(Debug, Clone, PartialEq)]
pub struct ConcreteRun {
    /// Branch ids of the target class, in the order taken.
    pub trace: Vec<u32>,
    pub end: PathEnd,
    /// The run met a decision on a symbol (a call that was not followed): it is not fully
    /// concrete.
    pub forked: bool,
}

/// Where an access path leads: a root argument slot or a field/element of an object.
enum Place {
    Arg(usize),
    Field(ObjectId, Arc<str>),
    Element(ObjectId, i32),
    Other,
}

struct Builder<'a> {
    objects: HashMap<AccessPath, ObjectId>,
    args: &'a mut Vec<Value>,
    /// Root name (`this`, `arg1`) → argument slot.
    roots: HashMap<String, usize>,
}

impl Builder<'_> {
    fn place(&self, path: &AccessPath) -> Place {
        match &*path.0 {
            PathNode::Root(name) => match self.roots.get(&**name) {
                Some(i) => Place::Arg(*i),
                None => Place::Other,
            },
            PathNode::Field(parent, f) => match self.objects.get(parent) {
                Some(id) => Place::Field(*id, f.clone()),
                None => Place::Other,
            },
            PathNode::Index(parent, i) => match (self.objects.get(parent), i.parse::<i32>()) {
                (Some(id), Ok(i)) => Place::Element(*id, i),
                _ => Place::Other,
            },
            PathNode::Length(_) => Place::Other,
        }
    }

    fn store(&mut self, state: &mut SymbolicState, ctx: &mut Ctx<'_>, path: &AccessPath, v: Value) {
        match self.place(path) {
            Place::Arg(i) => {
                if let Some(slot) = self.args.get_mut(i) {
                    *slot = v;
                }
            }
            Place::Field(id, name) => {
                let slot = state
                    .object(id)
                    .and_then(|o| o.class)
                    .and_then(|c| ctx.program.class_by_id(c).field_by_name(&name));
                if let (Some(slot), Some(ObjKind::Instance(fields))) =
                    (slot, state.object_mut(id).map(|o| &mut o.kind))
                {
                    if let Some(cell) = fields.get_mut(slot) {
                        *cell = v;
                    }
                }
            }
            Place::Element(id, i) => {
                if let Some(ObjKind::Array {
                    elements: Elements::Dense(e),
                    ..
                }) = state.object_mut(id).map(|o| &mut o.kind)
                {
                    if let Some(cell) = e.get_mut(i as usize) {
                        *cell = v;
                    }
                }
            }
            Place::Other => {}
        }
    }
}

fn value_of(sort: SymbolSort, v: i64) -> Value {
    let v = sort.normalize(v);
    match sort.term_sort() {
        Sort::Long => Value::Long(Term::long(v)),
        Sort::Float => Value::Float(Term::from_concrete(rivet_pc::Concrete::Float(v as u32))),
        Sort::Double => Value::Double(Term::from_concrete(rivet_pc::Concrete::Double(v as u64))),
        _ => Value::Int(Term::int(v as i32)),
    }
}

impl Explorer {
    /// Builds `input` on the heap and runs `spec` concretely.
    pub fn replay(
        &self,
        spec: &MethodSpec,
        input: &PathInput,
    ) -> Result<ConcreteRun, SymbolicError> {
        let (mut session, entry) = self.session(spec)?;
        let mut solver = self.config().solver();
        let mut ctx = Ctx {
            program: &mut session.program,
            symbols: &mut session.symbols,
            solver: &mut solver,
            config: self.config(),
            counters: &mut session.counters,
        };
        let mut state = SymbolicState::new();
        let mut args: Vec<Value> = Vec::new();
        let mut roots = HashMap::new();
        let mut objects = HashMap::new();
        if !entry.is_static() {
            let id = interp::alloc_instance(&mut state, &mut ctx, &entry.class_name)?;
            roots.insert("this".to_string(), 0);
            objects.insert(AccessPath::root("this"), id);
            args.push(Value::Ref(Reference::Object(id)));
        }
        for (i, p) in entry.signature.params.iter().enumerate() {
            roots.insert(format!("arg{}", i + 1), args.len());
            args.push(Value::default_for(
                p.to_string().bytes().next().unwrap_or(b'I'),
            ));
        }
        let lengths: HashMap<AccessPath, i64> = input
            .values
            .iter()
            .filter_map(|(p, _, v)| match &*p.0 {
                PathNode::Length(parent) => Some((parent.clone(), *v)),
                _ => None,
            })
            .collect();
        let mut builder = Builder {
            objects,
            args: &mut args,
            roots,
        };
        for clause in &input.shape {
            match clause {
                Clause::Fresh { path, class, .. } => {
                    let id = fresh_input(&mut state, &mut ctx, input, &lengths, path, class)?;
                    builder.store(
                        &mut state,
                        &mut ctx,
                        path,
                        Value::Ref(Reference::Object(id)),
                    );
                    builder.objects.insert(path.clone(), id);
                }
                Clause::Alias { path, target, .. } => {
                    if let Some(id) = builder.objects.get(target).copied() {
                        builder.store(
                            &mut state,
                            &mut ctx,
                            path,
                            Value::Ref(Reference::Object(id)),
                        );
                        builder.objects.insert(path.clone(), id);
                    }
                }
                Clause::Null { path, .. } => {
                    builder.store(&mut state, &mut ctx, path, Value::null())
                }
                Clause::Numeric(_) => {}
            }
        }
        for (path, sort, v) in &input.values {
            builder.store(&mut state, &mut ctx, path, value_of(*sort, *v));
        }
        interp::enter_method(&mut state, entry.clone(), args);
        let class = entry.class_name.clone();
        interp::ensure_initialized(&mut state, &mut ctx, &class)?;
        run_to_end(state, &mut ctx)
    }
}

/// The object of the input's fresh clause for `path` of `class`: an array of the length
/// the input gives, a string of its text, or an instance with default fields.
fn fresh_input(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    input: &PathInput,
    lengths: &HashMap<AccessPath, i64>,
    path: &AccessPath,
    class: &str,
) -> Result<ObjectId, SymbolicError> {
    Ok(match class.strip_prefix('[') {
        Some(element) => {
            let n = lengths.get(path).copied().unwrap_or(0).clamp(0, 1 << 16);
            interp::alloc_array(state, element, n as i32)
        }
        None if interp::is_string_class(class) => {
            let text = input
                .strings
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, v)| v.to_text_lossy())
                .unwrap_or_default();
            interp::alloc_string(state, ctx, crate::heap::StrValue::Concrete(Arc::from(text)))?
        }
        None => interp::alloc_instance(state, ctx, class)?,
    })
}

/// Runs `state` to its path's end, taking the first successor where it forks.
fn run_to_end(mut state: SymbolicState, ctx: &mut Ctx<'_>) -> Result<ConcreteRun, SymbolicError> {
    let mut forked = false;
    loop {
        match interp::step(&mut state, ctx)? {
            Step::Continue => {}
            Step::Fork(mut children) => {
                forked = true;
                if children.is_empty() {
                    return Ok(ConcreteRun {
                        trace: state.branches,
                        end: PathEnd::Dropped,
                        forked,
                    });
                }
                state = children.remove(0);
            }
            Step::End(end) => {
                return Ok(ConcreteRun {
                    trace: state.branches,
                    end,
                    forked,
                })
            }
        }
    }
}
