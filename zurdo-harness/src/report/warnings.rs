//! `## Warnings`: what the run's event stream said that `prd.json` does not
//! keep, so a warning that scrolled past live is still in the report: an
//! interrupted attempt dropped uncounted, processes a resume had to kill,
//! evidence that changed while it was being verified, tools that moved,
//! the policy changing under a resumed run, a guard that stood down, a
//! record that could not be written.

use std::fmt::Write;

use crate::event::{DropCause, Event};

/// One line per warning among `events` (none: the section is left out).
pub fn lines(events: &[Event]) -> Vec<String> {
    events.iter().filter_map(line).collect()
}

fn line(event: &Event) -> Option<String> {
    Some(match event {
        Event::AttemptDropped {
            task,
            attempt,
            cause: DropCause::Interrupted,
            ..
        } => format!("`{task}` attempt {attempt} was interrupted: dropped, not counted"),
        Event::AttemptDropped {
            task,
            attempt,
            cause: DropCause::AgentNotStarted,
            ..
        } => format!(
            "`{task}` attempt {attempt}: the agent never started (not counted)"
        ),
        Event::AttemptDropped {
            task,
            attempt,
            cause: DropCause::AgentUnavailable,
            failure,
        } => match failure {
            Some(f) => format!(
                "`{task}` attempt {attempt}: dropped, not counted: {}: {} ({}: {})",
                f.cli(),
                f.kind.headline(),
                f.kind.name(),
                f.message
            ),
            None => format!("`{task}` attempt {attempt}: the agent's CLI could not work (not counted)"),
        },
        Event::RateLimitWait {
            task,
            attempt,
            cli,
            seconds,
            ..
        } => format!(
            "`{task}` attempt {attempt}: {cli} was rate limited; zurdo waited {seconds}s before running it again (not counted)"
        ),
        Event::FailedRetried { tasks, unblocked } => format!(
            "--retry-failed gave {} a fresh attempt budget{}",
            super::codes(tasks),
            if unblocked.is_empty() {
                String::new()
            } else {
                format!(" and unblocked {}", super::codes(unblocked))
            }
        ),
        Event::StateDistrusted { path, why } => format!(
            "{path} was distrusted on resume ({why}): every task was verified again"
        ),
        Event::LeftoversKilled { count } => format!(
            "a resume killed {count} process(es) left over from an interrupted agent"
        ),
        Event::AgentLeftovers {
            task,
            attempt,
            commands,
        } => format!(
            "`{task}` attempt {attempt}: the agent left {} process(es) running, killed before verifying: {}",
            commands.len(),
            commands
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Event::EvidenceChanged {
            task,
            attempt,
            paths,
        } => format!(
            "`{task}` attempt {attempt}: evidence changed during verification: {} (a process the agent started may have outlived it)",
            paths.join(", ")
        ),
        Event::ToolchainChanged { changes } => {
            format!("toolchain changed: {}", changes.join("; "))
        }
        Event::PolicyKept { policy } => format!(
            "the policy changed since run start; the run kept the run-start policy `{}`",
            &policy[..12.min(policy.len())]
        ),
        Event::PolicyRecordAltered { path } => format!(
            "{path} no longer matched the recorded policy (it was altered); the run-start [verification] was restored from policy.json or the run refused"
        ),
        Event::CoverageUnmeasured { task, why } => {
            format!("`{task}`: the coverage gate did not measure: {why}")
        }
        Event::FrozenStandDown { task, max, seen } => format!(
            "`{task}`: the frozen-path hashing stood down ({seen} files, over {max})"
        ),
        Event::SurfaceStandDown { task, max, seen } => format!(
            "`{task}`: the verdict-surface walk stood down ({seen} entries, over {max})"
        ),
        Event::CleanRoomSkipped { task } => {
            format!("`{task}`: the clean room was skipped (no git baseline)")
        }
        Event::BaselineUnavailable { .. } => {
            "no run baseline: rollback points, run-diff.patch, flaky and witness checks were off"
                .to_string()
        }
        Event::IndexDistrusted { path, why } => {
            format!("{path} was not believed ({why}): the retrieval index was rebuilt from the files")
        }
        Event::CannotWrite { path, error } => format!("could not write {path}: {error}"),
        Event::RefFailed {
            name,
            delete,
            error,
        } => format!(
            "could not {} {name}: {error}",
            if *delete { "delete" } else { "record" }
        ),
        Event::StopRequested => "a stop was requested (Ctrl-C)".to_string(),
        Event::StoppedNow { signal } => format!(
            "the run was stopped now{}: the attempt under way was dropped, not counted",
            signal.as_ref().map_or(String::new(), |s| format!(" ({s})"))
        ),
        _ => return None,
    })
}

/// Appends the section to `out` when there is anything to say.
pub fn section(out: &mut String, events: &[Event]) {
    let lines = lines(events);
    if lines.is_empty() {
        return;
    }
    out.push_str("\n## Warnings\n\n");
    for l in lines {
        let _ = writeln!(out, "- {l}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_prd_json_does_not_keep() {
        let events = [
            Event::StopRequested,
            Event::Preflight {
                task: "task-1".into(),
                passing: 0,
                total: 1,
            },
            Event::AttemptDropped {
                task: "task-1".into(),
                attempt: 2,
                cause: DropCause::Interrupted,
                failure: None,
            },
        ];
        let mut out = String::new();
        section(&mut out, &events);
        assert_eq!(
            out,
            "\n## Warnings\n\n- a stop was requested (Ctrl-C)\n- `task-1` attempt 2 was interrupted: dropped, not counted\n"
        );
        let mut none = String::new();
        section(&mut none, &events[1..2]);
        assert!(none.is_empty());
    }
}
