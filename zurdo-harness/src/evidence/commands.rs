//! What the hints' `[shell:]` commands run, read once at run start from
//! their words (no command is run): the programs as written, the tools a
//! package runner starts (`npx jest`, `uv run pytest`, `cargo nextest`),
//! the scripts of a shell, the modules of `python -m`, the `package.json`
//! scripts and the make goals they name. The guards resolve and watch what
//! this finds; what it cannot read (a variable holding a command, an alias,
//! a function) it leaves out.

use std::collections::BTreeSet;

use zurdo::hint::Check;
use zurdo::Prd;

/// Words that are shell builtins or keywords, never looked up on `PATH`.
pub const BUILTINS: [&str; 32] = [
    "cd", "test", "[", "[[", "echo", "printf", "true", "false", ":", "export", "set", "unset",
    "exit", "return", "read", "eval", "exec", "source", ".", "if", "then", "else", "fi", "for",
    "while", "do", "done", "case", "esac", "!", "{", "}",
];

const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "ksh", "ash"];

/// `cargo` subcommands built into cargo; any other is `cargo-<name>` on
/// `PATH`.
const CARGO_BUILTINS: [&str; 44] = [
    "add",
    "b",
    "bench",
    "build",
    "c",
    "check",
    "clean",
    "config",
    "d",
    "doc",
    "fetch",
    "fix",
    "generate-lockfile",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "r",
    "read-manifest",
    "remove",
    "report",
    "rm",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "t",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
];

/// `yarn` and `pnpm` commands that are not scripts.
const PM_BUILTINS: [&str; 40] = [
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "create",
    "dedupe",
    "deploy",
    "dlx",
    "doctor",
    "env",
    "exec",
    "fetch",
    "global",
    "help",
    "i",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "ls",
    "outdated",
    "pack",
    "patch",
    "prune",
    "publish",
    "rebuild",
    "remove",
    "rm",
    "store",
    "unlink",
    "up",
    "upgrade",
];

/// Options of npm, pnpm and yarn that take a value.
const PM_OPTIONS: &[&str] = &[
    "-w",
    "--workspace",
    "--prefix",
    "-C",
    "--dir",
    "--filter",
    "-F",
];

/// True for a yarn or pnpm command that is neither a script nor a tool.
fn pm_command(word: &str) -> bool {
    PM_BUILTINS.contains(&word)
        || matches!(
            word,
            "run"
                | "test"
                | "t"
                | "start"
                | "stop"
                | "restart"
                | "why"
                | "workspace"
                | "workspaces"
        )
}

/// Where a package runner finds a tool before `PATH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Via {
    /// `npx X`, `npm exec X`, `pnpm exec X`, `yarn X`: `node_modules/.bin/X`.
    NodeBin,
    /// `uv run X`, `poetry run X`, `pipenv run X`, `pdm run X`, `rye run X`:
    /// the project's `.venv/bin/X`.
    Venv,
}

impl Via {
    /// The directory, relative to the repository root.
    pub fn dir(self) -> &'static str {
        match self {
            Via::NodeBin => "node_modules/.bin",
            Via::Venv => ".venv/bin",
        }
    }

    /// How a hint reaches it, in words.
    pub fn name(self) -> &'static str {
        match self {
            Via::NodeBin => "npx",
            Via::Venv => "a project runner (uv run, poetry run…)",
        }
    }
}

/// The make goals the hints name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MakeGoals {
    /// Targets named on a `make` command line.
    pub targets: BTreeSet<String>,
    /// True when some `make` runs without a target (the default goal).
    pub default: bool,
}

impl MakeGoals {
    /// True when no hint runs make.
    pub fn is_empty(&self) -> bool {
        self.targets.is_empty() && !self.default
    }
}

/// The simple commands of every `[shell:]` hint (and standing rule).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    argvs: Vec<Vec<String>>,
}

impl Commands {
    /// The simple commands of `commands`.
    pub fn new(commands: impl IntoIterator<Item = String>) -> Commands {
        Commands {
            argvs: commands
                .into_iter()
                .flat_map(|c| zurdo::verify::command_argvs(&c))
                .collect(),
        }
    }

    /// Every `[shell:]` hint of `prd`, and `extra` (the standing rules').
    pub fn of_prd(prd: &Prd, extra: impl IntoIterator<Item = String>) -> Commands {
        let hints = prd
            .tasks
            .iter()
            .flat_map(|t| &t.criteria)
            .flat_map(|c| &c.hints)
            .filter_map(|h| match &h.check {
                Check::Shell { command } => Some(command.clone()),
                _ => None,
            });
        Commands::new(hints.chain(extra))
    }

