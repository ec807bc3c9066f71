//! TARDIS's path generation for the symbolic strategy (seed tardis §3): a test that ran is
//! traced on the JVM, each call of a target method is replayed symbolically along its trace,
//! and the path condition the test's own state satisfies becomes feasible evidence; each of
//! its numeric clauses negated after the clauses before it is an alternative path condition
//! for the policy to rank (its prefix is satisfiable by construction, so the classifier's
//! slice from the last clause is what decides).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Duration;

use rivet_instrument::ClassProbes;
use rivet_pc::{Clause, CmpOp, PathCondition, SymbolSort, Term};
use rivet_search::{observed_symbol, Arena, PathConditionObjective};
use rivet_symbolic::invariant_check::contradicted;
use rivet_symbolic::{
    ExploreConfig, Explorer, Guidance, Invariants, MethodSpec, PathEnd, SearcherKind, Trace,
};
use rivet_testcase::{
    CallObservation, Execution, MemberRef, Observation, ObservationSpec, TypedTest,
};
use tracing::debug;

use rivet_search::ArchiveCursor;

/// A method of the class under test whose calls are replayed (its index is the symbolic
/// strategy's method index).
#[derive(Debug, Clone)]
pub struct ReplayTarget {
    pub member: MemberRef,
    pub spec: MethodSpec,
}

/// A path condition a test satisfied, and the alternatives negating one clause of it.
#[derive(Debug, Clone)]
pub struct Harvested {
    pub method: usize,
    /// The test whose call satisfied `source`.
    pub test: Arc<TypedTest>,
    pub source: Arc<PathCondition>,
    pub alternatives: Vec<Arc<PathCondition>>,
    /// Alternatives the solver proved unsatisfiable.
    pub unsat: Vec<Arc<PathCondition>>,
}

/// Totals for the report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HarvestStats {
    pub tests: usize,
    pub calls_replayed: usize,
    /// Calls not replayed because their step's time was spent.
    pub calls_skipped: usize,
    pub sources: usize,
    pub alternatives: usize,
    /// Alternatives the solver refuted (not kept).
    pub refuted: usize,
    /// Alternatives whose changed clause contradicts a learned structural invariant (not
    /// kept: a null where a field is never null, an alias giving a node two predecessors).
    pub contradicted: usize,
    pub time: Duration,
}

/// The generator of alternatives: which tests and paths it has seen.
pub struct Alternatives {
    explorer: Explorer,
    targets: Vec<ReplayTarget>,
    /// Probe ids of the class's branches start here.
    base: u32,
    branch_count: u32,
    /// Archive tests already traced.
    traced: ArchiveCursor,
    /// Calls already replayed: (method, trace).
    replayed: HashSet<u64>,
    /// Path conditions already produced, sources and alternatives (by their printed form).
    known: HashSet<u64>,
    seed: u64,
    stats: HarvestStats,
}

/// Archive tests traced per step.
const TESTS_PER_STEP: usize = 8;
/// Paths along one trace compared with the test's state (they differ in heap choices only).
const CANDIDATES: u64 = 8;
/// Time the solver gets to refute the alternatives of one step.
const REFUTE_TIME: Duration = Duration::from_millis(300);
/// Time a step may spend replaying calls.
const STEP_TIME: Duration = Duration::from_secs(1);
/// Time the executor gets per replayed call.
const REPLAY_TIME: Duration = Duration::from_millis(300);

impl Alternatives {
    /// A generator for the class whose probes are `probes` (None: the class has no branch,
    /// and there is nothing to trace).
    pub fn new(
        explorer: Explorer,
        targets: Vec<ReplayTarget>,
        probes: Option<&ClassProbes>,
        seed: u64,
    ) -> Alternatives {
        let (base, branch_count) = probes
            .map(|p| (p.base, p.branches.len() as u32))
            .unwrap_or((0, 0));
        Alternatives {
            explorer: explorer.with_config(ExploreConfig {
                solver_timeout: Duration::from_millis(100),
                ..ExploreConfig::default()
            }),
            targets,
            base,
            branch_count,
            traced: ArchiveCursor::default(),
            replayed: HashSet::new(),
            known: HashSet::new(),
            seed,
            stats: HarvestStats::default(),
        }
    }

    pub fn stats(&self) -> &HarvestStats {
        &self.stats
    }

