//! `review-log.jsonl`: the `[manual]` sign-off chain `zurdo review` appends
//! to, one line per decision, never rewritten.
//!
//! Each line is one compact JSON object, its fields in this order:
//!
//! ```text
//! {"v":1,"at":"<RFC 3339>","reviewer":"Name <email>","task":"task-2",
//!  "criterion":"task_2::the_wording_reads_well","decision":"approved"|"rejected",
//!  "reason":"…"|null,"attempt":1,"tree":"<git tree id>"|null,
//!  "prd_sha256":"<hex>","prev":"<hex>","mac":"<hex>"}
//! ```
//!
//! - `prev` is the SHA-256 (hex) of the previous line's bytes, its newline
//!   excluded; the first line's is [`GENESIS`] (64 zeros).
//! - `mac` is the last field: an HMAC-SHA256, under the user's key
//!   ([`zurdo_base::mac`], the key prd.json's MAC uses), of the line as it
//!   was before the field was added (the bytes up to `,"mac":"`, closed
//!   with `}`). An entry edited after zurdo wrote it no longer checks, and
//!   a chain rewritten consistently by anything without the key does not
//!   either.
//!
//! A line checks when it parses, its MAC checks and its `prev` is the
//! SHA-256 of the line physically before it; [`check`] also holds each
//! entry to the PRD (it names a `[manual]` criterion of a task the PRD has,
//! and the PRD's hash) and the log to the chain head prd.json records
//! ([`ChainHead`]: how many entries, the SHA-256 of the last), which is how
//! removed trailing entries and an edited last line are found.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use zurdo_base::mac::Key;

/// The file's name under `.zurdo/<slug>/`.
pub const FILE: &str = "review-log.jsonl";

/// The `prev` of the first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The entry format's version (`v`).
pub const VERSION: u32 = 1;

/// The field holding an entry's MAC (always last).
const MAC_FIELD: &str = "mac";

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A reviewer's decision on one `[manual]` criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Signed off.
    Approved,
    /// Sent back, with a reason.
    Rejected,
}

impl Decision {
    /// `approved` or `rejected`.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
        }
    }
}

/// One decision (a line of the log, its MAC aside).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The format version ([`VERSION`]).
    pub v: u32,
    /// When it was decided (RFC 3339).
    pub at: String,
    /// Who decided: git's `user.name <user.email>`, else `$USER`.
    pub reviewer: String,
    /// The task id.
    pub task: String,
    /// The criterion, named as its cargo test (`task_2::the_wording_reads_well`).
    pub criterion: String,
    /// Approved or rejected.
    pub decision: Decision,
    /// Why (required for a rejection).
    pub reason: Option<String>,
    /// The attempt whose result was reviewed (0: the task passed at
    /// pre-flight).
    pub attempt: u32,
    /// The git tree reviewed (the task's verified tree); none outside git.
    pub tree: Option<String>,
    /// SHA-256 of the PRD file reviewed against.
    pub prd_sha256: String,
    /// SHA-256 of the previous line ([`GENESIS`] for the first).
    pub prev: String,
}

impl Entry {
    /// The entry as its line (no newline), its MAC under `key` last.
    pub fn to_line(&self, key: &Key) -> String {
        let body = serde_json::to_string(self).unwrap_or_default();
        let mac = key.mac(body.as_bytes());
        let open = body.strip_suffix('}').unwrap_or(&body);
        format!("{open},\"{MAC_FIELD}\":\"{mac}\"}}")
    }
}

/// The chain head prd.json records (under its own MAC): how many entries
/// the log held when zurdo last wrote it, and the SHA-256 of the last one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    /// Entries (lines) in the log.
    pub entries: usize,
    /// SHA-256 of the last line.
    pub head: String,
}

/// One line of the log, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// 1-based line number.
    pub number: usize,
    /// SHA-256 of the line's bytes.
    pub sha256: String,
    /// The entry, when the line parses as one.
    pub entry: Option<Entry>,
    /// What is wrong with it; `None` when it checks.
    pub problem: Option<String>,
}

impl LogLine {
    /// The entry, when the line checks.
    pub fn checked(&self) -> Option<&Entry> {
        self.entry.as_ref().filter(|_| self.problem.is_none())
    }
}

