//! The verdict surface: the files that decide how tests are found and
//! judged, which an agent under pressure edits instead of the code.
//!
//! A snapshot is taken at a task's first attempt (beside its frozen
//! baseline) and compared on every attempt. Each file is read for the
//! [`Parts`] that matter to a verdict and compared part by part, so the
//! edits a task needs stay free: a new dependency in `Cargo.toml` passes,
//! a changed `[[test]]` table does not; a new fixture in `conftest.py`
//! passes, a new `pytest_*` hook does not. Each changed part is a
//! [`Caught`] `verdict_surface_changed` naming the file, what changed and
//! what to restore.
//!
//! | file | what is compared |
//! | --- | --- |
//! | `Cargo.toml` | each `[[test]]`, `[[bench]]`, `[[bin]]`, `[[example]]` table (a new one only with a test switch); `[lib]` `test`, `doctest`, `bench`, `harness`, `path`; `[package]` `auto*`; `[profile.test]`; `[profile.dev]` `debug-assertions`, `overflow-checks`; `[workspace]` `exclude`, `default-members`, and no member dropped |
//! | `pytest.ini`, `.pytest.ini` | the whole file, key by key (its presence too: it outranks every other config) |
//! | `pyproject.toml` | `[tool.pytest.ini_options]`, `[tool.pytest]`, `[tool.coverage.report] fail_under` |
//! | `setup.cfg`, `tox.ini` | `[tool:pytest]`, `[pytest]`; `[coverage:report] fail_under` |
//! | `.coveragerc` | `[report] fail_under` |
//! | `conftest.py` | module-level `pytest_*` hooks (def, async def, decorated, assigned, imported), `import *`, `collect_ignore`, `collect_ignore_glob`, `pytest_plugins` |
//! | `package.json` | `scripts.test` and every script a hint runs, with their `pre`/`post` scripts and the scripts they run; the `jest` key |
//! | `Makefile`, `makefile`, `GNUmakefile` | for each goal a hint names (or the default goal): the recipes and prerequisites of it and of what it depends on, the variables they use, `SHELL`, `.SHELLFLAGS`, `.ONESHELL`, the `include` lines |
//! | `jest.config.*`, `vitest.config.*`, `vitest.workspace.*`, `.mocharc.*`, `.config/nextest.toml`, a nested `.cargo/config.toml` | the whole file |
//! | `vite.config.*` | its `test: { … }` block |
//! | `[verification] verdict_surface_extra` | the whole file |
//!
//! The walk that finds them skips `.git`, `.zurdo`, `node_modules`,
//! `__pycache__`, `site-packages`, `dist-packages`, a virtualenv's own
//! directories (`bin`, `lib`, `include`… beside a `pyvenv.cfg`; the rest of
//! a directory holding one is walked, so a planted `pyvenv.cfg` hides
//! nothing else) and cargo's `target` (beside a `Cargo.toml`, or tagged
//! `CACHEDIR.TAG`), never follows a directory symlink, goes [`MAX_DEPTH`] deep at most and stands
//! down past [`MAX_ENTRIES`] entries. It does not read `.gitignore`: pytest
//! loads an ignored `conftest.py` too. A surface file is read up to
//! [`MAX_FILE`] (a larger one is compared whole, by a hash of at most
//! [`MAX_WHOLE`] bytes and its size), only when it is a regular file or a
//! symlink to one inside the repository (anything else is compared as what
//! it is: `a symlink to …`, `a FIFO`).

mod cargo;
mod ini;
mod js;
mod make;
mod npm;
mod python;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use super::commands::{Commands, MakeGoals};
use super::{hash, Caught, CaughtKind};

/// Past this many directory entries the walk stands down (one warning).
pub const MAX_ENTRIES: usize = 50_000;

/// Directories deeper than this are not walked.
pub const MAX_DEPTH: usize = 48;

/// Surface files larger than this are compared whole, by a streamed hash.
pub const MAX_FILE: u64 = 1024 * 1024;

/// Of a surface file larger than [`MAX_FILE`], at most this much is hashed
/// (the rest is stood for by its size).
pub const MAX_WHOLE: u64 = 64 * 1024 * 1024;

/// Values longer than this are compared by digest and not quoted.
const MAX_QUOTED: usize = 120;

