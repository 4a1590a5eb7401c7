//! `[grep:]` and `[no-grep:]`: a regex over one file, every file under a
//! directory, or every file a glob matches.
//!
//! Every file is read through [`files::read_real`]: confined to the
//! repository, never through a symlink, bounded, regular files only. A
//! directory target or a glob's directory part (`src/a` of
//! `src/a/**/*.rs`) is resolved like any path: a symlink on it that stays
//! inside the repository is followed, one that leads outside fails the hint
//! with `path_escapes` before anything is listed. Below that start, the
//! walk follows no symlink at all (to a file or a directory, inside the
//! repository or not): each one met is passed over and named in the
//! evidence note, as is a FIFO, socket or device the glob matches. Name a
//! symlink as a literal path to read through it.
//!
//! The walk honours `.gitignore` and `.ignore` files (each read like any
//! file: a FIFO or an oversized one fails the hint rather than hang or
//! exhaust the walk), `.git/info/exclude` and the user's global excludes
//! file, never enters `.git/` or `.zurdo/`, and reads no ignore file above
//! the repository root. Given [`IgnoreRules`] taken earlier (a run's
//! start), it reads those instead of the repository's ignore files as they
//! are now: an ignore entry written since hides nothing from a search, and
//! one removed since exposes nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use zurdo_base::files::kind_of;
use zurdo_base::text::escape_line;

use super::files::{self, Place, ABSENT};
use super::outcome::{Blob, Evidence, Reason, Verdict};
use crate::hint::GrepCheck;

/// Directories never searched through a glob or a directory target.
const SKIPPED: [&str; 2] = [".git", ".zurdo"];

/// Entries a walk passed over named in the evidence note, at most.
const PASSED_OVER_SHOWN: usize = 5;

/// The most bytes of ignore files [`IgnoreRules::capture`] keeps; past it
/// the capture gives up and searches read the files as they are.
pub const IGNORE_RULES_LIMIT: usize = 4 * 1024 * 1024;

/// The ignore files of a repository (every `.gitignore` and `.ignore` a
/// search could read, and `.git/info/exclude`) as they were at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IgnoreRules {
    /// Repository-relative path → the file's text.
    pub files: BTreeMap<String, String>,
}

impl IgnoreRules {
    /// The ignore files under `root` now (a directory the rules ignore is
    /// not entered: its own ignore files could not apply to a search);
    /// `None` when they cannot all be read or hold more than
    /// [`IGNORE_RULES_LIMIT`] bytes.
    pub fn capture(root: &Path) -> Option<IgnoreRules> {
        let is_rules = |shown: &str| {
            let name = shown.rsplit('/').next().unwrap_or(shown);
            name == ".gitignore" || name == ".ignore"
        };
        let found = walk(root, "", Path::new(""), &is_rules, None).ok()?;
        let mut rules = IgnoreRules::default();
        let mut total = 0usize;
        let paths = found.files.iter().map(|t| t.shown.clone()).chain(
            root.join(".git")
                .is_dir()
                .then(|| ".git/info/exclude".to_string()),
        );
        for path in paths {
            let Some(bytes) = files::read_confined(root, &path).ok()? else {
                continue;
            };
            total += bytes.len();
            if total > IGNORE_RULES_LIMIT {
                return None;
            }
            rules
                .files
                .insert(path, String::from_utf8_lossy(&bytes).into_owned());
        }
        Some(rules)
    }
}

