//! `[grep:]` and `[no-grep:]`: a regex over one file, every file under a
//! directory, or every file a glob matches.

use std::path::Path;

use globset::GlobBuilder;

use super::files::{self, ABSENT};
use super::outcome::{Blob, Evidence, Reason, Verdict};
use crate::hint::GrepCheck;

/// Directories never searched through a glob or a directory target.
const SKIPPED: [&str; 2] = [".git", ".zurdo"];

/// Runs a `[grep:]` (`want_match`) or `[no-grep:]` check.
pub(crate) fn check(root: &Path, grep: &GrepCheck, want_match: bool) -> (Verdict, Evidence) {
    let mut evidence = Evidence::default();
    let regex = match regex::bytes::RegexBuilder::new(&grep.pattern)
        .multi_line(true)
        .build()
    {
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
    let files = match targets(root, grep) {
        Ok(files) => files,
        Err(reason) => return (Verdict::Fail(reason), evidence),
    };
    let Some(files) = files else {
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
    for shown in &files {
        // Walked files are regular files inside the root (symlinks are not
        // followed); a literal target was confined above.
        let full = root.join(shown);
        let bytes = match files::read_with_blob(&full, shown, &mut evidence) {
            Ok(b) => b,
            Err(reason) => return (Verdict::Fail(reason), evidence),
        };
        if let Some(m) = regex.find(&bytes) {
            let first = describe(shown, &bytes, m.start());
            evidence.note = Some(format!("first match: {first}"));
            return if want_match {
                (Verdict::Pass, evidence)
            } else {
                (Verdict::Fail(Reason::Matched { first }), evidence)
            };
        }
    }
    if want_match {
        evidence.note = Some(format!("searched {} file(s)", files.len()));
        (Verdict::Fail(Reason::NoMatch), evidence)
    } else {
        evidence.note = Some(format!("no match in {} file(s)", files.len()));
        (Verdict::Pass, evidence)
    }
}

/// `path:line: text` for the match starting at `at`.
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
    format!("{path}:{line_no}: {text}")
}

/// The repository-relative files to search, sorted; `None` for a literal
/// path that does not exist.
fn targets(root: &Path, grep: &GrepCheck) -> Result<Option<Vec<String>>, Reason> {
    if !grep.target_is_glob {
        let full = files::confine(root, &grep.target)?;
        return match std::fs::metadata(&full) {
            Ok(meta) if meta.is_dir() => Ok(Some(walk(root, grep.target.as_str(), &|_| true))),
            Ok(_) => Ok(Some(vec![grep.target.to_string()])),
            Err(_) => Ok(None),
        };
    }
    let glob = GlobBuilder::new(grep.target.as_str())
        .literal_separator(true)
        .build()
        .map_err(|e| Reason::BadRegex {
            error: format!("glob `{}`: {e}", grep.target),
        })?
        .compile_matcher();
    let base = literal_prefix(grep.target.as_str());
    let found = walk(root, base, &|rel| glob.is_match(rel));
    if found.is_empty() {
        return Err(Reason::GlobMatchedNothing);
    }
    Ok(Some(found))
}

/// The directory part of a glob before its first metacharacter (`src/a`
/// for `src/a/**/*.rs`), where the walk can start.
fn literal_prefix(glob: &str) -> &str {
    let meta = glob.find(['*', '?', '[', '{']).unwrap_or(glob.len());
    glob[..meta].rfind('/').map_or("", |slash| &glob[..slash])
}

/// Every regular file under `base` (repository-relative) that `keep`
/// accepts, honouring `.gitignore` files and never entering `.git/` or
/// `.zurdo/`. Symlinks are not followed.
fn walk(root: &Path, base: &str, keep: &dyn Fn(&str) -> bool) -> Vec<String> {
    let start = if base.is_empty() {
        root.to_path_buf()
    } else {
        root.join(base)
    };
    let mut found = Vec::new();
    let walker = ignore::WalkBuilder::new(&start)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| !SKIPPED.iter().any(|s| e.file_name() == *s))
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let rel = rel.join("/");
        if keep(&rel) {
            found.push(rel);
        }
    }
    found.sort();
    found
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
