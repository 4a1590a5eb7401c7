//! Hints: the machine-checkable part of an acceptance criterion.
//!
//! A hint is written `[kind: payload]` at the end of a criterion line. Its
//! payload is parsed into a typed [`Check`] at validate time, so a malformed
//! `http` or `grep` payload is a validation error rather than a run-time
//! surprise.

use serde::Serialize;

use crate::limits;
use crate::paths::{self, RepoPath};
use crate::suggest::closest;

/// Every hint kind, as written before the colon.
pub const HINT_KINDS: [&str; 10] = [
    "shell",
    "http",
    "file-exists",
    "file-absent",
    "grep",
    "no-grep",
    "symbol",
    "references",
    "callers",
    "manual",
];

/// One hint of a criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hint {
    /// The typed check.
    #[serde(flatten)]
    pub check: Check,
    /// The hint as written, brackets included, e.g. `[shell: cargo test]`.
    pub source: String,
}

impl Hint {
    /// True for `[manual]`.
    pub fn is_manual(&self) -> bool {
        matches!(self.check, Check::Manual)
    }

    /// The kind name as written in a PRD (`file-exists`, `no-grep`, …).
    pub fn kind(&self) -> &'static str {
        self.check.kind()
    }
}

/// What a hint checks, with its payload parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Check {
    /// `[shell: <command>]`: run with `sh -c` at the repository root; exit 0 passes.
    Shell {
        /// The command line, verbatim.
        command: String,
    },
    /// `[http: METHOD URL -> STATUS]`: one request; the status must match.
    Http(HttpCheck),
    /// `[file-exists: <path>]`.
    FileExists {
        /// Repository-relative path.
        path: RepoPath,
    },
    /// `[file-absent: <path>]`.
    FileAbsent {
        /// Repository-relative path.
        path: RepoPath,
    },
    /// `[grep: REGEX in PATH-OR-GLOB]`: some file matches.
    Grep(GrepCheck),
    /// `[no-grep: REGEX in PATH-OR-GLOB]`: no file matches.
    NoGrep(GrepCheck),
    /// `[symbol: a::b]`: the symbol is defined.
    Symbol {
        /// The qualified name.
        name: QualifiedName,
    },
    /// `[references: a::b]`: some other site references the symbol.
    References {
        /// The qualified name.
        name: QualifiedName,
    },
    /// `[callers: a::b]`, `[callers: a::b >= 2]`, `[callers: a::b from c::d]`.
    Callers(CallersCheck),
    /// `[manual]`: a human signs it off; never passes automatically.
    Manual,
}

impl Check {
    /// The kind name as written in a PRD.
    pub fn kind(&self) -> &'static str {
        match self {
            Check::Shell { .. } => "shell",
            Check::Http(_) => "http",
            Check::FileExists { .. } => "file-exists",
            Check::FileAbsent { .. } => "file-absent",
            Check::Grep(_) => "grep",
            Check::NoGrep(_) => "no-grep",
            Check::Symbol { .. } => "symbol",
            Check::References { .. } => "references",
            Check::Callers(_) => "callers",
            Check::Manual => "manual",
        }
    }
}

/// The payload of an `http` hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HttpCheck {
    /// Upper-case HTTP method.
    pub method: String,
    /// The URL as written.
    pub url: String,
    /// The host part of the URL (brackets stripped for IPv6).
    pub host: String,
    /// The explicit port, when the URL has one.
    pub port: Option<u16>,
    /// The expected status code.
    pub status: u16,
}

/// The payload of a `grep` or `no-grep` hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepCheck {
    /// The regular expression (Rust `regex` syntax), already checked to compile.
    pub pattern: String,
    /// A repository-relative path or a glob.
    pub target: RepoPath,
    /// True when `target` contains glob metacharacters.
    pub target_is_glob: bool,
}