    /// Marks a path condition as known (an explored path), so no alternative repeats it.
    pub fn know(&mut self, pc: &PathCondition) {
        self.known.insert(pc_key(pc));
    }

    /// Traces the archive's new tests, replays their calls of the targets, and returns what
    /// each satisfied call yields.
    pub fn step(&mut self, arena: &mut Arena<'_>, invariants: &Invariants) -> Vec<Harvested> {
        if self.branch_count == 0 || self.targets.is_empty() {
            return Vec::new();
        }
        let clock = self.explorer.clock().clone();
        let started = clock.now();
        let tests = self.fresh_tests(arena);
        if tests.is_empty() {
            return Vec::new();
        }
        self.stats.tests += tests.len();
        let mut spec = ObservationSpec {
            trace: true,
            ..ObservationSpec::default()
        };
        for t in &self.targets {
            spec.targets.push(Observation {
                member: t.member.clone(),
                paths: Vec::new(),
            });
        }
        let runs = arena.evaluate_observing(&tests, &spec);
        // Per test, the candidates of each of its traced calls.
        let mut pending: Vec<(usize, u32, usize, Vec<Arc<PathCondition>>)> = Vec::new();
        for (t, run) in runs.iter().enumerate() {
            for call in &run.observations {
                let Some(method) = self.targets.iter().position(|x| x.member == call.member) else {
                    continue;
                };
                // A step replays for a bounded time; the calls left then are not replayed
                // (later tests take the same paths again, or others near them).
                if call.trace_truncated || clock.since(started) >= STEP_TIME {
                    self.stats.calls_skipped += usize::from(!call.trace_truncated);
                    continue;
                }
                let candidates = self.replay(method, call);
                if !candidates.is_empty() {
                    pending.push((t, call.statement, method, candidates));
                }
            }
        }
        let out = self.confirm(
            arena,
            &tests,
            &pending,
            (clock.deadline(REFUTE_TIME), invariants),
        );
        self.stats.time += clock.since(started);
        out
    }

    /// Archive tests not traced yet (each once).
    fn fresh_tests(&mut self, arena: &Arena<'_>) -> Vec<TypedTest> {
        self.traced.fresh(arena.archive, TESTS_PER_STEP)
    }

    /// The precise, observable paths that follow a call's trace exactly.
    fn replay(&mut self, method: usize, call: &CallObservation) -> Vec<Arc<PathCondition>> {
        let trace: Vec<u32> = call
            .trace
            .iter()
            .filter(|p| p.0 >= self.base && p.0 < self.base + self.branch_count)
            .map(|p| p.0 - self.base)
            .collect();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (method, &trace).hash(&mut h);
        if !self.replayed.insert(h.finish()) {
            return Vec::new();
        }
        self.stats.calls_replayed += 1;
        let explorer = self.explorer.with_config(ExploreConfig {
            depth: trace.len() as u32 + 40,
            searcher: SearcherKind::DepthFirst,
            max_paths: CANDIDATES,
            time_budget: Some(REPLAY_TIME),
            solver_timeout: Duration::from_millis(250),
            guidance: Guidance::Trace(Trace::whole(trace.clone())),
            seed: self.seed,
            ..ExploreConfig::default()
        });
        let mut found = Vec::new();
        let spec = &self.targets[method].spec;
        let result = explorer.explore(spec, &mut |path, symbols| {
            let ended = matches!(path.end, PathEnd::Return | PathEnd::Exception(_));
            if !ended || path.imprecise || path.trace != trace {
                return;
            }
            let pc = PathCondition::new(path.pc.clone(), symbols);
            if pc.symbols.values().all(|s| observed_symbol(s).is_some()) {
                found.push(Arc::new(pc));
            }
        });
        if let Err(e) = result {
            debug!(method = %spec.display(), error = %e, "replay for alternatives failed");
        }
        found
    }