/// Runs a `[grep:]` (`want_match`) or `[no-grep:]` check; a directory or
/// glob search honours `frozen` ignore rules when given, else the ignore
/// files as they are.
pub(crate) fn check(
    root: &Path,
    grep: &GrepCheck,
    want_match: bool,
    frozen: Option<&IgnoreRules>,
) -> (Verdict, Evidence) {
    let mut evidence = Evidence::default();
    // Built exactly as `zurdo validate` builds it: what validates, runs.
    let regex = match crate::hint::grep_regex(&grep.pattern) {
        Ok(r) => r,
        Err(e) => {
            return (
                Verdict::Fail(Reason::BadRegex {
                    error: e.to_string(),
                }),
                evidence,
            )
        }
    };
    let found = match targets(root, grep, frozen) {
        Ok(found) => found,
        Err(reason) => return (Verdict::Fail(reason), evidence),
    };
    let Some(found) = found else {
        // A literal path that does not exist: nothing can match.
        evidence.blobs.push(Blob {
            path: grep.target.to_string(),
            id: ABSENT.to_string(),
        });
        return if want_match {
            (Verdict::Fail(Reason::Missing), evidence)
        } else {
            evidence.note = Some(format!("{} does not exist", grep.target));
            (Verdict::Pass, evidence)
        };
    };
    let passed_over = found.passed_over_note();
    let noted = |note: String| Some(format!("{note}{passed_over}"));
    // What was passed over, alone (when there is no other note).
    let only_passed_over =
        (!passed_over.is_empty()).then(|| passed_over.trim_start_matches("; ").to_string());
    if grep.target_is_glob && found.files.is_empty() {
        evidence.note = only_passed_over;
        return (Verdict::Fail(Reason::GlobMatchedNothing), evidence);
    }
    for target in &found.files {
        let bytes = match files::read_with_blob(root, &target.real, &target.shown, &mut evidence) {
            Ok(b) => b,
            Err(reason) => {
                evidence.note = only_passed_over;
                return (Verdict::Fail(reason), evidence);
            }
        };
        if let Some(m) = regex.find(&bytes) {
            let first = describe(&target.shown, &bytes, m.start());
            evidence.note = noted(format!("first match: {first}"));
            return if want_match {
                (Verdict::Pass, evidence)
            } else {
                (Verdict::Fail(Reason::Matched { first }), evidence)
            };
        }
    }
    if want_match {
        evidence.note = noted(format!("searched {} file(s)", found.files.len()));
        (Verdict::Fail(Reason::NoMatch), evidence)
    } else {
        evidence.note = noted(format!("no match in {} file(s)", found.files.len()));
        (Verdict::Pass, evidence)
    }
}

/// `path:line: text` for the match starting at `at`, control characters
/// escaped (a file's line is shown on terminals and in prompts).
fn describe(path: &str, bytes: &[u8], at: usize) -> String {
    let line_no = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| at + p);
    let text = String::from_utf8_lossy(&bytes[start..end]);
    let text: String = text.trim().chars().take(200).collect();
    format!("{}:{line_no}: {}", escape_line(path), escape_line(&text))
}

/// One file to search: how it is shown (the path as the hint wrote it)
/// and where it really is below the root.
#[derive(Debug)]
struct Target {
    shown: String,
    real: PathBuf,
}

/// The files to search, sorted, and what the walk passed over.
#[derive(Debug, Default)]
struct Found {
    files: Vec<Target>,
    passed_over: Vec<String>,
}

impl Found {
    /// `; passed over: a (a symlink, not followed), …`, or nothing.
    fn passed_over_note(&self) -> String {
        if self.passed_over.is_empty() {
            return String::new();
        }
        let shown = self.passed_over.len().min(PASSED_OVER_SHOWN);
        let mut note = format!("; passed over: {}", self.passed_over[..shown].join(", "));
        if self.passed_over.len() > shown {
            note.push_str(&format!(" and {} more", self.passed_over.len() - shown));
        }
        note
    }
}

/// The files to search; `None` for a literal path that does not exist.
fn targets(
    root: &Path,
    grep: &GrepCheck,
    frozen: Option<&IgnoreRules>,
) -> Result<Option<Found>, Reason> {
    let target = grep.target.as_str();
    if !grep.target_is_glob {
        let real = match files::confine(root, target)? {
            Place::Found(real) => real,
            Place::Missing => return Ok(None),
        };
        let Some(meta) = files::metadata(root, &real) else {
            return Ok(None);
        };
        if meta.is_dir() {
            return walk(root, target, &real, &|_| true, frozen).map(Some);
        }
        if !meta.is_file() {
            return Err(Reason::NotRegular {
                path: escape_line(target).into_owned(),
                kind: kind_of(&meta).to_string(),
            });
        }
        return Ok(Some(Found {
            files: vec![Target {
                shown: target.to_string(),
                real,
            }],
            passed_over: Vec::new(),
        }));
    }
    let glob = crate::hint::grep_glob(target)
        .map_err(|e| Reason::BadRegex {
            error: format!("glob `{target}`: {e}"),
        })?
        .compile_matcher();
    let base = literal_prefix(target);
    let real = if base.is_empty() {
        PathBuf::new()
    } else {
        match files::confine(root, base) {
            Ok(Place::Found(real)) if files::metadata(root, &real).is_some_and(|m| m.is_dir()) => {
                real
            }
            Ok(_) => return Ok(Some(Found::default())),
            Err(Reason::PathEscapes { detail }) => {
                return Err(Reason::PathEscapes {
                    detail: format!("the glob's directory: {detail}"),
                })
            }
            Err(reason) => return Err(reason),
        }
    };
    walk(root, base, &real, &|shown| glob.is_match(shown), frozen).map(Some)
}

