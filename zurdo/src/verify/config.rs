//! The `[verification]` section of `.zurdo/config.toml`: the settings that
//! change verdicts.

use std::path::{Path, PathBuf};

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::{limits, paths};

/// Where the config lives, relative to the repository root.
pub const CONFIG_PATH: &str = ".zurdo/config.toml";

/// The largest `http_read_limit`: 64 MiB of an `[http:]` response body held
/// in memory at most.
pub const MAX_HTTP_READ_LIMIT: u64 = 64 * 1024 * 1024;

/// Settings that change how hints are judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VerificationConfig {
    /// Seconds one hint may run before its process group is killed.
    pub criterion_seconds: u64,
    /// The most bytes of an `[http:]` response body zurdo reads.
    pub http_read_limit: u64,
    /// Environment variables passed to `[shell:]` hints, added to the
    /// defaults ([`super::env::DEFAULT_ALLOWLIST`]). Entries may end in `*`.
    pub env_allowlist: Vec<String>,
    /// Run-wide globs the agent must not modify (enforced by the run loop).
    pub protected_paths: Vec<String>,
    /// Repository-wide invariants checked after every task's criteria, on
    /// every attempt (`[[verification.standing]]`).
    pub standing: Vec<StandingRuleConfig>,
    /// The most seconds the whole standing set may take at once.
    pub standing_budget_seconds: u64,
    /// Re-verify every passing iteration in a fresh checkout of the verified
    /// tree: `"off"` (default), `"checkout"` (a temporary directory) or
    /// `"bubblewrap"` (the checkout, with `[shell:]` hints sandboxed by
    /// `bwrap` so they cannot read the working tree).
    pub clean_room: String,
    /// Give every criterion `ZURDO_VERIFY=1` (default false: nothing in a
    /// criterion's environment tells it apart from a plain run of the same
    /// command, so a test cannot behave differently when zurdo judges it).
    pub zurdo_verify_env: bool,
    /// When the criteria of tasks that already passed run again:
    /// `"run-end"` (default: once, against the final tree; a task that no
    /// longer holds becomes `failed`), `"each-task"` (also after every
    /// task's passing attempt, which fails on a regression while the agent
    /// can still fix it) or `"off"`.
    pub regression_guard: String,
    /// The coverage gate (`[verification.coverage]`): off without sources.
    pub coverage: CoverageConfig,
    /// A criterion already green at pre-flight is no evidence for its task:
    /// a task needs one that was red then and is green now, else it ends
    /// `unproven` (default false: it passes with a warning).
    pub require_red_first: bool,
    /// Compare the verdict surface at every attempt with the task's start:
    /// the files that decide how tests are found and judged (pytest's
    /// settings, `conftest.py` hooks, `Cargo.toml`'s test switches, the
    /// `package.json` scripts and Makefile recipes the hints run, jest and
    /// vitest configs). A change that matters fails the attempt as
    /// `verdict_surface_changed`. Default `true`.
    pub verdict_surface: bool,
    /// More globs of the verdict surface, each file compared whole (a
    /// custom runner's config, say). Default none.
    pub verdict_surface_extra: Vec<String>,
    /// Compare the environment surface at every attempt with the run's
    /// start: a tool a hint runs that resolves to a file inside the
    /// repository and changed (or a new shim that shadows it), a python
    /// startup hook, a cargo or npm config, a `BASH_ENV` file. Such a
    /// change fails the attempt as `environment_planted`; a changed binary
    /// outside the repository only warns. Default `true`.
    pub environment_surface: bool,
    /// Repository globs neither surface watches: a task whose job is to
    /// write the test machinery itself. Default none.
    pub surface_exempt: Vec<String>,
    /// The sealed criteria's file ([`crate::sealed`]): criteria the agent
    /// never sees, outside the repository (`~` is the home directory; a
    /// relative path is the repository's). `zurdo run --sealed` overrides
    /// it. Default none.
    pub sealed: Option<String>,
    /// Where the agent's CLI runs: `"off"` (default: as the user, like any
    /// program they start) or `"bubblewrap"` (under `bwrap`: the sealed
    /// file and zurdo's MAC key unreadable, `.zurdo/` and `.git/`
    /// read-only, its own process namespace; the network stays on). It is
    /// a verification setting because it decides whether sealed criteria
    /// are sealed and whether the agent can reach zurdo's records.
    pub agent_sandbox: String,
}

