//! The environment `[shell:]` hints run with: an allowlist, so a
//! criterion's verdict does not depend on (or leak) the caller's secrets.

/// Variables passed through by default: what cargo, go, npm, pytest and a
/// POSIX shell need to work. Entries ending in `*` are prefixes; a name
/// that [looks like a secret](looks_secret) passes only through an entry
/// naming it exactly, never through a prefix.
pub const DEFAULT_ALLOWLIST: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "CI",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    // Rust
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_TARGET_DIR",
    "CARGO_TERM_COLOR",
    "CARGO_BUILD_JOBS",
    "RUSTFLAGS",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "RUST_MIN_STACK",
    // Go
    "GOPATH",
    "GOROOT",
    "GOCACHE",
    "GOMODCACHE",
    "GOFLAGS",
    "GOPROXY",
    "GONOSUMDB",
    "GOTOOLCHAIN",
    "CGO_ENABLED",
    // Node
    "NODE_PATH",
    "NODE_OPTIONS",
    "NVM_DIR",
    "NVM_BIN",
    "npm_config_cache",
    // Python
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONDONTWRITEBYTECODE",
    "CONDA_PREFIX",
    "PYENV_ROOT",
    // JVM
    "JAVA_HOME",
    "MAVEN_OPTS",
    "GRADLE_USER_HOME",
];

/// Fragments that mark a secret wherever they appear in a name
/// (`MY_SESSION_ID`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`).
const SECRET_FRAGMENTS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "APIKEY",
    "PRIVATE",
    "SESSION",
    "COOKIE",
    "OAUTH",
    "BEARER",
];

/// Marks too short to look for inside words (they would catch `PATH`,
/// `PASSTHROUGH`, `AUTHOR`, `KEYBOARD`): a secret only as a whole word of
/// the name, between `_`, `-` or `.` (`DB_PASS`, `MYSQL_PWD`, `SENTRY_DSN`).
const SECRET_WORDS: &[&str] = &[
    "PASS",
    "PWD",
    "KEY",
    "KEYS",
    "AUTH",
    "AUTHN",
    "AUTHZ",
    "AUTHORIZATION",
    "CREDS",
    "DSN",
    "SALT",
];

/// True when `name` looks like it holds a secret: it contains one of
/// [`SECRET_FRAGMENTS`], or one of its words is one of [`SECRET_WORDS`] or
/// ends in `KEY` (`APIKEY`, `SSHKEY`) or `AUTH` (`BASICAUTH`).
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_FRAGMENTS.iter().any(|m| upper.contains(m))
        || upper.split(['_', '-', '.']).any(|word| {
            SECRET_WORDS.contains(&word) || word.ends_with("KEY") || word.ends_with("AUTH")
        })
}

/// The fewest characters before the `*` of a prefix entry: `LC_*` and
/// `APP_*` are prefixes; `*`, `A*` and `AB*` would pass most of the
/// environment and are refused.
pub const MIN_PREFIX: usize = 3;

/// Checks one `env_allowlist` entry: a variable name, or a prefix of at
/// least [`MIN_PREFIX`] characters ending in one `*`. The error names the
/// entry and says what to write instead.
pub fn check_entry(entry: &str) -> Result<(), String> {
    let at = format!("[verification] env_allowlist entry \"{entry}\"");
    let fix = format!(
        "name each variable (DATABASE_URL), or a prefix of at least {MIN_PREFIX} characters before a final `*` (APP_*)"
    );
    if entry.trim().is_empty() {
        return Err(format!("{at} is empty; remove it, or {fix}"));
    }
    if entry.contains(['=', '\0']) || entry.contains(char::is_whitespace) {
        return Err(format!(
            "{at} is not a variable name (it holds `=`, a space or a NUL); {fix}"
        ));
    }
    let stem = entry.strip_suffix('*').unwrap_or(entry);
    if stem.contains('*') {
        return Err(format!("{at}: a `*` may only end an entry; {fix}"));
    }
    if stem.len() < entry.len() && stem.chars().count() < MIN_PREFIX {
        let which = if stem.is_empty() {
            "every variable".to_string()
        } else {
            format!("every variable whose name starts with `{stem}`")
        };
        return Err(format!("{at} would pass {which} to [shell:] hints; {fix}"));
    }
    Ok(())
}

/// Checks every `env_allowlist` entry ([`check_entry`]); the first bad
/// one is the error.
pub fn check_allowlist(entries: &[String]) -> Result<(), String> {
    entries.iter().try_for_each(|e| check_entry(e))
}

fn allowed(name: &str, extra: &[String]) -> bool {
    let entries = DEFAULT_ALLOWLIST.iter().copied().chain(
        // An entry the config check refuses admits nothing, even when the
        // config was built without that check.
        extra
            .iter()
            .map(String::as_str)
            .filter(|e| check_entry(e).is_ok()),
    );
    let secret = looks_secret(name);
    for entry in entries {
        if entry == name {
            return true;
        }
        if let Some(prefix) = entry.strip_suffix('*') {
            if !secret && name.starts_with(prefix) {
                return true;
            }
        }
    }
    false
}

