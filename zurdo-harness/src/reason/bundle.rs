//! The evidence the reasoner reads. zurdo assembles it from its own
//! verification records and the agent's event stream (already read through
//! the provider vocabulary); the model never reads a raw log. Every bundle
//! is bounded by a head-and-tail window, so both how an attempt started and
//! how it ended survive, with an elision marker where the middle went.

use std::fmt::Write;

use zurdo_base::text::{ceil_char_boundary, collapse_whitespace, floor_char_boundary};

use crate::agent::ToolCall;

/// Most bytes of a diagnosis bundle.
pub const BUDGET: usize = 12 * 1024;
/// Most bytes of each of a post-mortem's two projections (the stalled
/// attempt and the recovering attempt's diff).
pub const HALF_BUDGET: usize = 6 * 1024;

/// Most bytes of one tool call's output tail in a bundle.
const STEP_OUTPUT_BUDGET: usize = 400;
/// Most bytes of one tool call's input in a step line.
const STEP_INPUT_BUDGET: usize = 240;
/// Most bytes of zurdo's findings for one attempt.
const FAILED_BUDGET: usize = 3 * 1024;
/// Most bytes of the agent's final text for one attempt.
const FINAL_TEXT_BUDGET: usize = 2 * 1024;
/// Most bytes of one attempt's run-level error.
const ERROR_BUDGET: usize = 1024;
/// How far (in bytes) from a cut a line boundary may be and still be
/// preferred over the exact cut.
const LINE_SLACK: usize = 256;

/// Keeps `text` whole when it fits in `budget` bytes; otherwise keeps its
/// head and its tail (about half each) with an elision marker between, the
/// result never longer than `budget` bytes. Cuts fall on char boundaries,
/// and on a line boundary when one is near. A budget too small to hold the
/// marker keeps only the head.
pub fn window(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_string();
    }
    // The longest the marker can be: the elided count never has more
    // digits than the text's length.
    let longest_marker = marker(text.len()).len();
    if budget < longest_marker + 2 {
        return text[..floor_char_boundary(text, budget)].to_string();
    }
    let room = budget - longest_marker;
    let head_room = room / 2;
    let tail_room = room - head_room;

    let mut head_end = floor_char_boundary(text, head_room);
    let slack = LINE_SLACK.min(head_room / 4);
    if let Some(nl) = text[..head_end].rfind('\n') {
        if head_end - (nl + 1) <= slack {
            head_end = nl + 1;
        }
    }

    let mut tail_start = ceil_char_boundary(text, text.len() - tail_room);
    let slack = LINE_SLACK.min(tail_room / 4);
    if let Some(nl) = text[tail_start..].find('\n') {
        if nl < slack && tail_start + nl + 1 < text.len() {
            tail_start += nl + 1;
        }
    }
    tail_start = tail_start.max(head_end);

    let mut out = String::with_capacity(budget);
    let head = &text[..head_end];
    out.push_str(head);
    let marker = marker(tail_start - head_end);
    // The marker opens its own line; a head that already ends one needs no
    // second newline.
    if head.ends_with('\n') {
        out.push_str(&marker[1..]);
    } else {
        out.push_str(&marker);
    }
    out.push_str(&text[tail_start..]);
    out
}

/// The elision marker for `elided` bytes.
fn marker(elided: usize) -> String {
    format!("\n… [{elided} bytes elided: the middle of this section] …\n")
}

/// One failed attempt's evidence, from zurdo's records and the agent's
/// event stream read through the vocabulary.
#[derive(Debug, Clone, Default)]
pub struct AttemptEvidence {
    /// The attempt's number (1-based) within the task.
    pub attempt: u32,
    /// What zurdo's own verification found, already rendered: failing
    /// hints, typed reasons, output tails.
    pub failed: String,
    /// The agent's final text.
    pub final_text: Option<String>,
    /// The agent's tool-call log, in stream order.
    pub tool_calls: Vec<ToolCall>,
    /// A run-level error (not logged in, a quota, a crash, a timeout).
    pub error: Option<String>,
}

/// A rendered, bounded evidence bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    /// The text the reasoner reads, at most the budget it was built with.
    pub text: String,
    /// How many tool-call steps the bundle numbers (`[1]..=[steps]`),
    /// counted before windowing: a step whose line was elided still exists
    /// and may be cited.
    pub steps: usize,
}