/// The payload of a `callers` hint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallersCheck {
    /// The function whose callers are counted.
    pub name: QualifiedName,
    /// `>= N`: at least this many distinct callers (default 1).
    pub min: u32,
    /// `from X`: this named function must be among the callers.
    pub from: Option<QualifiedName>,
}

/// A `::`-separated name, the same in every language (`Config::load`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct QualifiedName {
    /// The segments, outermost first.
    pub segments: Vec<String>,
}

impl From<QualifiedName> for String {
    fn from(name: QualifiedName) -> String {
        name.to_string()
    }
}

impl std::fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.segments.join("::"))
    }
}

/// Why a hint's payload was rejected, with the fix when one is obvious.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintError {
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is an obvious fix.
    pub fix: Option<String>,
}

impl HintError {
    /// An error without a fix.
    pub fn new(message: impl Into<String>) -> Self {
        HintError {
            message: message.into(),
            fix: None,
        }
    }

    /// An error with its fix.
    pub fn with_fix(message: impl Into<String>, fix: impl Into<String>) -> Self {
        HintError {
            message: message.into(),
            fix: Some(fix.into()),
        }
    }
}

/// How the text inside one trailing `[…]` block reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// A hint with a valid payload.
    Hint(Check),
    /// A `[proves:<req-id>]` modifier (the id is checked later).
    Proves(String),
    /// The `[removes-tests]` modifier: the task means its runner to run
    /// fewer tests than at pre-flight (it removes tests on purpose).
    RemovesTests,
    /// Not shaped like a hint at all (`[edge]`): it belongs to the title.
    Text,
}

/// Parses one whole hint as written, brackets included (`[grep: x in y]`),
/// as standing rules in config are. `[manual]` is refused: a standing rule
/// must be checkable by zurdo.
pub fn parse_hint(text: &str) -> Result<Hint, HintError> {
    let trimmed = text.trim();
    let Some(inner) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
        return Err(HintError::with_fix(
            format!("`{trimmed}` is not a hint in brackets"),
            "write it as in a PRD, e.g. \"[no-grep: todo!\\( in src/**/*.rs]\"",
        ));
    };
    match read_block(inner)? {
        Block::Hint(Check::Manual) => Err(HintError::with_fix(
            "[manual] cannot be a standing rule",
            "a standing rule must be a hint zurdo can check: shell, grep, no-grep, file-exists, file-absent, symbol, references or callers",
        )),
        Block::Hint(check) => Ok(Hint { check, source: trimmed.to_string() }),
        Block::Proves(_) | Block::RemovesTests | Block::Text => Err(HintError::with_fix(
            format!("`{trimmed}` is not a hint"),
            format!("known kinds: {}", HINT_KINDS.join(", ")),
        )),
    }
}

/// The modifier a criterion carries when its task removes tests on purpose.
pub const REMOVES_TESTS: &str = "removes-tests";

/// Reads the text inside one bracket block (brackets excluded).
///
/// Returns [`Block::Text`] for text that is not shaped like a hint (no
/// `word:` prefix and not a bare hint kind), so `[edge]` stays title.
pub fn read_block(inner: &str) -> Result<Block, HintError> {
    let trimmed = inner.trim();
    let (name, payload) = match trimmed.split_once(':') {
        Some((name, payload)) if is_kind_shaped(name.trim_end()) => {
            (name.trim_end(), Some(payload.trim()))
        }
        _ if HINT_KINDS.contains(&trimmed) || trimmed == "proves" => (trimmed, None),
        _ if trimmed == REMOVES_TESTS => return Ok(Block::RemovesTests),
        _ => return Ok(Block::Text),
    };
    if name == REMOVES_TESTS {
        return Err(HintError::with_fix(
            "[removes-tests] takes no payload",
            "write [removes-tests] after the criterion's hints",
        ));
    }
    if name == "proves" {
        return match payload {
            Some(id) if !id.is_empty() => Ok(Block::Proves(id.to_string())),
            _ => Err(HintError::with_fix(
                "[proves:] names no requirement",
                "write [proves:req-<id>] with an id from the task's ### Requirements",
            )),
        };
    }
    if !HINT_KINDS.contains(&name) {
        return Err(unknown_kind(name));
    }
    if name == "manual" {
        return match payload {
            None | Some("") => Ok(Block::Hint(Check::Manual)),
            Some(_) => Err(HintError::with_fix(
                "[manual] takes no payload",
                "write [manual] and put the reviewer's instructions in the criterion's text",
            )),
        };
    }
    let payload = payload.unwrap_or("");
    if let Some(at) = payload.find('\0') {
        return Err(HintError::with_fix(
            format!(
                "[{name}:] payload has a NUL byte (U+0000) at byte {}; no command line, path or URL can carry one",
                at + 1
            ),
            "remove the NUL byte (a [shell:] command that must print one can run `printf '\\0'`)",
        ));
    }
    if payload.is_empty() {
        return Err(HintError::with_fix(
            format!("[{name}:] has an empty payload"),
            format!("write {}", example(name)),
        ));
    }
    parse_payload(name, payload).map(Block::Hint)
}