/// Filters `vars` (usually `std::env::vars()`) down to the allowlist, in a
/// stable order. Nothing is added: a criterion's environment holds nothing
/// that tells it apart from a plain run of the same command (the opt-in
/// `[verification] zurdo_verify_env` adds `ZURDO_VERIFY=1`; see
/// [`crate::verify::Verifier::new`]).
pub fn filter(
    vars: impl IntoIterator<Item = (String, String)>,
    extra: &[String],
) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = vars
        .into_iter()
        .filter(|(k, _)| allowed(k, extra))
        .collect();
    kept.sort();
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(names: &[&str]) -> Vec<(String, String)> {
        names
            .iter()
            .map(|n| (n.to_string(), "v".to_string()))
            .collect()
    }

    fn kept(names: &[&str], extra: &[&str]) -> Vec<String> {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        filter(vars(names), &extra)
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    #[test]
    fn keeps_toolchain_variables_and_drops_the_rest() {
        let k = kept(
            &[
                "PATH",
                "CARGO_HOME",
                "LC_ALL",
                "AWS_SECRET_ACCESS_KEY",
                "GITHUB_TOKEN",
                "MY_API_KEY",
                "RANDOM_THING",
            ],
            &[],
        );
        assert_eq!(k, ["CARGO_HOME", "LC_ALL", "PATH"]);
    }

    #[test]
    fn config_adds_names_and_prefixes_but_a_prefix_never_lets_a_secret_in() {
        let k = kept(
            &["DATABASE_URL", "APP_MODE", "APP_TOKEN", "DEPLOY_KEY"],
            &["DATABASE_URL", "APP_*"],
        );
        assert_eq!(k, ["APP_MODE", "DATABASE_URL"]);
        let k = kept(&["DEPLOY_KEY"], &["DEPLOY_KEY"]);
        assert_eq!(k, ["DEPLOY_KEY"], "an exact entry is a deliberate choice");
    }

    #[test]
    fn wider_secret_marks_block_prefixes_but_not_honest_names() {
        let secret = [
            "MY_SESSION",
            "MY_SESSION_ID",
            "MY_COOKIE",
            "MY_PRIVATE",
            "MY_PRIVATE_KEY_PATH",
            "MY_CREDENTIALS",
            "MY_CREDS",
            "MY_AUTH",
            "MY_BASICAUTH",
            "MY_OAUTH_CLIENT_ID",
            "MY_AUTHORIZATION",
            "MY_PASS",
            "MY_DB_PASS",
            "MY_PWD",
            "MY_DSN",
            "MY_KEY_ID",
            "MY_APIKEY",
            "MY_SIGNING_KEY",
            "MY_BEARER",
            "MY_PASSPHRASE",
            "my_session",
        ];
        let honest = [
            "MY_PATH",
            "MY_PASSTHROUGH",
            "MY_AUTHOR",
            "MY_COMPASS",
            "MY_BYPASS_CACHE",
            "MY_KEYBOARD",
            "MY_MODE",
            "MY_ASKPASS",
        ];
        for name in secret {
            assert!(looks_secret(name), "{name}");
            assert!(
                kept(&[name], &["MY_*"]).is_empty(),
                "{name} passed a prefix"
            );
            assert_eq!(
                kept(&[name], &[name]),
                [name],
                "{name}: an exact entry is a deliberate choice"
            );
        }
        for name in honest {
            assert!(!looks_secret(name), "{name}");
            assert_eq!(kept(&[name], &["MY_*"]), [name], "{name}");
        }
    }

    #[test]
    fn entries_that_would_admit_everything_are_refused_naming_them() {
        for (entry, says) in [
            ("*", "would pass every variable to [shell:] hints"),
            ("A*", "starts with `A`"),
            ("AB*", "starts with `AB`"),
            ("A*B", "a `*` may only end an entry"),
            ("**", "a `*` may only end an entry"),
            ("", "is empty"),
            ("  ", "is empty"),
            ("X=1", "is not a variable name"),
            ("MY VAR", "is not a variable name"),
        ] {
            let e = check_entry(entry).expect_err(entry);
            assert!(
                e.starts_with(&format!("[verification] env_allowlist entry \"{entry}\""))
                    && e.contains(says),
                "{entry}: {e}"
            );
            assert!(e.contains("(APP_*)"), "the fix: {e}");
        }
        for entry in ["LC_*", "APP_*", "npm_config_*", "DATABASE_URL", "X"] {
            assert_eq!(check_entry(entry), Ok(()), "{entry}");
        }
        let entries: Vec<String> = ["APP_*", "*"].iter().map(|s| s.to_string()).collect();
        assert!(check_allowlist(&entries).expect_err("*").contains("\"*\""));
        // Built without the check, a refused entry still admits nothing.
        assert_eq!(kept(&["RANDOM_THING", "PATH"], &["*"]), ["PATH"]);
    }
}
