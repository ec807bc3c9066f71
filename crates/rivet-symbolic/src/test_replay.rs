//! Whole-test replay (mode (a) of trace-guided replay, EvoSuite+DSE): a test's statements
//! run one after another in the interpreter, each primitive value of the test a symbol whose
//! model value is the test's own (with `ExploreConfig::symbolic_strings`, each string too),
//! every branch taking the side the concrete run took, and the call of interest following a
//! traced prefix whose last outcome is the one to reach. The solver's answer at that outcome
//! gives new values for the test's primitives and strings.

use std::sync::Arc;
use std::time::Duration;

use rivet_classfile::{ClassName, FieldType, Instruction, MethodDescriptor, Opcode, Operand};
use rivet_pc::{AccessPath, Clause, SymbolId, SymbolSort, SymbolTable, Term};
use rivet_solver::default_solver;

use crate::config::{ExploreConfig, Guidance, Trace};
use crate::error::SymbolicError;
use crate::explorer::Explorer;
use crate::heap::{Elements, ObjKind, StrValue};
use crate::interp::{self, Counters, Ctx, PathEnd, Step};
use crate::program::{MemberRefInfo, MethodBody, Program};
use crate::state::SymbolicState;
use crate::value::{Reference, Value};

/// One statement of a test, its uses by index of earlier statements.
#[derive(Debug, Clone, PartialEq)]
pub enum TestStep {
    /// A primitive value: its sort and its model value (bits for floats and doubles, 0/1
    /// for booleans). Each becomes a symbol `{sK}` (K the statement's index); a test should
    /// be expanded first so that each use of a value is its own statement.
    Primitive {
        sort: SymbolSort,
        value: i64,
    },
    /// A string: a symbol `{sK}` whose model value is this text with symbolic strings,
    /// else concrete.
    Str(String),
    Null,
    /// A new array (component field descriptor) of earlier values.
    Array {
        component: String,
        elements: Vec<usize>,
    },
    /// `new C(args)`.
    New {
        class: ClassName,
        descriptor: String,
        args: Vec<usize>,
    },
    /// A method call; `receiver` None for a static method.
    Call {
        class: ClassName,
        name: String,
        descriptor: String,
        receiver: Option<usize>,
        args: Vec<usize>,
    },
}

/// A test to replay, the class whose branch ids the prefix uses, the statement whose call
/// follows the prefix, and the prefix (the branch outcomes of the class under test during
/// that call, the last one the outcome to reach).
#[derive(Debug, Clone)]
pub struct WholeTest {
    pub class: ClassName,
    pub steps: Vec<TestStep>,
    pub target: usize,
    pub prefix: Vec<u32>,
}

/// New primitive values that take the test's call of interest along the prefix.
#[derive(Debug, Clone)]
pub struct WholeTestSolution {
    /// (statement index, new model value) of the primitives whose value changed.
    pub changed: Vec<(usize, i64)>,
    /// (statement index, new text) of the strings whose value changed.
    pub changed_strings: Vec<(usize, rivet_pc::JavaString)>,
    /// The path condition of the replay up to the end of the call, and its symbols.
    pub pc: Vec<Clause>,
    pub symbols: SymbolTable,
}

/// Where a replay stands.
#[derive(Clone)]
enum Phase {
    /// About to run statement `step`.
    Next,
    /// A call was made from the driver frame; `new` is the object a constructor call builds.
    InCall {
        op: Opcode,
        mref: MemberRefInfo,
        new: Option<Value>,
    },
}

#[derive(Clone)]
struct Cursor {
    state: SymbolicState,
    step: usize,
    phase: Phase,
    values: Vec<Value>,
    /// The symbol of each primitive statement run so far.
    inputs: Vec<(usize, SymbolId)>,
}

/// The driver's frame: one `nop`, under the calls the test makes. A call has returned when
/// the driver's pc moved past it.
fn driver_body(program: &mut Program, class: &ClassName) -> Result<Arc<MethodBody>, SymbolicError> {
    let info = program.require(class.internal())?;
    let signature = MethodDescriptor::parse("()V").map_err(|_| SymbolicError::Bytecode {
        class: class.clone(),
        method: "<driver>".into(),
        reason: "driver descriptor".into(),
    })?;
    Ok(Arc::new(MethodBody {
        class: info.id,
        class_name: info.name.clone(),
        name: Arc::from("<driver>"),
        descriptor: Arc::from("()V"),
        signature,
        access: rivet_classfile::AccessFlags(0x0008),
        max_locals: 0,
        insns: vec![Instruction::new(Opcode::NOP, Operand::None)],
        handlers: Vec::new(),
        branches: Default::default(),
    }))
}

