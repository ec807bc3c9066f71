//! Exploration of one method: the entry state (a fresh receiver, symbolic arguments
//! `{arg1}`, `{arg2}`, ...), the loop that runs states until they fork or end, the searcher
//! that picks the next state, and the record of each path (its path condition, branches,
//! end) with a summary.

use rivet_classfile::ClassName;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rivet_clock::RunClock;

use rivet_classpath::{Classpath, Hierarchy};
use rivet_pc::Model;
use rivet_solver::{Solver, SolverStats};

use crate::config::ExploreConfig;
use crate::error::SymbolicError;
use crate::interp::{self, Counters, Ctx, PathEnd, Step};
use crate::lazy;
use crate::program::{AnalysisCache, MethodBody, Program};
use crate::searcher::{searcher_for, StateId, StateMeta};
use crate::state::SymbolicState;
use crate::value::{Reference, Value};
use rivet_pc::{AccessPath, Clause, PathCondition, SymbolTable};

/// The method to explore: class, name and descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodSpec {
    pub class: ClassName,
    pub name: String,
    pub descriptor: String,
}

impl MethodSpec {
    /// Parses `a.b.C.name(DESCRIPTOR)` (binary class name; `$` for nested classes).
    pub fn parse(text: &str) -> Result<MethodSpec, SymbolicError> {
        let bad = || SymbolicError::BadMethodName {
            text: text.to_string(),
        };
        let open = text.find('(').ok_or_else(bad)?;
        let (qualified, descriptor) = text.split_at(open);
        let (class, name) = qualified.rsplit_once('.').ok_or_else(bad)?;
        if class.is_empty() || name.is_empty() || !descriptor.contains(')') {
            return Err(bad());
        }
        rivet_classfile::MethodDescriptor::parse(descriptor).map_err(|_| bad())?;
        Ok(MethodSpec {
            class: ClassName::from_binary(class),
            name: name.to_string(),
            descriptor: descriptor.to_string(),
        })
    }

    pub fn display(&self) -> String {
        format!("{}.{}{}", self.class, self.name, self.descriptor)
    }
}

/// One explored path.
#[derive(Debug, Clone)]
pub struct PathRecord {
    pub id: u64,
    /// The path condition, in order of assumption.
    pub pc: Vec<Clause>,
    /// Branch ids of the target class it covers, ascending, without repeats.
    pub branches: Vec<u32>,
    /// Branch ids in the order taken.
    pub trace: Vec<u32>,
    pub end: PathEnd,
    /// Values of the symbols satisfying the path condition's numeric clauses.
    pub model: Model,
    pub depth: u32,
    pub steps: u64,
    /// The path used values of calls that were not followed (see `SymbolicState`).
    pub imprecise: bool,
    /// The entry method's result when it is an int or long (a term over the symbols).
    pub result: Option<rivet_pc::Term>,
}

impl PathRecord {
    /// `return`, `exception CLASS` (binary name), `bound` or `unsupported: WHAT`.
    pub fn end_text(&self) -> String {
        match &self.end {
            PathEnd::Return => "return".into(),
            PathEnd::Exception(c) => format!("exception {}", ClassName::from_internal(c)),
            PathEnd::Bound(_) | PathEnd::Dropped => "bound".into(),
            PathEnd::Unsupported(r) => format!("unsupported: {r}"),
        }
    }

    /// Why a bound path ended.
    pub fn bound_reason(&self) -> Option<&str> {
        match &self.end {
            PathEnd::Bound(r) => Some(r),
            _ => None,
        }
    }
}