fn is_kind_shaped(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn unknown_kind(name: &str) -> HintError {
    let known = HINT_KINDS.join(", ");
    let normalized = name.to_ascii_lowercase().replace('_', "-");
    let guess = if HINT_KINDS.contains(&normalized.as_str()) {
        Some(normalized)
    } else {
        closest(&normalized, HINT_KINDS.iter().copied()).map(str::to_string)
    };
    match guess {
        Some(g) => HintError::with_fix(
            format!("unknown hint kind `{name}`"),
            format!("did you mean `{g}`? known kinds: {known}"),
        ),
        None => HintError::with_fix(
            format!("unknown hint kind `{name}`"),
            format!("known kinds: {known}"),
        ),
    }
}

/// A one-line example of each kind, used in fixes.
pub fn example(kind: &str) -> &'static str {
    match kind {
        "shell" => "[shell: cargo test --workspace]",
        "http" => "[http: GET http://localhost:8080/health -> 200]",
        "file-exists" => "[file-exists: src/main.rs]",
        "file-absent" => "[file-absent: src/legacy.rs]",
        "grep" => "[grep: fn main in src/main.rs]",
        "no-grep" => "[no-grep: todo!\\( in src/**/*.rs]",
        "symbol" => "[symbol: Config::load]",
        "references" => "[references: Config::load]",
        "callers" => "[callers: Config::load]",
        _ => "[manual]",
    }
}

fn parse_payload(kind: &str, payload: &str) -> Result<Check, HintError> {
    Ok(match kind {
        "shell" => Check::Shell {
            command: shell_command(payload)?,
        },
        "http" => Check::Http(parse_http(payload)?),
        "file-exists" => Check::FileExists {
            path: file_path(kind, payload)?,
        },
        "file-absent" => Check::FileAbsent {
            path: file_path(kind, payload)?,
        },
        "grep" => Check::Grep(parse_grep(kind, payload)?),
        "no-grep" => Check::NoGrep(parse_grep(kind, payload)?),
        "symbol" => Check::Symbol {
            name: parse_name(kind, payload)?,
        },
        "references" => Check::References {
            name: parse_name(kind, payload)?,
        },
        "callers" => Check::Callers(parse_callers(payload)?),
        _ => return Err(unknown_kind(kind)),
    })
}

/// A `[shell:]` command: one argument of `sh -c`, so within the kernel's
/// limit on one argument ([`limits::MAX_SHELL_COMMAND_BYTES`]).
fn shell_command(payload: &str) -> Result<String, HintError> {
    let max = limits::MAX_SHELL_COMMAND_BYTES;
    if payload.len() > max {
        return Err(HintError::with_fix(
            format!(
                "[shell:] command is {} bytes long, more than {max}, the longest argument `sh -c` can be given",
                payload.len()
            ),
            "put the commands in a script in the repository and run it: [shell: sh scripts/check.sh]",
        ));
    }
    Ok(payload.to_string())
}

