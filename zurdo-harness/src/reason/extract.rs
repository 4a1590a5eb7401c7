//! A lesson from a recovery: when a task that stalled later passes, one
//! reasoner call compares the stalled attempt's evidence with the
//! recovering attempt's diff and distills one rule a future run in this
//! repository could apply first. Only recoveries teach; the reply is read
//! structurally and an unusable one teaches nothing.

use serde_json::Value;

use super::bundle::{cut, fenced};
use super::diagnosis::{find_object, json_kind, task_section, READ_ONLY};
use super::REASON_PREFIX;

/// Most bytes of a lesson body.
const LESSON_BUDGET: usize = 2 * 1024;

/// The extraction prompt. Its first line is `zurdo-reason: lesson`.
/// `stalled` is the stalled attempt's projection and `diff` the recovering
/// attempt's diff, each already windowed by the caller (to
/// [`super::bundle::HALF_BUDGET`]).
pub fn prompt(task: &zurdo::Task, stalled: &str, diff: &str) -> String {
    let mut out = format!("{REASON_PREFIX} lesson\n\n");
    out.push_str(
        "You are zurdo's reasoner. zurdo drove a coding agent through the task below and checked its work itself. \
         The agent stalled (several attempts failed the same way), and then a later attempt passed. Compare the \
         stalled attempt's evidence with the recovering attempt's diff, and distill ONE rule that a future run in \
         this repository could apply FIRST, before anything fails, to avoid the stall.\n\n",
    );
    out.push_str(READ_ONLY);
    out.push_str("\n\n");

    task_section(&mut out, task, false);

    out.push_str("# The stalled attempt\n\n");
    out.push_str(&fenced(stalled, "text"));
    out.push_str("\n# The recovering attempt's diff\n\n");
    out.push_str(&fenced(diff, "diff"));

    out.push_str(
        "\n# The rule\n\n\
         - Imperative: say what to do (\"Start the daemon with `make dev-up` before running `cargo test`\").\n\
         - Specific to this repository: its commands, paths, tools and conventions, not generic advice \
         (\"read the error carefully\" teaches nothing).\n\
         - At most three sentences.\n\
         - No task-specific ids, criterion titles or names that only make sense for this one task: the rule must \
         help a different task in the same repository.\n\
         - If nothing generalizes beyond this task (the fix was simply doing the task), there is no lesson.\n",
    );
    out.push_str(
        "\n# Reply\n\nReply with ONE JSON object and nothing else:\n\n\
         {\"lesson\": \"...\"}\n\n\
         or, when nothing generalizes:\n\n\
         {\"lesson\": null}\n",
    );
    out
}

/// Reads the extraction reply: `Ok(Some(body))` for a usable lesson
/// (trimmed, non-empty, cut to at most 2 KB at a char boundary),
/// `Ok(None)` for `{"lesson": null}` or an empty string, and `Err` with a
/// one-line reason when no JSON object with a `lesson` key is found or its
/// value is neither a string nor null.
pub fn parse(reply: &str) -> Result<Option<String>, String> {
    let map = find_object(reply, "lesson")
        .ok_or_else(|| "no JSON object with a \"lesson\" key in the reply".to_string())?;
    match map.get("lesson") {
        Some(Value::String(text)) => {
            let body = cut(text.trim(), LESSON_BUDGET).trim_end();
            Ok((!body.is_empty()).then(|| body.to_string()))
        }
        Some(Value::Null) | None => Ok(None),
        Some(other) => Err(format!(
            "\"lesson\" is {}, expected a string or null",
            json_kind(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRD: &str =
        "# PRD: x\n\n## Task: task-api — Serve the API\n**Effort**: low\n**Depends-on**: []\n\n\
                       ### Description\nAdd the endpoint.\n\n### Acceptance Criteria\n\
                       - [ ] integration tests pass [shell: cargo test --test api]\n";

    #[test]
    fn prompt_opens_with_the_prefix_and_carries_both_projections() {
        let prd = zurdo::parse(PRD).expect("valid");
        let stalled =
            "## Attempt 2\n\n[1] Bash: cargo test --test api → failed\n    connection refused";
        let diff = "--- a/Makefile\n+++ b/Makefile\n+dev-up:";
        let p = prompt(&prd.tasks[0], stalled, diff);
        assert_eq!(p.lines().next(), Some("zurdo-reason: lesson"));
        assert!(p.contains("# Task task-api — Serve the API"), "{p}");
        assert!(
            p.contains("- integration tests pass [shell: cargo test --test api]"),
            "{p}"
        );
        assert!(p.contains(stalled), "{p}");
        assert!(p.contains("```diff\n--- a/Makefile"), "{p}");
        assert!(p.contains("Do not use tools"), "{p}");
        assert!(p.contains("do not edit files"), "{p}");
        assert!(p.contains("{\"lesson\": null}"), "{p}");
        assert!(p.contains("three sentences"), "{p}");
    }

    #[test]
    fn parse_reads_a_string_lesson_inside_prose_and_fences() {
        let reply = "Here it is:\n```json\n{\"lesson\": \"  Run `make dev-up` before `cargo test`.  \"}\n```\n";
        assert_eq!(
            parse(reply),
            Ok(Some("Run `make dev-up` before `cargo test`.".to_string()))
        );
    }

    #[test]
    fn parse_reads_null_and_empty_as_no_lesson() {
        assert_eq!(parse("{\"lesson\": null}"), Ok(None));
        assert_eq!(parse("{\"lesson\": \"   \"}"), Ok(None));
    }

    #[test]
    fn parse_rejects_a_missing_key_and_a_wrong_type() {
        let err = parse("{\"rule\": \"x\"}").expect_err("no lesson key");
        assert!(err.contains("\"lesson\" key"), "{err}");
        assert!(parse("no json at all").is_err());
        let err = parse("{\"lesson\": [\"x\"]}").expect_err("wrong type");
        assert_eq!(err, "\"lesson\" is an array, expected a string or null");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn parse_cuts_an_oversize_lesson_at_a_char_boundary() {
        let long = "😀".repeat(1000);
        let reply = serde_json::json!({ "lesson": long }).to_string();
        let body = parse(&reply).expect("ok").expect("some");
        assert!(body.len() <= LESSON_BUDGET);
        assert!(body.len() > LESSON_BUDGET - 4);
        assert!(body.chars().all(|c| c == '😀'));
    }
}
