//! What each CLI says about itself offline: whether it is installed (and
//! the version it reports), whether it is logged in (where the CLI has a
//! cheap offline check), and the models it knows (where it can list them).
//! `zurdo doctor` shows it ([`inspect`]); `zurdo init` takes its effort-map
//! defaults from the lists ([`defaults`]).
//!
//! | CLI | version | login, offline | models, offline |
//! |---|---|---|---|
//! | claude | `claude --version` | `claude auth status` (JSON `loggedIn`) | cannot list |
//! | codex | `codex --version` | `codex login status` (exit 0: logged in) | `codex debug models` |
//! | copilot | `copilot --version` | none | cannot list |
//! | gemini | `gemini --version` | none | cannot list |

use std::io;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use zurdo::exec::{self, Ending};

use super::{invoke, vocabulary, Provider};

/// How long one offline check may take (the GitHub Copilot CLI unpacks
/// itself on its first run, a few seconds).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(15);

/// The efforts `zurdo init` writes a model for, in the order it writes them.
pub const EFFORTS: [&str; 3] = ["low", "medium", "high"];

/// The effort-map defaults zurdo documents for each provider (what `zurdo
/// init` writes when the CLI cannot list its models, or is not installed):
/// low, medium, high. Codex's are picked from the list codex-cli 0.171.0
/// prints (`tests/fixtures/codex-0.171.0-models.txt`) by the rule of
/// [`pick`]; the others are the aliases and names their CLIs document.
pub fn documented(provider: Provider) -> [&'static str; 3] {
    match provider {
        Provider::Anthropic => ["haiku", "sonnet", "opus"],
        Provider::OpenAi => ["gpt-6.2-sol", "gpt-6.2-sol", "gpt-6.2-sol"],
        Provider::GitHub => ["gpt-5.4-mini", "gpt-5.4", "claude-sonnet-5"],
        Provider::Google => ["gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-pro"],
    }
}

/// Where the documented defaults come from, for a CLI that cannot list its
/// models offline.
pub fn documented_source(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => {
            "claude cannot list its models offline; the aliases `claude --help` documents (each names the latest model of its tier)"
        }
        Provider::OpenAi => {
            "zurdo's documented defaults: the first model codex-cli 0.171.0 lists in `codex debug models`"
        }
        Provider::GitHub => {
            "copilot cannot list its models offline (its model picker needs a login); zurdo's documented defaults"
        }
        Provider::Google => {
            "gemini cannot list its models offline; zurdo's documented defaults"
        }
    }
}

/// The arguments that make `provider`'s CLI list its models offline, when
/// it can.
pub fn lister(provider: Provider) -> Option<&'static [&'static str]> {
    match provider {
        Provider::OpenAi => Some(&["debug", "models"]),
        _ => None,
    }
}

/// A model a CLI lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name, as `-m`/`--model` takes it.
    pub slug: String,
    /// Shown in the CLI's own model picker (codex: `visibility` `list`, not
    /// `hide`).
    pub visible: bool,
    /// Usable through the API (codex: `supported_in_api`).
    pub api: bool,
    /// The reasoning efforts it supports.
    pub efforts: Vec<String>,
}

/// Parses what `codex debug models` prints: its JSON catalog (`{"models":
/// [{"slug", "visibility", "supported_in_api", "priority",
/// "supported_reasoning_levels": [{"effort"}, …]}, …]}`, ordered by
/// `priority`), or a digest of one model a line, `<slug> <list|hide>
/// <api|-> <effort,effort,…>`, in the catalog's order (the form captured
/// from codex-cli 0.171.0 in `tests/fixtures/codex-0.171.0-models.txt`).
pub fn parse_codex_models(text: &str) -> Result<Vec<Listed>, String> {
    let trimmed = text.trim();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return parse_catalog_json(trimmed);
    }
    let mut models = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [slug, visibility, rest @ ..] = fields.as_slice() else {
            return Err(format!(
                "line {}: `{line}` is not `<slug> <list|hide> …`",
                n + 1
            ));
        };
        if !matches!(*visibility, "list" | "hide") {
            return Err(format!(
                "line {}: visibility `{visibility}` is neither `list` nor `hide`",
                n + 1
            ));
        }
        models.push(Listed {
            slug: slug.to_string(),
            visible: *visibility == "list",
            api: rest.first() == Some(&"api"),
            efforts: rest
                .get(1)
                .map(|e| e.split(',').map(str::to_string).collect())
                .unwrap_or_default(),
        });
    }
    if models.is_empty() {
        return Err("it lists no model".into());
    }
    Ok(models)
}

