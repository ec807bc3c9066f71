//! The alternating variable method on string symbols (EvoSuite's AVM on strings): a string
//! is its length and its UTF-16 units, searched in turn. Length moves append units (copies
//! of `FILL`, the pattern doubling how many) or drop the last ones; each unit then gets the
//! integer moves (±1, doubling while they improve) over `0..=0xFFFF`. The fitness is the
//! same summed branch distance as for numbers (`distance`: an edit distance for string
//! equality and prefixes, the numeric gap for lengths and char codes).

use rivet_pc::{JavaString, Model, SymbolId, Term};

use crate::distance::fitness;

/// The unit appended by a length move (a digit: parsers look for them first).
const FILL: u16 = b'0' as u16;

/// A string search's view of the model: the fitness of candidate values of one symbol.
pub(crate) struct StringMoves<'a> {
    pub clauses: &'a [Term],
    pub model: &'a mut Model,
    pub best: &'a mut f64,
    pub evaluations: &'a mut u64,
}

impl StringMoves<'_> {
    fn current(&self, s: SymbolId) -> Vec<u16> {
        self.model
            .get_string(s)
            .map(|v| v.units().to_vec())
            .unwrap_or_default()
    }

    /// Sets `s` to `units` if that lowers the fitness.
    fn try_units(&mut self, s: SymbolId, units: &[u16]) -> bool {
        let before = self.current(s);
        if before == units {
            return false;
        }
        self.model.set_string(s, JavaString::from_units(units));
        *self.evaluations += 1;
        let f = fitness(self.model, self.clauses);
        if f < *self.best {
            *self.best = f;
            true
        } else {
            self.model.set_string(s, JavaString::from_units(&before));
            false
        }
    }

    /// Length moves, then unit moves, until neither improves (or `stop` says so); true if
    /// anything improved.
    pub fn improve(&mut self, s: SymbolId, max_len: usize, stop: &dyn Fn(u64) -> bool) -> bool {
        let mut improved = false;
        loop {
            let mut any = self.improve_length(s, max_len, stop);
            let len = self.current(s).len();
            for i in 0..len {
                if *self.best == 0.0 || stop(*self.evaluations) {
                    return improved || any;
                }
                any |= self.improve_unit(s, i, stop);
            }
            improved |= any;
            if !any || *self.best == 0.0 || stop(*self.evaluations) {
                return improved;
            }
        }
    }

    fn resized(units: &[u16], delta: i64, max_len: usize) -> Vec<u16> {
        let target = (units.len() as i64 + delta).clamp(0, max_len as i64) as usize;
        let mut out = units.to_vec();
        out.resize(target, FILL);
        out
    }

    fn improve_length(&mut self, s: SymbolId, max_len: usize, stop: &dyn Fn(u64) -> bool) -> bool {
        let mut improved = false;
        for dir in [1i64, -1] {
            let mut step = dir;
            while *self.best > 0.0 && !stop(*self.evaluations) {
                let next = Self::resized(&self.current(s), step, max_len);
                if !self.try_units(s, &next) {
                    break;
                }
                improved = true;
                step = step.saturating_mul(2);
            }
            if improved {
                break;
            }
        }
        improved
    }

    fn improve_unit(&mut self, s: SymbolId, i: usize, stop: &dyn Fn(u64) -> bool) -> bool {
        let mut improved = false;
        let with = |units: &[u16], v: i64| {
            let mut out = units.to_vec();
            if let Some(u) = out.get_mut(i) {
                *u = v.clamp(0, 0xffff) as u16;
            }
            out
        };
        for dir in [1i64, -1] {
            let mut step = dir;
            while *self.best > 0.0 && !stop(*self.evaluations) {
                let units = self.current(s);
                let Some(&u) = units.get(i) else {
                    return improved;
                };
                if !self.try_units(s, &with(&units, i64::from(u) + step)) {
                    break;
                }
                improved = true;
                step = step.saturating_mul(2);
            }
            if improved {
                break;
            }
        }
        improved
    }
}
