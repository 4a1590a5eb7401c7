//! The index on disk: generations under `.zurdo/lumen/`, shared by every
//! PRD of the repository.
//!
//! A generation is one JSON file holding every indexed file's definitions
//! and references with the file's content hash. `CURRENT` names the
//! published one. Publishing writes the new generation beside the old, then
//! replaces `CURRENT` atomically (temp file + rename), so a reader sees the
//! old generation or the new one, never a torn one; a failed refresh leaves
//! the previous generation in place. A refresh re-parses only the files
//! whose content hash changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use zurdo_base::dir::Dir;
use zurdo_base::files::Durability;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::adapters::{self, Language};
use crate::model::FileIndex;

/// The index directory, relative to the repository root.
pub const DIR: &str = ".zurdo/lumen";

/// The format of a generation; bumped whenever an adapter maps something
/// differently or an entry is written differently, so an older generation
/// is re-parsed rather than trusted (or misread). 2: an entry stores each
/// qualified path once, in a table of scopes (see
/// [`FileIndex`](crate::model::FileIndex)). 3: a file's module path and
/// imports, classes' bases, declared types, and the receivers of member
/// uses (issue 16). 4: TypeScript parameters' declared types and the
/// callbacks' parameters they type. 5: Rust bindings scoped to their block,
/// arm or closure; the trait of a trait impl's methods, the tuple a
/// function returns, tuple elements and trait-qualified calls' dispatch.
pub const FORMAT: u32 = 5;

/// Files larger than this are not indexed (generated or vendored code).
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// Directory names never walked, besides hidden ones and what `.gitignore`
/// excludes.
const SKIP_DIRS: [&str; 2] = ["node_modules", "__pycache__"];

/// The version of the adapters: zurdo-lumen's own version, so an upgrade
/// re-parses everything rather than trusting what older adapters mapped.
pub const ADAPTERS: &str = env!("CARGO_PKG_VERSION");

/// A whole generation, in memory (on disk it is a [`Manifest`] over
/// per-file entries).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// [`ADAPTERS`] when written.
    pub adapters: String,
    /// Increases with every published generation.
    pub generation: u64,
    /// Every indexed file, by repository-relative path.
    pub files: BTreeMap<String, FileIndex>,
    /// What each file's metadata was when this process last hashed it.
    stamps: BTreeMap<String, Stamp>,
    /// Files whose entry on disk this process read and found carrying a
    /// MAC that checks (a publish need not write those again).
    on_disk: std::collections::BTreeSet<String>,
    /// Resolution tables over `files`, built on first use after a change.
    tables: std::sync::OnceLock<crate::resolve::Tables>,
}

impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        (self.format, &self.adapters, self.generation, &self.files)
            == (
                other.format,
                &other.adapters,
                other.generation,
                &other.files,
            )
    }
}

impl Eq for Index {}

/// A file's metadata as a refresh saw it: while length, modification and
/// change times (the change time cannot be set back from user space) and
/// inode are the same, the bytes are taken to be the same and not read
/// or hashed again. Only kept in memory, for the process that hashed them,
/// and only for files whose last change was over two seconds before the
/// hash (the rest are "racily clean" and hashed every time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
}

impl Stamp {
    /// The change time since the epoch.
    fn changed(&self) -> Duration {
        let secs = u64::try_from(self.ctime.0).unwrap_or(0);
        let nanos = u32::try_from(self.ctime.1).unwrap_or(0);
        Duration::new(secs, nanos.min(999_999_999))
    }

    fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
            dev: m.dev(),
        })
    }
}

/// What a refresh did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refresh {
    /// Source files seen.
    pub files: usize,
    /// Files parsed (new or changed).
    pub parsed: usize,
    /// Files whose hash was unchanged, kept as they were.
    pub reused: usize,
    /// Files gone since the last generation.
    pub removed: usize,
    /// Wall time.
    pub elapsed: Duration,
}

impl Refresh {
    /// True when the refresh changed the index.
    pub fn changed(&self) -> bool {
        self.parsed > 0 || self.removed > 0
    }
}

/// A generation's manifest: the files it is made of, each by the entry
/// that holds what the file defines and uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// [`ADAPTERS`] when written.
    pub adapters: String,
    /// The generation number.
    pub generation: u64,
    /// Every indexed file, by repository-relative path.
    pub files: BTreeMap<String, Entry>,
}

/// One file of a generation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The adapter that read it.
    pub language: String,
    /// SHA-256 of its bytes.
    pub hash: String,
    /// The entry file under `.zurdo/lumen/` (`files/<key>.json`), named by
    /// path, language, content hash, format and adapters' version, so it is
    /// immutable and shared by every generation that has the file unchanged.
    pub entry: String,
    /// The MAC of the entry file's bytes under the user's key
    /// ([`zurdo_base::mac`]): an entry planted under `.zurdo/lumen/` (which
    /// anything in the repository can write) does not carry one that
    /// checks, and is parsed again from the source instead of trusted.
    #[serde(default)]
    pub mac: String,
}

