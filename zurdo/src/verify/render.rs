//! Human-readable accounts of verdicts: what failed, why, and the output
//! that shows it, so a reader knows what to fix without rerunning anything.
//!
//! Every account is safe to print on a terminal: control characters other
//! than line feeds and tabs (escape sequences a command printed, a file
//! name the agent chose, a line of a file) are written as escapes
//! ([`zurdo_base::text::escape_controls`]), never sent raw.

use std::fmt::Write;

use zurdo_base::text::escape_controls;

use super::outcome::{Captured, HintResult, Verdict};
use super::verifier::CriterionResult;
use crate::model::Criterion;

/// Lines of captured output shown for a failing hint.
pub const TAIL_LINES: usize = 20;

/// Explains a criterion that did not pass: each failing hint with its typed
/// reason, its note, and the tail of its output.
pub fn failure(display: &str, criterion: &Criterion, result: &CriterionResult) -> String {
    let mut out = format!("{display}:{}: {}\n", criterion.line, criterion.title);
    for hint in &result.hints {
        if let Verdict::Fail(reason) = &hint.verdict {
            let _ = writeln!(out, "  {} failed: {reason}", hint.hint);
            describe(&mut out, hint);
        }
    }
    escape_controls(out.trim_end()).into_owned()
}

/// Explains a broken standing rule: `standing rule broken: [<hint>] — <why>`,
/// then the reason and output as for a criterion.
pub fn standing_failure(rule: &super::StandingRule, result: &HintResult) -> String {
    let mut out = format!(
        "standing rule broken: {} — {}\n",
        rule.hint.source, rule.why
    );
    if let Verdict::Fail(reason) = &result.verdict {
        let _ = writeln!(out, "  {reason}");
    }
    describe(&mut out, result);
    escape_controls(out.trim_end()).into_owned()
}

fn describe(out: &mut String, hint: &HintResult) {
    if let Some(note) = &hint.evidence.note {
        let _ = writeln!(out, "    {note}");
    }
    for (name, captured) in [
        ("stdout", &hint.evidence.stdout),
        ("stderr", &hint.evidence.stderr),
    ] {
        if let Some(c) = captured {
            tail(out, name, c);
        }
    }
}

fn tail(out: &mut String, name: &str, captured: &Captured) {
    let text = captured.tail_lines(TAIL_LINES);
    if text.trim().is_empty() {
        return;
    }
    let shown = text.lines().count();
    let total = captured.text.trim_end().lines().count();
    let label = if let Some(cut) = captured.cut_note() {
        format!("{name} (last {shown} lines; {cut})")
    } else if shown < total {
        format!("{name} (last {shown} lines)")
    } else {
        name.to_string()
    };
    let _ = writeln!(out, "    {label}:");
    for line in text.lines() {
        let _ = writeln!(out, "      | {line}");
    }
}