    /// `sh`, every program as written (`cargo`, `./run-tests.sh`,
    /// `.venv/bin/pytest`) and the programs the commands start through
    /// another (`cargo-nextest` for `cargo nextest`, `jest` for `npx jest`,
    /// `./check.sh` for `sh check.sh`); builtins and words holding `=` or
    /// `$` left out.
    pub fn tool_words(&self) -> BTreeSet<String> {
        let mut words = BTreeSet::from(["sh".to_string()]);
        let mut add = |w: &str| {
            if !w.is_empty()
                && !BUILTINS.contains(&basename(w))
                && !w.contains('=')
                && !w.contains('$')
            {
                words.insert(w.to_string());
            }
        };
        for argv in &self.argvs {
            add(&argv[0]);
            if let Some((_, tool)) = runner_tool(argv) {
                add(&tool);
            }
            if let Some(sub) = cargo_external(argv) {
                add(&format!("cargo-{sub}"));
            }
            if let Some(script) = shell_script(argv) {
                add(&script);
            }
        }
        words
    }

    /// The tools a package runner starts from a repository-local bin.
    pub fn local_tools(&self) -> BTreeSet<(Via, String)> {
        self.argvs.iter().filter_map(|a| runner_tool(a)).collect()
    }

    /// The top-level modules `python -m` runs (`pytest` for
    /// `python3 -m pytest`, also through `uv run python -m …`).
    pub fn python_modules(&self) -> BTreeSet<String> {
        self.argvs
            .iter()
            .filter_map(|a| {
                let start = match runner_tool(a) {
                    Some((Via::Venv, _)) => a.iter().position(|w| w == "run")? + 1,
                    _ => 0,
                };
                let rest = a.get(start..)?;
                let tool = rest.iter().position(|w| !w.starts_with('-'))?;
                python_module(&rest[tool..])
            })
            .collect()
    }

    /// True when a hint runs python, pytest or a python project runner
    /// (the environment surface then looks for python's startup hooks).
    pub fn uses_python(&self) -> bool {
        self.tool_words()
            .iter()
            .any(|w| is_python_word(basename(w)))
            || self
                .local_tools()
                .iter()
                .any(|(via, w)| *via == Via::Venv || is_python_word(w))
    }

    /// The `package.json` scripts the commands run (`npm test`, `npm run
    /// lint`, `yarn build`, `pnpm check`, `run-s a b`).
    pub fn npm_scripts(&self) -> BTreeSet<String> {
        npm_scripts_of(&self.argvs)
    }

    /// The make goals the commands name.
    pub fn make_goals(&self) -> MakeGoals {
        make_goals_of(&self.argvs)
    }
}

/// The last `/`-separated component of a command word.
pub fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// True for python interpreters and python tools whose startup hooks
/// matter (`python3.12`, `pytest`, `pip`, `tox`, `uv`…).
pub fn is_python_word(name: &str) -> bool {
    name.starts_with("python")
        || name.starts_with("pypy")
        || name.starts_with("pip")
        || matches!(
            name,
            "pytest" | "py.test" | "tox" | "nox" | "uv" | "poetry" | "pipenv" | "pdm" | "hatch"
        )
}

/// The first argument of `args` that is not an option, skipping the values
/// of the options in `with_value`; its index.
fn operand(args: &[String], with_value: &[&str]) -> Option<usize> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        if arg.starts_with('-') && arg.len() > 1 {
            i += if with_value.contains(&arg.as_str()) {
                2
            } else {
                1
            };
            continue;
        }
        return Some(i);
    }
    None
}

/// The tool a package runner starts, and where it looks first.
fn runner_tool(argv: &[String]) -> Option<(Via, String)> {
    let program = basename(&argv[0]);
    let args = &argv[1..];
    let after = |sub: usize, with_value: &[&str]| -> Option<String> {
        let rest = args.get(sub + 1..)?;
        let i = operand(rest, with_value)?;
        Some(rest[i].clone())
    };
    let (via, tool) = match program {
        "npx" => {
            if args.iter().any(|a| a == "-c" || a == "--call") {
                return None;
            }
            let i = operand(args, &["-p", "--package"])?;
            (Via::NodeBin, args[i].clone())
        }
        "npm" | "pnpm" | "yarn" => {
            let sub = operand(args, PM_OPTIONS)?;
            match args[sub].as_str() {
                "exec" => (Via::NodeBin, after(sub, &["-p", "--package", "-c"])?),
                "x" if program == "npm" => (Via::NodeBin, after(sub, &["-p", "--package"])?),
                other if program != "npm" && !pm_command(other) => {
                    (Via::NodeBin, other.to_string())
                }
                _ => return None,
            }
        }
        "uv" | "poetry" | "pipenv" | "pdm" | "rye" => {
            let sub = operand(
                args,
                &[
                    "--directory",
                    "--project",
                    "-C",
                    "--python",
                    "-p",
                    "--config-file",
                ],
            )?;
            if args[sub] != "run" {
                return None;
            }
            (
                Via::Venv,
                after(
                    sub,
                    &[
                        "--with",
                        "--python",
                        "-p",
                        "--directory",
                        "--project",
                        "--package",
                        "--extra",
                        "--group",
                        "--env-file",
                        "--index",
                        "-w",
                    ],
                )?,
            )
        }
        _ => return None,
    };
    (!tool.contains('/') && !tool.contains('$') && !tool.contains('=') && !tool.is_empty())
        .then_some((via, tool))
}

