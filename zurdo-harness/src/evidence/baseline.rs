//! Working-tree baselines as git tree objects, the diffs between them, and the
//! `refs/zurdo/<slug>/<task-id>` refs that keep them alive.
//!
//! # How a capture works
//!
//! [`capture`] produces the tree that `cp .git/index <scratch> && GIT_INDEX_FILE=<scratch>
//! git add -A && GIT_INDEX_FILE=<scratch> git write-tree` would, in process, through libgit2:
//!
//! 1. The scratch index is the repository's index file read into memory. Nothing here ever
//!    writes an index, so `.git/index` is only ever read. The copy serves as a stat cache: a
//!    tracked file whose stat data still matches is not re-read (libgit2's racy-git check
//!    sees the real file's timestamp). Without an index file (a fresh repository) it starts
//!    from HEAD's tree, or empty without a HEAD.
//! 2. It is brought in line with the work tree like `git add -A`: modified and new files are
//!    hashed and added (honouring `.gitignore` at every level, `.git/info/exclude` and
//!    `core.excludesFile`), deleted ones dropped. Tracked files stay in even if an ignore rule
//!    matches them, as with `git add -A`. An untracked directory that is a repository of its
//!    own is added as a gitlink to its HEAD commit (as `git add` does, with its "embedded
//!    repository" warning); one with no commit yet is left out, where `git add -A` fails.
//! 3. Entries under `.zurdo/` (zurdo's own state) are never added, and dropped if the index
//!    tracked them, so the state directory never shows in a baseline or a diff.
//! 4. The index is written out as tree objects (`git_index_write_tree`). That is the only
//!    write to the repository: new blob and tree objects in `.git/objects` (existing ones get
//!    their mtime refreshed, as git does, so a concurrent `git gc` keeps them). No ref,
//!    reflog, index or config file is touched. libgit2's strict object creation (which reads
//!    the header of every object a new tree names) is switched off for this one write and
//!    back on after it: the process-wide option is briefly off for any other libgit2 use.
//!
//! Step 2 takes one of two routes, which give the same tree (a test checks both against the
//! git CLI):
//!
//! - **Direct**, the usual one: when no gitattributes can apply (no `.gitattributes` in the
//!   index or the work tree, no `.git/info/attributes`, no global or system attributes
//!   file), `core.autocrlf` is off, `core.filemode` and `core.symlinks` are on and
//!   `core.ignorecase` is off (git's defaults on Linux), no content filter can run, so a
//!   file's blob is its bytes. libgit2 lists what changed (`git_diff_index_to_workdir`, the
//!   listing `git_index_add_all` makes internally), and each file is read, written with
//!   `git_odb_write` and entered in the index with the mode the listing saw (`100755` when
//!   the owner may execute the file, else `100644`; a symlink's blob is its target).
//!   Submodules, conflicted paths and files over 32 MiB go through `git_index_add_bypath`.
//! - **libgit2's `git_index_add_all`** otherwise, on the repository's own in-memory index,
//!   so CRLF and `ident` attributes, `core.autocrlf`, `core.filemode=false` and
//!   `core.symlinks=false` apply exactly as libgit2 implements them. Also taken when libgit2
//!   cannot read the index file (a split index, `core.splitIndex`, or a sparse index carry
//!   mandatory extensions libgit2 does not know); the scratch index then starts from HEAD's
//!   tree and every file is hashed. With a warm cache this route takes more than three
//!   times as long as the direct one (1.5–1.8 s against 0.47–0.55 s for 25,000 untracked
//!   and 25,000 unchanged tracked files; `docs/benchmarks.md`): per file, libgit2 looks
//!   attributes up four times, resolves the path with `realpath` four times and writes a
//!   temporary object file even when the object exists.
//!
//! Both sides of every comparison go through this same pipeline, so an untracked file counts
//! as changed only once its content changes, and a file's presence in the index or not makes
//! no difference.
//!
//! # Paths and subdirectories
//!
//! `root` may be anywhere inside a work tree; the repository is discovered upwards from it,
//! as `git` does. The capture always covers the whole work tree, and every path this module
//! reports is relative to the work tree's top level (not to `root`), with `/` separators.
//! The `.zurdo/` excluded is the one at the top level and, when `root` is a subdirectory, the
//! one directly under `root` as well; a `.zurdo` directory anywhere else (a test fixture, say)
//! is ordinary content. Paths that are not valid UTF-8 are reported lossily
//! (`U+FFFD` in place of bad bytes) by [`changed_paths`]; [`diff_patch_bytes`] keeps bytes.
//!
//! # Known differences from the git CLI
//!
//! - Filters that run an external process (`filter=lfs` and other `filter.<name>.clean`
//!   drivers) are not run: a modified file under such a filter is stored as its raw bytes
//!   where `git add` would store the filter's output. Two captures still compare correctly.
//! - Files that cannot be read (permission denied) fail the capture, as they fail `git add`.
//! - `GIT_DIR`, `GIT_WORK_TREE` and `GIT_INDEX_FILE` in the environment are not consulted.
//! - Sparse checkouts (`skip-worktree` entries whose files are absent) are not special-cased.
//!
//! # Refs
//!
//! [`record_ref`] points `refs/zurdo/<slug>/<task-id>` **directly at the tree object**:
//! git and libgit2 allow a ref outside `refs/heads/` to name any object, and `git gc` treats
//! every object a ref names as reachable, so the tree and all its blobs survive
//! `git gc --prune=now`. `git diff refs/zurdo/<slug>/<task>`, `git restore --source=…` and
//! `git checkout <ref> -- <path>` accept it as a tree-ish; `git log` ignores it. With the
//! default `core.logAllRefUpdates`, git keeps no reflog for refs outside `refs/heads/`,
//! `refs/remotes/` and `refs/notes/`, so recording a ref writes no reflog either.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io;
use std::io::Read;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use git2::{
    Delta, DiffDelta, DiffFormat, DiffOptions, ErrorClass, ErrorCode, FileMode, Index,
    IndexAddOption, IndexEntry, IndexTime, ObjectType, Oid, Reference, Repository, Tree,
};
use serde::{Deserialize, Serialize};

