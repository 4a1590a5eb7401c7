//! `constant-shell`: a `[shell:]` hint whose exit status is fixed by
//! construction — `true`, `echo done`, `cargo test || true`, `exit 1` — so
//! the criterion can't fail, or can't pass.
//!
//! The exit status is worked out by following the command's control flow
//! over two outcomes, zero and non-zero: a command zurdo can't predict may
//! give either, `true`, `:`, `echo` and `printf` give zero, `false` gives
//! non-zero, and `exit N` ends the script with `N`.

use super::{Lint, CONSTANT_SHELL};
use crate::hint::{Check, Hint};
use crate::model::Prd;
use crate::shell::{self, AndOr, Connector, Pipeline, Script, Simple};

/// Reports every `[shell:]` hint whose exit status is fixed.
pub(crate) fn check(prd: &Prd, out: &mut Vec<Lint>) {
    for criterion in prd.tasks.iter().flat_map(|t| &t.criteria) {
        for hint in &criterion.hints {
            if let Check::Shell { command } = &hint.check {
                if let Some(lint) = check_command(hint, command, criterion.line) {
                    out.push(lint);
                }
            }
        }
    }
}

fn check_command(hint: &Hint, command: &str, line: usize) -> Option<Lint> {
    let script = shell::parse(command);
    let statuses = Outcomes::of_script(&script);
    let source = &hint.source;
    if statuses.all(Status::Zero) {
        let (why, fix) = why_zero(&script);
        Some(Lint::new(
            CONSTANT_SHELL,
            line,
            format!("`{source}` can't fail: {why}, so the criterion passes whatever the work did"),
            fix,
        ))
    } else if statuses.all(Status::NonZero) {
        let why = why_nonzero(&script);
        Some(Lint::new(
            CONSTANT_SHELL,
            line,
            format!("`{source}` can't pass: {why}, so the task fails on every attempt"),
            "replace it with a command that exits 0 once the work is done; \
             use [manual] if a human must decide",
        ))
    } else {
        None
    }
}

/// How `command`'s exit status comes out by construction: the rule this
/// family reports on, for checks outside the lint (an edit that turns a
/// `[shell:]` constant weakens its criterion: [`crate::weaken`]).
pub(crate) fn exit_of(command: &str) -> super::ShellExit {
    let statuses = Outcomes::of_script(&shell::parse(command));
    if statuses.all(Status::Zero) {
        super::ShellExit::CantFail
    } else if statuses.all(Status::NonZero) {
        super::ShellExit::CantPass
    } else {
        super::ShellExit::Either
    }
}

/// Explains an always-zero exit status and proposes the fix.
fn why_zero(script: &Script) -> (String, String) {
    let generic_fix = "run the command that proves the behaviour and let its exit status \
                       decide, e.g. [shell: cargo test --workspace]"
        .to_string();
    let Some(last) = script.lists.last() else {
        return ("it runs nothing".into(), generic_fix);
    };
    if last.background {
        return (
            "the script ends by starting a background job, which exits 0 at once".into(),
            "drop the trailing `&` so the command's exit status decides the criterion".into(),
        );
    }
    let single = script.lists.len() == 1 && last.rest.is_empty() && last.first.stages.len() == 1;
    if single {
        let raw = &last.first.raw;
        let why = match last
            .first
            .stages
            .first()
            .and_then(Simple::program)
            .as_deref()
        {
            Some("echo" | "printf") => format!("`{raw}` only prints, and printing exits 0"),
            _ => format!("`{raw}` always exits 0"),
        };
        return (why, generic_fix);
    }
    // `… || true`: the last pipeline of the last list is the fallback.
    if let Some((Connector::Or, fallback)) = last.rest.last() {
        if Outcomes::of_pipeline(fallback, false).all(Status::Zero) {
            let tail = format!("|| {}", fallback.raw);
            return (
                format!("the trailing `{tail}` turns every failure into exit 0"),
                format!("remove `{tail}` so the command's own exit status decides the criterion"),
            );
        }
    }
    // `…; true`: the last list alone decides the status.
    if script.lists.len() > 1 && last.rest.is_empty() && !last.background {
        let tail = &last.first.raw;
        return (
            format!("the script ends with `{tail}`, which exits 0 whatever ran before it"),
            format!(
                "remove `; {tail}`, or join the commands with `&&` so a failure stops the script"
            ),
        );
    }
    ("its exit status is 0 on every path".into(), generic_fix)
}

