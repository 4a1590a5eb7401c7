//! Hostile input (issue 12) through the binary: each example is refused by
//! `zurdo validate`, `zurdo verify` and `zurdo run` alike with exit 2, a
//! `file:line:` message and a fix, never a panic (exit 101), and nothing is
//! spent on it; the largest values accepted run without overflow.

use std::path::Path;
use std::process::Output;

use crate::common::{run_repo, text, zurdo, zurdo_run};

/// A one-task PRD: `metadata` is appended to the block, `criterion` is the
/// one criterion (line 10).
fn prd(metadata: &str, criterion: &str) -> String {
    format!(
        "# PRD: hostile\n\n## Task: task-1 — Write the file\n**Effort**: low\n**Depends-on**: []{metadata}\n\n\
         ### Description\nWrite out.txt.\n\n### Acceptance Criteria\n{criterion}\n"
    )
}

const CRIT: &str = "- [ ] written [file-exists: out.txt]";

/// The stand-in writes the file the criterion wants.
const PASS: &str = r#"{"attempts": [{"write": {"out.txt": "ok\n"}}]}"#;

/// stdout and stderr together.
fn all(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

/// Exit 2 with `needle` in the output and a fix, never a panic.
fn refused(out: &Output, needle: &str, fix: &str, what: &str) {
    let all = all(out);
    assert_ne!(out.status.code(), Some(101), "{what} panicked: {all}");
    assert_eq!(out.status.code(), Some(2), "{what}: {all}");
    assert!(all.contains(needle), "{what}: wanted {needle:?} in {all}");
    assert!(all.contains(fix), "{what}: wanted the fix {fix:?} in {all}");
    assert!(!all.contains("panicked"), "{what}: {all}");
}

/// `zurdo validate`, `zurdo verify` and `zurdo run` on `prd` all refuse it
/// with `prds/p.md:<line>: <message>` and the fix; the agent never starts.
fn every_command_refuses(prd_text: &str, line: usize, message: &str, fix: &str) {
    let r = run_repo(prd_text, "", &[], PASS, false);
    let needle = format!("prds/p.md:{line}: {message}");
    for args in [["validate", "prds/p.md"], ["verify", "prds/p.md"]] {
        let out = zurdo(&args, r.path());
        refused(&out, &needle, fix, args[0]);
    }
    let out = zurdo_run(r.path(), &[], &[]);
    refused(&out, &needle, fix, "run");
    assert!(!r.path().join("out.txt").exists(), "the agent never ran");
}

/// `zurdo verify` (when `verify` is set) and `zurdo run` refuse a config
/// whose `[verification]`/other section is `config`, naming the line.
fn config_refused(config: &str, line: usize, message: &str, verify: bool) {
    let r = run_repo(&prd("", CRIT), config, &[], PASS, false);
    let needle = format!(".zurdo/config.toml: line {line}: ");
    let check = |out: &Output, what: &str| {
        let all = all(out);
        assert_eq!(out.status.code(), Some(2), "{what}: {all}");
        assert!(
            all.contains(&needle) && all.contains(message),
            "{what}: wanted {needle:?} and {message:?} in {all}"
        );
    };
    if verify {
        check(&zurdo(&["verify", "prds/p.md"], r.path()), "verify");
    }
    check(&zurdo_run(r.path(), &[], &[]), "run");
    assert!(!r.path().join("out.txt").exists(), "the agent never ran");
}

#[test]
fn a_huge_agent_timeout_is_refused_before_anything_runs() {
    for (value, fix) in [
        (
            "18446744073709551615s",
            "write `**Agent-timeout**: 604800s` or less",
        ),
        ("9999999h", "write `**Agent-timeout**: 168h` or less"),
    ] {
        every_command_refuses(
            &prd(&format!("\n**Agent-timeout**: {value}"), CRIT),
            6,
            &format!("**Agent-timeout** `{value}` is longer than 7 days (168h)"),
            fix,
        );
    }
}

#[test]
fn a_huge_max_attempts_is_refused() {
    every_command_refuses(
        &prd("\n**Max-Attempts**: 4294967295", CRIT),
        6,
        "**Max-Attempts** `4294967295` is more than 1000",
        "write `**Max-Attempts**: 1000` or less",
    );
}

#[test]
fn a_regex_too_large_to_build_is_refused_by_validate_too() {
    every_command_refuses(
        &prd("", "- [ ] big [grep: a{1000}{1000} in out.txt]"),
        11,
        "[grep:] pattern `a{1000}{1000}` is too large to build",
        "smaller repetition counts",
    );
}

#[test]
fn a_nul_byte_in_a_shell_payload_is_refused_by_validate_too() {
    every_command_refuses(
        &prd("", "- [ ] nul [shell: printf 'a\0b']"),
        11,
        "the file has a NUL byte (U+0000) at column 28",
        "remove the NUL byte",
    );
}

#[test]
fn a_lone_cr_file_is_refused_with_its_reason() {
    every_command_refuses(
        &prd("", CRIT).replace('\n', "\r"),
        1,
        "the file has a lone carriage return (CR, U+000D)",
        "save the PRD with LF (or CRLF) line endings",
    );
}

#[test]
fn non_ascii_and_taken_ids_get_a_free_valid_rename() {
    every_command_refuses(
        &prd("", CRIT).replace("task-1", "tâche-1"),
        3,
        "invalid task id `tâche-1`: `â` is not an ASCII letter or digit",
        "rename it `task-tache-1`",
    );
    let two = format!(
        "{}\n## Task: task-a — Second\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n",
        prd("", CRIT).replace("task-1", "Task-A")
    );
    every_command_refuses(
        &two,
        3,
        "invalid task id `Task-A`: it has upper-case letters",
        "rename it `task-a-2`",
    );
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let r = run_repo(&format!("\u{feff}{}", prd("", CRIT)), "", &[], PASS, false);
    let out = zurdo(&["validate", "prds/p.md"], r.path());
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let out = zurdo_run(r.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
}

#[test]
fn huge_durations_and_counts_in_config_are_refused_with_the_line() {
    // run_repo's config has four lines before `config_extra`, so the key
    // on its second line is line 6.
    config_refused(
        "[verification]\ncriterion_seconds = 9223372036854775807\n",
        6,
        "[verification] criterion_seconds = 9223372036854775807 is more than 604800 (7 days), the most zurdo accepts; write criterion_seconds = 604800 or less",
        true,
    );
    config_refused(
        "[verification]\nstanding_budget_seconds = 9223372036854775807\n",
        6,
        "write standing_budget_seconds = 604800 or less",
        true,
    );
    config_refused(
        "[verification]\nhttp_read_limit = 9223372036854775807\n",
        6,
        "write http_read_limit = 67108864 or less",
        true,
    );
    config_refused(
        "[defaults]\nagent_timeout = \"18446744073709551615s\"\n",
        6,
        "[defaults] agent_timeout `18446744073709551615s` is longer than 7 days (168h), the longest duration zurdo accepts; write at most `604800s`",
        false,
    );
    config_refused(
        "[defaults]\nmax_attempts = 4294967295\n",
        6,
        "write max_attempts = 1000 or less",
        false,
    );
    config_refused(
        "[reason]\ntimeout = \"9999999h\"\n",
        6,
        "write at most `168h`",
        false,
    );
    config_refused(
        "[reason]\nstall_attempts = 4294967295\n",
        6,
        "write stall_attempts = 1000 or less",
        false,
    );
    config_refused(
        "[vela]\nidle_minutes = 9223372036854775807\n",
        6,
        "write idle_minutes = 10080 or less",
        false,
    );
}

#[test]
fn protected_paths_outside_the_repository_or_invalid_are_refused() {
    for (entry, message) in [
        ("/", "[verification] protected_paths path `/` is absolute"),
        (
            "../*",
            "[verification] protected_paths path `../*` leaves the repository through `..`",
        ),
        (
            "src/[a",
            "[verification] protected_paths glob `src/[a` is invalid",
        ),
    ] {
        config_refused(
            &format!("[verification]\nprotected_paths = [\"docs/*.md\",\n  \"{entry}\"]\n"),
            7,
            message,
            true,
        );
    }
}

/// The largest values accepted run to the end: no deadline or count
/// computed from them overflows.
#[test]
fn the_largest_values_accepted_run_without_overflow() {
    let config = "[defaults]\nmax_attempts = 1000\nagent_timeout = \"168h\"\n\
                  [verification]\ncriterion_seconds = 604800\nstanding_budget_seconds = 604800\n\
                  http_read_limit = 67108864\nprotected_paths = [\"./docs/\", \"**/*.lock\"]\n\
                  [reason]\nstall_attempts = 1000\ntimeout = \"10080m\"\n[vela]\nidle_minutes = 10080\n";
    let r = run_repo(
        &prd("\n**Max-Attempts**: 1000\n**Agent-timeout**: 604800s", CRIT),
        config,
        &[],
        PASS,
        false,
    );
    let out = zurdo_run(r.path(), &[], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    assert!(Path::new(&r.path().join("out.txt")).exists());
    let out = zurdo(&["verify", "prds/p.md"], r.path());
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
}
