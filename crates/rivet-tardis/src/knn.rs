//! Satisfiability predictions (TARDIS §4.3): a training set of fingerprints labelled feasible
//! or infeasible, growing as the run goes, and KNN with k = [`K`] over the Jaccard similarity.
//! KNN needs no training step, so an example counts from the moment it is learned.

use std::collections::BTreeMap;

use rivet_pc::PathCondition;
use serde::{Deserialize, Serialize};

use crate::fingerprint::Fingerprint;

/// Neighbours that vote.
pub const K: usize = 3;

/// The class of a path condition: 0 (infeasible: no legal test reaches it, as far as the run
/// knows) or 1 (feasible).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Infeasible,
    Feasible,
}

/// Where a training example came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A path-condition goal the search reached (feasible).
    GoalReached,
    /// A path-condition goal the search did not reach within its slice (infeasible).
    GoalFailed,
    /// A path condition the solver proved unsatisfiable (infeasible).
    SolverUnsat,
    /// The path condition a test's own call satisfied (feasible): TARDIS's evidence from
    /// the tests it replays.
    TestPath,
}

/// A prediction: the majority label of the `K` nearest examples, how many of them voted for
/// it (2 or 3), and their mean similarity to the PC.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub label: Label,
    pub votes: u8,
    pub similarity: f64,
}

#[derive(Debug, Clone)]
struct Example {
    fingerprint: Fingerprint,
    label: Label,
}

/// What the classifier has learned, by label and source.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassifierStats {
    pub feasible: usize,
    pub infeasible: usize,
    pub by_source: BTreeMap<Source, usize>,
}

/// The training set and KNN over it.
#[derive(Debug, Clone, Default)]
pub struct Classifier {
    examples: Vec<Example>,
    stats: ClassifierStats,
}

impl Classifier {
    pub fn new() -> Classifier {
        Classifier::default()
    }

    /// Learns `pc` (sliced from its last clause) with `label`.
    pub fn learn(&mut self, pc: &PathCondition, label: Label, source: Source) {
        self.learn_fingerprint(Fingerprint::of(pc), label, source);
    }

    pub fn learn_fingerprint(&mut self, fingerprint: Fingerprint, label: Label, source: Source) {
        self.examples.push(Example { fingerprint, label });
        match label {
            Label::Feasible => self.stats.feasible += 1,
            Label::Infeasible => self.stats.infeasible += 1,
        }
        *self.stats.by_source.entry(source).or_insert(0) += 1;
    }

    /// Examples learned.
    pub fn len(&self) -> usize {
        self.examples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.examples.is_empty()
    }

    pub fn stats(&self) -> &ClassifierStats {
        &self.stats
    }

    /// The prediction for `fingerprint`, or None while fewer than `K` examples are known.
    /// Among equally similar examples the later ones (learned more recently) are nearer.
    pub fn classify(&self, fingerprint: &Fingerprint) -> Option<Prediction> {
        if self.examples.len() < K {
            return None;
        }
        // The K most similar, most similar first.
        let mut nearest: Vec<(f64, usize)> = Vec::with_capacity(K + 1);
        for (i, e) in self.examples.iter().enumerate() {
            let s = fingerprint.jaccard(&e.fingerprint);
            let at = nearest
                .iter()
                .position(|(t, _)| s >= *t)
                .unwrap_or(nearest.len());
            if at < K {
                nearest.insert(at, (s, i));
                nearest.truncate(K);
            }
        }
        let feasible = nearest
            .iter()
            .filter(|(_, i)| self.examples[*i].label == Label::Feasible)
            .count();
        let (label, votes) = if 2 * feasible > K {
            (Label::Feasible, feasible)
        } else {
            (Label::Infeasible, K - feasible)
        };
        let similarity = nearest.iter().map(|(s, _)| s).sum::<f64>() / K as f64;
        Some(Prediction {
            label,
            votes: votes as u8,
            similarity,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::forms::ClauseForms;

    use super::*;

    fn fp(clauses: &[&str]) -> Fingerprint {
        let forms: Vec<ClauseForms> = clauses
            .iter()
            .map(|c| ClauseForms {
                abstract_form: c.replace(|ch: char| ch.is_ascii_digit(), "."),
                concrete: (*c).to_string(),
            })
            .collect();
        Fingerprint::of_forms(&forms)
    }

    #[test]
    fn no_prediction_before_k_examples() {
        let mut c = Classifier::new();
        c.learn_fingerprint(fp(&["a < 1"]), Label::Infeasible, Source::GoalFailed);
        c.learn_fingerprint(fp(&["a < 2"]), Label::Infeasible, Source::GoalFailed);
        assert_eq!(c.classify(&fp(&["a < 3"])), None);
        c.learn_fingerprint(fp(&["b > 1"]), Label::Feasible, Source::GoalReached);
        let p = c
            .classify(&fp(&["a < 3"]))
            .unwrap_or_else(|| panic!("3 examples"));
        assert_eq!((p.label, p.votes), (Label::Infeasible, 2));
        assert_eq!(c.stats().infeasible, 2);
        assert_eq!(c.stats().by_source.get(&Source::GoalReached), Some(&1));
    }

    #[test]
    fn the_nearest_three_vote_and_their_mean_similarity_is_kept() {
        let mut c = Classifier::new();
        for k in 0..3 {
            c.learn_fingerprint(
                fp(&["x.length >= 0", &format!("x.length <= {k}")]),
                Label::Infeasible,
                Source::GoalFailed,
            );
        }
        for k in 0..3 {
            c.learn_fingerprint(
                fp(&[&format!("x[{k}] > 7"), "y != null"]),
                Label::Feasible,
                Source::GoalReached,
            );
        }
        let p = c
            .classify(&fp(&["x.length >= 0", "x.length <= 4"]))
            .unwrap_or_else(|| panic!("6 examples"));
        assert_eq!((p.label, p.votes), (Label::Infeasible, 3));
        assert!(p.similarity > 0.3 && p.similarity < 1.0, "{p:?}");
        let same = c
            .classify(&fp(&["x[1] > 7", "y != null"]))
            .unwrap_or_else(|| panic!("6 examples"));
        assert_eq!((same.label, same.votes), (Label::Feasible, 3));
        assert!(same.similarity > p.similarity);
    }
}
