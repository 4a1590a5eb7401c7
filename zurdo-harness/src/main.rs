//! The `zurdo` command.

use zurdo_harness::{cli, commands};

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Like other Unix filters, end quietly when the reader goes away
    // (`zurdo verify --format json | head`) instead of panicking on EPIPE.
    // SAFETY: restoring a signal's default disposition at start-up, before
    // any thread exists, has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // A same-user process (an agent's leftovers, a criterion walking up
    // /proc) must not read the environment zurdo keeps from the criteria.
    zurdo::exec::protect_own_environment();
    // Every agent CLI runs under a sentinel (this binary again): nothing an
    // agent starts outlives zurdo, even a `kill -9` of zurdo.
    zurdo_harness::agent::sentinel::enable("/proc/self/exe");
    let Some(command) = cli::Cli::parse().into_command() else {
        use clap::CommandFactory;
        let _ = cli::Cli::command().print_help();
        return ExitCode::from(2);
    };
    let outcome = match command {
        cli::Command::Analyze(args) => commands::analyze::run(&args),
        cli::Command::Heal(args) => commands::heal::run(&args),
        cli::Command::Validate(args) => commands::validate::run(&args),
        cli::Command::Verify(args) => commands::verify::run(&args),
        cli::Command::Run(args) => commands::run::run(&args),
        cli::Command::Demo(args) => commands::demo::run(&args),
        cli::Command::Init(args) => commands::init::run(&args),
        cli::Command::Doctor(args) => commands::doctor::run(&args),
        cli::Command::State(command) => commands::state::run(&command),
        cli::Command::Report(args) => commands::report::run(&args),
        cli::Command::Review(args) => commands::review::run(&args),
        cli::Command::Reason(command) => commands::reason::run(&command),
        cli::Command::Lumen(command) => commands::lumen::run(&command),
        cli::Command::Vela(command) => commands::vela::run(&command),
        cli::Command::Pyxis(command) => commands::pyxis::run(&command),
        cli::Command::Skills(command) => commands::skills::run(&command),
        // A fake CLI ends with that CLI's own exit codes.
        cli::Command::Sentinel(args) => match args.command.split_first() {
            Some((program, rest)) => zurdo_harness::agent::sentinel::main(program, rest),
            None => return ExitCode::from(2),
        },
        cli::Command::StandIn(args) => {
            return ExitCode::from(zurdo_standin::main(&args.cli, &args.args))
        }
    };
    match outcome {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(error) => {
            eprintln!("zurdo: {error}");
            ExitCode::from(error.exit().code())
        }
    }
}