/// Totals of an exploration.
#[derive(Debug, Clone, Default)]
pub struct ExploreSummary {
    pub paths: u64,
    pub pruned: u64,
    pub elapsed: Duration,
    pub solver_calls: u64,
    pub solver_time: Duration,
    pub backend_calls: u64,
    /// Time in the backend (Z3) itself.
    pub backend_time: Duration,
    pub cache_hits: u64,
    /// Queries decided by the interval procedure.
    pub interval_decided: u64,
    pub fast_unsat: u64,
    pub unknown: u64,
    pub not_followed: u64,
    /// Calls not followed by member (`a.b.C.name`), most frequent first.
    pub not_followed_members: Vec<(String, u64)>,
    /// Paths that used no result of a call not followed.
    pub precise: u64,
    /// Feasibility questions answered by the model search (no solver call).
    pub model_searches: u64,
    pub search_time: Duration,
    pub returns: u64,
    pub exceptions: u64,
    pub bounded: u64,
    /// Paths ended by a feature or model the executor lacks.
    pub unsupported: u64,
    /// Stopped at `max_paths` or the time budget with states still pending.
    pub truncated: bool,
    /// States not kept because the frontier was full ([`frontier_bound`]).
    pub frontier_cut: u64,
    /// `Unknown` answers of Z3 the alternating variable method searched a model for.
    pub avm_attempts: u64,
    /// Of those, the ones it solved.
    pub avm_successes: u64,
    pub avm_time: Duration,
    /// Paths whose PC has floating-point clauses (filled by `confirm`).
    pub fp_paths: u64,
    /// Paths whose full PC the solver gave a model of (filled by `confirm`).
    pub solved: u64,
    /// Paths whose model concrete replay followed branch by branch (filled by `confirm`).
    pub confirmed: u64,
    /// Of the floating-point paths, those solved and confirmed.
    pub fp_solved: u64,
    pub fp_confirmed: u64,
    /// Queries the solver proved unsatisfiable, up to `ExploreConfig::record_unsat`.
    pub unsat: Vec<rivet_pc::PathCondition>,
    /// Invariants that removed a choice or added a clause (as the file spells them), with
    /// how many times, in the configuration's order.
    pub invariant_uses: Vec<(String, u64)>,
}

impl ExploreSummary {
    pub fn paths_per_s(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.paths as f64 / s
        } else {
            0.0
        }
    }
}

/// Explores methods of one classpath.
#[derive(Debug)]
pub struct Explorer {
    classpath: Arc<Classpath>,
    hierarchy: Arc<Hierarchy>,
    config: ExploreConfig,
    /// The run's clock that time budgets are read on: the wall clock, or under an execution
    /// cap the virtual one that the interpreter's steps advance (so a capped run's
    /// explorations end alike every time).
    clock: RunClock,
    /// The target classes' branch analyses, made once for all its explorations and replays.
    analyses: AnalysisCache,
}

fn names(list: impl Iterator<Item = String>) -> String {
    let mut v: Vec<String> = list.collect();
    v.sort();
    v.dedup();
    if v.is_empty() {
        "no methods".into()
    } else {
        v.join(", ")
    }
}

impl Explorer {
    pub fn new(classpath: Arc<Classpath>, config: ExploreConfig) -> Explorer {
        let hierarchy = Arc::new(Hierarchy::new(classpath.clone()));
        Explorer {
            classpath,
            hierarchy,
            config,
            clock: RunClock::wall(),
            analyses: AnalysisCache::default(),
        }
    }

    /// The same explorer reading its time on `clock` (the run's).
    pub fn on_clock(mut self, clock: RunClock) -> Explorer {
        self.clock = clock;
        self
    }

    /// The clock its time budgets are read on.
    pub fn clock(&self) -> &RunClock {
        &self.clock
    }

    pub fn config(&self) -> &ExploreConfig {
        &self.config
    }

    pub(crate) fn classpath(&self) -> &Arc<Classpath> {
        &self.classpath
    }

    pub(crate) fn hierarchy(&self) -> &Arc<Hierarchy> {
        &self.hierarchy
    }

    pub(crate) fn analyses(&self) -> &AnalysisCache {
        &self.analyses
    }

    /// An explorer of the same classpath (sharing its class hierarchy) and clock with other
    /// bounds.
    pub fn with_config(&self, config: ExploreConfig) -> Explorer {
        Explorer {
            classpath: self.classpath.clone(),
            hierarchy: self.hierarchy.clone(),
            config,
            clock: self.clock.clone(),
            analyses: Arc::clone(&self.analyses),
        }
    }

    /// Which of `conditions` the solver proves unsatisfiable (in their order; false where it
    /// finds a model or gives up), with one solver of this explorer's configuration, until
    /// `deadline` on the explorer's clock (the conditions left are not checked: false).
    pub fn refuted(&self, conditions: &[&PathCondition], deadline: Duration) -> Vec<bool> {
        let mut solver = self.config.solver();
        conditions
            .iter()
            .map(|pc| {
                if self.clock.passed(deadline) {
                    return false;
                }
                let terms: Vec<rivet_pc::Term> =
                    pc.clauses.iter().map(|c| c.term().clone()).collect();
                matches!(solver.check(&terms), rivet_solver::SolveResult::Unsat)
            })
            .collect()
    }