/// The log read back and checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chain {
    /// Every line, in order.
    pub lines: Vec<LogLine>,
    /// A problem of the log as a whole (it cannot be read; entries prd.json
    /// vouches for are missing from its end), found after its last line.
    pub missing: Option<String>,
    /// Lines past the head prd.json records: a review that stopped between
    /// appending its decision and saving prd.json left them; they took no
    /// effect.
    pub unrecorded: Vec<usize>,
    /// Why the log could not be held to a chain head (none recorded, or
    /// prd.json cannot be vouched for): entries removed from its end
    /// cannot be told.
    pub unanchored: Option<String>,
}

impl Chain {
    /// The first thing that does not check: the line (one past the last
    /// for a problem of the log as a whole) and what is wrong.
    pub fn first_break(&self) -> Option<(usize, &str)> {
        self.lines
            .iter()
            .find_map(|l| l.problem.as_deref().map(|p| (l.number, p)))
            .or_else(|| self.missing.as_deref().map(|m| (self.lines.len() + 1, m)))
    }

    /// Lines that do not check.
    pub fn broken(&self) -> usize {
        self.lines.iter().filter(|l| l.problem.is_some()).count()
    }

    /// True when every line checks and nothing is missing.
    pub fn intact(&self) -> bool {
        self.first_break().is_none()
    }

    /// Line `number` (1-based).
    pub fn line(&self, number: usize) -> Option<&LogLine> {
        number.checked_sub(1).and_then(|i| self.lines.get(i))
    }

    /// The `prev` the next entry must carry: the SHA-256 of the last line.
    pub fn next_prev(&self) -> String {
        self.lines
            .last()
            .map_or_else(|| GENESIS.to_string(), |l| l.sha256.clone())
    }

    /// A log that could not be read at all.
    pub fn unreadable(why: String) -> Chain {
        Chain {
            missing: Some(why),
            ..Chain::default()
        }
    }
}

/// What the entries are held to besides the chain itself.
#[derive(Debug, Clone, Copy)]
pub struct Expect<'a> {
    /// The key the MACs are checked under.
    pub key: &'a Key,
    /// The `[manual]` criteria (by test name) of each task the PRD has;
    /// `None`: not checked.
    pub manual: Option<&'a BTreeMap<String, Vec<String>>>,
    /// SHA-256 of the PRD as it is; `None`: not checked.
    pub prd_sha256: Option<&'a str>,
    /// The head prd.json vouches for; `None` when it records none or
    /// cannot be vouched for (`unanchored` says why).
    pub head: Option<&'a ChainHead>,
    /// Why there is no head to hold the log to.
    pub unanchored: Option<&'a str>,
}

/// The JSON a line's MAC was taken over and the MAC, or why the line has
/// none where zurdo writes it.
fn split_mac(line: &str) -> Option<(String, &str)> {
    let marker = format!(",\"{MAC_FIELD}\":\"");
    let at = line.rfind(&marker)?;
    let rest = &line[at + marker.len()..];
    let mac = rest.strip_suffix("\"}")?;
    if mac.contains('"') {
        return None;
    }
    Some((format!("{}}}", &line[..at]), mac))
}

/// One line parsed and its MAC checked.
fn parse_line(text: &str, key: &Key) -> (Option<Entry>, Option<String>) {
    if text.trim().is_empty() {
        return (None, Some("an empty line, not an entry".to_string()));
    }
    let Some((body, mac)) = split_mac(text) else {
        let what = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(_) => "it carries no MAC where zurdo writes one: zurdo did not write it",
            Err(_) => "it does not parse as an entry (not a JSON line zurdo wrote)",
        };
        return (None, Some(what.to_string()));
    };
    let entry = match serde_json::from_str::<Entry>(&body) {
        Ok(entry) => entry,
        Err(e) => return (None, Some(format!("it does not parse as an entry ({e})"))),
    };
    if !key.checks(body.as_bytes(), mac) {
        let what = match key.is_ephemeral() {
            Some(why) => format!("its MAC cannot be checked: no key is kept ({why})"),
            None => "its MAC does not check: it was changed after zurdo wrote it".to_string(),
        };
        return (Some(entry), Some(what));
    }
    (Some(entry), None)
}

