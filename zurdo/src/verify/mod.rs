//! Hint execution: the verifier that `zurdo verify`, the cargo-test harness
//! and the run loop share.
//!
//! Paths are relative to the repository root; `[shell:]` runs `sh -c` there
//! with an allowlisted environment and a deadline that kills its process
//! group. Every hint yields a [`Verdict`] (pass, or a typed [`Reason`]) and
//! the [`Evidence`] it rests on.
//!
//! `[symbol:]`, `[references:]` and `[callers:]` need the `lumen` cargo
//! feature and `[http:]` the `http` one (both on by default); without it
//! such a hint fails with [`Reason::NeedsFeature`].

mod config;
mod counts;
pub mod env;
pub mod files;
pub mod grep;
mod outcome;
pub mod render;
pub(crate) mod runners;
mod summaries;
mod verifier;
pub mod window;

// The cargo features' seam: `[http:]` needs `http`, the structural hints need
// `lumen`; without one, its stand-in in `disabled` fails with a typed reason.
#[cfg(not(all(feature = "http", feature = "lumen")))]
mod disabled;
#[cfg(not(feature = "http"))]
use disabled::http;
#[cfg(feature = "http")]
mod http;
#[cfg(not(feature = "lumen"))]
use disabled::structural;
#[cfg(feature = "lumen")]
mod structural;

pub use config::{
    ConfigError, CoverageConfig, StandingRule, StandingRuleConfig, VerificationConfig, CONFIG_PATH,
};
pub use counts::{tests_vanished, TestCounts};
pub use files::ABSENT;
pub use grep::IgnoreRules;
pub use outcome::{Blob, Captured, CriterionVerdict, Evidence, HintResult, Reason, Verdict};
pub use verifier::{CriterionResult, Verifier};

/// The program of every simple command in a `[shell:]` command, outer
/// first, including those run through `sh -c '…'`; shell builtins and
/// keywords included (callers decide what to resolve).
pub fn command_words(command: &str) -> Vec<String> {
    crate::shell::all_simples(command)
        .iter()
        .filter_map(|s| s.program())
        .collect()
}

/// The arguments of every simple command in a `[shell:]` command, outer
/// first, including those run through `sh -c '…'`: leading assignments,
/// redirections and wrappers (`env`, `timeout 60`, …) removed, the program
/// as written (`./run-tests.sh`, `.venv/bin/pytest`), quotes removed.
/// Commands with no words are left out.
pub fn command_argvs(command: &str) -> Vec<Vec<String>> {
    crate::shell::all_simples(command)
        .iter()
        .map(|s| s.argv().into_iter().map(str::to_string).collect::<Vec<_>>())
        .filter(|argv| !argv.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn argvs_keep_the_program_as_written_and_follow_inner_shells() {
        assert_eq!(
            super::command_argvs(
                "FOO=1 timeout 60 .venv/bin/pytest -q 2>&1 | tail -n 3; sh -c 'npx jest --ci && make test'"
            ),
            [
                vec![".venv/bin/pytest", "-q"],
                vec!["tail", "-n", "3"],
                vec!["sh", "-c", "npx jest --ci && make test"],
                vec!["npx", "jest", "--ci"],
                vec!["make", "test"],
            ]
        );
    }
}