impl Manifest {
    /// The published manifest and its file name, when there is one this
    /// version of the adapters wrote.
    pub fn read(root: &Path) -> Option<(String, Manifest)> {
        let dir = lumen_dir(root, false).ok()?;
        let name = String::from_utf8(dir.read("CURRENT", 4096).ok()?).ok()?;
        let name = name.trim().to_string();
        if !safe_name(&name) || name.contains('/') {
            return None;
        }
        let manifest: Manifest =
            serde_json::from_slice(&dir.read(&name, RECORD_LIMIT).ok()?).ok()?;
        (manifest.format == FORMAT && manifest.adapters == ADAPTERS).then_some((name, manifest))
    }
}

/// Most bytes of a manifest or an entry read back (larger is not read).
const RECORD_LIMIT: u64 = 256 * 1024 * 1024;

/// `.zurdo/lumen/`, every step opened without following a symlink (an
/// agent can write `.zurdo/`: a symlink there must not carry the index, or
/// what it reads, out of the repository).
fn lumen_dir(root: &Path, create: bool) -> std::io::Result<Dir> {
    Dir::open(root)?.descend(&[".zurdo", "lumen"], create)
}

/// `.zurdo/lumen/files/`.
fn files_dir(root: &Path, create: bool) -> std::io::Result<Dir> {
    lumen_dir(root, create)?.child("files", create)
}

/// The file name of an entry (`files/<key>.json` → `<key>.json`).
fn entry_file(entry: &str) -> Option<&str> {
    entry.strip_prefix("files/").filter(|k| !k.contains('/'))
}

/// A name under `.zurdo/lumen/` that stays there.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.split('/').any(|part| part.is_empty() || part == "..")
}

/// `files/<key>.json` for a file's path, language and content hash, and
/// the [`FORMAT`] and [`ADAPTERS`] that write it: an entry an older format
/// wrote is never taken for a current one (a publish keeps an entry file
/// that already exists).
fn entry_name(path: &str, language: &str, hash: &str) -> String {
    let key = sha256_hex(format!("{FORMAT}\0{ADAPTERS}\0{path}\0{language}\0{hash}").as_bytes());
    format!("files/{}.json", &key[..32])
}

/// The hash an entry is known by: SHA-256 of the file's bytes, and for a
/// Rust file of a crate, of that and the crate's name (its module paths
/// start with it, so a renamed crate parses its files again).
fn content_hash(bytes: &[u8], krate: Option<&str>) -> String {
    let hash = sha256_hex(bytes);
    match krate {
        Some(krate) => sha256_hex(format!("{hash}\0crate\0{krate}").as_bytes()),
        None => hash,
    }
}

/// The Cargo package each directory belongs to, read once per directory.
#[derive(Default)]
struct Crates {
    by_dir: std::collections::HashMap<String, Option<String>>,
}

impl Crates {
    /// The name of the package whose `Cargo.toml` is nearest above the
    /// Rust file `path` (repository-relative), `-` read as `_`.
    fn of(&mut self, root: &Path, path: &str) -> Option<String> {
        let mut dirs: Vec<&str> = path.split('/').collect();
        dirs.pop();
        let mut seen = Vec::new();
        let mut found = None;
        loop {
            let dir = dirs.join("/");
            if let Some(known) = self.by_dir.get(&dir) {
                found = known.clone();
                break;
            }
            seen.push(dir.clone());
            if let Some(name) = package_name(&root.join(&dir).join("Cargo.toml")) {
                found = Some(name);
                break;
            }
            if dirs.pop().is_none() {
                break;
            }
        }
        for dir in seen {
            self.by_dir.insert(dir, found.clone());
        }
        found
    }
}

/// The `[package]` name of a `Cargo.toml` (bounded, never through a
/// symlink), `-` read as `_`.
fn package_name(manifest: &Path) -> Option<String> {
    let bytes = zurdo_base::files::read_bounded_nofollow(manifest, 1024 * 1024).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        let Some(rest) = line.strip_prefix("name") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let name = value.trim().trim_matches(|c| c == '"' || c == '\'');
        if !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            return Some(name.replace('-', "_"));
        }
    }
    None
}

/// What a walk found, against what was known.
struct Scan {
    /// Files whose language and hash are unchanged.
    unchanged: Vec<String>,
    /// Files to parse.
    todo: Vec<Pending>,
    /// Source files seen.
    files: usize,
    /// Each file's metadata as seen.
    stamps: BTreeMap<String, Stamp>,
}

