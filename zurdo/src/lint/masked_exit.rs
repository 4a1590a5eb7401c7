//! `masked-exit-code`: a test or build runner piped into a filter, as in
//! `cargo test 2>&1 | tail -5`. A pipeline's exit status is its last
//! command's, so the runner's failure is thrown away unless `pipefail` is on.

use super::{Lint, MASKED_EXIT_CODE};
use crate::hint::Check;
use crate::model::Prd;
use crate::shell::{self, Pipeline, Simple};

/// Commands whose exit status is the verdict (test and build runners).
const RUNNERS: [&str; 24] = [
    "cargo", "go", "npm", "npx", "yarn", "pnpm", "pytest", "make", "mvn", "gradle", "gradlew",
    "jest", "vitest", "dotnet", "rspec", "bundle", "mix", "ctest", "tox", "deno", "bun", "python",
    "python3", "py.test",
];

/// Commands that read a stream and exit 0 whatever it said.
const FILTERS: [&str; 17] = [
    "tail", "head", "tee", "cat", "grep", "egrep", "fgrep", "sed", "awk", "sort", "uniq", "wc",
    "cut", "tr", "less", "more", "gawk",
];

/// How deep `sh -c '…'` nesting is followed.
const MAX_NESTING: usize = 6;

/// Reports every `[shell:]` hint with a runner piped into a filter.
pub(crate) fn check(prd: &Prd, out: &mut Vec<Lint>) {
    for criterion in prd.tasks.iter().flat_map(|t| &t.criteria) {
        for hint in &criterion.hints {
            let Check::Shell { command } = &hint.check else {
                continue;
            };
            let Some(masked) = find(command, false, 0) else {
                continue;
            };
            let source = &hint.source;
            out.push(Lint::new(
                MASKED_EXIT_CODE,
                criterion.line,
                format!(
                    "`{source}` pipes `{runner}` into `{filter}` without pipefail, so a failing \
                     `{runner}` still passes",
                    runner = masked.runner,
                    filter = masked.filter,
                ),
                if masked.nested {
                    format!(
                        "the pipe's exit status is the last command's (`{filter}`'s): drop the \
                         pipe (zurdo captures the whole output anyway), or start the inner \
                         shell with `-o pipefail` (`bash -o pipefail -c '…'`)",
                        filter = masked.filter,
                    )
                } else {
                    format!(
                        "the pipe's exit status is the last command's (`{filter}`'s): drop the \
                         pipe (zurdo captures the whole output anyway), or run it as \
                         [shell: bash -o pipefail -c '{quoted}']",
                        filter = masked.filter,
                        quoted = command.replace('\'', r"'\''"),
                    )
                },
            ));
        }
    }
}

/// A runner whose exit status a filter hides.
#[derive(Debug, PartialEq, Eq)]
struct Masked {
    runner: String,
    filter: String,
    /// True when the pipeline is inside `sh -c '…'`.
    nested: bool,
}

/// The first masked runner in `command`, following `sh -c '…'`.
fn find(command: &str, inherited_pipefail: bool, depth: usize) -> Option<Masked> {
    let script = shell::parse(command);
    let mut pipefail = inherited_pipefail;
    for list in &script.lists {
        for (_, pipeline) in list.pipelines() {
            if !pipefail {
                if let Some(masked) = masked_in(pipeline, depth > 0) {
                    return Some(masked);
                }
            }
            for stage in &pipeline.stages {
                if depth < MAX_NESTING {
                    if let Some(inner) = stage.inner_shell() {
                        if let Some(found) = find(&inner.command, inner.pipefail, depth + 1) {
                            return Some(found);
                        }
                    }
                }
                if stage.sets_pipefail() && pipeline.stages.len() == 1 && !list.background {
                    pipefail = true;
                }
            }
        }
    }
    None
}

fn masked_in(pipeline: &Pipeline, nested: bool) -> Option<Masked> {
    let (last, before) = pipeline.stages.split_last()?;
    let filter = last.program().filter(|p| FILTERS.contains(&p.as_str()))?;
    let runner = before.iter().find_map(runner_name)?;
    Some(Masked {
        runner,
        filter,
        nested,
    })
}

/// The runner a stage starts, as it should be named in a message.
fn runner_name(stage: &Simple) -> Option<String> {
    let argv = stage.argv();
    let program = shell::basename(argv.first()?);
    if !RUNNERS.contains(&program) {
        return None;
    }
    if program.starts_with("python") {
        let runs_pytest = argv.windows(2).any(|w| w[0] == "-m" && w[1] == "pytest");
        return runs_pytest.then(|| format!("{program} -m pytest"));
    }
    match argv.get(1) {
        Some(sub) if !sub.starts_with('-') && program != "pytest" => {
            Some(format!("{program} {sub}"))
        }
        _ => Some(program.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(command: &str) -> Option<(String, String)> {
        find(command, false, 0).map(|m| (m.runner, m.filter))
    }

    #[test]
    fn fires_on_runner_into_filter() {
        for command in [
            "cargo test 2>&1 | tail -5",
            "cargo test --workspace | tee out.log",
            "go test ./... | grep -v skip",
            "npm test | cat",
            "python3 -m pytest -q | tail -1",
            "./gradlew test | tail",
            "FOO=1 timeout 600 cargo test |& tail -20",
            "cargo build && cargo test | tail",
            "set +o pipefail; cargo test | tail",
            "bash -c 'cargo test | tail'",
            "set -o pipefail & cargo test | tail",
        ] {
            assert!(masked(command).is_some(), "{command}");
        }
        assert_eq!(
            masked("cargo test 2>&1 | tail -5"),
            Some(("cargo test".into(), "tail".into()))
        );
    }

    #[test]
    fn silent_when_exit_status_survives() {
        for command in [
            "cargo test",
            "set -o pipefail; cargo test 2>&1 | tail -5",
            "set -euo pipefail\ncargo test | tail",
            "bash -o pipefail -c 'cargo test 2>&1 | tail -5'",
            "bash -euo pipefail -c 'cargo test | tail'",
            "cargo test | ./check-report.sh",
            "echo 'cargo test | tail'",
            "python script.py | tail",
            "cat log | grep ok",
            "cargo test > out.log",
        ] {
            assert!(masked(command).is_none(), "{command}");
        }
    }
}
