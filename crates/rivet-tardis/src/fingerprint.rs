//! A path condition's fingerprint (TARDIS §4.2): a multidimensional Bloom filter of
//! [`COLUMNS`] × [`ROWS`] bits with [`HASHES`] hash functions. Each clause of the sliced PC is
//! added twice: its abstract form sets, through the hash functions, bits of the first row;
//! its concrete form sets bits in the columns under those bits (rows 1 to 15): the `j`-th hash
//! function's column gets the bit at the row the `j`-th hash of the concrete form picks. So
//! clauses alike up to constants light the same columns, and their constants tell them apart
//! within them.
//!
//! The hash functions are FNV-1a over the form's bytes after a byte naming the function,
//! finished with MurmurHash3's 64-bit mixer: fixed, so a fingerprint is the same in every run.

use std::hash::Hasher;

use rivet_pc::PathCondition;
use serde::{Deserialize, Serialize};

use crate::forms::{clause_forms, ClauseForms};
use crate::slice::slice;

/// Columns of the filter (the width of its first row).
pub const COLUMNS: usize = 64;
/// Rows of the filter: the abstract row and fifteen concrete rows.
pub const ROWS: usize = 16;
/// Hash functions per form.
pub const HASHES: usize = 3;

/// The multidimensional Bloom filter of a PC: row `r` is a `u64` whose bit `c` is column `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Fingerprint {
    rows: [u64; ROWS],
}

/// The `j`-th hash function of `text`.
fn hash(j: usize, text: &str) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(&[j as u8, 0xFF]);
    h.write(text.as_bytes());
    let mut x = h.finish();
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Fingerprint {
    /// The fingerprint of `pc` sliced from its last clause.
    pub fn of(pc: &PathCondition) -> Fingerprint {
        let mut f = Fingerprint::default();
        for i in slice(pc) {
            f.add(&clause_forms(pc, &pc.clauses[i]));
        }
        f
    }

    /// The fingerprint of these clauses' forms (no slicing).
    pub fn of_forms<'a>(forms: impl IntoIterator<Item = &'a ClauseForms>) -> Fingerprint {
        let mut f = Fingerprint::default();
        for form in forms {
            f.add(form);
        }
        f
    }

    /// Adds one clause by its forms.
    pub fn add(&mut self, forms: &ClauseForms) {
        for j in 0..HASHES {
            let column = (hash(j, &forms.abstract_form) % COLUMNS as u64) as usize;
            let row = 1 + (hash(j, &forms.concrete) % (ROWS as u64 - 1)) as usize;
            self.rows[0] |= 1 << column;
            self.rows[row] |= 1 << column;
        }
    }

    /// Sets every bit of `other` (the fingerprint of both PCs' clauses).
    pub fn merge(&mut self, other: &Fingerprint) {
        for (row, o) in self.rows.iter_mut().zip(&other.rows) {
            *row |= o;
        }
    }

    pub fn is_set(&self, row: usize, column: usize) -> bool {
        row < ROWS && column < COLUMNS && self.rows[row] >> column & 1 == 1
    }

    /// Bits set.
    pub fn ones(&self) -> u32 {
        self.rows.iter().map(|r| r.count_ones()).sum()
    }

    /// Jaccard similarity `a11 / (a11 + a10 + a01)` over all bits: 1 for equal fingerprints
    /// (two empty ones included), 0 for fingerprints with no bit in common.
    pub fn jaccard(&self, other: &Fingerprint) -> f64 {
        let (mut a11, mut a10, mut a01) = (0u32, 0u32, 0u32);
        for (x, y) in self.rows.iter().zip(&other.rows) {
            a11 += (x & y).count_ones();
            a10 += (x & !y).count_ones();
            a01 += (!x & y).count_ones();
        }
        let union = a11 + a10 + a01;
        if union == 0 {
            1.0
        } else {
            f64::from(a11) / f64::from(union)
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn forms(a: &str, c: &str) -> ClauseForms {
        ClauseForms {
            abstract_form: a.into(),
            concrete: c.into(),
        }
    }

    #[test]
    fn alike_clauses_share_their_columns_and_differ_below() {
        let x = Fingerprint::of_forms([&forms("{this}.a[.] > .", "{this}.a[0] > 6")]);
        let z = Fingerprint::of_forms([&forms("{this}.a[.] > .", "{this}.a[5] > 6")]);
        let y = Fingerprint::of_forms([&forms("{this}.b[.] > .", "{this}.b[2] > 3")]);
        assert_eq!(x.rows[0], z.rows[0], "same abstract clause, same first row");
        assert_ne!(x, z, "different concrete clauses");
        for c in 0..COLUMNS {
            let column_used = (1..ROWS).any(|r| x.is_set(r, c));
            assert_eq!(
                column_used,
                x.is_set(0, c),
                "concrete bits only under abstract ones"
            );
        }
        assert!(
            x.jaccard(&z) > x.jaccard(&y),
            "{} {}",
            x.jaccard(&z),
            x.jaccard(&y)
        );
        // At most 3 abstract bits and 3 concrete bits per clause.
        assert!(x.ones() <= 2 * HASHES as u32 && x.ones() >= 2);
        assert_eq!(Fingerprint::default().jaccard(&Fingerprint::default()), 1.0);
        assert_eq!(x.jaccard(&Fingerprint::default()), 0.0);
    }

    fn arb_forms() -> impl Strategy<Value = Vec<ClauseForms>> {
        prop::collection::vec(("[a-d]{1,3}", "[a-d0-9]{1,4}"), 0..8).prop_map(|v| {
            v.into_iter()
                .map(|(a, c)| forms(&a, &format!("{a}{c}")))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn jaccard_is_one_with_itself_symmetric_and_within_0_1(a in arb_forms(), b in arb_forms()) {
            let fa = Fingerprint::of_forms(&a);
            let fb = Fingerprint::of_forms(&b);
            prop_assert_eq!(fa.jaccard(&fa), 1.0);
            let s = fa.jaccard(&fb);
            prop_assert!((0.0..=1.0).contains(&s));
            prop_assert_eq!(s, fb.jaccard(&fa));
            // The fingerprint of more clauses has every bit of the fewer's.
            let mut ab = a.clone();
            ab.extend(b.iter().cloned());
            let fab = Fingerprint::of_forms(&ab);
            for r in 0..ROWS {
                prop_assert_eq!(fab.rows[r] & fa.rows[r], fa.rows[r]);
            }
        }
    }
}
