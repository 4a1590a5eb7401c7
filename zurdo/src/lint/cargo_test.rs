//! `recursive-cargo-test`: a `[shell: cargo test]` in a PRD that is itself
//! verified through `cargo test --test prd`. The criterion runs every test
//! target — the PRD harness included — so verifying the PRD runs the
//! harness again, which verifies the PRD again, and so on.
//!
//! Whether a PRD is verified through cargo is detected from the tree (see
//! [`detect`]) or set explicitly with
//! [`LintContext::cargo_harness`](super::LintContext::cargo_harness);
//! whether a command would run the harness is [`runs_harness`].

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Lint, LintContext, RECURSIVE_CARGO_TEST};
use crate::hint::Check;
use crate::model::Prd;
use crate::paths::RepoPath;
use crate::shell;

/// The `cargo test` target that verifies a PRD.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Harness {
    /// The test target's name: `prd` for `tests/prd.rs`.
    pub test_target: String,
    /// The package holding the target, when known.
    pub package: Option<String>,
}

impl Default for Harness {
    /// The conventional harness: `tests/prd.rs`, package unknown.
    fn default() -> Self {
        Harness {
            test_target: "prd".to_string(),
            package: None,
        }
    }
}

/// The most of one file the detection reads.
const READ_LIMIT: u64 = 1 << 20;
/// The most `tests/*.rs` files the detection reads.
const FILE_LIMIT: usize = 256;

/// Finds the cargo harness that verifies the PRD at `prd_path` (relative to
/// `root`), if there is one.
///
/// Walks up from the PRD's directory to the nearest directory with a
/// `Cargo.toml`, never above `root`. The PRD is verified through cargo when
/// a `tests/*.rs` file or the `build.rs` there contains `prd!(` or
/// `zurdo::build` and mentions the PRD's file name. Unreadable files count
/// as not mentioning it.
pub fn detect(root: &Path, prd_path: &str) -> Option<Harness> {
    let (dir, package) = crate_of(root, prd_path)?;
    let file_name = prd_path.rsplit('/').next().filter(|n| !n.is_empty())?;
    let mentions = |text: &str| {
        (text.contains("prd!(") || text.contains("zurdo::build")) && text.contains(file_name)
    };
    let mut tests: Vec<PathBuf> = std::fs::read_dir(dir.join("tests"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs") && p.is_file())
                .take(FILE_LIMIT)
                .collect()
        })
        .unwrap_or_default();
    tests.sort();
    for test in &tests {
        if read_prefix(test).is_some_and(|t| mentions(&t)) {
            let target = test.file_stem().map(|s| s.to_string_lossy().into_owned())?;
            return Some(Harness {
                test_target: target,
                package,
            });
        }
    }
    if read_prefix(&dir.join("build.rs")).is_some_and(|t| mentions(&t)) {
        return Some(Harness {
            package,
            ..Harness::default()
        });
    }
    None
}

/// The directory of the crate holding the PRD, and its package name.
fn crate_of(root: &Path, prd_path: &str) -> Option<(PathBuf, Option<String>)> {
    let relative = RepoPath::parse(prd_path).ok()?;
    let prd = root.join(relative.as_str());
    let mut dir = prd.parent()?;
    loop {
        if !dir.starts_with(root) {
            return None;
        }
        let manifest = dir.join("Cargo.toml");
        if manifest.is_file() {
            let package = read_prefix(&manifest).and_then(|t| package_name(&t));
            return Some((dir.to_path_buf(), package));
        }
        if dir == root {
            return None;
        }
        dir = dir.parent()?;
    }
}

/// Reads up to [`READ_LIMIT`] bytes of a file as (lossy) UTF-8.
fn read_prefix(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(READ_LIMIT).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The `name` of a manifest's `[package]` table.
fn package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() == "name" {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            return (!value.is_empty()).then(|| value.to_string());
        }
    }
    None
}

