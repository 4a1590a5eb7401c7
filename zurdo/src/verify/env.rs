//! The environment `[shell:]` hints run with: an allowlist, so a
//! criterion's verdict does not depend on (or leak) the caller's secrets.

/// Variables passed through by default: what cargo, go, npm, pytest and a
/// POSIX shell need to work. Entries ending in `*` are prefixes.
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

/// Name fragments that mark a secret. A variable whose name contains one is
/// passed only when the allowlist names it exactly, never through a `*`.
const SECRET_MARKS: &[&str] = &[
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "_KEY",
    "APIKEY",
    "AUTH",
];

fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_MARKS.iter().any(|m| upper.contains(m)) || upper.ends_with("KEY")
}

fn allowed(name: &str, extra: &[String]) -> bool {
    let entries = DEFAULT_ALLOWLIST
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str));
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
/// stable order, and adds `ZURDO_VERIFY=1` so a command can tell it is
/// being verified.
pub fn filter(
    vars: impl IntoIterator<Item = (String, String)>,
    extra: &[String],
) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = vars
        .into_iter()
        .filter(|(k, _)| allowed(k, extra))
        .collect();
    kept.sort();
    kept.push(("ZURDO_VERIFY".into(), "1".into()));
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
        assert_eq!(k, ["CARGO_HOME", "LC_ALL", "PATH", "ZURDO_VERIFY"]);
    }

    #[test]
    fn config_adds_names_and_prefixes_but_a_prefix_never_lets_a_secret_in() {
        let k = kept(
            &["DATABASE_URL", "APP_MODE", "APP_TOKEN", "DEPLOY_KEY"],
            &["DATABASE_URL", "APP_*"],
        );
        assert_eq!(k, ["APP_MODE", "DATABASE_URL", "ZURDO_VERIFY"]);
        let k = kept(&["DEPLOY_KEY"], &["DEPLOY_KEY"]);
        assert_eq!(
            k,
            ["DEPLOY_KEY", "ZURDO_VERIFY"],
            "an exact entry is a deliberate choice"
        );
    }
}
