//! The prompt an agent gets for one attempt: the task's Description
//! verbatim, its criteria, its Skills as the provider spells them, and, on a
//! retry, what just failed. Sizes are bounded so prompts do not grow with
//! the number of attempts: only the latest failure is carried.

use std::fmt::Write;

use zurdo::verify::{render, CriterionResult, CriterionVerdict, Verdict};
use zurdo::{Criterion, Task};

use crate::agent::Provider;

/// The heading a retry prompt opens with.
pub const RETRY_MARKER: &str = "# What failed";

/// Most bytes of one hint's captured output carried into a retry prompt.
const OUTPUT_BUDGET: usize = 3 * 1024;
/// Most bytes of the agent's own narrative carried into a retry prompt.
const NARRATIVE_BUDGET: usize = 2 * 1024;
/// Most bytes of the whole "what failed" section.
const RETRY_BUDGET: usize = 16 * 1024;

/// How a skill is referenced for `provider`: `/name` for Claude Code and the
/// Copilot CLI, `$name` for Codex; Gemini CLI has no skill syntax, so the
/// bare name.
pub fn skill_reference(provider: Provider, name: &str) -> String {
    match provider {
        Provider::Anthropic | Provider::GitHub => format!("/{name}"),
        Provider::OpenAi => format!("${name}"),
        Provider::Google => name.to_string(),
    }
}

/// Renders the prompt for `task`. `retry` is the "what failed" section of
/// the previous attempt, when there was one.
pub fn render(task: &Task, provider: Provider, retry: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(retry) = retry {
        out.push_str(retry.trim_end());
        out.push_str("\n\n");
    }
    let _ = writeln!(out, "# Task {} — {}\n", task.id, task.title);
    out.push_str(task.description.trim_end());
    out.push_str("\n\n# Acceptance criteria\n\n");
    out.push_str(
        "zurdo checks each of these itself after you finish, by running the hint in brackets:\n\n",
    );
    for c in &task.criteria {
        let hints: Vec<&str> = c.hints.iter().map(|h| h.source.as_str()).collect();
        let _ = writeln!(out, "- {} {}", c.title, hints.join(" "));
    }
    if !task.metadata.skills.is_empty() {
        let refs: Vec<String> = task
            .metadata
            .skills
            .iter()
            .map(|s| skill_reference(provider, s))
            .collect();
        let _ = writeln!(out, "\n# Skills\n\nUse these skills: {}", refs.join(", "));
    }
    if !task.metadata.frozen.is_empty() {
        let _ = writeln!(
            out,
            "\n# Do not modify\n\n{}",
            task.metadata.frozen.join(", ")
        );
    }
    out
}

/// The `# Frozen Path Violation` section a retry opens with when the last
/// attempt modified frozen paths (empty when it did not).
pub fn frozen_section(paths: &[String]) -> String {
    if paths.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Frozen Path Violation\n\nThese paths are frozen for this task and the last attempt changed them. \
         Revert each to exactly what it was (for a tracked file, `git checkout -- <path>`), then do the task without touching them:\n\n",
    );
    for p in paths {
        let _ = writeln!(out, "- {p}");
    }
    out.push('\n');
    out
}

/// The `# Clean Room Mismatch` section: what passed in the working tree but
/// not in a fresh checkout of it (empty when nothing did).
pub fn clean_room_section(mismatches: &[String]) -> String {
    if mismatches.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Clean Room Mismatch\n\nThese passed in the working tree but failed in a fresh checkout of it: the pass depends on \
         something that is not in the tree (an ignored or untracked file, a cache, a running process). Make the tree itself pass:\n\n",
    );
    for m in mismatches {
        let _ = writeln!(out, "- {m}");
    }
    out.push('\n');
    out
}

/// The `# Processes Left Running` section: what the last attempt left
/// running after it ended, which zurdo killed before verifying (empty when
/// nothing was left).
pub fn leftovers_section(commands: &[String]) -> String {
    if commands.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Processes Left Running\n\nYour last attempt left these running after it ended; zurdo killed them before it verified. \
         Nothing you start outlives your attempt: a criterion must pass on what the repository itself starts.\n\n",
    );
    for c in commands {
        let _ = writeln!(out, "- `{c}`");
    }
    out.push('\n');
    out
}

