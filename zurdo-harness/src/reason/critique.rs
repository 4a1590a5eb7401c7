//! The analyzer's critique of a PRD (`zurdo analyze`): the prompt, and its
//! reply read and checked by code before anyone sees it.
//!
//! Every finding must name an acceptance criterion by a line it has and
//! quote that criterion; the files it relies on must exist in the
//! repository. A finding that fails any of this (a line that is not a
//! criterion, a quote that is not there, a file the repository does not
//! have, a kind outside the closed set) is dropped before it is shown: a
//! model's invention never reaches the reader as a finding. Findings are
//! checked one by one, so one invented finding does not cost the others.
//!
//! With `--fix` the same reply (and, for proposals zurdo refused, a later
//! round's) carries edits: criterion lines to put in place of a criterion
//! ([`crate::edit`] applies and checks them).

use std::fmt::Write;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};
use zurdo::lint::Lint;
use zurdo::Prd;

use super::diagnosis::{find_object, READ_ONLY};
use super::REASON_PREFIX;
use crate::edit::{self, Edit};

/// The kinds of finding, with what each means (a closed set).
pub const KINDS: [(&str, &str); 4] = [
    (
        "too-vague",
        "the criterion is too vague to verify: its title claims something its hints do not pin down, \
         or a reader could not say what would make it fail",
    ),
    (
        "proves-nothing",
        "a hint passes (or fails) whatever the work does: it checks a file that is always there, a pattern \
         that matches anything, a command that does not exercise the change",
    ),
    (
        "misses-requirement",
        "the criterion does not test the requirement it names with [proves:] (or the behaviour its title \
         claims): it could pass with the requirement unmet",
    ),
    (
        "no-negative-case",
        "the task checks only that the right thing happens, never that a wrong input or state is refused \
         (a bad token rejected, an error path taken)",
    ),
];

/// Most findings read from one reply; the rest are dropped.
pub const MAX_FINDINGS: usize = 100;
/// Most edits read from one reply.
pub const MAX_EDITS: usize = 50;
/// Most bytes kept of a finding's message, fix or an edit's why.
const TEXT_BUDGET: usize = 1024;
/// Most characters of a quote kept.
const QUOTE_CHARS: usize = 300;
/// Most bytes of the PRD a prompt carries (a PRD is at most 16 MiB; the
/// listing is cut in the middle past this, and the cut is said).
const PRD_BUDGET: usize = 96 * 1024;

/// One finding that survived the checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The criterion's first line.
    pub line: usize,
    /// Its task.
    pub task: String,
    /// One of [`KINDS`].
    pub kind: String,
    /// What the analyzer quoted from the criterion.
    pub quote: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when the analyzer said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Repository files it relies on (each exists).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// A finding dropped unread, and why (its text is not kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dropped {
    /// The line it cited, when it cited one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Why it was dropped.
    pub why: String,
}

/// What one reply said, after the checks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Critique {
    /// The findings that hold.
    pub findings: Vec<Finding>,
    /// The findings dropped.
    pub dropped: Vec<Dropped>,
    /// The edits proposed (each still to be applied and checked), or why an
    /// entry could not be read as one.
    #[serde(skip)]
    pub edits: Vec<Result<Edit, String>>,
}

/// The PRD as the prompt shows it: each line numbered.
fn numbered(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + src.len() / 4);
    for (i, line) in src.lines().enumerate() {
        let _ = writeln!(out, "{:>5} | {line}", i + 1);
    }
    super::bundle::window(&out, PRD_BUDGET)
}