/// `[verification.coverage]`: after a task's criteria pass, the share of
/// the lines it changed that its tests executed must reach `threshold`,
/// read from the coverage reports the criteria's own commands write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CoverageConfig {
    /// Repository-relative paths or globs of the reports (lcov, Cobertura
    /// XML, coverage.py JSON, Go cover profiles); none turns the gate off.
    pub sources: Vec<String>,
    /// The least share (0 to 1) of changed code lines executed.
    pub threshold: f64,
}

impl Default for CoverageConfig {
    fn default() -> Self {
        CoverageConfig {
            sources: Vec::new(),
            threshold: 0.8,
        }
    }
}

impl CoverageConfig {
    /// True when the gate runs (some source is named).
    pub fn enabled(&self) -> bool {
        !self.sources.is_empty()
    }
}

// The threshold is checked finite when the config is read.
impl Eq for CoverageConfig {}

/// One `[[verification.standing]]` entry as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StandingRuleConfig {
    /// The hint, written as in a PRD: `"[no-grep: dbg!\\( in src/**/*.rs]"`.
    pub hint: String,
    /// Why the rule holds for every task.
    pub why: String,
}

/// A checked standing rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingRule {
    /// The parsed hint.
    pub hint: crate::hint::Hint,
    /// Why it holds.
    pub why: String,
}

/// The hint kinds a standing rule may use (no `[manual]`, no `[http:]`).
const STANDING_KINDS: [&str; 8] = [
    "shell",
    "grep",
    "no-grep",
    "file-exists",
    "file-absent",
    "symbol",
    "references",
    "callers",
];

impl Default for VerificationConfig {
    fn default() -> Self {
        VerificationConfig {
            criterion_seconds: 600,
            http_read_limit: 1024 * 1024,
            env_allowlist: Vec::new(),
            protected_paths: Vec::new(),
            standing: Vec::new(),
            standing_budget_seconds: 30,
            clean_room: "off".to_string(),
            zurdo_verify_env: false,
            regression_guard: "run-end".to_string(),
            coverage: CoverageConfig::default(),
            require_red_first: false,
            verdict_surface: true,
            verdict_surface_extra: Vec::new(),
            environment_surface: true,
            surface_exempt: Vec::new(),
            sealed: None,
            agent_sandbox: "off".to_string(),
        }
    }
}

/// The file as the verifier reads it: `[verification]` strictly, other
/// sections (owned by the run loop) are left to their own reader, unread
/// (not even buffered as TOML values, which hold no integer above
/// `i64::MAX`).
#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    verification: VerificationConfig,
}

/// A config file that could not be read or is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong, naming the key and line.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ConfigError {}

impl VerificationConfig {
    /// Reads `<root>/.zurdo/config.toml`; the defaults when there is none.
    pub fn load(root: &Path) -> Result<VerificationConfig, ConfigError> {
        let path = root.join(CONFIG_PATH);
        let text = match crate::source::read_config(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => {
                return Err(ConfigError {
                    path,
                    message: format!("cannot read: {e}"),
                })
            }
        };
        Self::parse(&text).map_err(|message| ConfigError { path, message })
    }