/// Walks `root` and hashes every source file; `known` says whether a
/// path's language and hash are what an existing entry has. A file whose
/// metadata equals `seen`'s stamp for it is taken as unchanged unread.
fn scan(
    root: &Path,
    seen: &BTreeMap<String, Stamp>,
    known: impl Fn(&str, &str, &str) -> bool,
) -> Scan {
    let sources = walk(root);
    let mut scan = Scan {
        unchanged: Vec::new(),
        todo: Vec::new(),
        files: sources.len(),
        stamps: BTreeMap::new(),
    };
    let settled_before = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(Duration::ZERO, |d| d.saturating_sub(Duration::from_secs(2)));
    let mut crates = Crates::default();
    for (path, language) in sources {
        let full = root.join(&path);
        let krate = match language {
            Language::Rust => crates.of(root, &path),
            _ => None,
        };
        let stamp = Stamp::of(&full);
        if let Some(stamp) = stamp {
            if seen.get(&path) == Some(&stamp) {
                scan.stamps.insert(path.clone(), stamp);
                scan.unchanged.push(path);
                continue;
            }
        }
        // Never through a symlink, never a FIFO or device, never past the
        // walk's size limit (the file may have been swapped since the walk).
        let Ok(bytes) = zurdo_base::files::read_bounded_nofollow(&full, MAX_FILE_BYTES) else {
            continue;
        };
        let hash = content_hash(&bytes, krate.as_deref());
        // Racily clean (as git calls it): a file changed within the last
        // two seconds could change again within the clock's granularity
        // without its change time moving, so its stamp is not kept and it
        // is hashed again next time.
        if let Some(stamp) = stamp.filter(|s| s.changed() < settled_before) {
            scan.stamps.insert(path.clone(), stamp);
        }
        if known(&path, language.name(), &hash) {
            scan.unchanged.push(path);
        } else {
            scan.todo.push(Pending {
                path,
                language,
                bytes,
                hash,
                krate,
            });
        }
    }
    scan
}

impl Index {
    /// The published generation under `root`, or an empty index when there
    /// is none, it cannot be read, or other adapters wrote it. An entry that
    /// is missing or does not match its manifest line is left out (the next
    /// refresh parses that file again).
    pub fn load(root: &Path) -> Index {
        let Some((_, manifest)) = Manifest::read(root) else {
            return Index::default();
        };
        let mut index = Index {
            format: FORMAT,
            adapters: ADAPTERS.to_string(),
            generation: manifest.generation,
            files: BTreeMap::new(),
            stamps: BTreeMap::new(),
            on_disk: Default::default(),
            tables: Default::default(),
        };
        let Ok(files) = files_dir(root, false) else {
            return index;
        };
        for (path, e) in manifest.files {
            let Some(name) = entry_file(&e.entry).filter(|_| safe_name(&e.entry)) else {
                continue;
            };
            let key = zurdo_base::mac::Key::user();
            let file = files
                .read(name, RECORD_LIMIT)
                .ok()
                .filter(|bytes| key.checks(bytes, &e.mac))
                .and_then(|bytes| serde_json::from_slice::<FileIndex>(&bytes).ok())
                .filter(|f| f.path == path && f.hash == e.hash && f.language == e.language);
            if let Some(file) = file {
                index.on_disk.insert(path.clone());
                index.files.insert(path, file);
            }
        }
        index
    }

    /// Brings the index up to date with the working tree: walks `root`
    /// (`.gitignore` honoured, hidden entries, `.zurdo/`, `node_modules/`
    /// skipped), parses every new or changed source file, reuses the rest
    /// and drops deleted files.
    pub fn refresh(&mut self, root: &Path) -> Refresh {
        let started = Instant::now();
        if self.format != FORMAT || self.adapters != ADAPTERS {
            self.files.clear();
            self.stamps.clear();
            self.format = FORMAT;
            self.adapters = ADAPTERS.to_string();
        }
        let stamps = std::mem::take(&mut self.stamps);
        let found = scan(root, &stamps, |path, language, hash| {
            self.files
                .get(path)
                .is_some_and(|f| f.hash == hash && f.language == language)
        });
        // A stamp only vouches for a file this index holds.
        self.stamps = found.stamps;
        let mut next: BTreeMap<String, FileIndex> = BTreeMap::new();
        for path in found.unchanged {
            if let Some(file) = self.files.remove(&path) {
                next.insert(path, file);
            }
        }
        let stats = Refresh {
            files: found.files,
            parsed: found.todo.len(),
            reused: next.len(),
            removed: {
                let parsing: std::collections::BTreeSet<&str> =
                    found.todo.iter().map(|t| t.path.as_str()).collect();
                self.files
                    .keys()
                    .filter(|p| !parsing.contains(p.as_str()))
                    .count()
            },
            elapsed: Duration::ZERO,
        };
        for file in parse_all(found.todo, |file| file) {
            next.insert(file.path.clone(), file);
        }
        self.files = next;
        self.tables = Default::default();
        Refresh {
            elapsed: started.elapsed(),
            ..stats
        }
    }

    /// Writes this index as a new generation beside the current one and
    /// publishes it atomically: the entries of new or changed files, then
    /// the manifest, then `CURRENT`. Generations and entries neither the
    /// new nor the previous generation uses are removed once a minute old.
    /// Returns the manifest's path.
    pub fn publish(&mut self, root: &Path) -> std::io::Result<PathBuf> {
        let files = files_dir(root, true)?;
        let mut manifest = Manifest {
            format: FORMAT,
            adapters: ADAPTERS.to_string(),
            generation: 0,
            files: BTreeMap::new(),
        };
        let key = zurdo_base::mac::Key::user();
        for (path, file) in &self.files {
            let entry = entry_name(path, &file.language, &file.hash);
            let name = entry_file(&entry)
                .ok_or_else(|| std::io::Error::other("an entry outside files/"))?;
            let bytes = serde_json::to_vec(file).map_err(std::io::Error::other)?;
            // An entry this process read and checked is on disk as it must
            // be; any other file of that name (one planted there) is
            // replaced by what this process parsed.
            if !(self.on_disk.contains(path) && files.stat(name)?.is_some_and(|e| e.is_file)) {
                files.replace(name, &bytes, Durability::Unsynced)?;
            }
            manifest.files.insert(
                path.clone(),
                Entry {
                    language: file.language.clone(),
                    hash: file.hash.clone(),
                    entry,
                    mac: key.mac(&bytes),
                },
            );
        }
        self.on_disk = self.files.keys().cloned().collect();
        let path = publish_manifest(root, &mut manifest, self.generation)?;
        self.generation = manifest.generation;
        self.format = FORMAT;
        self.adapters = ADAPTERS.to_string();
        Ok(path)
    }