/// Renders `attempts` in order, each with a heading, zurdo's findings, the
/// numbered tool-call log, the run-level error and the agent's final text,
/// then bounds the whole through [`window`]. Tool-call steps are numbered
/// globally across the attempts (so a diagnosis can cite "step 7"); each
/// step line reads like `[7] Bash: cargo test → failed`, followed by an
/// indented, bounded tail of its output.
pub fn project(attempts: &[AttemptEvidence], budget: usize) -> Bundle {
    let mut out = String::new();
    let mut step = 0usize;
    for evidence in attempts {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "## Attempt {}\n", evidence.attempt);

        out.push_str("### What zurdo's verification found\n\n");
        let failed = evidence.failed.trim();
        if failed.is_empty() {
            out.push_str("(nothing recorded)\n");
        } else {
            let _ = writeln!(out, "{}", window(failed, FAILED_BUDGET).trim_end());
        }

        out.push_str("\n### Tool calls\n\n");
        if evidence.tool_calls.is_empty() {
            out.push_str("(none recorded)\n");
        }
        for call in &evidence.tool_calls {
            step += 1;
            step_line(&mut out, step, call);
        }

        if let Some(error) = evidence.error.as_deref().map(str::trim) {
            if !error.is_empty() {
                let _ = writeln!(
                    out,
                    "\n### Run-level error\n\n{}",
                    window(error, ERROR_BUDGET).trim_end()
                );
            }
        }

        out.push_str("\n### Final text\n\n");
        match evidence.final_text.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => {
                let _ = writeln!(out, "{}", window(text, FINAL_TEXT_BUDGET).trim_end());
            }
            _ => out.push_str("(none)\n"),
        }
    }
    Bundle {
        text: window(&out, budget),
        steps: step,
    }
}

/// Appends one numbered step line and its indented output tail.
fn step_line(out: &mut String, step: usize, call: &ToolCall) {
    let _ = write!(out, "[{step}] {}", one_line(&call.name, STEP_INPUT_BUDGET));
    let input = one_line(&call.input, STEP_INPUT_BUDGET);
    if !input.is_empty() {
        let _ = write!(out, ": {input}");
    }
    match call.ok {
        Some(true) => out.push_str(" → ok"),
        Some(false) => out.push_str(" → failed"),
        None => {}
    }
    out.push('\n');
    let output = tail(call.output.trim_end(), STEP_OUTPUT_BUDGET);
    for line in output.lines() {
        let _ = writeln!(out, "    {}", line.trim_end());
    }
}

/// `text` on one line (runs of whitespace collapsed), at most `budget`
/// bytes plus an ellipsis.
fn one_line(text: &str, budget: usize) -> String {
    let joined = collapse_whitespace(text);
    if joined.len() <= budget {
        return joined;
    }
    format!("{}…", &joined[..floor_char_boundary(&joined, budget)])
}

/// The last `budget` bytes of `text` (starting at a line when one starts
/// nearby), marked when anything was cut.
fn tail(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_string();
    }
    let mut start = ceil_char_boundary(text, text.len() - budget);
    if let Some(nl) = text[start..].find('\n') {
        if nl < budget / 2 {
            start += nl + 1;
        }
    }
    format!("… [{start} bytes cut]\n{}", &text[start..])
}

/// `text` cut to at most `max` bytes at a char boundary.
pub(crate) fn cut(text: &str, max: usize) -> &str {
    &text[..floor_char_boundary(text, max)]
}