/// The directory zurdo keeps its state in; never part of a baseline.
const STATE_DIR: &str = ".zurdo";

/// The namespace of zurdo's refs.
const REF_NAMESPACE: &str = "refs/zurdo/";

/// A snapshot of the working tree as a git tree object, taken through a scratch index
/// (`GIT_INDEX_FILE` semantics): tracked, modified and untracked files alike (honouring
/// `.gitignore`, like `git add -A`), never touching `.git/index` or any reflog.
///
/// Serializes as the JSON written to `.zurdo/<slug>/baseline`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// The tree's object id, 40 lowercase hex digits.
    pub tree: String,
    /// Whether the tree differs from HEAD's tree; `true` when there is no HEAD commit.
    pub dirty: bool,
    /// When the capture started, RFC 3339 UTC with seconds (`2026-11-30T09:58:00Z`).
    pub captured_at: String,
    /// The number of entries (files, symlinks and submodules) in the tree, recursively.
    pub files: usize,
}

/// Why a baseline operation failed.
#[derive(Debug)]
pub enum BaselineError {
    /// `root` is not inside a git work tree (no repository found upwards from it, or only a
    /// bare one). The caller degrades to a single warning.
    NotARepo(PathBuf),
    /// The given object name does not resolve to a tree (or to a commit, whose tree is used).
    BadTree {
        /// The name as given.
        spec: String,
        /// libgit2's explanation.
        reason: String,
    },
    /// The slug or task id would not make a valid ref name (`git check-ref-format` rules, one
    /// path component each).
    InvalidRefName(String),
    /// Any other libgit2 failure.
    Git(git2::Error),
    /// A work-tree file could not be read (`git add` fails on it too).
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl fmt::Display for BaselineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaselineError::NotARepo(path) => {
                write!(f, "{} is not inside a git work tree", path.display())
            }
            BaselineError::BadTree { spec, reason } => {
                write!(f, "`{spec}` does not name a git tree: {reason}")
            }
            BaselineError::InvalidRefName(name) => write!(f, "invalid git ref name `{name}`"),
            BaselineError::Git(e) => write!(f, "git: {}", e.message()),
            BaselineError::Io { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for BaselineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BaselineError::Git(e) => Some(e),
            BaselineError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<git2::Error> for BaselineError {
    fn from(e: git2::Error) -> Self {
        BaselineError::Git(e)
    }
}

/// Snapshots the whole work tree containing `root` as a tree object (see the module docs for
/// the pipeline). [`BaselineError::NotARepo`] outside git.
pub fn capture(root: &Path) -> Result<Baseline, BaselineError> {
    let captured_at = zurdo_base::time::now();
    let repo = open(root)?;
    let excluded = excluded_prefixes(&repo, root);

    let mut index = match base_index(&repo)? {
        Some(mut index) if direct_route_allowed(&repo, &index)? => {
            drop_excluded(&mut index, &excluded)?;
            if add_directly(&repo, &mut index, &excluded)? {
                Some(index)
            } else {
                None
            }
        }
        _ => None,
    }
    .map_or_else(|| add_through_libgit2(&repo, &excluded), Ok)?;
    drop_excluded(&mut index, &excluded)?;
    // With "strict object creation" (on by default) libgit2 reads the header of every object
    // a new tree names: an open, read and inflate per loose blob, where `git write-tree` only
    // checks that the object exists. Every blob here was just written or comes from the
    // repository's own index, so the check is off for this write and back on after it.
    git2::opts::strict_object_creation(false);
    let tree = index.write_tree_to(&repo);
    git2::opts::strict_object_creation(true);
    let tree = tree?;
    let files = index.len();

    let head_tree = repo
        .head()
        .ok()
        .and_then(|head| head.peel_to_tree().ok())
        .map(|t| t.id());
    Ok(Baseline {
        tree: tree.to_string(),
        dirty: head_tree != Some(tree),
        captured_at,
        files,
    })
}

/// The paths that differ between two trees (added, modified, deleted, or changed in mode or
/// type), relative to the work tree's top level, sorted and without duplicates. Renames show
/// as the old path and the new one. `from_tree` and `to_tree` are tree ids as [`capture`]
/// returns them; any name git resolves to a tree or commit (`HEAD`, a ref) works too.
pub fn changed_paths(
    root: &Path,
    from_tree: &str,
    to_tree: &str,
) -> Result<Vec<String>, BaselineError> {
    let repo = open(root)?;
    let from = resolve_tree(&repo, from_tree)?;
    let to = resolve_tree(&repo, to_tree)?;
    let diff = repo.diff_tree_to_tree(Some(&from), Some(&to), Some(&mut DiffOptions::new()))?;
    let mut paths = BTreeSet::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(bytes) = file.path_bytes() {
                paths.insert(String::from_utf8_lossy(bytes).into_owned());
            }
        }
    }
    Ok(paths.into_iter().collect())
}

