//! How each [`Event`] reads live: zero or more lines, each with a
//! [`Style`] the reporter may colour. Events that only matter to the log
//! (the baseline's tree id, the agent's process group…) render nothing.

use zurdo_base::text::first_line;

use super::{DropCause, Event, Extraction, Settled};
use crate::state::lock::Stale;

/// How a line may be coloured on a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// As it is.
    Plain,
    /// A task's heading.
    Heading,
    /// A pass.
    Good,
    /// A failure or a violation.
    Bad,
    /// A warning or a note.
    Warn,
}

/// One line of live output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its style.
    pub style: Style,
    /// Its text, without a newline.
    pub text: String,
}

fn line(style: Style, text: String) -> Line {
    Line { style, text }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The live lines of `event`.
pub fn lines(event: &Event) -> Vec<Line> {
    use Style::{Bad, Good, Heading, Plain, Warn};
    let one = |style, text| vec![line(style, text)];
    match event {
        Event::LockTakenOver { holder } => one(
            Warn,
            Stale {
                holder: holder.clone(),
            }
            .to_string(),
        ),
        Event::StateArchived { prd } => one(
            Plain,
            format!("zurdo: archived the previous state of {prd}"),
        ),
        Event::Hint { text } => one(Plain, text.clone()),
        Event::StateDistrusted { path, why } => one(
            Warn,
            format!("warning: {path}: {why}; nothing it records is trusted: every task is verified again from the tree as it is"),
        ),
        Event::LeftoversKilled { count } => one(
            Warn,
            format!("zurdo: stopped {count} process(es) left over from the interrupted agent"),
        ),
        Event::AttemptDropped {
            task,
            attempt,
            cause: DropCause::Interrupted,
        } => one(
            Warn,
            format!("zurdo: attempt {attempt} of {task} was interrupted; it is dropped and not counted"),
        ),
        Event::AttemptDropped {
            cause: DropCause::AgentNotStarted,
            ..
        } => one(
            Warn,
            "    not counted: the agent never started, so this is not the task's failure".to_string(),
        ),
        Event::PolicyKept { policy } => one(
            Warn,
            format!(
                "warning: policy changed since run start; this run keeps the run-start policy ({})",
                &policy[..12.min(policy.len())]
            ),
        ),
        Event::PolicyRecordAltered { path } => one(
            Warn,
            format!("warning: {path} no longer matches the recorded policy (it was altered); restoring the run-start [verification] from policy.json"),
        ),
        Event::LessonSkipped { path, why } => {
            one(Warn, format!("warning: lesson {path} skipped: {why}"))
        }
        Event::LessonsLoaded { count } => {
            one(Plain, format!("zurdo: {count} lesson(s) in lessons/"))
        }
        Event::BaselineUnavailable { not_a_repo: true, .. } => one(
            Warn,
            "warning: not a git repository: baselines, rollback points, run-diff.patch, flaky and witness checks are off \
             (frozen paths are still enforced by hashing)"
                .to_string(),
        ),
        Event::BaselineUnavailable { error, .. } => one(
            Warn,
            format!(
                "warning: baseline capture failed ({}); the guards that need it are off",
                error.as_deref().unwrap_or("unknown error")
            ),
        ),
        Event::StandingPreflight { rules, broken: 0 } => {
            one(Plain, format!("zurdo: {rules} standing rule(s) hold"))
        }
        Event::ModelProbe { warnings, .. } => warnings
            .iter()
            .map(|w| line(Warn, format!("warning: {w}")))
            .collect(),
        Event::RunStarted {
            display,
            tasks,
            executor,
            state_dir,
            ..
        } => one(
            Plain,
            format!(
                "zurdo: running {display} ({tasks} task{}, executor {executor}); state in {state_dir}",
                plural(*tasks)
            ),
        ),
        Event::SkillMissing { skill, task, dirs } => one(
            Warn,
            format!(
                "warning: skill `{skill}` ({task}) is not in {} under the repository or your home; zurdo does not install PRD skills",
                dirs.join(" or ")
            ),
        ),
        Event::TaskStarted {
            task,
            title,
            position,
            count,
            saved,
        } => one(
            Heading,
            match saved {
                Some(status) => format!(
                    "[{position}/{count}] {task} — {title}: {} (from the saved state)",
                    status.name()
                ),
                None => format!("[{position}/{count}] {task} — {title}"),
            },
        ),
        Event::Preflight { passing, total, .. } => one(
            Plain,
            format!("  pre-flight: {passing}/{total} criteria already hold"),
        ),
        Event::TaskSettled { settled, .. } => settled.iter().flat_map(settled_lines).collect(),
        Event::AttemptStarted {
            attempt,
            max,
            model,
            ..
        } => one(Plain, format!("  attempt {attempt}/{max} ({model}) …")),
        Event::AgentFinished {
            exit_code,
            timed_out,
            duration_ms,
            tool_calls,
            error,
            ..
        } => one(
            Plain,
            format!(
                "    agent: {} in {:.1}s, {tool_calls} tool call{}{}",
                if *timed_out {
                    "timed out".to_string()
                } else {
                    format!("exit {}", exit_code.map_or("-".into(), |c| c.to_string()))
                },
                *duration_ms as f64 / 1000.0,
                plural(*tool_calls),
                error.as_ref().map_or(String::new(), |e| format!(
                    "; it reported: {}",
                    first_line(e)
                )),
            ),
        ),
        Event::AgentLeftovers { commands, .. } => {
            let mut out = vec![line(
                Warn,
                format!(
                    "    zurdo: killed {} process{} the agent left running (before verifying):",
                    commands.len(),
                    if commands.len() == 1 { "" } else { "es" }
                ),
            )];
            out.extend(
                commands
                    .iter()
                    .map(|c| line(Warn, format!("      {}", first_line(c)))),
            );
            out
        }
        Event::Reverified {
            task,
            when,
            failures,
        } => {
            let moment = if when == "resume" {
                "on resume"
            } else {
                "against the final tree"
            };
            if failures.is_empty() {
                // At run end a task that still holds is what the summary
                // shows; the log keeps the event.
                if when != "resume" {
                    return Vec::new();
                }
                return one(
                    Plain,
                    format!("zurdo: {task} still passes (re-verified {moment})"),
                );
            }
            let mut out = vec![line(
                Bad,
                format!("zurdo: {task} had passed and no longer does (re-verified {moment}):"),
            )];
            out.extend(failures.iter().map(|f| {
                line(
                    Bad,
                    format!("      FAIL {}: {} {}", f.criterion, f.hint, f.reason),
                )
            }));
            out
        }
        Event::CriteriaLeftovers { commands, .. } => one(
            Plain,
            format!(
                "    note: stopped {} process{} the criteria left running: {}",
                commands.len(),
                if commands.len() == 1 { "" } else { "es" },
                commands
                    .iter()
                    .map(|c| format!("`{}`", first_line(c)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        Event::AgentNotStarted { program, error, .. } => one(
            Bad,
            format!("    agent: could not start `{program}`: {error}"),
        ),
        Event::FrozenViolation { paths, .. } => paths
            .iter()
            .map(|p| line(Bad, format!("      FROZEN {p} was modified")))
            .collect(),
        Event::Caught { caught, .. } => caught
            .iter()
            .map(|c| {
                line(
                    Bad,
                    format!("      CAUGHT {}: {}: {}", c.reason, c.subject, c.detail),
                )
            })
            .collect(),
        Event::SurfaceStandDown { task, max, seen } => one(
            Warn,
            format!("warning: the verdict-surface walk stands down for {task}: the repository holds more than {max} entries ({seen} seen); only the surface files found at the task's start (and new ones beside them or at the root) are compared"),
        ),
        Event::FrozenStandDown { task, max, seen } => one(
            Warn,
            format!("warning: the frozen-path check stands down for {task}: its globs match more than {max} files ({seen} seen)"),
        ),
        Event::ToolchainChanged { changes } => changes
            .iter()
            .map(|c| line(Warn, format!("warning: toolchain changed: {c}")))
            .collect(),
        Event::EvidenceChanged { paths, .. } => one(
            Warn,
            format!(
                "warning: evidence changed during verification: {} (is a process the agent started still running?)",
                paths.join(", ")
            ),
        ),
        Event::Provenance {
            already_green,
            modified,
            ..
        } => {
            let mut out: Vec<Line> = already_green
                .iter()
                .map(|title| {
                    line(
                        Plain,
                        format!("      {title} — already passed at pre-flight; proves nothing about this run"),
                    )
                })
                .collect();
            if !modified.is_empty() {
                out.push(line(
                    Warn,
                    format!(
                        "      warning: evidence modified since pre-flight: {} (hints read these; often that is the task)",
                        modified.join(", ")
                    ),
                ));
            }
            out
        }
        Event::Verified {
            passing,
            total,
            failures,
            standing_broken,
            ..
        } => {
            let style = if failures.is_empty() { Plain } else { Bad };
            let mut out = vec![line(
                style,
                format!("    verify: {passing}/{total} criteria hold"),
            )];
            out.extend(failures.iter().map(|f| {
                line(
                    Bad,
                    format!("      FAIL {}: {} {}", f.criterion, f.hint, f.reason),
                )
            }));
            out.extend(standing_broken.iter().map(|r| {
                line(
                    Bad,
                    format!("      standing rule broken: {} — {}", r.hint, r.why),
                )
            }));
            out
        }
        Event::FrozenFolded { task, paths } => one(
            Warn,
            format!(
                "warning: the criteria of {task} wrote into frozen paths: {} (not charged to the next attempt)",
                paths.join(", ")
            ),
        ),
        Event::CleanRoomSkipped { .. } => one(
            Warn,
            "warning: the clean room needs a git baseline; skipped".to_string(),
        ),
        Event::CleanRoomMismatch { mismatches, .. } => mismatches
            .iter()
            .map(|m| line(Bad, format!("      {m}")))
            .collect(),
        Event::Flaky { criteria, .. } => one(
            Warn,
            format!(
                "    warning: flaky criteria (two verdicts on one tree): {}",
                criteria.join(", ")
            ),
        ),
        Event::Unwitnessed { paths, .. } => one(
            Warn,
            format!("    note: changed files no hint reads: {}", paths.join(", ")),
        ),
        Event::AttemptFinished {
            attempt,
            passed: true,
            ..
        } => one(Good, format!("  passed on attempt {attempt}")),
        Event::TaskStalled {
            repeats,
            fingerprint,
            ..
        } => one(
            Warn,
            format!("    stalled: the same failure {repeats} attempts in a row (fingerprint {fingerprint}): the agent is repeating itself, not converging"),
        ),
        Event::DiagnosisOutcome {
            outcome,
            why,
            verdict,
            confidence,
            confidence_clamped,
            hypothesis,
            ..
        } => match (outcome.as_str(), verdict) {
            ("accepted", Some(verdict)) => one(
                Plain,
                format!(
                    "    diagnosis: {verdict} ({} confidence{}): {}",
                    confidence.as_deref().unwrap_or(""),
                    if *confidence_clamped { ", clamped" } else { "" },
                    first_line(hypothesis.as_deref().unwrap_or(""))
                ),
            ),
            (outcome, _) => one(
                Plain,
                format!(
                    "    diagnosis {outcome}: {} (the loop goes on as without it)",
                    why.as_deref().unwrap_or("")
                ),
            ),
        },
        Event::HealRouted { criteria, .. } => one(
            Plain,
            format!(
                "    routed to heal at run end: {} (the loop continues)",
                criteria.join(", ")
            ),
        ),
        Event::LessonExtracted {
            outcome,
            lesson,
            why,
            ..
        } => match outcome {
            Extraction::Written | Extraction::Duplicate => one(
                Plain,
                format!(
                    "    lesson: lessons/lesson-{}.md ({}); commit it to keep it",
                    lesson.as_deref().unwrap_or(""),
                    if *outcome == Extraction::Written {
                        "new"
                    } else {
                        "already in the library"
                    }
                ),
            ),
            Extraction::Skipped => one(
                Plain,
                format!("    no lesson: {}", why.as_deref().unwrap_or("")),
            ),
            Extraction::None => Vec::new(),
        },
        Event::LessonsInjected { mode, lessons, .. } => one(
            Plain,
            format!(
                "    lessons ({mode}): {}",
                lessons
                    .iter()
                    .map(|id| format!("lesson-{id}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        Event::PrdHealed {
            task, line, new, ..
        } => one(
            Plain,
            format!("healed line {line} of {task}: {new}"),
        ),
        Event::UnprovenPasses { tasks } => one(
            Warn,
            format!(
                "warning: {} passed with zero attempts (green before the run, so this run proves nothing about them)",
                tasks.join(", ")
            ),
        ),
        Event::RunFinished {
            complete: false,
            display,
        } => one(
            Plain,
            format!("zurdo: stopped before the end; `zurdo run {display}` resumes"),
        ),
        Event::SignalsUnhandled { error } => one(
            Warn,
            format!("warning: cannot handle Ctrl-C gracefully: {error}"),
        ),
        Event::StopRequested => one(
            Warn,
            "\nzurdo: stopping after this iteration (Ctrl-C again to stop now)".to_string(),
        ),
        Event::StoppedNow { signal } => one(
            Warn,
            format!(
                "\nzurdo: stopping now{}: the running agent and criteria are killed; `zurdo run` again resumes (the interrupted attempt is not counted)",
                signal.as_ref().map_or(String::new(), |s| format!(" ({s})"))
            ),
        ),
        Event::CannotWrite { path, error } => {
            one(Warn, format!("warning: cannot write {path}: {error}"))
        }
        Event::RefFailed {
            name,
            delete,
            error,
        } => one(
            Warn,
            format!(
                "warning: cannot {} {name}: {error}",
                if *delete { "delete" } else { "record" }
            ),
        ),
        Event::Baseline { .. }
        | Event::VerifierContext { .. }
        | Event::StandingPreflight { .. }
        | Event::AgentStarted { .. }
        | Event::AttemptFinished { .. }
        | Event::RunFinished { .. } => Vec::new(),
    }
}

fn settled_lines(settled: &Settled) -> Vec<Line> {
    let (style, text) = match settled {
        Settled::Blocked { by } => (Style::Bad, format!("  blocked: `{by}` did not pass")),
        Settled::HaltedBeforeStop => (
            Style::Bad,
            "  failed: halted by a diagnosis (recorded before the last stop)".to_string(),
        ),
        Settled::PassedBeforeStop => (
            Style::Good,
            "  passed (attempt recorded before the last stop)".to_string(),
        ),
        Settled::PassedAtPreflight { manual_only: true } => (
            Style::Plain,
            "  every criterion is [manual]: awaits a human review; no agent runs".to_string(),
        ),
        Settled::PassedAtPreflight { manual_only: false } => (
            Style::Plain,
            "  passed at pre-flight: no agent needed (so this run proved nothing about it)"
                .to_string(),
        ),
        // "passed on attempt N" was said when the attempt finished.
        Settled::Passed { .. } => return Vec::new(),
        Settled::Halted => (
            Style::Bad,
            "  halted by diagnosis: further attempts would not help; the task fails".to_string(),
        ),
        Settled::RegressedAfterSettle => (
            Style::Bad,
            "  failed: regressed after it passed (regressed_after_settle)".to_string(),
        ),
        Settled::BudgetSpent { max } => (
            Style::Bad,
            format!("  failed: {max} attempt{} spent", plural(*max as usize)),
        ),
    };
    vec![line(style, text)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::run_state::Status;

    fn text(event: &Event) -> String {
        lines(event)
            .iter()
            .map(|l| l.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn lines_read_as_the_loop_always_printed_them() {
        let finished = Event::AgentFinished {
            task: "task-1".into(),
            attempt: 1,
            exit_code: Some(0),
            timed_out: false,
            duration_ms: 1250,
            tool_calls: 1,
            error: Some("Not logged in\nmore".into()),
        };
        assert_eq!(
            text(&finished),
            "    agent: exit 0 in 1.2s, 1 tool call; it reported: Not logged in"
        );
        let settled = Event::TaskSettled {
            task: "task-1".into(),
            status: Status::Failed,
            settled: Some(Settled::BudgetSpent { max: 1 }),
        };
        assert_eq!(text(&settled), "  failed: 1 attempt spent");
        let quiet = Event::TaskSettled {
            task: "task-1".into(),
            status: Status::Passed,
            settled: Some(Settled::Passed { attempt: 2 }),
        };
        assert!(lines(&quiet).is_empty(), "said when the attempt finished");
        assert!(lines(&Event::StandingPreflight {
            rules: 2,
            broken: 1
        })
        .is_empty());
        assert_eq!(
            text(&Event::StandingPreflight {
                rules: 2,
                broken: 0
            }),
            "zurdo: 2 standing rule(s) hold"
        );
    }
}
