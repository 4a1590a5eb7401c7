//! The run report: `reports/<timestamp>.md` (for a human) and
//! `reports/<timestamp>.json` (the run state) under `.zurdo/<slug>/`.
//!
//! The Markdown report is rendered from `prd.json`, the run's events
//! (`progress.log`) and the review log (`review-log.jsonl`): the header, the
//! summary table, one entry per task, what each task an attempt passed
//! cost and what proved it (`## Receipts`), the `[manual]` sign-offs (`##
//! Reviews`), the reasoning sections (`## Diagnoses`, `## Fingerprint Stalls`, `## Halt
//! Attributions`, `## Heal Routings`, `## Lessons Extracted`, `## Lessons
//! Injected`), the challenger's findings (`## Challenger`), the escalation
//! ladder's climbs (`## Escalations`), the providers blocked and the work
//! that failed over (`## Provider Failovers`) and the warnings only the
//! events keep (`## Warnings`), each omitted entirely when it has nothing
//! to say.

pub mod challenges;
pub mod escalations;
pub mod receipts;
pub mod reviews;
pub mod summary;
pub mod warnings;

use std::fmt::Write;
use std::path::PathBuf;

use zurdo::verify::CriterionVerdict;
use zurdo_base::text::first_nonblank_line;

use crate::event::{DropCause, Event};
use crate::state::review;
use crate::state::review_log::Chain;
use crate::state::run_state::{DiagnosisRecord, RunState, TaskState};
use crate::state::{StateDir, WriteError};

/// Renders the Markdown report of `state`, the run's `events` (its
/// progress.log) and its review log `reviews` (checked), stamped as written
/// at `written_at`.
pub fn markdown(state: &RunState, events: &[Event], reviews: &Chain, written_at: &str) -> String {
    let mut out = String::new();
    header(&mut out, state, written_at);
    if let Some(stop) = agent_stop(events) {
        let _ = writeln!(out, "- stopped: {stop}");
    }
    let _ = write!(out, "\n## Summary\n\n```\n{}```\n", summary::table(state));
    tasks(&mut out, state);
    receipts::section(&mut out, state);
    reviews::section(&mut out, state, reviews);
    diagnoses(&mut out, state);
    stalls(&mut out, state);
    halts(&mut out, state);
    heal_routings(&mut out, state);
    lessons_extracted(&mut out, state);
    lessons_injected(&mut out, state);
    challenges::section_of(&mut out, state);
    escalations::climbs(&mut out, state);
    escalations::failovers(&mut out, events);
    warnings::section(&mut out, events);
    out
}

/// A report as written.
#[derive(Debug)]
pub struct Written {
    /// `reports/<timestamp>.md`.
    pub markdown_path: PathBuf,
    /// `reports/<timestamp>.json`.
    pub json_path: PathBuf,
    /// What the Markdown file holds.
    pub markdown: String,
    /// What the JSON file holds (the run state).
    pub json: Vec<u8>,
}

/// Writes the report of `state` into `dir.reports()`: `<timestamp>.md` and
/// `<timestamp>.json`, the timestamp being now with `:` replaced by `-` and
/// `-2`, `-3`, … appended when a report of that name exists.
pub fn write(dir: &StateDir, state: &RunState) -> Result<Written, WriteError> {
    let now = zurdo_base::time::now();
    let mut json = serde_json::to_vec_pretty(state).unwrap_or_default();
    json.push(b'\n');
    let events: Vec<Event> = crate::event::log::read(dir)
        .into_iter()
        .map(|s| s.event)
        .collect();
    let chain = review::read_chain(
        dir,
        &review::Manual::of_state(state),
        None,
        &review::Anchor::of(Some(state), None),
    );
    let markdown = markdown(state, &events, &chain, &now);
    let (markdown_path, json_path) =
        dir.write_report(&now.replace(':', "-"), markdown.as_bytes(), &json)?;
    Ok(Written {
        markdown_path,
        json_path,
        markdown,
        json,
    })
}

fn header(out: &mut String, state: &RunState, written_at: &str) {
    let _ = writeln!(out, "# zurdo run report: {}\n", state.prd);
    let _ = writeln!(out, "- started: {}", state.started_at);
    let _ = writeln!(out, "- updated: {}", state.updated_at);
    let _ = writeln!(out, "- written: {written_at}");
    let _ = writeln!(out, "- executor: {}", state.executor);
    if !state.policy.is_empty() {
        let id: String = state.policy.chars().take(12).collect();
        let _ = writeln!(out, "- policy: {}", code(&id));
    }
    if state.reasoner_calls > 0 {
        let _ = writeln!(out, "- reasoner calls: {}", state.reasoner_calls);
    }
}

