//! The environment surface: what the criteria's commands load besides the
//! repository's code, which an agent can plant instead of fixing the code.
//! Recorded at run start (beside the toolchain, as `environment` in
//! prd.json, the record zurdo keeps in memory being the authority) and
//! compared before every verification pass:
//!
//! - **tools inside the repository**: a command word that resolves to a
//!   file inside the repository (`.venv/bin/pytest` by path, a repository
//!   `bin/` on `PATH`) and changed, or that now resolves inside the
//!   repository to another file than at run start (a shim shadowing the
//!   real tool); a tool a package runner finds in a repository-local bin
//!   (`npx jest` → `node_modules/.bin/jest`, `uv run pytest` →
//!   `.venv/bin/pytest`) that changed; a module `python -m X` imported from
//!   outside the repository at run start, now shadowed by an `X.py` or an
//!   `X/` package at the root;
//! - **startup hooks and runner configs**, inside the repository or not:
//!   `sitecustomize.py` and `usercustomize.py` wherever python looks for
//!   them (the site-packages and `sys.path` of the python the hints run,
//!   asked once at run start; `PYTHONPATH`; the repository's virtualenvs),
//!   the `import` lines of `.pth` files in those site-packages,
//!   `$CARGO_HOME/config.toml` (and `config`), `.cargo/config.toml` in the
//!   directories above the repository, the `node-options`, `script-shell`,
//!   `shell` and `ignore-scripts` lines of the repository's and the home
//!   directory's `.npmrc`, and the files `BASH_ENV` and `ENV` name when the
//!   allowlisted environment carries them.
//!
//! Each such change is a [`Caught`] `environment_planted`. A binary
//! outside the repository that changed still only warns (`toolchain
//! changed`): a rustup update looks the same as a planted shim. A hook or
//! config that was removed is not a plant; a tool first installed into a
//! repository-local bin during the run is not compared (an install is
//! ordinary work).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use super::commands::{basename, is_python_word, Commands, Via};
use super::toolchain::{self, Tool};
use super::{hash, Caught, CaughtKind};

/// How long the run-start python probe may take.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The most python interpreters probed at run start.
const MAX_PYTHONS: usize = 3;

/// The most entries read from one site-packages directory.
const MAX_SITE_ENTRIES: usize = 10_000;

/// Startup hooks and configs larger than this are hashed whole, streamed.
const MAX_CONFIG: u64 = 1024 * 1024;

/// The `.npmrc` keys that change how a script or a test runs.
const NPMRC_KEYS: [&str; 4] = ["node-options", "script-shell", "shell", "ignore-scripts"];

/// `.pth` files installers write whose `import` lines are theirs.
const INSTALLER_PTH: [&str; 2] = ["__editable__", "distutils-precedence.pth"];

/// A startup hook or runner config, as at run start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Watched {
    /// What it is to the verdicts (`python startup hook`, `cargo config`).
    pub role: String,
    /// Its absolute path.
    pub path: String,
    /// SHA-256 of what of it is watched (`None`: it did not exist).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

/// A tool a package runner finds in a repository-local bin, as at run start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Local {
    /// The tool's name (`jest`).
    pub word: String,
    /// The bin directory, repository-relative (`node_modules/.bin`).
    pub dir: String,
    /// Where it resolved (symlinks followed); `None`: not installed then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// SHA-256 of that file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// A module `python -m` imported from outside the repository at run start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    /// The top-level module.
    pub name: String,
    /// Where python found it.
    pub origin: String,
}

/// The environment surface recorded at run start.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvSurface {
    /// Startup hooks and runner configs, present or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<Watched>,
    /// site-packages directories whose `.pth` files python runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub site_dirs: Vec<String>,
    /// Tools in repository-local bins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local: Vec<Local>,
    /// Modules `python -m` runs from outside the repository.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<Module>,
}

/// What the environment surface is made of for one run: the repository,
/// the hints' allowlisted environment and what the hints run.
#[derive(Debug, Clone)]
pub struct Environment {
    root: PathBuf,
    env: Vec<(String, String)>,
    tool_words: BTreeSet<String>,
    local: BTreeSet<(Via, String)>,
    modules: BTreeSet<String>,
    python: bool,
    exempt: GlobSet,
}