    /// Checks that the method exists with that descriptor and has bytecode.
    fn entry(
        &self,
        program: &mut Program,
        spec: &MethodSpec,
    ) -> Result<Arc<MethodBody>, SymbolicError> {
        let class = program.require(spec.class.internal())?;
        let cp = &class.file.constant_pool;
        let mut same_name = Vec::new();
        for m in &class.file.methods {
            let (Ok(n), Ok(d)) = (cp.utf8(m.name), cp.utf8(m.descriptor)) else {
                continue;
            };
            if n == spec.name {
                same_name.push((d.to_string(), m.access_flags));
            }
        }
        let fqn = spec.class.clone();
        if same_name.is_empty() {
            return Err(SymbolicError::MethodNotFound {
                class: fqn,
                method: spec.name.clone(),
                available: names(
                    class
                        .file
                        .methods
                        .iter()
                        .filter_map(|m| cp.utf8(m.name).ok().map(str::to_string)),
                ),
            });
        }
        let Some((_, flags)) = same_name.iter().find(|(d, _)| *d == spec.descriptor) else {
            return Err(SymbolicError::DescriptorMismatch {
                class: fqn,
                method: spec.name.clone(),
                descriptor: spec.descriptor.clone(),
                available: names(same_name.iter().map(|(d, _)| format!("{}{d}", spec.name))),
            });
        };
        if flags.is_native() || flags.is_abstract() {
            return Err(SymbolicError::NoCode {
                class: fqn,
                method: spec.name.clone(),
                descriptor: spec.descriptor.clone(),
                what: if flags.is_native() {
                    "native"
                } else {
                    "abstract"
                },
            });
        }
        program
            .declared_method(&class, &spec.name, &spec.descriptor)?
            .ok_or_else(|| SymbolicError::MethodNotFound {
                class: spec.class.clone(),
                method: spec.name.clone(),
                available: String::new(),
            })
    }

    /// Explores `spec`, handing each path to `sink` with the symbol table naming its
    /// symbols.
    pub fn explore(
        &self,
        spec: &MethodSpec,
        sink: &mut dyn FnMut(&PathRecord, &SymbolTable),
    ) -> Result<ExploreSummary, SymbolicError> {
        let solver = self.config.solver();
        self.explore_with(spec, Box::new(solver), sink)
    }

    /// As `explore`, with the given solver stack.
    pub fn explore_with(
        &self,
        spec: &MethodSpec,
        mut solver: Box<dyn Solver>,
        sink: &mut dyn FnMut(&PathRecord, &SymbolTable),
    ) -> Result<ExploreSummary, SymbolicError> {
        let _span =
            tracing::info_span!("explore", class = %spec.class, method = %spec.name).entered();
        let started = Instant::now();
        let mut program = Program::new(
            self.classpath.clone(),
            self.hierarchy.clone(),
            spec.class.internal(),
        )
        .sharing_analyses(&self.analyses)
        .covering(&self.config.cover);
        let entry = self.entry(&mut program, spec)?;
        let mut symbols = SymbolTable::default();
        let mut counters = Counters::default();
        let mut summary = ExploreSummary::default();
        let mut ctx = Ctx {
            program: &mut program,
            symbols: &mut symbols,
            solver: solver.as_mut(),
            config: &self.config,
            counters: &mut counters,
        };
        let initial = initial_state(&mut ctx, &entry)?;
        let mut states: HashMap<StateId, SymbolicState> = HashMap::new();
        let mut searcher = searcher_for(self.config.searcher, self.config.seed);
        let mut next_id = 0u64;
        states.insert(StateId(next_id), initial);
        searcher.update(
            &[StateMeta {
                id: StateId(0),
                depth: 0,
                new_coverage: false,
            }],
            &[],
        );
        next_id += 1;
        let clock = &self.clock;
        let deadline = self.config.time_budget.map(|b| clock.deadline(b));
        while let Some(id) = searcher.select() {
            if summary.paths >= self.config.max_paths || deadline.is_some_and(|d| clock.passed(d)) {
                summary.truncated = true;
                break;
            }
            let Some(mut state) = states.remove(&id) else {
                searcher.update(&[], &[id]);
                continue;
            };
            let outcome = run_state(&mut state, &mut ctx, (clock, deadline));
            match outcome {
                Ok(Step::Fork(mut children)) => {
                    // A frontier far beyond what the paths left can run only costs memory
                    // and the time to free it (breadth-first on a collection's `put` holds
                    // 200,000 states after 2,000 paths): children past the bound are cut.
                    let room = frontier_bound(self.config.max_paths).saturating_sub(states.len());
                    if children.len() > room.max(1) {
                        let cut = children.len() - room.max(1);
                        children.truncate(room.max(1));
                        summary.frontier_cut += cut as u64;
                        summary.truncated = true;
                    }
                    let metas = admit(&mut states, &mut next_id, children);
                    searcher.update(&metas, &[id]);
                }
                Ok(Step::Continue) => {
                    let metas = admit(&mut states, &mut next_id, vec![state]);
                    searcher.update(&metas, &[id]);
                }
                Ok(Step::End(PathEnd::Dropped)) => {
                    ctx.counters.pruned += 1;
                    searcher.update(&[], &[id]);
                }
                Ok(Step::End(end)) => {
                    searcher.update(&[], &[id]);
                    // Count invariants speak of the structure the path resolved.
                    if crate::invariant_use::check_at_end(&mut state, &mut ctx) {
                        report(&mut summary, &mut ctx, state, end, sink);
                    }
                }
                Err(e) => {
                    tracing::debug!(error = %e, "path ended by an interpreter error");
                    searcher.update(&[], &[id]);
                    report(
                        &mut summary,
                        &mut ctx,
                        state,
                        PathEnd::Unsupported(e.to_string()),
                        sink,
                    );
                }
            }
        }
        self.count(&mut summary, counters, solver.stats());
        summary.elapsed = started.elapsed();
        Ok(summary)
    }

