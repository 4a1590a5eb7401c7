//! `zurdo-standin <claude|codex|copilot|gemini> <that CLI's arguments>…`:
//! the scripted stand-in as a program of its own (`zurdo stand-in` runs the
//! same [`zurdo_standin::main`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    // Like the real CLIs, end quietly when the reader goes away instead of
    // panicking on EPIPE.
    // SAFETY: restoring a signal's default disposition at start-up, before
    // any thread exists, has no memory-safety preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect();
    let code = match args {
        Err(bad) => {
            eprintln!("zurdo-standin: an argument is not UTF-8: {bad:?}");
            2
        }
        Ok(args) => match args.split_first() {
            Some((cli, rest)) => zurdo_standin::main(cli, rest),
            None => {
                eprintln!("Usage: zurdo-standin <claude|codex|copilot|gemini> [ARGS]...");
                2
            }
        },
    };
    ExitCode::from(code)
}