/// The rules an edit must keep, as the prompt states them (the code checks
/// each: [`zurdo::weaken`], [`edit::check`]).
const EDIT_RULES: &str = "- An edit replaces ONE criterion (name it by its line and quote it) with one or more criterion lines, \
each `- [ ] <title> [hint]…`. Nothing else in the PRD may change.\n\
- It must not weaken the PRD: no criterion deleted, no hint removed (a hint may change its payload), no automated \
hint replaced by [manual], no [shell:] that can't fail (`true`, `echo …`, `… || true`), no [grep:] pattern that \
matches the empty string, no [removes-tests] added, no [proves:] dropped.\n\
- The edited PRD must still validate and must not raise a new lint warning.\n\
- zurdo checks all of this in code; an edit that breaks a rule is refused and never shown.";

/// The critique prompt for the PRD `display` (text `src`), told what zurdo's
/// own checks found (`warnings`); with `fix`, it also asks for edits. Its
/// first line is `zurdo-reason: analyze <display>`.
pub fn prompt(display: &str, src: &str, warnings: &[Lint], fix: bool) -> String {
    let mut out = format!("{REASON_PREFIX} analyze {display}\n\n");
    out.push_str(
        "You are zurdo's analyzer. zurdo decides whether coding agents did the work of a PRD by running each \
         acceptance criterion's hints itself: a criterion passes only when all of its hints pass, and a task when \
         all of its criteria do. Before anything is spent on a run, review the PRD below for criteria that would let \
         bad work pass, or that do not check what they claim.\n\n",
    );
    let _ = writeln!(out, "{READ_ONLY}\n");
    let _ = writeln!(out, "# The PRD ({display}), each line numbered\n");
    out.push_str(&super::bundle::fenced(&numbered(src), "text"));
    out.push_str("\n# What zurdo's own checks found (do not repeat these)\n\n");
    if warnings.is_empty() {
        out.push_str("Nothing.\n");
    }
    for w in warnings {
        let _ = writeln!(out, "- line {}: {}: {}", w.line, w.family, w.message);
    }
    out.push_str("\n# What to look for\n\n");
    for (kind, meaning) in KINDS {
        let _ = writeln!(out, "- `{kind}`: {meaning}.");
    }
    out.push_str("\n# Reply\n\nReply with ONE JSON object and nothing else:\n\n");
    if fix {
        out.push_str(
            "{\"findings\": [{\"line\": 14, \"quote\": \"...\", \"kind\": \"proves-nothing\", \"message\": \"...\", \
             \"fix\": \"...\", \"files\": [\"src/store.rs\"]}], \"edits\": [{\"line\": 14, \"quote\": \"...\", \
             \"replacement\": \"- [ ] ...\", \"why\": \"...\"}]}\n\n",
        );
    } else {
        out.push_str(
            "{\"findings\": [{\"line\": 14, \"quote\": \"...\", \"kind\": \"proves-nothing\", \"message\": \"...\", \
             \"fix\": \"...\", \"files\": [\"src/store.rs\"]}]}\n\n",
        );
    }
    out.push_str(
        "- `line`: the number of the criterion's line in the listing above (a criterion, never a heading or prose).\n\
         - `quote`: words copied exactly from that criterion.\n\
         - `kind`: one of the names above.\n\
         - `message`: what is wrong, in a sentence or two; `fix`: what to write instead (optional).\n\
         - `files`: repository files the finding relies on, repository-relative (optional).\n\
         A finding whose line is not an acceptance criterion, whose quote is not in it, or that names a file the \
         repository does not have is dropped unread. No finding at all is a fine answer: `{\"findings\": []}`.\n",
    );
    if fix {
        out.push_str("\n# Edits\n\nAlso propose edits that fix your findings, under `edits`:\n\n");
        out.push_str(EDIT_RULES);
        out.push('\n');
    }
    out
}