/// Reports `[shell:]` hints that would run the PRD's own cargo harness.
pub(crate) fn check(prd: &Prd, ctx: &LintContext<'_>, out: &mut Vec<Lint>) {
    let located = || match (ctx.root, ctx.prd_path) {
        (Some(root), Some(path)) => Some((root, path)),
        _ => None,
    };
    let harness = match ctx.cargo_harness {
        Some(false) => return,
        Some(true) => located()
            .and_then(|(root, path)| {
                detect(root, path).or_else(|| {
                    crate_of(root, path).map(|(_, package)| Harness {
                        package,
                        ..Harness::default()
                    })
                })
            })
            .unwrap_or_default(),
        None => match located().and_then(|(root, path)| detect(root, path)) {
            Some(h) => h,
            None => return,
        },
    };
    for criterion in prd.tasks.iter().flat_map(|t| &t.criteria) {
        for hint in &criterion.hints {
            let Check::Shell { command } = &hint.check else {
                continue;
            };
            if !runs_harness(command, &harness) {
                continue;
            }
            let target = &harness.test_target;
            out.push(Lint::new(
                RECURSIVE_CARGO_TEST,
                criterion.line,
                format!(
                    "`{}` runs every test target, including `--test {target}`, the harness \
                     that verifies this PRD: the criterion re-runs its own verifier, which runs \
                     the criterion again",
                    hint.source
                ),
                format!(
                    "select targets that leave out `--test {target}`, e.g. `cargo test --lib \
                     --bins` or `cargo test --test <name>`, or pass a test-name filter"
                ),
            ));
        }
    }
}

/// True when `command` runs a `cargo test` or `cargo nextest run` that
/// would run `harness`: no test-name filter, and no target selection that
/// leaves the harness out (`--lib`, `--bins`, `--bin X`, `--test X` for
/// another X, `--doc`, `--examples`, `--example X`, `--benches`,
/// `--bench X`). `--tests`, `--all-targets` and `--test <harness>` select
/// it. Commands inside `sh -c '…'` count.
pub fn runs_harness(command: &str, harness: &Harness) -> bool {
    shell::all_simples(command).iter().any(|simple| {
        let argv = simple.argv();
        test_args(&argv).is_some_and(|args| selects_harness(args, harness))
    })
}

/// Cargo's global options that take a value.
const GLOBAL_WITH_VALUE: [&str; 5] = ["--config", "-Z", "--color", "-C", "--manifest-path"];

/// `cargo test` / `cargo nextest run` options that take a value and do not
/// select targets.
const WITH_VALUE: &[&str] = &[
    "-F",
    "--features",
    "--target",
    "--target-dir",
    "--manifest-path",
    "-j",
    "--jobs",
    "--profile",
    "--message-format",
    "--color",
    "--config",
    "-Z",
    "--lockfile-path",
    "-P",
    "--cargo-profile",
    "--partition",
    "--test-threads",
    "--retries",
    "--archive-file",
    "--workspace-remap",
    "--tool-config-file",
    "--run-ignored",
    "--cargo-message-format",
    "--status-level",
    "--final-status-level",
    "--failure-output",
    "--success-output",
    "--max-fail",
    "--threads",
];

/// Options after `--` (for the test binary) that take a value.
const PASSTHROUGH_WITH_VALUE: [&str; 7] = [
    "--skip",
    "--test-threads",
    "--format",
    "--logfile",
    "--color",
    "-Z",
    "--shuffle-seed",
];

