//! Heal's candidates: the criteria the run state shows failing for a
//! reason that points at the hint rather than at the work, those the
//! reasoner routed to heal, and those a matching lesson says something
//! their hints ignore. Read only: nothing here writes.

use serde::Serialize;
use serde_json::Value;
use zurdo::verify::CriterionVerdict;
use zurdo::{naming, Criterion, Prd, Task};

use crate::edit;
use crate::reason::library::{Library, Usage};
use crate::reason::{fingerprint, unaddressed};
use crate::state::run_state::{CriterionRecord, RunState, TaskState};

/// Why a criterion is a candidate.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Why {
    /// `heal_routing`, `command_not_found`, `not_executable`,
    /// `spawn_failed`, `zero_tests`, `runner_silent`,
    /// `path_never_existed`, `http_never_answered`,
    /// `unaddressed_lesson`, or `by_hand` (a line named with `--line`).
    pub(super) kind: &'static str,
    /// In words.
    pub(super) detail: String,
    /// The attempt it comes from, when it comes from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) attempt: Option<u32>,
}

/// A lesson that matches a candidate's task prospectively.
#[derive(Debug, Clone, Serialize)]
pub(super) struct LessonView {
    pub(super) id: String,
    pub(super) score: usize,
    pub(super) rule: String,
    /// False when the task's criteria do not address it
    /// (`unaddressed-lesson`).
    pub(super) addressed: bool,
}

/// One criterion worth healing.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Candidate {
    pub(super) task: String,
    pub(super) line: usize,
    /// Its test name (`task_1::the_marker_exists`).
    pub(super) criterion: String,
    /// The criterion as written.
    pub(super) text: String,
    pub(super) why: Vec<Why>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) lessons: Vec<LessonView>,
    /// What its failing hints showed (output tails), for the analyzer.
    #[serde(skip)]
    pub(super) evidence: String,
}

pub(super) fn test_name(task: &Task, index: usize) -> String {
    let fns = naming::criterion_fns(task);
    format!(
        "{}::{}",
        naming::task_module(task),
        fns.get(index).cloned().unwrap_or_default()
    )
}

/// Every candidate of `prd`, in line order: criteria the state shows failing
/// for a hint-side reason or routed to heal, and criteria a matching lesson
/// says something their hints ignore.
pub(super) fn candidates(
    prd: &Prd,
    src: &str,
    state: Option<&RunState>,
    library: &Library,
    usage: &Usage,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    // `prd` is `src` parsed, so every criterion is found at its own line.
    let text_of = |task: &Task, index: usize| -> String {
        edit::locate(src, prd, task.criteria[index].line)
            .map(|a| a.text)
            .unwrap_or_default()
    };
    let mut add = |task: &Task, index: usize, why: Why, evidence: String| {
        let line = task.criteria[index].line;
        match out.iter_mut().find(|c| c.line == line) {
            Some(c) => {
                c.why.push(why);
                if !evidence.is_empty() && !c.evidence.contains(&evidence) {
                    c.evidence.push_str(&evidence);
                }
            }
            None => out.push(Candidate {
                task: task.id.clone(),
                line,
                criterion: test_name(task, index),
                text: text_of(task, index),
                why: vec![why],
                lessons: Vec::new(),
                evidence,
            }),
        }
    };
    if let Some(state) = state {
        for task in &prd.tasks {
            let Some(t) = state.task(&task.id) else {
                continue;
            };
            for index in 0..task.criteria.len() {
                let records = records(t, index, &task.criteria[index]);
                for (why, evidence) in hint_side(&records) {
                    add(task, index, why, evidence);
                }
            }
            let names = naming::criterion_fns(task);
            let module = naming::task_module(task);
            for routing in &t.heal_routings {
                for name in &routing.criteria {
                    let Some(index) = names.iter().position(|f| format!("{module}::{f}") == *name)
                    else {
                        continue;
                    };
                    let records = records(t, index, &task.criteria[index]);
                    let Some(&(_, latest)) = records
                        .last()
                        .filter(|(_, r)| r.verdict == CriterionVerdict::Failed)
                    else {
                        continue;
                    };
                    let evidence: String = latest
                        .hints
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|h| h["verdict"] == "fail")
                        .map(|h| evidence_of(h["hint"].as_str().unwrap_or(""), h))
                        .collect();
                    add(
                        task,
                        index,
                        Why {
                            kind: "heal_routing",
                            detail: format!(
                                "the reasoner routed it to heal at attempt {}: {}",
                                routing.attempt,
                                zurdo_base::text::first_nonblank_line(&routing.hypothesis)
                            ),
                            attempt: Some(routing.attempt),
                        },
                        evidence,
                    );
                }
            }
        }
    }
    let unaddressed = unaddressed::check(prd, library, usage);
    for u in &unaddressed {
        add(
            u.task,
            u.criterion,
            Why {
                kind: "unaddressed_lesson",
                detail: format!(
                    "lesson-{} matches the task (score {}) and the criteria don't address it: {}",
                    u.lesson.id,
                    u.score,
                    zurdo_base::text::first_nonblank_line(&u.lesson.body)
                ),
                attempt: None,
            },
            String::new(),
        );
    }
    for c in &mut out {
        let Some(task) = prd.task(&c.task) else {
            continue;
        };
        let surface = fingerprint::declared(task);
        c.lessons = library
            .matches(&surface, usage)
            .into_iter()
            .map(|(l, score)| LessonView {
                id: l.id.clone(),
                score,
                rule: zurdo_base::text::first_nonblank_line(&l.body).to_string(),
                addressed: !unaddressed
                    .iter()
                    .any(|u| u.task.id == task.id && u.lesson.id == l.id),
            })
            .collect();
    }
    out.sort_by_key(|c| c.line);
    out
}