/// The label of a part that is a file's whole content (or its presence).
pub const WHOLE: &str = "the file";

/// One part of a surface file that decides a verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// SHA-256 of the part's normalized value.
    pub digest: String,
    /// The value, when it is one short line (the messages quote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True when a new part of this kind is fine and only a missing one
    /// counts (a workspace member).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub grows: bool,
}

impl Part {
    /// A part whose value is `value` (quoted in messages when short).
    pub fn of(value: &str) -> Part {
        let short = !value.contains('\n') && value.chars().count() <= MAX_QUOTED;
        Part {
            digest: hash::hex(value.as_bytes()),
            text: short.then(|| value.to_string()),
            grows: false,
        }
    }

    /// A part compared by digest only (a hook's body, a whole file).
    pub fn opaque(value: &[u8]) -> Part {
        Part {
            digest: hash::hex(value),
            text: None,
            grows: false,
        }
    }
}

/// The parts of one file, by label (`addopts`, `the [[test]] table`,
/// `hook pytest_collection_modifyitems`).
pub type Parts = BTreeMap<String, Part>;

/// Repository-relative path → the parts of each surface file that has any.
pub type Surface = BTreeMap<String, Parts>;

/// Why a snapshot was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StandDown {
    /// The walk saw more than [`MAX_ENTRIES`] entries.
    TooMany(usize),
}

/// Which kind of surface file a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cargo,
    PytestIni,
    Pyproject,
    SetupCfg,
    ToxIni,
    Coveragerc,
    Conftest,
    PackageJson,
    Makefile,
    Vite,
    Whole,
}

/// What decides which files and parts are the surface: the hints' npm
/// scripts and make goals, the extra globs, the exempted ones.
#[derive(Debug, Clone)]
pub struct Settings {
    scripts: BTreeSet<String>,
    goals: MakeGoals,
    extra: GlobSet,
    exempt: GlobSet,
    limit: usize,
}

fn globset(globs: &[String]) -> GlobSet {
    let mut builder = GlobSetBuilder::new();
    for g in globs {
        if let Ok(glob) = GlobBuilder::new(g).literal_separator(true).build() {
            builder.add(glob);
        }
    }
    builder.build().unwrap_or_else(|_| GlobSet::empty())
}

impl Settings {
    /// The surface of `commands`, with `[verification] verdict_surface_extra`
    /// and `surface_exempt` (checked globs).
    pub fn new(commands: &Commands, extra: &[String], exempt: &[String]) -> Settings {
        Settings {
            scripts: commands.npm_scripts(),
            goals: commands.make_goals(),
            extra: globset(extra),
            exempt: globset(exempt),
            limit: MAX_ENTRIES,
        }
    }

    /// The surface of the tree under `root` now.
    pub fn snapshot(&self, root: &Path) -> Result<Surface, StandDown> {
        let mut found = Vec::new();
        walk(root, self.limit, &mut |relative, name| {
            if let Some(kind) = self.kind(relative, name) {
                found.push((relative.to_string(), kind));
            }
        })?;
        Ok(self.read_all(root, found))
    }

