//! Path selection (SUSHI): the 0/1 covering problem over the branches still uncovered. Each
//! candidate path covers some branches; pick the fewest paths that cover every branch some
//! path covers. A greedy cover with removal of redundant paths always; an exact 0/1 ILP
//! (microlp) on small instances within a time limit; the smaller of the two wins. Beside it,
//! a few alternatives per uncovered branch, spread over the costs, searched in parallel.

use std::collections::BTreeSet;
use std::time::Duration;

use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome};
use rivet_testcase::GoalId;

/// A path that may be selected: the branch goals it covers and its cost (clauses), which
/// breaks ties (shorter conditions are easier to reach).
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub branches: BTreeSet<GoalId>,
    pub cost: usize,
}

/// How a selection was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SelectionMethod {
    Greedy,
    Ilp,
}

/// The chosen candidates (indices, ascending) and the branches they cover.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub chosen: Vec<usize>,
    pub covered: BTreeSet<GoalId>,
    pub method: SelectionMethod,
}

/// Instances up to this many candidates × branches go to the ILP as well.
const ILP_MAX_CELLS: usize = 40_000;

/// Selects paths covering every branch of `uncovered` that some candidate covers.
pub fn select(
    candidates: &[Candidate],
    uncovered: &BTreeSet<GoalId>,
    limit: Duration,
) -> Selection {
    let useful: Vec<(usize, BTreeSet<GoalId>)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| (i, c.branches.intersection(uncovered).copied().collect()))
        .filter(|(_, b): &(usize, BTreeSet<GoalId>)| !b.is_empty())
        .collect();
    let target: BTreeSet<GoalId> = useful.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    let greedy = greedy(candidates, &useful, &target);
    let mut best = Selection {
        chosen: greedy,
        covered: target.clone(),
        method: SelectionMethod::Greedy,
    };
    if useful.len() * target.len() <= ILP_MAX_CELLS && best.chosen.len() > 1 {
        if let Some(exact) = ilp(&useful, &target, limit) {
            if exact.len() < best.chosen.len() {
                best.chosen = exact;
                best.method = SelectionMethod::Ilp;
            }
        }
    }
    best.chosen.sort_unstable();
    best
}

/// Most new branches first (ties: lower cost, then lower index), then drop chosen paths whose
/// branches the others cover.
fn greedy(
    candidates: &[Candidate],
    useful: &[(usize, BTreeSet<GoalId>)],
    target: &BTreeSet<GoalId>,
) -> Vec<usize> {
    let mut left = target.clone();
    let mut chosen: Vec<usize> = Vec::new();
    while !left.is_empty() {
        let best = useful
            .iter()
            .filter(|(i, _)| !chosen.contains(i))
            .map(|(i, b)| (*i, b.intersection(&left).count()))
            .filter(|(_, n)| *n > 0)
            .min_by_key(|(i, n)| (std::cmp::Reverse(*n), candidates[*i].cost, *i));
        let Some((i, _)) = best else { break };
        if let Some((_, b)) = useful.iter().find(|(j, _)| *j == i) {
            for g in b {
                left.remove(g);
            }
        }
        chosen.push(i);
    }
    // Redundancy removal, most expensive first.
    let branches_of = |i: usize| useful.iter().find(|(j, _)| *j == i).map(|(_, b)| b);
    let mut order = chosen.clone();
    order.sort_by_key(|i| std::cmp::Reverse(candidates[*i].cost));
    for i in order {
        let others: BTreeSet<GoalId> = chosen
            .iter()
            .filter(|j| **j != i)
            .filter_map(|j| branches_of(*j))
            .flat_map(|b| b.iter().copied())
            .collect();
        if branches_of(i).is_some_and(|b| b.is_subset(&others)) {
            chosen.retain(|j| *j != i);
        }
    }
    chosen
}

/// The exact minimum cover, if microlp proves or finds one within the limit.
fn ilp(
    useful: &[(usize, BTreeSet<GoalId>)],
    target: &BTreeSet<GoalId>,
    limit: Duration,
) -> Option<Vec<usize>> {
    let mut problem = Problem::new(OptimizationDirection::Minimize);
    problem.set_time_limit(limit);
    let vars: Vec<_> = useful.iter().map(|_| problem.add_binary_var(1.0)).collect();
    for g in target {
        let row: Vec<_> = useful
            .iter()
            .zip(&vars)
            .filter(|((_, b), _)| b.contains(g))
            .map(|(_, v)| (*v, 1.0))
            .collect();
        problem.add_constraint(row.as_slice(), ComparisonOp::Ge, 1.0);
    }
    let solution = match problem.solve().ok()? {
        SolveOutcome::Solution(s) => s,
        SolveOutcome::Interrupted(_) => return None,
    };
    let chosen: Vec<usize> = useful
        .iter()
        .zip(&vars)
        .filter(|(_, v)| solution.var_value(**v) > 0.5)
        .map(|((i, _), _)| *i)
        .collect();
    // Trust but verify: the chosen paths must cover the target.
    let covered: BTreeSet<GoalId> = useful
        .iter()
        .filter(|(i, _)| chosen.contains(i))
        .flat_map(|(_, b)| b.iter().copied())
        .collect();
    (covered == *target).then_some(chosen)
}