/// Explains an always-non-zero exit status.
fn why_nonzero(script: &Script) -> String {
    match script.lists.as_slice() {
        [only] if only.rest.is_empty() && only.first.stages.len() == 1 => {
            format!("`{}` always exits non-zero", only.first.raw)
        }
        _ => "its exit status is non-zero on every path".into(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Zero,
    NonZero,
}

impl Status {
    fn flip(self) -> Status {
        match self {
            Status::Zero => Status::NonZero,
            Status::NonZero => Status::Zero,
        }
    }

    fn of_code(code: i64) -> Status {
        if code.rem_euclid(256) == 0 {
            Status::Zero
        } else {
            Status::NonZero
        }
    }
}

/// What one simple command does to the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Always this status.
    Always(Status),
    /// Either status.
    Unknown,
    /// `exit N`: ends the script with this status.
    Exit(Status),
    /// `exit` or `exit $?`: ends the script with the current status.
    ExitCurrent,
    /// `exit $x`: ends the script with an unknown status.
    ExitUnknown,
}

fn effect(simple: &Simple) -> Effect {
    let argv = simple.argv();
    let Some((first, args)) = argv.split_first() else {
        return Effect::Always(Status::Zero); // only redirections or assignments
    };
    match shell::basename(first) {
        "true" | ":" | "echo" | "printf" => Effect::Always(Status::Zero),
        "false" => Effect::Always(Status::NonZero),
        "exit" => match args.first() {
            None => Effect::ExitCurrent,
            Some(&"$?") => Effect::ExitCurrent,
            Some(code) => code
                .parse::<i64>()
                .map_or(Effect::ExitUnknown, |c| Effect::Exit(Status::of_code(c))),
        },
        _ => Effect::Unknown,
    }
}

/// One possible state of the script: its last status and whether it exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct World {
    status: Status,
    exited: bool,
}

/// The set of states the script may be in (at most four).
#[derive(Debug, Clone, Default)]
struct Outcomes(Vec<World>);

impl Outcomes {
    fn start() -> Outcomes {
        Outcomes(vec![World {
            status: Status::Zero,
            exited: false,
        }])
    }

    fn add(&mut self, world: World) {
        if !self.0.contains(&world) {
            self.0.push(world);
        }
    }

    fn all(&self, status: Status) -> bool {
        !self.0.is_empty() && self.0.iter().all(|w| w.status == status)
    }

    fn of_script(script: &Script) -> Outcomes {
        let mut worlds = Outcomes::start();
        let mut pipefail = false;
        for list in &script.lists {
            worlds = worlds.run_list(list, &mut pipefail);
        }
        worlds
    }

    fn run_list(&self, list: &AndOr, pipefail: &mut bool) -> Outcomes {
        let mut worlds = self.clone();
        for (connector, pipeline) in list.pipelines() {
            let mut next = Outcomes::default();
            for &world in &worlds.0 {
                let runs = !world.exited
                    && match connector {
                        None => true,
                        Some(Connector::And) => world.status == Status::Zero,
                        Some(Connector::Or) => world.status == Status::NonZero,
                    };
                if runs {
                    for w in run_pipeline(pipeline, world, *pipefail && !list.background) {
                        next.add(w);
                    }
                } else {
                    next.add(world);
                }
            }
            if !list.background && pipeline.stages.iter().any(Simple::sets_pipefail) {
                *pipefail = true;
            }
            worlds = next;
        }
        if list.background {
            // The list runs in a subshell; starting it succeeds at once.
            let mut after = Outcomes::default();
            for world in &self.0 {
                after.add(if world.exited {
                    *world
                } else {
                    World {
                        status: Status::Zero,
                        exited: false,
                    }
                });
            }
            return after;
        }
        worlds
    }

    /// The statuses a pipeline may end with, run on its own.
    fn of_pipeline(pipeline: &Pipeline, pipefail: bool) -> Outcomes {
        let start = World {
            status: Status::Zero,
            exited: false,
        };
        let mut out = Outcomes::default();
        for w in run_pipeline(pipeline, start, pipefail) {
            out.add(w);
        }
        out
    }
}

