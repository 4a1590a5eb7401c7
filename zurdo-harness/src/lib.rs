//! The zurdo engine behind the `zurdo` binary: config, the agent adapters,
//! evidence integrity, reasoning, run state, the event stream, reports and
//! the run loop, and one module per subcommand. `main.rs` only parses
//! arguments, dispatches, and prints an error once.
//!
//! The modules are layered; each imports only from the layers below it
//! (`docs/architecture.md` draws them and follows one attempt through):
//!
//! 1. [`error`] (exit codes and the error type), [`agent`] (providers, the
//!    CLIs' command lines and event streams), [`evidence`] (baselines,
//!    frozen paths, toolchain, the clean room, behind [`evidence::Guards`]),
//!    [`escalation`] (the ladder a failing task climbs: its rungs and
//!    triggers), [`policy`], [`budget`] (cost budgets and the prediction of an
//!    attempt's spend), [`config`], [`prompt`], [`pyxis`] (a task's query and
//!    its `# Where to look` section), [`reason`] (fingerprints,
//!    diagnosis, the lesson library, the analyzer's critique and heals),
//!    [`edit`] (edits of a PRD's criteria, checked before they are shown);
//! 2. [`state`] (`.zurdo/<slug>/`: prd.json, the lock, every state file);
//! 3. [`event`] (what a run reports: rendered live, logged to progress.log);
//! 4. [`report`] (the run report, from prd.json and the events);
//! 5. [`run`] (the loop) and [`vela`] (the index watcher);
//! 6. [`commands`] and [`cli`].

pub mod agent;
pub mod budget;
pub mod cli;
pub mod commands;
pub mod config;
pub mod edit;
pub mod error;
pub mod escalation;
pub mod event;
pub mod evidence;
pub mod policy;
pub mod prompt;
pub mod pyxis;
pub mod reason;
pub mod report;
pub mod run;
pub mod skills;
pub mod state;
pub mod vela;