    /// The surface without a walk (when the walk stood down after the
    /// task's snapshot): the files at `paths`, and the surface files
    /// directly in the root and in each of their directories (a new
    /// `pytest.ini` at the root, a new `conftest.py` beside a known one).
    pub fn snapshot_of<'a>(
        &self,
        root: &Path,
        paths: impl IntoIterator<Item = &'a String>,
    ) -> Surface {
        let mut candidates: BTreeSet<String> = BTreeSet::new();
        let mut dirs: BTreeSet<String> = BTreeSet::from([String::new()]);
        for p in paths {
            candidates.insert(p.clone());
            dirs.insert(
                p.rsplit_once('/')
                    .map_or(String::new(), |(d, _)| d.to_string()),
            );
        }
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
                continue;
            };
            for entry in entries.take(MAX_ENTRIES).flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    continue;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                candidates.insert(if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                });
            }
        }
        let found = candidates
            .into_iter()
            .filter_map(|p| {
                let name = p.rsplit('/').next().unwrap_or(&p).to_string();
                let kind = self.kind(&p, &name)?;
                Some((p, kind))
            })
            .collect();
        self.read_all(root, found)
    }

    fn read_all(&self, root: &Path, found: Vec<(String, Kind)>) -> Surface {
        found
            .into_iter()
            .filter_map(|(relative, kind)| {
                let parts = self.parts(root, &relative, kind);
                (!parts.is_empty()).then_some((relative, parts))
            })
            .collect()
    }

    fn kind(&self, relative: &str, name: &str) -> Option<Kind> {
        if self.exempt.is_match(relative) {
            return None;
        }
        let stem_is = |stem: &str| {
            name.strip_prefix(stem)
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|ext| !ext.is_empty() && !ext.contains('/'))
        };
        let kind = match name {
            "Cargo.toml" => Kind::Cargo,
            "pytest.ini" | ".pytest.ini" => Kind::PytestIni,
            "pyproject.toml" => Kind::Pyproject,
            "setup.cfg" => Kind::SetupCfg,
            "tox.ini" => Kind::ToxIni,
            ".coveragerc" => Kind::Coveragerc,
            "conftest.py" => Kind::Conftest,
            "package.json" => Kind::PackageJson,
            "Makefile" | "makefile" | "GNUmakefile" if !self.goals.is_empty() => Kind::Makefile,
            _ if stem_is("jest.config")
                || stem_is("vitest.config")
                || stem_is("vitest.workspace")
                || stem_is(".mocharc") =>
            {
                Kind::Whole
            }
            _ if stem_is("vite.config") => Kind::Vite,
            "nextest.toml" if relative.ends_with(".config/nextest.toml") => Kind::Whole,
            // The repository's own .cargo/config is frozen; a nested one is
            // read by a hint that runs cargo from below it.
            "config.toml" | "config"
                if relative.ends_with(&format!(".cargo/{name}"))
                    && relative.contains("/.cargo/") =>
            {
                Kind::Whole
            }
            _ if self.extra.is_match(relative) => Kind::Whole,
            _ => return None,
        };
        Some(if self.extra.is_match(relative) {
            Kind::Whole
        } else {
            kind
        })
    }

    fn parts(&self, root: &Path, relative: &str, kind: Kind) -> Parts {
        let text = match read(root, relative) {
            Read::Text(text) => text,
            Read::Whole(part) => return Parts::from([(WHOLE.to_string(), part)]),
            Read::Gone => return Parts::new(),
        };
        match kind {
            Kind::Cargo => cargo::parts(&text),
            Kind::PytestIni => python::pytest_ini(&text),
            Kind::Pyproject => python::pyproject(&text),
            Kind::SetupCfg => python::setup_cfg(&text),
            Kind::ToxIni => python::tox_ini(&text),
            Kind::Coveragerc => python::coveragerc(&text),
            Kind::Conftest => python::conftest(&text),
            Kind::PackageJson => npm::parts(&text, &self.scripts),
            Kind::Makefile => make::parts(&text, &self.goals),
            Kind::Vite => js::vite(&text),
            Kind::Whole => Parts::from([(WHOLE.to_string(), Part::opaque(text.as_bytes()))]),
        }
    }
}

/// A surface file as read.
enum Read {
    /// Its text.
    Text(String),
    /// Not read in parts (too large, not UTF-8, not a regular file inside
    /// the repository): compared whole.
    Whole(Part),
    /// Vanished since the walk.
    Gone,
}

/// Reads the surface file at `relative`: bounded, regular files only; a
/// symlink is followed when it stays inside the repository.
fn read(root: &Path, relative: &str) -> Read {
    let path = root.join(relative);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Read::Gone;
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&path)
            .map(|t| t.display().to_string())
            .unwrap_or_default();
        let inside = std::fs::canonicalize(&path)
            .ok()
            .filter(|real| real.starts_with(root) && real.is_file());
        if inside.is_none() {
            return Read::Whole(Part::of(&format!("a symlink to {target}")));
        }
    } else if !meta.is_file() {
        return Read::Whole(Part::of(zurdo_base::files::kind_of(&meta)));
    }
    match zurdo_base::files::read_bounded(&path, MAX_FILE) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Read::Text(text),
            Err(e) => Read::Whole(Part::opaque(e.as_bytes())),
        },
        Err(zurdo_base::files::ReadError::TooLarge { .. }) => {
            match hash::file_capped(&path, MAX_WHOLE) {
                Ok(digest) => Read::Whole(Part {
                    digest,
                    text: None,
                    grows: false,
                }),
                Err(e) => Read::Whole(Part::of(&e.to_string())),
            }
        }
        Err(e) if e.is_not_found() => Read::Gone,
        Err(e) => Read::Whole(Part::of(&e.to_string())),
    }
}

