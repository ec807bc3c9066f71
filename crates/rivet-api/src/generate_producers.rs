//! Which producer a value comes from: a parser of program text now and then, constructors and
//! static factories before other values' methods, producers that always threw less often; and
//! for a superclass of the class under test (a driver's parameter), mostly the class itself,
//! and one of it.

use rivet_testcase::{JType, StatementId, TypedTest};

use crate::class_api::{Callable, CallableKind};
use crate::generate::{Generator, P_PARSER};
use rivet_rng::Rng;

/// How often a superclass of the class under test that a parameter asks for is the class
/// under test itself.
const P_CLASS_UNDER_TEST: f64 = 0.75;

/// How often an array of a superclass of the class under test holds one element.
const P_ONE_DRIVEN: f64 = 0.75;

impl Generator<'_> {
    /// How many elements an array of `component` gets: up to the configured most; for an
    /// array of a superclass of the class under test (a driver's optimizations), one three
    /// times in four. Its elements run over the same input one after the other, and two that
    /// undo each other's rewrites loop: Closure's early `PeepholeFoldConstants` unfolds
    /// `x += 1` to `x = x + 1`, the late one folds it back (49 of 53 tests that overran in a
    /// 60 s run held both).
    pub(crate) fn array_length(&self, rng: &mut Rng, component: &JType) -> usize {
        let driven = match component {
            JType::Class { name, .. } => {
                &**name != self.model.class.internal() && self.model.holds_the_class(name)
            }
            _ => false,
        };
        if driven && rng.chance(P_ONE_DRIVEN) {
            1
        } else {
            rng.below(self.config.max_elements + 1)
        }
    }

    /// A value of the class under test where `name`, a superclass of it, is asked for (a
    /// driver's `AbstractPeepholeOptimization...`), three times in four; None otherwise.
    pub(crate) fn as_class_under_test(
        &self,
        rng: &mut Rng,
        t: &mut TypedTest,
        name: &str,
        depth: usize,
        non_null: bool,
    ) -> Option<StatementId> {
        let cut = self.model.class.internal();
        if name == cut || !self.model.holds_the_class(name) || !rng.chance(P_CLASS_UNDER_TEST) {
            return None;
        }
        self.object(rng, t, cut, &[], depth + 1, non_null)
    }

    /// A producer, constructors and static methods preferred (7 in 10) over instance methods
    /// of other values (a builder's `build()`, a parser's result), which need more statements;
    /// producers that threw every time they ran weigh less.
    /// When the packages hold program text, a producer that parses one (see
    /// [`crate::source_text::parses_text`]) is picked one time in seven.
    pub(crate) fn pick_producer(&self, rng: &mut Rng, producers: &[Callable]) -> Option<Callable> {
        if !self.model.constants.source_texts.is_empty() && rng.chance(P_PARSER) {
            let parsers: Vec<&Callable> = producers
                .iter()
                .filter(|c| crate::source_text::parses_text(c))
                .collect();
            if let Some(c) = rng.pick(&parsers) {
                return Some((*c).clone());
            }
        }
        let (direct, indirect): (Vec<&Callable>, Vec<&Callable>) = producers
            .iter()
            .partition(|c| c.is_static || c.kind == CallableKind::Constructor);
        let pool = if indirect.is_empty() || (!direct.is_empty() && rng.chance(0.7)) {
            direct
        } else {
            indirect
        };
        // Producers that threw every time they ran are picked less often.
        let weights: Vec<f64> = pool
            .iter()
            .map(|c| self.model.producer_weight(&c.member))
            .collect();
        let total: f64 = weights.iter().sum();
        if pool.is_empty() || total <= 0.0 {
            return None;
        }
        let mut roll = rng.unit() * total;
        for (c, w) in pool.iter().zip(&weights) {
            if roll < *w {
                return Some((*c).clone());
            }
            roll -= w;
        }
        pool.last().map(|c| (*c).clone())
    }
}