    /// Copies the interpreter's and the solver's counters into `summary`.
    fn count(&self, summary: &mut ExploreSummary, counters: Counters, stats: SolverStats) {
        summary.pruned = counters.pruned;
        summary.solver_calls = counters.solver_calls;
        summary.solver_time = counters.solver_time;
        summary.backend_calls = stats.backend_calls;
        summary.cache_hits = stats.cache_hits;
        summary.backend_time = stats.backend_time;
        summary.interval_decided = stats.interval_decided;
        summary.avm_attempts = stats.avm_attempts;
        summary.avm_successes = stats.avm_successes;
        summary.avm_time = stats.avm_time;
        summary.fast_unsat = stats.fast_unsat + counters.fast_unsat;
        summary.unknown = counters.unknown;
        summary.not_followed = counters.not_followed;
        let mut members: Vec<(String, u64)> = counters.not_followed_members.into_iter().collect();
        members.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        summary.not_followed_members = members;
        summary.model_searches = counters.model_searches;
        summary.invariant_uses = self
            .config
            .invariants
            .items()
            .iter()
            .enumerate()
            .filter_map(|(n, inv)| {
                let uses = counters.invariant_uses.get(&n).copied()?;
                Some((inv.to_string(), uses))
            })
            .collect();
        summary.search_time = counters.search_time;
        summary.unsat = counters.unsat;
    }
}

/// The most states an exploration keeps pending for `max_paths` paths: four per path, at
/// least 10,000.
pub fn frontier_bound(max_paths: u64) -> usize {
    usize::try_from(max_paths.saturating_mul(4))
        .unwrap_or(usize::MAX)
        .max(10_000)
}

/// Registers `children` as pending states under new ids; their metadata for the searcher.
fn admit(
    states: &mut HashMap<StateId, SymbolicState>,
    next_id: &mut u64,
    children: Vec<SymbolicState>,
) -> Vec<StateMeta> {
    let mut metas = Vec::with_capacity(children.len());
    for child in children {
        let cid = StateId(*next_id);
        *next_id += 1;
        metas.push(StateMeta {
            id: cid,
            depth: child.depth,
            new_coverage: child.new_coverage,
        });
        states.insert(cid, child);
    }
    metas
}

/// Charges the run's clock the solver's time limit for each query the backend gave up on
/// since `before` (a count of `Counters::gave_up`): on a virtual clock the interpreter's steps
/// alone would let a path whose every branch takes the solver's whole limit run on for ever.
pub(crate) fn charge_give_ups(clock: &RunClock, ctx: &Ctx<'_>, before: u64) {
    let n = ctx.counters.gave_up.saturating_sub(before);
    if n > 0 {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        clock.spent(ctx.config.solver_timeout.saturating_mul(n));
    }
}

