//! Coverage goals and their fitness: a branch of the class under test (covered when its
//! probe fires; otherwise approach level + normalized branch distance over the control
//! dependence of the branch), or a public method (covered when a statement calls it).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use rivet_testcase::{MemberRef, Statement, StatementOutcome, TestCase};
use rivet_worker::{Execution, ProbeId, UNRUNNABLE_CLASS};

/// A goal's id, dense in a [`Goals`] set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GoalId(pub u32);

impl fmt::Display for GoalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g{}", self.0)
    }
}

/// What covers a goal.
#[derive(Debug, Clone, PartialEq)]
pub enum GoalKind {
    /// A branch, by its global probe id.
    Branch { probe: ProbeId },
    /// A public method or constructor of the class under test, called by a statement that
    /// ran (returned or threw from inside).
    Method { member: MemberRef },
}

/// One goal.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    pub id: GoalId,
    pub kind: GoalKind,
    /// The branches this one is control dependent on (for the approach level and for
    /// DynaMOSA's dynamic selection of targets).
    pub controlling: Vec<GoalId>,
    /// The method the goal lies in (`insert`), for names and comments.
    pub method: String,
    /// Source line, when known.
    pub line: Option<u16>,
    /// A short description (`true`, `case 3`, `call`).
    pub what: String,
}

impl Goal {
    /// `insert line 64 (true)`.
    pub fn label(&self) -> String {
        match self.line {
            Some(l) => format!("{} line {l} ({})", self.method, self.what),
            None => format!("{} ({})", self.method, self.what),
        }
    }

    pub fn is_branch(&self) -> bool {
        matches!(self.kind, GoalKind::Branch { .. })
    }
}

/// The fitness of a goal no statement came near.
pub const UNREACHED: f64 = 1_000.0;
/// How far up the control dependence the approach level looks.
const MAX_LEVEL: usize = 32;

/// `ν(x) = x / (x + 1)`.
pub fn normalize(d: f64) -> f64 {
    if d.is_nan() || d < 0.0 || d.is_infinite() {
        1.0
    } else {
        d / (d + 1.0)
    }
}

/// The goals of a run.
#[derive(Debug, Clone, Default)]
pub struct Goals {
    goals: Vec<Goal>,
    by_probe: BTreeMap<ProbeId, GoalId>,
    /// Goals control dependent on each goal.
    dependents: Vec<Vec<GoalId>>,
}

impl Goals {
    /// Goals in id order (`goals[i].id` must be `GoalId(i)`; controlling ids must exist).
    pub fn new(goals: Vec<Goal>) -> Goals {
        let mut by_probe = BTreeMap::new();
        let mut dependents = vec![Vec::new(); goals.len()];
        for g in &goals {
            if let GoalKind::Branch { probe } = g.kind {
                by_probe.insert(probe, g.id);
            }
            for c in &g.controlling {
                if let Some(d) = dependents.get_mut(c.0 as usize) {
                    d.push(g.id);
                }
            }
        }
        Goals {
            goals,
            by_probe,
            dependents,
        }
    }

    pub fn len(&self) -> usize {
        self.goals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    pub fn get(&self, id: GoalId) -> Option<&Goal> {
        self.goals.get(id.0 as usize)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Goal> {
        self.goals.iter()
    }

    pub fn dependents(&self, id: GoalId) -> &[GoalId] {
        self.dependents
            .get(id.0 as usize)
            .map_or(&[], |v| v.as_slice())
    }

    /// The goals an execution of `test` covers.
    pub fn covered(&self, test: &TestCase, e: &Execution) -> BTreeSet<GoalId> {
        let mut out: BTreeSet<GoalId> = e
            .covered
            .iter()
            .filter_map(|p| self.by_probe.get(p).copied())
            .collect();
        for g in &self.goals {
            if let GoalKind::Method { member } = &g.kind {
                if calls(test, e, member) {
                    out.insert(g.id);
                }
            }
        }
        out
    }

    /// The fitness of `goal` for an execution: 0 when covered, else approach level plus
    /// normalized branch distance (lower is better).
    pub fn fitness(&self, goal: GoalId, test: &TestCase, e: &Execution) -> f64 {
        let Some(g) = self.get(goal) else {
            return UNREACHED;
        };
        match &g.kind {
            GoalKind::Method { member } => {
                if calls(test, e, member) {
                    0.0
                } else {
                    1.0
                }
            }
            GoalKind::Branch { probe } => {
                if let Some(d) = e.distance(*probe) {
                    return if e.covered.binary_search(probe).is_ok() {
                        0.0
                    } else {
                        normalize(d)
                    };
                }
                let mut frontier: Vec<GoalId> = g.controlling.clone();
                let mut seen: BTreeSet<GoalId> = frontier.iter().copied().collect();
                for level in 1..=MAX_LEVEL {
                    let mut best: Option<f64> = None;
                    for c in &frontier {
                        if let Some(GoalKind::Branch { probe }) = self.get(*c).map(|g| &g.kind) {
                            if let Some(d) = e.distance(*probe) {
                                let v = normalize(d);
                                best = Some(best.map_or(v, |b: f64| b.min(v)));
                            }
                        }
                    }
                    if let Some(b) = best {
                        return level as f64 + b;
                    }
                    let mut next = Vec::new();
                    for c in &frontier {
                        if let Some(cg) = self.get(*c) {
                            for p in &cg.controlling {
                                if seen.insert(*p) {
                                    next.push(*p);
                                }
                            }
                        }
                    }
                    if next.is_empty() {
                        break;
                    }
                    frontier = next;
                }
                UNREACHED
            }
        }
    }
}

/// Does a statement of `test` call `member` and run (not `NotRun`, not unrunnable)?
fn calls(test: &TestCase, e: &Execution, member: &MemberRef) -> bool {
    test.statements.iter().zip(&e.outcomes).any(|(s, o)| {
        let m = match s {
            Statement::Call { method, .. } => method,
            Statement::Construct { constructor, .. } => constructor,
            _ => return false,
        };
        m == member
            && match o {
                StatementOutcome::Normal(_) => true,
                StatementOutcome::Threw { class, .. } => class != UNRUNNABLE_CLASS,
                StatementOutcome::NotRun => false,
            }
    })
}
