//! Running javac and the JUnit console launcher with a time limit, and reading what they
//! report: javac's `File.java:LINE: error:` lines and the launcher's XML reports.

use rivet_classfile::ClassName;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::verify::VerifyError;

/// A javac error, with the line of the test source it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub line: Option<u32>,
    pub message: String,
}

/// How one test method ended in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestOutcome {
    pub passed: bool,
    /// The failure's message and the line of the test class it was raised at.
    pub message: Option<String>,
    pub line: Option<u32>,
    /// It did not end within the time limit (and was stopped).
    pub timed_out: bool,
}

/// The outcomes of one run, by test method name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunReport {
    pub tests: BTreeMap<String, TestOutcome>,
}

/// Runs a command, confined, with a time limit (in `dir` unless it has a working directory),
/// its output kept in `dir`; its exit success, stdout and stderr.
pub(crate) fn run_command(
    (cmd, confinement): (&mut Command, &rivet_sandbox::Confinement),
    dir: &Path,
    limit: Duration,
    what: &str,
) -> Result<(bool, String, String), VerifyError> {
    let out_path = dir.join(format!("{what}.out"));
    let err_path = dir.join(format!("{what}.err"));
    let io = |source| VerifyError::Io {
        what: what.to_string(),
        source,
    };
    let stdout = std::fs::File::create(&out_path).map_err(io)?;
    let stderr = std::fs::File::create(&err_path).map_err(io)?;
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(dir);
    }
    cmd.stdin(Stdio::null()).stdout(stdout).stderr(stderr);
    let mut child = confinement.spawn(cmd).map_err(|e| match e {
        rivet_sandbox::SandboxError::Spawn { source, .. } => VerifyError::Spawn {
            what: what.to_string(),
            source,
        },
        source => VerifyError::Sandbox {
            what: what.to_string(),
            source,
        },
    })?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait().map_err(io)? {
            Some(s) => break s,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(VerifyError::TimedOut {
                    what: what.to_string(),
                    seconds: limit.as_secs(),
                });
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    Ok((status.success(), read(&out_path), read(&err_path)))
}

/// javac's errors for `file_name` (`AvlTreeRivetTest.java`).
pub(crate) fn parse_javac(stderr: &str, file_name: &str) -> Vec<CompileError> {
    let mut out = Vec::new();
    for line in stderr.lines() {
        let Some(pos) = line.find(file_name) else {
            continue;
        };
        let rest = &line[pos + file_name.len()..];
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let Some((num, msg)) = rest.split_once(':') else {
            continue;
        };
        let Ok(n) = num.trim().parse::<u32>() else {
            continue;
        };
        let msg = msg.trim();
        if let Some(m) = msg.strip_prefix("error:") {
            out.push(CompileError {
                line: Some(n),
                message: m.trim().to_string(),
            });
        }
    }
    if out.is_empty() && !stderr.trim().is_empty() {
        out.push(CompileError {
            line: None,
            message: stderr.lines().next().unwrap_or("").to_string(),
        });
    }
    out
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';') else { break };
        let entity = &rest[1..end];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            e if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16)
                .ok()
                .and_then(char::from_u32),
            e if e.starts_with('#') => e[1..].parse::<u32>().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!("{name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(unescape(&tag[start..end]))
}

/// The test outcomes of the launcher's legacy XML reports in `dir` for class `class`
/// (binary name); `file_name` is the test source's file name, to find failure lines.
pub(crate) fn parse_reports(dir: &Path, class: &ClassName, file_name: &str) -> RunReport {
    let class = class.binary();
    let mut report = RunReport::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return report;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    for f in files {
        let Ok(xml) = std::fs::read_to_string(&f) else {
            continue;
        };
        let mut rest = xml.as_str();
        while let Some(i) = rest.find("<testcase ") {
            rest = &rest[i..];
            let tag_end = rest.find('>').unwrap_or(rest.len());
            let tag = &rest[..tag_end];
            let self_closing = tag.ends_with('/');
            let body_end = if self_closing {
                tag_end
            } else {
                rest.find("</testcase>").unwrap_or(rest.len())
            };
            let body = &rest[tag_end.min(body_end)..body_end];
            if attribute(tag, "classname").as_deref() == Some(class.as_str()) {
                if let Some(name) = attribute(tag, "name") {
                    // `testX()`, or `testX(Path)` for a test given its temporary directory.
                    let name = name.split('(').next().unwrap_or(&name).to_string();
                    let failure = ["<failure", "<error"]
                        .iter()
                        .find_map(|k| body.find(k).map(|p| &body[p..]));
                    let outcome = match failure {
                        None if body.contains("<skipped") => TestOutcome {
                            passed: false,
                            message: Some("skipped".into()),
                            line: None,
                            timed_out: false,
                        },
                        None => TestOutcome {
                            passed: true,
                            message: None,
                            line: None,
                            timed_out: false,
                        },
                        Some(fail) => {
                            let ftag_end = fail.find('>').unwrap_or(fail.len());
                            // A throwable without a message is named by its class.
                            let message = attribute(&fail[..ftag_end], "message")
                                .or_else(|| attribute(&fail[..ftag_end], "type"));
                            let text = unescape(&fail[ftag_end.min(fail.len())..]);
                            let key = format!("({file_name}:");
                            let line = text.find(&key).and_then(|p| {
                                let s = &text[p + key.len()..];
                                s[..s.find(')').unwrap_or(s.len())].parse::<u32>().ok()
                            });
                            TestOutcome {
                                passed: false,
                                message,
                                line,
                                timed_out: false,
                            }
                        }
                    };
                    report.tests.insert(name, outcome);
                }
            }
            rest = &rest[body_end.min(rest.len())..];
            if rest.starts_with("</testcase>") {
                rest = &rest["</testcase>".len()..];
            } else if !rest.is_empty() {
                rest = &rest[1..];
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javac_errors_and_reports_parse() {
        let errs = parse_javac(
            "/tmp/x/src/a/FooRivetTest.java:12: error: cannot find symbol\n    foo();\n1 error\n",
            "FooRivetTest.java",
        );
        assert_eq!(
            errs,
            vec![CompileError {
                line: Some(12),
                message: "cannot find symbol".into()
            }]
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("TEST-junit-jupiter.xml"),
            r#"<testsuite><testcase name="testA()" classname="a.FooRivetTest" time="0.01"/>
<testcase name="testB()" classname="a.FooRivetTest" time="0"><failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError">org.opentest4j.AssertionFailedError: x
	at a.FooRivetTest.testB(FooRivetTest.java:21)
</failure></testcase>
<testcase name="testC()" classname="a.FooRivetTest" time="0"><error type="java.lang.NullPointerException">java.lang.NullPointerException
	at a.Foo.bar(Foo.java:3)
	at a.FooRivetTest.testC(FooRivetTest.java:30)
</error></testcase></testsuite>"#,
        )
        .unwrap();
        let r = parse_reports(
            dir.path(),
            &ClassName::from_binary("a.FooRivetTest"),
            "FooRivetTest.java",
        );
        assert!(r.tests["testA"].passed);
        let b = &r.tests["testB"];
        assert!(!b.passed);
        assert_eq!(b.line, Some(21));
        assert_eq!(b.message.as_deref(), Some("expected: <1> but was: <2>"));
        let c = &r.tests["testC"];
        assert_eq!((c.passed, c.line), (false, Some(30)));
        assert_eq!(
            c.message.as_deref(),
            Some("java.lang.NullPointerException"),
            "a throwable without a message is named by its class"
        );
    }
}