    /// Runs the tests again, reading what the candidates mention, and keeps per call the
    /// candidate its state satisfies; returns those with their new alternatives.
    fn confirm(
        &mut self,
        arena: &mut Arena<'_>,
        tests: &[TypedTest],
        pending: &[(usize, u32, usize, Vec<Arc<PathCondition>>)],
        (refute_until, invariants): (Duration, &Invariants),
    ) -> Vec<Harvested> {
        if pending.is_empty() {
            return Vec::new();
        }
        let mut objectives: Vec<Vec<PathConditionObjective>> = Vec::new();
        let mut paths: BTreeMap<MemberRef, BTreeSet<_>> = BTreeMap::new();
        for (_, _, method, candidates) in pending {
            let member = &self.targets[*method].member;
            let list: Vec<PathConditionObjective> = candidates
                .iter()
                .map(|pc| PathConditionObjective::new(member.clone(), pc.clone()))
                .collect();
            for o in &list {
                paths
                    .entry(member.clone())
                    .or_default()
                    .extend(o.observation().paths);
            }
            objectives.push(list);
        }
        let spec = ObservationSpec {
            targets: paths
                .into_iter()
                .map(|(member, p)| Observation {
                    member,
                    paths: p.into_iter().collect(),
                })
                .collect(),
            ..ObservationSpec::default()
        };
        let chosen: Vec<usize> = pending
            .iter()
            .map(|p| p.0)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let batch: Vec<TypedTest> = chosen.iter().map(|i| tests[*i].clone()).collect();
        let runs: Vec<Execution> = arena.evaluate_observing(&batch, &spec);
        let mut out = Vec::new();
        for ((test, statement, method, candidates), objectives) in pending.iter().zip(&objectives) {
            let Some(run) = chosen
                .iter()
                .position(|i| i == test)
                .and_then(|k| runs.get(k))
            else {
                continue;
            };
            let member = &self.targets[*method].member;
            let Some(call) = run
                .observations
                .iter()
                .find(|c| c.statement == *statement && c.member == *member)
            else {
                continue;
            };
            let Some(k) = objectives.iter().position(|o| o.distance(call) == 0.0) else {
                continue;
            };
            let source = candidates[k].clone();
            if !self.known.insert(pc_key(&source)) {
                continue;
            }
            self.stats.sources += 1;
            let class = self.targets[*method].spec.class.internal().to_string();
            let made: Vec<PathCondition> = negations(&source)
                .into_iter()
                .filter(|pc| self.known.insert(pc_key(pc)))
                .filter(|pc| {
                    let bad = contradicted(invariants, pc, &class).is_some();
                    self.stats.contradicted += usize::from(bad);
                    !bad
                })
                .collect();
            // The solver's cheap verdict first: an alternative it refutes is an infeasible
            // example, never a goal.
            let refs: Vec<&PathCondition> = made.iter().collect();
            let refuted = self.explorer.refuted(&refs, refute_until);
            let (mut alternatives, mut unsat) = (Vec::new(), Vec::new());
            for (pc, no) in made.into_iter().zip(refuted) {
                if no {
                    unsat.push(Arc::new(pc));
                } else {
                    alternatives.push(Arc::new(pc));
                }
            }
            self.stats.alternatives += alternatives.len();
            self.stats.refuted += unsat.len();
            out.push(Harvested {
                method: *method,
                test: Arc::new(tests[*test].clone()),
                source,
                alternatives,
                unsat,
            });
        }
        out
    }
}

/// The alternatives of a path condition, in the order of its clauses: the clauses before
/// one, then that one changed. A numeric clause is negated (skipped when that folds to a
/// constant); a fresh object becomes null, or an alias of each earlier fresh object of its
/// class (the other shapes JBSE's lazy initialization would have chosen there). A null or an
/// alias is left alone: what else it could be needs the declared type, which the condition
/// does not keep.
pub fn negations(pc: &PathCondition) -> Vec<PathCondition> {
    let mut out = Vec::new();
    for (k, clause) in pc.clauses.iter().enumerate() {
        for changed in others(&pc.clauses[..k], clause) {
            let mut clauses = pc.clauses[..k].to_vec();
            clauses.push(changed);
            let mentioned: BTreeSet<_> = clauses
                .iter()
                .flat_map(|c| c.term().symbols().to_vec())
                .collect();
            let symbols = pc
                .symbols
                .iter()
                .filter(|(s, _)| mentioned.contains(*s))
                .map(|(s, i)| (*s, i.clone()))
                .collect();
            out.push(PathCondition { clauses, symbols });
        }
    }
    out
}

