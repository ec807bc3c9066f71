//! How many heap goals the concolic strategy keeps active at once, from how many of its goals
//! were reached. Every active goal is a target of the search and has the workers observe its
//! access paths in every test the search runs; on commons-collections4's
//! AbstractPatriciaTrie (`all`, seed 0, 60 s) eight at once held the search to 143k tests
//! against 257k with none, three to 232k, for 2 goals reached of 86. Goals that keep failing
//! shrink the slots to a floor; goals reached widen them again. (With no bound, 263 goals at
//! once held the search there to 2.5k tests/s, against 5k alone.)

/// Most heap goals active at once (while they are reached often enough).
pub const MOST_SLOTS: usize = 8;
/// Fewest heap goals active at once, however many failed: the strategy is asked less, not
/// never.
pub const FEWEST_SLOTS: usize = 2;
/// The share of reached goals at which every slot is open (one in this many).
const FULL_YIELD: usize = 4;

/// The heap goals reached and failed so far, and the slots they open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HeapGoalSlots {
    reached: usize,
    failed: usize,
}

impl HeapGoalSlots {
    /// A goal the search's tests met.
    pub fn reached(&mut self) {
        self.reached += 1;
    }

    /// A goal whose time ran out before a test met it.
    pub fn failed(&mut self) {
        self.failed += 1;
    }

    /// Goals that may be active now: all [`MOST_SLOTS`] while at least one goal in
    /// [`FULL_YIELD`] is reached (counting one reached and one failed before any ended), in
    /// proportion below that, never fewer than [`FEWEST_SLOTS`].
    pub fn open(&self) -> usize {
        let num = MOST_SLOTS * FULL_YIELD * (self.reached + 1);
        let den = self.reached + self.failed + 2;
        num.div_ceil(den).clamp(FEWEST_SLOTS, MOST_SLOTS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(reached: usize, failed: usize) -> usize {
        let mut s = HeapGoalSlots::default();
        (0..reached).for_each(|_| s.reached());
        (0..failed).for_each(|_| s.failed());
        s.open()
    }

    #[test]
    fn every_slot_is_open_before_any_goal_ended_and_while_one_in_four_is_reached() {
        assert_eq!(after(0, 0), MOST_SLOTS);
        assert_eq!(after(0, 2), MOST_SLOTS);
        assert_eq!(after(15, 38), MOST_SLOTS);
    }

    #[test]
    fn failing_goals_close_slots_down_to_the_floor_and_reached_ones_reopen_them() {
        assert_eq!(after(0, 6), 4);
        assert_eq!(after(14, 54), 7);
        assert_eq!(after(0, 14), FEWEST_SLOTS);
        assert_eq!(after(2, 80), FEWEST_SLOTS);
        assert!(after(0, 10) < after(0, 6));
        assert!(after(3, 10) > after(0, 10));
    }

    #[test]
    fn the_open_slots_never_leave_their_bounds() {
        for reached in 0..50 {
            for failed in 0..200 {
                let n = after(reached, failed);
                assert!(
                    (FEWEST_SLOTS..=MOST_SLOTS).contains(&n),
                    "{reached} {failed}: {n}"
                );
            }
        }
    }
}