impl Environment {
    /// The surface of `commands` run at `root` (canonical) with the
    /// allowlisted `env`; `exempt` are `[verification] surface_exempt`.
    pub fn new(
        root: &Path,
        env: Vec<(String, String)>,
        commands: &Commands,
        exempt: &[String],
    ) -> Environment {
        let mut builder = GlobSetBuilder::new();
        for g in exempt {
            if let Ok(glob) = GlobBuilder::new(g).literal_separator(true).build() {
                builder.add(glob);
            }
        }
        Environment {
            root: root.to_path_buf(),
            env,
            tool_words: commands.tool_words(),
            local: commands.local_tools(),
            modules: commands.python_modules(),
            python: commands.uses_python(),
            exempt: builder.build().unwrap_or_else(|_| GlobSet::empty()),
        }
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    fn path_var(&self) -> &str {
        self.var("PATH").unwrap_or("")
    }

    /// The repository-relative form of `path` when it is inside the
    /// repository (through symlinks in its directories, not its own).
    fn relative(&self, path: &Path) -> Option<String> {
        let real = match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) => std::fs::canonicalize(dir).ok()?.join(name),
            _ => std::fs::canonicalize(path).ok()?,
        };
        real.strip_prefix(&self.root)
            .ok()
            .map(|r| r.display().to_string())
    }

    /// How to name `path` in a message: repository-relative inside it.
    fn shown(&self, path: &Path) -> String {
        self.relative(path)
            .unwrap_or_else(|| path.display().to_string())
    }

    fn exempt(&self, path: &Path) -> bool {
        self.relative(path)
            .is_some_and(|r| self.exempt.is_match(&r))
            || std::fs::canonicalize(path)
                .ok()
                .and_then(|p| p.strip_prefix(&self.root).ok().map(Path::to_path_buf))
                .is_some_and(|r| self.exempt.is_match(&r))
    }

    /// Records the surface at run start (when a hint runs python, each
    /// python it runs is asked once where it looks for startup hooks).
    pub fn record(&self) -> EnvSurface {
        let probes: Vec<Probe> = if self.python {
            self.pythons()
                .iter()
                .filter_map(|python| probe(python, &self.root, &self.env, &self.modules))
                .collect()
        } else {
            Vec::new()
        };
        let mut site_dirs: BTreeSet<PathBuf> = probes
            .iter()
            .flat_map(|p| &p.site)
            .map(PathBuf::from)
            .collect();
        site_dirs.extend(self.repo_venv_sites());
        let mut hook_dirs: BTreeSet<PathBuf> = site_dirs.clone();
        hook_dirs.extend(probes.iter().flat_map(|p| &p.path).map(PathBuf::from));
        if let Some(pythonpath) = self.var("PYTHONPATH") {
            hook_dirs.extend(std::env::split_paths(pythonpath).map(|d| self.root.join(d)));
        }
        let mut files = Vec::new();
        for dir in &hook_dirs {
            for name in ["sitecustomize.py", "usercustomize.py"] {
                files.push(watch("python startup hook", &dir.join(name)));
            }
        }
        for dir in &site_dirs {
            for pth in pth_files(dir) {
                files.push(Watched {
                    role: "python path file".into(),
                    digest: pth_digest(&pth),
                    path: pth.display().to_string(),
                });
            }
        }
        files.extend(self.configs().iter().map(|(role, path)| watch(role, path)));
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files.dedup_by(|a, b| a.path == b.path);
        let local = self
            .local
            .iter()
            .map(|(via, word)| {
                let found = self.local_tool(*via, word);
                Local {
                    word: word.clone(),
                    dir: via.dir().to_string(),
                    sha256: found.as_ref().and_then(|p| hash::file(p).ok()),
                    path: found.map(|p| p.display().to_string()),
                }
            })
            .collect();
        let mut modules: BTreeMap<String, String> = BTreeMap::new();
        for p in &probes {
            for (name, origin) in &p.modules {
                let Some(origin) = origin else { continue };
                if self.relative(Path::new(origin)).is_none() {
                    modules
                        .entry(name.clone())
                        .or_insert_with(|| origin.clone());
                }
            }
        }
        EnvSurface {
            files,
            site_dirs: site_dirs.iter().map(|d| d.display().to_string()).collect(),
            local,
            modules: modules
                .into_iter()
                .map(|(name, origin)| Module { name, origin })
                .collect(),
        }
    }

    /// The interpreters the hints' python words run: python words found on
    /// `PATH` or by path, the interpreter in the `#!` line of python tools
    /// (`pytest`), the project's `.venv/bin/python` for `uv run` and the
    /// like; `python3` on `PATH` when none is found. Paths as found, not
    /// through their symlinks (a virtualenv's python is a symlink whose
    /// own location decides its site-packages).
    fn pythons(&self) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = Vec::new();
        let add = |found: &mut Vec<PathBuf>, p: PathBuf| {
            if !found.contains(&p) {
                found.push(p);
            }
        };
        for word in &self.tool_words {
            let name = basename(word);
            if !is_python_word(name) {
                continue;
            }
            let Some(path) = toolchain::find(word, self.path_var(), &self.root) else {
                continue;
            };
            if name.starts_with("python") || name.starts_with("pypy") {
                add(&mut found, path);
            } else if let Some(python) = shebang_python(&path, self.path_var(), &self.root) {
                add(&mut found, python);
            }
        }
        if self.local.iter().any(|(via, _)| *via == Via::Venv) {
            let venv = self.root.join(".venv/bin/python");
            if venv.is_file() {
                add(&mut found, venv);
            }
        }
        if found.is_empty() {
            if let Some(p) = toolchain::find("python3", self.path_var(), &self.root) {
                add(&mut found, p);
            }
        }
        found.truncate(MAX_PYTHONS);
        found
    }

    /// The site-packages of the repository's virtualenvs (a directory at
    /// the root holding `pyvenv.cfg`).
    fn repo_venv_sites(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return out;
        };
        let mut venvs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|d| d.join("pyvenv.cfg").is_file())
            .collect();
        venvs.sort();
        for venv in venvs {
            for lib in ["lib", "lib64"] {
                let Ok(entries) = std::fs::read_dir(venv.join(lib)) else {
                    continue;
                };
                let mut sites: Vec<PathBuf> = entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
                    .map(|e| e.path().join("site-packages"))
                    .filter(|p| p.is_dir())
                    .collect();
                sites.sort();
                out.extend(sites);
            }
        }
        out
    }

    /// Runner configs and shell startup files: cargo's (home and the
    /// directories above the repository), npm's, `BASH_ENV` and `ENV`.
    fn configs(&self) -> Vec<(String, PathBuf)> {
        let mut out = Vec::new();
        let home = self.var("HOME").map(PathBuf::from);
        let cargo_home = self
            .var("CARGO_HOME")
            .map(|h| self.root.join(h))
            .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
        if let Some(dir) = cargo_home {
            for name in ["config.toml", "config"] {
                out.push(("cargo config".to_string(), dir.join(name)));
            }
        }
        for dir in self.root.ancestors().skip(1) {
            for name in ["config.toml", "config"] {
                out.push((
                    "cargo config above the repository".to_string(),
                    dir.join(".cargo").join(name),
                ));
            }
        }
        out.push(("npm config".to_string(), self.root.join(".npmrc")));
        if let Some(home) = &home {
            out.push(("npm config".to_string(), home.join(".npmrc")));
        }
        for var in ["BASH_ENV", "ENV"] {
            if let Some(file) = self.var(var) {
                out.push((format!("the {var} file"), self.root.join(file)));
            }
        }
        out
    }

    /// `<root>/<dir>/<word>`, when it is a file.
    fn local_tool(&self, via: Via, word: &str) -> Option<PathBuf> {
        let found = self.root.join(via.dir()).join(word);
        let real = std::fs::canonicalize(&found).ok()?;
        real.is_file().then_some(real)
    }

    /// What was planted since `recorded` (the run-start surface and
    /// toolchain), and the toolchain's warnings: tools outside the
    /// repository that moved or changed.
    pub fn changes(&self, recorded: &EnvSurface, toolchain: &[Tool]) -> (Vec<Caught>, Vec<String>) {
        let (mut caught, warnings) = self.tool_changes(toolchain);
        caught.extend(self.local_changes(recorded));
        caught.extend(self.module_changes(recorded));
        caught.extend(self.file_changes(recorded));
        (caught, warnings)
    }

    /// Tools on `PATH` or by path: inside the repository a change is a
    /// plant, outside it a warning.
    fn tool_changes(&self, recorded: &[Tool]) -> (Vec<Caught>, Vec<String>) {
        let mut caught = Vec::new();
        let mut warnings = Vec::new();
        for word in &self.tool_words {
            let before = recorded.iter().find(|t| t.name == *word);
            let found = toolchain::find(word, self.path_var(), &self.root);
            let now = toolchain::resolve_one(word, self.path_var(), &self.root);
            if now.as_ref() == before {
                continue;
            }
            let planted = match (&found, &now) {
                (Some(found), Some(now)) if !self.exempt(found) => {
                    self.planted_tool(word, found, now, before)
                }
                _ => None,
            };
            match planted {
                Some(c) => caught.push(c),
                None => warnings.extend(before.and_then(|b| toolchain::change(b, now.as_ref()))),
            }
        }
        (caught, warnings)
    }

    /// A tool found (`found`) or resolved (`now.path`) inside the
    /// repository that differs from `before`. Its content changing where it
    /// resolves is a plant when that file is inside the repository; a
    /// repository symlink to an outside binary that changed is the
    /// toolchain's warning (an update), but one that now points elsewhere
    /// is a plant.
    fn planted_tool(
        &self,
        word: &str,
        found: &Path,
        now: &Tool,
        before: Option<&Tool>,
    ) -> Option<Caught> {
        let real_inside = self.relative(Path::new(&now.path)).is_some();
        if !real_inside && self.relative(found).is_none() {
            return None;
        }
        let at = self.shown(found);
        let real = self.shown(Path::new(&now.path));
        let via = if real == at {
            at.clone()
        } else {
            format!("{at} → {real}")
        };
        let (detail, undo) = match before {
            Some(b) if b.path == now.path && !real_inside => return None,
            Some(b) if b.path == now.path => (
                format!("`{word}` ({via}) changed since the run started"),
                format!(
                    "restore {real} as it was when the run started (reinstall the tool, or check it out again); fix the code, not the tool"
                ),
            ),
            Some(b) => (
                format!(
                    "`{word}` now resolves to {via} inside the repository (at run start: {})",
                    b.path
                ),
                if word.contains('/') {
                    format!(
                        "restore {at} as it was when the run started (it resolved to {})",
                        b.path
                    )
                } else {
                    format!("remove {at}: nothing in the repository may stand in for `{word}`")
                },
            ),
            // A path the hints name that did not exist at run start is the
            // task's to write.
            None if word.contains('/') => return None,
            None => (
                format!("`{word}` now resolves to {via} inside the repository (at run start it resolved nowhere)"),
                format!("remove {at}: nothing in the repository may stand in for `{word}`"),
            ),
        };
        Some(Caught::new(
            CaughtKind::EnvironmentPlanted,
            at,
            detail,
            undo,
        ))
    }

    fn local_changes(&self, recorded: &EnvSurface) -> Vec<Caught> {
        let mut out = Vec::new();
        for local in &recorded.local {
            let (Some(path), Some(sha)) = (&local.path, &local.sha256) else {
                continue;
            };
            let Some(via) = [Via::NodeBin, Via::Venv]
                .into_iter()
                .find(|v| v.dir() == local.dir)
            else {
                continue;
            };
            let Some(now) = self.local_tool(via, &local.word) else {
                continue;
            };
            let same =
                now.display().to_string() == *path && hash::file(&now).is_ok_and(|h| h == *sha);
            let found = self.root.join(&local.dir).join(&local.word);
            if same || self.exempt(&found) {
                continue;
            }
            let at = self.shown(&found);
            let real = self.shown(&now);
            out.push(Caught::new(
                CaughtKind::EnvironmentPlanted,
                at.clone(),
                format!(
                    "`{}` run through {} ({at} → {real}) changed since the run started",
                    local.word,
                    via.name()
                ),
                format!("restore {real} as it was when the run started (reinstall the package); fix the code, not the tool"),
            ));
        }
        out
    }

    fn module_changes(&self, recorded: &EnvSurface) -> Vec<Caught> {
        let mut out = Vec::new();
        for module in &recorded.modules {
            let name = &module.name;
            let mut shadows: Vec<String> = [
                format!("{name}.py"),
                format!("{name}.pyc"),
                format!("{name}/__init__.py"),
                format!("{name}/__init__.pyc"),
            ]
            .into_iter()
            .filter(|p| self.root.join(p).is_file())
            .collect();
            if let Ok(entries) = std::fs::read_dir(&self.root) {
                shadows.extend(
                    entries
                        .flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .filter(|n| n.starts_with(&format!("{name}.")) && n.ends_with(".so")),
                );
            }
            shadows.retain(|s| !self.exempt.is_match(s));
            shadows.sort();
            for shadow in shadows {
                out.push(Caught::new(
                    CaughtKind::EnvironmentPlanted,
                    shadow.clone(),
                    format!(
                        "`python -m {name}` would now import {shadow} from the repository instead of {}",
                        module.origin
                    ),
                    format!("remove {shadow}: nothing in the repository may stand in for the `{name}` module"),
                ));
            }
        }
        out
    }

    fn file_changes(&self, recorded: &EnvSurface) -> Vec<Caught> {
        let mut out = Vec::new();
        let mut known: BTreeSet<&str> = BTreeSet::new();
        for w in &recorded.files {
            known.insert(&w.path);
            let path = Path::new(&w.path);
            let now = if w.role == "python path file" {
                pth_digest(path)
            } else {
                watch(&w.role, path).digest
            };
            if now.is_none() || now == w.digest || self.exempt(path) {
                continue;
            }
            out.push(self.planted_file(&w.role, path, w.digest.is_none()));
        }
        // New `.pth` files that run code at startup.
        for dir in &recorded.site_dirs {
            for pth in pth_files(Path::new(dir)) {
                let shown = pth.display().to_string();
                if known.contains(shown.as_str()) || self.exempt(&pth) {
                    continue;
                }
                let name = pth
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if INSTALLER_PTH.iter().any(|i| name.starts_with(i)) {
                    continue;
                }
                if pth_digest(&pth) != Some(hash::hex(b"")) {
                    out.push(self.planted_file("python path file with import lines", &pth, true));
                }
            }
        }
        out
    }

    fn planted_file(&self, role: &str, path: &Path, added: bool) -> Caught {
        let at = self.shown(path);
        let (detail, undo) = if added {
            (
                format!("{role} added: python, a runner or the shell loads it before any test"),
                format!("remove {at}"),
            )
        } else {
            (
                format!("{role} changed since the run started"),
                format!("restore {at} as it was when the run started"),
            )
        };
        Caught::new(CaughtKind::EnvironmentPlanted, at, detail, undo)
    }
}