/// Walks the tree under `root`, calling `visit(relative, name)` for every
/// file (symlinks included, directories not followed through one); more
/// than `limit` entries stand it down.
fn walk(root: &Path, limit: usize, visit: &mut dyn FnMut(&str, &str)) -> Result<(), StandDown> {
    let mut seen = 0usize;
    let mut stack: Vec<(String, usize)> = vec![(String::new(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let full = if dir.is_empty() {
            root.to_path_buf()
        } else {
            root.join(&dir)
        };
        let Ok(entries) = std::fs::read_dir(&full) else {
            continue;
        };
        let mut names: Vec<(String, bool)> = Vec::new();
        for entry in entries.flatten() {
            seen += 1;
            if seen > limit {
                return Err(StandDown::TooMany(seen));
            }
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            names.push((entry.file_name().to_string_lossy().into_owned(), is_dir));
        }
        names.sort();
        let has = |name: &str| names.iter().any(|(n, _)| n == name);
        let beside_cargo = has("Cargo.toml");
        // A virtualenv: its own directories are not walked, its other
        // files and directories are (a `pyvenv.cfg` planted beside a
        // `conftest.py` does not hide it).
        let venv = has("pyvenv.cfg");
        for (name, is_dir) in names.iter().rev() {
            let relative = if dir.is_empty() {
                name.clone()
            } else {
                format!("{dir}/{name}")
            };
            if !is_dir {
                visit(&relative, name);
                continue;
            }
            if depth + 1 > MAX_DEPTH
                || (venv && VENV_DIRS.contains(&name.as_str()))
                || skipped(&full.join(name), name, beside_cargo)
            {
                continue;
            }
            stack.push((relative, depth + 1));
        }
    }
    Ok(())
}

/// A virtualenv's own directories (beside its `pyvenv.cfg`).
const VENV_DIRS: [&str; 9] = [
    "bin", "Scripts", "include", "Include", "lib", "lib64", "Lib", "share", "etc",
];

/// Directories no test runner reads a config from: version control and
/// zurdo's state, installed packages, bytecode, cargo's build output.
fn skipped(dir: &Path, name: &str, beside_cargo: bool) -> bool {
    matches!(
        name,
        ".git" | ".zurdo" | "node_modules" | "__pycache__" | "site-packages" | "dist-packages"
    ) || (name == "target" && (beside_cargo || dir.join("CACHEDIR.TAG").exists()))
}

/// What changed between the task's snapshot `base` and `now`, one
/// [`Caught`] per changed part (one per removed file).
pub fn changes(base: &Surface, now: &Surface) -> Vec<Caught> {
    let mut out = Vec::new();
    let paths: BTreeSet<&String> = base.keys().chain(now.keys()).collect();
    for path in paths {
        match (base.get(path), now.get(path)) {
            (Some(before), None) => out.push(removed_file(path, before)),
            (before, Some(after)) => {
                let empty = Parts::new();
                let before = before.unwrap_or(&empty);
                let labels: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
                for label in labels {
                    if let Some(c) = part_change(path, label, before.get(label), after.get(label)) {
                        out.push(c);
                    }
                }
            }
            (None, None) => {}
        }
    }
    out
}

fn caught(path: &str, detail: String, undo: String) -> Caught {
    Caught::new(CaughtKind::VerdictSurfaceChanged, path, detail, undo)
}

fn removed_file(path: &str, before: &Parts) -> Caught {
    let held: Vec<&str> = before
        .keys()
        .map(String::as_str)
        .filter(|l| *l != WHOLE)
        .collect();
    let detail = if held.is_empty() {
        "the file was removed".to_string()
    } else {
        format!("the file was removed (it held {})", held.join(", "))
    };
    caught(
        path,
        detail,
        format!("restore {path} as it was when the task started"),
    )
}

fn quoted(part: &Part) -> Option<String> {
    part.text.as_ref().map(|t| format!("\"{t}\""))
}

fn part_change(
    path: &str,
    label: &str,
    before: Option<&Part>,
    after: Option<&Part>,
) -> Option<Caught> {
    let whole = label == WHOLE;
    let (detail, undo) = match (before, after) {
        (Some(b), Some(a)) if b.digest == a.digest => return None,
        (Some(b), Some(a)) => {
            let detail = match (quoted(b), quoted(a)) {
                (Some(b), Some(a)) if !whole => format!("{label} changed from {b} to {a}"),
                _ => format!("{label} changed"),
            };
            let undo = match quoted(b) {
                Some(b) if !whole => format!("set {label} in {path} back to {b}"),
                _ if whole => format!("restore {path} as it was when the task started"),
                _ => format!("restore {label} in {path} as it was when the task started"),
            };
            (detail, undo)
        }
        (None, Some(a)) if a.grows => return None,
        (None, Some(_)) if whole => ("the file was added".to_string(), format!("remove {path}")),
        (None, Some(a)) => (
            match quoted(a) {
                Some(a) => format!("{label} added: {a}"),
                None => format!("{label} added"),
            },
            format!("remove {label} from {path}"),
        ),
        (Some(_), None) if whole => (
            "the file was removed".to_string(),
            format!("restore {path} as it was when the task started"),
        ),
        (Some(b), None) => (
            format!("{label} removed"),
            match quoted(b) {
                Some(b) => format!("put {label} back in {path}: {b}"),
                None => format!("put {label} back in {path} as it was when the task started"),
            },
        ),
        (None, None) => return None,
    };
    Some(caught(path, detail, undo))
}

/// Normalizes a JSON value to text with object keys sorted at every level
/// (serde_json here keeps insertion order).
pub(crate) fn canonical_json(value: &serde_json::Value) -> String {
    fn sort(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(map) => {
                let sorted: BTreeMap<&String, serde_json::Value> =
                    map.iter().map(|(k, v)| (k, sort(v))).collect();
                serde_json::Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.iter().map(sort).collect())
            }
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

/// A part for a TOML or JSON value: a string as it is, anything else as
/// canonical JSON.
pub(crate) fn value_part(value: &serde_json::Value) -> Part {
    match value {
        serde_json::Value::String(s) => Part::of(s),
        other => Part::of(&canonical_json(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(commands: &[&str]) -> Settings {
        Settings::new(
            &Commands::new(commands.iter().map(|c| c.to_string())),
            &["ci/runner.cfg".to_string()],
            &["web/package.json".to_string()],
        )
    }

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp");
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        dir
    }

    #[test]
    fn the_walk_finds_the_surface_and_skips_what_no_runner_reads() {
        let dir = tree(&[
            (
                "Cargo.toml",
                "[package]\nname = \"a\"\n[lib]\ntest = false\n",
            ),
            ("target/debug/conftest.py", "def pytest_x(): pass\n"),
            (
                "node_modules/p/package.json",
                "{\"scripts\": {\"test\": \"x\"}}",
            ),
            (".venv/pyvenv.cfg", ""),
            (".venv/lib/conftest.py", "def pytest_x(): pass\n"),
            ("tests/pyvenv.cfg", ""),
            ("tests/conftest.py", "def pytest_planted(): pass\n"),
            ("tests/unit/conftest.py", "def pytest_deeper(): pass\n"),
            (
                "conda/lib/python3.12/site-packages/conftest.py",
                "def pytest_x(): pass\n",
            ),
            ("py/target/conftest.py", "def pytest_y(): pass\n"),
            ("web/package.json", "{\"scripts\": {\"test\": \"x\"}}"),
            ("app/package.json", "{\"scripts\": {\"test\": \"jest\"}}"),
            ("ci/runner.cfg", "anything"),
            ("jest.config.js", "module.exports = {}"),
            ("sub/.cargo/config.toml", "[alias]\n"),
            (".cargo/config.toml", "[alias]\n"),
            ("Makefile", "test:\n\tpytest\n"),
            ("README.md", "no"),
        ]);
        let s = settings(&["cargo test"])
            .snapshot(dir.path())
            .expect("walk");
        let paths: Vec<&str> = s.keys().map(String::as_str).collect();
        assert_eq!(
            paths,
            [
                "Cargo.toml",
                "app/package.json",
                "ci/runner.cfg",
                "jest.config.js",
                "py/target/conftest.py",
                "sub/.cargo/config.toml",
                "tests/conftest.py",
                "tests/unit/conftest.py",
            ],
            "no make goal in the hints: the Makefile is not surface"
        );
        let s = settings(&["make test"]).snapshot(dir.path()).expect("walk");
        assert!(s.contains_key("Makefile"));
    }

    #[test]
    fn changes_are_named_with_what_to_undo() {
        let mut base = Surface::new();
        base.insert(
            "pytest.ini".into(),
            Parts::from([
                ("addopts".to_string(), Part::of("-q")),
                (WHOLE.to_string(), Part::of("present")),
            ]),
        );
        base.insert(
            "conftest.py".into(),
            Parts::from([("hook pytest_configure".to_string(), Part::opaque(b"x"))]),
        );
        let mut now = Surface::new();
        now.insert(
            "pytest.ini".into(),
            Parts::from([
                ("addopts".to_string(), Part::of("-q -k 'not slow'")),
                (WHOLE.to_string(), Part::of("present")),
                ("markers".to_string(), Part::of("slow")),
            ]),
        );
        now.insert(
            "Cargo.toml".into(),
            Parts::from([(
                "[workspace] member \"b\"".to_string(),
                Part {
                    grows: true,
                    ..Part::of("listed")
                },
            )]),
        );
        let found: Vec<(String, String, String)> = changes(&base, &now)
            .into_iter()
            .map(|c| {
                assert_eq!(c.reason, CaughtKind::VerdictSurfaceChanged);
                (c.subject, c.detail, c.undo)
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "conftest.py".to_string(),
                    "the file was removed (it held hook pytest_configure)".to_string(),
                    "restore conftest.py as it was when the task started".to_string()
                ),
                (
                    "pytest.ini".to_string(),
                    "addopts changed from \"-q\" to \"-q -k 'not slow'\"".to_string(),
                    "set addopts in pytest.ini back to \"-q\"".to_string()
                ),
                (
                    "pytest.ini".to_string(),
                    "markers added: \"slow\"".to_string(),
                    "remove markers from pytest.ini".to_string()
                ),
            ],
            "a new workspace member is fine"
        );
    }

    #[test]
    fn unreadable_surface_files_are_compared_whole() {
        let dir = tree(&[("tests/conftest.py", "")]);
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("conftest.py")).expect("link");
        std::fs::create_dir(dir.path().join("pytest.ini")).expect("a directory");
        let s = settings(&[]).snapshot(dir.path()).expect("walk");
        assert_eq!(
            s["conftest.py"][WHOLE].text.as_deref(),
            Some("a symlink to /etc/hostname")
        );
        assert!(
            !s.contains_key("tests/conftest.py"),
            "no hooks: nothing to compare"
        );
        assert!(
            !s.contains_key("pytest.ini"),
            "a directory is walked, not read"
        );
    }

    #[test]
    fn too_many_entries_stand_down() {
        let dir = tree(&[("a/b/c", ""), ("a/d", ""), ("e", "")]);
        let mut s = settings(&[]);
        s.limit = 5;
        assert_eq!(s.snapshot(dir.path()), Ok(Surface::new()), "a, b, c, d, e");
        s.limit = 4;
        assert_eq!(s.snapshot(dir.path()), Err(StandDown::TooMany(5)));
        // Without the walk: the known files, and new ones beside them or at
        // the root.
        std::fs::write(dir.path().join("a/b/conftest.py"), "def pytest_a(): pass\n")
            .expect("write");
        let base = s.snapshot_of(dir.path(), ["a/b/conftest.py".to_string()].iter());
        assert_eq!(base.keys().collect::<Vec<_>>(), ["a/b/conftest.py"]);
        std::fs::write(dir.path().join("pytest.ini"), "[pytest]\n").expect("write");
        std::fs::write(
            dir.path().join("a/b/package.json"),
            "{\"scripts\": {\"test\": \"x\"}}",
        )
        .expect("write");
        std::fs::write(dir.path().join("a/conftest.py"), "def pytest_b(): pass\n").expect("write");
        let now = s.snapshot_of(dir.path(), base.keys());
        assert_eq!(
            now.keys().collect::<Vec<_>>(),
            ["a/b/conftest.py", "a/b/package.json", "pytest.ini"],
            "a/conftest.py is neither known nor beside a known file"
        );
    }
}