/// The directory part of a glob before its first metacharacter (`src/a`
/// for `src/a/**/*.rs`), where the walk can start.
fn literal_prefix(glob: &str) -> &str {
    let meta = glob.find(['*', '?', '[', '{']).unwrap_or(glob.len());
    glob[..meta].rfind('/').map_or("", |slash| &glob[..slash])
}

/// The ignore files of one directory.
struct Level {
    /// `.ignore` (takes precedence over every `.gitignore`).
    ignore: Gitignore,
    /// `.gitignore`.
    gitignore: Gitignore,
}

/// Every ignore rule in force at a point of the walk.
struct Ignores {
    /// From the root down to the directory being walked.
    levels: Vec<Level>,
    /// `.git/info/exclude`.
    exclude: Gitignore,
    /// The user's global excludes file (`core.excludesFile`).
    global: Gitignore,
}

impl Ignores {
    /// Whether `path` (absolute, below the root) is ignored: `.ignore`
    /// rules first, then `.gitignore`, each from the deepest directory up,
    /// then `.git/info/exclude`, then the global file; the first rule that
    /// matches (to ignore or to re-include) decides.
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let first = |pick: fn(&Level) -> &Gitignore| {
            self.levels
                .iter()
                .rev()
                .map(|level| pick(level).matched(path, is_dir))
                .find(|m| !m.is_none())
                .unwrap_or(Match::None)
        };
        first(|l| &l.ignore)
            .or(first(|l| &l.gitignore))
            .or(self.exclude.matched(path, is_dir))
            .or(self.global.matched(path, is_dir))
            .is_ignore()
    }
}

/// `real` as repository text (`a/b`), for reading files beside it.
fn text_of(real: &Path) -> String {
    real.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The rules of an ignore file at `path` (repository text) applying to the
/// directory `dir` (absolute), from `frozen` when given, else from the file
/// as it is; none when there is no such file.
fn rules(
    root: &Path,
    dir: &Path,
    path: &str,
    frozen: Option<&IgnoreRules>,
) -> Result<Gitignore, Reason> {
    let bytes = match frozen {
        Some(f) => f.files.get(path).map(|t| t.as_bytes().to_vec()),
        None => files::read_confined(root, path)?,
    };
    let Some(bytes) = bytes else {
        return Ok(Gitignore::empty());
    };
    let mut builder = GitignoreBuilder::new(dir);
    for line in String::from_utf8_lossy(&bytes).lines() {
        // A malformed line is skipped, as git skips it.
        let _ = builder.add_line(None, line);
    }
    Ok(builder.build().unwrap_or_else(|_| Gitignore::empty()))
}

/// The ignore files of the directory at `real`.
fn level(root: &Path, real: &Path, frozen: Option<&IgnoreRules>) -> Result<Level, Reason> {
    let dir = root.join(real);
    let text = text_of(real);
    let beside = |name: &str| {
        if text.is_empty() {
            name.to_string()
        } else {
            format!("{text}/{name}")
        }
    };
    Ok(Level {
        ignore: rules(root, &dir, &beside(".ignore"), frozen)?,
        gitignore: rules(root, &dir, &beside(".gitignore"), frozen)?,
    })
}

/// The user's global excludes file (`core.excludesFile`), read once per
/// process and root (finding it means reading git's config files).
fn global_excludes(root: &Path) -> Gitignore {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<Vec<(PathBuf, Gitignore)>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, g)) = cache.iter().find(|(r, _)| r == root) {
        return g.clone();
    }
    let (global, _) = GitignoreBuilder::new(root).build_global();
    if cache.len() < 16 {
        cache.push((root.to_path_buf(), global.clone()));
    }
    global
}