    /// Parses config text, checking every `[verification]` key and value:
    /// durations within [`limits::MAX_DURATION_SECONDS`], `http_read_limit`
    /// within [`MAX_HTTP_READ_LIMIT`], each `protected_paths` glob as a
    /// `**Frozen**` glob is checked (returned normalized), and the standing
    /// rules. An error names the line and says the fix.
    pub fn parse(text: &str) -> Result<VerificationConfig, String> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| describe(text, &e))?;
        let mut v = file.verification;
        // Where each value is, for the errors below; the text parsed above,
        // so this parses too (else the errors go without a line).
        let spans = toml::from_str::<SpansFile>(text)
            .map(|f| f.verification)
            .unwrap_or_default();
        let at = |span: &Option<Spanned<IgnoredAny>>, message: String| {
            locate(text, span.as_ref().map(Spanned::span), &message)
        };
        let seconds = |key: &str, value: u64, span: &Option<Spanned<IgnoredAny>>| {
            limits::check_seconds("[verification]", key, value).map_err(|m| at(span, m))
        };
        seconds(
            "criterion_seconds",
            v.criterion_seconds,
            &spans.criterion_seconds,
        )?;
        seconds(
            "standing_budget_seconds",
            v.standing_budget_seconds,
            &spans.standing_budget_seconds,
        )?;
        limits::check_count(
            "[verification]",
            "http_read_limit",
            v.http_read_limit,
            1,
            MAX_HTTP_READ_LIMIT,
            Some("64 MiB"),
        )
        .map_err(|m| at(&spans.http_read_limit, m))?;
        if !matches!(v.clean_room.as_str(), "off" | "checkout" | "bubblewrap") {
            return Err(at(
                &spans.clean_room,
                format!(
                    "[verification] clean_room = \"{}\": use \"off\", \"checkout\" or \"bubblewrap\"",
                    v.clean_room
                ),
            ));
        }
        if !matches!(v.agent_sandbox.as_str(), "off" | "bubblewrap") {
            return Err(at(
                &spans.agent_sandbox,
                format!(
                    "[verification] agent_sandbox = \"{}\": use \"off\" or \"bubblewrap\"",
                    v.agent_sandbox
                ),
            ));
        }
        let threshold = v.coverage.threshold;
        if !(0.0..=1.0).contains(&threshold) {
            return Err(at(
                &spans.coverage,
                format!("[verification.coverage] threshold = {threshold}: use a number from 0 to 1 (0.8: four changed code lines in five executed by the tests)"),
            ));
        }
        let mut sources = Vec::with_capacity(v.coverage.sources.len());
        for source in &v.coverage.sources {
            let path = paths::frozen_glob(source).map_err(|e| {
                at(
                    &spans.coverage,
                    format!("[verification.coverage] sources {e}"),
                )
            })?;
            sources.push(path.as_str().to_string());
        }
        v.coverage.sources = sources;
        if !matches!(v.regression_guard.as_str(), "run-end" | "each-task" | "off") {
            return Err(at(
                &spans.regression_guard,
                format!(
                    "[verification] regression_guard = \"{}\": use \"run-end\", \"each-task\" or \"off\"",
                    v.regression_guard
                ),
            ));
        }
        if let Some(sealed) = &v.sealed {
            if !(sealed.starts_with('/') || sealed.starts_with("~/")) {
                return Err(at(
                    &spans.sealed,
                    format!(
                        "[verification] sealed = \"{sealed}\": use an absolute path or one under ~/ (the sealed file lives outside the repository, e.g. \"~/.config/zurdo/sealed/app.md\")"
                    ),
                ));
            }
        }
        super::env::check_allowlist(&v.env_allowlist)?;
        let mut protected = Vec::with_capacity(v.protected_paths.len());
        for (i, glob) in v.protected_paths.iter().enumerate() {
            let path = paths::frozen_glob(glob).map_err(|e| {
                let span = spans
                    .protected_paths
                    .as_ref()
                    .and_then(|p| p.get(i))
                    .cloned();
                at(&span, format!("[verification] protected_paths {e}"))
            })?;
            protected.push(path.as_str().to_string());
        }
        v.protected_paths = protected;
        v.verdict_surface_extra = globs(
            "verdict_surface_extra",
            &v.verdict_surface_extra,
            &spans.verdict_surface_extra,
            &at,
        )?;
        v.surface_exempt = globs(
            "surface_exempt",
            &v.surface_exempt,
            &spans.surface_exempt,
            &at,
        )?;
        v.standing_rules()?;
        Ok(v)
    }

    /// The standing rules, parsed; an error names the rule and what is wrong.
    pub fn standing_rules(&self) -> Result<Vec<StandingRule>, String> {
        self.standing
            .iter()
            .enumerate()
            .map(|(i, rule)| {
                let at = format!("[[verification.standing]] #{} (`{}`)", i + 1, rule.hint);
                let hint = crate::hint::parse_hint(&rule.hint).map_err(|e| match e.fix {
                    Some(fix) => format!("{at}: {}; {fix}", e.message),
                    None => format!("{at}: {}", e.message),
                })?;
                if !STANDING_KINDS.contains(&hint.kind()) {
                    return Err(format!(
                        "{at}: [{}:] cannot be a standing rule; use one of {}",
                        hint.kind(),
                        STANDING_KINDS.join(", ")
                    ));
                }
                if rule.why.trim().is_empty() {
                    return Err(format!(
                        "{at}: `why` is empty; say why the rule holds for every task"
                    ));
                }
                Ok(StandingRule {
                    hint,
                    why: rule.why.trim().to_string(),
                })
            })
            .collect()
    }
}