/// The arguments after `cargo test` or `cargo nextest run`.
fn test_args<'a, 'w>(argv: &'w [&'a str]) -> Option<&'w [&'a str]> {
    let (program, rest) = argv.split_first()?;
    if !matches!(shell::basename(program), "cargo" | "cargo.exe") {
        return None;
    }
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        if arg.starts_with('+') {
            i += 1;
        } else if GLOBAL_WITH_VALUE.contains(arg) {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    match (rest.get(i).copied(), rest.get(i + 1).copied()) {
        (Some("test" | "t"), _) => rest.get(i + 1..),
        (Some("nextest"), Some("run" | "r")) => rest.get(i + 2..),
        _ => None,
    }
}

/// Reads the test arguments: true when they run `harness` unfiltered.
fn selects_harness(args: &[&str], harness: &Harness) -> bool {
    let mut filtered = false;
    let mut selected = false;
    let mut includes = false;
    let mut packages: Vec<&str> = Vec::new();
    let mut excluded: Vec<&str> = Vec::new();
    let mut passthrough = false;
    let mut i = 0;
    while let Some(&arg) = args.get(i) {
        i += 1;
        if passthrough {
            if PASSTHROUGH_WITH_VALUE.contains(&arg) {
                i += 1;
            } else if !arg.starts_with('-') {
                filtered = true;
            }
            continue;
        }
        if arg == "--" {
            passthrough = true;
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if arg.starts_with("--") => (f, Some(v)),
            _ => (arg, None),
        };
        let mut value = || match inline {
            Some(v) => v,
            None => {
                i += 1;
                args.get(i - 1).copied().unwrap_or("")
            }
        };
        match flag {
            "--lib" | "--bins" | "--doc" | "--examples" | "--benches" => selected = true,
            "--tests" | "--all-targets" => {
                selected = true;
                includes = true;
            }
            "--bin" | "--example" | "--bench" => {
                selected = true;
                value();
            }
            "--test" => {
                selected = true;
                if value() == harness.test_target {
                    includes = true;
                }
            }
            "-p" | "--package" => packages.push(value()),
            "--exclude" => excluded.push(value()),
            "-E" | "--filterset" | "--filter-expr" => {
                filtered = true;
                value();
            }
            f if WITH_VALUE.contains(&f) => {
                value();
            }
            f if f.starts_with('-') => {}
            _ => filtered = true,
        }
    }
    let package_ok = match &harness.package {
        Some(name) => {
            (packages.is_empty() || packages.contains(&name.as_str()))
                && !excluded.contains(&name.as_str())
        }
        None => packages.is_empty(),
    };
    !filtered && (!selected || includes) && package_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recursive(command: &str) -> bool {
        runs_harness(command, &Harness::default())
    }

    #[test]
    fn unfiltered_cargo_test_runs_the_harness() {
        for command in [
            "cargo test",
            "cargo test --workspace",
            "cargo +nightly test --release",
            "cargo test --tests",
            "cargo test --all-targets",
            "cargo test --test prd",
            "cargo test --test=prd",
            "cargo test --features foo -- --nocapture",
            "cargo test --lib --test prd",
            "cargo nextest run",
            "RUST_LOG=debug cargo test 2>&1 | tail",
            "bash -o pipefail -c 'cargo test | tail'",
            "cargo build && cargo test",
            "cargo t",
        ] {
            assert!(recursive(command), "{command}");
        }
    }

    #[test]
    fn filters_and_selections_leave_it_out() {
        for command in [
            "cargo test --lib",
            "cargo test --bins",
            "cargo test --doc",
            "cargo test --test api",
            "cargo test --bin zurdo",
            "cargo test --examples",
            "cargo test parser::",
            "cargo test -- parser::",
            "cargo test --features x parser",
            "cargo nextest run -E 'test(parser)'",
            "cargo nextest run --lib",
            "cargo build",
            "cargo test -p other",
            "echo cargo test",
        ] {
            assert!(!recursive(command), "{command}");
        }
    }

    #[test]
    fn package_selection_uses_the_harness_package() {
        let harness = Harness {
            test_target: "prd".into(),
            package: Some("app".into()),
        };
        assert!(runs_harness("cargo test -p app", &harness));
        assert!(runs_harness("cargo test --package=app", &harness));
        assert!(!runs_harness("cargo test -p core", &harness));
        assert!(!runs_harness(
            "cargo test --workspace --exclude app",
            &harness
        ));
    }

    #[test]
    fn reads_the_package_name() {
        let manifest =
            "[workspace]\nname = \"no\"\n[package]\nedition = \"2021\"\nname = \"app\"\n";
        assert_eq!(package_name(manifest).as_deref(), Some("app"));
        assert_eq!(package_name("[workspace]\nmembers = []\n"), None);
    }
}
