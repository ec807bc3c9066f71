//! TARDIS's path selection (§4.4–4.5): the PCs waiting to be tried, each with its prediction,
//! fall into four buckets by (label, votes); a pick draws a bucket with probability 50 %
//! (1, 3), 30 % (1, 2), 15 % (0, 2), 5 % (0, 3), falling through to the next non-empty bucket
//! in that order (after (0, 3) back to (1, 3)) when the drawn one is empty, then a PC in it
//! with probability proportional to its neighbours' mean Jaccard similarity (a draw over the
//! cumulative intervals of those means). Predictions are cached: a PC is classified when it
//! first meets a training set of at least `K` examples, and every pending PC is classified
//! again each time the training set has grown by `reclassify_after` examples since the last
//! pass.
//!
//! Before the classifier can say anything the pick takes the pending PC with the smallest key
//! (the engine keys PCs by the order they were explored: FIFO). That is while the training set
//! holds fewer than `K` examples (no neighbours to vote), and while it holds no feasible
//! example: TARDIS starts from the feasible path condition of a test it ran, and a training
//! set of infeasible examples alone would put every PC in (0, 3), where the draw favours the
//! PCs most like the failures.

use std::collections::BTreeMap;

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;
use rivet_pc::PathCondition;
use serde::{Deserialize, Serialize};

use crate::fingerprint::Fingerprint;
use crate::fingerprinter::Fingerprinter;
use crate::knn::{Classifier, Label, Prediction, K};

/// A bucket of pending PCs by (label, votes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bucket {
    /// (1, 3): feasible, unanimously.
    FeasibleUnanimous,
    /// (1, 2).
    FeasibleMajority,
    /// (0, 2).
    InfeasibleMajority,
    /// (0, 3): infeasible, unanimously.
    InfeasibleUnanimous,
}

impl Bucket {
    /// The buckets in the order of the fall-through.
    pub const ALL: [Bucket; 4] = [
        Bucket::FeasibleUnanimous,
        Bucket::FeasibleMajority,
        Bucket::InfeasibleMajority,
        Bucket::InfeasibleUnanimous,
    ];

    pub fn of(p: &Prediction) -> Bucket {
        let unanimous = usize::from(p.votes) >= K;
        match (p.label, unanimous) {
            (Label::Feasible, true) => Bucket::FeasibleUnanimous,
            (Label::Feasible, false) => Bucket::FeasibleMajority,
            (Label::Infeasible, false) => Bucket::InfeasibleMajority,
            (Label::Infeasible, true) => Bucket::InfeasibleUnanimous,
        }
    }

    /// The probability of drawing this bucket.
    pub fn share(self) -> f64 {
        match self {
            Bucket::FeasibleUnanimous => 0.50,
            Bucket::FeasibleMajority => 0.30,
            Bucket::InfeasibleMajority => 0.15,
            Bucket::InfeasibleUnanimous => 0.05,
        }
    }

    pub fn index(self) -> usize {
        match self {
            Bucket::FeasibleUnanimous => 0,
            Bucket::FeasibleMajority => 1,
            Bucket::InfeasibleMajority => 2,
            Bucket::InfeasibleUnanimous => 3,
        }
    }

    /// `label/votes`, as the paper writes the sets (`1/3`, …).
    pub fn name(self) -> &'static str {
        match self {
            Bucket::FeasibleUnanimous => "1/3",
            Bucket::FeasibleMajority => "1/2",
            Bucket::InfeasibleMajority => "0/2",
            Bucket::InfeasibleUnanimous => "0/3",
        }
    }
}

/// An order of preference over predictions (Rivet's, for ordering, not the paper's draw):
/// feasible unanimous, feasible majority, unclassified, infeasible majority, infeasible
/// unanimous; within a feasible bucket the more similar first, within an infeasible one the
/// less similar first. Smaller keys are preferred.
pub fn preference(p: Option<&Prediction>) -> (u8, f64) {
    match p {
        None => (2, 0.0),
        Some(p) => match Bucket::of(p) {
            Bucket::FeasibleUnanimous => (0, -p.similarity),
            Bucket::FeasibleMajority => (1, -p.similarity),
            Bucket::InfeasibleMajority => (3, p.similarity),
            Bucket::InfeasibleUnanimous => (4, p.similarity),
        },
    }
}

