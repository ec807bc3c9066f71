//! The soft copy of an emitted test class, for mutation-based assertion selection: each value
//! assertion (`assertEquals` on a result or an inspector) runs through the mutation runner's
//! `rivet.mutation.Soft.check`, which records a failure under the key `TEST:ASSERTION` (the
//! test's and the assertion's indexes) and lets the test go on, so that one run against a
//! mutant says which assertions tell it apart. Expected exceptions stay as they are.

use rivet_testcase::Assertion;

use crate::emit::{Emitted, TestClass};

/// The class the soft copy's assertions go through.
pub const SOFT_CLASS: &str = "rivet.mutation.Soft";

/// The key of assertion `assertion` of test `test` in a soft copy.
pub fn soft_key(test: usize, assertion: usize) -> String {
    format!("{test}:{assertion}")
}

/// The soft copy's source (same class name and lines as `emitted`).
pub fn soft_copy(emitted: &Emitted, class: &TestClass) -> String {
    let mut lines: Vec<String> = emitted.source.lines().map(str::to_string).collect();
    for (ti, t) in emitted.tests.iter().enumerate() {
        let Some(source) = class.tests.get(ti) else {
            continue;
        };
        for &(ai, line) in &t.assertions {
            let is_value = matches!(
                source.generated.assertions.get(ai),
                Some(
                    Assertion::Equals { .. }
                        | Assertion::Inspector { .. }
                        | Assertion::Relation { .. }
                        | Assertion::SameHash { .. }
                )
            );
            let Some(text) = lines.get_mut((line as usize).saturating_sub(1)) else {
                continue;
            };
            let trimmed = text.trim();
            if !is_value
                || !trimmed.starts_with("assert")
                || !trimmed.ends_with(");")
                || trimmed.starts_with("assertThrows")
            {
                continue;
            }
            let indent = &text[..text.len() - text.trim_start().len()];
            *text = format!(
                "{indent}{SOFT_CLASS}.check(\"{}\", () -> {{ {trimmed} }});",
                soft_key(ti, ai)
            );
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}
