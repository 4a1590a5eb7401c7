//! Toolchain provenance: `sh` and every command word of the `[shell:]`
//! hints, resolved on the allowlisted `PATH`, with each file's SHA-256.
//! Recorded at run start; re-hashed before every verification pass. A change
//! only warns (a rustup update looks the same as a planted shim) and marks
//! that pass `toolchain_changed`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use zurdo::hint::Check;
use zurdo::Prd;

/// Words that are shell builtins or keywords, never looked up on `PATH`.
const BUILTINS: [&str; 32] = [
    "cd", "test", "[", "[[", "echo", "printf", "true", "false", ":", "export", "set", "unset",
    "exit", "return", "read", "eval", "exec", "source", ".", "if", "then", "else", "fi", "for",
    "while", "do", "done", "case", "esac", "!", "{", "}",
];

/// One resolved tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    /// The word as the hints write it (`cargo`, `./run-tests.sh`).
    pub name: String,
    /// Where it resolved (symlinks followed).
    pub path: String,
    /// SHA-256 of the file.
    pub sha256: String,
}

/// The command words of every `[shell:]` hint of `prd`, plus `sh`.
pub fn words(prd: &Prd, extra: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    let mut words = BTreeSet::from(["sh".to_string()]);
    let commands = prd
        .tasks
        .iter()
        .flat_map(|t| &t.criteria)
        .flat_map(|c| &c.hints)
        .filter_map(|h| match &h.check {
            Check::Shell { command } => Some(command.clone()),
            _ => None,
        });
    for command in commands.chain(extra) {
        for word in zurdo::verify::command_words(&command) {
            if !BUILTINS.contains(&word.as_str()) && !word.contains('=') && !word.starts_with('$') {
                words.insert(word);
            }
        }
    }
    words
}

fn sha256(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(
        Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    )
}

/// Resolves and hashes `words` on `path_var` (a `PATH` value); a word with a
/// `/` is taken relative to `root`. Words that resolve nowhere are skipped.
pub fn resolve(words: &BTreeSet<String>, path_var: &str, root: &Path) -> Vec<Tool> {
    words
        .iter()
        .filter_map(|word| {
            let found: Option<PathBuf> = if word.contains('/') {
                Some(root.join(word)).filter(|p| p.is_file())
            } else {
                std::env::split_paths(path_var)
                    .map(|d| d.join(word))
                    .find(|p| p.is_file())
            };
            let real = std::fs::canonicalize(found?).ok()?;
            Some(Tool {
                name: word.clone(),
                path: real.display().to_string(),
                sha256: sha256(&real)?,
            })
        })
        .collect()
}

/// The tools whose path or hash differs from `recorded` (or that vanished).
pub fn changed(recorded: &[Tool], now: &[Tool]) -> Vec<String> {
    recorded
        .iter()
        .filter_map(|r| match now.iter().find(|n| n.name == r.name) {
            Some(n) if n == r => None,
            Some(n) if n.path != r.path => {
                Some(format!("{} moved: {} -> {}", r.name, r.path, n.path))
            }
            Some(_) => Some(format!("{} ({}) changed content", r.name, r.path)),
            None => Some(format!("{} ({}) is gone", r.name, r.path)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_hashes_and_notices_a_swap() {
        let dir = tempfile::tempdir().expect("temp");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("mkdir");
        std::fs::write(bin.join("mytool"), "#!/bin/sh\necho 1\n").expect("write");
        let prd = zurdo::parse(
            "# PRD: t\n\n## Task: task-1 — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
             ### Acceptance Criteria\n- [ ] c [shell: cd x && mytool --flag | grep -q ok; FOO=1 test -f y]\n",
        )
        .expect("valid");
        let w = words(&prd, []);
        assert!(
            w.contains("mytool") && w.contains("grep") && w.contains("sh"),
            "{w:?}"
        );
        assert!(!w.contains("cd") && !w.contains("test"), "{w:?}");
        let path = format!("{}:/usr/bin:/bin", bin.display());
        let first = resolve(&w, &path, dir.path());
        assert!(first.iter().any(|t| t.name == "mytool"), "{first:?}");
        assert!(changed(&first, &resolve(&w, &path, dir.path())).is_empty());
        std::fs::write(bin.join("mytool"), "#!/bin/sh\necho planted\n").expect("swap");
        let diff = changed(&first, &resolve(&w, &path, dir.path()));
        assert_eq!(diff.len(), 1, "{diff:?}");
        assert!(
            diff[0].starts_with("mytool (") && diff[0].ends_with("changed content"),
            "{diff:?}"
        );
    }
}
