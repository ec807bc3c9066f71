//! PIT's default mutation operators ("DEFAULTS" group), as bytecode rewrites: which
//! instructions each one changes, and into what.

use rivet_classfile::Opcode;
use serde::{Deserialize, Serialize};

/// A mutation operator, named as PIT names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Operator {
    /// `<` to `<=`, `<=` to `<`, `>` to `>=`, `>=` to `>` (comparisons with zero too).
    ConditionalsBoundary,
    /// `==` to `!=`, `<` to `>=`, ... and `null` checks.
    NegateConditionals,
    /// `+` to `-`, `*` to `/`, `%` to `*`, `&` to `|`, `<<` to `>>` ... on int, long,
    /// float and double.
    Math,
    /// A local variable's increment by `n` becomes one by `-n`.
    Increments,
    /// A negation is removed (`-x` becomes `x`).
    InvertNegs,
    /// A call of a method returning void is removed.
    VoidMethodCalls,
    /// An object return becomes its type's empty value (`""`, an empty list, set, map,
    /// `Optional`, stream, a boxed zero).
    EmptyReturns,
    /// A boolean return becomes `false`.
    FalseReturns,
    /// A boolean return becomes `true`.
    TrueReturns,
    /// An object return without an empty value becomes `null`.
    NullReturns,
    /// An int, short, long, char, float or double return becomes 0.
    PrimitiveReturns,
}

impl Operator {
    /// Every default operator, in PIT's order.
    pub const ALL: [Operator; 11] = [
        Operator::ConditionalsBoundary,
        Operator::Increments,
        Operator::InvertNegs,
        Operator::Math,
        Operator::NegateConditionals,
        Operator::VoidMethodCalls,
        Operator::EmptyReturns,
        Operator::FalseReturns,
        Operator::TrueReturns,
        Operator::NullReturns,
        Operator::PrimitiveReturns,
    ];

    /// PIT's name (`CONDITIONALS_BOUNDARY`).
    pub fn name(self) -> &'static str {
        match self {
            Operator::ConditionalsBoundary => "CONDITIONALS_BOUNDARY",
            Operator::NegateConditionals => "NEGATE_CONDITIONALS",
            Operator::Math => "MATH",
            Operator::Increments => "INCREMENTS",
            Operator::InvertNegs => "INVERT_NEGS",
            Operator::VoidMethodCalls => "VOID_METHOD_CALLS",
            Operator::EmptyReturns => "EMPTY_RETURNS",
            Operator::FalseReturns => "FALSE_RETURNS",
            Operator::TrueReturns => "TRUE_RETURNS",
            Operator::NullReturns => "NULL_RETURNS",
            Operator::PrimitiveReturns => "PRIMITIVE_RETURNS",
        }
    }
}

impl std::fmt::Display for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The jump a conditional boundary mutant takes instead of `op`.
pub(crate) fn boundary(op: Opcode) -> Option<Opcode> {
    Some(match op {
        Opcode::IFLT => Opcode::IFLE,
        Opcode::IFLE => Opcode::IFLT,
        Opcode::IFGT => Opcode::IFGE,
        Opcode::IFGE => Opcode::IFGT,
        Opcode::IF_ICMPLT => Opcode::IF_ICMPLE,
        Opcode::IF_ICMPLE => Opcode::IF_ICMPLT,
        Opcode::IF_ICMPGT => Opcode::IF_ICMPGE,
        Opcode::IF_ICMPGE => Opcode::IF_ICMPGT,
        _ => return None,
    })
}