fn parse_catalog_json(text: &str) -> Result<Vec<Listed>, String> {
    let doc: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let entries = doc
        .get("models")
        .unwrap_or(&doc)
        .as_array()
        .ok_or("no `models` array")?;
    let mut models: Vec<(i64, usize, Listed)> = Vec::new();
    for (i, m) in entries.iter().enumerate() {
        let Some(slug) = m.get("slug").and_then(Value::as_str) else {
            continue;
        };
        let efforts = m
            .get("supported_reasoning_levels")
            .and_then(Value::as_array)
            .map(|levels| {
                levels
                    .iter()
                    .filter_map(|l| {
                        l.get("effort")
                            .and_then(Value::as_str)
                            .or_else(|| l.as_str())
                            .map(str::to_string)
                    })
                    .collect()
            })
            .unwrap_or_default();
        models.push((
            m.get("priority")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MAX),
            i,
            Listed {
                slug: slug.to_string(),
                visible: m.get("visibility").and_then(Value::as_str) != Some("hide"),
                api: m.get("supported_in_api").and_then(Value::as_bool) != Some(false),
                efforts,
            },
        ));
    }
    if models.is_empty() {
        return Err("it lists no model".into());
    }
    models.sort_by_key(|(priority, i, _)| (*priority, *i));
    Ok(models.into_iter().map(|(_, _, m)| m).collect())
}

/// The model `zurdo init` maps every effort to from a CLI's list: the first
/// one the CLI shows in its own picker and serves through the API (the list
/// is in the CLI's order of preference). The list says nothing of cost, so
/// no cheaper model is guessed for `low`.
pub fn pick(models: &[Listed]) -> Option<&str> {
    models
        .iter()
        .find(|m| m.visible && m.api)
        .or_else(|| models.iter().find(|m| m.visible))
        .map(|m| m.slug.as_str())
}

/// An effort map's defaults for one provider and where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defaults {
    /// The provider.
    pub provider: Provider,
    /// The model of each of [`EFFORTS`].
    pub models: [String; 3],
    /// Where they came from, for the user.
    pub source: String,
    /// True when they came from the CLI's own list (not the documented
    /// defaults).
    pub listed: bool,
}

/// The effort-map defaults for `provider` whose CLI is `command`: from the
/// CLI's own list when it can list offline (and does), else the documented
/// ones, saying why.
pub fn defaults(provider: Provider, command: &str) -> Defaults {
    let documented_defaults = |source: String| Defaults {
        provider,
        models: documented(provider).map(str::to_string),
        source,
        listed: false,
    };
    let Some(args) = lister(provider) else {
        return documented_defaults(documented_source(provider).to_string());
    };
    let shown = format!("`{} {}`", provider.default_command(), args.join(" "));
    match list(provider, command) {
        Listing::Listed(models) => match pick(&models) {
            Some(model) => {
                let version = version(provider, command).ok();
                Defaults {
                    provider,
                    models: [model.to_string(), model.to_string(), model.to_string()],
                    source: format!(
                        "the first model {shown} lists{}",
                        version.map_or(String::new(), |v| format!(" ({v})"))
                    ),
                    listed: true,
                }
            }
            None => documented_defaults(format!(
                "{shown} lists no model it shows; {}",
                documented_source(provider)
            )),
        },
        Listing::Failed(why) => {
            documented_defaults(format!("{shown}: {why}; {}", documented_source(provider)))
        }
        Listing::CannotList => documented_defaults(documented_source(provider).to_string()),
    }
}

/// What a CLI listed, or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// The models, in the CLI's order.
    Listed(Vec<Listed>),
    /// The CLI has no offline list.
    CannotList,
    /// Listing failed: why.
    Failed(String),
}

/// Asks `provider`'s CLI (`command`) for its models, offline.
pub fn list(provider: Provider, command: &str) -> Listing {
    let Some(args) = lister(provider) else {
        return Listing::CannotList;
    };
    match run(provider, command, args) {
        Err(e) => Listing::Failed(e),
        Ok(out) if out.code != Some(0) => Listing::Failed(out.failure()),
        Ok(out) => match parse_codex_models(&out.stdout) {
            Ok(models) => Listing::Listed(models),
            Err(e) => Listing::Failed(format!("cannot read its output: {e}")),
        },
    }
}

/// Whether a CLI is logged in, by its own offline check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Login {
    /// It says so (its words).
    LoggedIn(String),
    /// It says not (its words).
    LoggedOut(String),
    /// The check ran and said nothing clear (what it said).
    Unclear(String),
    /// The CLI has no cheap offline check: only a probe tells.
    NoCheck,
}

/// The arguments of `provider`'s offline login check, when it has one.
pub fn login_check(provider: Provider) -> Option<&'static [&'static str]> {
    match provider {
        Provider::Anthropic => Some(&["auth", "status"]),
        Provider::OpenAi => Some(&["login", "status"]),
        _ => None,
    }
}

