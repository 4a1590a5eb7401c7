//! The report's `## Escalations` (each climb of the escalation ladder, from
//! prd.json) and `## Provider Failovers` (providers blocked for the rest of
//! a run and the work that moved to another, from progress.log).

use std::fmt::Write;

use super::{code, section};
use crate::event::Event;
use crate::state::run_state::RunState;

/// `## Escalations`: every climb, in task order, with the rungs it passed
/// over.
pub fn climbs(out: &mut String, state: &RunState) {
    let mut body = String::new();
    for t in &state.tasks {
        let Some(standing) = &t.escalation else {
            continue;
        };
        for c in &standing.climbs {
            let _ = write!(
                body,
                "- {} after attempt {}: {} → {} ({})",
                code(&t.id),
                c.attempt,
                c.from,
                c.to,
                c.why
            );
            if let (Some(p), Some(m)) = (c.provider, &c.model) {
                let _ = write!(body, "; next attempt on {} {}", p.name(), code(m));
            }
            body.push('\n');
            for s in &c.skipped {
                let _ = writeln!(body, "  - skipped {}: {}", code(&s.rung), s.why);
            }
        }
    }
    section(out, "Escalations", &body);
}

/// `## Provider Failovers`: each provider blocked and each role's move
/// down its fallback chain, in the order they happened.
pub fn failovers(out: &mut String, events: &[Event]) {
    let mut body = String::new();
    for e in events {
        match e {
            Event::ProviderBlocked {
                failure, during, ..
            } => {
                let _ = writeln!(
                    body,
                    "- {} blocked for the rest of its run ({}): {}{}",
                    failure.provider.name(),
                    if during == "probe" {
                        "at the model probe".to_string()
                    } else {
                        format!("met by the {during}")
                    },
                    failure.kind.name(),
                    failure.quoted()
                );
            }
            Event::FailedOver {
                role,
                task,
                attempt,
                from,
                to,
                model,
                ..
            } => {
                let _ = write!(
                    body,
                    "- the {role} moved from {from} to {to} ({})",
                    code(model)
                );
                if let Some(task) = task {
                    let _ = write!(body, " for {}", code(task));
                }
                if let Some(n) = attempt {
                    let _ = write!(body, ", attempt {n} run again, not counted");
                }
                body.push('\n');
            }
            _ => {}
        }
    }
    section(out, "Provider Failovers", &body);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::failure::{FailureKind, InfraFailure};
    use crate::agent::Provider;
    use crate::escalation::{Climb, Skipped, Standing};
    use crate::state::run_state::TaskState;

    fn empty() -> RunState {
        RunState {
            version: 1,
            prd: "prds/p.md".into(),
            prd_sha1: "0".repeat(40),
            slug: "p-abcd".into(),
            executor: "anthropic".into(),
            policy: String::new(),
            toolchain: Vec::new(),
            ignore_rules: None,
            environment: None,
            started_at: String::new(),
            updated_at: String::new(),
            tasks: Vec::new(),
            reasoner_calls: 0,
            challenger_calls: 0,
            review_chain: None,
        }
    }

    #[test]
    fn climbs_and_failovers_read_in_order() {
        let mut state = empty();
        state.tasks.push(TaskState {
            id: "task-1".into(),
            escalation: Some(Standing {
                rung: Some(1),
                provider: Some(Provider::OpenAi),
                effort: None,
                climbs: vec![Climb {
                    attempt: 2,
                    from: "start".into(),
                    to: "provider:openai".into(),
                    why: "stalled: the same failure 2 attempts in a row".into(),
                    skipped: vec![Skipped {
                        rung: "provider:google".into(),
                        why: "`gemini` is not installed".into(),
                    }],
                    provider: Some(Provider::OpenAi),
                    model: Some("gpt-x".into()),
                }],
            }),
            ..TaskState::default()
        });
        let mut out = String::new();
        climbs(&mut out, &state);
        assert_eq!(
            out,
            "\n## Escalations\n\n- `task-1` after attempt 2: start → provider:openai (stalled: the same failure 2 attempts in a row); next attempt on openai `gpt-x`\n  - skipped `provider:google`: `gemini` is not installed\n"
        );
        let failure = InfraFailure::new(
            FailureKind::QuotaExhausted,
            Provider::Anthropic,
            "no credit",
        );
        let events = [
            Event::ProviderBlocked {
                provider: "anthropic".into(),
                failure,
                during: "executor".into(),
            },
            Event::FailedOver {
                role: "executor".into(),
                task: Some("task-1".into()),
                attempt: Some(1),
                from: "anthropic".into(),
                to: "openai".into(),
                model: "gpt-x".into(),
                why: "claude cannot work".into(),
            },
        ];
        let mut out = String::new();
        failovers(&mut out, &events);
        assert_eq!(
            out,
            "\n## Provider Failovers\n\n- anthropic blocked for the rest of its run (met by the executor): quota_exhausted (the CLI said: no credit)\n- the executor moved from anthropic to openai (`gpt-x`) for `task-1`, attempt 1 run again, not counted\n"
        );
        let mut out = String::new();
        climbs(&mut out, &empty());
        failovers(&mut out, &[]);
        assert!(out.is_empty());
    }
}