/// What `clause` could have been instead, after `prefix`.
fn others(prefix: &[Clause], clause: &Clause) -> Vec<Clause> {
    match clause {
        Clause::Numeric(term) => match Term::negation(term.clone()) {
            Ok(negated) if !negated.is_const() => vec![Clause::Numeric(negated)],
            _ => Vec::new(),
        },
        Clause::Fresh { path, class, term } => {
            let Some(me) = term.symbols().first().copied() else {
                return Vec::new();
            };
            let me = Term::var(me, SymbolSort::Ref);
            let mut out = Vec::new();
            if let Ok(null) = Term::compare(CmpOp::Eq, me.clone(), Term::int(0)) {
                out.push(Clause::Null {
                    path: path.clone(),
                    term: null,
                });
            }
            for earlier in prefix {
                let Clause::Fresh {
                    path: target,
                    class: other,
                    term: t,
                } = earlier
                else {
                    continue;
                };
                let Some(them) = t.symbols().first().copied() else {
                    continue;
                };
                if other != class {
                    continue;
                }
                let them = Term::var(them, SymbolSort::Ref);
                if let Ok(alias) = Term::compare(CmpOp::Eq, me.clone(), them) {
                    out.push(Clause::Alias {
                        path: path.clone(),
                        target: target.clone(),
                        term: alias,
                    });
                }
            }
            out
        }
        Clause::Null { .. } | Clause::Alias { .. } => Vec::new(),
    }
}

fn pc_key(pc: &PathCondition) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    pc.texts().hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rivet_pc::{AccessPath, BinaryOp, SymbolId, SymbolInfo};

    fn info(name: &str) -> SymbolInfo {
        SymbolInfo {
            path: AccessPath::root("this").field(name),
            sort: SymbolSort::Int,
        }
    }

    #[test]
    fn each_numeric_clause_is_negated_after_its_prefix_with_the_symbols_it_keeps() {
        let x = Term::var(SymbolId(0), SymbolSort::Int);
        let y = Term::var(SymbolId(1), SymbolSort::Int);
        let c1 = Term::compare(CmpOp::Gt, x.clone(), Term::int(0)).unwrap();
        let sum = Term::binary(BinaryOp::Add, x, y).unwrap();
        let c2 = Term::compare(CmpOp::Le, sum, Term::int(10)).unwrap();
        let pc = PathCondition {
            clauses: vec![Clause::Numeric(c1.clone()), Clause::Numeric(c2.clone())],
            symbols: BTreeMap::from([(SymbolId(0), info("x")), (SymbolId(1), info("y"))]),
        };
        let alts = negations(&pc);
        assert_eq!(alts.len(), 2);
        let not_c1 = Term::negation(c1.clone()).unwrap();
        assert_eq!(alts[0].clauses, vec![Clause::Numeric(not_c1)]);
        assert_eq!(
            alts[0].symbols.keys().copied().collect::<Vec<_>>(),
            vec![SymbolId(0)]
        );
        let not_c2 = Term::negation(c2).unwrap();
        assert_eq!(
            alts[1].clauses,
            vec![Clause::Numeric(c1), Clause::Numeric(not_c2)]
        );
        assert_eq!(alts[1].symbols.len(), 2);
        assert_eq!(
            alts[1].texts(),
            ["{this}.x > 0", "{this}.x + {this}.y > 10"]
        );
    }

    #[test]
    fn a_fresh_object_becomes_null_or_an_alias_of_an_earlier_one_of_its_class() {
        let head = AccessPath::root("this").field("head");
        let next = head.field("next");
        let fresh = |path: &AccessPath, sym: u32, address: i32| Clause::Fresh {
            path: path.clone(),
            class: "a.Node".into(),
            term: Term::compare(
                CmpOp::Eq,
                Term::var(SymbolId(sym), SymbolSort::Ref),
                Term::int(address),
            )
            .unwrap(),
        };
        let ref_info = |path: &AccessPath| SymbolInfo {
            path: path.clone(),
            sort: SymbolSort::Ref,
        };
        let pc = PathCondition {
            clauses: vec![fresh(&head, 0, 1), fresh(&next, 1, 2)],
            symbols: BTreeMap::from([
                (SymbolId(0), ref_info(&head)),
                (SymbolId(1), ref_info(&next)),
            ]),
        };
        let alts: Vec<Vec<String>> = negations(&pc).iter().map(|p| p.texts()).collect();
        let head_fresh = "fresh({this}.head) : a.Node";
        assert_eq!(
            alts,
            [
                vec!["{this}.head == null"],
                vec![head_fresh, "{this}.head.next == null"],
                vec![head_fresh, "{this}.head.next == {this}.head"],
            ]
        );
    }
}