/// `role` at `path`, hashed: an `.npmrc` by its watched keys, anything
/// else whole (a file that is not regular is hashed as its kind).
fn watch(role: &str, path: &Path) -> Watched {
    let digest = match zurdo_base::files::read_bounded(path, MAX_CONFIG) {
        // An .npmrc without the watched keys is as good as none.
        Ok(bytes) if role == "npm config" => Some(npmrc_lines(&bytes))
            .filter(|l| !l.is_empty())
            .map(|l| hash::hex(l.as_bytes())),
        Ok(bytes) => Some(hash::hex(&bytes)),
        Err(e) if e.is_not_found() => None,
        Err(zurdo_base::files::ReadError::TooLarge { .. }) => {
            hash::file_capped(path, MAX_CONFIG).ok()
        }
        Err(e) => Some(hash::hex(e.to_string().as_bytes())),
    };
    Watched {
        role: role.to_string(),
        path: path.display().to_string(),
        digest,
    }
}

/// The `.npmrc` lines setting [`NPMRC_KEYS`], normalized (never the rest:
/// an `.npmrc` holds tokens).
fn npmrc_lines(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('=')?;
            let k = k.trim().to_ascii_lowercase().replace('_', "-");
            NPMRC_KEYS
                .contains(&k.as_str())
                .then(|| format!("{k}={}", v.trim()))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `.pth` files of a site-packages directory (at most
/// [`MAX_SITE_ENTRIES`] entries read), sorted.
fn pth_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .take(MAX_SITE_ENTRIES)
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".pth"))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// SHA-256 of a `.pth` file's `import` lines (the lines python runs at
/// startup; the others only add directories to `sys.path`).
fn pth_digest(path: &Path) -> Option<String> {
    match zurdo_base::files::read_bounded(path, MAX_CONFIG) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let imports: Vec<&str> = text
                .lines()
                .filter(|l| l.starts_with("import ") || l.starts_with("import\t"))
                .collect();
            Some(hash::hex(imports.join("\n").as_bytes()))
        }
        Err(e) if e.is_not_found() => None,
        Err(e) => Some(hash::hex(e.to_string().as_bytes())),
    }
}