/// A later `--fix` round's prompt: the PRD as it stands now and the edits
/// zurdo refused, with why; asks for edits only. Its first line is
/// `zurdo-reason: analyze --fix round <round> <display>`.
pub fn fix_prompt(display: &str, src: &str, round: u32, refused: &[(Edit, Vec<String>)]) -> String {
    let mut out = format!("{REASON_PREFIX} analyze --fix round {round} {display}\n\n");
    out.push_str(
        "You are zurdo's analyzer. You proposed edits to the PRD below; zurdo refused some of them, for the reasons \
         given. Propose a replacement for each refused edit that keeps every rule, or leave it out.\n\n",
    );
    let _ = writeln!(out, "{READ_ONLY}\n");
    let _ = writeln!(
        out,
        "# The PRD ({display}) as it stands now, each line numbered\n"
    );
    out.push_str(&super::bundle::fenced(&numbered(src), "text"));
    out.push_str("\n# Refused\n\n");
    for (edit, why) in refused {
        let _ = writeln!(
            out,
            "- line {}: `{}` → `{}`\n  refused: {}",
            edit.line,
            zurdo_base::text::cut_chars(
                &zurdo_base::text::collapse_whitespace(&edit.quote),
                QUOTE_CHARS
            ),
            zurdo_base::text::cut_chars(
                &zurdo_base::text::collapse_whitespace(&edit.replacement),
                600
            ),
            why.join("; ")
        );
    }
    out.push_str("\n# Rules\n\n");
    out.push_str(EDIT_RULES);
    out.push_str(
        "\n\n# Reply\n\nReply with ONE JSON object and nothing else:\n\n\
         {\"edits\": [{\"line\": 14, \"quote\": \"...\", \"replacement\": \"- [ ] ...\", \"why\": \"...\"}]}\n\n\
         `line` and `quote` name the criterion in the listing above. `{\"edits\": []}` proposes nothing.\n",
    );
    out
}

