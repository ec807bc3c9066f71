//! The plan of one class under test: its API model, its goals (the branches of the class, of
//! its nested classes and of the classes `--cover` names, with control dependence and guidance through the calls of the class's
//! own methods on the way to them, then a goal per method or constructor the tests call) and
//! the place of every branch goal, built once the probes are known.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rivet_analysis::{
    analyze_class, BranchId, BranchPlace, CalleeOutcomes as AnalysisCallee, ClassAnalysis,
};
use rivet_api::{ApiModel, CallableKind};
use rivet_classfile::{ClassFile, ClassName, Opcode};
use rivet_classpath::Classpath;
use rivet_instrument::ProbeMap;
use rivet_search::{
    equality_probe, BoundaryObjective, BranchObjective, CalleeGuidance, CalleeOutcomes, Goal,
    Goals, MethodObjective, Objective, OutputCategory, OutputObjective, UNREACHED,
};
use rivet_testcase::{Execution, GoalId, MemberRef, ProbeId, TestCase};

use crate::cover::CoveredClass;
use crate::error::PlanError;

/// A branch of a class the instrumenter could not give probes (its class keeps only the exit
/// redirection): never covered.
#[derive(Debug)]
struct UnprobedBranch;

impl Objective for UnprobedBranch {
    fn fitness(&self, _: &TestCase, _: &Execution) -> f64 {
        UNREACHED
    }

    fn is_branch(&self) -> bool {
        true
    }
}