/// A criterion's records, pre-flight first (attempt `None`), then each
/// attempt's. Only records of the criterion as it is now count: one of
/// another line or other hints (a criterion since healed) is left out.
fn records<'t>(
    t: &'t TaskState,
    index: usize,
    criterion: &Criterion,
) -> Vec<(Option<u32>, &'t CriterionRecord)> {
    let current = |r: &&CriterionRecord| {
        let hints = r.hints.as_array();
        r.line == criterion.line
            && hints.is_some_and(|h| {
                h.len() == criterion.hints.len()
                    && h.iter()
                        .zip(&criterion.hints)
                        .all(|(x, y)| x["hint"].as_str() == Some(y.source.as_str()))
            })
    };
    let mut out = Vec::new();
    if let Some(pre) = &t.preflight_results {
        if let Some(r) = pre.get(index).filter(current) {
            out.push((None, r));
        }
    }
    for it in &t.iterations {
        if let Some(r) = it.criteria.get(index).filter(current) {
            out.push((Some(it.attempt), r));
        }
    }
    out
}

/// The hint-side reasons in a criterion's records, with the evidence.
fn hint_side(records: &[(Option<u32>, &CriterionRecord)]) -> Vec<(Why, String)> {
    let Some(&(attempt, latest)) = records.last() else {
        return Vec::new();
    };
    if latest.verdict != CriterionVerdict::Failed {
        return Vec::new();
    }
    let attempts = records.iter().filter(|(a, _)| a.is_some()).count();
    let hints = latest.hints.as_array().cloned().unwrap_or_default();
    let when =
        |a: Option<u32>| a.map_or("at pre-flight".to_string(), |n| format!("at attempt {n}"));
    let mut out = Vec::new();
    for (h, hint) in hints.iter().enumerate() {
        if hint["verdict"] != "fail" {
            continue;
        }
        let source = hint["hint"].as_str().unwrap_or("");
        let reason = hint["reason"].as_str().unwrap_or("");
        // The same hint failed this way in every record (pre-flight and at
        // least one attempt).
        let always = |tags: &[&str]| {
            attempts > 0
                && records.iter().all(|(_, r)| {
                    r.hints
                        .get(h)
                        .and_then(|x| x["reason"].as_str())
                        .is_some_and(|t| tags.contains(&t))
                })
        };
        let found: Option<(&'static str, String)> = match reason {
            "exit_code" if hint["code"] == 127 => Some((
                "command_not_found",
                format!("`{source}`: sh could not find the command (exit 127) {}", when(attempt)),
            )),
            "exit_code" if hint["code"] == 126 => Some((
                "not_executable",
                format!("`{source}`: the command is not executable (exit 126) {}", when(attempt)),
            )),
            "spawn_failed" => Some((
                "spawn_failed",
                format!(
                    "`{source}` could not start {}: {}",
                    when(attempt),
                    hint["error"].as_str().unwrap_or("")
                ),
            )),
            "zero_tests" | "runner_silent" if attempt.is_some() => Some((
                if reason == "zero_tests" {
                    "zero_tests"
                } else {
                    "runner_silent"
                },
                format!(
                    "`{source}`: {} {}",
                    if reason == "zero_tests" {
                        "the test runner ran 0 tests (its filter selects none)"
                    } else {
                        "the test runner printed no report"
                    },
                    when(attempt)
                ),
            )),
            "missing" | "glob_matched_nothing" if always(&["missing", "glob_matched_nothing"]) => {
                Some((
                    "path_never_existed",
                    format!(
                        "`{source}`: its path was missing at pre-flight and after every attempt ({attempts})"
                    ),
                ))
            }
            "connection_refused" | "http_timeout" | "http_failed"
                if always(&["connection_refused", "http_timeout", "http_failed"]) =>
            {
                Some((
                    "http_never_answered",
                    format!(
                        "`{source}`: nothing answered at pre-flight or after any attempt ({attempts})"
                    ),
                ))
            }
            _ => None,
        };
        if let Some((kind, detail)) = found {
            out.push((
                Why {
                    kind,
                    detail,
                    attempt,
                },
                evidence_of(source, hint),
            ));
        }
    }
    out
}

