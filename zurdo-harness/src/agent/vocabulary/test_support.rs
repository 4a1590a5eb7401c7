//! What the vocabulary's tests share: the captured streams under
//! `tests/fixtures/streams/` and small builders.

use crate::agent::{AgentReport, Usage};

/// A captured file under `tests/fixtures/streams/`.
macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/streams/",
            $name
        ))
    };
}
pub(super) use fixture;

/// Replays a real run: its stdout and stderr.
macro_rules! run {
    ($provider:expr, $name:literal) => {
        $crate::agent::vocabulary::read(
            $provider,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/",
                $name,
                ".stdout"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/",
                $name,
                ".stderr"
            )),
        )
    };
}
pub(super) use run;

/// No tokens at all.
pub(super) const ZERO: Usage = Usage {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
};

/// Some usage.
pub(super) fn usage(input: u64, output: u64, cached: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        cached_input_tokens: cached,
    })
}

/// The tool names of a report's calls, in order.
pub(super) fn names(report: &AgentReport) -> Vec<&str> {
    report.tool_calls.iter().map(|c| c.name.as_str()).collect()
}