/// The worlds a pipeline leads to from `world`.
fn run_pipeline(pipeline: &Pipeline, world: World, pipefail: bool) -> Vec<World> {
    let live = |status: Status| World {
        status: if pipeline.negated {
            status.flip()
        } else {
            status
        },
        exited: false,
    };
    let both = || vec![live(Status::Zero), live(Status::NonZero)];
    if let [only] = pipeline.stages.as_slice() {
        let exit = |status: Status| {
            vec![World {
                status,
                exited: true,
            }]
        };
        return match effect(only) {
            Effect::Always(s) => vec![live(s)],
            Effect::Unknown => both(),
            Effect::Exit(s) => exit(s),
            Effect::ExitCurrent => exit(world.status),
            Effect::ExitUnknown => vec![
                World {
                    status: Status::Zero,
                    exited: true,
                },
                World {
                    status: Status::NonZero,
                    exited: true,
                },
            ],
        };
    }
    // Several stages: each runs in a subshell, so `exit` ends only its stage.
    let stage_status = |simple: &Simple| match effect(simple) {
        Effect::Always(s) | Effect::Exit(s) => Some(s),
        Effect::Unknown | Effect::ExitCurrent | Effect::ExitUnknown => None,
    };
    let known: Option<Status> = if pipefail {
        let statuses: Vec<Option<Status>> = pipeline.stages.iter().map(stage_status).collect();
        if statuses.contains(&Some(Status::NonZero)) {
            Some(Status::NonZero)
        } else if statuses.iter().all(|s| *s == Some(Status::Zero)) {
            Some(Status::Zero)
        } else {
            None
        }
    } else {
        pipeline.stages.last().and_then(stage_status)
    };
    match known {
        Some(s) => vec![live(s)],
        None => both(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(command: &str) -> &'static str {
        let o = Outcomes::of_script(&shell::parse(command));
        if o.all(Status::Zero) {
            "zero"
        } else if o.all(Status::NonZero) {
            "nonzero"
        } else {
            "either"
        }
    }

    #[test]
    fn exit_of_agrees_with_the_lint() {
        use super::super::ShellExit;
        assert_eq!(exit_of("cargo test || true"), ShellExit::CantFail);
        assert_eq!(exit_of("exit 3"), ShellExit::CantPass);
        assert_eq!(exit_of("cargo test"), ShellExit::Either);
    }

    #[test]
    fn explains_the_cause() {
        let why = |c: &str| why_zero(&shell::parse(c));
        assert!(why("cargo test &").0.contains("background"));
        assert!(why("true").0.contains("`true` always exits 0"));
        assert!(why("echo ok").0.contains("only prints"));
        assert!(why("cargo test || true").1.contains("remove `|| true`"));
        assert!(why("cargo test; exit 0").1.contains("remove `; exit 0`"));
        assert!(why("# cargo test").0.contains("runs nothing"));
    }

    #[test]
    fn fixed_statuses() {
        for zero in [
            "true",
            ":",
            "/bin/true",
            "exit 0",
            "exit 256",
            "echo hello",
            "printf '%s' x",
            "cargo test || true",
            "cargo test || :",
            "cargo test || exit 0",
            "cargo test; true",
            "cargo test; exit 0",
            "cargo test ; echo done",
            "cargo test || echo failed",
            "exit 0; cargo test",
            "cargo test &",
            "# cargo test",
            "! false",
            "cargo test | true",
        ] {
            assert_eq!(outcome(zero), "zero", "{zero}");
        }
        for nonzero in [
            "false",
            "exit 1",
            "exit 3",
            "/usr/bin/false",
            "cargo test && false",
            "cargo test; exit 2",
            "! true",
            "set -o pipefail; false | cat",
        ] {
            assert_eq!(outcome(nonzero), "nonzero", "{nonzero}");
        }
        for either in [
            "cargo test",
            "cargo test && true",
            "true && cargo test",
            "echo hi && cargo test",
            "cargo build; cargo test",
            "cargo test || exit 1",
            "exit $rc",
            "cargo test; exit $?",
            "cargo test; exit",
            "test -f x || false",
            "echo 'a || true' | grep b",
            "false | cargo test",
            "bash -c 'true'",
        ] {
            assert_eq!(outcome(either), "either", "{either}");
        }
    }
}
