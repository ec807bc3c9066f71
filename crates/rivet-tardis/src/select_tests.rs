//! Tests of the selection: the bucket shares and the fall-through, the pick proportional to
//! similarity, the threshold of reclassification, and picks before any prediction.

use proptest::prelude::*;

use super::*;
use crate::forms::ClauseForms;
use crate::knn::Source;

fn prediction(label: Label, votes: u8, similarity: f64) -> Prediction {
    Prediction {
        label,
        votes,
        similarity,
    }
}

/// A selector whose pending PCs carry these predictions (with an empty classifier they are
/// never recomputed).
fn selector(predictions: &[Prediction], seed: u64) -> Selector<usize> {
    let mut s = Selector::new(SelectorConfig {
        reclassify_after: 5,
        seed,
    });
    for (i, p) in predictions.iter().enumerate() {
        s.insert_fingerprint(i, Fingerprint::default());
        if let Some(pending) = s.pending.get_mut(&i) {
            pending.prediction = Some(*p);
        }
    }
    s
}

/// Picks `n` times from `predictions`, putting each pick back; the frequency of each key.
fn frequencies(predictions: &[Prediction], n: usize, seed: u64) -> Vec<f64> {
    let mut s = selector(predictions, seed);
    let empty = Classifier::new();
    let mut counts = vec![0usize; predictions.len()];
    for _ in 0..n {
        let pick = s
            .pick(&empty)
            .unwrap_or_else(|| panic!("something is pending"));
        counts[pick.key] += 1;
        s.insert_fingerprint(pick.key, Fingerprint::default());
        if let Some(p) = s.pending.get_mut(&pick.key) {
            p.prediction = pick.prediction;
        }
    }
    counts.iter().map(|c| *c as f64 / n as f64).collect()
}

fn near(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() < 0.015
}

#[test]
fn buckets_are_drawn_50_30_15_5() {
    let preds = [
        prediction(Label::Feasible, 3, 0.5),
        prediction(Label::Feasible, 2, 0.5),
        prediction(Label::Infeasible, 2, 0.5),
        prediction(Label::Infeasible, 3, 0.5),
    ];
    let f = frequencies(&preds, 20_000, 7);
    for (got, want) in f.iter().zip([0.50, 0.30, 0.15, 0.05]) {
        assert!(near(*got, want), "{f:?}");
    }
}

#[test]
fn an_empty_bucket_falls_through_to_the_next_non_empty_one() {
    // (1,3) and (0,2) empty: (1,3)'s draws go to (1,2), (0,2)'s to (0,3).
    let preds = [
        prediction(Label::Feasible, 2, 0.5),
        prediction(Label::Infeasible, 3, 0.5),
    ];
    let f = frequencies(&preds, 20_000, 3);
    assert!(near(f[0], 0.80) && near(f[1], 0.20), "{f:?}");
    // Only (0,3): every draw ends there (after (0,3) the order starts again at (1,3)).
    let f = frequencies(&[prediction(Label::Infeasible, 3, 0.2)], 100, 3);
    assert_eq!(f, vec![1.0]);
    // Only (1,3) and (0,3): (1,2) and (0,2) fall to (0,3).
    let preds = [
        prediction(Label::Feasible, 3, 0.5),
        prediction(Label::Infeasible, 3, 0.5),
    ];
    let f = frequencies(&preds, 20_000, 11);
    assert!(near(f[0], 0.50) && near(f[1], 0.50), "{f:?}");
}

#[test]
fn inside_a_bucket_the_pick_follows_the_mean_similarity() {
    let preds = [
        prediction(Label::Feasible, 3, 0.1),
        prediction(Label::Feasible, 3, 0.3),
        prediction(Label::Feasible, 3, 0.6),
        prediction(Label::Feasible, 3, 0.0),
    ];
    let f = frequencies(&preds, 20_000, 5);
    assert!(
        near(f[0], 0.1) && near(f[1], 0.3) && near(f[2], 0.6),
        "{f:?}"
    );
    assert_eq!(f[3], 0.0, "a zero-width interval is never drawn");
    // All zero: uniform.
    let zeros = [prediction(Label::Infeasible, 2, 0.0); 4];
    let f = frequencies(&zeros, 20_000, 5);
    assert!(f.iter().all(|x| near(*x, 0.25)), "{f:?}");
}

#[test]
fn the_same_seed_picks_the_same_sequence() {
    let preds: Vec<Prediction> = (0..30)
        .map(|i| prediction(Label::Feasible, 2 + (i % 2) as u8, f64::from(i) / 30.0))
        .collect();
    let empty = Classifier::new();
    let run = |seed| {
        let mut s = selector(&preds, seed);
        (0..30)
            .filter_map(|_| s.pick(&empty).map(|p| p.key))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(9), run(9));
    assert_ne!(run(9), run(10));
}

fn fp(text: &str) -> Fingerprint {
    Fingerprint::of_forms([&ClauseForms {
        abstract_form: text.replace(|c: char| c.is_ascii_digit(), "."),
        concrete: text.into(),
    }])
}

