//! The iteration record: what prd.json keeps of one attempt (zurdo's
//! verdicts, the agent's account, the failure fingerprint) and the "what
//! failed" section the next attempt's prompt opens with. Built from values;
//! nothing here runs or writes anything.

use zurdo::verify::CriterionResult;
use zurdo::{naming, Task};

use super::verify::Verification;
use crate::prompt;
use crate::reason::fingerprint::{Extra, Failure};
use crate::state::run_state::{AgentRecord, CriterionRecord, Iteration};

/// Which attempt a record is of.
pub(super) struct Header {
    /// The attempt, 1-based.
    pub attempt: u32,
    /// The model it used.
    pub model: String,
    /// When it started.
    pub started_at: String,
    /// What the agent left running (killed before verifying).
    pub leftovers: Vec<String>,
}

/// One attempt's record, and the retry context of a failed one.
pub(super) struct Recorded {
    /// What prd.json keeps.
    pub iteration: Iteration,
    /// The section the next prompt opens with (none after a pass).
    pub retry_context: Option<String>,
}

/// The record of the attempt `header` of `task` in the PRD `prd` (its
/// repository-relative path, as the retry prompt names it), whose agent
/// gave the account `agent` and the final text `narrative`.
pub(super) fn build(
    prd: &str,
    task: &Task,
    header: Header,
    v: &Verification,
    agent: AgentRecord,
    narrative: Option<&str>,
) -> Recorded {
    let passed = v.passed();
    let standing_failures = v.standing_failures();
    let mismatches = v.clean_room.mismatches();
    let retry_context = (!passed).then(|| {
        let mut context = prompt::caught_section(&v.caught);
        context.push_str(&prompt::leftovers_section(&header.leftovers));
        context.push_str(&prompt::frozen_section(&v.frozen_violations));
        context.push_str(&prompt::clean_room_section(mismatches));
        context.push_str(&prompt::standing_section(&v.broken));
        if !v.criteria_passed() {
            let failures: Vec<_> = task.criteria.iter().zip(&v.results).collect();
            context.push_str(&prompt::what_failed(
                prd,
                header.attempt,
                &failures,
                narrative,
            ));
        } else {
            context.push_str(&prompt::narrative_section(narrative));
        }
        context
    });
    let failure = (!passed).then(|| {
        Failure::of(
            task,
            &v.results,
            Extra {
                standing: &standing_failures,
                frozen: &v.frozen_violations,
                clean_room: mismatches,
                caught: &v.caught,
            },
        )
    });
    let iteration = Iteration {
        fingerprint: failure.as_ref().map(Failure::fingerprint),
        failure: failure
            .as_ref()
            .map(|f| f.lines.clone())
            .unwrap_or_default(),
        failure_surface: failure.map(|f| f.surface),
        attempt: header.attempt,
        started_at: header.started_at,
        ended_at: zurdo_base::time::now(),
        model: header.model,
        agent,
        criteria: criteria(
            &naming::task_module(task),
            &naming::criterion_fns(task),
            task,
            &v.results,
        ),
        standing_failures,
        caught: v.caught.clone(),
        challenge: v.challenge.clone(),
        agent_leftovers: header.leftovers,
        frozen_violations: v.frozen_violations.clone(),
        frozen_folded: v.folded.clone(),
        clean_room_mismatch: mismatches.to_vec(),
        toolchain_changed: !v.toolchain_changes.is_empty(),
        verified_tree: v.verified_tree.clone(),
        passed,
    };
    Recorded {
        iteration,
        retry_context,
    }
}

/// Each criterion's verdict as prd.json records it, named
/// `<module>::<criterion>` as the cargo-test harness names it.
pub(super) fn criteria(
    module: &str,
    names: &[String],
    task: &Task,
    results: &[CriterionResult],
) -> Vec<CriterionRecord> {
    task.criteria
        .iter()
        .zip(results)
        .zip(names)
        .map(|((c, r), name)| CriterionRecord {
            name: format!("{module}::{name}"),
            line: c.line,
            verdict: r.verdict,
            hints: serde_json::to_value(&r.hints).unwrap_or(serde_json::Value::Null),
        })
        .collect()
}