/// Checks each glob of the list `key` as a `**Frozen**` glob is checked;
/// the normalized globs, or an error naming the entry's line.
fn globs(
    key: &str,
    entries: &[String],
    spans: &Option<Vec<Spanned<IgnoredAny>>>,
    at: &dyn Fn(&Option<Spanned<IgnoredAny>>, String) -> String,
) -> Result<Vec<String>, String> {
    entries
        .iter()
        .enumerate()
        .map(|(i, glob)| {
            paths::frozen_glob(glob)
                .map(|p| p.as_str().to_string())
                .map_err(|e| {
                    let span = spans.as_ref().and_then(|p| p.get(i)).cloned();
                    at(&span, format!("[verification] {key} {e}"))
                })
        })
        .collect()
}

/// Where each checked `[verification]` value is written.
#[derive(Debug, Default, Deserialize)]
struct SpansFile {
    #[serde(default)]
    verification: Spans,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Spans {
    criterion_seconds: Option<Spanned<IgnoredAny>>,
    http_read_limit: Option<Spanned<IgnoredAny>>,
    standing_budget_seconds: Option<Spanned<IgnoredAny>>,
    clean_room: Option<Spanned<IgnoredAny>>,
    agent_sandbox: Option<Spanned<IgnoredAny>>,
    regression_guard: Option<Spanned<IgnoredAny>>,
    sealed: Option<Spanned<IgnoredAny>>,
    coverage: Option<Spanned<IgnoredAny>>,
    protected_paths: Option<Vec<Spanned<IgnoredAny>>>,
    verdict_surface_extra: Option<Vec<Spanned<IgnoredAny>>>,
    surface_exempt: Option<Vec<Spanned<IgnoredAny>>>,
}

/// One line naming where the problem is: `line N: key = value: message`.
fn describe(text: &str, error: &toml::de::Error) -> String {
    let message = error
        .message()
        .trim()
        .replace("expected u64", "expected a non-negative integer");
    locate(text, error.span(), &message)
}

/// `line N: `source line`: message`, or the bare message without a span.
fn locate(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> String {
    let Some(span) = span else {
        return message.to_string();
    };
    let start = span.start.min(text.len());
    let line = text[..start].matches('\n').count() + 1;
    let source = text.lines().nth(line - 1).unwrap_or("").trim();
    if source.is_empty() {
        format!("line {line}: {message}")
    } else {
        format!("line {line}: `{source}`: {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_without_a_section() {
        assert_eq!(
            VerificationConfig::parse("[defaults]\nmax_attempts = 3\n").unwrap(),
            VerificationConfig::default()
        );
    }

    #[test]
    fn standing_rules_are_checked_hints_with_a_reason() {
        let ok = "[[verification.standing]]\nhint = \"[no-grep: dbg!\\\\( in src/**/*.rs]\"\nwhy = \"no debug prints\"\n";
        let v = VerificationConfig::parse(ok).unwrap();
        let rules = v.standing_rules().unwrap();
        assert_eq!(rules[0].hint.kind(), "no-grep");
        assert_eq!(rules[0].why, "no debug prints");
        for (hint, expected) in [
            ("[manual]", "[manual] cannot be a standing rule"),
            (
                "[http: GET http://localhost/ -> 200]",
                "cannot be a standing rule",
            ),
            ("no brackets", "is not a hint in brackets"),
            ("[grep: x]", "has no ` in PATH-OR-GLOB`"),
        ] {
            let text = format!("[[verification.standing]]\nhint = \"{hint}\"\nwhy = \"w\"\n");
            let e = VerificationConfig::parse(&text).unwrap_err();
            assert!(e.contains("#1") && e.contains(expected), "{hint}: {e}");
        }
        let e = VerificationConfig::parse(
            "[[verification.standing]]\nhint = \"[shell: true]\"\nwhy = \" \"\n",
        )
        .unwrap_err();
        assert!(e.contains("`why` is empty"), "{e}");
        let e = VerificationConfig::parse("[[verification.standing]]\nhint = \"[shell: true]\"\n")
            .unwrap_err();
        assert!(e.contains("why"), "{e}");
    }

    #[test]
    fn reads_the_section() {
        let v = VerificationConfig::parse(
            "[verification]\ncriterion_seconds = 5\nenv_allowlist = [\"DATABASE_URL\"]\n",
        )
        .unwrap();
        assert_eq!(v.criterion_seconds, 5);
        assert_eq!(v.env_allowlist, ["DATABASE_URL"]);
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key_and_line() {
        let e = VerificationConfig::parse("[verification]\ncriterion_secs = 5\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("criterion_secs"), "{e}");
        let e =
            VerificationConfig::parse("[verification]\ncriterion_seconds = \"5\"\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("integer"), "{e}");
        let e = VerificationConfig::parse("[verification]\ncriterion_seconds = 0\n").unwrap_err();
        assert!(e.contains("criterion_seconds"), "{e}");
    }

    #[test]
    fn durations_and_limits_are_bounded_with_the_line_and_a_fix() {
        for (text, expected) in [
            (
                "[verification]\ncriterion_seconds = 9223372036854775807\n",
                "line 2: `criterion_seconds = 9223372036854775807`: [verification] criterion_seconds = 9223372036854775807 is more than 604800 (7 days), the most zurdo accepts; write criterion_seconds = 604800 or less",
            ),
            (
                "[verification]\n\nstanding_budget_seconds = 604801\n",
                "line 3: `standing_budget_seconds = 604801`: [verification] standing_budget_seconds = 604801 is more than 604800 (7 days), the most zurdo accepts; write standing_budget_seconds = 604800 or less",
            ),
            (
                "[verification]\nstanding_budget_seconds = 0\n",
                "line 2: `standing_budget_seconds = 0`: [verification] standing_budget_seconds must be at least 1; write standing_budget_seconds = 1 or more",
            ),
            (
                "[verification]\nhttp_read_limit = 18446744073709551615\n",
                "line 2: `http_read_limit = 18446744073709551615`: [verification] http_read_limit = 18446744073709551615 is more than 67108864 (64 MiB), the most zurdo accepts; write http_read_limit = 67108864 or less",
            ),
            (
                "[verification]\nagent_sandbox = \"docker\"\n",
                "line 2: `agent_sandbox = \"docker\"`: [verification] agent_sandbox = \"docker\": use \"off\" or \"bubblewrap\"",
            ),
            (
                "[verification]\nclean_room = \"on\"\n",
                "line 2: `clean_room = \"on\"`: [verification] clean_room = \"on\": use \"off\", \"checkout\" or \"bubblewrap\"",
            ),
        ] {
            assert_eq!(VerificationConfig::parse(text).unwrap_err(), expected);
        }
        let most = VerificationConfig::parse(
            "[verification]\ncriterion_seconds = 604800\nstanding_budget_seconds = 604800\nhttp_read_limit = 67108864\n",
        )
        .unwrap();
        assert_eq!(most.criterion_seconds, 604_800);
    }

    #[test]
    fn protected_paths_are_checked_like_frozen_globs() {
        for (entry, line, expected) in [
            (
                "/",
                2,
                "[verification] protected_paths path `/` is absolute",
            ),
            ("/etc/*", 2, "is absolute"),
            ("../other/*", 2, "leaves the repository through `..`"),
            ("src/**/../../x", 2, "leaves the repository through `..`"),
            (
                "src/[a",
                2,
                "[verification] protected_paths glob `src/[a` is invalid",
            ),
            ("!docs/*", 2, "negation is not supported"),
            ("", 2, "names no file"),
        ] {
            let text = format!("[verification]\nprotected_paths = [\"{entry}\"]\n");
            let e = VerificationConfig::parse(&text).unwrap_err();
            assert!(
                e.starts_with(&format!("line {line}: `protected_paths = ["))
                    && e.contains(expected),
                "{entry}: {e}"
            );
        }
        // Each entry's own line in a multi-line array.
        let e = VerificationConfig::parse(
            "[verification]\nprotected_paths = [\n  \"docs/*.md\",\n  \"../x\",\n]\n",
        )
        .unwrap_err();
        assert!(e.starts_with("line 4: `\"../x\",`"), "{e}");
        assert!(
            e.ends_with(
                "paths are relative to the repository root, e.g. src/main.rs, with no `..`"
            ),
            "{e}"
        );
        let v = VerificationConfig::parse(
            "[verification]\nprotected_paths = [\"./docs/*.md\", \"migrations/\", \"**/*.lock\"]\n",
        )
        .unwrap();
        assert_eq!(v.protected_paths, ["docs/*.md", "migrations", "**/*.lock"]);
    }

    #[test]
    fn the_surfaces_are_on_by_default_and_their_globs_are_checked() {
        let v = VerificationConfig::default();
        assert!(v.verdict_surface && v.environment_surface);
        let v = VerificationConfig::parse(
            "[verification]\nverdict_surface = false\nenvironment_surface = false\nverdict_surface_extra = [\"./ci/runner.toml\"]\nsurface_exempt = [\"web/package.json\", \"tools/\"]\n",
        )
        .unwrap();
        assert!(!v.verdict_surface && !v.environment_surface);
        assert_eq!(v.verdict_surface_extra, ["ci/runner.toml"]);
        assert_eq!(v.surface_exempt, ["web/package.json", "tools"]);
        for (text, expected) in [
            (
                "[verification]\nverdict_surface = \"yes\"\n",
                "line 2: `verdict_surface = \"yes\"`: invalid type: string \"yes\", expected a boolean",
            ),
            (
                "[verification]\nsurface_exempt = [\n  \"ok/*\",\n  \"../x\",\n]\n",
                "line 4: `\"../x\",`: [verification] surface_exempt path `../x` leaves the repository through `..`",
            ),
            (
                "[verification]\nverdict_surface_extra = [\"/etc/x\"]\n",
                "line 2: `verdict_surface_extra = [\"/etc/x\"]`: [verification] verdict_surface_extra path `/etc/x` is absolute",
            ),
            (
                "[verification]\nverdict_surfaces = true\n",
                "line 2: `verdict_surfaces = true`: unknown field `verdict_surfaces`",
            ),
        ] {
            let e = VerificationConfig::parse(text).unwrap_err();
            assert!(e.starts_with(expected), "{text}: {e}");
        }
    }

    #[test]
    fn load_reports_the_file() {
        let dir = std::env::temp_dir().join(format!("zurdo-config-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".zurdo")).unwrap();
        std::fs::write(dir.join(CONFIG_PATH), "[verification\n").unwrap();
        let e = VerificationConfig::load(&dir).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&dir.join(CONFIG_PATH).display().to_string()),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            VerificationConfig::load(&dir).unwrap(),
            VerificationConfig::default()
        );
    }
}
