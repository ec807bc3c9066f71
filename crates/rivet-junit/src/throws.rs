//! How a test expects the exception its last statement throws: JUnit's `assertThrows`
//! (JUnit 5, and JUnit 4 since 4.13) or, for older JUnit 4, the `try`/`fail`/`catch` idiom.
//! Each line comes with the assertion it renders, for the verifier's line map: the line of the
//! throwing statement first (a different exception fails there, and the expectation goes),
//! the message check after it (a different message fails there, and only the message goes).

use rivet_testcase::ClassName;

use crate::java::string_literal;

/// How tests expect exceptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExpectedExceptions {
    /// `assertThrows(X.class, () -> …)`: JUnit 5, and JUnit 4.13 and later.
    #[default]
    AssertThrows,
    /// `try { …; fail("Expected X"); } catch (X exception) { … }`: every JUnit 4 (4.12 and
    /// earlier lack `assertThrows`).
    TryCatch,
}

/// Exceptions a `catch` would take `fail`'s `AssertionError` for: with them a flag says
/// whether the statement threw.
const CATCHES_FAILURES: [&str; 3] = [
    "java.lang.Throwable",
    "java.lang.Error",
    "java.lang.AssertionError",
];

/// The lines expecting `statement` (a Java expression statement, without `;`) to throw
/// `exception` (as the test names it; `class` the class it names) with `message` if given, each
/// with `assertion` where it checks the expectation.
pub(crate) fn expect_throws(
    style: ExpectedExceptions,
    (exception, class): (&str, &ClassName),
    statement: &str,
    message: Option<&str>,
    assertion: usize,
) -> Vec<(String, Option<usize>)> {
    let a = Some(assertion);
    let check_message = |indent: &str| {
        message.map(|m| {
            (
                format!(
                    "{indent}assertEquals({}, exception.getMessage());",
                    string_literal(m)
                ),
                a,
            )
        })
    };
    match style {
        ExpectedExceptions::AssertThrows => {
            let call = format!("assertThrows({exception}.class, () -> {statement});");
            match check_message("") {
                Some(check) => vec![(format!("{exception} exception = {call}"), a), check],
                None => vec![(call, a)],
            }
        }
        ExpectedExceptions::TryCatch => {
            let expected = string_literal(&format!("Expected {exception}"));
            // No exception at all fails on an unmapped line: the test is dropped, as it is
            // when its expected exception goes.
            let flagged = CATCHES_FAILURES.iter().any(|c| class.is(c));
            let mut out = Vec::new();
            if flagged {
                out.push(("boolean thrown = false;".to_string(), None));
            }
            out.push(("try {".to_string(), None));
            out.push((format!("    {statement};"), a));
            if !flagged {
                out.push((format!("    fail({expected});"), None));
            }
            out.push((format!("}} catch ({exception} exception) {{"), None));
            if flagged {
                out.push(("    thrown = true;".to_string(), None));
            }
            match check_message("    ") {
                Some(check) => out.push(check),
                None if !flagged => out.push(("    // expected".to_string(), None)),
                None => {}
            }
            out.push(("}".to_string(), None));
            if flagged {
                out.push((format!("assertTrue({expected}, thrown);"), None));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[(String, Option<usize>)]) -> String {
        lines
            .iter()
            .map(|(l, a)| format!("{l} // {a:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn try_catch_maps_the_statement_and_the_message_to_the_assertion() {
        let lines = expect_throws(
            ExpectedExceptions::TryCatch,
            (
                "IllegalStateException",
                &ClassName::from_binary("java.lang.IllegalStateException"),
            ),
            "tree0.min()",
            Some("empty"),
            2,
        );
        let mapped: Vec<&str> = lines
            .iter()
            .filter(|(_, a)| *a == Some(2))
            .map(|(l, _)| l.trim())
            .collect();
        assert_eq!(
            mapped,
            [
                "tree0.min();",
                "assertEquals(\"empty\", exception.getMessage());"
            ],
            "{}",
            text(&lines)
        );
        assert!(lines
            .iter()
            .any(|(l, a)| l.contains("fail(") && a.is_none()));
        assert!(!text(&lines).contains("assertThrows"));
    }

    #[test]
    fn an_expected_error_is_caught_apart_from_fails_assertion_error() {
        for binary in CATCHES_FAILURES {
            let simple = binary.rsplit('.').next().unwrap_or(binary);
            let lines = expect_throws(
                ExpectedExceptions::TryCatch,
                (simple, &ClassName::from_binary(binary)),
                "x0.run()",
                None,
                0,
            );
            let all = text(&lines);
            // `fail` inside the try would be caught as the expected exception.
            assert!(!all.contains("fail("), "{all}");
            assert!(all.contains("assertTrue(\"Expected"), "{all}");
        }
    }
}
