//! Errors (and warnings) that point at a line of the PRD.

use serde::Serialize;

/// One problem found in a PRD, with the line it is on and the fix when one
/// is obvious.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, in the spec's words where the spec has them.
    pub message: String,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Diagnostic {
    /// A diagnostic without a fix.
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        Diagnostic {
            line,
            message: message.into(),
            fix: None,
        }
    }

    /// Adds the fix.
    pub fn with_fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    /// Renders `<path>:<line>: <message>`, with the fix on an indented line.
    pub fn render(&self, path: &str) -> String {
        match &self.fix {
            Some(fix) => format!("{path}:{}: {}\n  fix: {fix}", self.line, self.message),
            None => format!("{path}:{}: {}", self.line, self.message),
        }
    }
}

impl std::fmt::Display for Diagnostic {
    /// Renders `line <n>: <message>`, the form the spec quotes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Sorts diagnostics by line, keeping the order they were found within a line.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| d.line);
}