/// Settings of a selector.
#[derive(Debug, Clone, Copy)]
pub struct SelectorConfig {
    /// Reclassify every pending PC when the training set has grown by this many examples
    /// since the last pass (at least 1).
    pub reclassify_after: usize,
    pub seed: u64,
}

impl Default for SelectorConfig {
    fn default() -> SelectorConfig {
        SelectorConfig {
            reclassify_after: 5,
            seed: 0,
        }
    }
}

/// A picked PC: its key, and its bucket and prediction (None for a pick before the classifier
/// could classify).
#[derive(Debug, Clone, PartialEq)]
pub struct Pick<Id> {
    pub key: Id,
    pub bucket: Option<Bucket>,
    pub prediction: Option<Prediction>,
}

/// What a selector did: classifications made per bucket (first ones and reclassifications),
/// picks per bucket, picks made in key order before the classifier could classify, and
/// reclassification passes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SelectorStats {
    pub classified: BTreeMap<Bucket, usize>,
    pub picks: BTreeMap<Bucket, usize>,
    pub unclassified_picks: usize,
    pub reclassifications: usize,
}

#[derive(Debug, Clone)]
struct Pending {
    fingerprint: Fingerprint,
    prediction: Option<Prediction>,
}

/// The pending PCs of one strategy, keyed by `Id`, and the draws over them.
#[derive(Debug, Clone)]
pub struct Selector<Id: Ord + Clone> {
    pending: BTreeMap<Id, Pending>,
    config: SelectorConfig,
    rng: XorShiftRng,
    /// The training set's size at the last full classification pass (None: none yet).
    passed_at: Option<usize>,
    stats: SelectorStats,
    fingerprinter: Fingerprinter,
}

impl<Id: Ord + Clone> Selector<Id> {
    pub fn new(config: SelectorConfig) -> Selector<Id> {
        Selector {
            pending: BTreeMap::new(),
            config,
            rng: XorShiftRng::seed_from_u64(config.seed),
            passed_at: None,
            stats: SelectorStats::default(),
            fingerprinter: Fingerprinter::new(),
        }
    }

    /// Adds a pending PC (fingerprinted from its slice); a key already pending is replaced.
    pub fn insert(&mut self, key: Id, pc: &PathCondition) {
        let fingerprint = self.fingerprinter.of(pc);
        self.insert_fingerprint(key, fingerprint);
    }

    pub fn insert_fingerprint(&mut self, key: Id, fingerprint: Fingerprint) {
        self.pending.insert(
            key,
            Pending {
                fingerprint,
                prediction: None,
            },
        );
    }

    /// Drops a pending PC (tried, or no longer wanted); true if it was pending.
    pub fn remove(&mut self, key: &Id) -> bool {
        self.pending.remove(key).is_some()
    }