/// Runs a state until it forks or its path ends (or the deadline on the explorer's clock
/// passes: a bound). Its steps advance the clock.
fn run_state(
    state: &mut SymbolicState,
    ctx: &mut Ctx<'_>,
    (clock, deadline): (&RunClock, Option<Duration>),
) -> Result<Step, SymbolicError> {
    let mut since_check = 0u64;
    let mut solver_calls = ctx.counters.solver_calls;
    let mut gave_up = ctx.counters.gave_up;
    loop {
        let step = interp::step(state, ctx);
        since_check += 1;
        match step {
            Ok(Step::Continue) => {}
            other => {
                clock.stepped(since_check);
                charge_give_ups(clock, ctx, gave_up);
                return other;
            }
        }
        // Every few thousand steps, and after every step that asked the solver (a query can
        // take the solver's whole time limit, and a long path asks many).
        if since_check >= 4096 || ctx.counters.solver_calls != solver_calls {
            clock.stepped(since_check);
            charge_give_ups(clock, ctx, gave_up);
            since_check = 0;
            solver_calls = ctx.counters.solver_calls;
            gave_up = ctx.counters.gave_up;
            if deadline.is_some_and(|d| clock.passed(d)) {
                return Ok(Step::End(PathEnd::Bound("time budget".into())));
            }
        }
    }
}

fn report(
    summary: &mut ExploreSummary,
    ctx: &mut Ctx<'_>,
    state: SymbolicState,
    end: PathEnd,
    sink: &mut dyn FnMut(&PathRecord, &SymbolTable),
) {
    match &end {
        PathEnd::Return => summary.returns += 1,
        PathEnd::Exception(_) => summary.exceptions += 1,
        PathEnd::Unsupported(_) => summary.unsupported += 1,
        PathEnd::Bound(_) | PathEnd::Dropped => summary.bounded += 1,
    }
    if !state.imprecise {
        summary.precise += 1;
    }
    let mut branches = state.branches.clone();
    branches.sort_unstable();
    branches.dedup();
    ctx.counters.covered.extend(branches.iter().copied());
    let record = PathRecord {
        id: summary.paths,
        pc: state.pc,
        branches,
        trace: state.branches,
        end,
        model: state.model,
        depth: state.depth,
        steps: state.steps,
        imprecise: state.imprecise,
        result: match &state.result {
            Some(Value::Int(t)) | Some(Value::Long(t)) => Some(t.clone()),
            _ => None,
        },
    };
    summary.paths += 1;
    sink(&record, ctx.symbols);
}

/// The entry state: `{this}` a fresh object of the method's class (implied, no clause) — for
/// a constructor a new object with default field values, which is no input (no argument can
/// alias it) —, the arguments fresh inputs `{arg1}`, `{arg2}`, ..., then the class's static
/// initialization.
fn initial_state(
    ctx: &mut Ctx<'_>,
    entry: &Arc<MethodBody>,
) -> Result<SymbolicState, SymbolicError> {
    let mut state = SymbolicState::new();
    let mut args = Vec::new();
    if &*entry.name == "<init>" {
        let id = interp::alloc_instance(&mut state, ctx, &entry.class_name)?;
        args.push(Value::Ref(Reference::Object(id)));
    } else if !entry.is_static() {
        let path = AccessPath::root("this");
        let symbol = ctx.symbols.fresh(path.clone(), rivet_pc::SymbolSort::Ref);
        let class = entry.class_name.clone();
        let id = lazy::fresh_object(&mut state, ctx, &class, &path, symbol, 1)?;
        state.inputs.push(id);
        *state.scope.entry(class.clone()).or_insert(0) += 1;
        args.push(Value::Ref(Reference::Object(id)));
    }
    for (i, p) in entry.signature.params.iter().enumerate() {
        let path = AccessPath::root(&format!("arg{}", i + 1));
        args.push(lazy::input_value(
            &mut state,
            ctx,
            &p.to_string(),
            path,
            None,
        )?);
    }
    interp::enter_method(&mut state, entry.clone(), args);
    let class = entry.class_name.clone();
    interp::ensure_initialized(&mut state, ctx, &class)?;
    Ok(state)
}

/// The program, symbols and counters a caller needs to drive the interpreter itself.
pub struct Session {
    pub program: Program,
    pub symbols: SymbolTable,
    pub counters: Counters,
}

impl Explorer {
    /// A fresh interpreter session for `spec`, with its entry method.
    pub fn session(&self, spec: &MethodSpec) -> Result<(Session, Arc<MethodBody>), SymbolicError> {
        let mut program = Program::new(
            self.classpath.clone(),
            self.hierarchy.clone(),
            spec.class.internal(),
        )
        .sharing_analyses(&self.analyses)
        .covering(&self.config.cover);
        let entry = self.entry(&mut program, spec)?;
        Ok((
            Session {
                program,
                symbols: SymbolTable::default(),
                counters: Counters::default(),
            },
            entry,
        ))
    }
}
