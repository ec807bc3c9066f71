//! How the symbolic strategy picks the path conditions (PCs) it hands to the search as goals
//! (`--pc-policy`):
//!
//! * `fifo`: the paths in the order they were explored, one goal per free slot;
//! * `cover`: SUSHI's rounds, the set cover of the uncovered branches with a few alternatives
//!   per branch spread over the costs (`select`);
//! * `tardis`: TARDIS's pick alone (`rivet_tardis::Selector`), one goal per free slot;
//! * `cover-tardis` (the default): SUSHI's rounds, the cover taken first among the paths the
//!   classifier does not deem likely infeasible (label 0), then among those it does for the
//!   branches only they cover, ties and alternatives in the classifier's order. Every branch
//!   the plain cover targets is targeted (never worse on coverage by construction); before
//!   the classifier has `K` examples it is the plain cover.
//!
//! `fifo` and `tardis` keep [`PIPELINE_SLOTS`] goals in flight (the TARDIS paper's five
//! threads) and pick the next as soon as one is reached or runs out of time, among every path
//! not yet tried; the cover policies target the branches still uncovered, round by round.

use std::collections::BTreeSet;
use std::time::Duration;

use rivet_tardis::{preference, Bucket, Label, Prediction};
use rivet_testcase::GoalId;

use crate::select::{alternatives, select, Candidate, SelectionMethod};

/// A path-condition selection policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PcPolicy {
    Fifo,
    Cover,
    Tardis,
    #[default]
    CoverTardis,
}

/// Goals in flight under the pipelined policies.
pub const PIPELINE_SLOTS: usize = 5;

impl PcPolicy {
    /// The name as the flag and the report spell it.
    pub fn name(self) -> &'static str {
        match self {
            PcPolicy::Fifo => "fifo",
            PcPolicy::Cover => "cover",
            PcPolicy::Tardis => "tardis",
            PcPolicy::CoverTardis => "cover-tardis",
        }
    }

    pub fn parse(text: &str) -> Option<PcPolicy> {
        [
            PcPolicy::Fifo,
            PcPolicy::Cover,
            PcPolicy::Tardis,
            PcPolicy::CoverTardis,
        ]
        .into_iter()
        .find(|p| p.name() == text)
    }

    /// One goal per free slot (FIFO, TARDIS) rather than rounds of a covering selection.
    pub fn pipelined(self) -> bool {
        matches!(self, PcPolicy::Fifo | PcPolicy::Tardis)
    }

    /// Asks the classifier.
    pub fn learns(self) -> bool {
        matches!(self, PcPolicy::Tardis | PcPolicy::CoverTardis)
    }

    /// The share of the slice (and of the stall time) a goal gets when it was picked with
    /// `prediction`. Under `tardis`, which draws a fifth of its picks from the buckets it
    /// deems likely infeasible (§4.4's 15 % + 5 %), such a pick gets half a slice (two of
    /// three neighbours infeasible) or a quarter (all three): the budget goes to the PCs
    /// likely feasible, and the few infeasible-looking PCs that are reached are reached
    /// fast. Every other pick, and every pick of the other policies, gets a whole slice
    /// (the cover policies target branches, and a shorter slice could lose one).
    pub fn slice_share(self, prediction: Option<&Prediction>) -> f64 {
        match (self, prediction.map(Bucket::of)) {
            (PcPolicy::Tardis, Some(Bucket::InfeasibleMajority)) => 0.5,
            (PcPolicy::Tardis, Some(Bucket::InfeasibleUnanimous)) => 0.25,
            _ => 1.0,
        }
    }
}

/// A round's selection: indices of candidates in the order they become goals.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundChoice {
    pub chosen: Vec<usize>,
    pub method: SelectionMethod,
}

/// How many alternatives a round adds, per uncovered branch and in all.
#[derive(Debug, Clone, Copy)]
pub struct RoundLimits {
    pub per_branch: usize,
    pub alternatives: usize,
    /// Time the exact cover may take.
    pub ilp: Duration,
}