/// Reads a critique reply: the findings, each checked against the PRD
/// (`src`, parsed as `prd`) and the repository at `root`, and any edits.
/// `Err` when the reply holds no JSON object with a `findings` key.
pub fn parse(reply: &str, src: &str, prd: &Prd, root: &Path) -> Result<Critique, String> {
    let map = find_object(reply, "findings")
        .ok_or("no JSON object with a \"findings\" key in the reply")?;
    let mut critique = Critique::default();
    match map.get("findings") {
        Some(Value::Array(items)) => {
            for (n, item) in items.iter().enumerate() {
                if n >= MAX_FINDINGS {
                    critique.dropped.push(Dropped {
                        line: item.get("line").and_then(Value::as_u64),
                        why: format!("past the first {MAX_FINDINGS} findings"),
                    });
                    continue;
                }
                match finding(item, src, prd, root) {
                    Ok(f) => {
                        if !critique.findings.contains(&f) {
                            critique.findings.push(f)
                        }
                    }
                    Err(why) => critique.dropped.push(Dropped {
                        line: item.get("line").and_then(Value::as_u64),
                        why,
                    }),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => {
            return Err(format!(
                "\"findings\" is {}, not a list",
                super::diagnosis::json_kind(other)
            ))
        }
    }
    critique.edits = edits(&map);
    Ok(critique)
}

/// Reads a later round's reply: its edits. `Err` when it holds no JSON
/// object with an `edits` key.
pub fn parse_edits(reply: &str) -> Result<Vec<Result<Edit, String>>, String> {
    let map =
        find_object(reply, "edits").ok_or("no JSON object with an \"edits\" key in the reply")?;
    Ok(edits(&map))
}

fn edits(map: &Map<String, Value>) -> Vec<Result<Edit, String>> {
    let Some(Value::Array(items)) = map.get("edits") else {
        return Vec::new();
    };
    items.iter().take(MAX_EDITS).map(read_edit).collect()
}

/// One edit object: `line`, `quote`, `replacement` and (optional) `why`.
pub fn read_edit(item: &Value) -> Result<Edit, String> {
    let line = item
        .get("line")
        .and_then(Value::as_u64)
        .ok_or("an edit without a numeric \"line\"")?;
    let text = |key: &str| item.get(key).and_then(Value::as_str);
    let quote = text("quote").ok_or("an edit without a \"quote\"")?;
    let replacement = text("replacement").ok_or("an edit without a \"replacement\" text")?;
    Ok(Edit {
        line: usize::try_from(line).unwrap_or(usize::MAX),
        quote: zurdo_base::text::cut_chars(quote, QUOTE_CHARS),
        replacement: replacement.to_string(),
        why: zurdo_base::text::cut_chars(text("why").unwrap_or("").trim(), TEXT_BUDGET),
    })
}

/// Checks one finding; `Err` says why it is dropped.
fn finding(item: &Value, src: &str, prd: &Prd, root: &Path) -> Result<Finding, String> {
    let Some(fields) = item.as_object() else {
        return Err(format!(
            "a finding is {}, not an object",
            super::diagnosis::json_kind(item)
        ));
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::trim);
    let line = fields
        .get("line")
        .and_then(Value::as_u64)
        .ok_or("it cites no line")?;
    let at = usize::try_from(line)
        .ok()
        .and_then(|l| edit::locate(src, prd, l))
        .ok_or_else(|| format!("it cites line {line}, which is not an acceptance criterion"))?;
    let quote = text("quote").unwrap_or("");
    if !edit::quotes(&at.text, quote) {
        return Err(format!(
            "its quote does not appear in the criterion on line {}",
            at.first
        ));
    }
    let kind = text("kind").unwrap_or("");
    if !KINDS.iter().any(|(k, _)| *k == kind) {
        return Err(format!(
            "its kind `{}` is not one of {}",
            zurdo_base::text::cut_chars(kind, 40),
            KINDS.map(|(k, _)| k).join(", ")
        ));
    }
    let message = text("message").unwrap_or("");
    if message.is_empty() {
        return Err("it says nothing (an empty message)".into());
    }
    let mut files = Vec::new();
    match fields.get("files") {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) => {
            for name in names {
                let name = name.as_str().ok_or("a file that is not a path")?.trim();
                if !file_exists(root, name) {
                    return Err(format!(
                        "it relies on `{}`, which the repository does not have",
                        zurdo_base::text::cut_chars(name, 120)
                    ));
                }
                files.push(name.to_string());
            }
        }
        Some(other) => {
            return Err(format!(
                "\"files\" is {}, not a list",
                super::diagnosis::json_kind(other)
            ))
        }
    }
    Ok(Finding {
        line: at.first,
        task: at.task,
        kind: kind.to_string(),
        quote: zurdo_base::text::cut_chars(
            &zurdo_base::text::collapse_whitespace(quote),
            QUOTE_CHARS,
        ),
        message: bounded(message),
        fix: text("fix").filter(|f| !f.is_empty()).map(bounded),
        files,
    })
}

fn bounded(text: &str) -> String {
    super::bundle::cut(text, TEXT_BUDGET).to_string()
}

/// True when `name` is a repository-relative path (no `..`, not absolute)
/// to something that exists under `root` (a symlink is not followed).
pub fn file_exists(root: &Path, name: &str) -> bool {
    let path = Path::new(name);
    let relative = !name.is_empty()
        && path.components().all(|c| {
            matches!(
                c,
                std::path::Component::Normal(_) | std::path::Component::CurDir
            )
        });
    relative && root.join(path).symlink_metadata().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "# PRD: c\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Description\nDo it.\n\n### Acceptance Criteria\n- [ ] tests pass [shell: cargo test]\n- [ ] docs exist [file-exists: README.md]\n";

    fn reply(findings: Value) -> String {
        format!(
            "Here you go:\n```json\n{}\n```",
            serde_json::json!({ "findings": findings })
        )
    }

    #[test]
    fn the_prompt_numbers_the_prd_and_states_the_rules() {
        let p = prompt("prds/p.md", SRC, &[], true);
        assert!(p.starts_with("zurdo-reason: analyze prds/p.md\n"));
        assert!(
            p.contains("   11 | - [ ] tests pass [shell: cargo test]"),
            "{p}"
        );
        assert!(p.contains("`no-negative-case`") && p.contains("\"edits\""));
        assert!(!prompt("prds/p.md", SRC, &[], false).contains("\"edits\""));
        let edit = Edit {
            line: 11,
            quote: "tests pass".into(),
            replacement: "- [ ] tests pass [manual]".into(),
            why: String::new(),
        };
        let again = fix_prompt("prds/p.md", SRC, 2, &[(edit, vec!["weakens".into()])]);
        assert!(again.starts_with("zurdo-reason: analyze --fix round 2 prds/p.md\n"));
        assert!(again.contains("refused: weakens"));
    }

    #[test]
    fn findings_that_cite_what_is_not_there_are_dropped_one_by_one() {
        let tmp = tempfile::tempdir().expect("temp");
        std::fs::write(tmp.path().join("README.md"), "x").expect("write");
        let prd = zurdo::parse(SRC).expect("valid");
        let text = reply(serde_json::json!([
            {"line": 11, "quote": "cargo test", "kind": "proves-nothing", "message": "It runs every test.", "files": ["README.md"]},
            {"line": 12, "quote": "docs exist", "kind": "too-vague", "message": "Which docs?"},
            {"line": 40, "quote": "x", "kind": "too-vague", "message": "Invented line."},
            {"line": 8, "quote": "Do it", "kind": "too-vague", "message": "Not a criterion."},
            {"line": 11, "quote": "cargo nextest", "kind": "too-vague", "message": "Misquoted."},
            {"line": 11, "quote": "cargo test", "kind": "proves-nothing", "message": "Invented file.", "files": ["src/nowhere.rs"]},
            {"line": 11, "quote": "cargo test", "kind": "style", "message": "Not a kind."},
            {"line": 11, "quote": "cargo test", "kind": "proves-nothing", "message": "Escapes.", "files": ["../etc/passwd"]},
            "not an object"
        ]));
        let c = parse(&text, SRC, &prd, tmp.path()).expect("parses");
        assert_eq!(
            c.findings.iter().map(|f| f.line).collect::<Vec<_>>(),
            [11, 12]
        );
        assert_eq!(c.findings[0].files, ["README.md"]);
        let why: Vec<&str> = c.dropped.iter().map(|d| d.why.as_str()).collect();
        assert_eq!(why.len(), 7, "{why:?}");
        assert!(why[0].contains("line 40, which is not an acceptance criterion"));
        assert!(why[1].contains("line 8"));
        assert!(why[2].contains("quote"));
        assert!(why[3].contains("src/nowhere.rs"));
        assert!(why[4].contains("kind `style`"));
        assert!(why[5].contains("../etc/passwd"));
        assert!(why[6].contains("not an object"));
        assert!(c.edits.is_empty());
    }

    #[test]
    fn a_reply_without_findings_fails_open_and_edits_are_read() {
        let prd = zurdo::parse(SRC).expect("valid");
        let tmp = tempfile::tempdir().expect("temp");
        assert!(parse("I think it is fine.", SRC, &prd, tmp.path()).is_err());
        let text = serde_json::json!({"findings": [], "edits": [
            {"line": 11, "quote": "tests pass", "replacement": "- [ ] tests pass [shell: cargo test --lib]", "why": "narrower"},
            {"quote": "no line"}
        ]})
        .to_string();
        let c = parse(&text, SRC, &prd, tmp.path()).expect("parses");
        assert_eq!(c.edits.len(), 2);
        assert_eq!(c.edits[0].as_ref().expect("an edit").line, 11);
        assert!(c.edits[1].as_ref().expect_err("malformed").contains("line"));
        let later = parse_edits("{\"edits\": []}").expect("parses");
        assert!(later.is_empty());
        assert!(parse_edits("nothing").is_err());
    }
}
