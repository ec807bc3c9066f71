//! The symbolic state: call frames with operand stacks and locals, the heap, static fields,
//! the table of symbolic references, and the path condition with a model satisfying it.

use std::collections::HashMap;
use std::sync::Arc;

use rivet_pc::{Model, SymbolId, Term};

use crate::heap::{HeapObject, ObjKind};
use crate::program::{ClassId, MethodBody};
use crate::value::{ObjectId, Reference, SymRefId, Value};
use rivet_pc::{AccessPath, Clause};

/// Why a frame runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Call,
    /// A static initializer run before the caller's current instruction (which then runs
    /// again).
    Clinit(ClassId),
}

#[derive(Debug, Clone)]
pub struct Frame {
    pub method: Arc<MethodBody>,
    /// Index of the current instruction.
    pub pc: usize,
    pub locals: Vec<Value>,
    pub stack: Vec<Value>,
    pub kind: FrameKind,
}

/// An input reference and what lazy initialization made of it.
#[derive(Debug, Clone)]
pub struct SymRef {
    pub path: AccessPath,
    /// Static type: internal name or array descriptor.
    pub ty: Arc<str>,
    pub symbol: SymbolId,
    /// The object holding this reference in a field, and the field (declaring class, name).
    pub holder: Option<(ObjectId, Arc<str>, Arc<str>)>,
    pub resolved: Option<Reference>,
    /// A subtype of `ty` the program casts the reference to before it is resolved: a fresh
    /// object of it is one more choice (inputs of other types stay possible, and throw).
    pub cast: Option<Arc<str>>,
}

/// Initialization of a class's statics in this state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitState {
    Running,
    Done,
}

#[derive(Debug, Clone)]
pub struct ClassStatics {
    pub init: InitState,
    pub values: Vec<Value>,
}

/// One state of the exploration.
#[derive(Debug, Clone)]
pub struct SymbolicState {
    pub frames: Vec<Frame>,
    pub heap: Vec<Arc<HeapObject>>,
    pub statics: Arc<HashMap<ClassId, ClassStatics>>,
    pub symrefs: Vec<SymRef>,
    /// The path condition, in order of assumption.
    pub pc: Vec<Clause>,
    /// The numeric clauses of `pc`, for the solver.
    pub numeric: Vec<Term>,
    /// Values satisfying `numeric`.
    pub model: Model,
    /// Input objects in order of resolution (the alias candidates).
    pub inputs: Vec<ObjectId>,
    /// Fresh input objects per class (heap scope).
    pub scope: HashMap<Arc<str>, u32>,
    pub depth: u32,
    pub steps: u64,
    /// Branch ids of the target class, in the order taken.
    pub branches: Vec<u32>,
    pub trace_pos: usize,
    pub mirrors: HashMap<Arc<str>, ObjectId>,
    pub literals: HashMap<Arc<str>, ObjectId>,
    /// The `Thread` object `Thread.currentThread()` answers, once asked.
    pub current_thread: Option<ObjectId>,
    /// The entry method's return value, once it returned.
    pub result: Option<Value>,
    /// The path used a value of a call that was not followed (or of an opaque string): its
    /// path condition may not describe what a concrete run does.
    pub imprecise: bool,
    /// The class of the exception that ended the path, once no frame caught it.
    pub uncaught: Option<Arc<str>>,
    /// Set by a branch to a target-class branch no earlier path covered (for searchers).
    pub new_coverage: bool,
    /// The input symbols of fields a count invariant counts, by access path (what the path's
    /// end compares with the structure; see `invariant_use`).
    pub input_prims: HashMap<AccessPath, Term>,
}

impl SymbolicState {
    pub fn new() -> SymbolicState {
        SymbolicState {
            frames: Vec::new(),
            heap: Vec::new(),
            statics: Arc::new(HashMap::new()),
            symrefs: Vec::new(),
            pc: Vec::new(),
            numeric: Vec::new(),
            model: Model::new(),
            inputs: Vec::new(),
            scope: HashMap::new(),
            depth: 0,
            steps: 0,
            branches: Vec::new(),
            trace_pos: 0,
            mirrors: HashMap::new(),
            literals: HashMap::new(),
            current_thread: None,
            result: None,
            uncaught: None,
            imprecise: false,
            new_coverage: false,
            input_prims: HashMap::new(),
        }
    }

    pub fn frame(&self) -> Option<&Frame> {
        self.frames.last()
    }