/// `cargo <sub>` where `<sub>` is not built in: `cargo-<sub>` runs.
fn cargo_external(argv: &[String]) -> Option<String> {
    if basename(&argv[0]) != "cargo" {
        return None;
    }
    let args: Vec<String> = argv[1..]
        .iter()
        .filter(|a| !a.starts_with('+'))
        .cloned()
        .collect();
    let i = operand(
        &args,
        &["--manifest-path", "-Z", "--config", "-C", "--color"],
    )?;
    let sub = &args[i];
    (!CARGO_BUILTINS.contains(&sub.as_str())
        && sub
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
    .then(|| sub.clone())
}

/// `sh script.sh` (not `sh -c …`): the script, as a path from the root.
fn shell_script(argv: &[String]) -> Option<String> {
    if !SHELLS.contains(&basename(&argv[0])) {
        return None;
    }
    let args = &argv[1..];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if (arg.starts_with('-') || arg.starts_with('+')) && arg.len() > 1 {
            if arg.starts_with("--") {
                i += 1;
                continue;
            }
            if arg.contains('c') || arg.contains('s') {
                return None;
            }
            i += if arg.contains('o') { 2 } else { 1 };
            continue;
        }
        break;
    }
    let script = args.get(i)?;
    if script.contains('$') || script.is_empty() {
        return None;
    }
    Some(if script.contains('/') {
        script.clone()
    } else {
        format!("./{script}")
    })
}

/// `python -m X …`: the top-level module X.
fn python_module(argv: &[String]) -> Option<String> {
    let name = basename(argv.first()?);
    if !(name.starts_with("python") || name.starts_with("pypy")) {
        return None;
    }
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        if arg == "-m" {
            return argv.get(i + 1).map(|m| top_module(m));
        }
        if let Some(m) = arg.strip_prefix("-m") {
            return Some(top_module(m));
        }
        if arg == "-c" || !arg.starts_with('-') {
            return None;
        }
        i += if matches!(arg.as_str(), "-X" | "-W" | "--check-hash-based-pycs") {
            2
        } else {
            1
        };
    }
    None
}

fn top_module(m: &str) -> String {
    m.split('.').next().unwrap_or(m).to_string()
}

/// The `package.json` scripts `argvs` run. npm runs a script's `pre` and
/// `post` scripts too; the caller adds those.
pub fn npm_scripts_of(argvs: &[Vec<String>]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for argv in argvs {
        let program = basename(&argv[0]);
        let args = &argv[1..];
        match program {
            "npm" | "pnpm" | "yarn" | "bun" => {
                let Some(sub) = operand(args, PM_OPTIONS) else {
                    continue;
                };
                let name = args[sub].as_str();
                let script = match name {
                    "run" | "run-script" | "rum" | "urn" => {
                        let rest = &args[sub + 1..];
                        operand(rest, &["-w", "--workspace"]).map(|i| rest[i].clone())
                    }
                    _ if program == "bun" => None,
                    "test" | "t" | "tst" | "it" | "cit" | "install-test" | "clean-install-test" => {
                        Some("test".to_string())
                    }
                    "start" | "stop" | "restart" => Some(name.to_string()),
                    _ if program == "npm" => None,
                    other if !pm_command(other) => Some(other.to_string()),
                    _ => None,
                };
                out.extend(script);
            }
            "run-s" | "run-p" | "npm-run-all" | "npm-run-all2" => {
                out.extend(
                    args.iter()
                        .filter(|a| !a.starts_with('-') && !a.contains(' '))
                        .cloned(),
                );
            }
            _ => {}
        }
    }
    out
}

