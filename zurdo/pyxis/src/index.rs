//! The index: one [`Doc`] per file of the repository, kept fresh by
//! content hash and stored at `.zurdo/pyxis/index.json`.
//!
//! The files are the ones Lumen's walk keeps ([`zurdo_lumen::index::files`]:
//! the ignore rules honoured, `node_modules/` skipped, nothing over 2 MB),
//! any language or none, hidden ones included as in the verifier's walk
//! (`.github/workflows/ci.yml`), but never `.git/` or `.zurdo/`. Each file's entry holds the
//! SHA-256 of its bytes, the counts of the terms of its contents, and its
//! definitions as Lumen read them (Lumen's own index is reused, never a
//! second parse). A refresh reads and hashes every file, tokenizes only the
//! new or changed ones, and drops the deleted ones.
//!
//! On disk the index is one JSON document carrying a MAC of its contents
//! under the user's key ([`zurdo_base::mac`]), written atomically (temp
//! file + rename) through a directory opened without following symlinks.
//! A document whose MAC does not check (anything working in the repository
//! can write `.zurdo/`), of another format or written over another version
//! of Lumen's adapters, is not believed: the index is rebuilt from the
//! files themselves.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use zurdo_base::dir::Dir;
use zurdo_base::files::Durability;

use crate::tokens;

/// The index file, relative to the repository root.
pub const PATH: &str = ".zurdo/pyxis/index.json";

/// The format of `index.json`; bumped whenever an entry is built
/// differently (the tokenizer included), so an older one is rebuilt.
pub const FORMAT: u32 = 1;

/// Files indexed at most; past it, the rest (in path order) are left out
/// and counted in [`Refresh::skipped`].
pub const MAX_FILES: usize = 20_000;

/// Bytes of a file's contents tokenized at most (the rest of a larger file
/// is not read for words; its path and definitions still count).
pub const MAX_CONTENT_BYTES: usize = 1024 * 1024;

/// Distinct content terms kept per file at most: the most frequent (ties by
/// term), so a data file cannot grow the index without bound.
pub const MAX_TERMS_PER_FILE: usize = 4096;

/// Definitions kept per file at most, in source order.
pub const MAX_SYMBOLS_PER_FILE: usize = 1024;

/// Bytes of `index.json` read back at most (larger is not read: rebuilt).
pub const INDEX_LIMIT: u64 = 256 * 1024 * 1024;

/// A file whose first this many bytes hold a NUL is binary (git's test):
/// indexed by its path only.
const BINARY_PROBE: usize = 8000;

/// One definition of a file, as Lumen read it: its name, the name of the
/// scope it is in (a type, a module, a function; empty at the top), its
/// kind and its line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    /// The last segment of its qualified path (`load`).
    pub name: String,
    /// The segment before it (`Config`), empty when none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scope: String,
    /// Lumen's kind (`function`, `method`, `class`, …).
    pub kind: String,
    /// 1-based line.
    pub line: u32,
}

impl Def {
    /// `Config::load`, or `load` at the top.
    pub fn display(&self) -> String {
        if self.scope.is_empty() {
            self.name.clone()
        } else {
            format!("{}::{}", self.scope, self.name)
        }
    }
}

/// One file of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Doc {
    /// SHA-256 of its bytes, hex (empty: built without Lumen's view of
    /// these bytes, so built again at the next refresh).
    pub hash: String,
    /// Holds a NUL early on: its contents are not read for words.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
    /// Its definitions (source files only), at most [`MAX_SYMBOLS_PER_FILE`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defs: Vec<Def>,
    /// How many terms its contents have (before the distinct-term cap).
    pub length: u32,
    /// Each content term and how often it occurs.
    pub terms: BTreeMap<String, u32>,
    /// The terms of its path (derived, not stored).
    #[serde(skip)]
    pub path_terms: BTreeMap<String, u32>,
    /// The terms of its definitions' names (derived, not stored).
    #[serde(skip)]
    pub def_terms: BTreeMap<String, u32>,
}

impl Doc {
    /// Fills the derived fields from `path` and the definitions.
    fn derive(&mut self, path: &str) {
        self.path_terms = counts(tokens::path_terms(path));
        self.def_terms = counts(self.defs.iter().flat_map(|d| tokens::terms(&d.name)));
    }

    /// How many terms its path has.
    pub fn path_length(&self) -> u32 {
        self.path_terms.values().sum()
    }