    pub fn frame_mut(&mut self) -> Option<&mut Frame> {
        self.frames.last_mut()
    }

    pub fn alloc(&mut self, object: HeapObject) -> ObjectId {
        let id = ObjectId(self.heap.len() as u32);
        self.heap.push(Arc::new(object));
        id
    }

    pub fn object(&self, id: ObjectId) -> Option<&HeapObject> {
        self.heap.get(id.0 as usize).map(|o| &**o)
    }

    /// The object, cloned first if another state shares it.
    pub fn object_mut(&mut self, id: ObjectId) -> Option<&mut HeapObject> {
        self.heap.get_mut(id.0 as usize).map(Arc::make_mut)
    }

    pub fn new_symref(
        &mut self,
        path: AccessPath,
        ty: Arc<str>,
        symbol: SymbolId,
        holder: Option<(ObjectId, Arc<str>, Arc<str>)>,
    ) -> SymRefId {
        let id = SymRefId(self.symrefs.len() as u32);
        self.symrefs.push(SymRef {
            path,
            ty,
            symbol,
            holder,
            resolved: None,
            cast: None,
        });
        id
    }

    /// A reference with any resolution already made applied.
    pub fn deref(&self, r: Reference) -> Reference {
        match r {
            Reference::Symbolic(s) => match self.symrefs.get(s.0 as usize).and_then(|s| s.resolved)
            {
                Some(done) => done,
                None => r,
            },
            other => other,
        }
    }

    /// Appends a clause to the path condition.
    pub fn assume(&mut self, clause: Clause) {
        if let Clause::Numeric(t) = &clause {
            self.numeric.push(t.clone());
        }
        self.pc.push(clause);
    }

    pub fn statics_mut(&mut self) -> &mut HashMap<ClassId, ClassStatics> {
        Arc::make_mut(&mut self.statics)
    }

    /// The string value of a `String`/builder object.
    pub fn string_of(&self, id: ObjectId) -> Option<&crate::heap::StrValue> {
        match &self.object(id)?.kind {
            ObjKind::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl Default for SymbolicState {
    fn default() -> SymbolicState {
        SymbolicState::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_pc::{CmpOp, SymbolSort};

    fn instance(fields: Vec<Value>) -> HeapObject {
        HeapObject {
            type_name: Arc::from("t/Node"),
            class: Some(ClassId(0)),
            kind: ObjKind::Instance(fields),
            origin: None,
        }
    }

    #[test]
    fn a_forked_state_writes_its_own_copy_of_a_shared_object() {
        let mut state = SymbolicState::new();
        let id = state.alloc(instance(vec![Value::int(1)]));
        let mut other = state.clone();
        if let Some(ObjKind::Instance(fields)) = other.object_mut(id).map(|o| &mut o.kind) {
            fields[0] = Value::int(2);
        }
        let field = |s: &SymbolicState| match &s.object(id).expect("object").kind {
            ObjKind::Instance(f) => f[0].clone(),
            _ => panic!("not an instance"),
        };
        assert_eq!(field(&state), Value::int(1), "the original is untouched");
        assert_eq!(field(&other), Value::int(2));
    }

    #[test]
    fn deref_applies_a_resolution_once_made() {
        let mut state = SymbolicState::new();
        let id = state.alloc(instance(Vec::new()));
        let s = state.new_symref(
            AccessPath::root("a"),
            Arc::from("t/Node"),
            SymbolId(0),
            None,
        );
        assert_eq!(state.deref(Reference::Symbolic(s)), Reference::Symbolic(s));
        state.symrefs[s.0 as usize].resolved = Some(Reference::Object(id));
        assert_eq!(state.deref(Reference::Symbolic(s)), Reference::Object(id));
        assert_eq!(state.deref(Reference::Null), Reference::Null);
    }

    #[test]
    fn only_numeric_clauses_reach_the_solver_list() {
        let mut state = SymbolicState::new();
        let x = Term::var(SymbolId(0), SymbolSort::Int);
        let c = Term::compare(CmpOp::Gt, x, Term::int(0)).expect("clause");
        state.assume(Clause::Null {
            path: AccessPath::root("a"),
            term: Term::bool(true),
        });
        state.assume(Clause::Numeric(c.clone()));
        assert_eq!(state.pc.len(), 2);
        assert_eq!(state.numeric, vec![c]);
    }
}