fn file_path(kind: &str, payload: &str) -> Result<RepoPath, HintError> {
    if paths::has_glob_meta(payload) {
        return Err(HintError::with_fix(
            format!("[{kind}:] takes one path, not a glob: `{payload}`"),
            "name a single file or directory; use [grep:]/[no-grep:] to check many files",
        ));
    }
    RepoPath::parse(payload).map_err(|e| HintError::with_fix(format!("[{kind}:] {e}"), paths::FIX))
}

const METHODS: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

fn parse_http(payload: &str) -> Result<HttpCheck, HintError> {
    let shape =
        "write [http: METHOD URL -> STATUS], e.g. [http: GET http://localhost:8080/health -> 200]";
    let Some((request, status)) = payload.rsplit_once("->") else {
        return Err(HintError::with_fix(
            format!("[http:] payload `{payload}` has no `-> STATUS`"),
            shape,
        ));
    };
    let status_text = status.trim();
    let status = match status_text.parse::<u16>() {
        Ok(s) if (100..=599).contains(&s) && status_text.len() == 3 => s,
        _ => {
            return Err(HintError::with_fix(
                format!("[http:] status `{status_text}` is not an HTTP status code (100-599)"),
                shape,
            ))
        }
    };
    let mut words = request.split_whitespace();
    let (Some(method), Some(url), None) = (words.next(), words.next(), words.next()) else {
        return Err(HintError::with_fix(
            format!("[http:] request `{}` is not `METHOD URL`", request.trim()),
            shape,
        ));
    };
    if !METHODS.contains(&method) {
        let upper = method.to_ascii_uppercase();
        let fix = if METHODS.contains(&upper.as_str()) {
            format!("write the method in upper case: {upper}")
        } else {
            format!("use one of {}", METHODS.join(", "))
        };
        return Err(HintError::with_fix(
            format!("[http:] unknown method `{method}`"),
            fix,
        ));
    }
    let (host, port) = split_authority(url).map_err(|e| HintError::with_fix(e, shape))?;
    // The parser the request is sent with (ureq takes its URL as an
    // `http::Uri`), so a URL validate accepts is one verify can send.
    if let Err(e) = http::Uri::try_from(url) {
        return Err(HintError::with_fix(
            format!("[http:] URL `{url}` cannot be sent: {e}"),
            "percent-encode what a URL cannot hold as written (control characters, `<`, `>`, `\\`, `^`), e.g. `%5E` for `^`, and keep it under 64 KiB",
        ));
    }
    Ok(HttpCheck {
        method: method.to_string(),
        url: url.to_string(),
        host,
        port,
        status,
    })
}

/// Extracts host and explicit port from an `http://` or `https://` URL.
fn split_authority(url: &str) -> Result<(String, Option<u16>), String> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| format!("[http:] URL `{url}` must start with http:// or https://"))?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("[http:] URL `{url}` has an unclosed IPv6 bracket"))?;
        (host, after.strip_prefix(':'))
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return Err(format!("[http:] URL `{url}` has no host"));
    }
    let port = match port {
        None => None,
        Some(p) => Some(
            p.parse::<u16>()
                .map_err(|_| format!("[http:] URL `{url}` has an invalid port `{p}`"))?,
        ),
    };
    Ok((host.to_ascii_lowercase(), port))
}