/// The make goals `argvs` name (`make`, `gmake`, `$(MAKE)` in a recipe).
pub fn make_goals_of(argvs: &[Vec<String>]) -> MakeGoals {
    let mut goals = MakeGoals::default();
    for argv in argvs {
        if !matches!(basename(&argv[0]), "make" | "gmake" | "$(MAKE)" | "${MAKE}")
            && !matches!(argv[0].as_str(), "$(MAKE)" | "${MAKE}")
        {
            continue;
        }
        let mut targets = Vec::new();
        let mut i = 1;
        while let Some(arg) = argv.get(i) {
            i += 1;
            if arg.starts_with('-') {
                // Options with a separate value (`-j` and `-l` take an
                // optional number).
                let valued = matches!(
                    arg.as_str(),
                    "-C" | "-f" | "-I" | "-o" | "-W" | "--file" | "--directory" | "--makefile"
                );
                let counted = matches!(arg.as_str(), "-j" | "-l")
                    && argv.get(i).is_some_and(|n| n.parse::<u32>().is_ok());
                if valued || counted {
                    i += 1;
                }
                continue;
            }
            if arg.contains('=') {
                continue; // a variable override
            }
            targets.push(arg.clone());
        }
        if targets.is_empty() {
            goals.default = true;
        }
        goals.targets.extend(targets);
    }
    goals
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(commands: &[&str]) -> Commands {
        Commands::new(commands.iter().map(|c| c.to_string()))
    }

    #[test]
    fn tool_words_keep_paths_and_add_what_runners_start() {
        let c = of(&[
            "cd x && .venv/bin/pytest -q | grep -q passed",
            "npx --yes jest --ci",
            "cargo +nightly nextest run; cargo test; cargo fmt --check",
            "sh run-tests.sh --fast; bash -c 'true'; bash -euo pipefail ci/check.sh",
            "uv run --with pytest pytest -x",
            "FOO=1 $PYTHON -m x; ./gradlew test",
        ]);
        let words: Vec<String> = c.tool_words().into_iter().collect();
        assert_eq!(
            words,
            [
                "./gradlew",
                "./run-tests.sh",
                ".venv/bin/pytest",
                "bash",
                "cargo",
                "cargo-fmt",
                "cargo-nextest",
                "ci/check.sh",
                "grep",
                "jest",
                "npx",
                "pytest",
                "sh",
                "uv",
            ]
        );
        let local: Vec<(Via, String)> = c.local_tools().into_iter().collect();
        assert_eq!(
            local,
            [(Via::NodeBin, "jest".into()), (Via::Venv, "pytest".into())]
        );
        assert!(c.uses_python());
        assert!(!of(&["cargo test", "make"]).uses_python());
    }

    #[test]
    fn package_runners_and_python_modules() {
        let c = of(&[
            "npm exec -- vitest run",
            "pnpm exec eslint .",
            "yarn jest --ci",
            "yarn test",
            "pnpm install",
            "python3 -B -m pytest.main -q",
            "uv run python -m mypkg",
            "python -c 'import x'",
            "python script.py -m nope",
        ]);
        let local: Vec<(Via, String)> = c.local_tools().into_iter().collect();
        assert_eq!(
            local,
            [
                (Via::NodeBin, "eslint".into()),
                (Via::NodeBin, "jest".into()),
                (Via::NodeBin, "vitest".into()),
                (Via::Venv, "python".into()),
            ]
        );
        let modules: Vec<String> = c.python_modules().into_iter().collect();
        assert_eq!(modules, ["mypkg", "pytest"]);
    }

    #[test]
    fn npm_scripts_and_make_goals() {
        let c = of(&[
            "npm test",
            "npm --workspace web run lint -- --fix",
            "yarn build && pnpm run check && pnpm typecheck",
            "yarn add left-pad",
            "run-s format:* verify",
            "bun run e2e; bun test",
            "make -C sub -j 4 test lint V=1",
            "gmake",
            "npx jest",
        ]);
        let scripts: Vec<String> = c.npm_scripts().into_iter().collect();
        assert_eq!(
            scripts,
            [
                "build",
                "check",
                "e2e",
                "format:*",
                "lint",
                "test",
                "typecheck",
                "verify"
            ]
        );
        let goals = c.make_goals();
        assert_eq!(
            goals.targets.into_iter().collect::<Vec<_>>(),
            ["lint", "test"]
        );
        assert!(goals.default);
        let recipe = make_goals_of(&zurdo::verify::command_argvs("$(MAKE) -C lib unit"));
        assert_eq!(recipe.targets.into_iter().collect::<Vec<_>>(), ["unit"]);
    }
}