/// The longest agent error the report quotes, in characters.
const AGENT_ERROR_CHARS: usize = 300;

/// An agent's error on one line, bounded.
fn agent_words(text: &str) -> String {
    zurdo_base::text::cut_chars(
        &zurdo_base::text::collapse_whitespace(text),
        AGENT_ERROR_CHARS,
    )
}

/// Why the last run stopped because the agent could not work, from its
/// events (those after the last `verifier_context`, which every run emits
/// while it prepares): an agent CLI that could not be started, one whose
/// attempt was dropped because its CLI could not work (and not run again
/// after a rate-limit wait), or model probes that failed before any task.
fn agent_stop(events: &[Event]) -> Option<String> {
    let start = events
        .iter()
        .rposition(|e| matches!(e, Event::VerifierContext { .. }))
        .unwrap_or(0);
    let last = &events[start..];
    let not_started = last.iter().rev().find_map(|e| match e {
        Event::AgentNotStarted {
            task,
            attempt,
            program,
            error,
        } => Some(format!(
            "the agent could not work: {} attempt {attempt}: its CLI {} could not start: {}",
            code(task),
            code(program),
            agent_words(error)
        )),
        _ => None,
    });
    if not_started.is_some() {
        return not_started;
    }
    let unavailable = last.iter().enumerate().rev().find_map(|(i, e)| match e {
        Event::AttemptDropped {
            task,
            attempt,
            cause: DropCause::AgentUnavailable,
            failure: Some(failure),
        } => Some((i, task, attempt, failure)),
        _ => None,
    });
    if let Some((i, task, attempt, failure)) = unavailable {
        // A rate limit waited out runs the attempt again: not a stop.
        let ran_again = last[i + 1..]
            .iter()
            .any(|e| matches!(e, Event::AttemptStarted { .. }));
        if !ran_again {
            return Some(format!(
                "the agent could not work: {} attempt {attempt}: {}: {}{}",
                code(task),
                code(failure.cli()),
                failure.kind.headline(),
                failure.quoted()
            ));
        }
    }
    if last.iter().any(|e| matches!(e, Event::RunStarted { .. })) {
        return None;
    }
    let failed: Vec<String> = last
        .iter()
        .filter_map(|e| match e {
            Event::ModelProbe {
                model,
                ok: false,
                error,
                optional: false,
                ..
            } => Some(format!(
                "{}: {}",
                code(model),
                error.as_deref().map_or("failed".to_string(), agent_words)
            )),
            _ => None,
        })
        .collect();
    (!failed.is_empty()).then(|| {
        format!(
            "the model probe failed, before any task: {}",
            failed.join("; ")
        )
    })
}

/// Each agent error a task's attempts met, with the attempts that met it,
/// in order of first appearance.
fn agent_errors(t: &TaskState) -> Vec<String> {
    let mut seen: Vec<(String, Vec<u32>)> = Vec::new();
    for it in &t.iterations {
        let Some(error) = it.agent.error.as_deref().filter(|e| !e.trim().is_empty()) else {
            continue;
        };
        let words = agent_words(error);
        match seen.iter_mut().find(|(w, _)| *w == words) {
            Some((_, attempts)) => attempts.push(it.attempt),
            None => seen.push((words, vec![it.attempt])),
        }
    }
    seen.into_iter()
        .map(|(words, attempts)| {
            let list: Vec<String> = attempts.iter().map(u32::to_string).collect();
            format!(
                "agent error at attempt{} {}: {words}",
                if attempts.len() == 1 { "" } else { "s" },
                list.join(", ")
            )
        })
        .collect()
}

fn tasks(out: &mut String, state: &RunState) {
    if state.tasks.is_empty() {
        return;
    }
    out.push_str("\n## Tasks\n");
    // Grouped by **Category** when any task names one (in the order the
    // categories first appear, `Uncategorized` last); else one list.
    let grouped = state.tasks.iter().any(|t| t.category.is_some());
    let mut groups: Vec<(&str, Vec<&TaskState>)> = Vec::new();
    for t in &state.tasks {
        let name = t.category.as_deref().unwrap_or(UNCATEGORIZED);
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, list)) => list.push(t),
            None => groups.push((name, vec![t])),
        }
    }
    groups.sort_by_key(|(name, _)| *name == UNCATEGORIZED);
    for (name, list) in groups {
        if grouped {
            let _ = writeln!(out, "\n### {name} ({})\n", tally(&list));
        } else {
            out.push('\n');
        }
        for t in list {
            task_entry(out, t);
        }
    }
}