fn unsupported(class: &ClassName, reason: impl Into<String>) -> SymbolicError {
    SymbolicError::Bytecode {
        class: class.clone(),
        method: "<test>".into(),
        reason: reason.into(),
    }
}

impl Explorer {
    /// Replays `test` (see the module): Some(solution) when the call of interest can follow
    /// the whole prefix, None when no input found does so within the configured time.
    pub fn replay_test(
        &self,
        test: &WholeTest,
    ) -> Result<Option<WholeTestSolution>, SymbolicError> {
        let mut program = Program::new(
            self.classpath().clone(),
            self.hierarchy().clone(),
            test.class.internal(),
        )
        .sharing_analyses(self.analyses());
        let driver = driver_body(&mut program, &test.class)?;
        let mut symbols = SymbolTable::default();
        let mut counters = Counters::default();
        let mut solver = default_solver(self.config().solver_timeout);
        let free = ExploreConfig {
            guidance: Guidance::Model { trace: None },
            ..self.config().clone()
        };
        let guided = ExploreConfig {
            guidance: Guidance::Model {
                trace: Some(Trace::prefix(test.prefix.clone())),
            },
            ..free.clone()
        };
        let clock = self.clock().clone();
        let deadline = self.config().time_budget.map(|b| clock.deadline(b));
        let mut initial = SymbolicState::new();
        interp::enter_method(&mut initial, driver.clone(), Vec::new());
        let mut work = vec![Cursor {
            state: initial,
            step: 0,
            phase: Phase::Next,
            values: Vec::new(),
            inputs: Vec::new(),
        }];
        let mut clock = Clock {
            clock,
            deadline,
            steps_run: 0,
            ticked: 0,
            asked: 0,
            gave_up: 0,
        };
        while let Some(mut cursor) = work.pop() {
            if clock.passed() {
                return Ok(None);
            }
            let config = if cursor.step == test.target {
                &guided
            } else {
                &free
            };
            let mut ctx = Ctx {
                program: &mut program,
                symbols: &mut symbols,
                solver: &mut solver,
                config,
                counters: &mut counters,
            };
            match cursor.phase.clone() {
                Phase::Next => {
                    let Some(step) = test.steps.get(cursor.step) else {
                        continue;
                    };
                    if cursor.step == test.target {
                        cursor.state.trace_pos = 0;
                    }
                    if let Some(v) = start(&mut cursor, &mut ctx, &driver, step, test)? {
                        cursor.values.push(v);
                        cursor.step += 1;
                    }
                    work.push(cursor);
                }
                Phase::InCall { op, mref, new } => {
                    match run_call(&mut cursor, &mut ctx, &mut clock)? {
                        CallOutcome::OutOfTime => return Ok(None),
                        CallOutcome::Forked(children) => {
                            for child in children.into_iter().rev() {
                                work.push(Cursor {
                                    state: child,
                                    step: cursor.step,
                                    phase: cursor.phase.clone(),
                                    values: cursor.values.clone(),
                                    inputs: cursor.inputs.clone(),
                                });
                            }
                        }
                        CallOutcome::Ended => {}
                        CallOutcome::Returned => {
                            match after_call(cursor, &mut ctx, &driver, test, op, &mref, new)? {
                                AfterCall::Solved(cursor) => {
                                    return Ok(Some(solution(test, cursor, symbols)))
                                }
                                AfterCall::Next(cursor) => work.push(cursor),
                                AfterCall::Dropped => {}
                            }
                        }
                    }
                }
            }
        }
        Ok(None)
    }
}

/// The replay's time limit on the run's clock, checked as the explorer does: every few
/// thousand steps and after every query (the steps advance the clock then).
struct Clock {
    clock: rivet_clock::RunClock,
    deadline: Option<Duration>,
    steps_run: u64,
    /// The steps counted on the clock so far.
    ticked: u64,
    /// The solver calls counted at the last step.
    asked: u64,
    /// The queries the backend gave up on, charged to the clock so far.
    gave_up: u64,
}