/// Every regular file under `real` (below the root; shown as `shown` and
/// what follows) that `keep` accepts, and what was passed over.
fn walk(
    root: &Path,
    shown: &str,
    real: &Path,
    keep: &dyn Fn(&str) -> bool,
    frozen: Option<&IgnoreRules>,
) -> Result<Found, Reason> {
    let exclude = if root.join(".git").is_dir() {
        rules(root, root, ".git/info/exclude", frozen)?
    } else {
        Gitignore::empty()
    };
    let global = global_excludes(root);
    let mut ignores = Ignores {
        levels: vec![level(root, Path::new(""), frozen)?],
        exclude,
        global,
    };
    let mut at = PathBuf::new();
    for component in real.components() {
        at.push(component);
        ignores.levels.push(level(root, &at, frozen)?);
    }
    let mut walk = Walk {
        root,
        keep,
        ignores,
        frozen,
        found: Found::default(),
    };
    walk.dir(real, shown)?;
    walk.found.files.sort_by(|a, b| a.shown.cmp(&b.shown));
    Ok(walk.found)
}

/// A walk in progress.
struct Walk<'a> {
    root: &'a Path,
    keep: &'a dyn Fn(&str) -> bool,
    ignores: Ignores,
    frozen: Option<&'a IgnoreRules>,
    found: Found,
}

impl Walk<'_> {
    /// Walks the directory at `real`, shown as `shown`; its own ignore
    /// files are already in `self.ignores`.
    fn dir(&mut self, real: &Path, shown: &str) -> Result<(), Reason> {
        let abs = self.root.join(real);
        let unreadable = |e: std::io::Error| Reason::Unreadable {
            detail: format!(
                "{}: {e}",
                escape_line(if shown.is_empty() { "." } else { shown })
            ),
        };
        let mut entries = std::fs::read_dir(&abs)
            .map_err(unreadable)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let name = entry.file_name();
            if SKIPPED.iter().any(|s| name == *s) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = abs.join(&name);
            if self.ignores.ignored(&path, kind.is_dir()) {
                continue;
            }
            let lossy = name.to_string_lossy();
            let child_shown = if shown.is_empty() {
                lossy.to_string()
            } else {
                format!("{shown}/{lossy}")
            };
            if name.to_str().is_none() {
                return Err(Reason::Unreadable {
                    detail: format!(
                        "{}: the name is not valid UTF-8, so zurdo does not search it; rename it",
                        escape_line(&child_shown)
                    ),
                });
            }
            let child_real = real.join(&name);
            if kind.is_dir() {
                let level = level(self.root, &child_real, self.frozen)?;
                self.ignores.levels.push(level);
                let walked = self.dir(&child_real, &child_shown);
                self.ignores.levels.pop();
                walked?;
            } else if kind.is_file() {
                if (self.keep)(&child_shown) {
                    self.found.files.push(Target {
                        shown: child_shown,
                        real: child_real,
                    });
                }
            } else if kind.is_symlink() {
                let leaves = std::fs::canonicalize(&path).is_ok_and(|p| !p.starts_with(self.root));
                if leaves || (self.keep)(&child_shown) {
                    let why = if leaves {
                        "a symlink leaving the repository"
                    } else {
                        "a symlink"
                    };
                    self.found.passed_over.push(format!(
                        "{} ({why}, not followed)",
                        escape_line(&child_shown)
                    ));
                }
            } else if (self.keep)(&child_shown) {
                let what = std::fs::symlink_metadata(&path)
                    .map(|m| kind_of(&m))
                    .unwrap_or("not a file");
                self.found
                    .passed_over
                    .push(format!("{} ({what}, not read)", escape_line(&child_shown)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_prefix_stops_at_the_first_metacharacter() {
        assert_eq!(literal_prefix("src/**/*.rs"), "src");
        assert_eq!(literal_prefix("src/a/b*.rs"), "src/a");
        assert_eq!(literal_prefix("*.md"), "");
        assert_eq!(literal_prefix("**/x"), "");
    }
}