/// The jump a negated-conditional mutant takes instead of `op`.
pub(crate) fn negation(op: Opcode) -> Option<Opcode> {
    Some(match op {
        Opcode::IFEQ => Opcode::IFNE,
        Opcode::IFNE => Opcode::IFEQ,
        Opcode::IFLT => Opcode::IFGE,
        Opcode::IFGE => Opcode::IFLT,
        Opcode::IFGT => Opcode::IFLE,
        Opcode::IFLE => Opcode::IFGT,
        Opcode::IF_ICMPEQ => Opcode::IF_ICMPNE,
        Opcode::IF_ICMPNE => Opcode::IF_ICMPEQ,
        Opcode::IF_ICMPLT => Opcode::IF_ICMPGE,
        Opcode::IF_ICMPGE => Opcode::IF_ICMPLT,
        Opcode::IF_ICMPGT => Opcode::IF_ICMPLE,
        Opcode::IF_ICMPLE => Opcode::IF_ICMPGT,
        Opcode::IF_ACMPEQ => Opcode::IF_ACMPNE,
        Opcode::IF_ACMPNE => Opcode::IF_ACMPEQ,
        Opcode::IFNULL => Opcode::IFNONNULL,
        Opcode::IFNONNULL => Opcode::IFNULL,
        _ => return None,
    })
}

/// The arithmetic a math mutant does instead of `op`, with the two operators' symbols.
pub(crate) fn math(op: Opcode) -> Option<(Opcode, &'static str, &'static str)> {
    // Opcodes come in groups of four (int, long, float, double) for + - * / % and in pairs
    // (int, long) for shifts and bitwise operators.
    let b = op.0;
    let (to, from_sym, to_sym) = match b {
        96..=99 => (b + 4, "addition", "subtraction"),
        100..=103 => (b - 4, "subtraction", "addition"),
        104..=107 => (b + 4, "multiplication", "division"),
        108..=111 => (b - 4, "division", "multiplication"),
        112..=115 => (b - 8, "modulus", "multiplication"),
        120..=121 => (b + 2, "Shift Left", "Shift Right"),
        122..=123 => (b - 2, "Shift Right", "Shift Left"),
        124..=125 => (b - 4, "Unsigned Shift Right", "Shift Left"),
        126..=127 => (b + 2, "AND", "OR"),
        128..=129 => (b - 2, "OR", "AND"),
        130..=131 => (b - 4, "XOR", "AND"),
        _ => return None,
    };
    Some((Opcode(to), from_sym, to_sym))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_swaps_like_pit() {
        let to = |op: Opcode| math(op).map(|(o, _, _)| o);
        assert_eq!(to(Opcode::IADD), Some(Opcode::ISUB));
        assert_eq!(to(Opcode::DSUB), Some(Opcode::DADD));
        assert_eq!(to(Opcode::LMUL), Some(Opcode::LDIV));
        assert_eq!(to(Opcode::FDIV), Some(Opcode::FMUL));
        assert_eq!(to(Opcode::IREM), Some(Opcode::IMUL));
        assert_eq!(to(Opcode::DREM), Some(Opcode::DMUL));
        assert_eq!(to(Opcode::ISHL), Some(Opcode::ISHR));
        assert_eq!(to(Opcode::LSHR), Some(Opcode::LSHL));
        assert_eq!(to(Opcode::IUSHR), Some(Opcode::ISHL));
        assert_eq!(to(Opcode::LUSHR), Some(Opcode::LSHL));
        assert_eq!(to(Opcode::IAND), Some(Opcode::IOR));
        assert_eq!(to(Opcode::LOR), Some(Opcode::LAND));
        assert_eq!(to(Opcode::IXOR), Some(Opcode::IAND));
        assert_eq!(to(Opcode::LXOR), Some(Opcode::LAND));
        assert_eq!(to(Opcode::INEG), None);
    }

    #[test]
    fn negation_is_an_involution_and_boundary_keeps_direction() {
        for b in 153u8..=199 {
            let op = Opcode(b);
            if let Some(n) = negation(op) {
                assert_eq!(negation(n), Some(op), "{}", op.name());
            }
            if let Some(m) = boundary(op) {
                assert_eq!(boundary(m), Some(op), "{}", op.name());
                assert_ne!(negation(op), Some(m));
            }
        }
        assert_eq!(boundary(Opcode::IFEQ), None);
        assert_eq!(negation(Opcode::GOTO), None);
    }
}