/// Alternatives to search beside a selection, as SUSHI searches its goals in parallel: for
/// each branch of `uncovered`, up to `per_branch` more candidates that cover it, spread over
/// the candidates in order of cost (the cheapest not chosen, the middle one, the costliest,
/// then the others from the middle out), so that one likely infeasible short path (a list
/// of fifteen elements whose `last` is null) does not hold the branch back a whole slice
/// while a slightly longer, feasible one waits. At most `limit` in all; indices not in
/// `chosen`, in the order they were picked.
pub fn alternatives(
    candidates: &[Candidate],
    uncovered: &BTreeSet<GoalId>,
    chosen: &[usize],
    per_branch: usize,
    limit: usize,
) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for b in uncovered {
        let mut covering: Vec<usize> = (0..candidates.len())
            .filter(|i| candidates[*i].branches.contains(b))
            .collect();
        covering.sort_by_key(|i| (candidates[*i].cost, *i));
        let n = covering.len();
        if n == 0 {
            continue;
        }
        // The cheapest not chosen, the middle, the end, then alternately below and above the
        // middle.
        let mid = n / 2;
        let mut order: Vec<usize> = (0..n)
            .find(|k| !chosen.contains(&covering[*k]))
            .into_iter()
            .collect();
        order.extend([mid, n - 1]);
        for d in 1..n {
            order.extend(mid.checked_sub(d));
            if mid + d < n - 1 {
                order.push(mid + d);
            }
        }
        let mut taken = 0;
        for k in order {
            let i = covering[k];
            if taken == per_branch || out.len() == limit {
                break;
            }
            if !chosen.contains(&i) && !out.contains(&i) {
                out.push(i);
                taken += 1;
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A candidate covering `branches` at `cost` (the policy's tests use it too).
    pub(crate) fn c(branches: &[u32], cost: usize) -> Candidate {
        Candidate {
            branches: branches.iter().map(|b| GoalId(*b)).collect(),
            cost,
        }
    }

    pub(crate) fn goals(ids: &[u32]) -> BTreeSet<GoalId> {
        ids.iter().map(|b| GoalId(*b)).collect()
    }

    #[test]
    fn alternatives_spread_over_the_costs_and_respect_the_limits() {
        // Branch 1: costs 1..=5 at indices 0..=4; the selection took the cheapest.
        let cands = [
            c(&[1], 1),
            c(&[1], 2),
            c(&[1], 3),
            c(&[1], 4),
            c(&[1], 5),
            c(&[2], 1),
        ];
        let alt = alternatives(&cands, &goals(&[1]), &[0], 2, 8);
        assert_eq!(alt, vec![1, 2], "the next cheapest and the middle");
        let alt = alternatives(&cands, &goals(&[1]), &[0, 2], 3, 8);
        assert_eq!(
            alt,
            vec![1, 4, 3],
            "the next cheapest, the costliest, then out"
        );
        let alt = alternatives(&cands, &goals(&[1]), &[3], 5, 8);
        assert_eq!(alt, vec![0, 2, 4, 1], "every other one, each once");
        assert_eq!(
            alternatives(&cands, &goals(&[1, 2]), &[0, 5], 2, 1),
            vec![1]
        );
        assert!(alternatives(&cands, &goals(&[2]), &[5], 2, 8).is_empty());
        assert!(alternatives(&cands, &goals(&[7]), &[], 2, 8).is_empty());
    }

    #[test]
    fn only_uncovered_branches_count_and_ties_go_to_the_cheaper_path() {
        let cands = [c(&[1, 2], 9), c(&[2, 3], 5), c(&[3], 1), c(&[1], 2)];
        let s = select(&cands, &goals(&[2, 3]), Duration::from_millis(100));
        assert_eq!(s.chosen, vec![1]);
        assert_eq!(s.covered, goals(&[2, 3]));
        let none = select(&cands, &goals(&[7]), Duration::from_millis(100));
        assert!(none.chosen.is_empty() && none.covered.is_empty());
    }

    #[test]
    fn the_ilp_beats_greedy_where_greedy_is_fooled() {
        // Greedy takes the big middle path first and then needs both halves; two suffice.
        let cands = [
            c(&[1, 2, 3, 4, 5, 6, 7], 1),
            c(&[1, 2, 3, 4, 8], 1),
            c(&[5, 6, 7, 9], 1),
        ];
        let target = goals(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let g = greedy(
            &cands,
            &cands
                .iter()
                .enumerate()
                .map(|(i, c)| (i, c.branches.clone()))
                .collect::<Vec<_>>(),
            &target,
        );
        assert_eq!(g.len(), 2, "redundancy removal drops the big path: {g:?}");
        let cands = [
            c(&[1, 2, 3, 4], 1),
            c(&[5, 6, 7], 1),
            c(&[1, 2, 5, 8], 1),
            c(&[3, 6, 9], 1),
            c(&[4, 7, 8, 9], 1),
        ];
        let target = goals(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        let s = select(&cands, &target, Duration::from_secs(1));
        assert_eq!(s.covered, target);
        let covered: BTreeSet<GoalId> = s
            .chosen
            .iter()
            .flat_map(|i| cands[*i].branches.iter().copied())
            .collect();
        assert_eq!(covered, target);
        assert!(s.chosen.len() <= 3, "{s:?}");
    }

    #[test]
    fn every_branch_some_path_covers_is_covered() {
        let cands: Vec<Candidate> = (0..30u32)
            .map(|i| c(&[i % 7, (i * 3) % 11 + 7, i % 5 + 20], (i % 4) as usize))
            .collect();
        let target: BTreeSet<GoalId> = (0..30).map(GoalId).collect();
        let s = select(&cands, &target, Duration::from_millis(200));
        let covered: BTreeSet<GoalId> = s
            .chosen
            .iter()
            .flat_map(|i| cands[*i].branches.iter().copied())
            .filter(|g| target.contains(g))
            .collect();
        assert_eq!(covered, s.covered);
        let reachable: BTreeSet<GoalId> = cands
            .iter()
            .flat_map(|c| c.branches.iter().copied())
            .filter(|g| target.contains(g))
            .collect();
        assert_eq!(s.covered, reachable);
    }
}
