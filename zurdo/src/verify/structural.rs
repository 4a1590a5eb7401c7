//! `[symbol:]`, `[references:]` and `[callers:]`, answered by Lumen.
//!
//! Every check repairs the index in-process first: the files whose content
//! hash changed are parsed again, so a verdict never depends on whether the
//! Vela watcher ran. The index is read from `.zurdo/lumen/` once per
//! verifier (a warm start) and from then on refreshed only from the source
//! files themselves, never re-read from disk: during a run, what the agent
//! writes under `.zurdo/` cannot change a structural verdict. A refreshed
//! index is published as a new generation for the next process.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

use zurdo_lumen::query::{Answer, Defined, Use};
use zurdo_lumen::Index;

use super::files;
use super::outcome::{Blob, Evidence, Reason, Verdict};
use crate::hint::{Check, QualifiedName};

/// The verifier's index, shared by its clones.
pub type Shared = std::sync::Arc<Mutex<Option<Index>>>;

/// Checks a structural hint against the repository at `root`.
pub fn check(root: &Path, shared: &Shared, check: &Check) -> (Verdict, Evidence) {
    let mut guard = shared.lock().unwrap_or_else(|p| p.into_inner());
    let index = guard.get_or_insert_with(|| Index::load(root));
    index.catch_up(root);
    let index: &Index = index;
    match check {
        Check::Symbol { name } => symbol(root, index, name),
        Check::References { name } => references(root, index, name),
        Check::Callers(c) => callers(root, index, &c.name, c.min, c.from.as_ref()),
        _ => (Verdict::Pass, Evidence::default()),
    }
}

/// The answer for `name` (the same `zurdo lumen query` prints), or why
/// the name is not defined.
fn resolve<'a>(index: &'a Index, name: &QualifiedName) -> Result<Answer<'a>, Reason> {
    defined(index, name).map(|defined| index.answer_for(defined))
}

/// The definitions of `name` (its uses not looked for), or why the name
/// is not defined.
fn defined<'a>(index: &'a Index, name: &QualifiedName) -> Result<Defined<'a>, Reason> {
    let defined = index.defined(&name.segments);
    if !defined.definitions.is_empty() {
        return Ok(defined);
    }
    let other: BTreeSet<&str> = defined
        .query_only
        .iter()
        .map(|d| d.symbol.kind.name())
        .collect();
    let detail = if other.is_empty() {
        format!("{} source files indexed", index.files.len())
    } else {
        format!(
            "it is {}; those are recorded for `zurdo lumen query` only",
            other
                .into_iter()
                .map(|k| if k.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    format!("an {k}")
                } else {
                    format!("a {k}")
                })
                .collect::<Vec<_>>()
                .join(" or ")
        )
    };
    Err(Reason::SymbolNotFound {
        name: name.to_string(),
        detail,
    })
}

fn symbol(root: &Path, index: &Index, name: &QualifiedName) -> (Verdict, Evidence) {
    match defined(index, name) {
        Err(reason) => (Verdict::Fail(reason), Evidence::default()),
        Ok(defined) => {
            let defs = &defined.definitions;
            let note = format!(
                "defined at {}",
                sites(defs.iter().map(|d| (d.file.path.as_str(), d.symbol.line)))
            );
            let paths = defs.iter().map(|d| d.file.path.as_str());
            (Verdict::Pass, evidence(root, paths, note))
        }
    }
}

fn references(root: &Path, index: &Index, name: &QualifiedName) -> (Verdict, Evidence) {
    let answer = match resolve(index, name) {
        Err(reason) => return (Verdict::Fail(reason), Evidence::default()),
        Ok(answer) => answer,
    };
    let defs = &answer.definitions;
    let uses = &answer.references;
    if uses.is_empty() {
        return (
            Verdict::Fail(Reason::NoReferences {
                name: name.to_string(),
            }),
            evidence(
                root,
                defs.iter().map(|d| d.file.path.as_str()),
                ambiguous_note(&answer.ambiguous),
            ),
        );
    }
    let note = format!(
        "{} reference(s): {}{}",
        uses.len(),
        use_sites(uses),
        prefixed(ambiguous_note(&answer.ambiguous))
    );
    let paths = defs
        .iter()
        .map(|d| d.file.path.as_str())
        .chain(uses.iter().map(|u| u.file.path.as_str()));
    (Verdict::Pass, evidence(root, paths, note))
}

