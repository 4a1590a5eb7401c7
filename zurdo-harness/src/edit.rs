//! Edits of a PRD's acceptance criteria, as `zurdo analyze --fix` and
//! `zurdo heal` make them: an edit names a criterion by its line, quotes
//! it, and gives the criterion line(s) to put in its place. An edit is
//! applied to a copy of the text, and the copy is checked before anyone is
//! asked to accept it ([`check`]): it must parse, change nothing but
//! criteria, weaken nothing ([`zurdo::weaken`]) and add no lint warning.
//! [`diff`] renders what it changes.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use zurdo::lint::{Lint, LintContext};
use zurdo::weaken::{self, Weakening};
use zurdo::{Prd, Task};
use zurdo_base::text::collapse_whitespace;

/// Most lines one edit may put in place of a criterion.
pub const MAX_REPLACEMENT_LINES: usize = 8;
/// Most bytes of one replacement line.
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// One proposed edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// The line of the criterion it replaces (1-based; any line of a
    /// criterion that wraps).
    pub line: usize,
    /// Text quoted from that criterion, to show the proposer read it.
    pub quote: String,
    /// The criterion line(s) to put in its place, each `- [ ] …`.
    pub replacement: String,
    /// Why, in the proposer's words.
    pub why: String,
}

/// Where a criterion is in a PRD's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Its task.
    pub task: String,
    /// Its index among the task's criteria.
    pub index: usize,
    /// Its first line (the list item's).
    pub first: usize,
    /// Its last line (continuation lines included).
    pub last: usize,
    /// Its lines as written.
    pub text: String,
}

/// The criterion of `prd` whose lines in `src` hold `line`.
pub fn locate(src: &str, prd: &Prd, line: usize) -> Option<Located> {
    let lines: Vec<&str> = src.lines().collect();
    prd.tasks.iter().find_map(|task| {
        task.criteria.iter().enumerate().find_map(|(index, c)| {
            let last = last_line(&lines, c.line);
            (c.line <= line && line <= last).then(|| Located {
                task: task.id.clone(),
                index,
                first: c.line,
                last,
                text: lines[c.line - 1..last].join("\n"),
            })
        })
    })
}

/// The last line of the list item starting on `first`: continuation lines
/// run until a blank line, another list item or a heading.
fn last_line(lines: &[&str], first: usize) -> usize {
    let mut last = first;
    while let Some(next) = lines.get(last) {
        let t = next.trim_start();
        let item = ["- ", "* ", "+ ", "-\t", "*\t", "+\t"]
            .iter()
            .any(|b| t.starts_with(b))
            || t.chars().next().is_some_and(|c| c.is_ascii_digit()) && t.contains(". ");
        if t.is_empty() || item || t.starts_with('#') || t == "-" {
            break;
        }
        last += 1;
    }
    last.min(lines.len()).max(first)
}

/// True when `quote` (surrounding quotes and backticks dropped, whitespace
/// runs read as one space) is a non-empty part of `text`.
pub fn quotes(text: &str, quote: &str) -> bool {
    let quote = collapse_whitespace(quote.trim().trim_matches(['`', '"', '\'']));
    !quote.is_empty() && collapse_whitespace(text).contains(&quote)
}

/// An edit applied to a copy of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The whole new text.
    pub text: String,
    /// The criterion it replaced.
    pub at: Located,
    /// The lines put in its place.
    pub new: String,
}