/// The python in the `#!` line of `script` (`#!/usr/bin/env python3` found
/// on `path_var`).
fn shebang_python(script: &Path, path_var: &str, root: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(script)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 256];
    let n = file.read(&mut head).ok()?;
    let line = std::str::from_utf8(&head[..n]).ok()?.lines().next()?;
    let mut words = line.strip_prefix("#!")?.split_whitespace();
    let mut interpreter = words.next()?.to_string();
    if basename(&interpreter) == "env" {
        interpreter = words.find(|w| !w.starts_with('-'))?.to_string();
    }
    let name = basename(&interpreter);
    if !(name.starts_with("python") || name.starts_with("pypy")) {
        return None;
    }
    if interpreter.starts_with('/') {
        Some(PathBuf::from(interpreter)).filter(|p| p.is_file())
    } else {
        toolchain::find(&interpreter, path_var, root)
    }
}

/// What one python said at run start.
#[derive(Debug, Default, Deserialize)]
struct Probe {
    #[serde(default)]
    site: Vec<String>,
    #[serde(default)]
    path: Vec<String>,
    #[serde(default)]
    modules: BTreeMap<String, Option<String>>,
}

/// The probe python runs: its site-packages, `sys.path` and where each of
/// `argv[1:]` would be imported from.
const PROBE: &str = r#"import json, site, sys, importlib.util
out = {"site": [], "path": [p for p in sys.path if p], "modules": {}}
try:
    out["site"] = list(site.getsitepackages())
