//! The verifier's decisions as a pure function: given how one test ended in the two JUnit runs
//! and where its assertions sit, what to do with it (keep it, drop it, drop one assertion, or
//! keep an expected exception without its message). No process, no file.

use rivet_junit::TestLines;

use crate::process::TestOutcome;

/// What to do with one test after two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Passed both times.
    Keep,
    /// JUnit did not report it in one of the runs.
    Unreported,
    /// It failed outside any assertion (or at a line no assertion is on).
    DropTest,
    /// Assertion `ai` failed: it was not a stable oracle. (An expected exception cannot be
    /// dropped alone: the caller drops the test then.)
    DropAssertion(usize),
    /// Assertion `ai` (an expected exception) failed on a later line of its own: the exception
    /// came, its message differed; keep the exception, drop the message.
    ClearMessage(usize),
}

/// The verdict on one test from its outcomes in the two runs.
pub fn triage(
    first: Option<&TestOutcome>,
    second: Option<&TestOutcome>,
    lines: &TestLines,
) -> Verdict {
    let (Some(a), Some(b)) = (first, second) else {
        return Verdict::Unreported;
    };
    if a.passed && b.passed {
        return Verdict::Keep;
    }
    let failing = if !a.passed { a } else { b };
    let Some(line) = failing.line else {
        return Verdict::DropTest;
    };
    let Some(ai) = lines
        .assertions
        .iter()
        .find(|(_, al)| *al == line)
        .map(|(ai, _)| *ai)
    else {
        return Verdict::DropTest;
    };
    let first_line = lines
        .assertions
        .iter()
        .find(|(a, _)| *a == ai)
        .map(|(_, al)| *al);
    if first_line == Some(line) {
        Verdict::DropAssertion(ai)
    } else {
        Verdict::ClearMessage(ai)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(passed: bool, line: Option<u32>) -> TestOutcome {
        TestOutcome {
            passed,
            message: (!passed).then(|| "expected: <1> but was: <2>".to_string()),
            line,
            timed_out: false,
        }
    }

    /// A test on lines 10–20 whose assertion 0 is on line 12 and assertion 1 (an
    /// `assertThrows` with a message check) spans lines 15 and 16.
    fn lines() -> TestLines {
        TestLines {
            parameter_types: String::new(),
            name: "testFoo".into(),
            start: 10,
            end: 20,
            assertions: vec![(0, 12), (1, 15), (1, 16)],
        }
    }

    #[test]
    fn passing_twice_keeps_the_test() {
        let ok = outcome(true, None);
        assert_eq!(triage(Some(&ok), Some(&ok), &lines()), Verdict::Keep);
    }

    #[test]
    fn a_test_missing_from_a_report_is_unreported() {
        let ok = outcome(true, None);
        assert_eq!(triage(Some(&ok), None, &lines()), Verdict::Unreported);
        assert_eq!(triage(None, Some(&ok), &lines()), Verdict::Unreported);
    }

    #[test]
    fn a_failure_at_an_assertion_drops_that_assertion_whichever_run_failed() {
        let ok = outcome(true, None);
        let bad = outcome(false, Some(12));
        assert_eq!(
            triage(Some(&bad), Some(&ok), &lines()),
            Verdict::DropAssertion(0)
        );
        assert_eq!(
            triage(Some(&ok), Some(&bad), &lines()),
            Verdict::DropAssertion(0)
        );
        let throws = outcome(false, Some(15));
        assert_eq!(
            triage(Some(&throws), Some(&throws), &lines()),
            Verdict::DropAssertion(1)
        );
    }

    #[test]
    fn a_failure_on_the_message_line_of_an_expected_exception_clears_the_message() {
        let bad = outcome(false, Some(16));
        assert_eq!(
            triage(Some(&bad), Some(&bad), &lines()),
            Verdict::ClearMessage(1)
        );
    }

    #[test]
    fn a_failure_elsewhere_or_without_a_line_drops_the_test() {
        let ok = outcome(true, None);
        assert_eq!(
            triage(Some(&outcome(false, Some(13))), Some(&ok), &lines()),
            Verdict::DropTest
        );
        assert_eq!(
            triage(Some(&outcome(false, None)), Some(&ok), &lines()),
            Verdict::DropTest
        );
    }
}