    /// How many terms its definitions' names have.
    pub fn def_length(&self) -> u32 {
        self.def_terms.values().sum()
    }

    /// Builds the entry of `path` from its bytes, with the definitions
    /// Lumen read from the same bytes (`lumen`, when its hash is `hash`).
    fn build(
        path: &str,
        bytes: &[u8],
        hash: String,
        lumen: Option<&zurdo_lumen::FileIndex>,
    ) -> Doc {
        let probe = &bytes[..bytes.len().min(BINARY_PROBE)];
        let binary = probe.contains(&0);
        let (mut terms, mut length) = (BTreeMap::new(), 0u32);
        if !binary {
            let cut = &bytes[..bytes.len().min(MAX_CONTENT_BYTES)];
            let text = String::from_utf8_lossy(cut);
            tokens::each_term(&text, |t| {
                *terms.entry(t).or_insert(0u32) += 1;
                length = length.saturating_add(1);
            });
            if terms.len() > MAX_TERMS_PER_FILE {
                let mut ranked: Vec<(String, u32)> = terms.into_iter().collect();
                ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                ranked.truncate(MAX_TERMS_PER_FILE);
                terms = ranked.into_iter().collect();
            }
        }
        let seen = lumen.filter(|f| f.hash == hash);
        let defs = seen.map(defs_of).unwrap_or_default();
        let mut doc = Doc {
            // A source file Lumen reads but has not read as these bytes (it
            // changed between the two reads) is built again next time.
            hash: if lumen_reads(path) && seen.is_none() {
                String::new()
            } else {
                hash
            },
            binary,
            defs,
            length,
            terms,
            path_terms: BTreeMap::new(),
            def_terms: BTreeMap::new(),
        };
        doc.derive(path);
        doc
    }
}

/// True for a file Lumen's own walk indexes: a source file of a language
/// it reads, outside hidden directories (Lumen skips those; Pyxis does not).
fn lumen_reads(path: &str) -> bool {
    zurdo_lumen::adapters::Language::of(path).is_some()
        && !path.split('/').any(|part| part.starts_with('.'))
}

/// The definitions of a Lumen entry (aliases left out: an import does not
/// define what it names).
fn defs_of(file: &zurdo_lumen::FileIndex) -> Vec<Def> {
    file.symbols
        .iter()
        .filter(|s| s.kind != zurdo_lumen::Kind::Alias)
        .filter_map(|s| {
            let name = s.path.last()?.clone();
            let scope = s.path.parent().last().cloned().unwrap_or_default();
            Some(Def {
                name,
                scope,
                kind: s.kind.name().to_string(),
                line: s.line,
            })
        })
        .take(MAX_SYMBOLS_PER_FILE)
        .collect()
}

fn counts(terms: impl IntoIterator<Item = String>) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for t in terms {
        *out.entry(t).or_insert(0u32) += 1;
    }
    out
}

/// The whole index, in memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Index {
    /// Every indexed file, by repository-relative path.
    pub files: BTreeMap<String, Doc>,
    /// Files the last refresh left out past [`MAX_FILES`].
    pub skipped: usize,
}

/// What a refresh did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refresh {
    /// Files indexed.
    pub files: usize,
    /// Files tokenized (new or changed).
    pub read: usize,
    /// Files whose hash was unchanged, kept as they were.
    pub reused: usize,
    /// Files gone since the last refresh.
    pub removed: usize,
    /// Files left out past [`MAX_FILES`].
    pub skipped: usize,
    /// Wall time.
    pub elapsed: Duration,
}

impl Refresh {
    /// True when the refresh changed the index.
    pub fn changed(&self) -> bool {
        self.read > 0 || self.removed > 0
    }
}

/// What became of `index.json` when it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// There was none (or `.zurdo/pyxis/` could not be opened without
    /// following a symlink).
    Missing,
    /// It was read, and its MAC checks.
    Trusted,
    /// It was not believed, for this reason; the index starts empty.
    Distrusted(String),
}

/// `index.json` as stored: the body and, last, its MAC.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    format: u32,
    lumen: String,
    files: BTreeMap<String, Doc>,
    mac: String,
}

/// What the MAC covers: the body, serialized canonically (sorted maps, no
/// floats), so the bytes read back serialize to the bytes that were MAC'd.
#[derive(Serialize)]
struct Body<'a> {
    format: u32,
    lumen: &'a str,
    files: &'a BTreeMap<String, Doc>,
}