fn callers(
    root: &Path,
    index: &Index,
    name: &QualifiedName,
    min: u32,
    from: Option<&QualifiedName>,
) -> (Verdict, Evidence) {
    let answer = match resolve(index, name) {
        Err(reason) => return (Verdict::Fail(reason), Evidence::default()),
        Ok(answer) => answer,
    };
    let defs = &answer.definitions;
    let calls = &answer.callers;
    let ambiguous: Vec<Use<'_>> = answer
        .ambiguous
        .iter()
        .filter(|u| u.call)
        .copied()
        .collect();
    let note = if calls.is_empty() {
        format!(
            "no function calls it{}",
            prefixed(ambiguous_note(&ambiguous))
        )
    } else {
        format!(
            "called by {} ({}){}",
            caller_names(calls),
            use_sites(calls),
            prefixed(ambiguous_note(&ambiguous))
        )
    };
    let paths: Vec<&str> = defs
        .iter()
        .map(|d| d.file.path.as_str())
        .chain(calls.iter().map(|u| u.file.path.as_str()))
        .collect();
    let evidence = evidence(root, paths.into_iter(), note);
    if let Some(from) = from {
        let found = calls
            .iter()
            .any(|u| zurdo_lumen::query::ends_with(&u.reference.caller, &from.segments));
        if !found {
            return (
                Verdict::Fail(Reason::CallerMissing {
                    name: name.to_string(),
                    from: from.to_string(),
                }),
                evidence,
            );
        }
    }
    if calls.len() < min.max(1) as usize {
        return (
            Verdict::Fail(Reason::TooFewCallers {
                name: name.to_string(),
                found: calls.len(),
                min: min.max(1),
            }),
            evidence,
        );
    }
    (Verdict::Pass, evidence)
}

/// What a note says of the uses that were not counted.
fn ambiguous_note(ambiguous: &[Use<'_>]) -> String {
    if ambiguous.is_empty() {
        return String::new();
    }
    format!(
        "{} ambiguous use(s) not counted (a member of a value whose type syntax does not tell, which another type also declares): {}",
        ambiguous.len(),
        use_sites(ambiguous)
    )
}

/// `note` after a separator, or nothing.
fn prefixed(note: String) -> String {
    if note.is_empty() {
        note
    } else {
        format!("; {note}")
    }
}

/// The files relied on, by their blob ids, with a one-line note.
fn evidence<'a>(root: &Path, paths: impl Iterator<Item = &'a str>, note: String) -> Evidence {
    let unique: BTreeSet<&str> = paths.collect();
    let blobs = unique
        .into_iter()
        .filter_map(|path| {
            // Read as every hint reads: confined, bounded, regular files only.
            let bytes = files::read_confined(root, path).ok()??;
            Some(Blob {
                path: path.to_string(),
                id: files::blob_id(&bytes),
            })
        })
        .collect();
    Evidence {
        blobs,
        note: (!note.is_empty()).then_some(note),
        ..Evidence::default()
    }
}

fn sites<'a>(sites: impl Iterator<Item = (&'a str, u32)>) -> String {
    let all: Vec<String> = sites.map(|(p, l)| format!("{p}:{l}")).collect();
    let shown = all.len().min(5);
    let mut text = all[..shown].join(", ");
    if all.len() > shown {
        text.push_str(&format!(" and {} more", all.len() - shown));
    }
    text
}

/// The first [`SHOWN`] callers by name, each at most its last
/// [`SHOWN_SEGMENTS`] segments: a note stays short however many callers
/// there are and however deep they nest.
fn caller_names(calls: &[Use<'_>]) -> String {
    let name = |u: &Use<'_>| {
        let segments: Vec<&str> = u.reference.caller.iter().map(String::as_str).collect();
        let from = segments.len().saturating_sub(SHOWN_SEGMENTS);
        let tail = segments[from..].join("::");
        if from > 0 {
            format!("…::{tail}")
        } else {
            tail
        }
    };
    let mut text = calls
        .iter()
        .take(SHOWN)
        .map(name)
        .collect::<Vec<_>>()
        .join(", ");
    if calls.len() > SHOWN {
        text.push_str(&format!(" and {} more", calls.len() - SHOWN));
    }
    text
}

/// Callers a note names.
const SHOWN: usize = 10;

/// Segments of a caller's path a note shows.
const SHOWN_SEGMENTS: usize = 4;

fn use_sites(uses: &[Use<'_>]) -> String {
    sites(
        uses.iter()
            .map(|u| (u.file.path.as_str(), u.reference.line)),
    )
}