/// What is wrong with `entry` against the PRD, when anything is.
fn against_prd(entry: &Entry, expect: &Expect<'_>) -> Option<String> {
    if entry.v != VERSION {
        return Some(format!(
            "format version {} (this zurdo writes {VERSION})",
            entry.v
        ));
    }
    if entry.decision == Decision::Rejected
        && entry.reason.as_deref().is_none_or(|r| r.trim().is_empty())
    {
        return Some("a rejection without a reason".to_string());
    }
    if let Some(manual) = expect.manual {
        match manual.get(&entry.task) {
            None => {
                return Some(format!(
                    "it names task `{}`, which the PRD does not have",
                    entry.task
                ))
            }
            Some(names) if !names.contains(&entry.criterion) => {
                return Some(format!(
                    "it names `{}`, which is not a [manual] criterion of `{}` in the PRD",
                    entry.criterion, entry.task
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(sha) = expect.prd_sha256 {
        if entry.prd_sha256 != sha {
            return Some(format!(
                "it was made against another version of the PRD (sha256 {}…; now {}…)",
                &entry.prd_sha256[..12.min(entry.prd_sha256.len())],
                &sha[..12.min(sha.len())]
            ));
        }
    }
    None
}

/// Reads `bytes` (the whole log) as a chain and checks every line (see the
/// module docs).
pub fn check(bytes: &[u8], expect: &Expect<'_>) -> Chain {
    let text = String::from_utf8_lossy(bytes);
    let mut body = text.as_ref();
    // The last line ends with a newline; a final line without one is a
    // torn write (or an edit) and is checked like the others.
    if let Some(stripped) = body.strip_suffix('\n') {
        body = stripped;
    }
    let mut lines = Vec::new();
    if !bytes.is_empty() {
        let mut prev = GENESIS.to_string();
        let mut prev_checks = true;
        for (i, raw) in body.split('\n').enumerate() {
            let number = i + 1;
            let sha256 = sha256_hex(raw.as_bytes());
            let (entry, mut problem) = parse_line(raw, expect.key);
            if problem.is_none() {
                if let Some(e) = &entry {
                    if e.prev != prev {
                        problem = Some(if number == 1 {
                            "its prev is not the genesis value: entries before it were removed"
                                .to_string()
                        } else if prev_checks {
                            format!("its prev is not the SHA-256 of line {}: an entry was removed, inserted or moved", number - 1)
                        } else {
                            format!("its prev is not the SHA-256 of line {} (which does not check either)", number - 1)
                        });
                    } else {
                        problem = against_prd(e, expect);
                    }
                }
            }
            prev_checks = problem.is_none();
            prev = sha256.clone();
            lines.push(LogLine {
                number,
                sha256,
                entry,
                problem,
            });
        }
    }
    let mut chain = Chain {
        lines,
        unanchored: expect.unanchored.map(str::to_string),
        ..Chain::default()
    };
    if let Some(head) = expect.head {
        let total = chain.lines.len();
        if total < head.entries {
            chain.missing = Some(format!(
                "prd.json records {} entries and the log ends after {total}: entries were removed from its end",
                head.entries
            ));
        } else if head.entries > 0 {
            let last = &mut chain.lines[head.entries - 1];
            if last.sha256 != head.head && last.problem.is_none() {
                last.problem = Some(
                    "its SHA-256 is not the chain head prd.json records: the log was rewritten"
                        .to_string(),
                );
            }
            chain.unrecorded = (head.entries + 1..=total).collect();
        } else {
            chain.unrecorded = (1..=total).collect();
        }
    }
    chain
}

/// The head of `chain` as prd.json records it (none for an empty log).
pub fn head_of(chain: &Chain) -> Option<ChainHead> {
    chain.lines.last().map(|l| ChainHead {
        entries: chain.lines.len(),
        head: l.sha256.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(prev: &str, reason: &str) -> Entry {
        Entry {
            v: VERSION,
            at: "2026-05-01T10:00:00Z".into(),
            reviewer: "Ada <ada@example.com>".into(),
            task: "task-2".into(),
            criterion: "task_2::reads_well".into(),
            decision: Decision::Approved,
            reason: Some(reason.into()),
            attempt: 1,
            tree: Some("a".repeat(40)),
            prd_sha256: "p".repeat(64),
            prev: prev.into(),
        }
    }

    fn log(key: &Key, reasons: &[&str]) -> String {
        let mut out = String::new();
        let mut prev = GENESIS.to_string();
        for r in reasons {
            let line = entry(&prev, r).to_line(key);
            prev = sha256_hex(line.as_bytes());
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    fn expect(key: &Key) -> Expect<'_> {
        Expect {
            key,
            manual: None,
            prd_sha256: None,
            head: None,
            unanchored: None,
        }
    }

    #[test]
    fn the_line_format_is_fixed() {
        let key = Key::from_bytes([1; 32]);
        let line = entry(GENESIS, "fine").to_line(&key);
        assert!(
            line.starts_with("{\"v\":1,\"at\":\"2026-05-01T10:00:00Z\",\"reviewer\":\"Ada <ada@example.com>\",\"task\":\"task-2\",\"criterion\":\"task_2::reads_well\",\"decision\":\"approved\",\"reason\":\"fine\",\"attempt\":1,\"tree\":\"aaaa"),
            "{line}"
        );
        let body = line.split(",\"mac\":").next().expect("body").to_string() + "}";
        assert!(line.ends_with(&format!(",\"mac\":\"{}\"}}", key.mac(body.as_bytes()))));
        assert!(!line.contains('\n'));
    }

    #[test]
    fn an_intact_chain_checks_and_each_break_is_named() {
        let key = Key::from_bytes([1; 32]);
        let text = log(&key, &["one", "two", "three"]);
        let chain = check(text.as_bytes(), &expect(&key));
        assert!(chain.intact(), "{chain:?}");
        assert_eq!(chain.lines.len(), 3);
        assert_eq!(head_of(&chain).expect("head").entries, 3);

        // An edited reason: that line's MAC fails, and the next line's prev
        // no longer matches; the line after that stands.
        let edited = text.replacen("\"two\"", "\"TWO\"", 1);
        let chain = check(edited.as_bytes(), &expect(&key));
        let (line, what) = chain.first_break().expect("broken");
        assert_eq!(line, 2);
        assert!(what.contains("MAC does not check"), "{what}");
        assert!(chain.line(3).expect("3").problem.is_some());
        assert_eq!(chain.broken(), 2);

        // A removed line: the one after it names the gap.
        let lines: Vec<&str> = text.lines().collect();
        let removed = format!("{}\n{}\n", lines[0], lines[2]);
        let chain = check(removed.as_bytes(), &expect(&key));
        let (line, what) = chain.first_break().expect("broken");
        assert_eq!(line, 2);
        assert!(what.contains("not the SHA-256 of line 1"), "{what}");

        // Another key: nothing checks.
        let other = Key::from_bytes([2; 32]);
        assert_eq!(check(text.as_bytes(), &expect(&other)).broken(), 3);

        // Garbage.
        let chain = check(b"hello\n", &expect(&key));
        assert!(chain
            .first_break()
            .expect("broken")
            .1
            .contains("does not parse"));
    }

    #[test]
    fn the_head_in_prd_json_finds_removed_and_rewritten_ends() {
        let key = Key::from_bytes([1; 32]);
        let text = log(&key, &["one", "two"]);
        let full = check(text.as_bytes(), &expect(&key));
        let head = head_of(&full).expect("head");
        let with = |bytes: &[u8]| {
            check(
                bytes,
                &Expect {
                    head: Some(&head),
                    ..expect(&key)
                },
            )
        };
        assert!(with(text.as_bytes()).intact());
        let first = format!("{}\n", text.lines().next().expect("a line"));
        let (line, what) = with(first.as_bytes())
            .first_break()
            .map(|(l, w)| (l, w.to_string()))
            .expect("broken");
        assert_eq!(line, 2);
        assert!(what.contains("removed from its end"), "{what}");
        // One more (well-formed) line than recorded: unrecorded, not broken.
        let more = log(&key, &["one", "two", "three"]);
        let chain = with(more.as_bytes());
        assert!(chain.intact(), "{chain:?}");
        assert_eq!(chain.unrecorded, vec![3]);
    }

    #[test]
    fn entries_are_held_to_the_prd() {
        let key = Key::from_bytes([1; 32]);
        let text = log(&key, &["one"]);
        let mut manual = BTreeMap::new();
        manual.insert("task-2".to_string(), vec!["task_2::other".to_string()]);
        let chain = check(
            text.as_bytes(),
            &Expect {
                manual: Some(&manual),
                ..expect(&key)
            },
        );
        assert!(chain
            .first_break()
            .expect("broken")
            .1
            .contains("not a [manual] criterion"));
        let sha = "q".repeat(64);
        let chain = check(
            text.as_bytes(),
            &Expect {
                prd_sha256: Some(&sha),
                ..expect(&key)
            },
        );
        assert!(chain
            .first_break()
            .expect("broken")
            .1
            .contains("another version of the PRD"));
    }
}