/// The probes of branches of one class (`probe_of`: by branch id), ascending.
fn probes_of(probe_of: &[Option<ProbeId>], branches: &[BranchId]) -> Vec<ProbeId> {
    let mut out: Vec<ProbeId> = branches
        .iter()
        .filter_map(|b| probe_of.get(b.0 as usize).copied().flatten())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// One class's plan.
pub struct ClassPlan {
    pub class: ClassName,
    pub model: ApiModel,
    pub goals: Goals,
    /// The place of each branch goal, in goal order.
    pub places: Vec<(GoalId, BranchPlace)>,
    /// Per probed branch goal, the probes whose hit makes JaCoCo count it covered (its
    /// JaCoCo points; see `rivet_instrument::ClassProbes::confirmers`).
    pub confirmers: BTreeMap<GoalId, Vec<ProbeId>>,
    /// Per method of the class under test (name, descriptor), the branch goals of the methods
    /// of the class it calls, transitively (a private helper's branches are reached only
    /// through its callers).
    pub callee_branches: BTreeMap<(String, String), BTreeSet<GoalId>>,
    /// The classes beyond the class under test whose branches are goals (`--cover`).
    pub covered: Vec<CoveredClass>,
}

/// The classes whose branches are goals: the class under test and, unless one method is
/// targeted, the classes nested in it; then the classes `--cover` names (`covered`, resolved
/// by [`crate::resolve_cover`]).
pub fn goal_classes(
    classpath: &Classpath,
    class: &ClassName,
    method: Option<&str>,
    covered: &[CoveredClass],
) -> Result<Vec<ClassName>, PlanError> {
    let mut classes = vec![class.clone()];
    if method.is_none() {
        let nested = classpath
            .package_classes(class.package())
            .map_err(|source| PlanError::Classpath {
                class: class.clone(),
                source: Box::new(source),
            })?;
        classes.extend(
            nested
                .iter()
                .map(|c| ClassName::from_internal(c))
                .filter(|c| c.is_nested_in(class)),
        );
    }
    for c in covered {
        if !classes.contains(&c.class) {
            classes.push(c.class.clone());
        }
    }
    Ok(classes)
}

/// Per goal class other than the class under test, the classes (internal names) whose
/// instances run its instance methods: itself and its subclasses among `classes` (a prefix
/// map's entry set is a kind of range entry set). A class that cannot be read has none.
fn holder_classes(
    classpath: &Classpath,
    classes: &[ClassName],
    class: &ClassName,
) -> BTreeMap<ClassName, Vec<String>> {
    let supers: BTreeMap<&ClassName, ClassName> = classes
        .iter()
        .filter_map(|c| {
            let cf = classpath.class_file(c.internal()).ok().flatten()?;
            let s = cf.super_name().ok().flatten()?;
            Some((c, ClassName::from_internal(s)))
        })
        .collect();
    // Is `d` (one of `classes`) `c` or a subclass of it, through the goal classes?
    let descends = |d: &ClassName, c: &ClassName| {
        let mut at = Some(d);
        for _ in 0..=classes.len() {
            match at {
                Some(x) if x == c => return true,
                Some(x) => at = supers.get(x),
                None => return false,
            }
        }
        false
    };
    classes
        .iter()
        .filter(|c| *c != class)
        .map(|c| {
            let held: Vec<String> = classes
                .iter()
                .filter(|d| descends(d, c))
                .map(|d| d.internal().to_string())
                .collect();
            (c.clone(), held)
        })
        .collect()
}

/// The holders of a branch in method `m` of `cf`: those of its class when `m` is an instance
/// method (not a constructor).
fn held_by(
    cf: &ClassFile,
    m: &rivet_analysis::MethodAnalysis,
    holders: Option<&Vec<String>>,
) -> Option<Vec<String>> {
    let instance = cf
        .methods
        .get(m.index)
        .is_some_and(|x| !x.access_flags.is_static() && !m.name.starts_with('<'));
    holders.filter(|_| instance).cloned()
}

/// A goal per method or constructor of the class the tests call, and per category of what
/// each method returns, after `goals`.
fn push_call_goals(goals: &mut Vec<Goal>, model: &ApiModel, class: &ClassName) {
    let simple = class.simple().to_string();
    for t in &model.targets {
        if t.member.owner == model.class && t.kind != CallableKind::FieldWrite {
            goals.push(Goal {
                id: GoalId(goals.len() as u32),
                objective: Arc::new(MethodObjective {
                    member: t.member.clone(),
                }),
                controlling: Vec::new(),
                method: format!("{simple}.{}", t.member.name),
                line: None,
                what: "call".into(),
            });
            // Output goals: each category of what it returns.
            let returns = t
                .returns
                .as_ref()
                .filter(|_| t.kind == CallableKind::Method);
            for category in returns.map(OutputCategory::of).unwrap_or_default() {
                goals.push(Goal {
                    id: GoalId(goals.len() as u32),
                    objective: Arc::new(OutputObjective {
                        member: t.member.clone(),
                        category,
                    }),
                    controlling: Vec::new(),
                    method: format!("{simple}.{}", t.member.name),
                    line: None,
                    what: category.text().into(),
                });
            }
        }
    }
}

impl ClassPlan {
    /// Builds the goals of `model`'s class (of `method` only, when given) and of the
    /// `covered` classes with the probes of `probes`.
    pub fn build(
        classpath: &Classpath,
        model: ApiModel,
        (method, covered): (Option<&str>, &[CoveredClass]),
        probes: &ProbeMap,
    ) -> Result<ClassPlan, PlanError> {
        let class = model.class.clone();
        let mut goals: Vec<Goal> = Vec::new();
        let mut places = Vec::new();
        let mut confirmers = BTreeMap::new();
        let mut callee_branches = BTreeMap::new();
        let mut boundaries: Vec<(GoalId, ProbeId)> = Vec::new();
        let classes = goal_classes(classpath, &class, method, covered)?;
        let holders = holder_classes(classpath, &classes, &class);
        for c in classes {
            let cf = classpath
                .class_file(c.internal())
                .map_err(|source| PlanError::Classpath {
                    class: c.clone(),
                    source: Box::new(source),
                })?;
            let Some(cf) = cf else { continue };
            let analysis = analyze_class(&cf).map_err(|source| PlanError::Analysis {
                class: c.clone(),
                source: Box::new(source),
            })?;
            let all_places = analysis.places();
            // Branch ids are dense from 0 in the order of `places`.
            let probe_of: Vec<Option<ProbeId>> =
                all_places.iter().map(|p| probes.probe_of(p)).collect();
            let callees = analysis.callee_guidance(&cf);
            let member = |i: usize| {
                analysis
                    .methods
                    .get(i)
                    .map(|m| MemberRef::new(c.internal(), &m.name, &m.descriptor))
            };
            let outcomes = |callees: &[AnalysisCallee]| -> Vec<CalleeOutcomes> {
                callees
                    .iter()
                    .map(|x| CalleeOutcomes {
                        probes: probes_of(&probe_of, &x.continuing),
                        entries: x.entries.iter().filter_map(|i| member(*i)).collect(),
                    })
                    .filter(|x| !x.probes.is_empty())
                    .collect()
            };
            let base = goals.len() as u32;
            let mut local: BTreeMap<u32, GoalId> = BTreeMap::new();
            for (m, b) in analysis.branches() {
                // `--method` picks the class under test's branches, not a covered class's.
                if c != class || method.is_none_or(|w| w == m.name) {
                    local.insert(b.id.0, GoalId(base + local.len() as u32));
                }
            }
            if c == class {
                callee_branches = callees_of(&analysis, &cf, &local);
            }
            let branches = analysis.branches();
            for (place, (m, b)) in all_places.into_iter().zip(branches) {
                let Some(&id) = local.get(&b.id.0) else {
                    continue;
                };
                if let (Some(p), true) =
                    (probes.probe_of(&place), is_relational_jump(&cf, m.index, b))
                {
                    boundaries.push((id, equality_probe(probes.probe_count(), p)));
                }
                let confirming = probes.confirmers_of(&place);
                if let Some(c) = &confirming {
                    confirmers.insert(id, c.clone());
                }
                let objective: Arc<dyn Objective> = match probes.probe_of(&place) {
                    Some(p) => {
                        let mut o =
                            BranchObjective::confirmed_by(p, confirming.unwrap_or_default());
                        if let Some(h) = held_by(&cf, m, holders.get(&c)) {
                            o = o.held_by(h);
                        }
                        Arc::new(match callees.get(&b.id) {
                            Some(g) => o.with_callees(CalleeGuidance {
                                before: outcomes(&g.before),
                                after: outcomes(&g.after),
                                method: Some(MemberRef::new(
                                    c.internal(),
                                    &place.method,
                                    &place.descriptor,
                                )),
                            }),
                            None => o,
                        })
                    }
                    None => Arc::new(UnprobedBranch),
                };
                goals.push(Goal {
                    id,
                    objective,
                    controlling: b
                        .controlling
                        .iter()
                        .filter_map(|c| local.get(&c.0).copied())
                        .collect(),
                    method: place.method_label(),
                    line: place.line,
                    what: place.kind.to_string(),
                });
                places.push((id, place));
            }
        }
        // Weak-mutation goals of the boundary mutants, after every branch goal (whose ids are
        // dense per class): operands equal at each relational jump, controlled as its branch.
        for (branch, equality) in boundaries {
            let Some(g) = goals.get(branch.0 as usize) else {
                continue;
            };
            let goal = Goal {
                id: GoalId(goals.len() as u32),
                objective: Arc::new(BoundaryObjective { equality }),
                controlling: g.controlling.clone(),
                method: g.method.clone(),
                line: g.line,
                what: "operands equal".into(),
            };
            goals.push(goal);
        }
        push_call_goals(&mut goals, &model, &class);
        Ok(ClassPlan {
            class,
            model,
            goals: Goals::new(goals),
            places,
            confirmers,
            callee_branches,
            covered: covered.to_vec(),
        })
    }

    /// The probe of a branch goal's place (None for unprobed branches).
    pub fn probe(&self, goal: GoalId) -> Option<ProbeId> {
        self.goals.get(goal).and_then(|g| g.objective.probe())
    }

    /// Whether JaCoCo counts a branch goal covered by an execution that hit `covered`
    /// (ascending probe ids): one of its confirming points was hit. An execution that took
    /// the branch and then threw before JaCoCo's next probe does not count.
    pub fn jacoco_covered(&self, goal: GoalId, covered: &[ProbeId]) -> bool {
        self.confirmers
            .get(&goal)
            .is_some_and(|c| c.iter().any(|p| covered.binary_search(p).is_ok()))
    }
}

/// Whether branch `b` of method `method` (index into the class's methods) is the taken side of
/// a relational jump (`<`, `>=`, `>`, `<=` against zero or another int, or after a long, float
/// or double compare): where PIT's conditionals-boundary mutator applies.
fn is_relational_jump(cf: &ClassFile, method: usize, b: &rivet_analysis::Branch) -> bool {
    if b.kind != rivet_analysis::BranchKind::True {
        return false;
    }
    let Some(code) = cf.methods.get(method).and_then(|m| m.code()) else {
        return false;
    };
    code.instructions.get(b.insn).is_some_and(|i| {
        let op = i.opcode;
        (Opcode::IFLT.0..=Opcode::IFLE.0).contains(&op.0)
            || (Opcode::IF_ICMPLT.0..=Opcode::IF_ICMPLE.0).contains(&op.0)
    })
}

/// Per method (name, descriptor), the goals of the branches of the methods it calls within
/// its class, transitively (not its own, unless a callee calls it back).
fn callees_of(
    analysis: &ClassAnalysis,
    cf: &ClassFile,
    goal_of: &BTreeMap<u32, GoalId>,
) -> BTreeMap<(String, String), BTreeSet<GoalId>> {
    let calls: Vec<Vec<usize>> = analysis
        .methods
        .iter()
        .map(|m| {
            analysis
                .call_sites(cf, m)
                .iter()
                .map(|s| s.callee)
                .collect()
        })
        .collect();
    let own: Vec<BTreeSet<GoalId>> = analysis
        .methods
        .iter()
        .map(|m| {
            m.branches
                .iter()
                .filter_map(|b| goal_of.get(&b.id.0).copied())
                .collect()
        })
        .collect();
    let mut out = BTreeMap::new();
    for (i, m) in analysis.methods.iter().enumerate() {
        let mut seen = BTreeSet::new();
        let mut stack = calls[i].clone();
        let mut reached = BTreeSet::new();
        while let Some(j) = stack.pop() {
            if !seen.insert(j) {
                continue;
            }
            reached.extend(own.get(j).into_iter().flatten().copied());
            stack.extend(calls.get(j).into_iter().flatten().copied());
        }
        out.insert((m.name.clone(), m.descriptor.clone()), reached);
    }
    out
}
