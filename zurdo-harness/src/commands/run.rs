//! `zurdo run <prd>`.

use crate::cli::RunArgs;
use crate::error::Outcome;
use crate::run::{self, Options};

/// Runs the command and returns its exit status.
pub fn run(args: &RunArgs) -> Outcome {
    let options = Options {
        resume: args.resume,
        reset: args.reset,
        no_prompt: args.no_prompt,
        skip_model_check: args.skip_model_check,
        retry_failed: args.retry_failed,
        sealed: args.sealed.clone(),
    };
    run::run(&args.prd, options)
}