/// Applies `edit` to a copy of `src` (whose parse is `prd`), or says why it
/// cannot be: the line is not a criterion's, the quote is not in it, or
/// the replacement is not criterion lines.
pub fn apply(src: &str, prd: &Prd, edit: &Edit) -> Result<Applied, String> {
    let at = locate(src, prd, edit.line).ok_or_else(|| {
        format!(
            "line {} is not an acceptance criterion of the PRD",
            edit.line
        )
    })?;
    if !quotes(&at.text, &edit.quote) {
        return Err(format!(
            "the quote does not appear in the criterion on line {}",
            at.first
        ));
    }
    let lines: Vec<&str> = edit
        .replacement
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return Err("the replacement is empty: a criterion may not be deleted".into());
    }
    if lines.len() > MAX_REPLACEMENT_LINES {
        return Err(format!(
            "the replacement has {} lines; at most {MAX_REPLACEMENT_LINES}",
            lines.len()
        ));
    }
    if let Some(bad) = lines.iter().find(|l| !is_criterion_line(l)) {
        return Err(format!(
            "`{}` is not a criterion line (`- [ ] <title> [hint]…`): an edit replaces criteria with criteria",
            zurdo_base::text::cut_chars(bad, 120)
        ));
    }
    if lines.iter().any(|l| l.len() > MAX_LINE_BYTES) {
        return Err(format!("a replacement line is over {MAX_LINE_BYTES} bytes"));
    }
    let source: Vec<&str> = src.split_inclusive('\n').collect();
    let indent: String = source[at.first - 1]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let ending = if source[at.first - 1].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let mut text = String::with_capacity(src.len() + edit.replacement.len());
    for line in &source[..at.first - 1] {
        text.push_str(line);
    }
    let new: Vec<String> = lines.iter().map(|l| format!("{indent}{l}")).collect();
    for line in &new {
        text.push_str(line);
        text.push_str(ending);
    }
    for line in &source[at.last..] {
        text.push_str(line);
    }
    if at.last == source.len() && !src.ends_with('\n') {
        text.truncate(text.len() - ending.len());
    }
    if text == src {
        return Err(format!(
            "the replacement is the criterion on line {} as it stands: it changes nothing",
            at.first
        ));
    }
    Ok(Applied {
        text,
        at,
        new: new.join("\n"),
    })
}

fn is_criterion_line(line: &str) -> bool {
    ["- [ ] ", "* [ ] ", "+ [ ] "]
        .iter()
        .any(|b| line.starts_with(b) && !line[b.len()..].trim().is_empty())
}

/// What the checks of an edited copy found; it may be shown (and accepted)
/// only when [`Checks::passed`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Checks {
    /// The copy's grammar errors (`line N: message`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// What it changed besides criteria.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outside_criteria: Vec<String>,
    /// How it weakens the PRD.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub weakenings: Vec<Weakening>,
    /// Lint warnings it has that the original did not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub new_warnings: Vec<Lint>,
}

impl Checks {
    /// True when nothing was found.
    pub fn passed(&self) -> bool {
        self.errors.is_empty()
            && self.outside_criteria.is_empty()
            && self.weakenings.is_empty()
            && self.new_warnings.is_empty()
    }

    /// Every finding, one line each.
    pub fn reasons(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .errors
            .iter()
            .map(|e| format!("does not validate: {e}"))
            .collect();
        out.extend(
            self.outside_criteria
                .iter()
                .map(|o| format!("changes more than criteria: {o}")),
        );
        out.extend(
            self.weakenings
                .iter()
                .map(|w| format!("weakens the PRD ({}): {}", w.rule, w.message)),
        );
        out.extend(
            self.new_warnings
                .iter()
                .map(|w| format!("adds a warning ({}): {}", w.family, w.message)),
        );
        out
    }
}

/// Where the PRD lives, for the lints that read files.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    /// The repository root.
    pub root: &'a Path,
    /// The PRD's path relative to it.
    pub prd_path: Option<&'a str>,
}

impl Place<'_> {
    fn lints(&self, prd: &Prd) -> Vec<Lint> {
        zurdo::lint::lint(
            prd,
            &LintContext {
                root: Some(self.root),
                prd_path: self.prd_path,
                ..Default::default()
            },
        )
    }
}

/// Checks `new` (an edited copy) against `old` (the text it was made from,
/// whose parse is `old_prd`).
pub fn check(place: Place<'_>, old_prd: &Prd, new: &str) -> (Checks, Option<Prd>) {
    let mut checks = Checks::default();
    let new_prd = match zurdo::parse(new) {
        Ok(prd) => prd,
        Err(errors) => {
            checks.errors = errors.iter().map(|e| e.to_string()).collect();
            return (checks, None);
        }
    };
    checks.outside_criteria = outside_criteria(old_prd, &new_prd);
    checks.weakenings = weaken::compare(old_prd, &new_prd);
    let key = |l: &Lint| (l.family, line_numbers_out(&l.message));
    let mut before: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for lint in place.lints(old_prd) {
        *before.entry(key(&lint)).or_insert(0) += 1;
    }
    for lint in place.lints(&new_prd) {
        match before.get_mut(&key(&lint)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => checks.new_warnings.push(lint),
        }
    }
    (checks, Some(new_prd))
}