fn parse_grep(kind: &str, payload: &str) -> Result<GrepCheck, HintError> {
    let Some((pattern, target)) = payload.rsplit_once(" in ") else {
        return Err(HintError::with_fix(
            format!("[{kind}:] payload `{payload}` has no ` in PATH-OR-GLOB`"),
            format!(
                "write [{kind}: REGEX in PATH-OR-GLOB], e.g. {}",
                example(kind)
            ),
        ));
    };
    let pattern = pattern.trim();
    let target = target.trim();
    if pattern.is_empty() {
        return Err(HintError::with_fix(
            format!("[{kind}:] has an empty pattern before ` in `"),
            format!("write [{kind}: REGEX in PATH-OR-GLOB]"),
        ));
    }
    if let Err(e) = check_regex(pattern) {
        return Err(regex_error(kind, pattern, &e));
    }
    let target_is_glob = paths::has_glob_meta(target);
    let target = RepoPath::parse(target)
        .map_err(|e| HintError::with_fix(format!("[{kind}:] {e}"), paths::FIX))?;
    if target_is_glob {
        if let Err(e) = grep_glob(target.as_str()) {
            return Err(HintError::new(format!(
                "[{kind}:] glob `{target}` is invalid: {e}"
            )));
        }
    }
    Ok(GrepCheck {
        pattern: pattern.to_string(),
        target,
        target_is_glob,
    })
}

/// Builds a `[grep:]`/`[no-grep:]` pattern exactly as the verifier does:
/// `regex::bytes` (so a pattern may match bytes that are not UTF-8), with
/// `^` and `$` matching at line ends, and the default size limits. Validate
/// and verify both build through here, so they cannot disagree.
pub fn grep_regex(pattern: &str) -> Result<regex::bytes::Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(pattern)
        .multi_line(true)
        .build()
}

/// Builds a `[grep:]`/`[no-grep:]` glob target exactly as the verifier
/// does (`*` stays within one path segment).
pub fn grep_glob(glob: &str) -> Result<globset::Glob, globset::Error> {
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
}

/// Patterns built without error during the parse under way on this thread,
/// so a pattern repeated across a PRD (`todo!\(` in every task) is built
/// once. Bounded: cleared when it would hold more than a MiB of patterns,
/// and after each parse ([`crate::parse`] calls [`forget_patterns`]).
mod seen {
    use std::cell::RefCell;
    use std::collections::HashSet;

    /// The most pattern bytes remembered.
    pub(super) const SEEN_BYTES: usize = 1 << 20;

    thread_local! {
        static SEEN: RefCell<(HashSet<String>, usize)> = RefCell::new((HashSet::new(), 0));
    }

    pub(super) fn clear() {
        SEEN.with(|s| *s.borrow_mut() = (HashSet::new(), 0));
    }

    pub(super) fn contains(pattern: &str) -> bool {
        SEEN.with(|s| s.borrow().0.contains(pattern))
    }

    pub(super) fn insert(pattern: &str) {
        SEEN.with(|s| {
            let mut s = s.borrow_mut();
            if s.1 + pattern.len() > SEEN_BYTES {
                s.0.clear();
                s.1 = 0;
            }
            if pattern.len() <= SEEN_BYTES && s.0.insert(pattern.to_string()) {
                s.1 += pattern.len();
            }
        });
    }
}

/// Forgets the patterns remembered as built, so each parse builds each of
/// its distinct patterns once, and no memory is held between parses.
pub(crate) fn forget_patterns() {
    seen::clear();
}

/// Checks that `pattern` builds with [`grep_regex`], remembering success.
fn check_regex(pattern: &str) -> Result<(), regex::Error> {
    if seen::contains(pattern) {
        return Ok(());
    }
    grep_regex(pattern)?;
    seen::insert(pattern);
    Ok(())
}

fn regex_error(kind: &str, pattern: &str, e: &regex::Error) -> HintError {
    match e {
        regex::Error::CompiledTooBig(limit) => HintError::with_fix(
            format!(
                "[{kind}:] pattern `{pattern}` is too large to build: its compiled form exceeds the regex size limit ({limit} bytes)"
            ),
            "use smaller repetition counts (`a{1000}{1000}` asks for a million copies) or a simpler pattern",
        ),
        _ => {
            let detail = e.to_string();
            let last = detail
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            HintError::with_fix(
                format!(
                    "[{kind}:] pattern `{pattern}` is not a valid regex: {}",
                    last.trim()
                ),
                "escape regex metacharacters with a backslash, e.g. `fn main\\(\\)`",
            )
        }
    }
}