#[test]
fn pending_pcs_are_reclassified_when_the_training_set_has_grown_by_the_threshold() {
    let mut c = Classifier::new();
    for k in 0..3 {
        c.learn_fingerprint(
            fp(&format!("n <= {k}")),
            Label::Infeasible,
            Source::GoalFailed,
        );
    }
    c.learn_fingerprint(fp("m == 1"), Label::Feasible, Source::GoalReached);
    let mut s: Selector<u32> = Selector::new(SelectorConfig {
        reclassify_after: 3,
        seed: 1,
    });
    s.insert_fingerprint(1, fp("n <= 7"));
    s.refresh(&c);
    let first = s
        .prediction(&1)
        .unwrap_or_else(|| panic!("classified at once"));
    assert_eq!((first.label, first.votes), (Label::Infeasible, 3));
    // Two feasible copies of it: below the threshold, the cached prediction stays...
    for _ in 0..2 {
        c.learn_fingerprint(fp("n <= 7"), Label::Feasible, Source::GoalReached);
    }
    s.refresh(&c);
    assert_eq!(s.prediction(&1), Some(first));
    // ...while a new PC is classified at once with what is known now.
    s.insert_fingerprint(2, fp("n <= 7"));
    s.refresh(&c);
    let new = s
        .prediction(&2)
        .unwrap_or_else(|| panic!("classified at once"));
    assert_eq!((new.label, new.votes), (Label::Feasible, 2));
    // The third example reaches the threshold: every pending PC is classified again.
    c.learn_fingerprint(fp("n <= 7"), Label::Feasible, Source::GoalReached);
    s.refresh(&c);
    let again = s.prediction(&1).unwrap_or_else(|| panic!("classified"));
    assert_eq!(
        (again.label, again.votes, again.similarity),
        (Label::Feasible, 3, 1.0)
    );
    assert_eq!(s.stats().reclassifications, 1);
}

#[test]
fn before_the_classifier_can_classify_picks_follow_the_keys() {
    // Fewer than K examples, then K infeasible ones: no prediction, smallest key first.
    let mut c = Classifier::new();
    let mut s: Selector<usize> = Selector::new(SelectorConfig::default());
    for k in [4, 2, 9, 7] {
        s.insert_fingerprint(k, fp(&format!("n <= {k}")));
    }
    let p = s.pick(&c).unwrap_or_else(|| panic!("pending"));
    assert_eq!((p.key, p.bucket, p.prediction), (2, None, None));
    for k in 0..3 {
        c.learn_fingerprint(
            fp(&format!("n <= {k}")),
            Label::Infeasible,
            Source::GoalFailed,
        );
    }
    assert!(!Selector::<usize>::informed(&c));
    let keys: Vec<usize> = (0..2).filter_map(|_| s.pick(&c)).map(|p| p.key).collect();
    assert_eq!(keys, vec![4, 7]);
    assert_eq!(s.stats().unclassified_picks, 3);
    // A feasible example: the classifier classifies, and the draw takes over.
    c.learn_fingerprint(fp("n <= 5"), Label::Feasible, Source::GoalReached);
    assert!(Selector::<usize>::informed(&c));
    let p = s.pick(&c).unwrap_or_else(|| panic!("pending"));
    assert_eq!(p.key, 9);
    assert!(p.bucket.is_some());
}

#[test]
fn a_restricted_pick_only_draws_allowed_pcs() {
    let preds = [
        prediction(Label::Feasible, 3, 0.9),
        prediction(Label::Infeasible, 3, 0.1),
    ];
    let mut s = selector(&preds, 2);
    let empty = Classifier::new();
    for _ in 0..20 {
        let mut t = s.clone();
        let p = t.pick_among(&empty, &|k| *k == 1);
        assert_eq!(p.map(|p| p.key), Some(1));
    }
    assert_eq!(s.pick_among(&empty, &|_| false), None);
    assert_eq!(s.len(), 2);
}

#[test]
fn preference_orders_feasible_first_and_unclassified_in_the_middle() {
    let mut keys = [
        preference(Some(&prediction(Label::Infeasible, 3, 0.9))),
        preference(None),
        preference(Some(&prediction(Label::Feasible, 3, 0.2))),
        preference(Some(&prediction(Label::Feasible, 3, 0.8))),
        preference(Some(&prediction(Label::Infeasible, 3, 0.1))),
    ];
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    assert_eq!(
        keys,
        [(0, -0.8), (0, -0.2), (2, 0.0), (4, 0.1), (4, 0.9)],
        "more similar to feasible examples first, less similar to infeasible ones first"
    );
}

proptest! {
    /// Picks drain the pending PCs, each once, whatever their predictions.
    #[test]
    fn picks_take_every_pending_pc_exactly_once(
        preds in prop::collection::vec((any::<bool>(), 2u8..4, 0.0f64..1.0), 1..40),
        seed in any::<u64>(),
    ) {
        let preds: Vec<Prediction> = preds
            .into_iter()
            .map(|(f, v, s)| prediction(if f { Label::Feasible } else { Label::Infeasible }, v, s))
            .collect();
        let mut s = selector(&preds, seed);
        let empty = Classifier::new();
        let mut seen = std::collections::BTreeSet::new();
        while let Some(p) = s.pick(&empty) {
            prop_assert!(seen.insert(p.key));
            prop_assert_eq!(p.bucket, p.prediction.as_ref().map(Bucket::of));
        }
        prop_assert_eq!(seen.len(), preds.len());
        prop_assert!(s.is_empty());
    }
}