/// Runs `provider`'s offline login check.
pub fn login(provider: Provider, command: &str) -> Login {
    let Some(args) = login_check(provider) else {
        return Login::NoCheck;
    };
    let out = match run(provider, command, args) {
        Ok(out) => out,
        Err(e) => return Login::Unclear(e),
    };
    match provider {
        // `{"loggedIn": false, "authMethod": "none", …}`, exit 1 when out.
        Provider::Anthropic => {
            let doc = serde_json::from_str::<Value>(out.stdout.trim()).ok();
            let method = doc
                .as_ref()
                .and_then(|d| d.get("authMethod"))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string();
            match doc
                .as_ref()
                .and_then(|d| d.get("loggedIn"))
                .and_then(Value::as_bool)
            {
                Some(true) => Login::LoggedIn(format!("loggedIn: true, authMethod: {method}")),
                Some(false) => Login::LoggedOut(format!("loggedIn: false, authMethod: {method}")),
                None => Login::Unclear(out.words()),
            }
        }
        // `Not logged in`, exit 1; `Logged in using …`, exit 0.
        _ => match out.code {
            Some(0) => Login::LoggedIn(out.words()),
            Some(1) => Login::LoggedOut(out.words()),
            _ => Login::Unclear(out.failure()),
        },
    }
}

/// The version `provider`'s CLI reports (`--version`'s first line), or why
/// none: it is not installed, or does not answer.
pub fn version(provider: Provider, command: &str) -> Result<String, String> {
    let out = run(provider, command, &["--version"])?;
    if out.code != Some(0) {
        return Err(format!("`--version` {}", out.failure()));
    }
    Ok(out.words_first())
}

/// One provider's state, as `zurdo doctor` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    /// The provider.
    pub provider: Provider,
    /// The command that starts its CLI.
    pub command: String,
    /// The version it reports, or why not (not installed…).
    pub version: Result<String, String>,
    /// Its offline login check (not run when it is not installed).
    pub login: Login,
    /// Its offline model list (not asked when it is not installed).
    pub models: Listing,
}

/// Everything offline about `provider`'s CLI `command`: its version, then
/// (when it answered) its login and its models.
pub fn inspect(provider: Provider, command: &str) -> State {
    let version = version(provider, command);
    let (login, models) = if version.is_ok() {
        (login(provider, command), list(provider, command))
    } else {
        (Login::NoCheck, Listing::CannotList)
    };
    State {
        provider,
        command: command.to_string(),
        version,
        login,
        models,
    }
}

/// [`inspect`] for several providers at once, a thread each; in the order
/// given.
pub fn inspect_all(providers: &[(Provider, String)]) -> Vec<State> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = providers
            .iter()
            .map(|(p, c)| scope.spawn(move || inspect(*p, c)))
            .collect();
        handles
            .into_iter()
            .zip(providers)
            .map(|(h, (p, c))| {
                h.join().unwrap_or_else(|_| State {
                    provider: *p,
                    command: c.clone(),
                    version: Err("the check panicked".into()),
                    login: Login::NoCheck,
                    models: Listing::CannotList,
                })
            })
            .collect()
    })
}

/// What one offline check printed.
struct Ran {
    provider: Provider,
    code: Option<i32>,
    timed_out: bool,
    stdout: String,
    stderr: String,
}

impl Ran {
    /// The meaningful lines it printed (stdout, then stderr), noise
    /// dropped.
    fn lines(&self) -> Vec<String> {
        let noise = vocabulary::vocabulary(self.provider).stderr_noise;
        self.stdout
            .lines()
            .chain(self.stderr.lines())
            .map(|l| zurdo_base::text::strip_ansi(l).trim().to_string())
            .filter(|l| !l.is_empty() && !noise.iter().any(|n| l.starts_with(n)))
            .collect()
    }

    /// Its first meaningful line.
    fn words_first(&self) -> String {
        self.lines().into_iter().next().unwrap_or_default()
    }

    /// Its last meaningful line.
    fn words(&self) -> String {
        self.lines().pop().unwrap_or_default()
    }

    /// How it failed, with its last words.
    fn failure(&self) -> String {
        let how = if self.timed_out {
            format!("gave no answer within {}s", CHECK_TIMEOUT.as_secs())
        } else {
            match self.code {
                Some(c) => format!("exited with code {c}"),
                None => "was killed by a signal".into(),
            }
        };
        match self.words() {
            w if w.is_empty() => how,
            w => format!("{how}: {w}"),
        }
    }
}