#[derive(Serialize)]
struct StoredOut<'a> {
    format: u32,
    lumen: &'a str,
    files: &'a BTreeMap<String, Doc>,
    mac: &'a str,
}

/// `.zurdo/pyxis/`, every step opened without following a symlink.
fn pyxis_dir(root: &Path, create: bool) -> std::io::Result<Dir> {
    Dir::open(root)?.descend(&[".zurdo", "pyxis"], create)
}

impl Index {
    /// Reads `index.json` under `root`, believed only when its MAC checks
    /// and it was written in this [`FORMAT`] over this version of Lumen's
    /// adapters; otherwise an empty index (a refresh rebuilds it) and why.
    pub fn load(root: &Path) -> (Index, Loaded) {
        let Ok(dir) = pyxis_dir(root, false) else {
            return (Index::default(), Loaded::Missing);
        };
        let bytes = match dir.read("index.json", INDEX_LIMIT) {
            Ok(bytes) => bytes,
            Err(e) if e.is_not_found() => return (Index::default(), Loaded::Missing),
            Err(e) => return distrusted(format!("cannot be read: {e}")),
        };
        let stored: Stored = match serde_json::from_slice(&bytes) {
            Ok(s) => s,
            Err(e) => return distrusted(format!("not an index: {e}")),
        };
        if stored.format != FORMAT || stored.lumen != zurdo_lumen::index::ADAPTERS {
            return distrusted(format!(
                "written in format {} over Lumen {}, not format {FORMAT} over Lumen {}",
                stored.format,
                stored.lumen,
                zurdo_lumen::index::ADAPTERS
            ));
        }
        let body = Body {
            format: stored.format,
            lumen: &stored.lumen,
            files: &stored.files,
        };
        let checks = serde_json::to_vec(&body)
            .is_ok_and(|b| zurdo_base::mac::Key::user().checks(&b, &stored.mac));
        if !checks {
            return distrusted(
                "its MAC does not check (zurdo did not write it as it is)".to_string(),
            );
        }
        let mut files = stored.files;
        for (path, doc) in files.iter_mut() {
            doc.derive(path);
        }
        (Index { files, skipped: 0 }, Loaded::Trusted)
    }

    /// Writes the index to `index.json` atomically, with its MAC, and
    /// returns the file's path.
    pub fn save(&self, root: &Path) -> std::io::Result<PathBuf> {
        let dir = pyxis_dir(root, true)?;
        let lumen = zurdo_lumen::index::ADAPTERS;
        let body = serde_json::to_vec(&Body {
            format: FORMAT,
            lumen,
            files: &self.files,
        })
        .map_err(std::io::Error::other)?;
        let mac = zurdo_base::mac::Key::user().mac(&body);
        let bytes = serde_json::to_vec(&StoredOut {
            format: FORMAT,
            lumen,
            files: &self.files,
            mac: &mac,
        })
        .map_err(std::io::Error::other)?;
        dir.replace("index.json", &bytes, Durability::Unsynced)?;
        Ok(root.join(PATH))
    }

    /// Brings the index up to date with the tree under `root`: every file
    /// of the walk is read and hashed; new and changed ones are tokenized
    /// (with their definitions from `lumen`, which the caller refreshed),
    /// unchanged ones kept, deleted ones dropped.
    pub fn refresh(&mut self, root: &Path, lumen: &zurdo_lumen::Index) -> Refresh {
        let started = Instant::now();
        let mut paths = zurdo_lumen::index::files(root, zurdo_lumen::index::Hidden::Keep);
        let skipped = paths.len().saturating_sub(MAX_FILES);
        paths.truncate(MAX_FILES);
        let mut old = std::mem::take(&mut self.files);
        let mut stats = Refresh {
            skipped,
            ..Refresh::default()
        };
        for path in paths {
            let full = root.join(&path);
            let Ok(bytes) =
                zurdo_base::files::read_bounded_nofollow(&full, zurdo_lumen::index::MAX_FILE_BYTES)
            else {
                continue;
            };
            let hash = zurdo_lumen::index::sha256_hex(&bytes);
            match old.remove(&path) {
                Some(doc) if doc.hash == hash => {
                    stats.reused += 1;
                    self.files.insert(path, doc);
                }
                _ => {
                    stats.read += 1;
                    let doc = Doc::build(&path, &bytes, hash, lumen.files.get(&path));
                    self.files.insert(path, doc);
                }
            }
        }
        stats.removed = old.len();
        stats.files = self.files.len();
        self.skipped = skipped;
        stats.elapsed = started.elapsed();
        stats
    }
}