except Exception:
    pass
try:
    if site.ENABLE_USER_SITE:
        out["site"].append(site.getusersitepackages())
except Exception:
    pass
for m in sys.argv[1:]:
    try:
        s = importlib.util.find_spec(m)
        out["modules"][m] = s.origin if s else None
    except Exception:
        out["modules"][m] = None
print(json.dumps(out))
"#;

/// Asks `python` (run at `root` with the hints' `env`, for at most
/// [`PROBE_TIMEOUT`]) where it looks for startup hooks and `modules`.
fn probe(
    python: &Path,
    root: &Path,
    env: &[(String, String)],
    modules: &BTreeSet<String>,
) -> Option<Probe> {
    let mut child = std::process::Command::new(python)
        .arg("-c")
        .arg(PROBE)
        .args(modules)
        .current_dir(root)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(256 * 1024).read_to_end(&mut out);
        out
    });
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < PROBE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(10))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = reader.join().ok()?;
    serde_json::from_slice(&out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn executable(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
        outside: PathBuf,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().expect("temp");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let root = base.join("repo");
        let outside = base.join("outside");
        std::fs::create_dir_all(&root).expect("mkdir");
        executable(&outside.join("bin/checker"), "#!/bin/sh\nexit 1\n");
        executable(&root.join(".venv/bin/pytest"), "#!/bin/sh\nexit 1\n");
        std::fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr/bin\n").expect("cfg");
        std::fs::create_dir_all(root.join(".venv/lib/python3.12/site-packages")).expect("mkdir");
        executable(&root.join("node_modules/jest/bin/jest.js"), "// jest\n");
        std::fs::create_dir_all(root.join("node_modules/.bin")).expect("mkdir");
        std::os::unix::fs::symlink("../jest/bin/jest.js", root.join("node_modules/.bin/jest"))
            .expect("link");
        Fixture {
            _dir: dir,
            root,
            outside,
        }
    }

    fn environment(f: &Fixture, commands: &[&str]) -> Environment {
        let env = vec![
            (
                "PATH".to_string(),
                format!(
                    "{}:{}:/usr/bin:/bin",
                    f.root.join("bin").display(),
                    f.outside.join("bin").display()
                ),
            ),
            (
                "HOME".to_string(),
                f.outside.join("home").display().to_string(),
            ),
            (
                "CARGO_HOME".to_string(),
                f.outside.join("cargo").display().to_string(),
            ),
        ];
        Environment::new(
            &f.root,
            env,
            &Commands::new(commands.iter().map(|c| c.to_string())),
            &[],
        )
    }

    fn toolchain(e: &Environment) -> Vec<Tool> {
        toolchain::resolve(&e.tool_words, e.path_var(), &e.root)
    }

    #[test]
    fn shims_and_changed_repository_tools_are_planted_outside_binaries_warn() {
        let f = fixture();
        let e = environment(&f, &["checker && .venv/bin/pytest -q && npx jest"]);
        let tools = toolchain(&e);
        let recorded = e.record();
        assert_eq!(recorded.local[0].word, "jest");
        assert!(recorded.local[0]
            .path
            .as_deref()
            .is_some_and(|p| p.ends_with("node_modules/jest/bin/jest.js")));
        assert_eq!(e.changes(&recorded, &tools), (Vec::new(), Vec::new()));

        // Outside the repository: a warning only.
        executable(&f.outside.join("bin/checker"), "#!/bin/sh\nexit 0\n");
        let (caught, warnings) = e.changes(&recorded, &tools);
        assert!(caught.is_empty(), "{caught:?}");
        assert!(
            warnings[0].starts_with("checker (") && warnings[0].ends_with("changed content"),
            "{warnings:?}"
        );

        // A shim earlier on PATH, a changed venv tool, a changed node bin.
        executable(&f.root.join("bin/checker"), "#!/bin/sh\nexit 0\n");
        executable(&f.root.join(".venv/bin/pytest"), "#!/bin/sh\nexit 0\n");
        std::fs::write(
            f.root.join("node_modules/jest/bin/jest.js"),
            "process.exit(0)\n",
        )
        .expect("write");
        let (caught, warnings) = e.changes(&recorded, &tools);
        assert!(warnings.is_empty(), "{warnings:?}");
        let found: Vec<(&str, &str, &str)> = caught
            .iter()
            .map(|c| (c.subject.as_str(), c.detail.as_str(), c.undo.as_str()))
            .collect();
        assert_eq!(found.len(), 3, "{found:#?}");
        assert_eq!(found[0].0, ".venv/bin/pytest");
        assert_eq!(
            found[0].1,
            "`.venv/bin/pytest` (.venv/bin/pytest) changed since the run started"
        );
        assert_eq!(found[1].0, "bin/checker");
        assert!(
            found[1].1.starts_with(
                "`checker` now resolves to bin/checker inside the repository (at run start: "
            ),
            "{}",
            found[1].1
        );
        assert_eq!(
            found[1].2,
            "remove bin/checker: nothing in the repository may stand in for `checker`"
        );
        assert_eq!(found[2].0, "node_modules/.bin/jest");
        assert_eq!(
            found[2].1,
            "`jest` run through npx (node_modules/.bin/jest → node_modules/jest/bin/jest.js) changed since the run started"
        );
        assert!(caught
            .iter()
            .all(|c| c.reason == CaughtKind::EnvironmentPlanted));

        // Exempted, the repository's own tools only warn.
        let exempt = Environment::new(
            &f.root,
            e.env.clone(),
            &Commands::new([".venv/bin/pytest".to_string()]),
            &[".venv/**".to_string(), "node_modules/**".to_string()],
        );
        let (caught, warnings) = exempt.changes(&recorded, &tools);
        assert!(caught.is_empty(), "{caught:?}");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
    }

    #[test]
    fn a_repository_symlink_to_an_outside_binary_warns_on_an_update_and_is_caught_retargeted() {
        let f = fixture();
        executable(&f.outside.join("python3.12"), "v1");
        std::fs::remove_file(f.root.join(".venv/bin/pytest")).expect("rm");
        std::os::unix::fs::symlink(
            f.outside.join("python3.12"),
            f.root.join(".venv/bin/python"),
        )
        .expect("link");
        let e = environment(&f, &[".venv/bin/python -c 1"]);
        let tools = toolchain(&e);
        let recorded = EnvSurface::default();
        executable(&f.outside.join("python3.12"), "v2");
        let (caught, warnings) = e.changes(&recorded, &tools);
        assert!(caught.is_empty(), "{caught:?}");
        assert_eq!(warnings.len(), 1, "an update: {warnings:?}");
        executable(&f.outside.join("fake"), "exit 0");
        std::fs::remove_file(f.root.join(".venv/bin/python")).expect("rm");
        std::os::unix::fs::symlink(f.outside.join("fake"), f.root.join(".venv/bin/python"))
            .expect("link");
        let (caught, _) = e.changes(&recorded, &tools);
        assert_eq!(caught.len(), 1, "{caught:?}");
        assert_eq!(caught[0].subject, ".venv/bin/python");
        assert!(
            caught[0].undo.starts_with(
                "restore .venv/bin/python as it was when the run started (it resolved to "
            ),
            "{}",
            caught[0].undo
        );
    }

    #[test]
    fn startup_hooks_and_runner_configs_are_planted_wherever_they_are() {
        let f = fixture();
        std::fs::create_dir_all(f.outside.join("home")).expect("home");
        std::fs::write(
            f.outside.join("home/.npmrc"),
            "//registry.npmjs.org/:_authToken=secret\n",
        )
        .expect("npmrc");
        let site = f.root.join(".venv/lib/python3.12/site-packages");
        std::fs::write(site.join("_virtualenv.pth"), "import _virtualenv\n").expect("pth");
        let e = environment(&f, &["cargo test", "npm test"]);
        let recorded = e.record();
        assert!(!serde_json::to_string(&recorded)
            .expect("json")
            .contains("secret"));
        let tools = toolchain(&e);
        assert_eq!(e.changes(&recorded, &tools).0, Vec::new());

        // Legitimate: a package installed into the venv (a path-only .pth,
        // an editable install), a token refreshed, a cargo cache written.
        std::fs::write(site.join("requests.pth"), "/opt/requests\n").expect("pth");
        std::fs::write(
            site.join("__editable___pkg_finder.pth"),
            "import __editable___pkg_finder\n",
        )
        .expect("pth");
        std::fs::write(
            f.outside.join("home/.npmrc"),
            "//registry.npmjs.org/:_authToken=other\n",
        )
        .expect("npmrc");
        std::fs::create_dir_all(f.outside.join("cargo/registry")).expect("cache");
        assert_eq!(e.changes(&recorded, &tools).0, Vec::new());

        // Planted.
        std::fs::write(site.join("sitecustomize.py"), "import os\n").expect("hook");
        std::fs::write(site.join("zz.pth"), "import patch_pytest\n").expect("pth");
        std::fs::write(
            site.join("_virtualenv.pth"),
            "import _virtualenv; import evil\n",
        )
        .expect("pth");
        std::fs::write(
            f.outside.join("cargo/config.toml"),
            "[alias]\nt = \"check\"\n",
        )
        .expect("cargo");
        std::fs::write(f.root.join(".npmrc"), "node-options=--require ./stub.js\n").expect("npmrc");
        let caught = e.changes(&recorded, &tools).0;
        let found: Vec<(String, String)> =
            caught.into_iter().map(|c| (c.subject, c.detail)).collect();
        let cargo = f.outside.join("cargo/config.toml").display().to_string();
        assert_eq!(
            found,
            [
                (cargo, "cargo config added: python, a runner or the shell loads it before any test".to_string()),
                (".npmrc".to_string(), "npm config added: python, a runner or the shell loads it before any test".to_string()),
                (".venv/lib/python3.12/site-packages/_virtualenv.pth".to_string(), "python path file changed since the run started".to_string()),
                (".venv/lib/python3.12/site-packages/sitecustomize.py".to_string(), "python startup hook added: python, a runner or the shell loads it before any test".to_string()),
                (".venv/lib/python3.12/site-packages/zz.pth".to_string(), "python path file with import lines added: python, a runner or the shell loads it before any test".to_string()),
            ]
        );
    }

    #[test]
    fn python_modules_shadowed_from_the_root() {
        let f = fixture();
        let e = environment(&f, &["python3 -m pytest"]);
        let recorded = EnvSurface {
            modules: vec![Module {
                name: "pytest".into(),
                origin: "/usr/lib/python3/dist-packages/pytest/__init__.py".into(),
            }],
            ..EnvSurface::default()
        };
        assert!(e.module_changes(&recorded).is_empty());
        std::fs::create_dir_all(f.root.join("pytest")).expect("mkdir");
        std::fs::write(f.root.join("pytest/__init__.py"), "").expect("write");
        let caught = e.module_changes(&recorded);
        assert_eq!(caught.len(), 1);
        assert_eq!(caught[0].subject, "pytest/__init__.py");
        assert!(caught[0]
            .detail
            .contains("instead of /usr/lib/python3/dist-packages/pytest/__init__.py"));
    }

    #[test]
    fn the_python_probe_reports_site_packages_and_modules_when_python_is_here() {
        let Some(python) = toolchain::find(
            "python3",
            &std::env::var("PATH").unwrap_or_default(),
            Path::new("/"),
        ) else {
            return;
        };
        let dir = tempfile::tempdir().expect("temp");
        let env: Vec<(String, String)> = std::env::vars()
            .filter(|(k, _)| k == "PATH" || k == "HOME")
            .collect();
        let p = probe(
            &python,
            dir.path(),
            &env,
            &BTreeSet::from(["json".to_string(), "no_such_module_x".to_string()]),
        )
        .expect("python answers");
        assert!(!p.site.is_empty() || !p.path.is_empty(), "{p:?}");
        assert!(
            p.modules["json"]
                .as_deref()
                .is_some_and(|o| o.ends_with(".py")),
            "{p:?}"
        );
        assert_eq!(p.modules["no_such_module_x"], None);
    }

    #[test]
    fn npmrc_keeps_only_the_watched_keys() {
        assert_eq!(
            npmrc_lines(b"registry=https://x\nnode_options = --require ./a.js\n//r/:_authToken=t\nscript-shell=/bin/true\n"),
            "node-options=--require ./a.js\nscript-shell=/bin/true"
        );
    }
}