/// A lint message with its line numbers blanked (an edit above shifts
/// them without changing the warning).
fn line_numbers_out(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// What differs between the two PRDs besides criteria (line numbers aside).
fn outside_criteria(old: &Prd, new: &Prd) -> Vec<String> {
    let mut out = Vec::new();
    if old.title != new.title {
        out.push("the title".to_string());
    }
    let ids = |p: &Prd| p.tasks.iter().map(|t| t.id.clone()).collect::<Vec<_>>();
    if ids(old) != ids(new) {
        out.push(format!(
            "the tasks ({} became {})",
            ids(old).join(", "),
            ids(new).join(", ")
        ));
        return out;
    }
    for (a, b) in old.tasks.iter().zip(&new.tasks) {
        if !same_outside(a, b) {
            out.push(format!(
                "`{}`'s heading, metadata, requirements or description",
                a.id
            ));
        }
    }
    out
}

fn same_outside(a: &Task, b: &Task) -> bool {
    let meta = |t: &Task| zurdo::model::Metadata {
        lines: Default::default(),
        ..t.metadata.clone()
    };
    let reqs = |t: &Task| {
        t.requirements
            .iter()
            .map(|r| (r.id.clone(), r.text.clone()))
            .collect::<Vec<_>>()
    };
    a.title == b.title && meta(a) == meta(b) && a.description == b.description && reqs(a) == reqs(b)
}

/// A unified diff of `old` against `new` with no context lines
/// (`git apply --unidiff-zero` reads it), labelled `a/<label>` and
/// `b/<label>`; empty when they are equal.
pub fn diff(old: &str, new: &str, label: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if ma.is_empty() && mb.is_empty() {
        return String::new();
    }
    // The changed middle, as runs of (removed, added) between common lines.
    let common = lcs(ma, mb);
    let mut out = format!("--- a/{label}\n+++ b/{label}\n");
    let (mut i, mut j) = (0, 0);
    for (ci, cj) in common
        .into_iter()
        .chain(std::iter::once((ma.len(), mb.len())))
    {
        if ci > i || cj > j {
            let (old_at, new_at) = (prefix + i + 1, prefix + j + 1);
            let range = |at: usize, n: usize| match n {
                1 => format!("{at}"),
                0 => format!("{},0", at - 1),
                n => format!("{at},{n}"),
            };
            out.push_str(&format!(
                "@@ -{} +{} @@\n",
                range(old_at, ci - i),
                range(new_at, cj - j)
            ));
            for line in &ma[i..ci] {
                out.push_str(&format!("-{line}\n"));
            }
            for line in &mb[j..cj] {
                out.push_str(&format!("+{line}\n"));
            }
        }
        i = ci + 1;
        j = cj + 1;
    }
    out
}

/// Index pairs of a longest common subsequence of equal lines (none past
/// 2,000 lines a side: the whole middle is then one change).
fn lcs(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
    if a.len() > 2000 || b.len() > 2000 {
        return Vec::new();
    }
    zurdo_base::seq::lcs_pairs(a, b, |x, y| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "# PRD: e\n\n## Task: task-1 — One\n**Effort**: low\n**Depends-on**: []\n\n### Requirements\n- req-a: a\n\n### Description\nDo it.\n\n### Acceptance Criteria\n- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] the file is there,\n  wrapped [file-exists: src/store.rs]\n- [ ] reviewed [manual]\n";

    fn prd() -> Prd {
        zurdo::parse(SRC).expect("valid")
    }

    fn edit(line: usize, quote: &str, replacement: &str) -> Edit {
        Edit {
            line,
            quote: quote.into(),
            replacement: replacement.into(),
            why: String::new(),
        }
    }

    fn place(root: &Path) -> Place<'_> {
        Place {
            root,
            prd_path: Some("prds/p.md"),
        }
    }

    #[test]
    fn a_criterion_is_located_by_any_of_its_lines() {
        let p = prd();
        let at = locate(SRC, &p, 16).expect("the wrapped criterion");
        assert_eq!((at.first, at.last, at.index), (15, 16, 1));
        assert_eq!(
            at.text,
            "- [ ] the file is there,\n  wrapped [file-exists: src/store.rs]"
        );
        assert!(
            locate(SRC, &p, 11).is_none(),
            "the description is not a criterion"
        );
        assert!(locate(SRC, &p, 99).is_none());
        assert!(quotes(&at.text, "`the file is there, wrapped`"));
        assert!(!quotes(&at.text, "the file is missing"));
        assert!(!quotes(&at.text, "  "));
    }

    #[test]
    fn an_edit_replaces_the_whole_criterion_and_keeps_the_rest() {
        let p = prd();
        let applied = apply(
            SRC,
            &p,
            &edit(
                16,
                "the file is there",
                "- [ ] the file is there [file-exists: src/store.rs] [grep: fn open in src/store.rs]",
            ),
        )
        .expect("applies");
        assert_eq!(
            applied.text,
            SRC.replace(
                "- [ ] the file is there,\n  wrapped [file-exists: src/store.rs]\n",
                "- [ ] the file is there [file-exists: src/store.rs] [grep: fn open in src/store.rs]\n"
            )
        );
        let tmp = tempfile::tempdir().expect("temp");
        let (checks, new) = check(place(tmp.path()), &p, &applied.text);
        assert!(checks.passed(), "{checks:?}");
        assert_eq!(new.expect("parses").tasks[0].criteria.len(), 3);
        assert_eq!(
            diff(SRC, &applied.text, "prds/p.md"),
            "--- a/prds/p.md\n+++ b/prds/p.md\n@@ -15,2 +15 @@\n-- [ ] the file is there,\n-  wrapped [file-exists: src/store.rs]\n+- [ ] the file is there [file-exists: src/store.rs] [grep: fn open in src/store.rs]\n"
        );
    }

    #[test]
    fn an_edit_that_is_not_criteria_for_criteria_is_refused() {
        let p = prd();
        let refused = |e: Edit| apply(SRC, &p, &e).expect_err("refused");
        assert!(
            refused(edit(11, "Do it", "- [ ] x [manual]")).contains("not an acceptance criterion")
        );
        assert!(refused(edit(14, "nothing like it", "- [ ] x [manual]")).contains("quote"));
        assert!(refused(edit(14, "tests pass", "  ")).contains("may not be deleted"));
        assert!(refused(edit(14, "tests pass", "## Task: task-2 — Sneaky"))
            .contains("not a criterion line"));
        assert!(refused(edit(
            14,
            "tests pass",
            "- [ ] ok [shell: cargo test]\nprose"
        ))
        .contains("not a criterion line"));
        assert!(refused(edit(
            14,
            "tests pass",
            "  - [ ] tests pass [shell: cargo test store::] [proves:req-a]  "
        ))
        .contains("changes nothing"));
    }

    #[test]
    fn checks_catch_a_weakening_a_new_warning_and_a_broken_copy() {
        let p = prd();
        let tmp = tempfile::tempdir().expect("temp");
        let checked = |replacement: &str| {
            let applied = apply(SRC, &p, &edit(14, "tests pass", replacement)).expect("applies");
            check(place(tmp.path()), &p, &applied.text).0
        };
        let weak = checked("- [ ] tests pass [shell: cargo test store:: || true] [proves:req-a]");
        assert_eq!(weak.weakenings[0].rule, "turned-constant");
        assert_eq!(weak.new_warnings[0].family, "constant-shell");
        assert!(!weak.passed());
        assert!(weak
            .reasons()
            .iter()
            .any(|r| r.contains("weakens the PRD (turned-constant)")));
        let piped =
            checked("- [ ] tests pass [shell: cargo test store:: | tail -3] [proves:req-a]");
        assert!(piped.weakenings.is_empty());
        assert_eq!(piped.new_warnings[0].family, "masked-exit-code");
        let broken = checked("- [ ] tests pass [shel: cargo test] [proves:req-a]");
        assert!(!broken.errors.is_empty(), "{broken:?}");
        // A second criterion in place of one, the first unchanged: fine.
        let more = checked("- [ ] tests pass [shell: cargo test store::] [proves:req-a]\n- [ ] a bad key is refused [shell: cargo test store::bad_key]");
        assert!(more.passed(), "{more:?}");
    }

    #[test]
    fn diffs_show_each_change_with_its_lines() {
        assert_eq!(diff("a\nb\nc\n", "a\nb\nc\n", "x"), "");
        assert_eq!(
            diff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n", "x"),
            "--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n+B\n@@ -4,0 +5 @@\n+e\n"
        );
        assert_eq!(
            line_numbers_out("as on line 12, not line x"),
            "as on line N, not line x"
        );
    }
}