fn distrusted(why: String) -> (Index, Loaded) {
    (Index::default(), Loaded::Distrusted(why))
}

/// What a [`Retriever::refresh`] did.
#[derive(Debug)]
pub struct Refreshed {
    /// What became of `index.json` when this process read it.
    pub loaded: Loaded,
    /// What the refresh did.
    pub refresh: Refresh,
    /// The failed save, when saving failed (the index is fresh either way).
    pub save_error: Option<std::io::Error>,
}

/// Keeps Pyxis and the Lumen index it reads definitions from fresh for
/// one process: each is read from disk once (Lumen's entries and Pyxis's
/// `index.json` believed only when their MACs check) and from then on
/// refreshed from the files themselves, never re-read from `.zurdo/`.
#[derive(Debug)]
pub struct Retriever {
    lumen: Option<zurdo_lumen::Index>,
    pyxis: Option<Index>,
    /// What became of `index.json` when this process read it.
    loaded: Loaded,
    /// True while `index.json` holds what this index held when last saved
    /// (or read and believed).
    saved: bool,
}

impl Default for Retriever {
    fn default() -> Self {
        Retriever {
            lumen: None,
            pyxis: None,
            loaded: Loaded::Missing,
            saved: false,
        }
    }
}

impl Retriever {
    /// A retriever that has read nothing yet.
    pub fn new() -> Retriever {
        Retriever::default()
    }

    /// Refreshes both indexes against `root` (reading them from disk the
    /// first time), publishes Lumen's and saves Pyxis's when they changed
    /// or `index.json` was not believed.
    pub fn refresh(&mut self, root: &Path) -> Refreshed {
        let lumen = self
            .lumen
            .get_or_insert_with(|| zurdo_lumen::Index::load(root));
        lumen.catch_up(root);
        if self.pyxis.is_none() {
            let (index, loaded) = Index::load(root);
            self.saved = loaded == Loaded::Trusted;
            self.loaded = loaded;
            self.pyxis = Some(index);
        }
        let index = self.pyxis.get_or_insert_with(Index::default);
        let refresh = index.refresh(root, lumen);
        let mut save_error = None;
        if refresh.changed() || !self.saved {
            let saved = index.save(root);
            self.saved = saved.is_ok();
            save_error = saved.err();
        }
        Refreshed {
            loaded: self.loaded.clone(),
            refresh,
            save_error,
        }
    }

    /// True once the first refresh has read `index.json` (what became of
    /// it is [`Refreshed::loaded`], the same on every later refresh).
    pub fn has_read(&self) -> bool {
        self.pyxis.is_some()
    }

    /// The index as the last refresh left it (empty before the first).
    pub fn index(&self) -> &Index {
        static EMPTY: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
        match &self.pyxis {
            Some(index) => index,
            None => EMPTY.get_or_init(Index::default),
        }
    }

    /// The index, taken out of the retriever.
    pub fn into_index(self) -> Index {
        self.pyxis.unwrap_or_default()
    }
}