fn parse_callers(payload: &str) -> Result<CallersCheck, HintError> {
    if let Some((name, min)) = payload.split_once(">=") {
        let min_text = min.trim();
        let min = match min_text.parse::<u32>() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(HintError::with_fix(
                    format!("[callers:] count `{min_text}` is not a positive integer"),
                    "write [callers: Config::load >= 2]",
                ))
            }
        };
        return Ok(CallersCheck {
            name: parse_name("callers", name.trim())?,
            min,
            from: None,
        });
    }
    if let Some((name, from)) = payload.split_once(" from ") {
        return Ok(CallersCheck {
            name: parse_name("callers", name.trim())?,
            min: 1,
            from: Some(parse_name("callers", from.trim())?),
        });
    }
    Ok(CallersCheck {
        name: parse_name("callers", payload)?,
        min: 1,
        from: None,
    })
}

fn parse_name(kind: &str, text: &str) -> Result<QualifiedName, HintError> {
    let fix_separator = || {
        let suggestion = text.replace(['.', '/'], "::").replace("\\", "::");
        HintError::with_fix(
            format!("[{kind}:] name `{text}` must use `::` between segments"),
            format!("qualified names use `::` in every language: write `{suggestion}`"),
        )
    };
    if text.contains('.') || text.contains('/') || text.contains('\\') {
        return Err(fix_separator());
    }
    let segments: Vec<String> = text.split("::").map(str::to_string).collect();
    for segment in &segments {
        let mut chars = segment.chars();
        let ok = matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
            && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$');
        if !ok {
            return Err(HintError::with_fix(
                format!("[{kind}:] `{text}` is not a qualified name"),
                "write identifiers separated by `::`, e.g. `Config::load` or `pkg::Type::method`",
            ));
        }
    }
    Ok(QualifiedName { segments })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Validate's check of a pattern agrees with the verifier's builder,
    /// both ways, cached or not.
    #[test]
    fn regex_check_agrees_with_the_verifier_builder() {
        let long_literal = "x".repeat(5000);
        let patterns = [
            "fn main\\(",
            "todo!\\(",
            "^fn main$",
            "\\bword\\b",
            "",
            "(?-u:\\xFF)",
            "a{1000}{1000}",
            "\\w{1000}",
            "(a|b)*c",
            "(?i)hello",
            "[a-",
            "a)",
            "(?P<n>x)(?P<n>y)",
            long_literal.as_str(),
        ];
        for p in patterns.iter().chain(&patterns) {
            assert_eq!(
                check_regex(p).is_ok(),
                grep_regex(p).is_ok(),
                "{}",
                p.get(..40).unwrap_or(p)
            );
        }
        assert!(
            check_regex("(?-u:\\xFF)").is_ok(),
            "bytes patterns are allowed"
        );
        assert!(matches!(
            check_regex("a{1000}{1000}"),
            Err(regex::Error::CompiledTooBig(_))
        ));
    }

    #[test]
    fn a_nul_byte_in_any_payload_is_refused() {
        for hint in [
            "[shell: printf 'a\0b']",
            "[file-exists: a\0b]",
            "[grep: x in a\0b]",
            "[http: GET http://localhost/\0 -> 200]",
        ] {
            let e = parse_hint(hint).expect_err(hint);
            assert!(
                e.message.contains("payload has a NUL byte (U+0000)"),
                "{e:?}"
            );
            assert!(e.fix.is_some_and(|f| f.starts_with("remove the NUL byte")));
        }
    }

    #[test]
    fn the_pattern_cache_stays_bounded() {
        let big = "y".repeat(seen::SEEN_BYTES / 2 + 1);
        seen::insert(&big);
        assert!(seen::contains(&big));
        seen::insert(&big.replace('y', "z"));
        assert!(!seen::contains(&big), "cleared once over the bound");
        seen::insert(&"w".repeat(seen::SEEN_BYTES + 1));
        assert!(!seen::contains(&"w".repeat(seen::SEEN_BYTES + 1)));
    }
}
