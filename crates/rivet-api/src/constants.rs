//! Interesting constants harvested from class files: the constant pool's numbers and strings,
//! the immediates of `bipush`/`sipush`/`iconst_*`, switch keys, and their neighbours; and the
//! classes the code tests with `instanceof` or casts to (EvoSuite's cast seeding: an `Object`
//! parameter then gets values of those types) or loads as class literals.

use std::collections::BTreeSet;

use rivet_classfile::{ClassFile, Constant, Opcode, Operand};

/// Constants of the class under test (and its nested classes), deduplicated and sorted so
/// that choices over them are deterministic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Constants {
    pub ints: Vec<i64>,
    pub floats: Vec<f64>,
    pub strings: Vec<String>,
    /// Classes (internal names) named by `instanceof` and `checkcast`, arrays and `Object`
    /// left out.
    pub casts: Vec<String>,
    /// Classes (internal names, or array descriptors) the code loads as class literals.
    pub literals: Vec<String>,
    /// Does the code look classes up by name (`Class.forName`, `ClassLoader.loadClass`)?
    /// Then class names are interesting strings.
    pub names_classes: bool,
    /// String constants that look like program text (see [`Constants::source_texts_of`]),
    /// shortest first: seeds for the arguments of parsers.
    pub source_texts: Vec<String>,
}

impl Constants {
    /// Harvests the constants of the given classes.
    pub fn harvest<'a>(classes: impl IntoIterator<Item = &'a ClassFile>) -> Constants {
        let mut ints = BTreeSet::new();
        let mut floats: Vec<f64> = Vec::new();
        let mut strings = BTreeSet::new();
        let mut casts = BTreeSet::new();
        let mut literals = BTreeSet::new();
        let mut names_classes = false;
        let int = |v: i64, ints: &mut BTreeSet<i64>| {
            ints.insert(v);
            ints.insert(v.saturating_add(1));
            ints.insert(v.saturating_sub(1));
        };
        for cf in classes {
            let cp = &cf.constant_pool;
            for c in cp.entries() {
                match c {
                    Constant::Integer(v) => int(*v as i64, &mut ints),
                    Constant::Long(v) => int(*v, &mut ints),
                    Constant::Float(bits) => floats.push(f32::from_bits(*bits) as f64),
                    Constant::Double(bits) => floats.push(f64::from_bits(*bits)),
                    Constant::String { string } => {
                        if let Ok(s) = cp.utf8(*string) {
                            if s.chars().count() <= 200 {
                                strings.insert(s.to_string());
                            }
                        }
                    }
                    _ => {}
                }
            }
            for i in 0..cp.len() {
                if let Ok(r) = cp.member_ref(rivet_classfile::CpIndex(i as u16)) {
                    names_classes |= matches!(
                        (r.owner, r.name),
                        ("java/lang/Class", "forName") | ("java/lang/ClassLoader", "loadClass")
                    );
                }
            }
            for m in &cf.methods {
                let Some(code) = m.code() else { continue };
                for insn in &code.instructions {
                    match (&insn.operand, insn.opcode) {
                        (Operand::Byte(b), Opcode::BIPUSH) => int(*b as i64, &mut ints),
                        (Operand::Short(s), Opcode::SIPUSH) => int(*s as i64, &mut ints),
                        (Operand::TableSwitch { low, high, .. }, _) => {
                            for k in *low..=(*high).min(low.saturating_add(64)) {
                                ints.insert(k as i64);
                            }
                            int(*high as i64, &mut ints);
                        }
                        (Operand::LookupSwitch { pairs, .. }, _) => {
                            for (k, _) in pairs {
                                int(*k as i64, &mut ints);
                            }
                        }
                        (Operand::None, op)
                            if (Opcode::ICONST_M1.0..=Opcode::ICONST_5.0).contains(&op.0) =>
                        {
                            ints.insert(op.0 as i64 - Opcode::ICONST_0.0 as i64);
                        }
                        (Operand::Constant(i), Opcode::CHECKCAST | Opcode::INSTANCEOF) => {
                            if let Ok(name) = cp.class_name(*i) {
                                if !name.starts_with('[') && name != "java/lang/Object" {
                                    casts.insert(name.to_string());
                                }
                            }
                        }
                        (Operand::Constant(i), Opcode::LDC | Opcode::LDC_W) => {
                            if let Ok(name) = cp.class_name(*i) {
                                literals.insert(name.to_string());
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        floats.retain(|f| f.is_finite());
        floats.sort_by(|a, b| a.total_cmp(b));
        floats.dedup();
        Constants {
            ints: ints.into_iter().collect(),
            floats,
            strings: strings.into_iter().collect(),
            casts: casts.into_iter().collect(),
            literals: literals.into_iter().collect(),
            names_classes,
            source_texts: Vec::new(),
        }
    }

    /// The program texts of the packages of the class under test and of the covered classes:
    /// the string constants of `classes` that look like program text, and the top-level
    /// statements of the `scripts` shipped with them (text resources), shortest first and at
    /// most [`crate::source_text::MAX_SOURCE_TEXTS`]. A compiler's package holds the snippets
    /// it injects into programs, and often a runtime library in its own language, which a test
    /// can hand to its parser.
    pub fn source_texts_of<'a, 's>(
        classes: impl IntoIterator<Item = &'a ClassFile>,
        scripts: impl IntoIterator<Item = &'s str>,
    ) -> Vec<String> {
        let mut texts = BTreeSet::new();
        for cf in classes {
            let cp = &cf.constant_pool;
            for c in cp.entries() {
                if let Constant::String { string } = c {
                    if let Ok(s) = cp.utf8(*string) {
                        if crate::source_text::looks_like_source(s) {
                            texts.insert(s.to_string());
                        }
                    }
                }
            }
        }
        for script in scripts {
            texts.extend(crate::source_text::texts_of_script(script));
        }
        let mut texts: Vec<String> = texts.into_iter().collect();
        texts.sort_by_key(|s| s.chars().count());
        texts.truncate(crate::source_text::MAX_SOURCE_TEXTS);
        texts
    }

    /// Adds the numbers and strings of `other` (the constants of classes `--cover` names,
    /// whose branches compare the arguments the tests pass on), keeping each list sorted and
    /// deduplicated; their casts and class literals stay out.
    pub fn absorb_values(&mut self, other: Constants) {
        let ints: BTreeSet<i64> = self.ints.drain(..).chain(other.ints).collect();
        self.ints = ints.into_iter().collect();
        self.floats.extend(other.floats);
        self.floats.sort_by(|a, b| a.total_cmp(b));
        self.floats.dedup();
        let strings: BTreeSet<String> = self.strings.drain(..).chain(other.strings).collect();
        self.strings = strings.into_iter().collect();
    }

    pub fn is_empty(&self) -> bool {
        self.ints.is_empty() && self.floats.is_empty() && self.strings.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absorbed_values_join_sorted_and_once_and_casts_stay_out() {
        let mut own = Constants {
            ints: vec![-1, 0, 1],
            strings: vec!["b".into()],
            casts: vec!["a/B".into()],
            ..Constants::default()
        };
        own.absorb_values(Constants {
            ints: vec![1, 104, 105, 106],
            floats: vec![0.5],
            strings: vec!["a".into(), "b".into()],
            casts: vec!["x/Y".into()],
            ..Constants::default()
        });
        assert_eq!(own.ints, [-1, 0, 1, 104, 105, 106]);
        assert_eq!(own.floats, [0.5]);
        assert_eq!(own.strings, ["a", "b"]);
        assert_eq!(own.casts, ["a/B"]);
    }
}
