//! The analyzer's side of `zurdo heal`: one prompt per candidate criterion
//! (its task, why it is a candidate, the evidence, matching lessons and the
//! repository's file list) and its reply, a corrected criterion line or
//! none. What the reply proposes is applied and checked by
//! [`crate::edit`], re-run by the command, and written only when accepted.

use std::fmt::Write;

use serde_json::Value;
use zurdo::Task;

use super::diagnosis::{find_object, task_section, READ_ONLY};
use super::library::Lesson;
use super::REASON_PREFIX;
use crate::edit::Edit;

/// Most bytes of the evidence a heal prompt carries.
pub const EVIDENCE_BUDGET: usize = 6 * 1024;
/// Most bytes of the repository's file list a heal prompt carries.
pub const FILES_BUDGET: usize = 6 * 1024;

/// What a heal prompt is about.
#[derive(Debug, Clone, Copy)]
pub struct Case<'a> {
    /// The PRD as given.
    pub display: &'a str,
    /// The criterion's task.
    pub task: &'a Task,
    /// The criterion's first line.
    pub line: usize,
    /// The criterion as written.
    pub text: &'a str,
    /// Why it is a candidate, one line each.
    pub reasons: &'a [String],
    /// What the failing hints showed (output tails), bounded.
    pub evidence: &'a str,
    /// Lessons that match the task prospectively.
    pub lessons: &'a [&'a Lesson],
    /// The repository's files, one per line, bounded.
    pub files: &'a str,
}

/// The heal prompt; its first line is `zurdo-reason: heal <task> line <n>`.
pub fn prompt(case: &Case<'_>) -> String {
    let mut out = format!(
        "{REASON_PREFIX} heal {} line {}\n\n",
        case.task.id, case.line
    );
    out.push_str(
        "You are zurdo's analyzer. zurdo runs a PRD's acceptance criteria itself to decide whether a coding agent \
         did the work. The criterion below failed for a reason that points at its hint rather than at the work \
         (a command that does not exist, a test filter that selects nothing, a path that never existed, a \
         server that never answered), or zurdo's reasoner routed it to a human. Propose a corrected criterion \
         line, or say the hint is right as it is.\n\n",
    );
    let _ = writeln!(out, "{READ_ONLY}\n");
    let _ = writeln!(
        out,
        "# The criterion ({}, line {})\n\n{}\n",
        case.display,
        case.line,
        super::bundle::fenced(case.text, "markdown")
    );
    out.push_str("# Why it is a candidate\n\n");
    for reason in case.reasons {
        let _ = writeln!(out, "- {reason}");
    }
    out.push('\n');
    if !case.evidence.trim().is_empty() {
        out.push_str("# What its hints showed\n\n");
        out.push_str(&super::bundle::fenced(
            &super::bundle::window(case.evidence, EVIDENCE_BUDGET),
            "text",
        ));
        out.push('\n');
    }
    task_section(&mut out, case.task, true);
    if !case.lessons.is_empty() {
        out.push_str("# Lessons from earlier runs in this repository\n\n");
        for lesson in case.lessons {
            let _ = writeln!(
                out,
                "- lesson-{}: {}",
                lesson.id,
                lesson.body.trim().replace('\n', "\n  ")
            );
        }
        out.push('\n');
    }
    if !case.files.trim().is_empty() {
        out.push_str("# Files in the repository\n\n");
        out.push_str(&super::bundle::fenced(
            &super::bundle::window(case.files, FILES_BUDGET),
            "text",
        ));
        out.push('\n');
    }
    out.push_str(
        "# Rules\n\n\
         - The healed criterion is ONE line, `- [ ] <title> [hint]…`, in place of the one above.\n\
         - It must check at least what the old one meant to: keep every hint (fix its payload: the command, the \
         filter, the path, the URL), do not turn a hint into [manual], do not make a [shell:] that can't fail \
         (`true`, `… || true`), do not add [removes-tests], keep every [proves:].\n\
         - zurdo checks these rules in code, runs the new criterion on the working tree, and shows the change to a \
         human before anything is written.\n\n\
         # Reply\n\nReply with ONE JSON object and nothing else:\n\n\
         {\"quote\": \"<words copied from the criterion>\", \"replacement\": \"- [ ] ...\", \"why\": \"...\"}\n\n\
         or, when the hint is right and the work is what is missing: {\"replacement\": null, \"why\": \"...\"}\n",
    );
    out
}

/// What the analyzer proposed for one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The edit, or none when the analyzer says the hint is right.
    pub edit: Option<Edit>,
    /// Why, in its words.
    pub why: String,
}

/// Reads a heal reply for the criterion on `line`. `Err` when the reply
/// holds no JSON object with a `replacement` key, or the object is not a
/// proposal.
pub fn parse(reply: &str, line: usize) -> Result<Proposal, String> {
    let map = find_object(reply, "replacement")
        .ok_or("no JSON object with a \"replacement\" key in the reply")?;
    let why = map
        .get("why")
        .and_then(Value::as_str)
        .map(|w| zurdo_base::text::cut_chars(w.trim(), 1024))
        .unwrap_or_default();
    if let Some(cited) = map.get("line").and_then(Value::as_u64) {
        if cited != line as u64 {
            return Err(format!("it answers for line {cited}, not line {line}"));
        }
    }
    match map.get("replacement") {
        Some(Value::Null) => Ok(Proposal { edit: None, why }),
        Some(Value::String(replacement)) => Ok(Proposal {
            edit: Some(Edit {
                line,
                quote: map
                    .get("quote")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                replacement: replacement.clone(),
                why: why.clone(),
            }),
            why,
        }),
        Some(other) => Err(format!(
            "\"replacement\" is {}, not a line",
            super::diagnosis::json_kind(other)
        )),
        None => Err("no \"replacement\"".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_says_what_and_why() {
        let prd = zurdo::parse("# PRD: h\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nMake it.\n\n### Acceptance Criteria\n- [ ] marker [shell: tset -f out/done.txt]\n").expect("valid");
        let reasons = ["command not found (exit 127) at attempt 2".to_string()];
        let p = prompt(&Case {
            display: "prds/p.md",
            task: &prd.tasks[0],
            line: 11,
            text: "- [ ] marker [shell: tset -f out/done.txt]",
            reasons: &reasons,
            evidence: "sh: 1: tset: not found",
            lessons: &[],
            files: "out/done.txt\nsrc/lib.rs",
        });
        assert!(p.starts_with("zurdo-reason: heal task-1 line 11\n"), "{p}");
        for part in [
            "command not found",
            "tset: not found",
            "src/lib.rs",
            "Make it.",
        ] {
            assert!(p.contains(part), "{part}");
        }
    }

    #[test]
    fn replies_are_read_or_refused() {
        let p = parse(
            "```json\n{\"quote\": \"marker\", \"replacement\": \"- [ ] marker [shell: test -f out/done.txt]\", \"why\": \"typo\"}\n```",
            11,
        )
        .expect("reads");
        let edit = p.edit.expect("an edit");
        assert_eq!((edit.line, edit.quote.as_str()), (11, "marker"));
        assert_eq!(p.why, "typo");
        let none = parse(
            "{\"replacement\": null, \"why\": \"the hint is right\"}",
            11,
        )
        .expect("reads");
        assert!(none.edit.is_none());
        assert!(
            parse("{\"line\": 12, \"replacement\": \"- [ ] x [manual]\"}", 11)
                .expect_err("wrong line")
                .contains("line 12")
        );
        assert!(parse("fine as is", 11).is_err());
        assert!(parse("{\"replacement\": 3}", 11).is_err());
    }
}
