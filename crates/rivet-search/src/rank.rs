//! DynaMOSA's ranking of a population against the current targets: the preference criterion
//! (front 0 holds the best individual for each target), then non-dominated fronts until enough
//! individuals are placed, and within each front the sub-vector dominance assignment (an
//! individual that fewer targets of any other member of its front beat survives first; ties go
//! to the one closer to the targets overall).

/// An individual's fitness per current target (in target order) and its length (shorter wins
/// ties of the preference criterion).
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub fitness: Vec<f64>,
    pub len: usize,
    pub rank: usize,
    pub crowding: f64,
}

impl Scored {
    pub fn new(fitness: Vec<f64>, len: usize) -> Scored {
        Scored {
            fitness,
            len,
            rank: 0,
            crowding: 0.0,
        }
    }
}

/// Assigns ranks and crowding: front 0 holds the best individual of each target (preference
/// criterion, shorter first on ties), the rest are sorted into non-dominated fronts until
/// `wanted` individuals are placed (the remainder share the next front).
pub fn rank(pop: &mut [Scored], wanted: usize) {
    let m = pop.first().map_or(0, |s| s.fitness.len());
    let mut assigned = vec![false; pop.len()];
    for t in 0..m {
        let best = (0..pop.len()).min_by(|&x, &y| {
            pop[x].fitness[t]
                .total_cmp(&pop[y].fitness[t])
                .then(pop[x].len.cmp(&pop[y].len))
                .then(x.cmp(&y))
        });
        if let Some(b) = best {
            assigned[b] = true;
        }
    }
    for (i, ind) in pop.iter_mut().enumerate() {
        if assigned[i] {
            ind.rank = 0;
        }
    }
    let mut placed = assigned.iter().filter(|a| **a).count();
    let mut front = 1;
    let mut remaining: Vec<usize> = (0..pop.len()).filter(|i| !assigned[*i]).collect();
    while !remaining.is_empty() {
        if placed >= wanted {
            for &i in &remaining {
                pop[i].rank = front;
            }
            break;
        }
        let current: Vec<usize> = remaining
            .iter()
            .copied()
            .filter(|&i| {
                !remaining
                    .iter()
                    .any(|&j| j != i && dominates(&pop[j].fitness, &pop[i].fitness))
            })
            .collect();
        let current = if current.is_empty() {
            remaining.clone()
        } else {
            current
        };
        for &i in &current {
            pop[i].rank = front;
        }
        placed += current.len();
        remaining.retain(|i| !current.contains(i));
        front += 1;
    }
    crowding(pop);
}

/// Crowding within each front: minus the sub-vector dominance (the most targets on which one
/// other member of the front is strictly better), with the summed fitness (each capped at 10)
/// as a small tie-breaker, so that larger crowding survives first.
pub fn crowding(pop: &mut [Scored]) {
    let closeness: Vec<f64> = pop
        .iter()
        .map(|ind| ind.fitness.iter().map(|f| f.min(10.0)).sum::<f64>())
        .collect();
    let svd: Vec<usize> = (0..pop.len())
        .map(|i| sub_vector_dominance(pop, i))
        .collect();
    for (i, ind) in pop.iter_mut().enumerate() {
        // The tie-breaker stays below 1: it never outweighs one target.
        let tie = closeness[i] / (closeness[i] + 1.0);
        ind.crowding = -(svd[i] as f64) - tie;
    }
}

/// The largest number of targets on which another member of `i`'s front beats it.
pub fn sub_vector_dominance(pop: &[Scored], i: usize) -> usize {
    pop.iter()
        .enumerate()
        .filter(|(j, other)| *j != i && other.rank == pop[i].rank)
        .map(|(_, other)| {
            other
                .fitness
                .iter()
                .zip(&pop[i].fitness)
                .filter(|(o, me)| o < me)
                .count()
        })
        .max()
        .unwrap_or(0)
}

/// Pareto dominance (lower is better): `a` is nowhere worse than `b` and somewhere better.
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut strictly = false;
    for (x, y) in a.iter().zip(b) {
        if x > y {
            return false;
        }
        if x < y {
            strictly = true;
        }
    }
    strictly
}

