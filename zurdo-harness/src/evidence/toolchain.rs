//! Toolchain provenance: `sh` and every command word of the `[shell:]`
//! hints, resolved on the allowlisted `PATH`, with each file's SHA-256
//! (streamed: a large binary costs a fixed buffer). Recorded at run start;
//! re-hashed before every verification pass. A change outside the
//! repository only warns (a rustup update looks the same as a planted shim)
//! and marks that pass `toolchain_changed`; one inside the repository is
//! the environment surface's (`environment_planted`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use zurdo::Prd;

use super::commands::Commands;
use super::hash;

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

/// `sh` and the programs of every `[shell:]` hint of `prd` and of `extra`
/// (see [`Commands::tool_words`]).
pub fn words(prd: &Prd, extra: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    Commands::of_prd(prd, extra).tool_words()
}

/// True for a regular file someone may execute.
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Where `word` is found as the shell run at `root` finds it: a word with
/// a `/` from `root`; any other on `path_var` (a relative or empty entry is
/// relative to `root`, where hints run), the first executable file. The
/// path as found (a shim's own location), not yet through its symlinks.
pub fn find(word: &str, path_var: &str, root: &Path) -> Option<PathBuf> {
    if word.contains('/') {
        return Some(root.join(word)).filter(|p| p.is_file());
    }
    std::env::split_paths(path_var)
        .map(|d| {
            if d.as_os_str().is_empty() {
                root.to_path_buf()
            } else if d.is_relative() {
                root.join(d)
            } else {
                d
            }
        })
        .map(|d| d.join(word))
        .find(|p| executable(p))
}

/// Resolves and hashes `word` (see [`find`]); `None` when it resolves
/// nowhere or is not a regular file.
pub fn resolve_one(word: &str, path_var: &str, root: &Path) -> Option<Tool> {
    let real = std::fs::canonicalize(find(word, path_var, root)?).ok()?;
    Some(Tool {
        name: word.to_string(),
        path: real.display().to_string(),
        sha256: hash::file(&real).ok()?,
    })
}

/// Resolves and hashes `words` on `path_var` (a `PATH` value); a word with
/// a `/` is taken relative to `root`. Words that resolve nowhere are
/// skipped.
pub fn resolve(words: &BTreeSet<String>, path_var: &str, root: &Path) -> Vec<Tool> {
    words
        .iter()
        .filter_map(|word| resolve_one(word, path_var, root))
        .collect()
}

/// One line saying how `now` differs from `recorded` (`None` when equal).
pub fn change(recorded: &Tool, now: Option<&Tool>) -> Option<String> {
    match now {
        Some(n) if n == recorded => None,
        Some(n) if n.path != recorded.path => Some(format!(
            "{} moved: {} -> {}",
            recorded.name, recorded.path, n.path
        )),
        Some(_) => Some(format!(
            "{} ({}) changed content",
            recorded.name, recorded.path
        )),
        None => Some(format!("{} ({}) is gone", recorded.name, recorded.path)),
    }
}

/// The tools whose path or hash differs from `recorded` (or that vanished).
pub fn changed(recorded: &[Tool], now: &[Tool]) -> Vec<String> {
    recorded
        .iter()
        .filter_map(|r| change(r, now.iter().find(|n| n.name == r.name)))
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
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("mytool"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
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

    #[test]
    fn relative_path_entries_are_the_roots_and_only_executables_count() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        std::fs::create_dir_all(root.join("bin")).expect("mkdir");
        std::fs::create_dir_all(root.join("tools")).expect("mkdir");
        std::fs::write(root.join("bin/t"), "not executable").expect("write");
        std::fs::write(root.join("tools/t"), "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(root.join("tools/t"), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        assert_eq!(
            find("t", "bin:tools:/usr/bin", &root),
            Some(root.join("tools/t"))
        );
        std::fs::write(root.join("run.sh"), "x").expect("write");
        assert_eq!(find("./run.sh", "", &root), Some(root.join("./run.sh")));
        assert_eq!(find("./nope.sh", "", &root), None);
    }
}