impl Clock {
    /// Counts a step; true if the time is up.
    fn expired(&mut self, ctx: &Ctx<'_>) -> bool {
        self.steps_run += 1;
        let solver_calls = ctx.counters.solver_calls;
        let check = self.steps_run.is_multiple_of(4096) || solver_calls != self.asked;
        self.asked = solver_calls;
        if !check {
            return false;
        }
        self.clock.stepped(self.steps_run - self.ticked);
        self.ticked = self.steps_run;
        crate::explorer::charge_give_ups(&self.clock, ctx, self.gave_up);
        self.gave_up = ctx.counters.gave_up;
        self.passed()
    }

    fn passed(&self) -> bool {
        self.deadline.is_some_and(|d| self.clock.passed(d))
    }
}

/// What running a call made from the driver came to.
enum CallOutcome {
    /// Control is back in the driver frame (or the call threw past it).
    Returned,
    /// The state forked: these are its successors, each still in the call.
    Forked(Vec<SymbolicState>),
    /// The path ended inside the call.
    Ended,
    /// The time limit passed.
    OutOfTime,
}

/// Runs the cursor's state until the call returns to the driver, forks or ends.
fn run_call(
    cursor: &mut Cursor,
    ctx: &mut Ctx<'_>,
    clock: &mut Clock,
) -> Result<CallOutcome, SymbolicError> {
    while cursor.state.frames.len() > 1 {
        if clock.expired(ctx) {
            return Ok(CallOutcome::OutOfTime);
        }
        match interp::step(&mut cursor.state, ctx)? {
            Step::Continue => {}
            Step::Fork(children) => return Ok(CallOutcome::Forked(children)),
            Step::End(_) => return Ok(CallOutcome::Ended),
        }
    }
    Ok(CallOutcome::Returned)
}

/// Where a cursor goes once its call returned to the driver.
enum AfterCall {
    /// The target call followed the whole prefix: the cursor holds a solution.
    Solved(Cursor),
    /// The test goes on with the cursor.
    Next(Cursor),
    /// Not a way through the test.
    Dropped,
}

/// After the call `op mref` returned to the driver (or threw past it): the solution at the
/// target statement, the call made again after a static initializer ran first, or the
/// call's result (`new`'s object for a constructor) recorded and the next statement due.
fn after_call(
    mut cursor: Cursor,
    ctx: &mut Ctx<'_>,
    driver: &Arc<MethodBody>,
    test: &WholeTest,
    op: Opcode,
    mref: &MemberRefInfo,
    new: Option<Value>,
) -> Result<AfterCall, SymbolicError> {
    let at_target = cursor.step == test.target;
    let followed = cursor.state.trace_pos >= test.prefix.len();
    if cursor.state.frames.is_empty() {
        // The call threw past the driver: the test ends here.
        return Ok(if at_target && followed {
            AfterCall::Solved(cursor)
        } else {
            AfterCall::Dropped
        });
    }
    let driver_pc = cursor.state.frames.last().map_or(0, |f| f.pc);
    if driver_pc == 0 {
        // A static initializer ran first: make the call again.
        let step = interp::invoke_ref(&mut cursor.state, ctx, driver, op, mref)?;
        return Ok(if matches!(step, Step::Continue) {
            AfterCall::Next(cursor)
        } else {
            AfterCall::Dropped
        });
    }
    if at_target {
        return Ok(if followed {
            AfterCall::Solved(cursor)
        } else {
            AfterCall::Dropped
        });
    }
    let result = match new {
        Some(v) => v,
        None if interp::return_descriptor(&mref.descriptor) == "V" => Value::null(),
        None => interp::Ops::pop(&mut cursor.state)?,
    };
    if let Some(f) = cursor.state.frames.last_mut() {
        f.pc = 0;
        f.stack.clear();
    }
    cursor.values.push(result);
    cursor.step += 1;
    cursor.phase = Phase::Next;
    Ok(AfterCall::Next(cursor))
}

