//! The scripted stand-in agent: `zurdo-standin <claude|codex|copilot|gemini>
//! <that CLI's own arguments>…` (or, the same through zurdo, `zurdo stand-in
//! <cli> …`) behaves like the real CLI driven unattended — same flags, same
//! traps, same event stream on stdout, same exit codes — but does what a
//! script says instead of asking a model. It knows only the CLIs' public
//! behaviour, nothing of zurdo: whatever makes a prompt special (a probe, a
//! reasoner call) is declared by the script. zurdo's bundled demo uses it
//! (with a script of its own) when no agent is installed, and zurdo's tests
//! point a provider's `command` at a two-line wrapper:
//!
//! ```sh
//! #!/bin/sh
//! exec /path/to/zurdo stand-in codex "$@"
//! ```
//!
//! It reads stdin only where the real CLI takes a prompt from it (claude
//! `-p` with no prompt argument, codex with `-` or no prompt, copilot with
//! no `-p`, gemini before its `-p` text; each only when stdin is not a
//! terminal) and ends as soon as its script is done. [`main`]
//! runs it; the [`Script`] types are the script's format, for programs that
//! write one.
//!
//! # Command lines accepted
//!
//! Each CLI's full option table is known (from its `--help`), so any real
//! flag is accepted and an unknown one is a usage error (exit 2). The
//! unattended lines (`CLI-NOTES.md` §2):
//!
//! ```text
//! claude  -p <prompt> --output-format stream-json --verbose --model M --dangerously-skip-permissions [--max-turns N] [--max-budget-usd X]
//! codex   exec --json --skip-git-repo-check -C DIR -m M --dangerously-bypass-approvals-and-sandbox [--ephemeral] [-o FILE] <prompt>
//! copilot -p <prompt> --output-format json -C DIR --model M --allow-all-tools|--allow-all|--yolo --no-ask-user [--no-auto-update] [--usage-output-file FILE]
//! gemini  -p <prompt> -o stream-json -m M --approval-mode yolo|-y --skip-trust
//! ```
//!
//! Other output formats work too (claude `text`/`json`, codex without
//! `--json`, copilot `text`, gemini `text`/`json`), as do the version flags,
//! `claude auth status`, `codex login status` and `codex debug models`
//! (which prints the model list captured from codex-cli 0.171.0,
//! `src/codex-0.171.0-models.txt`: one model a line, `<slug> <list|hide>
//! <api> <efforts>`, in codex's order). (Through `zurdo stand-in`,
//! a `--version`, `-V`, `--help` or `-h` right after the CLI's name is taken
//! by zurdo's own argument parser; claude, copilot and gemini also answer
//! `-v`, codex `exec --version`.) The working directory is
//! `-C` for codex and copilot and the process's own for claude and gemini.
//!
//! # The traps, with the real messages
//!
//! | CLI | condition | stderr | exit |
//! |---|---|---|---|
//! | claude | `--output-format stream-json` without `--verbose` | `Error: When using --print, --output-format=stream-json requires --verbose` | 1 |
//! | claude | `--dangerously-skip-permissions` or `--permission-mode bypassPermissions` as root (euid 0) without `IS_SANDBOX=1` | `--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons` | 1 |
//! | claude | `-p` without a prompt, and nothing on stdin | `Error: Input must be provided either through stdin or as a prompt argument when using --print` | 1 |
//! | codex | no `.git` from the working dir up, no `--skip-git-repo-check` | `Not inside a trusted directory and --skip-git-repo-check was not specified.` | 1 |
//! | codex | no prompt (or `-`), and nothing on stdin | `Reading prompt from stdin...` / `No prompt provided via stdin.` | 1 |
//! | copilot | `-p` without `--allow-all-tools`, `--allow-all`, `--yolo` or `COPILOT_ALLOW_ALL=true` | `Error: --allow-all-tools is required for non-interactive mode …` | 1 |
//! | gemini | no `--skip-trust` and no `GEMINI_CLI_TRUST_WORKSPACE=true` | `… Gemini CLI is not running in a trusted directory. To proceed, either use --skip-trust …` | 55 |
//! | all | an unknown option, a missing or invalid value | the CLI's parser's message (Commander, clap, yargs) | 2 |
//!
//! `ZURDO_STAND_IN_EUID` overrides the effective uid the root check sees.
//! Variadic options swallow the words after them as the real parsers do
//! (`claude -p --add-dir /x "prompt"` has no prompt). Without permission to
//! act the actions are refused the CLI's way and nothing is touched: claude
//! needs `--dangerously-skip-permissions`, `--permission-mode
//! bypassPermissions|acceptEdits|auto` or `--allowedTools Bash/Write/Edit`
//! (acceptEdits covers files, not `run`); codex needs
//! `--dangerously-bypass-approvals-and-sandbox` or `-s
//! workspace-write|danger-full-access` (its default sandbox is read-only);
//! gemini needs `--approval-mode yolo` or `-y` (`auto_edit` covers files).
//!
//! # The script (`ZURDO_STAND_IN_SCRIPT=/path/to/script.json`)
//!
//! ```json
//! {
//!   "attempts": [
//!     {"write": {"src/lib.rs": "pub fn f() {}\n"}, "text": "Wrote f.", "echo_prompt_to": "/tmp/t/prompt-1.txt"},
//!     {"append": {"src/lib.rs": "pub fn g() {}\n"}, "run": "cargo fmt", "usage": {"input_tokens": 900, "output_tokens": 40}}
//!   ],
//!   "on_prompt": [{"contains": "try again", "attempt": {"text": "retrying"}}],
//!   "markers": {"probe": "probe:", "reasoner": "reason:"},
//!   "probe": {"text": "OK"},
//!   "reason": [{"contains": "diagnosis", "attempt": {"text": "a guess"}}],
//!   "models": {"gpt-9": "unknown", "opus-max": "plan", "sso-only": "unauthenticated", "gpt-5-codex": "unlisted"},
//!   "auth": "ok",
//!   "network": "up",
//!   "log": "invocations.jsonl"
//! }
//! ```
//!
//! Every field is optional and unknown fields are refused (typos fail loud:
//! stderr `zurdo stand-in: …`, exit 2, as for an unreadable script).
//!
//! * `attempts`: the N-th invocation that is neither a probe nor a reasoner
//!   call (N from 0, counted in `<script>.count` under an exclusive `flock`)
//!   performs `attempts[N]`; past the end the last attempt repeats; with
//!   none, a default attempt (no actions, text `Done.`).
//! * `on_prompt`: checked before `attempts`; the first rule whose `contains`
//!   occurs in the prompt supplies the attempt. The counter still advances.
//! * `markers`: `{"probe": "…", "reasoner": "…"}`, each optional (an empty
//!   one is refused like a typo): the prompt prefixes that make an
//!   invocation special. A prompt starting with the `probe` marker is a
//!   model probe, one starting with the `reasoner` marker a reasoner call
//!   (the probe wins when both match). With no markers declared no prompt
//!   is special: every invocation is an attempt. (zurdo prefixes its probes
//!   and reasoner calls; its demo and tests declare those prefixes here.)
//! * `probe`: the attempt a probe performs. A probe never consumes an
//!   attempt (probes are counted in `<script>.probes` instead). Default:
//!   text `OK`, 12 input and 1 output tokens.
//! * `reason`: rules like `on_prompt`'s for reasoner calls (a diagnosis or a
//!   lesson extraction). They never consume an attempt (counted in
//!   `<script>.reasons`); with no matching rule the reasoner answers an
//!   empty text.
//! * `models`: `"unknown"`, `"plan"` (plan-gated), `"unauthenticated"`,
//!   `"unlisted"` or `"ok"`, keyed by the model named on the command line (or the CLI's
//!   default model; for claude also the full name an alias resolves to:
//!   `sonnet` → `claude-sonnet-5`, `opus` → `claude-opus-4-8`, `haiku` →
//!   `claude-haiku-4-5`, `fable` → `claude-fable-5`). Applies to probes and
//!   attempts alike, before any attempt is consumed:
//!   claude — assistant `"error":"model_not_found"` with ``There's an issue
//!   with the selected model (M). It may not exist or you may not have
//!   access to it. Run /model to pick a different model.``, result
//!   `is_error:true`, exit 1; codex — (unknown: an `item.completed` error
//!   item ``Model metadata for `M` not found…`` first) `error` +
//!   `turn.failed` (`unexpected status 404 Not Found: The model `M` does not
//!   exist or you do not have access to it.` / `The 'M' model is not
//!   supported when using Codex with a ChatGPT account.`), exit 1; copilot —
//!   stderr `Error: No supported model available: …`, exit 1, no stdout;
//!   gemini — `result` `status:"error"` with the API's 404/403 text, exit 1.
//!   `unauthenticated` behaves as `"auth": "missing"`. `unlisted` is a model
//!   that works but that the CLI's own catalog does not list: codex first
//!   reports the ``Model metadata for `M` not found. Defaulting to fallback
//!   metadata; this can degrade performance and cause issues.`` item
//!   (`item.completed`, type `error`, right after `thread.started`, as
//!   captured) and goes on; the other CLIs behave as for `ok`.
//! * `auth`: `"missing"` makes every invocation fail as that CLI does when
//!   logged out (no attempt consumed): claude — init, synthetic assistant
//!   `"error":"authentication_failed"` `Not logged in · Please run /login`,
//!   result `is_error:true`, exit 1; codex — `turn.failed` `unexpected
//!   status 401 Unauthorized: …`, exit 1; copilot — stderr `Error: No
//!   authentication information found.` …, exit 1; gemini — stderr `Please
//!   set an Auth method in your ~/.gemini/settings.json …`, exit 41 (before
//!   the trust check, as the real one).
//! * `network`: `"down"` makes every invocation (after the auth and model
//!   checks; no attempt consumed) do what the real CLI did with no network
//!   to its vendor (`real-runs/*-long`, `copilot-fake`), with the real
//!   messages but less waiting: codex — `thread.started` (the `unlisted`
//!   warning), `turn.started`, `error` `Reconnecting... 2/5 (stream
//!   disconnected before completion: failed to lookup address information:
//!   Name does not resolve)` to `5/5` 0.1 s apart (each with a
//!   `codex_api::endpoint::responses_websocket` ERROR line on stderr), the
//!   `item.completed` error item `Falling back from WebSockets to HTTPS
//!   transport. …`, then `error` `Reconnecting... waiting for network
//!   (Connection failed: error sending request)` every second, for good:
//!   like the real one it never exits on its own (it ends when killed, or
//!   when nobody reads its stdout); claude — ten `system`/`api_retry` events
//!   without an HTTP status 0.2 s apart, then `API Error: Unable to connect
//!   to API (ConnectionRefused)` (`server_error`, result `is_error:true`),
//!   exit 1; gemini — nine `Attempt N failed. Retrying with backoff...
//!   Error: exception TypeError: fetch failed sending request` lines on
//!   stderr 0.2 s apart, then `result` `status:"error"` `[API Error:
//!   exception TypeError: fetch failed sending request]`, exit 1; copilot —
//!   stderr `Error: Authentication token found but could not be
//!   validated.` / `Failed to fetch PAT user login: network fetch failed: …`,
//!   exit 1. Default `"up"`.
//! * `log`: a file (relative to the script's directory) that gets one JSON
//!   line per invocation: `{"cli", "args", "cwd", "workdir", "prompt",
//!   "probe", "reasoner", "attempt"}` (`probe` and `reasoner` say what the
//!   markers made of the prompt; `attempt` is the counter value, null for
//!   probes, reasoner calls and invocations refused before one was
//!   consumed).
//!
//! An attempt, every field optional, performed in this order:
//!
//! * `echo_prompt_to`: path; the prompt received is written there.
//! * `retries`: N non-fatal retry notices first (claude `system`/`api_retry`,
//!   codex `error` `Reconnecting... i/5 …`, copilot `session.warning`,
//!   gemini stderr `Attempt i failed. Retrying with backoff...`).
//! * `tool_calls`: `[{"name", "input" (any JSON), "output", "ok"}]`, only
//!   reported, as the CLI's own tool events (codex: `command_execution`
//!   when `input` is a string or has `command`, else `mcp_tool_call`).
//! * `write` (path → contents), `append` (path → text, file created when
//!   missing), `delete` (paths; directories recursively), `run` (a command
//!   or a list; `sh -c` in the working dir, stdin closed, output captured):
//!   each performed for real and reported as the CLI's tool events (a
//!   delete as an `rm -rf` shell call, except for codex) — claude
//!   `Write`/`Bash` `tool_use` + `tool_result`; codex `file_change` and
//!   `command_execution`; copilot `create`/`edit`/`bash`
//!   `tool.execution_start`/`_complete`; gemini `write_file`/
//!   `run_shell_command` `tool_use`/`tool_result`. Paths are relative to the
//!   working dir (absolute ones are used as they are); maps run in key order.
//! * `sleep_ms`: a plain sleep (a kill ends it), after the actions.
//! * `stderr`: text written to stderr.
//! * `text`: the final assistant text (default `Done.`; `""` = none at all,
//!   for canary tests). Gemini streams it as `delta` chunks, copilot as an
//!   ephemeral `assistant.message_delta` then `assistant.message`.
//! * `usage`: `{"input_tokens", "output_tokens", "cached_input_tokens"}`,
//!   input including cached (default 1200/80/0; `null` = no token counts in
//!   the stream). Claude splits it over its assistant messages (summing to
//!   the result's `usage` when the run ends normally; its `input_tokens`
//!   exclude the cached, which are `cache_read_input_tokens`); codex puts it on
//!   `turn.completed`; copilot spreads `outputTokens` over its
//!   `assistant.message`s; gemini reports it in `result.stats`.
//! * `cost_usd`: claude's `total_cost_usd` (default: $3/M input, $15/M
//!   output). The other CLIs report no cost.
//! * `error`: `"message"` or `{"kind": "auth"|"rate_limit"|"quota"|"server"|
//!   "model"|"other", "message": "…"}`, reported after the actions the CLI's
//!   way: claude synthetic assistant message with `"error"`
//!   (`authentication_failed`, `rate_limit`, `billing_error`,
//!   `server_error`, `model_not_found`, `unknown`) + result `is_error:true`;
//!   codex `error` + `turn.failed`; copilot `session.error` + result
//!   `exitCode:1`; gemini result `status:"error"`. Exit 1.
//! * `fail`: the CLI cannot work, acted out with the real CLI's words,
//!   stream and exit code: `"auth"`, `"quota"`, `"rate_limit"`,
//!   `"network"` or `"crash"`, or `{"kind": "rate_limit", "resets_in_s":
//!   N}` (a limit that resets N seconds from now, said where the CLI says
//!   it). Where the real CLI meets it before any turn (`auth` everywhere,
//!   `network` for copilot, which validates its login over the network)
//!   nothing of the attempt is done; otherwise it comes after the actions
//!   (work done, then the failure), in place of the final answer:
//!
//!   | CLI | `quota` | `rate_limit` | `network` |
//!   |---|---|---|---|
//!   | claude | synthetic assistant `billing_error` + result `api_error_status` 429 `You've hit your monthly spend limit. Switch to another model to continue.` (CLI-NOTES §5), exit 1 | with a reset: `rate_limit_event` `{"status":"rejected","resetsAt":<unix s>}` (desplega-ai/agent-swarm#508), then `You've hit your limit · resets 7pm (UTC)` (anthropics/claude-code#23236); without: `API Error: 429 {…"rate_limit_error"…}` (#6119); exit 1 | ten `system`/`api_retry` (`error_status: null`), 300 ms apart, then `API Error: Unable to connect to API (ConnectionRefused)` (real-runs/claude-fakekey-long), exit 1 |
//!   | codex | `error` + `turn.failed` `Quota exceeded. Check your plan and billing details.` (openai/codex#8987), exit 1 | with a reset: `You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 minutes.` (#3124); without: `exceeded retry limit, last status: 429 Too Many Requests, request id: …` (#10550); exit 1 | `Reconnecting... 2/5 … 5/5 (…failed to lookup address information…)`, the `Falling back from WebSockets to HTTPS transport` item, then `Reconnecting... waiting for network (Connection failed: error sending request)` every 5 s for ever, never `turn.failed` (real-runs/codex-json) |
//!   | copilot | `session.error` `quota` `You have no quota` (github/copilot-cli#730) + result `exitCode` 1, exit 1 | `session.error` `rate_limit` `Sorry, you've hit a rate limit … Please try again in 2 minutes. …` (#2336, #2769), exit 1 | at start, stderr `Error: Authentication token found but could not be validated.` / `Failed to fetch PAT user login: network fetch failed…` (real-runs/copilot-fake), exit 1 |
//!   | gemini | result `error.type` `TerminalQuotaError`, `You exceeded your current quota…` (google-gemini/gemini-cli#26840, #1088), exit 1 | result `[API Error: …"Resource has been exhausted (e.g. check quota)."…RESOURCE_EXHAUSTED…]` (#1905; gemini says no reset time), exit 1 | nine `Attempt N failed. Retrying with backoff... Error: exception TypeError: fetch failed sending request` with their stack, 300 ms apart, `Error when talking to Gemini API Full report available at: …`, result `[API Error: exception TypeError: fetch failed sending request]` (real-runs/gemini-fake-long), exit 1 |
//!
//!   `auth` fails as the script-wide `"auth": "missing"` does (above), for
//!   this attempt only; `crash` does the actions, then dies of SIGSEGV (no core
//!   file). The real waits are shortened (claude's retries take 3 min,
//!   gemini's 3.5 min); the words, events and exit codes are the real ones.
//! * `exit`: the exit status, overriding the CLI's own.
//!
//! Claude's `--max-turns N` stops after N tool steps when more remain (result
//! `error_max_turns`, exit 1); `--max-budget-usd X` turns a dearer attempt
//! into `error_max_budget_usd`. Codex `-o FILE` is created empty at start and
//! gets the last message; copilot `--usage-output-file FILE` gets a usage
//! summary.
//!
//! # Without a script
//!
//! With `ZURDO_STAND_IN_SCRIPT` unset (or empty) the stand-in acts as for an
//! empty script: every invocation performs the default attempt (no actions,
//! text `Done.`) and no counters are kept.
//!
//! # Streams
//!
//! stdout carries each CLI's own JSONL (one object a line, flushed as it
//! goes), shaped as in `CLI-NOTES.md` §3 and the captures. Codex also prints
//! one non-JSON line on stdout (a tracing warning, after `turn.started`), and
//! its usual `Reading additional input from stdin...` on stderr, so readers
//! must skip what is not JSON. Ids are deterministic; timestamps are real.

mod argv;
mod claude;
mod codex;
mod copilot;
mod engine;
mod gemini;
mod script;
mod support;

pub use script::{
    Attempt, Auth, Commands, ErrorKind, ErrorSpec, Fail, FailDetail, FailKind, Markers,
    ModelStatus, Network, PromptRule, Script, Tokens, ToolCallSpec,
};

pub(crate) use engine::*;
pub(crate) use support::*;

/// The environment variable naming the script.
pub const SCRIPT_ENV: &str = "ZURDO_STAND_IN_SCRIPT";

/// Runs the stand-in for `cli` with the real CLI's `args`; returns the exit
/// status.
pub fn main(cli: &str, args: &[String]) -> u8 {
    match cli {
        "claude" => claude::main(args),
        "codex" => codex::main(args),
        "copilot" => copilot::main(args),
        "gemini" => gemini::main(args),
        other => {
            eprintln!(
                "zurdo stand-in: unknown CLI `{other}` (expected claude, codex, copilot or gemini)"
            );
            2
        }
    }
}
