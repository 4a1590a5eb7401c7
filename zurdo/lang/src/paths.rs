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
    fn dots_inside_names_are_fine() {
        assert_eq!(RepoPath::parse("a..b/c.rs").unwrap().as_str(), "a..b/c.rs");
    }
}