/// Starts statement `step`: a value is returned at once; a call is made from the driver
/// frame (the cursor's phase becomes `InCall`, and None is returned).
fn start(
    cursor: &mut Cursor,
    ctx: &mut Ctx<'_>,
    driver: &Arc<MethodBody>,
    step: &TestStep,
    test: &WholeTest,
) -> Result<Option<Value>, SymbolicError> {
    Ok(Some(match step {
        TestStep::Primitive { sort, value } => primitive_input(cursor, ctx, *sort, *value),
        TestStep::Str(text) => string_input(cursor, ctx, text)?,
        TestStep::Null => Value::null(),
        TestStep::Array {
            component,
            elements,
        } => {
            let values = earlier(cursor, test, elements)?;
            let id = interp::alloc_array(&mut cursor.state, component, values.len() as i32);
            if let Some(o) = cursor.state.object_mut(id) {
                if let ObjKind::Array { elements, .. } = &mut o.kind {
                    *elements = Elements::Dense(values);
                }
            }
            Value::Ref(Reference::Object(id))
        }
        TestStep::New {
            class,
            descriptor,
            args,
        } => {
            let args = arguments(cursor, ctx, test, args, descriptor)?;
            construct(cursor, ctx, driver, class, descriptor, args)?;
            return Ok(None);
        }
        TestStep::Call {
            class,
            name,
            descriptor,
            receiver,
            args,
        } => {
            let mut all = Vec::with_capacity(args.len() + 1);
            let op = match receiver {
                Some(r) => {
                    all.extend(earlier(cursor, test, std::slice::from_ref(r))?);
                    Opcode::INVOKEVIRTUAL
                }
                None => Opcode::INVOKESTATIC,
            };
            all.extend(arguments(cursor, ctx, test, args, descriptor)?);
            let mref = MemberRefInfo {
                owner: Arc::from(class.internal()),
                name: Arc::from(name.as_str()),
                descriptor: Arc::from(descriptor.as_str()),
                interface: false,
            };
            call(cursor, ctx, driver, op, mref, None, all)?;
            return Ok(None);
        }
    }))
}

/// The values of earlier statements `indices`.
fn earlier(
    cursor: &Cursor,
    test: &WholeTest,
    indices: &[usize],
) -> Result<Vec<Value>, SymbolicError> {
    indices
        .iter()
        .map(|i| {
            cursor
                .values
                .get(*i)
                .cloned()
                .ok_or_else(|| unsupported(&test.class, format!("use of statement {i} before it")))
        })
        .collect()
}

/// The values of earlier statements `indices` as the arguments of a call of `descriptor`:
/// a primitive passed where the parameter is a reference is boxed, as javac does for the
/// test (`map.put(int0, …)` with `int0` an `int`), into a new box of its sort holding it.
fn arguments(
    cursor: &mut Cursor,
    ctx: &mut Ctx<'_>,
    test: &WholeTest,
    indices: &[usize],
    descriptor: &str,
) -> Result<Vec<Value>, SymbolicError> {
    let mut values = earlier(cursor, test, indices)?;
    let Ok(signature) = MethodDescriptor::parse(descriptor) else {
        return Ok(values);
    };
    for ((value, param), i) in values.iter_mut().zip(&signature.params).zip(indices) {
        let reference = matches!(param, FieldType::Object(_) | FieldType::Array(_));
        if let (true, Some(TestStep::Primitive { sort, .. })) = (reference, test.steps.get(*i)) {
            *value = boxed(&mut cursor.state, ctx, *sort, value.clone())?;
        }
    }
    Ok(values)
}

/// A new box of `sort`'s wrapper class holding `value`.
fn boxed(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    sort: SymbolSort,
    value: Value,
) -> Result<Value, SymbolicError> {
    let class = match sort {
        SymbolSort::Boolean => "java/lang/Boolean",
        SymbolSort::Byte => "java/lang/Byte",
        SymbolSort::Char => "java/lang/Character",
        SymbolSort::Short => "java/lang/Short",
        SymbolSort::Long => "java/lang/Long",
        SymbolSort::Float => "java/lang/Float",
        SymbolSort::Double => "java/lang/Double",
        _ => "java/lang/Integer",
    };
    let id = interp::alloc_box(state, ctx, class, value)?;
    Ok(Value::Ref(Reference::Object(id)))
}

/// A primitive statement: a new symbol `{sK}` whose model value is the test's.
fn primitive_input(cursor: &mut Cursor, ctx: &mut Ctx<'_>, sort: SymbolSort, value: i64) -> Value {
    let symbol: SymbolId = ctx
        .symbols
        .fresh(AccessPath::root(&format!("s{}", cursor.step)), sort);
    cursor.state.model.set(symbol, value);
    cursor.inputs.push((cursor.step, symbol));
    let t = Term::var(symbol, sort);
    match sort {
        SymbolSort::Long => Value::Long(t),
        SymbolSort::Float => Value::Float(t),
        SymbolSort::Double => Value::Double(t),
        _ => Value::Int(t),
    }
}