/// The blob id each of `paths` (relative to `root`, which may be a subdirectory of the work
/// tree) has in `tree`, hex; `None` for a path that is not a file there (absent, ignored when
/// the tree was captured, a directory).
pub fn blobs_at(
    root: &Path,
    tree: &str,
    paths: &[&str],
) -> Result<Vec<Option<String>>, BaselineError> {
    let repo = open(root)?;
    let tree = resolve_tree(&repo, tree)?;
    let prefix = match (repo.workdir(), root.canonicalize()) {
        (Some(workdir), Ok(root)) => {
            let workdir = workdir
                .canonicalize()
                .unwrap_or_else(|_| workdir.to_path_buf());
            root.strip_prefix(&workdir)
                .map(Path::to_path_buf)
                .unwrap_or_default()
        }
        _ => Default::default(),
    };
    Ok(paths
        .iter()
        .map(|p| {
            let entry = tree.get_path(&prefix.join(p)).ok()?;
            (entry.kind() == Some(git2::ObjectType::Blob)).then(|| entry.id().to_string())
        })
        .collect())
}

/// A unified diff (git's patch format, `git apply`-able) from `from_tree` to `to_tree`, as
/// text. The first line is `# baseline <from-tree-oid> (<label>)`, naming the baseline the
/// patch is relative to; `git apply` skips it. Bytes that are not UTF-8 (a text file in
/// another encoding) are replaced with `U+FFFD`, so write [`diff_patch_bytes`] to disk when
/// the patch must apply byte for byte.
pub fn diff_patch(
    root: &Path,
    from_tree: &str,
    to_tree: &str,
    label: &str,
) -> Result<String, BaselineError> {
    let bytes = diff_patch_bytes(root, from_tree, to_tree, label)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// [`diff_patch`] as raw bytes. Binary files are included as `GIT binary patch` sections,
/// so the patch applies in full. Line breaks in `label` become spaces.
pub fn diff_patch_bytes(
    root: &Path,
    from_tree: &str,
    to_tree: &str,
    label: &str,
) -> Result<Vec<u8>, BaselineError> {
    let repo = open(root)?;
    let from = resolve_tree(&repo, from_tree)?;
    let to = resolve_tree(&repo, to_tree)?;
    let mut opts = DiffOptions::new();
    opts.show_binary(true);
    let diff = repo.diff_tree_to_tree(Some(&from), Some(&to), Some(&mut opts))?;
    let label = label.replace(['\r', '\n'], " ");
    let mut out = format!("# baseline {} ({label})\n", from.id()).into_bytes();
    diff.print(DiffFormat::Patch, |_delta, _hunk, line| {
        if let origin @ ('+' | '-' | ' ') = line.origin() {
            out.push(origin as u8);
        }
        out.extend_from_slice(line.content());
        true
    })?;
    Ok(out)
}

/// The lines each file has that are new or changed between `from_tree` and
/// `to_tree`, by their number in `to_tree` (1-based), for every file with
/// any (paths relative to the work tree's top level; a binary file has
/// none).
pub fn changed_lines(
    root: &Path,
    from_tree: &str,
    to_tree: &str,
) -> Result<std::collections::BTreeMap<String, BTreeSet<u32>>, BaselineError> {
    let repo = open(root)?;
    let from = resolve_tree(&repo, from_tree)?;
    let to = resolve_tree(&repo, to_tree)?;
    let mut opts = DiffOptions::new();
    opts.context_lines(0);
    let diff = repo.diff_tree_to_tree(Some(&from), Some(&to), Some(&mut opts))?;
    let mut lines: std::collections::BTreeMap<String, BTreeSet<u32>> = Default::default();
    diff.foreach(
        &mut |_, _| true,
        None,
        None,
        Some(&mut |delta, _hunk, line| {
            if line.origin() == '+' {
                if let (Some(path), Some(n)) = (delta.new_file().path_bytes(), line.new_lineno()) {
                    lines
                        .entry(String::from_utf8_lossy(path).into_owned())
                        .or_default()
                        .insert(n);
                }
            }
            true
        }),
    )?;
    Ok(lines)
}

/// Points `refs/zurdo/<slug>/<task>` at the tree `tree` (directly at the tree object; see the
/// module docs), replacing any previous value, so the tree survives `git gc`. `tree` may also
/// name a commit, whose tree is recorded. Writes no reflog under git's defaults.
pub fn record_ref(root: &Path, slug: &str, task: &str, tree: &str) -> Result<(), BaselineError> {
    let name = ref_name(slug, Some(task))?;
    let repo = open(root)?;
    let tree = resolve_tree(&repo, tree)?;
    repo.reference(&name, tree.id(), true, "zurdo: task baseline")?;
    Ok(())
}

/// Deletes every `refs/zurdo/<slug>/*` ref (loose or packed), and only those; returns how
/// many there were.
pub fn delete_refs(root: &Path, slug: &str) -> Result<usize, BaselineError> {
    let prefix = ref_name(slug, None)?;
    let repo = open(root)?;
    let mut names = Vec::new();
    for reference in repo.references_glob(&format!("{REF_NAMESPACE}*"))? {
        let reference = reference?;
        if let Some(name) = reference.name() {
            if name.starts_with(&prefix) {
                names.push(name.to_owned());
            }
        }
    }
    for name in &names {
        match repo.find_reference(name) {
            Ok(mut reference) => reference.delete()?,
            // Deleted by someone else in between: the goal is met.
            Err(e) if e.code() == ErrorCode::NotFound => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(names.len())
}

/// `slug` as one valid ref component: letters, digits, `-` and `_` as they
/// are, every other byte as `%XX` (a PRD file name may hold spaces, `~`,
/// `^`, `:`, `?`, dots… that git refuses in a ref).
fn ref_component(slug: &str) -> String {
    let mut out = String::with_capacity(slug.len());
    for b in slug.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `refs/zurdo/<slug>/<task>`, or the `refs/zurdo/<slug>/` prefix without a task, the slug
/// encoded as one ref component, after checking that both parts are valid.
fn ref_name(slug: &str, task: Option<&str>) -> Result<String, BaselineError> {
    let slug = ref_component(slug);
    let probe = format!("{REF_NAMESPACE}{slug}/{}", task.unwrap_or("x"));
    let single = |part: &str| !part.is_empty() && !part.contains('/');
    if !single(&slug) || !task.is_none_or(single) || !Reference::is_valid_name(&probe) {
        return Err(BaselineError::InvalidRefName(probe));
    }
    Ok(match task {
        Some(_) => probe,
        None => format!("{REF_NAMESPACE}{slug}/"),
    })
}

/// The repository whose work tree contains `root`.
fn open(root: &Path) -> Result<Repository, BaselineError> {
    match Repository::discover(root) {
        Ok(repo) if repo.is_bare() || repo.workdir().is_none() => {
            Err(BaselineError::NotARepo(root.to_path_buf()))
        }
        Ok(repo) => Ok(repo),
        Err(e) if e.code() == ErrorCode::NotFound => {
            Err(BaselineError::NotARepo(root.to_path_buf()))
        }
        Err(e) => Err(e.into()),
    }
}

/// `spec` peeled to a tree.
fn resolve_tree<'r>(repo: &'r Repository, spec: &str) -> Result<Tree<'r>, BaselineError> {
    let bad = |e: git2::Error| BaselineError::BadTree {
        spec: spec.to_owned(),
        reason: e.message().to_owned(),
    };
    let object = match Oid::from_str(spec) {
        // A full object id: look it up directly, which also works for ids git would find
        // ambiguous as a rev (a branch named like a hex string).
        Ok(oid) if spec.len() == 40 => repo.find_object(oid, None),
        _ => repo.revparse_single(spec),
    }
    .map_err(bad)?;
    object.peel_to_tree().map_err(bad)
}

/// The `.zurdo` directories to leave out, as work-tree-relative paths without a trailing
/// slash: the top level's, and `root`'s when `root` is a subdirectory of the work tree.
fn excluded_prefixes(repo: &Repository, root: &Path) -> Vec<Vec<u8>> {
    let mut prefixes = vec![STATE_DIR.as_bytes().to_vec()];
    let (Some(workdir), Ok(root)) = (repo.workdir(), root.canonicalize()) else {
        return prefixes;
    };
    let Ok(workdir) = workdir.canonicalize() else {
        return prefixes;
    };
    if let Ok(rel) = root.strip_prefix(&workdir) {
        if !rel.as_os_str().is_empty() {
            prefixes.push(rel.join(STATE_DIR).as_os_str().as_bytes().to_vec());
        }
    }
    prefixes
}

/// Whether a work-tree-relative path is one of `prefixes` or lies below one.
fn is_excluded(path: &[u8], prefixes: &[Vec<u8>]) -> bool {
    prefixes.iter().any(|prefix| {
        path.starts_with(prefix) && matches!(path.get(prefix.len()), None | Some(b'/'))
    })
}

/// Removes every entry (any stage) under an excluded prefix.
fn drop_excluded(index: &mut Index, prefixes: &[Vec<u8>]) -> Result<(), BaselineError> {
    let doomed: Vec<(Vec<u8>, i32)> = index
        .iter()
        .filter(|entry| is_excluded(&entry.path, prefixes))
        .map(|entry| {
            let stage = i32::from((entry.flags >> 12) & 0x3);
            (entry.path, stage)
        })
        .collect();
    for (path, stage) in doomed {
        index.remove(Path::new(OsStr::from_bytes(&path)), stage)?;
    }
    Ok(())
}

/// Files larger than this are hashed by libgit2 (which streams them) rather than read into
/// memory whole.
const DIRECT_MAX_BYTES: u64 = 32 << 20;

/// The repository's index read into memory, unowned (so nothing libgit2 does on the
/// repository's behalf can reach it), or HEAD's tree (or nothing) when there is no index
/// file. `None` when libgit2 cannot read the index file: then libgit2 cannot work with the
/// repository's own index at all (an attribute lookup in a diff loads it), and only the
/// libgit2 route, with a replacement index attached to the repository, works.
fn base_index(repo: &Repository) -> Result<Option<Index>, BaselineError> {
    let path = repo.path().join("index");
    if path.exists() {
        return Ok(Index::open(&path).ok());
    }
    let mut index = Index::new()?;
    if let Some(tree) = head_tree(repo)? {
        index.read_tree(&tree)?;
    }
    Ok(Some(index))
}

/// Whether the direct route gives the same blobs and modes as `git_index_add_bypath`: no
/// attribute can apply a filter, and the configuration keeps libgit2's defaults for line
/// endings, file modes and symlinks (see the module docs).
fn direct_route_allowed(repo: &Repository, index: &Index) -> Result<bool, BaselineError> {
    let config = repo.config()?.snapshot()?;
    let flag = |name: &str, default: bool| config.get_bool(name).unwrap_or(default);
    let autocrlf_off = match config.get_string("core.autocrlf") {
        Ok(value) => matches!(
            value.to_ascii_lowercase().as_str(),
            "false" | "no" | "off" | "0" | ""
        ),
        Err(_) => true,
    };
    if !autocrlf_off
        || !flag("core.filemode", true)
        || !flag("core.symlinks", true)
        || flag("core.ignorecase", false)
    {
        return Ok(false);
    }
    let mut attribute_files = vec![
        repo.path().join("info/attributes"),
        PathBuf::from("/etc/gitattributes"),
    ];
    if let Ok(path) = config.get_path("core.attributesFile") {
        attribute_files.push(path);
    }
    if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        attribute_files.push(PathBuf::from(xdg).join("git/attributes"));
    }
    if let Some(home) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        attribute_files.push(PathBuf::from(home).join(".config/git/attributes"));
    }
    if attribute_files.iter().any(|path| path.exists()) {
        return Ok(false);
    }
    Ok(!index.iter().any(|entry| is_attributes_file(&entry.path)))
}