/// The order in which individuals survive: lower rank, then larger crowding, then shorter,
/// then earlier.
pub fn survival_order(pop: &[Scored]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..pop.len()).collect();
    order.sort_by(|&x, &y| {
        pop[x]
            .rank
            .cmp(&pop[y].rank)
            .then(pop[y].crowding.total_cmp(&pop[x].crowding))
            .then(pop[x].len.cmp(&pop[y].len))
            .then(x.cmp(&y))
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(f: &[f64], len: usize) -> Scored {
        Scored::new(f.to_vec(), len)
    }

    #[test]
    fn dominance_needs_no_worse_and_one_better() {
        assert!(dominates(&[0.0, 1.0], &[0.5, 1.0]));
        assert!(!dominates(&[0.0, 1.0], &[0.0, 1.0]));
        assert!(!dominates(&[0.0, 2.0], &[0.5, 1.0]));
        assert!(!dominates(&[], &[]));
    }

    #[test]
    fn preference_criterion_puts_the_best_per_target_first() {
        // Target 0's best is #2 (0.1); target 1's best is #0 (0.0); #1 is dominated by #0.
        let mut pop = vec![
            scored(&[0.5, 0.0], 3),
            scored(&[0.8, 0.5], 3),
            scored(&[0.1, 0.9], 3),
            scored(&[0.7, 0.2], 3),
        ];
        rank(&mut pop, 10);
        assert_eq!(pop[0].rank, 0);
        assert_eq!(pop[2].rank, 0);
        assert_eq!(
            pop[3].rank, 1,
            "#3 is not dominated by the other non-preferred one"
        );
        assert_eq!(pop[1].rank, 2, "#1 is dominated by #3");
    }

    #[test]
    fn ties_of_the_preference_criterion_go_to_the_shorter_test() {
        let mut pop = vec![scored(&[0.0], 5), scored(&[0.0], 2)];
        rank(&mut pop, 10);
        assert_eq!((pop[0].rank, pop[1].rank), (1, 0));
    }

    #[test]
    fn once_enough_are_placed_the_rest_share_one_front() {
        let mut pop = vec![
            scored(&[0.0, 9.0], 1),
            scored(&[9.0, 0.0], 1),
            scored(&[1.0, 1.0], 1),
            scored(&[2.0, 2.0], 1),
        ];
        rank(&mut pop, 2);
        assert_eq!(pop[2].rank, 1);
        assert_eq!(pop[3].rank, 1);
    }

    #[test]
    fn sub_vector_dominance_counts_the_targets_others_beat_within_a_front() {
        // #0 is beaten on targets 1 and 2 by #1; #1 on target 0 by #0 and #2; #2 on 1 and 2 by #1.
        let mut pop = vec![
            scored(&[0.0, 5.0, 5.0], 1),
            scored(&[1.0, 0.0, 0.0], 1),
            scored(&[0.0, 4.0, 4.0], 1),
            scored(&[9.0, 9.0, 9.0], 1),
        ];
        pop[3].rank = 1; // another front: never compared with the others
        assert_eq!(sub_vector_dominance(&pop, 0), 2);
        assert_eq!(sub_vector_dominance(&pop, 1), 1);
        assert_eq!(sub_vector_dominance(&pop, 2), 2);
        assert_eq!(sub_vector_dominance(&pop, 3), 0);
        crowding(&mut pop);
        // #1 survives first; #2 beats #0 on the tie-break (closer overall).
        assert_eq!(survival_order(&pop), vec![1, 2, 0, 3]);
    }

    #[test]
    fn ties_of_sub_vector_dominance_go_to_closeness_capped_per_target() {
        let mut pop = vec![scored(&[0.5, 0.5], 1), scored(&[0.0, 1000.0], 1)];
        crowding(&mut pop);
        assert_eq!(sub_vector_dominance(&pop, 0), 1);
        assert_eq!(sub_vector_dominance(&pop, 1), 1);
        assert!((pop[0].crowding - (-1.0 - 0.5)).abs() < 1e-12);
        assert!((pop[1].crowding - (-1.0 - 10.0 / 11.0)).abs() < 1e-12);
        assert_eq!(survival_order(&pop), vec![0, 1]);
    }

    #[test]
    fn survival_order_is_rank_then_crowding_then_length() {
        let mut pop = vec![scored(&[1.0], 4), scored(&[1.0], 2), scored(&[0.0], 9)];
        pop[0].rank = 1;
        pop[1].rank = 1;
        pop[2].rank = 0;
        crowding(&mut pop);
        assert_eq!(survival_order(&pop), vec![2, 1, 0]);
    }
}
