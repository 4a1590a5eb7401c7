//! Failure fingerprints: a deterministic digest of what failed in one
//! iteration, so a loop that keeps replaying the same failure shows as a
//! stall. Free, model-free, always on.
//!
//! A fingerprint covers, for each failing hint, the criterion's index, the
//! hint's index and text, and its typed reason with the reason's own fields
//! (an exit code, a status, the matched line); plus every broken standing
//! rule, every frozen-path violation, every clean-room mismatch, everything
//! else zurdo caught (`caught` on the iteration). It never
//! covers captured output, timings or the agent's words: those change on
//! every attempt without meaning progress.

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};
use zurdo::hint::Check;
use zurdo::verify::{CriterionResult, Verdict};
use zurdo::Task;

use super::surface::Surface;

/// What one failed iteration consisted of: the lines the fingerprint is a
/// digest of, and the components reactive lesson matching reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Failure {
    /// One canonical line per failing thing, in a fixed order.
    pub lines: Vec<String>,
    /// The failure's match surface (hint kinds, typed reasons, command
    /// heads, path prefixes), built by zurdo.
    pub surface: Surface,
    /// `<criterion title>` of each failing criterion, in PRD order.
    pub criteria: Vec<String>,
}

/// The other ways an iteration fails besides its own criteria.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extra<'a> {
    /// `standing rule broken: …` lines.
    pub standing: &'a [String],
    /// Frozen paths the attempt modified.
    pub frozen: &'a [String],
    /// Clean-room mismatches.
    pub clean_room: &'a [String],
    /// What zurdo caught besides failing criteria.
    pub caught: &'a [crate::evidence::Caught],
}

impl Failure {
    /// The failure of one iteration of `task`, from zurdo's own results.
    pub fn of(task: &Task, results: &[CriterionResult], extra: Extra<'_>) -> Failure {
        let mut failure = Failure::default();
        for (index, (criterion, result)) in task.criteria.iter().zip(results).enumerate() {
            let mut failed = false;
            for (h, (hint, outcome)) in criterion.hints.iter().zip(&result.hints).enumerate() {
                let Verdict::Fail(reason) = &outcome.verdict else {
                    continue;
                };
                if outcome.kind == "manual" {
                    continue;
                }
                failed = true;
                let reason_json = serde_json::to_string(reason).unwrap_or_default();
                failure.lines.push(format!(
                    "criterion {index} hint {h} {} {reason_json}",
                    hint.source
                ));
                failure.surface.hints.insert(outcome.kind.to_string());
                if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(reason) {
                    if let Some(tag) = map.get("reason").and_then(|t| t.as_str()) {
                        failure.surface.reasons.insert(tag.to_string());
                    }
                }
                match &hint.check {
                    Check::Shell { command } => failure.surface.add_command(command),
                    Check::FileExists { path } | Check::FileAbsent { path } => {
                        failure.surface.add_path(path.as_str())
                    }
                    Check::Grep(g) | Check::NoGrep(g) if g.target_is_glob => {
                        failure.surface.add_glob(g.target.as_str())
                    }
                    Check::Grep(g) | Check::NoGrep(g) => {
                        failure.surface.add_path(g.target.as_str())
                    }
                    _ => {}
                }
                for blob in &outcome.evidence.blobs {
                    failure.surface.add_path(&blob.path);
                }
            }
            if failed {
                failure.criteria.push(criterion.title.clone());
            }
        }
        for line in extra.standing {
            failure.lines.push(format!("standing {line}"));
            failure
                .surface
                .reasons
                .insert("standing_rule_broken".into());
        }
        let frozen: BTreeSet<&String> = extra.frozen.iter().collect();
        for path in frozen {
            failure.lines.push(format!("frozen {path}"));
            failure.surface.reasons.insert("frozen_violation".into());
            failure.surface.add_path(path);
        }
        for line in extra.clean_room {
            failure.lines.push(format!("clean_room {line}"));
            failure.surface.reasons.insert("clean_room_mismatch".into());
        }
        for caught in extra.caught {
            failure.lines.push(caught.fingerprint_line());
            failure.surface.reasons.insert(caught.reason.name().into());
        }
        failure
    }

    /// The fingerprint: the first 16 hex digits of SHA-256 over the lines.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        for line in &self.lines {
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
        hasher.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// True when the last `stall_attempts` fingerprints are one and the same
/// (the agent is repeating itself, not converging).
pub fn stalled(fingerprints: &[Option<&str>], stall_attempts: u32) -> bool {
    let n = stall_attempts.max(2) as usize;
    if fingerprints.len() < n {
        return false;
    }
    let window = &fingerprints[fingerprints.len() - n..];
    match window[0] {
        Some(first) => window.iter().all(|f| *f == Some(first)),
        None => false,
    }
}

/// A task's declared surface, before anything fails: the kinds of its
/// automated hints, the heads of its shell commands, and the path prefixes
/// of its file hints, grep targets and **Frozen** globs. Typed reasons are
/// unknown until something fails, so prospective matching scores on the
/// other three.
pub fn declared(task: &Task) -> Surface {
    let mut surface = Surface::default();
    for hint in task.criteria.iter().flat_map(|c| &c.hints) {
        if matches!(hint.check, Check::Manual) {
            continue;
        }
        surface.hints.insert(hint.check.kind().to_string());
        match &hint.check {
            Check::Shell { command } => surface.add_command(command),
            Check::FileExists { path } | Check::FileAbsent { path } => {
                surface.add_path(path.as_str())
            }
            Check::Grep(g) | Check::NoGrep(g) if g.target_is_glob => {
                surface.add_glob(g.target.as_str())
            }
            Check::Grep(g) | Check::NoGrep(g) => surface.add_path(g.target.as_str()),
            _ => {}
        }
    }
    for glob in &task.metadata.frozen {
        surface.add_glob(glob);
    }
    surface
}

#[cfg(test)]
mod tests {
    use super::*;
    use zurdo::verify::{Evidence, HintResult, Reason};