    /// Loads the published generation, refreshes it, and publishes a new
    /// one when anything changed (a failed publish only leaves the previous
    /// generation in place: the refreshed index is still returned).
    pub fn open(root: &Path) -> (Index, Refresh) {
        let mut index = Index::load(root);
        let stats = index.catch_up(root);
        (index, stats)
    }

    /// Refreshes, then publishes a new generation when anything changed or
    /// none was published yet. A failed publish only leaves the previous
    /// generation in place: this index is fresh either way.
    pub fn catch_up(&mut self, root: &Path) -> Refresh {
        let stats = self.refresh(root);
        if stats.changed() || self.generation == 0 {
            let _ = self.publish(root);
        }
        stats
    }

    /// `zurdo lumen index`: brings the published generation up to date
    /// reading only its manifest: unchanged files' entries are neither read
    /// nor written. Returns what changed and the generation now current
    /// (`None` when nothing changed and one was already published).
    pub fn update(root: &Path) -> std::io::Result<(Refresh, Option<u64>, u64)> {
        let started = Instant::now();
        let (_, old) = Manifest::read(root).unwrap_or_default();
        let files = files_dir(root, true)?;
        let found = scan(root, &BTreeMap::new(), |path, language, hash| {
            old.files.get(path).is_some_and(|e| {
                e.hash == hash
                    && e.language == language
                    && entry_file(&e.entry)
                        .and_then(|n| files.stat(n).ok().flatten())
                        .is_some_and(|s| s.is_file)
            })
        });
        let mut manifest = Manifest {
            format: FORMAT,
            adapters: ADAPTERS.to_string(),
            generation: 0,
            files: BTreeMap::new(),
        };
        for path in found.unchanged {
            if let Some(e) = old.files.get(&path) {
                manifest.files.insert(path, e.clone());
            }
        }
        let mut stats = Refresh {
            files: found.files,
            parsed: found.todo.len(),
            reused: manifest.files.len(),
            removed: old
                .files
                .keys()
                .filter(|p| !manifest.files.contains_key(*p))
                .count(),
            elapsed: Duration::ZERO,
        };
        stats.removed -= found
            .todo
            .iter()
            .filter(|p| old.files.contains_key(&p.path))
            .count();
        if !stats.changed() && old.generation > 0 {
            stats.elapsed = started.elapsed();
            return Ok((stats, None, old.generation));
        }
        // Each worker writes its entries as it parses them.
        let written = parse_all(found.todo, |file| {
            let entry = entry_name(&file.path, &file.language, &file.hash);
            let bytes = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
            let name = entry_file(&entry)
                .ok_or_else(|| std::io::Error::other("an entry outside files/"))?;
            files.replace(name, &bytes, Durability::Unsynced)?;
            Ok::<_, std::io::Error>((
                file.path,
                Entry {
                    language: file.language,
                    hash: file.hash,
                    entry,
                    mac: zurdo_base::mac::Key::user().mac(&bytes),
                },
            ))
        });
        for result in written {
            let (path, entry) = result?;
            manifest.files.insert(path, entry);
        }
        publish_manifest(root, &mut manifest, old.generation)?;
        stats.elapsed = started.elapsed();
        Ok((stats, Some(manifest.generation), manifest.generation))
    }

    /// The resolution tables over the files (built on first use).
    pub(crate) fn tables(&self) -> &crate::resolve::Tables {
        self.tables
            .get_or_init(|| crate::resolve::Tables::build(self))
    }

    fn current_generation(dir: &Dir) -> u64 {
        dir.read("CURRENT", 4096)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|name| {
                name.trim()
                    .strip_prefix("gen-")?
                    .split(['-', '.'])
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    }
}

/// Numbers `manifest` past every generation seen, writes it beside the
/// current one, swaps `CURRENT` to it and prunes.
fn publish_manifest(root: &Path, manifest: &mut Manifest, known: u64) -> std::io::Result<PathBuf> {
    let dir = lumen_dir(root, true)?;
    let previous = Manifest::read(root).map(|(_, m)| m);
    manifest.generation = known.max(Index::current_generation(&dir)) + 1;
    let name = format!("gen-{:08}-{}.json", manifest.generation, std::process::id());
    let bytes = serde_json::to_vec(manifest).map_err(std::io::Error::other)?;
    dir.replace(&name, &bytes, Durability::Synced)?;
    dir.replace("CURRENT", name.as_bytes(), Durability::Synced)?;
    let mut live: std::collections::BTreeSet<String> =
        manifest.files.values().map(|e| e.entry.clone()).collect();
    if let Some(previous) = previous {
        live.extend(previous.files.into_values().map(|e| e.entry));
    }
    prune(&dir, &name, &live);
    Ok(root.join(DIR).join(name))
}

/// Every source file under `root` Lumen reads, with its language, sorted
/// by path (the same walk a refresh makes).
pub fn sources(root: &Path) -> Vec<(String, Language)> {
    walk(root)
}

/// Every source file under `root` with its language, sorted.
fn walk(root: &Path) -> Vec<(String, Language)> {
    files(root, Hidden::Skip)
        .into_iter()
        .filter_map(|path| Language::of(&path).map(|language| (path, language)))
        .collect()
}

/// Whether a walk enters hidden entries (names starting with `.`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// Skip every hidden entry (Lumen's own walk).
    Skip,
    /// Keep them, but for `.git/` and `.zurdo/` (the verifier's walk does
    /// the same): `.github/workflows/ci.yml` is a file of the repository.
    Keep,
}

