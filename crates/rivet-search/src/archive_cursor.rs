//! The archive's tests not looked at yet: the concolic strategy and the alternatives'
//! generator each trace every distinct archive test once.

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};

use crate::Archive;
use rivet_testcase::{GoalId, TypedTest};

/// Which archive tests have been taken (by fingerprint), and each entry's length when it was
/// last looked at (an entry only changes to a shorter test, so unchanged entries are not
/// fingerprinted again every step).
#[derive(Debug, Default)]
pub struct ArchiveCursor {
    taken: HashSet<u64>,
    seen: BTreeMap<GoalId, usize>,
}

impl ArchiveCursor {
    /// Up to `most` archive tests not taken yet; they count as taken.
    pub fn fresh(&mut self, archive: &Archive, most: usize) -> Vec<TypedTest> {
        let mut out = Vec::new();
        for (g, t) in &archive.entries {
            if out.len() >= most {
                break;
            }
            if self.seen.insert(*g, t.len()) == Some(t.len()) {
                continue;
            }
            if self.taken.insert(fingerprint(t)) {
                out.push(t.clone());
            }
        }
        out
    }

    /// Marks a test as taken (one traced by other means).
    pub fn take(&mut self, test: &TypedTest) {
        self.taken.insert(fingerprint(test));
    }
}

fn fingerprint(t: &TypedTest) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", t.test).hash(&mut h);
    h.finish()
}