/// `text` in a fenced block tagged `info`, the fence longer than any
/// backtick run inside so the text cannot close it early.
pub(crate) fn fenced(text: &str, info: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{info}\n{}\n{fence}\n", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, input: &str, ok: Option<bool>, output: &str) -> ToolCall {
        ToolCall {
            step: 1,
            name: name.to_string(),
            input: input.to_string(),
            ok,
            output: output.to_string(),
        }
    }

    #[test]
    fn window_keeps_short_text_whole() {
        assert_eq!(window("hello\nworld\n", 100), "hello\nworld\n");
        let exact = "x".repeat(64);
        assert_eq!(window(&exact, 64), exact);
    }

    #[test]
    fn window_keeps_both_ends_and_the_marker_within_budget() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let w = window(&text, 1024);
        assert!(w.len() <= 1024, "{}", w.len());
        assert!(w.starts_with("line 0\nline 1\n"), "{w}");
        assert!(w.ends_with("line 1999\n"), "{w}");
        assert!(
            w.contains("bytes elided: the middle of this section"),
            "{w}"
        );
        assert!(!w.contains("line 1000\n"));
        // Cut on line boundaries: the text after the marker starts a line.
        let after = w.split("section] …\n").nth(1).unwrap_or_default();
        assert!(after.starts_with("line "), "{after}");
        // The count is what was actually elided.
        let (head, rest) = w.split_once("… [").unwrap_or_default();
        let (count, _) = rest.split_once(' ').unwrap_or_default();
        let elided: usize = count.parse().unwrap_or_default();
        assert_eq!(head.len() + elided + after.len(), text.len());
        assert!(head.len() + after.len() > 900);
    }

    #[test]
    fn window_is_safe_on_multibyte_text() {
        for unit in ["é", "😀", "aé😀"] {
            for budget in [100, 101, 102, 103, 257, 1000] {
                let text = unit.repeat(800);
                let w = window(&text, budget);
                assert!(w.len() <= budget, "{unit} {budget}: {}", w.len());
                assert!(w.contains("bytes elided"), "{unit} {budget}: {w}");
                assert_eq!(w.chars().next(), unit.chars().next());
                assert_eq!(w.chars().last(), unit.chars().last());
            }
        }
        // A budget too small for the marker keeps a head, still bounded.
        let w = window(&"😀".repeat(50), 10);
        assert!(w.len() <= 10 && !w.is_empty());
    }

    #[test]
    fn project_numbers_steps_globally_across_attempts() {
        let attempts = vec![
            AttemptEvidence {
                attempt: 1,
                failed: "[shell: cargo test] failed: exit 101".to_string(),
                final_text: Some("Done, tests pass.".to_string()),
                tool_calls: vec![
                    call("Read", "src/lib.rs", Some(true), ""),
                    call(
                        "Bash",
                        "cargo test",
                        Some(false),
                        "error[E0432]: unresolved import",
                    ),
                ],
                error: None,
            },
            AttemptEvidence {
                attempt: 2,
                failed: "[shell: cargo test] failed: exit 101".to_string(),
                final_text: None,
                tool_calls: vec![
                    call("Edit", "src/lib.rs", None, ""),
                    call("Bash", "cargo\ntest", Some(false), "still failing"),
                    call("Bash", "cargo build", Some(true), ""),
                ],
                error: Some("timed out after 600s".to_string()),
            },
        ];
        let b = project(&attempts, BUDGET);
        assert_eq!(b.steps, 5);
        let t = &b.text;
        assert!(t.contains("## Attempt 1"), "{t}");
        assert!(t.contains("## Attempt 2"), "{t}");
        assert!(
            t.contains("[2] Bash: cargo test → failed\n    error[E0432]"),
            "{t}"
        );
        assert!(t.contains("[3] Edit: src/lib.rs\n"), "{t}");
        assert!(
            t.contains("[4] Bash: cargo test → failed\n    still failing"),
            "{t}"
        );
        assert!(t.contains("[5] Bash: cargo build → ok"), "{t}");
        assert!(t.contains("timed out after 600s"), "{t}");
        assert!(t.contains("Done, tests pass."), "{t}");
        let first = t.find("## Attempt 1").unwrap_or(usize::MAX);
        let second = t.find("## Attempt 2").unwrap_or(0);
        assert!(first < second);
    }

    #[test]
    fn project_bounds_output_and_counts_elided_steps() {
        let calls: Vec<ToolCall> = (0..300)
            .map(|i| call("Bash", &format!("cmd {i}"), Some(false), &"o".repeat(2000)))
            .collect();
        let b = project(
            &[AttemptEvidence {
                attempt: 3,
                tool_calls: calls,
                ..Default::default()
            }],
            BUDGET,
        );
        assert_eq!(b.steps, 300);
        assert!(b.text.len() <= BUDGET);
        assert!(b.text.contains("[1] Bash: cmd 0 → failed"));
        assert!(b.text.contains("[300] Bash: cmd 299 → failed"));
        assert!(!b.text.contains(&"o".repeat(STEP_OUTPUT_BUDGET + 1)));
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert!(fenced("plain", "text").starts_with("```text\n"));
        let f = fenced("a ```` b", "");
        assert!(f.starts_with("`````\n"), "{f}");
    }
}