/// Every regular file under `root` that Lumen's walk keeps, whatever its
/// language, by repository-relative path, sorted: `.gitignore`, `.ignore`,
/// `.git/info/exclude` and the user's global excludes honoured;
/// `node_modules/`, `__pycache__/`, `.git/` and `.zurdo/` skipped, and the
/// other hidden entries as `hidden` says; symlinks not followed; files over
/// [`MAX_FILE_BYTES`] and paths that are not UTF-8 left out. Other indexes
/// over the repository (Pyxis) walk the tree with these same rules.
pub fn files(root: &Path, hidden: Hidden) -> Vec<String> {
    let mut out = Vec::new();
    // The walker's own reading of ignore files is off: it opens them with a
    // blocking open, so a FIFO planted as `.gitignore` would hang it, and it
    // reads them whole. `IgnoreRules` reads each one bounded and regular-only.
    let rules = std::sync::Arc::new(IgnoreRules::new(root));
    let walker = ignore::WalkBuilder::new(root)
        .hidden(hidden == Hidden::Skip)
        .parents(false)
        .follow_links(false)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .filter_entry(move |e| {
            let name = e.file_name().to_string_lossy();
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            let skipped = (is_dir && SKIP_DIRS.contains(&name.as_ref()))
                || name == ".git"
                || name == ".zurdo";
            !skipped && !rules.ignored(e.path(), is_dir)
        })
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if entry.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(path) = relative.to_str().map(|p| p.replace('\\', "/")) else {
            continue;
        };
        out.push(path);
    }
    out.sort();
    out
}

/// Most bytes of an ignore file read (larger ones are not read: no rules).
const IGNORE_FILE_LIMIT: u64 = 1024 * 1024;

/// The ignore rules of a walk, as git and ripgrep apply them: `.ignore`
/// before `.gitignore`, each from the deepest directory up, then
/// `.git/info/exclude`, then the user's global excludes; the first rule
/// that matches decides. Each directory's files are read once, only when
/// they are regular files within [`IGNORE_FILE_LIMIT`], never through a
/// symlink (a FIFO, a device or a symlink there counts as no rules).
struct IgnoreRules {
    root: PathBuf,
    /// Per directory: the ignore files in force there that hold any rule,
    /// its own first, then its parent's, up to the root.
    chains: std::sync::Mutex<BTreeMap<PathBuf, Chain>>,
    exclude: Gitignore,
    global: Gitignore,
}

/// The non-empty `(.ignore, .gitignore)` pairs of a directory and its
/// ancestors, deepest first.
type Chain = std::sync::Arc<Vec<std::sync::Arc<(Gitignore, Gitignore)>>>;

impl IgnoreRules {
    fn new(root: &Path) -> IgnoreRules {
        let exclude = if root.join(".git").is_dir() {
            rules_in(root, &root.join(".git/info/exclude"))
        } else {
            Gitignore::empty()
        };
        IgnoreRules {
            root: root.to_path_buf(),
            chains: std::sync::Mutex::new(BTreeMap::new()),
            exclude,
            global: GitignoreBuilder::new(root).build_global().0,
        }
    }

    /// The chain of `dir` (its files read once, when first asked for).
    fn chain(&self, dir: &Path) -> Chain {
        let mut chains = self
            .chains
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.chain_locked(&mut chains, dir)
    }

    fn chain_locked(&self, chains: &mut BTreeMap<PathBuf, Chain>, dir: &Path) -> Chain {
        if let Some(chain) = chains.get(dir) {
            return std::sync::Arc::clone(chain);
        }
        let mut own = Vec::new();
        let level = (
            rules_in(dir, &dir.join(".ignore")),
            rules_in(dir, &dir.join(".gitignore")),
        );
        if !level.0.is_empty() || !level.1.is_empty() {
            own.push(std::sync::Arc::new(level));
        }
        if dir != self.root {
            if let Some(parent) = dir.parent().filter(|p| p.starts_with(&self.root)) {
                own.extend(self.chain_locked(chains, parent).iter().cloned());
            }
        }
        let chain: Chain = std::sync::Arc::new(own);
        chains.insert(dir.to_path_buf(), std::sync::Arc::clone(&chain));
        chain
    }

    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Some(parent) = path.parent().filter(|p| p.starts_with(&self.root)) else {
            return false;
        };
        let chain = self.chain(parent);
        let first = |pick: fn(&(Gitignore, Gitignore)) -> &Gitignore| {
            chain
                .iter()
                .map(|level| pick(level).matched(path, is_dir))
                .find(|m| !m.is_none())
                .unwrap_or(Match::None)
        };
        let mut decided = first(|l| &l.0).or(first(|l| &l.1));
        for rules in [&self.exclude, &self.global] {
            if decided.is_none() && !rules.is_empty() {
                decided = rules.matched(path, is_dir);
            }
        }
        decided.is_ignore()
    }
}

