//! Repository-relative paths as written in hints and `**Frozen**` globs.
//!
//! A PRD may only name paths inside the repository: absolute paths and `..`
//! components are rejected when the PRD is validated. (Symlinks that point
//! out of the repository are caught when a hint runs.)

use serde::Serialize;

/// The fix offered for a rejected path.
pub const FIX: &str = "paths are relative to the repository root, e.g. src/main.rs, with no `..`";

/// A path relative to the repository root, `/`-separated, with any leading
/// `./` removed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct RepoPath(String);

impl RepoPath {
    /// Checks and normalizes a path written in a PRD.
    pub fn parse(text: &str) -> Result<RepoPath, String> {
        let text = text.trim();
        let mut rest = text;
        while let Some(r) = rest.strip_prefix("./") {
            rest = r;
        }
        if rest.is_empty() || rest == "." {
            return Err(format!("path `{text}` names no file"));
        }
        if rest.starts_with('/') || rest.starts_with('\\') || rest.as_bytes().get(1) == Some(&b':')
        {
            return Err(format!(
                "path `{text}` is absolute; it must be relative to the repository root"
            ));
        }
        if rest.split(['/', '\\']).any(|c| c == "..") {
            return Err(format!("path `{text}` leaves the repository through `..`"));
        }
        Ok(RepoPath(rest.trim_end_matches('/').to_string()))
    }

    /// The path as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for RepoPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Checks one glob of paths no attempt may modify, as `**Frozen**` and
/// `[verification] protected_paths` write them: root-anchored, no negation,
/// no absolute path, no `..`, and valid globset syntax as the frozen-path
/// guard builds it (`*` stays within one path segment). Returns it
/// normalized (a leading `./` and a trailing `/` dropped); the error says
/// what is wrong with the glob, for the caller to prefix with its key.
pub fn frozen_glob(glob: &str) -> Result<RepoPath, String> {
    let glob = glob.trim();
    if glob.starts_with('!') {
        return Err(format!(
            "glob `{glob}` is a negation; negation is not supported"
        ));
    }
    let path = RepoPath::parse(glob).map_err(|e| format!("{e}; {FIX}"))?;
    globset::GlobBuilder::new(path.as_str())
        .literal_separator(true)
        .build()
        .map_err(|e| format!("glob `{glob}` is invalid: {e}"))?;
    Ok(path)
}

/// True when `text` contains glob metacharacters (`*`, `?`, `[`, `{`).
pub fn has_glob_meta(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_leading_dot_slash_and_trailing_slash() {
        assert_eq!(
            RepoPath::parse("./src/lib.rs").unwrap().as_str(),
            "src/lib.rs"
        );
        assert_eq!(RepoPath::parse("docs/").unwrap().as_str(), "docs");
    }

    #[test]
    fn rejects_paths_that_leave_the_repository() {
        assert!(RepoPath::parse("/etc/passwd")
            .unwrap_err()
            .contains("absolute"));
        assert!(RepoPath::parse("../secret").unwrap_err().contains(".."));
        assert!(RepoPath::parse("a/../../b").unwrap_err().contains(".."));
        assert!(RepoPath::parse("C:\\x").unwrap_err().contains("absolute"));
        assert!(RepoPath::parse("./").unwrap_err().contains("names no file"));
    }

    #[test]
    fn frozen_globs_stay_inside_and_compile() {
        assert_eq!(frozen_glob("./docs/*.md").unwrap().as_str(), "docs/*.md");
        assert_eq!(frozen_glob("**").unwrap().as_str(), "**");
        for (glob, expected) in [
            ("/", "absolute"),
            ("/etc/*", "absolute"),
            ("../x/*", "`..`"),
            ("src/**/../../x", "`..`"),
            ("!docs/*", "negation"),
            ("src/[a", "invalid"),
            ("", "names no file"),
            (".", "names no file"),
        ] {
            let e = frozen_glob(glob).unwrap_err();
            assert!(e.contains(expected), "{glob}: {e}");
        }
    }

    #[test]
    fn dots_inside_names_are_fine() {
        assert_eq!(RepoPath::parse("a..b/c.rs").unwrap().as_str(), "a..b/c.rs");
    }
}
