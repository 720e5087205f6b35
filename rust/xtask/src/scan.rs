//! Reads a Godot run's log and decides per test case. A Godot run exits 0 even after a script error or a
//! caught Rust panic, so the log, not the exit code, is the source of truth.
//!
//! The GDScript runner (`tests/runner.gd`) frames each case with `::begin NAME` / `::end NAME PASS|FAIL`;
//! a case may announce `::expect-error TEXT` before provoking an error it expects. Inside a case any error
//! line not matching an expectation fails it, and so does an expectation no error line met. Error lines
//! outside any case fail the run.

#[derive(Debug, Default)]
pub struct Report {
    pub cases: Vec<Case>,
    /// Errors outside any case (extension load failures, leaks at exit…).
    pub stray_errors: Vec<String>,
    pub finished: bool,
}

#[derive(Debug)]
pub struct Case {
    pub name: String,
    pub passed: bool,
    pub reasons: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed).count()
    }
    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed() + self.stray_errors.len() + usize::from(!self.finished)
    }
}

/// True for a log line that reports an error.
pub fn is_error_line(line: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "ERROR:",
        "SCRIPT ERROR:",
        "USER ERROR:",
        "USER SCRIPT ERROR:",
        "Parse Error",
        "FATAL",
        "SHADER ERROR:",
    ];
    const ANYWHERE: &[&str] = &[
        "panicked at",
        "Can't open dynamic library",
        "GDExtension dynamic library not found",
        "ObjectDB instances leaked",
        "Leaked instance",
        "Failed loading resource",
        "Failed to load script",
        "handle_crash",
        "Segmentation fault",
        // The navigation map's sync warning: a bake whose cell size does not match the map's.
        "edge error(s)",
    ];
    let t = line.trim_start();
    PREFIXES.iter().any(|p| t.starts_with(p)) || ANYWHERE.iter().any(|p| t.contains(p))
}

struct Open {
    name: String,
    expected: Vec<(String, bool)>,
    reasons: Vec<String>,
}

pub fn scan(log: &str) -> Report {
    let mut r = Report::default();
    let mut open: Option<Open> = None;
    for line in log.lines() {
        if let Some(name) = line.strip_prefix("::begin ") {
            if let Some(o) = open.take() {
                r.cases.push(Case {
                    name: o.name,
                    passed: false,
                    reasons: vec!["no ::end".into()],
                });
            }
            open = Some(Open {
                name: name.trim().to_string(),
                expected: vec![],
                reasons: vec![],
            });
        } else if let Some(text) = line.strip_prefix("::expect-error ") {
            if let Some(o) = open.as_mut() {
                o.expected.push((text.trim().to_string(), false));
            }
        } else if let Some(msg) = line.strip_prefix("::fail ") {
            if let Some(o) = open.as_mut() {
                o.reasons.push(msg.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("::end ") {
            let status = rest.rsplit(' ').next().unwrap_or("");
            if let Some(mut o) = open.take() {
                if status != "PASS" && o.reasons.is_empty() {
                    o.reasons.push(format!("runner reported {status}"));
                }
                for (text, met) in &o.expected {
                    if !*met {
                        o.reasons.push(format!(
                            "expected an error containing {text:?}; none was logged"
                        ));
                    }
                }
                r.cases.push(Case {
                    name: o.name,
                    passed: status == "PASS" && o.reasons.is_empty(),
                    reasons: o.reasons,
                });
            }
        } else if line.starts_with("::summary") {
            r.finished = true;
        } else if is_error_line(line) {
            match open.as_mut() {
                Some(o) => {
                    // An expectation not met yet first: one text may be a prefix of another's.
                    let i = o
                        .expected
                        .iter()
                        .position(|(t, met)| !met && line.contains(t.as_str()))
                        .or_else(|| {
                            o.expected
                                .iter()
                                .position(|(t, _)| line.contains(t.as_str()))
                        });
                    if let Some(i) = i {
                        o.expected[i].1 = true;
                    } else {
                        o.reasons.push(format!("unexpected error: {}", line.trim()));
                    }
                }
                None => r.stray_errors.push(line.trim().to_string()),
            }
        }
    }
    if let Some(o) = open.take() {
        let mut reasons = o.reasons;
        reasons.push("the run ended inside this case (crash, hang or quit)".into());
        r.cases.push(Case {
            name: o.name,
            passed: false,
            reasons,
        });
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_fail_and_expectations() {
        let log = "\
::begin a/test_ok
::end a/test_ok PASS
::begin a/test_bad
::fail 1 != 2
::end a/test_bad FAIL
::begin a/test_expects
::expect-error start_subdivision
ERROR: start_subdivision must be in 1..=12, got -1
   at: foo
::end a/test_expects PASS
::begin a/test_missing
::expect-error lods
::end a/test_missing PASS
::begin a/test_script_error
SCRIPT ERROR: Invalid call
::end a/test_script_error PASS
::summary passed=4 failed=1
";
        let r = scan(log);
        let got: Vec<_> = r
            .cases
            .iter()
            .map(|c| (c.name.as_str(), c.passed))
            .collect();
        assert_eq!(
            got,
            [
                ("a/test_ok", true),
                ("a/test_bad", false),
                ("a/test_expects", true),
                ("a/test_missing", false),
                ("a/test_script_error", false)
            ]
        );
        assert!(r.finished);
        assert_eq!(r.failed(), 3);
    }

    #[test]
    fn stray_errors_and_crash() {
        let r = scan("Can't open dynamic library x.so\n::begin s/t\n");
        assert_eq!(r.stray_errors.len(), 1);
        assert!(!r.cases[0].passed);
        assert!(!r.finished);
        assert_eq!(r.failed(), 3);
    }

    #[test]
    fn panics_fail_the_case() {
        let r = scan(
            "::begin s/t\nthread '<main>' panicked at src/lib.rs:1:1\n::end s/t PASS\n::summary\n",
        );
        assert!(!r.cases[0].passed);
    }
}