/// The `# Caught` section a retry opens with when zurdo caught the last
/// attempt doing something besides failing a criterion (empty when it did
/// not): each finding with its typed reason and what to undo.
pub fn caught_section(caught: &[crate::evidence::Caught]) -> String {
    if caught.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Caught\n\nzurdo checks more than the criteria: the last attempt changed what decides the verdict, \
         or the environment the criteria run in, instead of (or besides) the code. None of this can pass. Undo each, \
         then do the task itself:\n\n",
    );
    for c in caught {
        let _ = writeln!(out, "- {}: {}: {}", c.reason, c.subject, c.detail);
        let _ = writeln!(out, "  undo: {}", c.undo);
    }
    out.push('\n');
    out
}

/// The heading of the section a prompt opens with after a reviewer
/// rejected the task's last result.
pub const REVIEW_MARKER: &str = "# Review";

/// The `# Review` section the next prompt of a task a reviewer rejected
/// opens with: the criterion (its PRD line and title) and the reviewer's
/// reason.
pub fn review_section(
    prd: &str,
    criterion: &str,
    line: usize,
    title: &str,
    reason: &str,
) -> String {
    let mut out = format!(
        "{REVIEW_MARKER}\n\nzurdo's automated checks passed, but a reviewer rejected your last result:\n\n"
    );
    let _ = writeln!(
        out,
        "- A reviewer rejected {criterion} ({prd}:{line}, \"{title}\"): {}",
        reason.trim()
    );
    out.push_str(
        "\nAddress the reviewer's reason; every acceptance criterion below still holds.\n\n",
    );
    out
}

/// The `# Standing Rules` section a retry opens with when the last attempt
/// broke a standing rule (empty when none broke).
pub fn standing_section(
    broken: &[(zurdo::verify::StandingRule, zurdo::verify::HintResult)],
) -> String {
    if broken.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Standing Rules\n\nStanding rules hold for every task, whatever the task says. The last attempt broke:\n\n",
    );
    for (rule, result) in broken {
        let _ = writeln!(
            out,
            "- standing rule broken: {} — {}",
            rule.hint.source, rule.why
        );
        if let Verdict::Fail(reason) = &result.verdict {
            let _ = writeln!(out, "  {reason}");
        }
    }
    out.push('\n');
    out
}

/// The "what failed" section for the next attempt: each failing hint with
/// its typed reason and bounded output, then the tail of the agent's own
/// narrative.
pub fn what_failed(
    display: &str,
    attempt: u32,
    failures: &[(&Criterion, &CriterionResult)],
    narrative: Option<&str>,
) -> String {
    let mut out = format!("{RETRY_MARKER}\n\nAttempt {attempt} did not pass zurdo's verification. Fix these, then stop:\n\n");
    for (criterion, result) in failures {
        if result.verdict != CriterionVerdict::Failed {
            continue;
        }
        let _ = writeln!(out, "## {display}:{} — {}", criterion.line, criterion.title);
        for hint in result.failures() {
            if let Verdict::Fail(reason) = &hint.verdict {
                let _ = writeln!(out, "- {} failed: {reason}", hint.hint);
            }
            if let Some(note) = &hint.evidence.note {
                let _ = writeln!(out, "  {note}");
            }
            for (name, captured) in [
                ("stdout", &hint.evidence.stdout),
                ("stderr", &hint.evidence.stderr),
            ] {
                if let Some(c) = captured {
                    let text = tail_bytes(c.tail_lines(render::TAIL_LINES * 2), OUTPUT_BUDGET);
                    if !text.trim().is_empty() {
                        let heading = match c.cut_note() {
                            Some(note) => format!("{name} ({note})"),
                            None => name.to_string(),
                        };
                        let _ = writeln!(out, "  {heading}:\n```\n{}\n```", text.trim_end());
                    }
                }
            }
        }
        out.push('\n');
    }
    out.push_str(&narrative_section(narrative));
    if out.len() > RETRY_BUDGET {
        let cut = zurdo_base::text::floor_char_boundary(&out, RETRY_BUDGET);
        out.truncate(cut);
        out.push_str("\n… [the rest of the failure report is cut to keep the prompt bounded]\n");
    }
    out
}