/// Whether a repository-relative path names a `.gitattributes` file.
fn is_attributes_file(path: &[u8]) -> bool {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    name == b".gitattributes"
}

/// The direct route: brings `index` in line with the work tree the way
/// `git_index_add_all` does, writing blobs with `git_odb_write`. Returns `false`, with
/// `index` untouched, if the work tree holds an untracked `.gitattributes` (then the libgit2
/// route must run instead).
fn add_directly(
    repo: &Repository,
    index: &mut Index,
    excluded: &[Vec<u8>],
) -> Result<bool, BaselineError> {
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_typechange(true);
    let diff = repo.diff_index_to_workdir(Some(index), Some(&mut opts))?;
    let path_of = |delta: &DiffDelta<'_>| {
        delta
            .new_file()
            .path_bytes()
            .or_else(|| delta.old_file().path_bytes())
            .map(<[u8]>::to_vec)
    };
    let mut work = Vec::with_capacity(diff.deltas().len());
    for delta in diff.deltas() {
        let Some(path) = path_of(&delta) else {
            continue;
        };
        if is_excluded(&path, excluded) {
            continue;
        }
        if is_attributes_file(&path) {
            return Ok(false);
        }
        let new_file = delta.new_file();
        let mode = if new_file.exists() {
            new_file.mode()
        } else {
            FileMode::Unreadable
        };
        work.push((path, new_file.exists(), mode, delta.status()));
    }
    drop(diff);

    let workdir = repo
        .workdir()
        .ok_or_else(|| not_a_repo(repo))?
        .to_path_buf();
    let odb = repo.odb()?;
    // Paths left to `git_index_add_bypath`, which needs the index attached to the repository.
    let mut by_path: Vec<PathBuf> = Vec::new();
    let mut embedded: Vec<PathBuf> = Vec::new();
    for (path, exists, mode, status) in work {
        if let Some(dir) = path.strip_suffix(b"/") {
            embedded.push(PathBuf::from(OsStr::from_bytes(dir)));
            continue;
        }
        let rel = Path::new(OsStr::from_bytes(&path));
        if !exists {
            index.remove_path(rel)?;
            continue;
        }
        if status == Delta::Conflicted {
            by_path.push(rel.to_path_buf());
            continue;
        }
        match direct_entry(&odb, &workdir.join(rel), &path, mode) {
            Ok(Some(entry)) => index.add(&entry)?,
            Ok(None) => by_path.push(rel.to_path_buf()),
            // Deleted since the listing: as if the listing had seen it gone.
            Err(BaselineError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                index.remove_path(rel)?
            }
            Err(e) => return Err(e),
        }
    }
    if !by_path.is_empty() || !embedded.is_empty() {
        repo.set_index(index)?;
        for path in &by_path {
            index.add_path(path)?;
        }
        add_embedded(index, &embedded);
    }
    Ok(true)
}