/// Runs `command args…` offline: stdin closed, its own process group,
/// killed at [`CHECK_TIMEOUT`]; `Err` when it cannot start (not installed).
fn run(provider: Provider, command: &str, args: &[&str]) -> Result<Ran, String> {
    let mut cmd = Command::new(command);
    invoke::die_with_zurdo(&mut cmd);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let finished = exec::run(cmd, CHECK_TIMEOUT).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => format!("not installed (`{command}` not found)"),
        _ => format!("`{command}` cannot start: {e}"),
    })?;
    Ok(Ran {
        provider,
        code: match finished.ending {
            Ending::Exited(c) => Some(c),
            _ => None,
        },
        timed_out: finished.ending == Ending::TimedOut,
        stdout: String::from_utf8_lossy(&finished.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&finished.stderr).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `codex debug models` of codex-cli 0.171.0, as captured.
    const CODEX_0_171: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/codex-0.171.0-models.txt"
    ));

    #[test]
    fn the_captured_codex_list_parses_in_its_order() {
        let models = parse_codex_models(CODEX_0_171).expect("parses");
        assert_eq!(models.len(), 14);
        assert_eq!(
            models[0],
            Listed {
                slug: "gpt-6.2-sol".into(),
                visible: true,
                api: true,
                efforts: ["low", "medium", "high", "xhigh", "max", "ultra"]
                    .map(String::from)
                    .to_vec(),
            }
        );
        let hidden: Vec<&str> = models
            .iter()
            .filter(|m| !m.visible)
            .map(|m| m.slug.as_str())
            .collect();
        assert_eq!(
            hidden,
            [
                "gpt-daybreak-blue-latest",
                "gpt-daybreak-red-latest",
                "codex-auto-review"
            ]
        );
        assert_eq!(models[12].slug, "gpt-5.5");
        assert_eq!(models[12].efforts.len(), 4);
        assert_eq!(pick(&models), Some("gpt-6.2-sol"));
    }

    #[test]
    fn the_documented_codex_defaults_are_in_the_captured_list() {
        let models = parse_codex_models(CODEX_0_171).expect("parses");
        for model in documented(Provider::OpenAi) {
            assert!(
                models.iter().any(|m| m.slug == model && m.visible),
                "{model} is not a model codex 0.171.0 lists"
            );
            assert_eq!(Some(model), pick(&models), "the documented rule");
        }
    }

    #[test]
    fn the_json_catalog_parses_by_priority_and_hidden_models_are_never_picked() {
        let text = r#"{"models": [
            {"slug": "b", "visibility": "list", "supported_in_api": true, "priority": 2,
             "supported_reasoning_levels": [{"effort": "low", "description": "fast"}]},
            {"slug": "secret", "visibility": "hide", "supported_in_api": true, "priority": 0},
            {"slug": "app-only", "visibility": "list", "supported_in_api": false, "priority": 1},
            {"display_name": "no slug"}
        ]}"#;
        let models = parse_codex_models(text).expect("parses");
        let slugs: Vec<&str> = models.iter().map(|m| m.slug.as_str()).collect();
        assert_eq!(slugs, ["secret", "app-only", "b"]);
        assert_eq!(models[2].efforts, ["low"]);
        assert_eq!(pick(&models), Some("b"), "shown and served through the API");
        let only_app = &models[..2];
        assert_eq!(pick(only_app), Some("app-only"), "else the first shown");
        assert_eq!(pick(&models[..1]), None);
    }

    #[test]
    fn what_is_not_a_list_is_refused() {
        for bad in [
            "",
            "\n\n",
            "gpt-x\n",
            "gpt-x maybe api low\n",
            "{\"models\": []}",
            "{oops",
        ] {
            assert!(parse_codex_models(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_codex_lists_and_only_claude_and_codex_check_their_login() {
        for p in Provider::ALL {
            assert_eq!(lister(p).is_some(), p == Provider::OpenAi, "{p:?}");
            assert_eq!(
                login_check(p).is_some(),
                matches!(p, Provider::Anthropic | Provider::OpenAi),
                "{p:?}"
            );
        }
    }

    #[test]
    fn a_cli_that_is_not_installed_says_so() {
        let state = inspect(Provider::Google, "/nonexistent/zurdo-test/gemini");
        assert_eq!(
            state.version,
            Err("not installed (`/nonexistent/zurdo-test/gemini` not found)".into())
        );
        assert_eq!(state.login, Login::NoCheck);
        assert_eq!(state.models, Listing::CannotList);
        let d = defaults(Provider::OpenAi, "/nonexistent/zurdo-test/codex");
        assert!(!d.listed);
        assert_eq!(d.models, documented(Provider::OpenAi).map(String::from));
        assert!(d.source.contains("not installed"), "{}", d.source);
    }
}