/// The group of tasks with no `**Category**`.
pub const UNCATEGORIZED: &str = "Uncategorized";

/// `2 passed, 1 failed`: each status in the group with its count, in the
/// order statuses first appear.
fn tally(list: &[&TaskState]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for t in list {
        let name = t.status.name();
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, n)) => *n += 1,
            None => counts.push((name, 1)),
        }
    }
    counts
        .iter()
        .map(|(name, n)| format!("{n} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One task's entry: its status line and what happened to it.
fn task_entry(out: &mut String, t: &TaskState) {
    let _ = writeln!(
        out,
        "- {}: {}, attempts {}/{}",
        code(&t.id),
        t.status.name(),
        t.attempts,
        t.max_attempts
    );
    let mut item = |text: String| {
        let _ = writeln!(out, "  - {text}");
    };
    if let Some(by) = &t.blocked_by {
        item(format!("blocked by {}", code(by)));
    }
    if let Some(refusal) = &t.budget_exhausted {
        item(format!(
            "budget_exhausted: attempt {} refused, not started: {}",
            refusal.attempt,
            refusal.describe()
        ));
    }
    if t.passed_at_preflight {
        item("passed at pre-flight (no agent ran): proves nothing about this run".into());
    }
    for line in agent_errors(t) {
        item(line);
    }
    if !t.flaky.is_empty() {
        item(format!("flaky: {}", codes(&t.flaky)));
    }
    if let Some(w) = t.witness.as_ref().filter(|w| !w.unwitnessed.is_empty()) {
        item(format!(
            "changed files no criterion reads: {}",
            codes(&w.unwitnessed)
        ));
    }
    for it in t
        .iterations
        .iter()
        .filter(|i| !i.frozen_violations.is_empty())
    {
        item(format!(
            "frozen path violations at attempt {}: {}",
            it.attempt,
            codes(&it.frozen_violations)
        ));
    }
    for it in t.iterations.iter().filter(|i| !i.caught.is_empty()) {
        item(format!(
            "caught at attempt {}: {}",
            it.attempt,
            it.caught
                .iter()
                .map(|c| format!("{} {} ({})", c.reason, code(&c.subject), c.detail))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    if let Some(last) = t.iterations.last() {
        let failing: Vec<String> = last
            .criteria
            .iter()
            .filter(|c| c.verdict == CriterionVerdict::Failed)
            .map(|c| c.name.clone())
            .collect();
        if !failing.is_empty() {
            item(format!(
                "failing at attempt {}: {}",
                last.attempt,
                codes(&failing)
            ));
        }
        if !last.standing_failures.is_empty() {
            item(format!(
                "standing failures at attempt {}: {}",
                last.attempt,
                last.standing_failures
                    .iter()
                    .map(|s| first_nonblank_line(s))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
}

fn diagnoses(out: &mut String, state: &RunState) {
    let records: Vec<(&TaskState, &DiagnosisRecord)> = state
        .tasks
        .iter()
        .flat_map(|t| t.diagnoses.iter().map(move |d| (t, d)))
        .collect();
    if records.is_empty() {
        return;
    }
    out.push_str("\n## Diagnoses\n\n");
    let mut accepted = 0;
    for (t, d) in records.iter().filter(|(_, d)| d.outcome == "accepted") {
        accepted += 1;
        let mut line = format!("- {} attempt {}: ", code(&t.id), d.attempt);
        match &d.block {
            Some(b) => {
                let _ = write!(
                    line,
                    "{}, confidence {}{}",
                    b.verdict.name(),
                    b.confidence.name(),
                    if b.confidence_clamped {
                        " (clamped: it cited no step)"
                    } else {
                        ""
                    }
                );
            }
            None => line.push_str("no block recorded"),
        }
        if let Some(model) = &d.model {
            let _ = write!(line, ", by {}", code(model));
        }
        if let Some(u) = &d.usage {
            let _ = write!(
                line,
                ", tokens {} in / {} out",
                u.input_tokens, u.output_tokens
            );
        }
        let _ = writeln!(out, "{line}");
        if let Some(b) = &d.block {
            let _ = writeln!(
                out,
                "  - hypothesis: {}",
                first_nonblank_line(&b.hypothesis)
            );
        }
        if let Some(file) = &d.file {
            let _ = writeln!(out, "  - block: {}", code(file));
        }
    }
    // The other outcomes (`discarded`, `skipped`, …), in order of first
    // appearance, each on one line.
    let mut outcomes: Vec<&str> = Vec::new();
    for (_, d) in &records {
        if d.outcome != "accepted" && !outcomes.contains(&d.outcome.as_str()) {
            outcomes.push(&d.outcome);
        }
    }
    if accepted > 0 && !outcomes.is_empty() {
        out.push('\n');
    }
    for outcome in outcomes {
        let these: Vec<String> = records
            .iter()
            .filter(|(_, d)| d.outcome == outcome)
            .map(|(t, d)| {
                let mut s = format!("{} attempt {}", code(&t.id), d.attempt);
                if let Some(why) = &d.why {
                    let _ = write!(s, " ({})", first_nonblank_line(why));
                }
                s
            })
            .collect();
        let n = these.len();
        let what = match (outcome, n) {
            ("skipped", 1) => "diagnosis skipped (no call)".to_string(),
            ("skipped", _) => "diagnoses skipped (no call)".to_string(),
            (o, 1) => format!("diagnosis call {o}"),
            (o, _) => format!("diagnosis calls {o}"),
        };
        let _ = writeln!(out, "{n} {what}: {}", these.join("; "));
        out.push('\n');
    }
    if out.ends_with("\n\n") {
        out.pop();
    }
}

fn stalls(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        for s in &t.stalls {
            let _ = writeln!(
                body,
                "- {} attempt {}: the same failure {} attempts in a row, fingerprint {}; criteria: {}",
                code(&t.id),
                s.attempt,
                s.repeats,
                code(&s.fingerprint),
                list_or_none(&s.criteria)
            );
        }
    }
    section(out, "Fingerprint Stalls", &body);
}

fn halts(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        if let Some(h) = &t.halted {
            let _ = writeln!(
                body,
                "- {} after attempt {}: halted by a halt_task diagnosis (confidence {}): {}",
                code(&t.id),
                h.attempt,
                h.confidence.name(),
                first_nonblank_line(&h.hypothesis)
            );
        }
    }
    section(out, "Halt Attributions", &body);
}

fn heal_routings(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        for r in &t.heal_routings {
            let _ = writeln!(
                body,
                "- {} attempt {}: {} — {}",
                code(&t.id),
                r.attempt,
                list_or_none(&r.criteria),
                first_nonblank_line(&r.hypothesis)
            );
        }
    }
    if !body.is_empty() {
        let _ = writeln!(
            body,
            "\nThe reasoner judged these criteria wrong or unreachable: review them (and their hints) in {} before the next run; zurdo never edits a criterion itself.",
            state.prd
        );
    }
    section(out, "Heal Routings", &body);
}

fn lessons_extracted(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        for e in &t.lessons_extracted {
            let _ = write!(
                body,
                "- {}: {} ({})",
                code(&t.id),
                code(&format!("lessons/lesson-{}.md", e.id)),
                if e.written { "new" } else { "already present" }
            );
            if !e.evicted.is_empty() {
                let _ = write!(body, "; evicted {}", codes(&e.evicted));
            }
            body.push('\n');
        }
    }
    section(out, "Lessons Extracted", &body);
}

fn lessons_injected(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        for i in &t.lessons_injected {
            let _ = writeln!(
                body,
                "- {} attempt {}: lesson {} ({}, score {}), learned from {} in {}",
                code(&t.id),
                i.attempt,
                code(&i.id),
                i.mode,
                i.score,
                code(&i.from_task),
                code(&i.from_prd)
            );
        }
    }
    section(out, "Lessons Injected", &body);
}

/// Appends `## <heading>` and `body`, or nothing when `body` is empty.
fn section(out: &mut String, heading: &str, body: &str) {
    if !body.is_empty() {
        let _ = write!(out, "\n## {heading}\n\n{body}");
    }
}

/// `text` as a Markdown code span (longer fences when it holds backticks).
fn code(text: &str) -> String {
    let text = first_nonblank_line(text);
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// Each item as a code span, comma-separated.
fn codes(items: &[String]) -> String {
    items.iter().map(|s| code(s)).collect::<Vec<_>>().join(", ")
}

/// [`codes`], or `none recorded` for an empty list.
fn list_or_none(items: &[String]) -> String {
    if items.is_empty() {
        "none recorded".to_string()
    } else {
        codes(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Usage;
    use crate::reason::diagnosis::{Block, Confidence, Verdict};
    use crate::state::run_state::{
        CriterionRecord, Extracted, Halt, HealRouting, Injected, Iteration, Stall, Status, Witness,
    };

    const SECTIONS: [&str; 6] = [
        "## Diagnoses",
        "## Fingerprint Stalls",
        "## Halt Attributions",
        "## Heal Routings",
        "## Lessons Extracted",
        "## Lessons Injected",
    ];

    fn state(tasks: Vec<TaskState>) -> RunState {
        RunState {
            version: 1,
            prd: "prds/p.md".into(),
            prd_sha1: "0".repeat(40),
            slug: "p-abcd".into(),
            executor: "anthropic".into(),
            policy: "0123456789abcdef0123".into(),
            toolchain: Vec::new(),
            ignore_rules: None,
            environment: None,
            started_at: "2026-01-01T00:00:00Z".into(),
            updated_at: "2026-01-01T00:05:00Z".into(),
            tasks,
            reasoner_calls: 0,
            challenger_calls: 0,
            review_chain: None,
        }
    }

    fn task(id: &str) -> TaskState {
        TaskState {
            id: id.into(),
            max_attempts: 3,
            ..TaskState::default()
        }
    }

    fn block(verdict: Verdict) -> Block {
        Block {
            hypothesis: "the test reads the wrong file\nmore detail".into(),
            guidance: "read b.txt".into(),
            verdict,
            confidence: Confidence::Medium,
            cited_steps: vec![],
            confidence_clamped: true,
        }
    }

    fn diagnosis(attempt: u32, outcome: &str, why: Option<&str>) -> DiagnosisRecord {
        DiagnosisRecord {
            attempt,
            outcome: outcome.into(),
            why: why.map(str::to_string),
            block: (outcome == "accepted").then(|| block(Verdict::SuggestHeal)),
            model: (outcome != "skipped").then(|| "anthropic/opus".to_string()),
            usage: (outcome == "accepted").then_some(Usage {
                input_tokens: 1200,
                output_tokens: 340,
                cached_input_tokens: 0,
            }),
            file: Some(".zurdo/p-abcd/reason/task-1-3.json".into()),
        }
    }

    fn filled() -> RunState {
        let mut t1 = task("task-1");
        t1.status = Status::Failed;
        t1.attempts = 3;
        t1.flaky = vec!["task-1::flaky one".into()];
        t1.iterations = vec![Iteration {
            attempt: 3,
            started_at: "s".into(),
            ended_at: "e".into(),
            model: "haiku".into(),
            provider: None,
            agent: Default::default(),
            criteria: vec![CriterionRecord {
                name: "task-1::file there".into(),
                line: 9,
                verdict: CriterionVerdict::Failed,
                hints: serde_json::Value::Null,
            }],
            frozen_violations: vec!["Cargo.lock".into()],
            frozen_folded: vec![],
            verified_tree: None,
            clean_room_mismatch: vec![],
            toolchain_changed: false,
            standing_failures: vec!["standing rule broken: [shell: true] — exit 1".into()],
            agent_leftovers: vec![],
            caught: vec![crate::evidence::Caught::new(
                crate::evidence::CaughtKind::VerdictSurfaceChanged,
                "pytest.ini",
                "addopts gained -k 'not slow'",
                "restore pytest.ini",
            )],
            challenge: None,
            fingerprint: Some("fp12".into()),
            failure: vec![],
            failure_surface: None,
            passed: false,
        }];
        t1.stalls = vec![Stall {
            attempt: 3,
            fingerprint: "fp12".into(),
            repeats: 2,
            criteria: vec!["task-1::file there".into()],
            surface: Default::default(),
        }];
        t1.diagnoses = vec![
            diagnosis(2, "discarded", Some("reply not JSON")),
            diagnosis(3, "accepted", None),
        ];
        t1.halted = Some(Halt {
            attempt: 3,
            hypothesis: "the file cannot be made".into(),
            confidence: Confidence::High,
        });
        t1.heal_routings = vec![HealRouting {
            attempt: 3,
            criteria: vec!["task-1::file there".into()],
            hypothesis: "the hint names the wrong path".into(),
        }];
        let mut t2 = task("task-2");
        t2.status = Status::Passed;
        t2.attempts = 2;
        t2.witness = Some(Witness {
            witnessed: vec!["a.txt".into()],
            unwitnessed: vec!["notes.md".into()],
        });
        t2.lessons_extracted = vec![Extracted {
            id: "1a2b3c4d".into(),
            written: true,
            evicted: vec!["deadbeef".into()],
        }];
        t2.lessons_injected = vec![Injected {
            attempt: 2,
            id: "cafebabe".into(),
            mode: "reactive".into(),
            score: 3,
            from_task: "task-9".into(),
            from_prd: "prds/old.md".into(),
        }];
        let mut t3 = task("task-3");
        t3.status = Status::BlockedByDependency;
        t3.blocked_by = Some("task-1".into());
        state(vec![t1, t2, t3])
    }

    #[test]
    fn tasks_are_grouped_by_category_when_any_names_one() {
        let with = |id: &str, category: Option<&str>, status: Status| TaskState {
            category: category.map(str::to_string),
            status,
            ..task(id)
        };
        let md = markdown(
            &state(vec![
                with("task-a", None, Status::Passed),
                with("task-b", Some("Backend"), Status::Passed),
                with("task-c", Some("Frontend"), Status::Failed),
                with("task-d", Some("Backend"), Status::Failed),
            ]),
            &[],
            &Chain::default(),
            "now",
        );
        let at = |needle: &str| md.find(needle).unwrap_or_else(|| panic!("{needle}:\n{md}"));
        let backend = at("### Backend (1 passed, 1 failed)");
        let frontend = at("### Frontend (1 failed)");
        let none = at("### Uncategorized (1 passed)");
        assert!(
            backend < at("`task-b`") && at("`task-d`") < frontend,
            "{md}"
        );
        assert!(frontend < at("`task-c`") && at("`task-c`") < none, "{md}");
        assert!(none < at("`task-a`"), "{md}");
        // No category anywhere: one list, no headings.
        let flat = markdown(
            &state(vec![task("task-1"), task("task-2")]),
            &[],
            &Chain::default(),
            "now",
        );
        assert!(!flat.contains("###"), "{flat}");
        assert!(flat.contains("## Tasks\n\n- `task-1`"), "{flat}");
    }

    #[test]
    fn empty_sections_are_omitted() {
        let md = markdown(
            &state(vec![task("task-1")]),
            &[],
            &Chain::default(),
            "2026-01-01T00:06:00Z",
        );
        assert!(md.starts_with("# zurdo run report: prds/p.md\n"), "{md}");
        assert!(md.contains("- written: 2026-01-01T00:06:00Z"), "{md}");
        assert!(md.contains("- policy: `0123456789ab`\n"), "{md}");
        assert!(md.contains("## Summary\n\n```\ntask"), "{md}");
        assert!(
            md.contains("## Tasks\n\n- `task-1`: pending, attempts 0/3\n"),
            "{md}"
        );
        for s in SECTIONS {
            assert!(!md.contains(s), "{s} should be absent:\n{md}");
        }
    }

    #[test]
    fn filled_sections_are_present_in_order() {
        let md = markdown(&filled(), &[], &Chain::default(), "now");
        let positions: Vec<usize> = SECTIONS
            .iter()
            .map(|s| {
                md.find(&format!("{s}\n"))
                    .unwrap_or_else(|| panic!("{s}:\n{md}"))
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{md}");
        assert!(md.find("## Tasks").unwrap() < positions[0]);
    }

    #[test]
    fn task_entries() {
        let md = markdown(&filled(), &[], &Chain::default(), "now");
        for want in [
            "- `task-1`: failed, attempts 3/3\n",
            "  - flaky: `task-1::flaky one`\n",
            "  - frozen path violations at attempt 3: `Cargo.lock`\n",
            "  - caught at attempt 3: verdict_surface_changed `pytest.ini` (addopts gained -k 'not slow')\n",
            "  - failing at attempt 3: `task-1::file there`\n",
            "  - standing failures at attempt 3: standing rule broken: [shell: true] — exit 1\n",
            "- `task-2`: passed, attempts 2/3\n",
            "  - changed files no criterion reads: `notes.md`\n",
            "  - blocked by `task-1`\n",
        ] {
            assert!(md.contains(want), "{want:?} missing:\n{md}");
        }
    }

    #[test]
    fn diagnoses_section() {
        let md = markdown(&filled(), &[], &Chain::default(), "now");
        for want in [
            "- `task-1` attempt 3: suggest_heal, confidence medium (clamped: it cited no step), by `anthropic/opus`, tokens 1200 in / 340 out\n",
            "  - hypothesis: the test reads the wrong file\n",
            "  - block: `.zurdo/p-abcd/reason/task-1-3.json`\n",
            "1 diagnosis call discarded: `task-1` attempt 2 (reply not JSON)\n",
        ] {
            assert!(md.contains(want), "{want:?} missing:\n{md}");
        }
        assert!(!md.contains("more detail"), "{md}");
    }

    #[test]
    fn diagnoses_without_an_accepted_one_still_get_the_section() {
        let mut t = task("task-1");
        t.diagnoses = vec![
            diagnosis(2, "skipped", Some("reasoner call budget spent")),
            diagnosis(3, "discarded", Some("timed out")),
            diagnosis(4, "discarded", None),
        ];
        let md = markdown(&state(vec![t]), &[], &Chain::default(), "now");
        assert!(md.contains("## Diagnoses\n\n1 diagnosis skipped (no call): `task-1` attempt 2 (reasoner call budget spent)\n\n2 diagnosis calls discarded: `task-1` attempt 3 (timed out); `task-1` attempt 4\n"), "{md}");
        assert!(!md.contains("hypothesis:"), "{md}");
        for s in &SECTIONS[1..] {
            assert!(!md.contains(s), "{s}:\n{md}");
        }
    }

    #[test]
    fn reasoning_sections() {
        let md = markdown(&filled(), &[], &Chain::default(), "now");
        for want in [
            "## Fingerprint Stalls\n\n- `task-1` attempt 3: the same failure 2 attempts in a row, fingerprint `fp12`; criteria: `task-1::file there`\n",
            "## Halt Attributions\n\n- `task-1` after attempt 3: halted by a halt_task diagnosis (confidence high): the file cannot be made\n",
            "## Heal Routings\n\n- `task-1` attempt 3: `task-1::file there` — the hint names the wrong path\n",
            "review them (and their hints) in prds/p.md",
            "## Lessons Extracted\n\n- `task-2`: `lessons/lesson-1a2b3c4d.md` (new); evicted `deadbeef`\n",
            "## Lessons Injected\n\n- `task-2` attempt 2: lesson `cafebabe` (reactive, score 3), learned from `task-9` in `prds/old.md`\n",
        ] {
            assert!(md.contains(want), "{want:?} missing:\n{md}");
        }
    }

    #[test]
    fn each_section_alone() {
        // Filling one kind of record brings exactly its section.
        type Fill = fn(&mut TaskState);
        let fills: [(usize, Fill); 6] = [
            (0, |t| t.diagnoses = vec![diagnosis(3, "accepted", None)]),
            (1, |t| {
                t.stalls = vec![Stall {
                    attempt: 2,
                    fingerprint: "f".into(),
                    repeats: 2,
                    criteria: vec![],
                    surface: Default::default(),
                }]
            }),
            (2, |t| {
                t.halted = Some(Halt {
                    attempt: 2,
                    hypothesis: "h".into(),
                    confidence: Confidence::Low,
                })
            }),
            (3, |t| {
                t.heal_routings = vec![HealRouting {
                    attempt: 2,
                    criteria: vec!["c".into()],
                    hypothesis: "h".into(),
                }]
            }),
            (4, |t| {
                t.lessons_extracted = vec![Extracted {
                    id: "abc".into(),
                    written: false,
                    evicted: vec![],
                }]
            }),
            (5, |t| {
                t.lessons_injected = vec![Injected {
                    attempt: 1,
                    id: "abc".into(),
                    mode: "prospective".into(),
                    score: 2,
                    from_task: "x".into(),
                    from_prd: "p.md".into(),
                }]
            }),
        ];
        for (index, fill) in fills {
            let mut t = task("task-1");
            fill(&mut t);
            let md = markdown(&state(vec![t]), &[], &Chain::default(), "now");
            for (i, s) in SECTIONS.iter().enumerate() {
                assert_eq!(md.contains(s), i == index, "{s}:\n{md}");
            }
        }
    }

    #[test]
    fn write_picks_unused_names() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = StateDir::new(tmp.path(), "prds/p.md");
        let s = filled();
        let first = write(&dir, &s).expect("written");
        let second = write(&dir, &s).expect("written");
        let (md1, json1) = (first.markdown_path, first.json_path);
        let (md2, json2) = (second.markdown_path, second.json_path);
        assert_ne!(md1, md2);
        assert_eq!(md1.file_stem(), json1.file_stem());
        assert_eq!(md2.file_stem(), json2.file_stem());
        assert!(!md1.file_name().unwrap().to_string_lossy().contains(':'));
        let text = std::fs::read_to_string(&md1).expect("md");
        assert!(text.contains("## Lessons Injected"), "{text}");
        let back: RunState =
            serde_json::from_slice(&std::fs::read(&json2).expect("json")).expect("state");
        assert_eq!(back, s);
    }

    fn iteration(attempt: u32, error: Option<&str>) -> Iteration {
        let mut it = filled().tasks[0].iterations[0].clone();
        it.attempt = attempt;
        it.agent.error = error.map(str::to_string);
        it.frozen_violations.clear();
        it.caught.clear();
        it.standing_failures.clear();
        it
    }

    #[test]
    fn each_agent_error_is_quoted_with_its_attempts() {
        let mut t = task("task-1");
        t.status = Status::Failed;
        t.attempts = 3;
        t.iterations = vec![
            iteration(1, Some("Not logged in · Please run /login")),
            iteration(2, None),
            iteration(3, Some("Not logged in ·\n  Please run /login")),
        ];
        let mut t2 = task("task-2");
        t2.iterations = vec![iteration(1, Some(&"x".repeat(1000)))];
        let md = markdown(&state(vec![t, t2]), &[], &Chain::default(), "now");
        assert!(
            md.contains("- `task-1`: failed, attempts 3/3\n  - agent error at attempts 1, 3: Not logged in · Please run /login\n"),
            "{md}"
        );
        let cut = format!("{}…", "x".repeat(AGENT_ERROR_CHARS - 1));
        assert!(
            md.contains(&format!(
                "- `task-2`: pending, attempts 0/3\n  - agent error at attempt 1: {cut}\n"
            )),
            "bounded: {md}"
        );
        assert!(!md.contains("- stopped:"), "{md}");
    }

    fn context() -> Event {
        Event::VerifierContext {
            toolchain: vec![],
            policy: "p".into(),
            shell: "/bin/sh".into(),
        }
    }

    fn run_started() -> Event {
        Event::RunStarted {
            prd: "prds/p.md".into(),
            executor: "anthropic".into(),
            display: "prds/p.md".into(),
            tasks: 1,
            state_dir: ".zurdo/p-abcd".into(),
            challenger: None,
        }
    }

    fn failed_probe(model: &str, error: &str) -> Event {
        Event::ModelProbe {
            model: model.into(),
            ok: false,
            warnings: vec![],
            error: Some(error.into()),
            duration_ms: 10,
            optional: false,
            provider: None,
        }
    }

    #[test]
    fn a_run_the_agent_could_not_work_in_says_why_it_stopped() {
        let s = state(vec![task("task-1")]);
        let not_started = Event::AgentNotStarted {
            task: "task-1".into(),
            attempt: 2,
            program: "claude".into(),
            error: "No such file or directory (os error 2)".into(),
        };
        let md = markdown(
            &s,
            &[context(), run_started(), not_started.clone()],
            &Chain::default(),
            "now",
        );
        assert!(
            md.contains("- stopped: the agent could not work: `task-1` attempt 2: its CLI `claude` could not start: No such file or directory (os error 2)\n"),
            "{md}"
        );
        // An attempt dropped because its CLI could not work, and not run
        // again: the run stopped on it.
        let dropped = Event::AttemptDropped {
            task: "task-1".into(),
            attempt: 1,
            cause: crate::event::DropCause::AgentUnavailable,
            failure: Some(crate::agent::failure::InfraFailure::new(
                crate::agent::failure::FailureKind::AuthFailed,
                crate::agent::Provider::Anthropic,
                "Not logged in · Please run /login",
            )),
        };
        let md = markdown(
            &s,
            &[context(), run_started(), dropped.clone()],
            &Chain::default(),
            "now",
        );
        assert!(
            md.contains("- stopped: the agent could not work: `task-1` attempt 1: `claude`: not logged in (the CLI said: Not logged in · Please run /login)\n"),
            "{md}"
        );
        let started = Event::AttemptStarted {
            task: "task-1".into(),
            attempt: 1,
            max: 3,
            model: "m".into(),
        };
        let md = markdown(
            &s,
            &[context(), run_started(), dropped, started],
            &Chain::default(),
            "now",
        );
        assert!(!md.contains("- stopped:"), "run again after a wait: {md}");
        let probe = failed_probe("haiku", "the CLI says: Not logged in · Please run /login");
        let md = markdown(&s, &[context(), probe.clone()], &Chain::default(), "now");
        assert!(
            md.contains("- stopped: the model probe failed, before any task: `haiku`: the CLI says: Not logged in · Please run /login\n"),
            "{md}"
        );
        assert!(md.find("- stopped:") < md.find("## Summary"), "{md}");
        // A later run that got going (a resume) leaves the old stop behind.
        for events in [
            vec![
                context(),
                run_started(),
                not_started,
                context(),
                run_started(),
            ],
            vec![context(), probe, context(), run_started()],
            vec![context(), run_started()],
        ] {
            let md = markdown(&s, &events, &Chain::default(), "now");
            assert!(!md.contains("- stopped:"), "{md}");
        }
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(code("plain\nsecond"), "`plain`");
    }
}