    pub fn contains(&self, key: &Id) -> bool {
        self.pending.contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn stats(&self) -> &SelectorStats {
        &self.stats
    }

    /// Can `classifier` classify: `K` examples, one of them feasible?
    pub fn informed(classifier: &Classifier) -> bool {
        classifier.len() >= K && classifier.stats().feasible > 0
    }

    /// The cached prediction of a pending PC (call [`Selector::refresh`] first).
    pub fn prediction(&self, key: &Id) -> Option<Prediction> {
        self.pending.get(key).and_then(|p| p.prediction)
    }

    /// Pending PCs per bucket, in [`Bucket::ALL`] order, and those without a prediction.
    pub fn bucket_sizes(&self) -> ([usize; 4], usize) {
        let mut sizes = [0; 4];
        let mut none = 0;
        for p in self.pending.values() {
            match &p.prediction {
                Some(pred) => sizes[Bucket::of(pred).index()] += 1,
                None => none += 1,
            }
        }
        (sizes, none)
    }

    /// Classifies the PCs never classified, and every pending PC again when the training
    /// set has grown by the threshold since the last pass.
    pub fn refresh(&mut self, classifier: &Classifier) {
        if !Selector::<Id>::informed(classifier) {
            return;
        }
        let n = classifier.len();
        let every = match self.passed_at {
            None => true,
            Some(at) => n >= at + self.config.reclassify_after.max(1),
        };
        if every {
            if self.passed_at.is_some() {
                self.stats.reclassifications += 1;
            }
            self.passed_at = Some(n);
        }
        for p in self.pending.values_mut() {
            if every || p.prediction.is_none() {
                p.prediction = classifier.classify(&p.fingerprint);
                if let Some(pred) = &p.prediction {
                    *self.stats.classified.entry(Bucket::of(pred)).or_insert(0) += 1;
                }
            }
        }
    }

    /// Picks a pending PC as TARDIS does and removes it from the pending ones.
    pub fn pick(&mut self, classifier: &Classifier) -> Option<Pick<Id>> {
        self.pick_among(classifier, &|_| true)
    }

    /// As [`Selector::pick`], among the pending PCs `allowed` accepts.
    pub fn pick_among(
        &mut self,
        classifier: &Classifier,
        allowed: &dyn Fn(&Id) -> bool,
    ) -> Option<Pick<Id>> {
        self.refresh(classifier);
        let mut buckets: [Vec<(Id, f64)>; 4] = Default::default();
        let mut unclassified: Vec<Id> = Vec::new();
        for (key, p) in &self.pending {
            if !allowed(key) {
                continue;
            }
            match &p.prediction {
                Some(pred) => {
                    buckets[Bucket::of(pred).index()].push((key.clone(), pred.similarity))
                }
                None => unclassified.push(key.clone()),
            }
        }
        let key = if !unclassified.is_empty() && buckets.iter().all(|b| b.is_empty()) {
            // The smallest key (BTreeMap order): exploration order.
            self.stats.unclassified_picks += 1;
            unclassified.swap_remove(0)
        } else {
            let drawn = self.draw_bucket();
            let bucket = (0..4)
                .map(|t| Bucket::ALL[(drawn.index() + t) % 4])
                .find(|b| !buckets[b.index()].is_empty())?;
            let members = &buckets[bucket.index()];
            let weights: Vec<f64> = members.iter().map(|(_, s)| *s).collect();
            let i = self.by_weight(&weights);
            *self.stats.picks.entry(bucket).or_insert(0) += 1;
            members[i].0.clone()
        };
        let pending = self.pending.remove(&key)?;
        Some(Pick {
            key,
            bucket: pending.prediction.as_ref().map(Bucket::of),
            prediction: pending.prediction,
        })
    }

    /// A uniform draw in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform index below `n` (n ≥ 1).
    fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n.saturating_sub(1))
    }

    /// A bucket drawn by the shares.
    fn draw_bucket(&mut self) -> Bucket {
        let u = self.unit();
        let mut upto = 0.0;
        for b in Bucket::ALL {
            upto += b.share();
            if u < upto {
                return b;
            }
        }
        Bucket::InfeasibleUnanimous
    }

    /// An index drawn with probability proportional to its weight: a uniform value over the
    /// cumulative intervals [0, w0), [w0, w0 + w1), …; uniform when every weight is zero.
    fn by_weight(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().map(|w| w.max(0.0)).sum();
        if total <= 0.0 {
            return self.below(weights.len());
        }
        let r = self.unit() * total;
        let mut end = 0.0;
        let mut last_positive = 0;
        for (i, w) in weights.iter().enumerate() {
            let w = w.max(0.0);
            if w > 0.0 {
                last_positive = i;
            }
            end += w;
            if r < end {
                return i;
            }
        }
        last_positive
    }
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