/// The index entry for the regular file or symlink at `full`, its blob written, given the
/// mode the work-tree listing saw; `None` for anything else (a submodule, an unreadable
/// entry, a file over [`DIRECT_MAX_BYTES`]). The entry's stat fields stay zero: the scratch
/// index is never reused, so they would serve nothing.
fn direct_entry(
    odb: &git2::Odb<'_>,
    full: &Path,
    path: &[u8],
    mode: FileMode,
) -> Result<Option<IndexEntry>, BaselineError> {
    let io = |source: io::Error| BaselineError::Io {
        path: full.to_path_buf(),
        source,
    };
    let bytes = match mode {
        FileMode::Link => fs::read_link(full).map_err(io)?.into_os_string().into_vec(),
        FileMode::Blob | FileMode::BlobExecutable => {
            // `Take` keeps std from asking the file for its size (one more `statx` per file,
            // and the listing has just `lstat`ed it), and caps what is held in memory.
            let file = fs::File::open(full).map_err(io)?;
            let mut bytes = Vec::with_capacity(4096);
            file.take(DIRECT_MAX_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(io)?;
            if bytes.len() as u64 > DIRECT_MAX_BYTES {
                return Ok(None);
            }
            bytes
        }
        _ => return Ok(None),
    };
    let id = odb.write(ObjectType::Blob, &bytes)?;
    Ok(Some(IndexEntry {
        ctime: IndexTime::new(0, 0),
        mtime: IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode: u32::from(mode),
        uid: 0,
        gid: 0,
        file_size: bytes.len() as u32,
        id,
        flags: 0,
        flags_extended: 0,
        path: path.to_vec(),
    }))
}

/// The libgit2 route: `git_index_add_all` on the repository's own index (in memory; never
/// written), whose capabilities follow `core.filemode`, `core.symlinks` and
/// `core.ignorecase`. Falls back to HEAD's tree, attached to the repository, when the index
/// file is missing or unreadable.
fn add_through_libgit2(repo: &Repository, excluded: &[Vec<u8>]) -> Result<Index, BaselineError> {
    let mut index = match repo.index() {
        Ok(index) => index,
        Err(_) => {
            let mut index = Index::new()?;
            if let Some(tree) = head_tree(repo)? {
                index.read_tree(&tree)?;
            }
            repo.set_index(&mut index)?;
            index
        }
    };
    drop_excluded(&mut index, excluded)?;
    // Untracked directories holding a repository of their own come through with a trailing
    // `/`, which libgit2's add rejects ("invalid path"); they are added afterwards.
    let mut embedded: Vec<PathBuf> = Vec::new();
    let mut filter = |path: &Path, _matched: &[u8]| -> i32 {
        let bytes = path.as_os_str().as_bytes();
        if is_excluded(bytes, excluded) {
            return 1;
        }
        if let Some(dir) = bytes.strip_suffix(b"/") {
            embedded.push(PathBuf::from(OsStr::from_bytes(dir)));
            return 1;
        }
        0
    };
    // `*` rather than no pathspec: git2 0.20's callback trampoline dereferences the matched
    // pathspec, which libgit2 passes as NULL when there is none. `*` matches every path
    // (libgit2's pathspec `*` crosses `/` and matches dotfiles, as git's does).
    index.add_all(["*"], IndexAddOption::DEFAULT, Some(&mut filter))?;
    add_embedded(&mut index, &embedded);
    Ok(index)
}

/// Adds each embedded repository as a gitlink to its HEAD commit, like `git add`. One
/// without a commit (a fresh `git init`) is left out, where `git add -A` would fail.
fn add_embedded(index: &mut Index, dirs: &[PathBuf]) {
    for dir in dirs {
        let _ = index.add_path(dir);
    }
}

fn not_a_repo(repo: &Repository) -> BaselineError {
    BaselineError::NotARepo(repo.path().to_path_buf())
}

/// HEAD's tree; `None` on an unborn branch.
fn head_tree(repo: &Repository) -> Result<Option<Tree<'_>>, BaselineError> {
    match repo.head() {
        Ok(head) => Ok(Some(head.peel_to_tree()?)),
        Err(e) if e.code() == ErrorCode::UnbornBranch || e.code() == ErrorCode::NotFound => {
            Ok(None)
        }
        Err(e) if e.class() == ErrorClass::Reference => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusion_is_by_whole_component() {
        let prefixes = vec![b".zurdo".to_vec(), b"sub/.zurdo".to_vec()];
        assert!(is_excluded(b".zurdo", &prefixes));
        assert!(is_excluded(b".zurdo/slug/prd.json", &prefixes));
        assert!(is_excluded(b"sub/.zurdo/x", &prefixes));
        assert!(!is_excluded(b".zurdoish", &prefixes));
        assert!(!is_excluded(b"other/.zurdo/x", &prefixes));
        assert!(!is_excluded(b"sub/.zurdox", &prefixes));
    }

    #[test]
    fn ref_names_are_checked() {
        assert_eq!(
            ref_name("feature-1a2b", Some("task-1")).unwrap(),
            "refs/zurdo/feature-1a2b/task-1"
        );
        assert_eq!(
            ref_name("feature-1a2b", None).unwrap(),
            "refs/zurdo/feature-1a2b/"
        );
        // Any file name makes a valid ref: what git refuses is encoded.
        for slug in [
            "my prd-1a2b",
            "a~1^2:3?-1a2b",
            "v1.2-1a2b",
            "a/b",
            "ünïcode-1a2b",
        ] {
            let name = ref_name(slug, Some("task-1")).expect(slug);
            assert!(Reference::is_valid_name(&name), "{name}");
        }
        assert_eq!(
            ref_name("my prd~1-1a2b", Some("task-1")).unwrap(),
            "refs/zurdo/my%20prd%7E1-1a2b/task-1"
        );
        assert_ne!(
            ref_name("a b", None).unwrap(),
            ref_name("a%20b", None).unwrap()
        );
        for (slug, task) in [
            ("", "task-1"),
            ("feature", "a..b"),
            ("feature", "t/x"),
            ("feature", "x.lock"),
            ("feature", ""),
        ] {
            assert!(ref_name(slug, Some(task)).is_err(), "{slug} {task}");
        }
    }
}