/// SUSHI's round: the cover, then alternatives spread over the costs.
pub fn cover_round(
    candidates: &[Candidate],
    uncovered: &BTreeSet<GoalId>,
    limits: RoundLimits,
) -> RoundChoice {
    let mut selection = select(candidates, uncovered, limits.ilp);
    let extra = alternatives(
        candidates,
        uncovered,
        &selection.chosen,
        limits.per_branch,
        limits.alternatives,
    );
    selection.chosen.extend(extra);
    RoundChoice {
        chosen: selection.chosen,
        method: selection.method,
    }
}

fn likely_infeasible(p: Option<&Prediction>) -> bool {
    p.is_some_and(|p| p.label == Label::Infeasible)
}

/// The cover guided by the classifier (`predictions[i]` is candidate `i`'s): the cover among
/// the candidates not predicted infeasible, completed among the others for the branches only
/// they cover; ties go to the classifier's preferred candidates; alternatives per branch are
/// the preferred ones not chosen. Without any prediction, [`cover_round`].
pub fn cover_tardis_round(
    candidates: &[Candidate],
    predictions: &[Option<Prediction>],
    uncovered: &BTreeSet<GoalId>,
    limits: RoundLimits,
) -> RoundChoice {
    if predictions.iter().all(Option::is_none) {
        return cover_round(candidates, uncovered, limits);
    }
    let prediction = |i: usize| predictions.get(i).and_then(Option::as_ref);
    // The classifier's order, then the cheaper path: its position is the cost that breaks
    // the cover's ties.
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by(|a, b| {
        let (pa, pb) = (preference(prediction(*a)), preference(prediction(*b)));
        pa.0.cmp(&pb.0)
            .then(pa.1.total_cmp(&pb.1))
            .then(candidates[*a].cost.cmp(&candidates[*b].cost))
            .then(a.cmp(b))
    });
    let mut rank = vec![0; candidates.len()];
    for (position, i) in order.iter().enumerate() {
        rank[*i] = position;
    }
    let only = |keep: &dyn Fn(usize) -> bool| -> Vec<Candidate> {
        candidates
            .iter()
            .enumerate()
            .map(|(i, c)| Candidate {
                branches: if keep(i) {
                    c.branches.clone()
                } else {
                    BTreeSet::new()
                },
                cost: rank[i],
            })
            .collect()
    };
    let preferred = only(&|i| !likely_infeasible(prediction(i)));
    let first = select(&preferred, uncovered, limits.ilp);
    let left: BTreeSet<GoalId> = uncovered.difference(&first.covered).copied().collect();
    let rest = only(&|i| likely_infeasible(prediction(i)));
    let second = select(&rest, &left, limits.ilp);
    let mut chosen: Vec<usize> = first.chosen.iter().chain(&second.chosen).copied().collect();
    chosen.sort_by_key(|i| rank[*i]);
    // Alternatives: per uncovered branch, the preferred candidates covering it not chosen.
    let mut extra: Vec<usize> = Vec::new();
    for b in uncovered {
        let mut taken = 0;
        for &i in &order {
            if taken == limits.per_branch || extra.len() == limits.alternatives {
                break;
            }
            if candidates[i].branches.contains(b) && !chosen.contains(&i) && !extra.contains(&i) {
                extra.push(i);
                taken += 1;
            }
        }
    }
    chosen.extend(extra);
    let method = if first.method == SelectionMethod::Ilp || second.method == SelectionMethod::Ilp {
        SelectionMethod::Ilp
    } else {
        SelectionMethod::Greedy
    };
    RoundChoice { chosen, method }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::tests::{c, goals};

    fn p(label: Label, votes: u8, similarity: f64) -> Option<Prediction> {
        Some(Prediction {
            label,
            votes,
            similarity,
        })
    }

    const LIMITS: RoundLimits = RoundLimits {
        per_branch: 1,
        alternatives: 4,
        ilp: Duration::from_millis(100),
    };

    fn covered(cands: &[Candidate], chosen: &[usize]) -> BTreeSet<GoalId> {
        chosen
            .iter()
            .flat_map(|i| cands[*i].branches.iter().copied())
            .collect()
    }

    #[test]
    fn policies_are_named_as_the_flag_spells_them() {
        for p in [
            PcPolicy::Fifo,
            PcPolicy::Cover,
            PcPolicy::Tardis,
            PcPolicy::CoverTardis,
        ] {
            assert_eq!(PcPolicy::parse(p.name()), Some(p));
        }
        assert_eq!(PcPolicy::parse("lifo"), None);
        assert_eq!(PcPolicy::default(), PcPolicy::CoverTardis);
    }

    #[test]
    fn the_cover_avoids_paths_predicted_infeasible_but_keeps_every_branch() {
        // Path 0 covers 1 and 2 cheaply but looks infeasible; 1 and 2 cover them apart;
        // branch 3 only an infeasible-looking path covers.
        let cands = [c(&[1, 2], 1), c(&[1], 5), c(&[2], 5), c(&[3], 9)];
        let preds = [
            p(Label::Infeasible, 3, 0.9),
            p(Label::Feasible, 2, 0.4),
            None,
            p(Label::Infeasible, 2, 0.5),
        ];
        let target = goals(&[1, 2, 3]);
        let plain = cover_round(&cands, &target, LIMITS);
        assert!(plain.chosen.starts_with(&[0, 3]), "{plain:?}");
        let guided = cover_tardis_round(&cands, &preds, &target, LIMITS);
        assert_eq!(&guided.chosen[..3], &[1, 2, 3], "{guided:?}");
        assert_eq!(covered(&cands, &guided.chosen), target);
        // The infeasible-looking cheap path is still an alternative, last.
        assert_eq!(guided.chosen[3..], [0]);
    }

    #[test]
    fn ties_and_alternatives_follow_the_classifier() {
        // Three single-branch paths for branch 1: the cover takes the one the classifier
        // prefers, and the alternative is the next preferred, not the cheapest.
        let cands = [c(&[1], 1), c(&[1], 2), c(&[1], 3)];
        let preds = [
            p(Label::Feasible, 2, 0.2),
            p(Label::Feasible, 3, 0.1),
            p(Label::Feasible, 3, 0.7),
        ];
        let guided = cover_tardis_round(&cands, &preds, &goals(&[1]), LIMITS);
        assert_eq!(guided.chosen, vec![2, 1]);
    }

    #[test]
    fn without_predictions_it_is_the_plain_cover() {
        let cands = [c(&[1, 2], 1), c(&[1], 5), c(&[2], 5), c(&[3], 9)];
        let target = goals(&[1, 2, 3]);
        assert_eq!(
            cover_tardis_round(&cands, &[None, None, None, None], &target, LIMITS),
            cover_round(&cands, &target, LIMITS)
        );
    }

    #[test]
    fn only_tardis_shortens_the_slice_of_a_pc_that_looks_infeasible() {
        let shares = |policy: PcPolicy| {
            [
                None,
                p(Label::Feasible, 3, 0.5),
                p(Label::Feasible, 2, 0.5),
                p(Label::Infeasible, 2, 0.5),
                p(Label::Infeasible, 3, 0.5),
            ]
            .map(|pred| policy.slice_share(pred.as_ref()))
        };
        assert_eq!(shares(PcPolicy::Tardis), [1.0, 1.0, 1.0, 0.5, 0.25]);
        for other in [PcPolicy::Fifo, PcPolicy::Cover, PcPolicy::CoverTardis] {
            assert_eq!(shares(other), [1.0; 5], "{other:?}");
        }
    }
}
