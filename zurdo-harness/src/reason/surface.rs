//! The match surface: the four components a lesson declares and a task (or
//! a failure) offers. Matching is deterministic: one point per component in
//! which the two sides overlap, and [`MIN_SCORE`] points surface a lesson.

use std::collections::BTreeSet;

/// The four components a lesson declares and a task (or a failure) offers.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Surface {
    /// Hint kinds: `shell`, `grep`, `no-grep`, `file-exists`, `http`, …
    #[serde(default)]
    pub hints: BTreeSet<String>,
    /// Typed failure reasons, snake_case: `exit_code`, `zero_tests`, …
    #[serde(default)]
    pub reasons: BTreeSet<String>,
    /// Shell command heads: `cargo`, `npm`, `pytest`.
    #[serde(default)]
    pub commands: BTreeSet<String>,
    /// Directory prefixes, each ending in `/`: `tests/`, `src/api/`.
    #[serde(default)]
    pub paths: BTreeSet<String>,
}

/// The score a lesson needs to surface: one coincidence is never enough.
pub const MIN_SCORE: usize = 2;

impl Surface {
    /// How many of the four components are non-empty (0..=4).
    pub fn declared(&self) -> usize {
        [
            !self.hints.is_empty(),
            !self.reasons.is_empty(),
            !self.commands.is_empty(),
            !self.paths.is_empty(),
        ]
        .iter()
        .filter(|&&d| d)
        .count()
    }

    /// One point per component in which the two sides overlap (0..=4).
    /// Hints, reasons and commands overlap on a shared element; paths
    /// overlap when a prefix of one side contains (or equals) a prefix of
    /// the other at a `/` boundary: `tests/` overlaps `tests/api/`, `test/`
    /// does not overlap `tests/`.
    pub fn score(&self, other: &Surface) -> usize {
        let shares = |a: &BTreeSet<String>, b: &BTreeSet<String>| !a.is_disjoint(b);
        let paths = self
            .paths
            .iter()
            .any(|a| other.paths.iter().any(|b| prefixes_overlap(a, b)));
        [
            shares(&self.hints, &other.hints),
            shares(&self.reasons, &other.reasons),
            shares(&self.commands, &other.commands),
            paths,
        ]
        .iter()
        .filter(|&&o| o)
        .count()
    }

    /// True when the two sides score at least [`MIN_SCORE`].
    pub fn surfaces(&self, other: &Surface) -> bool {
        self.score(other) >= MIN_SCORE
    }

    /// Adds the directory of a repository-relative file path:
    /// `tests/api/x.rs` adds `tests/api/`; a path ending in `/` is a
    /// directory and adds itself. A root-level file (`Cargo.toml`) adds
    /// nothing; `./` and a leading `/` are normalised away, and a path with
    /// a `..` component is ignored (it does not name a place in the repo).
    pub fn add_path(&mut self, path: &str) {
        let path = path.trim();
        let is_dir = path.ends_with('/');
        let mut parts: Vec<&str> = path
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if parts.contains(&"..") {
            return;
        }
        if !is_dir {
            parts.pop();
        }
        if !parts.is_empty() {
            self.paths.insert(format!("{}/", parts.join("/")));
        }
    }

    /// Adds the literal directory prefix of a glob, the part before its
    /// first metacharacter (`*`, `?`, `[`, `{`, or a `\` escape) cut back to
    /// the last `/`: `tests/**` adds `tests/`, `src/gen/*.rs` adds
    /// `src/gen/`; `**/*.rs` and `Cargo.lock` add nothing.
    pub fn add_glob(&mut self, glob: &str) {
        let literal = glob
            .find(['*', '?', '[', '{', '\\'])
            .map_or(glob, |at| &glob[..at]);
        if let Some(slash) = literal.rfind('/') {
            self.add_path(&literal[..=slash]);
        }
    }

    /// Adds the command head of a shell command: the program of its first
    /// simple command as [`zurdo::verify::command_words`] reads it, without
    /// its directory (`/usr/bin/cargo test` adds `cargo`,
    /// `./scripts/check.sh` adds `check.sh`). Leading `NAME=value`
    /// assignments and wrappers such as `env`, `time` and `timeout 60` are
    /// not the head (`FOO=1 cargo test` adds `cargo`); `sh -c '…'` adds
    /// `sh`. An empty command adds nothing.
    pub fn add_command(&mut self, command: &str) {
        let words = zurdo::verify::command_words(command);
        let Some(first) = words.first() else {
            return;
        };
        let head = first.rsplit('/').next().unwrap_or(first);
        if !head.is_empty() {
            self.commands.insert(head.to_string());
        }
    }

    /// True when no component declares anything.
    pub fn is_empty(&self) -> bool {
        self.declared() == 0
    }
}