/// Opens the index of the repository at `root`: Lumen's index refreshed
/// (and published), `index.json` read and believed only when it checks,
/// refreshed, and saved when anything changed.
pub fn open(root: &Path) -> (Index, Refreshed) {
    let mut retriever = Retriever::new();
    let refreshed = retriever.refresh(root);
    (retriever.into_index(), refreshed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git");
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        std::fs::write(
            dir.path().join("src/config.rs"),
            "pub struct Config;\nimpl Config {\n    pub fn load() -> Config { Config }\n}\n",
        )
        .expect("write");
        std::fs::write(dir.path().join("src/lib.rs"), "pub mod config;\n").expect("write");
        std::fs::write(dir.path().join("README.md"), "# A tool\nIt loads things.\n")
            .expect("write");
        dir
    }

    fn fresh(root: &Path) -> (Index, Refresh) {
        let mut lumen = zurdo_lumen::Index::default();
        lumen.refresh(root);
        let mut index = Index::default();
        let stats = index.refresh(root, &lumen);
        (index, stats)
    }

    #[test]
    fn every_file_is_indexed_with_lumen_definitions_for_source() {
        let dir = repo();
        let (index, stats) = fresh(dir.path());
        assert_eq!(
            index.files.keys().collect::<Vec<_>>(),
            ["README.md", "src/config.rs", "src/lib.rs"]
        );
        assert_eq!((stats.files, stats.read, stats.reused), (3, 3, 0));
        let config = &index.files["src/config.rs"];
        let defs: Vec<String> = config.defs.iter().map(Def::display).collect();
        assert!(defs.contains(&"Config::load".to_string()), "{defs:?}");
        assert_eq!(config.def_terms.get("load"), Some(&1));
        assert_eq!(index.files["README.md"].terms.get("tool"), Some(&1));
        assert!(index.files["README.md"].defs.is_empty());
    }

    #[test]
    fn a_refresh_picks_up_a_changed_file_and_drops_a_deleted_one() {
        let dir = repo();
        let mut lumen = zurdo_lumen::Index::default();
        lumen.refresh(dir.path());
        let mut index = Index::default();
        index.refresh(dir.path(), &lumen);
        let same = index.refresh(dir.path(), &lumen);
        assert_eq!((same.read, same.reused, same.removed), (0, 3, 0));
        assert!(!same.changed());
        std::fs::write(
            dir.path().join("src/config.rs"),
            "pub fn parse_settings() {}\n",
        )
        .expect("edit");
        std::fs::remove_file(dir.path().join("README.md")).expect("rm");
        lumen.refresh(dir.path());
        let edit = index.refresh(dir.path(), &lumen);
        assert_eq!((edit.read, edit.reused, edit.removed), (1, 1, 1));
        assert!(!index.files.contains_key("README.md"));
        let config = &index.files["src/config.rs"];
        assert_eq!(config.defs[0].name, "parse_settings");
        assert!(config.terms.contains_key(&crate::tokens::stem("settings")));
        assert!(!config.terms.contains_key("load"));
    }

    #[test]
    fn binary_files_count_by_path_only_and_large_files_by_their_start() {
        let dir = repo();
        std::fs::write(dir.path().join("logo.png"), b"\x89PNG\0\0loader").expect("write");
        let mut big = "alpha ".repeat(MAX_CONTENT_BYTES / 6);
        big.push_str("omega\n");
        std::fs::write(dir.path().join("big.txt"), big).expect("write");
        let (index, _) = fresh(dir.path());
        let logo = &index.files["logo.png"];
        assert!(logo.binary && logo.terms.is_empty());
        assert_eq!(logo.path_terms.get("logo"), Some(&1));
        let big = &index.files["big.txt"];
        assert!(big.terms.contains_key("alpha") && !big.terms.contains_key("omega"));
    }

    #[test]
    fn saved_and_loaded_it_is_the_same_index() {
        let dir = repo();
        let (index, opened) = open(dir.path());
        assert_eq!(opened.loaded, Loaded::Missing);
        assert!(opened.save_error.is_none(), "{:?}", opened.save_error);
        let (loaded, how) = Index::load(dir.path());
        assert_eq!(how, Loaded::Trusted);
        assert_eq!(loaded, index);
        let (_, again) = open(dir.path());
        assert_eq!((again.refresh.read, again.refresh.reused), (0, 3));
    }

    #[test]
    fn the_same_tree_gives_the_same_index_json_byte_for_byte() {
        // Files written in opposite orders (so directory order and mtimes
        // differ), indexed by two processes' worth of state: one document.
        let files: Vec<(String, String)> = (0..30)
            .map(|i| {
                (
                    format!("src/m{i}/mod_{i}.rs"),
                    format!("pub struct Thing{i};\nimpl Thing{i} {{ pub fn run_{i}(&self) {{}} }}\n// zeta alpha {i}\n"),
                )
            })
            .chain([("README.md".to_string(), "# Tool\nalpha beta gamma\n".to_string())])
            .collect();
        let write = |order: &mut dyn Iterator<Item = &(String, String)>| {
            let dir = tempfile::tempdir().expect("temp");
            std::fs::create_dir_all(dir.path().join(".git")).expect("git");
            for (path, body) in order {
                let full = dir.path().join(path);
                std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
                std::fs::write(full, body).expect("write");
            }
            dir
        };
        let a = write(&mut files.iter());
        let b = write(&mut files.iter().rev());
        let (index_a, _) = open(a.path());
        let (index_b, _) = open(b.path());
        assert_eq!(index_a, index_b);
        let bytes_a = std::fs::read(a.path().join(PATH)).expect("index a");
        let bytes_b = std::fs::read(b.path().join(PATH)).expect("index b");
        assert!(bytes_a == bytes_b, "the two index.json differ");
        // Saved again unchanged: the same bytes.
        index_a.save(a.path()).expect("save");
        assert!(std::fs::read(a.path().join(PATH)).expect("again") == bytes_a);
    }

    #[test]
    fn a_tampered_index_is_not_believed_and_is_rebuilt() {
        let dir = repo();
        open(dir.path());
        let path = dir.path().join(PATH);
        let text = std::fs::read_to_string(&path).expect("index");
        // Claim README.md is about `secrets`, keeping its hash: a refresh
        // would otherwise reuse the entry as it stands.
        let forged = text.replacen("\"tool\":1", "\"secret\":1", 1);
        assert_ne!(forged, text);
        std::fs::write(&path, &forged).expect("tamper");
        let (index, how) = Index::load(dir.path());
        assert!(
            matches!(&how, Loaded::Distrusted(why) if why.contains("MAC does not check")),
            "{how:?}"
        );
        assert!(index.files.is_empty());
        let (index, opened) = open(dir.path());
        assert!(matches!(opened.loaded, Loaded::Distrusted(_)));
        assert_eq!(opened.refresh.read, 3, "rebuilt from the files");
        let readme = &index.files["README.md"];
        assert!(readme.terms.contains_key("tool") && !readme.terms.contains_key("secret"));
        assert_eq!(Index::load(dir.path()).1, Loaded::Trusted, "saved again");
        // Not JSON, another format: not believed either.
        std::fs::write(&path, "{broken").expect("damage");
        assert!(matches!(Index::load(dir.path()).1, Loaded::Distrusted(_)));
        let other = text.replacen("\"format\":1", "\"format\":0", 1);
        std::fs::write(&path, other).expect("damage");
        assert!(
            matches!(Index::load(dir.path()).1, Loaded::Distrusted(why) if why.contains("format 0"))
        );
    }

    #[test]
    fn nothing_is_written_or_read_through_a_symlink() {
        let dir = repo();
        let outside = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join(".zurdo")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".zurdo/pyxis")).expect("plant");
        let (index, opened) = open(dir.path());
        let e = opened.save_error.expect("refused");
        assert!(e.to_string().contains("is a symlink"), "{e}");
        assert_eq!(index.files.len(), 3, "the index is fresh anyway");
        assert_eq!(
            std::fs::read_dir(outside.path()).expect("ls").count(),
            0,
            "nothing written outside"
        );
        assert_eq!(Index::load(dir.path()).1, Loaded::Missing);
    }

    #[test]
    fn ignored_files_are_not_indexed_and_hidden_ones_are() {
        let dir = repo();
        std::fs::write(dir.path().join(".gitignore"), "target/\n*.log\n").expect("write");
        std::fs::create_dir_all(dir.path().join("target")).expect("mkdir");
        std::fs::write(dir.path().join("target/out.rs"), "fn built() {}\n").expect("write");
        std::fs::write(dir.path().join("run.log"), "log\n").expect("write");
        // Hidden files are the repository's too, but never .git/ or .zurdo/.
        std::fs::create_dir_all(dir.path().join(".github/workflows")).expect("mkdir");
        std::fs::write(dir.path().join(".github/workflows/ci.yml"), "on: push\n").expect("write");
        std::fs::write(dir.path().join(".git/config"), "[core]\n").expect("write");
        std::fs::create_dir_all(dir.path().join(".zurdo/lumen")).expect("mkdir");
        std::fs::write(dir.path().join(".zurdo/config.toml"), "").expect("write");
        // A source file in a hidden directory: Lumen does not read it, so
        // it has no definitions, and is not read again while unchanged.
        std::fs::write(dir.path().join(".github/check.js"), "function check() {}\n")
            .expect("write");
        let mut lumen = zurdo_lumen::Index::default();
        lumen.refresh(dir.path());
        let mut index = Index::default();
        index.refresh(dir.path(), &lumen);
        assert_eq!(
            index.files.keys().collect::<Vec<_>>(),
            [
                ".github/check.js",
                ".github/workflows/ci.yml",
                ".gitignore",
                "README.md",
                "src/config.rs",
                "src/lib.rs"
            ]
        );
        assert!(index.files[".github/check.js"].defs.is_empty());
        let again = index.refresh(dir.path(), &lumen);
        assert_eq!((again.read, again.reused), (0, 6));
    }
}