/// The tails of a failing hint's output.
fn evidence_of(source: &str, hint: &Value) -> String {
    let tail = |stream: &str| {
        let text = hint["evidence"][stream]["text"].as_str().unwrap_or("");
        let lines: Vec<&str> = text.trim_end().lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    };
    let (out, err) = (tail("stdout"), tail("stderr"));
    let mut text = format!("{source}\n");
    if !out.is_empty() {
        text.push_str(&format!("stdout (tail):\n{out}\n"));
    }
    if !err.is_empty() {
        text.push_str(&format!("stderr (tail):\n{err}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(line: usize, hints: Value, failed: bool) -> CriterionRecord {
        CriterionRecord {
            name: "task_1::c".into(),
            line,
            verdict: if failed {
                CriterionVerdict::Failed
            } else {
                CriterionVerdict::Passed
            },
            hints,
        }
    }

    fn fail(hint: &str, reason: Value) -> Value {
        let mut h = json!({"hint": hint, "kind": "shell", "verdict": "fail",
            "evidence": {"stderr": {"text": "sh: 1: tesst: not found\n", "total_bytes": 24}}});
        if let (Some(h), Some(r)) = (h.as_object_mut(), reason.as_object()) {
            h.extend(r.clone());
        }
        h
    }

    fn kinds(records: &[(Option<u32>, &CriterionRecord)]) -> Vec<&'static str> {
        hint_side(records)
            .into_iter()
            .map(|(w, _)| w.kind)
            .collect()
    }

    #[test]
    fn hint_side_reasons_are_read_from_the_latest_record() {
        let h = "[shell: tesst -f x]";
        let missing = record(
            5,
            json!([fail(h, json!({"reason": "exit_code", "code": 127}))]),
            true,
        );
        let found = hint_side(&[(Some(1), &missing)]);
        assert_eq!(found[0].0.kind, "command_not_found");
        assert!(found[0].1.contains("tesst: not found"), "{}", found[0].1);
        let other = record(
            5,
            json!([fail(h, json!({"reason": "exit_code", "code": 1}))]),
            true,
        );
        assert!(
            kinds(&[(Some(1), &other)]).is_empty(),
            "exit 1 is the work's"
        );
        // The latest record decides: a criterion that passes since is none.
        let passed = record(5, json!([{"hint": h, "verdict": "pass"}]), false);
        assert!(kinds(&[(Some(1), &missing), (Some(2), &passed)]).is_empty());
    }

    #[test]
    fn zero_tests_counts_after_an_attempt_not_at_pre_flight() {
        let h = "[shell: cargo test store::]";
        let zero = record(
            5,
            json!([fail(
                h,
                json!({"reason": "zero_tests", "runner": "cargo test"})
            )]),
            true,
        );
        assert!(
            kinds(&[(None, &zero)]).is_empty(),
            "no test yet before the work"
        );
        assert_eq!(kinds(&[(None, &zero), (Some(1), &zero)]), ["zero_tests"]);
    }

    #[test]
    fn a_path_or_a_server_must_have_been_missing_every_time() {
        let h = "[grep: fn open in src/store.rs]";
        let missing = record(5, json!([fail(h, json!({"reason": "missing"}))]), true);
        let no_match = record(5, json!([fail(h, json!({"reason": "no_match"}))]), true);
        assert!(
            kinds(&[(None, &missing)]).is_empty(),
            "an attempt is needed"
        );
        assert_eq!(
            kinds(&[(None, &missing), (Some(1), &missing)]),
            ["path_never_existed"]
        );
        assert!(kinds(&[(None, &no_match), (Some(1), &missing)]).is_empty());
        let u = "[http: GET http://localhost:9/ -> 200]";
        let refused = record(
            5,
            json!([fail(u, json!({"reason": "connection_refused"}))]),
            true,
        );
        let timeout = record(
            5,
            json!([fail(u, json!({"reason": "http_timeout", "seconds": 5}))]),
            true,
        );
        assert_eq!(
            kinds(&[(None, &refused), (Some(1), &timeout)]),
            ["http_never_answered"]
        );
    }

    #[test]
    fn records_of_a_criterion_since_healed_do_not_count() {
        let prd = zurdo::parse("# PRD: c\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nDo.\n\n### Acceptance Criteria\n- [ ] c [shell: test -f x]\n").expect("valid");
        let criterion = &prd.tasks[0].criteria[0];
        let old = record(
            11,
            json!([fail(
                "[shell: tesst -f x]",
                json!({"reason": "exit_code", "code": 127})
            )]),
            true,
        );
        let t = TaskState {
            id: "task-1".into(),
            preflight_results: Some(vec![old.clone()]),
            ..TaskState::default()
        };
        assert!(records(&t, 0, criterion).is_empty());
        let now = record(
            11,
            json!([fail(
                "[shell: test -f x]",
                json!({"reason": "exit_code", "code": 1})
            )]),
            true,
        );
        let t = TaskState {
            preflight_results: Some(vec![now]),
            ..t
        };
        assert_eq!(records(&t, 0, criterion).len(), 1);
    }
}