/// The rules of the ignore file `file`, applying to `dir`.
fn rules_in(dir: &Path, file: &Path) -> Gitignore {
    let Ok(bytes) = zurdo_base::files::read_bounded_nofollow(file, IGNORE_FILE_LIMIT) else {
        return Gitignore::empty();
    };
    let mut builder = GitignoreBuilder::new(dir);
    for line in String::from_utf8_lossy(&bytes).lines() {
        // A malformed line is skipped, as git skips it.
        let _ = builder.add_line(None, line);
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// Parses the files on every core (tree-sitter parsers are per thread), or
/// on `ZURDO_LUMEN_THREADS` threads when that is set.
/// A file to parse.
#[derive(Clone)]
struct Pending {
    path: String,
    language: Language,
    bytes: Vec<u8>,
    hash: String,
    /// A Rust file's crate.
    krate: Option<String>,
}

fn parse_all<T: Send>(todo: Vec<Pending>, each: impl Fn(FileIndex) -> T + Sync) -> Vec<T> {
    let workers = std::env::var("ZURDO_LUMEN_THREADS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .min(todo.len().max(1));
    if workers <= 1 {
        return todo.into_iter().map(|p| each(parse_one(p))).collect();
    }
    let mut chunks: Vec<Vec<Pending>> = vec![Vec::new(); workers];
    for (i, item) in todo.into_iter().enumerate() {
        chunks[i % workers].push(item);
    }
    let each = &each;
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|p| each(parse_one(p)))
                        .collect::<Vec<T>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

fn parse_one(pending: Pending) -> FileIndex {
    let mut file = adapters::index_file_in(
        pending.language,
        &pending.path,
        &pending.bytes,
        pending.krate.as_deref(),
    );
    file.hash = pending.hash;
    file
}

/// Hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Removes generations other than `keep` and the newest one before it,
/// and entries no `live` generation uses, when they are over a minute old
/// (another process may be publishing).
fn prune(dir: &Dir, keep: &str, live: &std::collections::BTreeSet<String>) {
    let old = |d: &Dir, name: &str| {
        d.stat(name)
            .ok()
            .flatten()
            .and_then(|e| SystemTime::now().duration_since(e.modified).ok())
            .is_some_and(|age| age > Duration::from_secs(60))
    };
    if let Ok(names) = dir.names() {
        let mut generations: Vec<String> = names
            .into_iter()
            .filter(|name| name.starts_with("gen-") && name != keep)
            .collect();
        generations.sort();
        generations.pop(); // the previous generation stays
        for name in generations {
            if old(dir, &name) {
                let _ = dir.remove(&name);
            }
        }
    }
    if let Ok(files) = dir.child("files", false) {
        for name in files.names().unwrap_or_default() {
            if !live.contains(&format!("files/{name}")) && old(&files, &name) {
                let _ = files.remove(&name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn a() {}\n").expect("write");
        std::fs::write(dir.path().join("src/b.rs"), "pub fn b() {}\n").expect("write");
        std::fs::write(dir.path().join("README.md"), "# not code\n").expect("write");
        dir
    }

    #[test]
    fn ignore_files_are_read_bounded_and_a_fifo_there_hangs_nothing() {
        let dir = repo();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/info")).expect("git");
        std::fs::create_dir_all(root.join("gen/keep")).expect("mkdir");
        std::fs::write(root.join("gen/a.rs"), "pub fn gen_a() {}\n").expect("write");
        std::fs::write(root.join("gen/keep/b.rs"), "pub fn gen_b() {}\n").expect("write");
        std::fs::write(root.join("local.rs"), "pub fn local() {}\n").expect("write");
        std::fs::write(root.join(".gitignore"), "gen/*\n!gen/keep/\n").expect("write");
        std::fs::write(root.join(".git/info/exclude"), "local.rs\n").expect("write");
        let paths =
            |root: &Path| -> Vec<String> { walk(root).into_iter().map(|(p, _)| p).collect() };
        assert_eq!(paths(root), ["gen/keep/b.rs", "src/b.rs", "src/lib.rs"]);
        // A FIFO as an ignore file: no rules from it, and no hang.
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("src/.gitignore"))
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert_eq!(paths(root), ["gen/keep/b.rs", "src/b.rs", "src/lib.rs"]);
        }
        // `.ignore` wins over `.gitignore` in the same directory.
        std::fs::write(root.join(".ignore"), "!gen/a.rs\n").expect("write");
        assert_eq!(
            paths(root),
            ["gen/a.rs", "gen/keep/b.rs", "src/b.rs", "src/lib.rs"]
        );
    }

    #[test]
    fn nothing_is_written_or_read_outside_the_repository() {
        let dir = repo();
        let outside = tempfile::tempdir().expect("temp");
        std::fs::write(
            outside.path().join("evil.rs"),
            "pub fn outside_secret() {}\n",
        )
        .expect("write");
        // A source file that is a symlink out, and the index directory itself.
        std::os::unix::fs::symlink(
            outside.path().join("evil.rs"),
            dir.path().join("src/evil.rs"),
        )
        .expect("plant");
        std::fs::create_dir_all(dir.path().join(".zurdo")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), dir.path().join(DIR)).expect("plant");
        let mut index = Index::default();
        index.refresh(dir.path());
        assert!(
            !index.files.contains_key("src/evil.rs"),
            "a symlink out is not indexed"
        );
        let e = index.publish(dir.path()).expect_err("refused");
        assert!(e.to_string().contains("is a symlink"), "{e}");
        assert!(Index::update(dir.path()).is_err());
        let names: Vec<_> = std::fs::read_dir(outside.path())
            .expect("ls")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["evil.rs"], "nothing written outside");
        // A manifest planted there is not read either.
        assert!(Manifest::read(dir.path()).is_none());
    }

    #[test]
    fn a_refresh_parses_only_what_changed() {
        let dir = repo();
        let mut index = Index::default();
        let first = index.refresh(dir.path());
        assert_eq!((first.files, first.parsed, first.reused), (2, 2, 0));
        let again = index.refresh(dir.path());
        assert_eq!((again.parsed, again.reused, again.removed), (0, 2, 0));
        assert!(!again.changed());
        std::fs::write(dir.path().join("src/b.rs"), "pub fn b2() {}\n").expect("write");
        std::fs::remove_file(dir.path().join("src/lib.rs")).expect("rm");
        let edit = index.refresh(dir.path());
        assert_eq!((edit.parsed, edit.reused, edit.removed), (1, 0, 1));
        assert_eq!(index.files.keys().collect::<Vec<_>>(), ["src/b.rs"]);
    }

    #[test]
    fn publishing_writes_a_new_generation_and_moves_current_atomically() {
        let dir = repo();
        let (index, stats) = Index::open(dir.path());
        assert_eq!(stats.parsed, 2);
        assert_eq!(index.generation, 1);
        let loaded = Index::load(dir.path());
        assert_eq!(loaded, index);
        // Unchanged: no new generation.
        let (same, stats) = Index::open(dir.path());
        assert_eq!((same.generation, stats.parsed), (1, 0));
        std::fs::write(dir.path().join("src/c.rs"), "fn c() {}\n").expect("write");
        let (next, _) = Index::open(dir.path());
        assert_eq!(next.generation, 2);
        let gens: Vec<String> = std::fs::read_dir(dir.path().join(DIR))
            .expect("dir")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("gen-"))
            .collect();
        assert_eq!(gens.len(), 2, "the new generation beside the old: {gens:?}");
    }

    #[test]
    fn update_reads_only_the_manifest_and_agrees_with_a_full_refresh() {
        let dir = repo();
        let (first, generation, _) = Index::update(dir.path()).expect("update");
        assert_eq!((first.parsed, generation), (2, Some(1)));
        let (same, generation, current) = Index::update(dir.path()).expect("update");
        assert_eq!(
            (same.parsed, same.reused, generation, current),
            (0, 2, None, 1)
        );
        std::fs::write(dir.path().join("src/b.rs"), "pub fn b2() {}\n").expect("write");
        std::fs::write(dir.path().join("src/c.rs"), "pub fn c() {}\n").expect("write");
        std::fs::remove_file(dir.path().join("src/lib.rs")).expect("rm");
        let (edit, generation, _) = Index::update(dir.path()).expect("update");
        assert_eq!(
            (edit.parsed, edit.reused, edit.removed, generation),
            (2, 0, 1, Some(2))
        );
        let loaded = Index::load(dir.path());
        let mut fresh = Index::default();
        fresh.refresh(dir.path());
        assert_eq!(loaded.files, fresh.files);
        assert_eq!(loaded.generation, 2);
    }

    /// Rewrites `pub fn b() {}` as `pub fn c() {}` and puts the mtime back.
    fn rewrite_keeping_length_and_mtime(path: &Path) {
        let mtime = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .expect("mtime");
        std::fs::write(path, "pub fn c() {}\n").expect("write");
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(mtime))
            .expect("set mtime");
    }

    #[test]
    fn an_edit_that_keeps_length_and_mtime_is_still_seen() {
        let dir = repo();
        let mut index = Index::default();
        index.refresh(dir.path());
        // Same length, and the modification time put back: the change time
        // still moves, so the file is read again.
        rewrite_keeping_length_and_mtime(&dir.path().join("src/b.rs"));
        let stats = index.refresh(dir.path());
        assert_eq!((stats.parsed, stats.reused), (1, 1));
        assert_eq!(index.files["src/b.rs"].symbols[0].path, ["b", "c"]);
        let again = index.refresh(dir.path());
        assert_eq!((again.parsed, again.reused), (0, 2));
    }

    #[test]
    fn only_settled_files_are_trusted_by_their_stamp() {
        let dir = repo();
        let mut index = Index::default();
        index.refresh(dir.path());
        assert!(
            index.stamps.is_empty(),
            "files changed a moment ago are racily clean: hashed every time"
        );
        std::thread::sleep(Duration::from_millis(2100));
        index.refresh(dir.path());
        assert_eq!(index.stamps.len(), 2, "settled files are stamped");
        // The fast path still sees an edit that keeps length and mtime.
        rewrite_keeping_length_and_mtime(&dir.path().join("src/b.rs"));
        let stats = index.refresh(dir.path());
        assert_eq!((stats.parsed, stats.reused), (1, 1));
        assert_eq!(index.files["src/b.rs"].symbols[0].path, ["b", "c"]);
    }

    #[test]
    fn a_damaged_entry_is_left_out_and_parsed_again() {
        let dir = repo();
        let (index, _) = Index::open(dir.path());
        let lumen = dir.path().join(DIR);
        let (_, manifest) = Manifest::read(dir.path()).expect("manifest");
        let entry = &manifest.files["src/b.rs"].entry;
        std::fs::write(lumen.join(entry), "{broken").expect("damage");
        let mut loaded = Index::load(dir.path());
        assert_eq!(loaded.files.keys().collect::<Vec<_>>(), ["src/lib.rs"]);
        let stats = loaded.refresh(dir.path());
        assert_eq!((stats.parsed, stats.reused), (1, 1));
        assert_eq!(loaded.files, index.files);
    }

    #[test]
    fn a_generation_of_an_older_format_is_rebuilt_and_its_entries_not_reused() {
        let dir = repo();
        let lumen = dir.path().join(DIR);
        std::fs::create_dir_all(lumen.join("files")).expect("mkdir");
        // What format 1 wrote for src/b.rs: paths in full, under an entry
        // name keyed by path, language and hash only.
        let hash = sha256_hex(b"pub fn b() {}\n");
        let key = sha256_hex(format!("src/b.rs\0rust\0{hash}").as_bytes());
        let entry = format!("files/{}.json", &key[..32]);
        let old = format!(
            r#"{{"path":"src/b.rs","language":"rust","hash":"{hash}","symbols":[{{"path":["b","b"],"kind":"function","line":1}}],"references":[]}}"#
        );
        std::fs::write(lumen.join(&entry), old).expect("entry");
        let manifest = format!(
            r#"{{"format":1,"adapters":"{ADAPTERS}","generation":1,"files":{{"src/b.rs":{{"language":"rust","hash":"{hash}","entry":"{entry}"}}}}}}"#
        );
        std::fs::write(lumen.join("gen-00000001-1.json"), manifest).expect("manifest");
        std::fs::write(lumen.join("CURRENT"), "gen-00000001-1.json").expect("current");
        assert_eq!(Index::load(dir.path()), Index::default());
        let (index, stats) = Index::open(dir.path());
        assert_eq!((stats.parsed, stats.reused), (2, 0));
        let (_, manifest) = Manifest::read(dir.path()).expect("manifest");
        assert_eq!(manifest.format, FORMAT);
        assert_ne!(manifest.files["src/b.rs"].entry, entry, "a new entry name");
        let loaded = Index::load(dir.path());
        assert_eq!(loaded.files, index.files, "every entry reads back");
        assert_eq!(loaded.files["src/b.rs"].symbols[0].path, ["b", "b"]);
    }

    #[test]
    fn a_damaged_or_foreign_generation_is_not_trusted() {
        let dir = repo();
        Index::open(dir.path());
        let lumen = dir.path().join(DIR);
        std::fs::write(lumen.join("CURRENT"), "../../etc/passwd").expect("write");
        assert_eq!(Index::load(dir.path()), Index::default());
        std::fs::write(lumen.join("CURRENT"), "gen-missing.json").expect("write");
        assert_eq!(Index::load(dir.path()), Index::default());
        std::fs::write(lumen.join("bad.json"), "{not json").expect("write");
        std::fs::write(lumen.join("CURRENT"), "bad.json").expect("write");
        assert_eq!(Index::load(dir.path()), Index::default());
    }

    #[test]
    fn gitignored_hidden_and_huge_files_are_not_indexed() {
        let dir = repo();
        std::fs::create_dir_all(dir.path().join(".git")).expect("git");
        std::fs::write(dir.path().join(".gitignore"), "gen/\n").expect("write");
        std::fs::create_dir_all(dir.path().join("gen")).expect("mkdir");
        std::fs::write(dir.path().join("gen/x.rs"), "fn x() {}").expect("write");
        std::fs::create_dir_all(dir.path().join(".hidden")).expect("mkdir");
        std::fs::write(dir.path().join(".hidden/y.rs"), "fn y() {}").expect("write");
        std::fs::create_dir_all(dir.path().join("node_modules/m")).expect("mkdir");
        std::fs::write(dir.path().join("node_modules/m/i.js"), "function z(){}").expect("write");
        std::fs::write(
            dir.path().join("src/big.rs"),
            vec![b' '; (MAX_FILE_BYTES + 1) as usize],
        )
        .expect("write");
        let mut index = Index::default();
        index.refresh(dir.path());
        assert_eq!(
            index.files.keys().collect::<Vec<_>>(),
            ["src/b.rs", "src/lib.rs"]
        );
    }
}
