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
            ..
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
        Event::AttemptDropped {
            cause: DropCause::AgentUnavailable,
            failure,
            ..
        } => one(
            Warn,
            match failure {
                Some(f) => format!(
                    "    not counted: {}: {}{}{}{}",
                    f.cli(),
                    f.kind.headline(),
                    f.quoted(),
                    if f.stopped {
                        "; stopped as soon as it said so"
                    } else {
                        ""
                    },
                    match f.tool_calls {
                        0 => String::new(),
                        n => format!(
                            "; the work of its {n} tool call{} stays in the tree, unverified",
                            plural(n)
                        ),
                    },
                ),
                None => "    not counted: the agent's CLI could not work, so this is not the task's failure".to_string(),
            },
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
        Event::ProbeStarted { model, provider } => {
            one(Plain, format!("zurdo: probing `{model}` ({provider}) …"))
        }
        Event::ModelProbe {
            model,
            ok: false,
            warnings,
            duration_ms,
            optional: true,
            provider,
            error,
        } => {
            let secs = *duration_ms as f64 / 1000.0;
            let mut lines = vec![line(
                Warn,
                format!(
                    "zurdo: `{model}` ({}) failed its probe ({secs:.1}s): {}; the run goes on without it",
                    provider.as_deref().unwrap_or("?"),
                    error.as_deref().unwrap_or("no answer")
                ),
            )];
            lines.extend(warnings.iter().map(|w| line(Warn, format!("warning: {w}"))));
            lines
        }
        Event::ModelProbe {
            model,
            ok,
            warnings,
            duration_ms,
            ..
        } => {
            let secs = *duration_ms as f64 / 1000.0;
            let mut lines = vec![if *ok {
                line(Good, format!("zurdo: `{model}` answered ({secs:.1}s)"))
            } else {
                line(Bad, format!("zurdo: `{model}` failed its probe ({secs:.1}s)"))
            }];
            lines.extend(warnings.iter().map(|w| line(Warn, format!("warning: {w}"))));
            lines
        }
        Event::RunStarted {
            display,
            tasks,
            executor,
            state_dir,
            challenger,
            ..
        } => one(
            Plain,
            format!(
                "zurdo: running {display} ({tasks} task{}, executor {executor}{}); state in {state_dir}",
                plural(*tasks),
                challenger
                    .as_ref()
                    .map(|c| format!(", challenger {c}"))
                    .unwrap_or_default()
            ),
        ),
        Event::SkillMissing { skill, task, dirs } => one(
            Warn,
            format!(
                "warning: skill `{skill}` ({task}) is not in {} under the repository or your home; zurdo does not install PRD skills",
                dirs.join(" or ")
            ),
        ),
        Event::BudgetCountsTokens {
            cli, token_limits, ..
        } => one(
            Warn,
            if token_limits.is_empty() {
                format!("warning: {cli} reports no cost: the cost budget cannot bound its attempts, and no token limit is set ([budget] max_tokens, max_task_tokens)")
            } else {
                format!(
                    "zurdo: {cli} reports no cost: its attempts count tokens instead, against {}",
                    token_limits.join(" and ")
                )
            },
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
            stopped,
            ..
        } => one(
            Plain,
            format!(
                "    agent: {} in {:.1}s, {tool_calls} tool call{}{}",
                if *timed_out {
                    "timed out".to_string()
                } else if *stopped {
                    "stopped by zurdo".to_string()
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
        Event::SealedChecked { passing, total, .. } => one(
            if passing == total { Plain } else { Bad },
            format!("  sealed: {passing}/{total} sealed criteria hold"),
        ),
        Event::Challenged {
            model,
            confirmed,
            unconfirmed,
            dropped,
            skipped,
            ..
        } => match skipped {
            Some(why) => one(Warn, format!("  challenger ({model}) gave no verdict: {why}")),
            None => one(
                if *confirmed > 0 { Bad } else { Plain },
                format!(
                    "  challenger ({model}): {confirmed} confirmed by a probe, {unconfirmed} unconfirmed{}",
                    if *dropped > 0 {
                        format!(", {dropped} dropped (citing no line the diff changed, or malformed)")
                    } else {
                        String::new()
                    }
                ),
            ),
        },
        Event::CoverageUnmeasured { task, why } => one(
            Warn,
            format!("warning: the coverage gate did not measure {task}: {why}"),
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
            complete,
            display,
            failed,
            refused,
        } => {
            let mut out = Vec::new();
            if !complete {
                out.push(line(
                    Plain,
                    format!("zurdo: stopped before the end; `zurdo run {display}` resumes"),
                ));
            }
            if !failed.is_empty() {
                out.push(line(
                    Plain,
                    format!(
                        "zurdo: {} failed; once the cause is gone (a login, a quota, a fixed criterion), `zurdo run --retry-failed {display}` gives {} a fresh attempt budget",
                        failed.join(", "),
                        if failed.len() == 1 { "it" } else { "them" }
                    ),
                ));
            }
            if !refused.is_empty() {
                out.push(line(
                    Plain,
                    format!(
                        "zurdo: the budget refused {}: the run-start [budget] (and **Max-Cost**) stay in force and the spend is kept across `--retry-failed`, so only `zurdo run --reset {display}` starts the spend over (under the config and PRD as they are then)",
                        refused.join(", ")
                    ),
                ));
            }
            out
        }
        Event::AgentProgress {
            elapsed_s,
            tool_calls,
            last,
            ..
        } => one(
            Plain,
            format!(
                "    still working: {} elapsed, {tool_calls} tool call{}{}",
                clock(*elapsed_s),
                plural(*tool_calls),
                last.as_ref()
                    .map_or(String::new(), |l| format!("; last: {}", first_line(l)))
            ),
        ),
        Event::RateLimitWait {
            attempt,
            cli,
            seconds,
            until,
            known,
            round,
            rounds,
            ..
        } => one(
            Warn,
            format!(
                "    {cli} is rate limited{}: waiting {} (until {until}), then attempt {attempt} again, not counted (wait {round} of at most {rounds}; Ctrl-C stops)",
                if *known { "" } else { " and did not say until when" },
                clock(*seconds)
            ),
        ),
        Event::ProviderBlocked {
            failure, during, ..
        } => one(
            Warn,
            format!(
                "zurdo: {}: {}{}; blocked for the rest of this run (found {}); its roles fail over",
                failure.cli(),
                failure.kind.headline(),
                failure.quoted(),
                if during == "probe" {
                    "at the model probe".to_string()
                } else {
                    format!("by the {during}")
                }
            ),
        ),
        Event::FailedOver {
            role,
            attempt,
            from,
            to,
            model,
            why,
            ..
        } => one(
            Warn,
            format!(
                "    failing over: the {role} moves from {from} to {to} (`{model}`){}; {why}",
                match attempt {
                    Some(n) => format!(", attempt {n} again, not counted"),
                    None => String::new(),
                }
            ),
        ),
        Event::Escalated {
            from,
            to,
            why,
            provider,
            model,
            ..
        } => one(
            Warn,
            format!(
                "    escalated: {from} → {to} ({why}){}",
                match (provider, model) {
                    (Some(p), Some(m)) => format!("; next attempt: {p} `{m}`"),
                    _ => String::new(),
                }
            ),
        ),
        Event::EscalationSkipped { rung, why, .. } => one(
            Warn,
            format!("    escalation: skipped {rung}: {why}"),
        ),
        Event::StillWaiting { seconds_left, .. } => one(
            Plain,
            format!("    still waiting: {} left", clock(*seconds_left)),
        ),
        Event::FailedRetried { tasks, unblocked } => one(
            Plain,
            format!(
                "zurdo: --retry-failed: {} back to pending with a fresh attempt budget (history kept){}",
                tasks.join(", "),
                if unblocked.is_empty() {
                    String::new()
                } else {
                    format!("; unblocked: {}", unblocked.join(", "))
                }
            ),
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
        Event::IndexDistrusted { path, why } => one(
            Warn,
            format!("warning: {path} was not believed ({why}); rebuilt from the files"),
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
        Event::Reviewed {
            task,
            criterion,
            decision: crate::state::review_log::Decision::Approved,
            line: at,
            status,
            awaiting,
            ..
        } => one(
            Good,
            if *awaiting == 0 {
                format!(
                    "zurdo: approved {criterion} (review-log.jsonl line {at}); {task} is {}",
                    status.name()
                )
            } else {
                format!(
                    "zurdo: approved {criterion} (review-log.jsonl line {at}); {task} still awaits review of {awaiting} [manual] criteri{}",
                    if *awaiting == 1 { "on" } else { "a" }
                )
            },
        ),
        Event::Reviewed {
            task,
            criterion,
            reason,
            line: at,
            ..
        } => one(
            Bad,
            format!(
                "zurdo: rejected {criterion} (review-log.jsonl line {at}): {}; {task} is pending again with one more attempt, and its next prompt carries the reason",
                first_line(reason.as_deref().unwrap_or(""))
            ),
        ),
        Event::ReviewChainBroken {
            path,
            line: at,
            what,
            broken,
        } => one(
            Warn,
            format!(
                "warning: {path} does not check at line {at}: {what}{}; an entry that does not check counts for nothing (`zurdo review --verify` names every one)",
                if *broken > 1 {
                    format!(" ({broken} lines do not check)")
                } else {
                    String::new()
                }
            ),
        ),
        Event::ReviewUnvouched {
            task,
            dropped,
            status,
        } => {
            let mut out = vec![line(
                Warn,
                format!(
                    "warning: {task}: {} approval{} not counted; it is {}",
                    dropped.len(),
                    if dropped.len() == 1 { " is" } else { "s are" },
                    status.name()
                ),
            )];
            out.extend(
                dropped
                    .iter()
                    .map(|d| line(Warn, format!("      {}: {}", d.criterion, d.why))),
            );
            out
        }
        Event::Baseline { .. }
        | Event::VerifierContext { .. }
        | Event::StandingPreflight { .. }
        | Event::AgentStarted { .. }
        | Event::AttemptFinished { .. } => Vec::new(),
    }
}

/// `seconds` as `m:ss` (or `h:mm:ss`).
pub fn clock(seconds: u64) -> String {
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
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
        Settled::Unproven => (
            Style::Warn,
            "  unproven: every criterion held before any agent ran, and [verification] require_red_first asks for one that was red: nothing in this run proves the task".to_string(),
        ),
        Settled::RegressedAfterSettle => (
            Style::Bad,
            "  failed: regressed after it passed (regressed_after_settle)".to_string(),
        ),
        Settled::EscalatedToHalt { .. } => (
            Style::Bad,
            "  failed: the escalation ladder reached `halt`".to_string(),
        ),
        Settled::BudgetSpent { max } => (
            Style::Bad,
            format!("  failed: {max} attempt{} spent", plural(*max as usize)),
        ),
        Settled::BudgetExhausted { refusal } => (
            Style::Bad,
            format!(
                "  failed: budget_exhausted: attempt {} refused, not started: {}",
                refusal.attempt,
                refusal.describe()
            ),
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
    fn an_agent_that_cannot_work_reads_as_its_cause_not_a_failure() {
        use crate::agent::failure::{FailureKind, InfraFailure};
        use crate::agent::Provider;
        let failure = InfraFailure {
            tool_calls: 3,
            stopped: true,
            ..InfraFailure::new(
                FailureKind::Network,
                Provider::OpenAi,
                "Reconnecting... waiting for network (Connection failed: error sending request)",
            )
        };
        let dropped = Event::AttemptDropped {
            task: "task-1".into(),
            attempt: 2,
            cause: DropCause::AgentUnavailable,
            failure: Some(failure),
        };
        assert_eq!(
            text(&dropped),
            "    not counted: codex: no network (the CLI said: Reconnecting... waiting for network (Connection failed: error sending request)); stopped as soon as it said so; the work of its 3 tool calls stays in the tree, unverified"
        );
        let json = serde_json::to_value(&dropped).expect("json");
        assert_eq!(json["cause"], "agent_unavailable");
        assert_eq!(json["failure"]["kind"], "network");
        let back: Event = serde_json::from_value(json).expect("reads back");
        assert_eq!(back, dropped);
        // An old log's line still reads (no failure field).
        let old: Event = serde_json::from_str(
            r#"{"event":"attempt_dropped","task":"t","attempt":1,"cause":"agent_not_started"}"#,
        )
        .expect("reads");
        assert!(matches!(old, Event::AttemptDropped { failure: None, .. }));

        let wait = Event::RateLimitWait {
            task: "task-1".into(),
            attempt: 2,
            cli: "claude".into(),
            seconds: 95,
            until: "2026-04-28T22:03:00Z".into(),
            known: true,
            round: 1,
            rounds: 3,
        };
        assert_eq!(
            text(&wait),
            "    claude is rate limited: waiting 1:35 (until 2026-04-28T22:03:00Z), then attempt 2 again, not counted (wait 1 of at most 3; Ctrl-C stops)"
        );
        assert_eq!(
            text(&Event::StillWaiting {
                task: "task-1".into(),
                seconds_left: 3700
            }),
            "    still waiting: 1:01:40 left"
        );
        assert_eq!(
            text(&Event::AgentProgress {
                task: "task-1".into(),
                attempt: 1,
                elapsed_s: 180,
                tool_calls: 7,
                last: Some("Bash cargo test".into()),
            }),
            "    still working: 3:00 elapsed, 7 tool calls; last: Bash cargo test"
        );
        assert_eq!(
            text(&Event::FailedRetried {
                tasks: vec!["task-a".into()],
                unblocked: vec!["task-b".into(), "task-c".into()],
            }),
            "zurdo: --retry-failed: task-a back to pending with a fresh attempt budget (history kept); unblocked: task-b, task-c"
        );
        assert_eq!(
            text(&Event::RunFinished {
                complete: true,
                display: "prds/x.md".into(),
                failed: Vec::new(),
                refused: Vec::new(),
            }),
            ""
        );
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
            stopped: false,
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