/// `## What you said last time (tail)`: the end of the agent's own
/// narrative, bounded (empty without one). A retry whose criteria all
/// passed (a frozen path, a standing rule or the clean room failed it)
/// carries it too.
pub fn narrative_section(narrative: Option<&str>) -> String {
    match narrative.filter(|t| !t.trim().is_empty()) {
        Some(text) => format!(
            "## What you said last time (tail)\n\n{}\n\n",
            tail_bytes(text.trim(), NARRATIVE_BUDGET)
        ),
        None => String::new(),
    }
}

/// The last `budget` bytes of `text`, starting at a line when possible.
fn tail_bytes(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_string();
    }
    let rest = &text[zurdo_base::text::ceil_char_boundary(text, text.len() - budget)..];
    let rest = rest.find('\n').map_or(rest, |nl| &rest[nl + 1..]);
    format!("… [{} bytes cut]\n{rest}", text.len() - rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRD: &str = "# PRD: x\n\n## Task: task-1 — Greet\n**Effort**: low\n**Depends-on**: []\n**Skills**: rust-style\n\n\
                       ### Description\nWrite greeting.txt.\n\n### Acceptance Criteria\n- [ ] it greets [grep: ^Hello in greeting.txt]\n";

    #[test]
    fn first_prompt_has_description_criteria_and_provider_skills() {
        let prd = zurdo::parse(PRD).expect("valid");
        let p = render(&prd.tasks[0], Provider::Anthropic, None);
        assert!(
            p.starts_with("# Task task-1 — Greet\n\nWrite greeting.txt.\n"),
            "{p}"
        );
        assert!(p.contains("- it greets [grep: ^Hello in greeting.txt]"));
        assert!(p.contains("/rust-style"));
        assert!(!p.contains(RETRY_MARKER));
        assert!(render(&prd.tasks[0], Provider::OpenAi, None).contains("$rust-style"));
    }

    #[test]
    fn the_review_section_carries_the_reason() {
        let section = review_section(
            "prds/p.md",
            "task_2::reads_well",
            14,
            "it reads well",
            "too terse\n",
        );
        assert!(section.starts_with(REVIEW_MARKER), "{section}");
        assert!(
            section.contains("- A reviewer rejected task_2::reads_well (prds/p.md:14, \"it reads well\"): too terse\n"),
            "{section}"
        );
    }

    #[test]
    fn the_caught_section_names_each_finding_and_what_to_undo() {
        assert_eq!(caught_section(&[]), "");
        let section = caught_section(&[crate::evidence::Caught::new(
            crate::evidence::CaughtKind::VerdictSurfaceChanged,
            "Cargo.toml",
            "the [[test]] table changed",
            "restore the [[test]] table of Cargo.toml to what it was",
        )]);
        assert!(section.starts_with("# Caught\n"), "{section}");
        assert!(
            section.contains("- verdict_surface_changed: Cargo.toml: the [[test]] table changed\n  undo: restore the [[test]] table"),
            "{section}"
        );
    }

    #[test]
    fn retry_prompts_open_with_the_failure_and_stay_bounded() {
        let prd = zurdo::parse(PRD).expect("valid");
        let task = &prd.tasks[0];
        let dir = tempfile::tempdir().expect("temp");
        std::fs::write(dir.path().join("greeting.txt"), "hi\n").expect("write");
        let v = zurdo::verify::Verifier::new(dir.path(), Default::default()).expect("verifier");
        let result = v.criterion(&task.criteria[0]);
        let narrative = "x".repeat(50_000);
        let section = what_failed(
            "prds/x.md",
            1,
            &[(&task.criteria[0], &result)],
            Some(&narrative),
        );
        assert!(section.starts_with(RETRY_MARKER));
        assert!(
            section.contains("[grep: ^Hello in greeting.txt] failed: no line matches"),
            "{section}"
        );
        assert!(section.len() < RETRY_BUDGET + 200, "{}", section.len());
        let p = render(task, Provider::Anthropic, Some(&section));
        assert!(p.starts_with(RETRY_MARKER));
    }
}