/// A string statement: with symbolic strings a string symbol `{sK}` whose model value is
/// the text, else the concrete text.
fn string_input(
    cursor: &mut Cursor,
    ctx: &mut Ctx<'_>,
    text: &str,
) -> Result<Value, SymbolicError> {
    let value = if ctx.config.symbolic_strings {
        let symbol: SymbolId = ctx.symbols.fresh(
            AccessPath::root(&format!("s{}", cursor.step)),
            SymbolSort::Str,
        );
        cursor
            .state
            .model
            .set_string(symbol, rivet_pc::JavaString::from(text));
        cursor.inputs.push((cursor.step, symbol));
        StrValue::Term(Term::var(symbol, SymbolSort::Str))
    } else {
        StrValue::Concrete(Arc::from(text))
    };
    let id = interp::alloc_string(&mut cursor.state, ctx, value)?;
    Ok(Value::Ref(Reference::Object(id)))
}

/// `new C(args)`: the class initialized first (its frames run to completion), then the
/// constructor called on a new instance from the driver frame.
fn construct(
    cursor: &mut Cursor,
    ctx: &mut Ctx<'_>,
    driver: &Arc<MethodBody>,
    class: &ClassName,
    descriptor: &str,
    args: Vec<Value>,
) -> Result<(), SymbolicError> {
    let state = &mut cursor.state;
    if !interp::ensure_initialized(state, ctx, class.internal())? {
        run_to_driver(state, ctx)?;
    }
    let id = interp::alloc_instance(state, ctx, class.internal())?;
    let this = Value::Ref(Reference::Object(id));
    let mref = MemberRefInfo {
        owner: Arc::from(class.internal()),
        name: Arc::from("<init>"),
        descriptor: Arc::from(descriptor),
        interface: false,
    };
    call(
        cursor,
        ctx,
        driver,
        Opcode::INVOKESPECIAL,
        mref,
        Some(this),
        args,
    )
}

/// Runs the state's frames above the driver's to completion, without forks (static
/// initializers of the test's classes).
fn run_to_driver(state: &mut SymbolicState, ctx: &mut Ctx<'_>) -> Result<(), SymbolicError> {
    let class = ClassName::from_internal("?");
    while state.frames.len() > 1 {
        match interp::step(state, ctx)? {
            Step::Continue => {}
            Step::End(PathEnd::Return) => break,
            _ => return Err(unsupported(&class, "a static initializer forked")),
        }
    }
    Ok(())
}

/// Pushes the receiver (or the new object) and arguments on the driver's stack and invokes.
fn call(
    cursor: &mut Cursor,
    ctx: &mut Ctx<'_>,
    driver: &Arc<MethodBody>,
    op: Opcode,
    mref: MemberRefInfo,
    new: Option<Value>,
    args: Vec<Value>,
) -> Result<(), SymbolicError> {
    let state = &mut cursor.state;
    if let Some(f) = state.frames.last_mut() {
        f.pc = 0;
        f.stack.clear();
        f.stack.extend(new.clone());
        f.stack.extend(args);
    }
    interp::invoke_ref(state, ctx, driver, op, &mref)?;
    cursor.phase = Phase::InCall { op, mref, new };
    Ok(())
}

/// The primitives whose model value changed, and the path condition.
fn solution(test: &WholeTest, cursor: Cursor, symbols: SymbolTable) -> WholeTestSolution {
    let mut changed = Vec::new();
    let mut changed_strings = Vec::new();
    for (k, id) in &cursor.inputs {
        match test.steps.get(*k) {
            Some(TestStep::Primitive { value, .. }) => {
                if let Some(v) = cursor.state.model.get(*id) {
                    if v != *value {
                        changed.push((*k, v));
                    }
                }
            }
            Some(TestStep::Str(text)) => {
                if let Some(v) = cursor.state.model.get_string(*id) {
                    if *v != rivet_pc::JavaString::from(text.as_str()) {
                        changed_strings.push((*k, v.clone()));
                    }
                }
            }
            _ => {}
        }
    }
    WholeTestSolution {
        changed,
        changed_strings,
        pc: cursor.state.pc,
        symbols,
    }
}