    fn task() -> Task {
        let prd = "# PRD: x\n\n## Task: task-1 — Build it\n**Effort**: low\n**Depends-on**: []\n**Frozen**: tests/golden/**\n\n### Description\nDo it.\n\n### Acceptance Criteria\n- [ ] tests pass [shell: cargo test --test api]\n- [ ] file there [file-exists: src/api/mod.rs]\n";
        zurdo::parse(prd).expect("valid PRD").tasks.remove(0)
    }

    fn result(kind: &'static str, verdict: Verdict, stdout: &str) -> CriterionResult {
        let failed = !verdict.passed();
        CriterionResult {
            verdict: if failed {
                zurdo::verify::CriterionVerdict::Failed
            } else {
                zurdo::verify::CriterionVerdict::Passed
            },
            hints: vec![HintResult {
                hint: String::new(),
                kind,
                verdict,
                evidence: Evidence {
                    stdout: Some(zurdo::verify::Captured::bounded(stdout.as_bytes())),
                    ..Default::default()
                },
                elapsed: std::time::Duration::from_millis(stdout.len() as u64),
            }],
        }
    }

    #[test]
    fn the_same_failure_with_other_output_has_the_same_fingerprint() {
        let t = task();
        let a = Failure::of(
            &t,
            &[
                result(
                    "shell",
                    Verdict::Fail(Reason::ExitCode { code: 101 }),
                    "took 0.1s",
                ),
                result("file-exists", Verdict::Pass, ""),
            ],
            Extra::default(),
        );
        let b = Failure::of(
            &t,
            &[
                result(
                    "shell",
                    Verdict::Fail(Reason::ExitCode { code: 101 }),
                    "took 9.9s, other words",
                ),
                result("file-exists", Verdict::Pass, ""),
            ],
            Extra::default(),
        );
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_eq!(a.fingerprint().len(), 16);
        assert_eq!(a.criteria, ["tests pass"]);
    }

    #[test]
    fn another_criterion_reason_or_frozen_path_changes_it() {
        let t = task();
        let shell_fails = [
            result("shell", Verdict::Fail(Reason::ExitCode { code: 101 }), ""),
            result("file-exists", Verdict::Pass, ""),
        ];
        let base = Failure::of(&t, &shell_fails, Extra::default()).fingerprint();
        let other_code = Failure::of(
            &t,
            &[
                result("shell", Verdict::Fail(Reason::ExitCode { code: 1 }), ""),
                result("file-exists", Verdict::Pass, ""),
            ],
            Extra::default(),
        );
        assert_ne!(base, other_code.fingerprint());
        let other_criterion = Failure::of(
            &t,
            &[
                result("shell", Verdict::Pass, ""),
                result("file-exists", Verdict::Fail(Reason::Missing), ""),
            ],
            Extra::default(),
        );
        assert_ne!(base, other_criterion.fingerprint());
        let frozen = ["tests/golden/a.txt".to_string()];
        let with_frozen = Failure::of(
            &t,
            &shell_fails,
            Extra {
                frozen: &frozen,
                ..Default::default()
            },
        );
        assert_ne!(base, with_frozen.fingerprint());
        assert!(with_frozen.surface.reasons.contains("frozen_violation"));
        assert!(with_frozen.surface.paths.contains("tests/golden/"));
    }

    #[test]
    fn the_failure_surface_names_kind_reason_command_and_paths() {
        let t = task();
        let f = Failure::of(
            &t,
            &[
                result(
                    "shell",
                    Verdict::Fail(Reason::ZeroTests {
                        runner: "cargo test".into(),
                    }),
                    "",
                ),
                result("file-exists", Verdict::Fail(Reason::Missing), ""),
            ],
            Extra::default(),
        );
        assert_eq!(
            f.surface.hints,
            ["file-exists", "shell"].map(String::from).into()
        );
        assert_eq!(
            f.surface.reasons,
            ["missing", "zero_tests"].map(String::from).into()
        );
        assert_eq!(f.surface.commands, ["cargo".to_string()].into());
        assert_eq!(f.surface.paths, ["src/api/".to_string()].into());
    }

    #[test]
    fn a_stall_needs_n_equal_fingerprints_in_a_row() {
        assert!(!stalled(&[Some("a")], 2));
        assert!(stalled(&[Some("a"), Some("a")], 2));
        assert!(!stalled(&[Some("a"), Some("b")], 2));
        assert!(stalled(&[Some("b"), Some("a"), Some("a")], 2));
        assert!(!stalled(&[Some("b"), Some("a"), Some("a")], 3));
        assert!(stalled(&[Some("a"), Some("a"), Some("a")], 3));
        assert!(!stalled(&[None, None], 2), "passing iterations never stall");
        assert!(stalled(&[Some("a"), Some("a")], 1), "the minimum is 2");
        assert!(!stalled(&[Some("a")], 1), "the minimum is 2");
    }

    #[test]
    fn the_declared_surface_reads_hints_commands_paths_and_frozen_globs() {
        let s = declared(&task());
        assert_eq!(s.hints, ["file-exists", "shell"].map(String::from).into());
        assert!(s.reasons.is_empty());
        assert_eq!(s.commands, ["cargo".to_string()].into());
        assert_eq!(
            s.paths,
            ["src/api/", "tests/golden/"].map(String::from).into()
        );
    }
}