/// Whether one directory prefix contains the other, at `/` boundaries. A
/// prefix missing its trailing `/` (a hand-edited lesson) is read as if it
/// had one; an empty prefix overlaps nothing.
fn prefixes_overlap(a: &str, b: &str) -> bool {
    let norm = |p: &str| {
        let p = p.trim().trim_start_matches("./").trim_start_matches('/');
        let p = p.trim_end_matches('/');
        (!p.is_empty()).then(|| format!("{p}/"))
    };
    match (norm(a), norm(b)) {
        (Some(a), Some(b)) => a.starts_with(&b) || b.starts_with(&a),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn paths(items: &[&str]) -> Surface {
        Surface {
            paths: set(items),
            ..Surface::default()
        }
    }

    #[test]
    fn declared_counts_non_empty_components() {
        let mut s = Surface::default();
        assert_eq!(s.declared(), 0);
        assert!(s.is_empty());
        s.hints.insert("shell".into());
        assert_eq!(s.declared(), 1);
        s.paths.insert("tests/".into());
        assert_eq!(s.declared(), 2);
        s.reasons.insert("exit_code".into());
        s.commands.insert("cargo".into());
        assert_eq!(s.declared(), 4);
        assert!(!s.is_empty());
    }

    #[test]
    fn scores_one_point_per_overlapping_component() {
        let lesson = Surface {
            hints: set(&["shell", "grep"]),
            reasons: set(&["exit_code"]),
            commands: set(&["cargo"]),
            paths: set(&["tests/"]),
        };
        let hints_only = Surface {
            hints: set(&["grep"]),
            ..Surface::default()
        };
        assert_eq!(lesson.score(&hints_only), 1);
        assert!(
            !lesson.surfaces(&hints_only),
            "one coincidence is not enough"
        );

        let reasons = Surface {
            reasons: set(&["exit_code", "zero_tests"]),
            ..hints_only.clone()
        };
        assert_eq!(lesson.score(&reasons), 2);
        assert!(lesson.surfaces(&reasons));

        let commands = Surface {
            commands: set(&["cargo"]),
            ..reasons.clone()
        };
        assert_eq!(lesson.score(&commands), 3);
        let all = Surface {
            paths: set(&["tests/api/"]),
            ..commands.clone()
        };
        assert_eq!(lesson.score(&all), 4);
        assert_eq!(all.score(&lesson), 4, "symmetric");

        let elsewhere = Surface {
            hints: set(&["http"]),
            reasons: set(&["no_match"]),
            commands: set(&["npm"]),
            paths: set(&["web/"]),
        };
        assert_eq!(lesson.score(&elsewhere), 0);
        assert_eq!(lesson.score(&Surface::default()), 0);
    }

    #[test]
    fn path_prefixes_overlap_only_at_slash_boundaries() {
        let score = |a: &[&str], b: &[&str]| paths(a).score(&paths(b));
        assert_eq!(score(&["tests/"], &["tests/api/"]), 1);
        assert_eq!(score(&["tests/api/"], &["tests/"]), 1);
        assert_eq!(score(&["tests/"], &["tests/"]), 1);
        assert_eq!(score(&["test/"], &["tests/"]), 0);
        assert_eq!(score(&["tests/"], &["test/"]), 0);
        assert_eq!(score(&["src/api/"], &["src/apis/"]), 0);
        assert_eq!(score(&["src/a/", "docs/"], &["web/", "docs/x/"]), 1);
        // A hand-edited prefix without its '/' still respects the boundary.
        assert_eq!(score(&["test"], &["tests/"]), 0);
        assert_eq!(score(&["tests"], &["tests/api/"]), 1);
        // An empty prefix is not "the whole repository".
        assert_eq!(score(&[""], &["tests/"]), 0);
        assert_eq!(score(&["/"], &["tests/"]), 0);
    }

    #[test]
    fn add_path_keeps_the_parent_directory() {
        let mut s = Surface::default();
        s.add_path("tests/api/x.rs");
        s.add_path("./src/lib/mod.rs");
        s.add_path("/docs/guide.md");
        s.add_path("Cargo.toml");
        s.add_path("./README.md");
        s.add_path("../outside/x.rs");
        s.add_path("a/../b/x.rs");
        s.add_path("bench/");
        s.add_path("");
        assert_eq!(s.paths, set(&["bench/", "docs/", "src/lib/", "tests/api/"]));
    }

    #[test]
    fn add_glob_keeps_the_literal_directory_prefix() {
        let mut s = Surface::default();
        s.add_glob("tests/**");
        s.add_glob("src/gen/*.rs");
        s.add_glob("**/*.rs");
        s.add_glob("Cargo.lock");
        s.add_glob("*.md");
        s.add_glob("docs/ch[0-9]/x.md");
        s.add_glob("migrations/");
        s.add_glob("web/{a,b}/x");
        assert_eq!(
            s.paths,
            set(&["docs/", "migrations/", "src/gen/", "tests/", "web/"])
        );
    }

    #[test]
    fn add_command_keeps_the_head() {
        let heads = |c: &str| {
            let mut s = Surface::default();
            s.add_command(c);
            s.commands
        };
        assert_eq!(heads("cargo test --workspace"), set(&["cargo"]));
        assert_eq!(heads("/usr/bin/cargo test"), set(&["cargo"]));
        assert_eq!(heads("./scripts/check.sh --all"), set(&["check.sh"]));
        // command_words drops leading assignments and wrappers.
        assert_eq!(heads("FOO=1 cargo test"), set(&["cargo"]));
        assert_eq!(heads("timeout 60 npm test"), set(&["npm"]));
        // Only the first simple command is the head.
        assert_eq!(heads("make build && pytest -q"), set(&["make"]));
        assert_eq!(heads("sh -c 'cargo test'"), set(&["sh"]));
        assert_eq!(heads(""), set(&[]));
        assert_eq!(heads("   "), set(&[]));
    }
}
