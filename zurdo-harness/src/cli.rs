//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// zurdo makes a PRD executable: it validates the PRD's grammar, verifies
/// its acceptance criteria, and drives coding agents task by task.
#[derive(Debug, Parser)]
#[command(
    name = "zurdo",
    version,
    about,
    long_about = None,
    propagate_version = true,
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true,
    override_usage = "zurdo <COMMAND>\n       zurdo --analyze <PRD>..."
)]
pub struct Cli {
    /// The same as `zurdo analyze <PRD>...`.
    #[arg(long, value_name = "PRD", num_args = 1..)]
    pub analyze: Vec<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The command to run: the subcommand, or `analyze` for `--analyze`
    /// (`None` when neither was given).
    pub fn into_command(self) -> Option<Command> {
        match self.command {
            Some(command) => Some(command),
            None if !self.analyze.is_empty() => Some(Command::Analyze(AnalyzeArgs {
                prds: self.analyze,
                format: Format::Human,
                fix: false,
                yes: false,
                rounds: DEFAULT_ROUNDS,
            })),
            None => None,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check PRDs against the grammar and the dependency graph, and lint their criteria.
    ///
    /// Prints every error as `<path>:<line>: <message>` with the fix, then the
    /// lint warnings. Exits 0 when every PRD is valid (warnings allowed) and 2
    /// when any has an error or cannot be read.
    Validate(ValidateArgs),

    /// Review PRDs before spending on them: validate, lessons the criteria
    /// ignore, and the analyzer's critique.
    ///
    /// Everything `validate` reports, plus `unaddressed-lesson` (a lesson of
    /// the library that matches a task while its criteria ignore it), plus,
    /// with [roles.analyzer], a critique: criteria too vague to verify, hints
    /// that prove nothing, criteria that miss their requirement, missing
    /// negative cases. A finding that cites a line or file the PRD and the
    /// repository do not have is dropped unread. With --fix the analyzer
    /// proposes edits; each must validate and weaken nothing, and is shown
    /// as a diff and written with --yes or on confirmation. Exits 0 when
    /// clean, 1 on warnings or findings, 2 on an invalid PRD.
    Analyze(AnalyzeArgs),

    /// Run every acceptance criterion of a PRD against the working tree now.
    ///
    /// The same verifier as `cargo test --test prd` and `zurdo run`: hints run
    /// at the repository root, `[shell:]` with an allowlisted environment and
    /// a deadline. Exits 0 when every automated criterion passes (`[manual]`
    /// ones await review), 1 when any fails, 2 on a bad PRD or config.
    Verify(VerifyArgs),

    /// Execute a PRD: drive the configured agent CLI task by task and judge
    /// every attempt by running the criteria.
    ///
    /// Tasks run in dependency order. Each gets a pre-flight (criteria on
    /// the tree as-is; all green means no agent), then agent attempts, each
    /// followed by zurdo's own verification, until it passes or
    /// Max-Attempts runs out. State lives in .zurdo/<slug>/ and a second
    /// `zurdo run` resumes. Exit codes: 0 all passed, 1 a task failed or is
    /// blocked, 2 bad PRD or config, 3 refused (another run holds the lock),
    /// 4 the PRD changed since the saved state, or a model probe failed.
    Run(RunArgs),

    /// Heal criteria whose hints, not the work, made a run fail.
    ///
    /// Lists the candidates from the run state (heal routings, criteria that
    /// failed because a command was not found, a test filter selected
    /// nothing, a path never existed, a server never answered) and the
    /// lessons that match them. With [roles.analyzer] (or --line/--with) a
    /// corrected line is checked (it validates and weakens nothing), run on
    /// the working tree, shown as a diff and written with --yes or on
    /// confirmation; prd.json's hash of the PRD moves with it, so the next
    /// `zurdo run` resumes. Exits 0 when nothing is left to heal, 1 when
    /// candidates remain, 2 on a bad PRD or record, 3 when a run holds the
    /// PRD, 4 when the PRD changed since its run state was written.
    Heal(HealArgs),

    /// Run the whole loop on an embedded example with a scripted stand-in
    /// agent: nothing to install, nothing spent.
    Demo(DemoArgs),

    /// Write a commented .zurdo/config.toml (never touches .gitignore).
    ///
    /// Its effort maps come from each CLI's own model list where the CLI
    /// can list offline (`codex debug models`), else from zurdo's
    /// documented defaults; it says which.
    Init(InitArgs),

    /// Check the setup: the config, each provider's CLI and every model in
    /// use. Writes nothing.
    ///
    /// Each provider's CLI: installed or not (and its version), logged in
    /// or not where it has an offline check, the models it lists where it
    /// can. Every effort-map model of the executor, and the analyzer's and
    /// the reasoner's: probed through its CLI, all at once.
    Doctor(DoctorArgs),

    /// Inspect run state.
    #[command(subcommand)]
    State(StateCommand),

    /// Write and print the report of a PRD's run from its saved state:
    /// statuses, attempts, tokens, and (each only when not empty) Reviews,
    /// Diagnoses, Fingerprint Stalls, Halt Attributions, Heal Routings,
    /// Lessons Extracted and Lessons Injected.
    Report(ReportArgs),

    /// Sign off `[manual]` criteria: walk what awaits review (the
    /// criterion, the task's diff since its rollback point, the automated
    /// evidence) and approve, reject (with a reason) or skip each.
    ///
    /// Decisions are appended to .zurdo/<slug>/review-log.jsonl, a hash
    /// chain. A task whose every [manual] criterion is approved becomes
    /// passed; a rejection sends it back to pending, its next prompt
    /// carrying the reason. Holds the PRD's lock (exit 3 while a run holds
    /// it). Without a terminal on stdin and without --approve/--reject it
    /// lists what awaits review and asks nothing. Exit codes: 0 done, 1
    /// --verify found the chain broken, 2 a bad PRD, argument or state, 3
    /// refused (the lock), 4 the PRD changed since its run state.
    Review(ReviewArgs),

    /// The lesson library (`lessons/lesson-<hash8>.md`): list it, preview
    /// what would surface for a PRD's tasks, or delete it.
    #[command(subcommand)]
    Reason(ReasonCommand),

    /// Lumen, the structural index behind `[symbol:]`, `[references:]` and
    /// `[callers:]` (.zurdo/lumen/, shared by every PRD).
    #[command(subcommand)]
    Lumen(LumenCommand),

    /// Vela, the optional watcher that keeps Lumen's index warm as files
    /// change (one per repository; it never changes a verdict).
    #[command(subcommand)]
    Vela(VelaCommand),

    /// Pyxis, the retrieval index: which files and definitions a text
    /// points at, and why (.zurdo/pyxis/index.json). With `[pyxis] enabled
    /// = true` a task's first prompt gains its "Where to look".
    #[command(subcommand)]
    Pyxis(PyxisCommand),

    /// The bundled skills (zurdo-prd-author, zurdo-hint-debugger,
    /// zurdo-state-summary): where they are installed and whether up to
    /// date, and installing them into the providers' skill directories.
    #[command(subcommand)]
    Skills(SkillsCommand),

    /// A scripted stand-in for an agent CLI (the demo agent and the tests'
    /// agents; the zurdo-standin crate): `zurdo stand-in <claude|codex|copilot|gemini> <that CLI's args>…`.
    #[command(hide = true, disable_help_flag = true, disable_version_flag = true)]
    StandIn(StandInArgs),

    /// The agent CLI's parent, which kills whatever the agent started when
    /// zurdo goes away (`zurdo __sentinel -- <cli> <args>…`; started by
    /// zurdo itself, never by hand).
    #[command(
        name = "__sentinel",
        hide = true,
        disable_help_flag = true,
        disable_version_flag = true
    )]
    Sentinel(SentinelArgs),
}

#[derive(Debug, Args)]
pub struct SentinelArgs {
    /// The agent CLI and its arguments.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "CLI"
    )]
    pub command: Vec<std::ffi::OsString>,
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Readable lines.
    Human,
    /// One JSON document on stdout (each command documents its fields).
    Json,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// PRD files to validate.
    #[arg(required = true, value_name = "PRD")]
    pub prds: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// `--fix` rounds when `--rounds` is not given.
pub const DEFAULT_ROUNDS: u32 = 2;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// PRD files to analyze.
    #[arg(required = true, value_name = "PRD")]
    pub prds: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Ask the analyzer for edits that fix its findings; each is checked,
    /// shown as a diff and written on confirmation (the trail goes to
    /// .zurdo/<slug>/analyze-iterations/).
    #[arg(long)]
    pub fix: bool,

    /// With --fix: write every edit that passes the checks without asking.
    #[arg(long, requires = "fix")]
    pub yes: bool,

    /// With --fix: rounds at most; a later round asks again only for the
    /// edits zurdo refused, telling the analyzer why.
    #[arg(long, requires = "fix", value_name = "N", default_value_t = DEFAULT_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=10))]
    pub rounds: u32,
}

#[derive(Debug, Args)]
pub struct HealArgs {
    /// The PRD whose criteria to heal.
    #[arg(value_name = "PRD")]
    pub prd: PathBuf,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// List the candidates only; ask the analyzer nothing.
    #[arg(long, conflicts_with_all = ["yes", "line"])]
    pub list: bool,

    /// Accept every heal that passes the checks without asking.
    #[arg(long)]
    pub yes: bool,

    /// Only this task's candidates.
    #[arg(long = "task", value_name = "TASK-ID")]
    pub task: Option<String>,

    /// Heal this criterion line yourself, with --with (the same checks apply).
    #[arg(long, value_name = "LINE", requires = "with")]
    pub line: Option<usize>,

    /// With --line: the criterion line to put in its place, `- [ ] <title> [hint]…`.
    #[arg(
        long = "with",
        value_name = "CRITERION",
        requires = "line",
        allow_hyphen_values = true
    )]
    pub with: Option<String>,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The PRD whose criteria to run.
    #[arg(value_name = "PRD")]
    pub prd: PathBuf,

    /// Only these tasks (repeatable).
    #[arg(long = "task", value_name = "TASK-ID")]
    pub tasks: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Also check the sealed criteria of this file (default: the config's
    /// `[verification] sealed`).
    #[arg(long, value_name = "FILE")]
    pub sealed: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct StandInArgs {
    /// Which CLI to imitate: claude, codex, copilot or gemini.
    pub cli: String,

    /// The arguments the real CLI would get.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The PRD to execute.
    #[arg(value_name = "PRD")]
    pub prd: PathBuf,

    /// Resume existing state without asking.
    #[arg(long, conflicts_with = "reset")]
    pub resume: bool,

    /// Archive existing state under .zurdo/<slug>/.archive/ and start over.
    #[arg(long)]
    pub reset: bool,

    /// Never ask; resume when state exists.
    #[arg(long)]
    pub no_prompt: bool,

    /// Do not probe the models before the first task.
    #[arg(long)]
    pub skip_model_check: bool,

    /// Give failed tasks a fresh attempt budget (their history kept) and
    /// unblock the tasks they blocked: for when what failed them is gone
    /// (a login, a quota, a fixed criterion).
    #[arg(long, conflicts_with = "reset")]
    pub retry_failed: bool,

    /// Criteria the agent never sees: a PRD-shaped file outside the
    /// repository whose tasks add criteria to the PRD's (default: the
    /// config's `[verification] sealed`).
    #[arg(long, value_name = "FILE")]
    pub sealed: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Also probe every effort-map model through its CLI (always exits 0).
    #[arg(long)]
    pub check_models: bool,

    /// Overwrite an existing .zurdo/config.toml.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Check the config only; do not start any CLI.
    #[arg(long)]
    pub skip_probes: bool,
}

#[derive(Debug, Subcommand)]
pub enum StateCommand {
    /// Print the state directory of a PRD (.zurdo/<slug>/).
    Where {
        /// The PRD.
        #[arg(value_name = "PRD")]
        prd: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The PRD whose run to report.
    #[arg(value_name = "PRD")]
    pub prd: PathBuf,

    /// Output format on stdout (both are written under .zurdo/<slug>/reports/).
    #[arg(long, value_enum, default_value_t = ReportFormat::Markdown)]
    pub format: ReportFormat,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The PRD whose run to review.
    #[arg(value_name = "PRD")]
    pub prd: PathBuf,

    /// Approve a [manual] criterion without asking (repeatable):
    /// `<task>::<criterion>`, the criterion named as its cargo test
    /// (`task_2::the_wording_reads_well`; the task id works too:
    /// `task-2::the_wording_reads_well`).
    #[arg(long, value_name = "TASK::CRITERION", conflicts_with_all = ["reject", "verify"])]
    pub approve: Vec<String>,

    /// Reject a [manual] criterion without asking; needs --reason. The task
    /// goes back to pending, and its next prompt carries the reason.
    #[arg(
        long,
        value_name = "TASK::CRITERION",
        requires = "reason",
        conflicts_with = "verify"
    )]
    pub reject: Option<String>,

    /// Why (required with --reject, optional with --approve).
    #[arg(long, value_name = "TEXT", conflicts_with = "verify")]
    pub reason: Option<String>,

    /// Check review-log.jsonl's chain and name the first entry that does
    /// not check (exit 1); writes nothing and takes no lock.
    #[arg(long)]
    pub verify: bool,

    /// Output format: with `json` nothing is asked, and stdout is one
    /// document (what awaits review and the decisions recorded, or the
    /// chain check with --verify).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Ask even when stdin is not a terminal (answers read line by line
    /// from stdin; for scripts that drive the session).
    #[arg(long, hide = true, conflicts_with_all = ["approve", "reject", "verify"])]
    pub interactive: bool,
}

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// The Markdown report.
    Markdown,
    /// The run state as JSON.
    Json,
}

#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Each bundled skill and, for each provider's skill directory in this
    /// repository, whether it is installed there: up to date, outdated, or
    /// edited since zurdo installed it.
    List {
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Install a bundled skill (or all of them) into the skill directory of
    /// every provider the config uses. An install someone edited is left
    /// alone unless --force; a directory zurdo did not install, always.
    Install {
        /// The skill's name.
        #[arg(value_name = "SKILL", required_unless_present = "all")]
        name: Option<String>,
        /// Every bundled skill.
        #[arg(long, conflicts_with = "name")]
        all: bool,
        /// Replace installs someone edited.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ReasonCommand {
    /// List the lessons with their match components and use counts, and
    /// name every lesson file that is skipped and why.
    Status,
    /// Preview which lessons would surface on each task's first prompt
    /// (prospective matching). Never counts as a use.
    Match {
        /// The PRD whose tasks to match.
        #[arg(value_name = "PRD")]
        prd: PathBuf,
        /// Only this task.
        #[arg(long = "task", value_name = "TASK-ID")]
        task: Option<String>,
    },
    /// Delete the lesson library (lessons/lesson-*.md) and the use counts.
    /// Lessons are tracked files: commit the deletion, or `git restore` them.
    Clear,
}

#[derive(Debug, Subcommand)]
pub enum LumenCommand {
    /// Bring the index up to date (parsing only changed files) and publish
    /// a new generation when anything changed.
    Index,
    /// Definitions, references and callers of a `::` name, with file:line.
    Query {
        /// The name, e.g. `Config::load` (the same `::` in every language).
        name: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Debug, Subcommand)]
pub enum PyxisCommand {
    /// Bring the index up to date (only new and changed files are read
    /// for words; Lumen's index is refreshed for their definitions) and
    /// save it.
    Index,
    /// Rank the repository's files against a text: scores, and why each
    /// file was chosen (what named it, the definitions and the words that
    /// matched). Builds or refreshes the index first, whether or not
    /// `[pyxis] enabled`. Exits 1 when nothing matches.
    Query {
        /// The text: a task's description, a commit message, a few words.
        /// Paths (`src/lib.rs`) and `::` names (`Config::load`) in it pin
        /// the files they name.
        text: String,
        /// Files shown at most.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
        limit: u16,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Debug, Subcommand)]
pub enum VelaCommand {
    /// Start the watcher in the background (no-op when one runs).
    Start,
    /// Stop the running watcher.
    Stop,
    /// Whether a watcher runs, since when, and the published generation.
    Status,
    /// The watcher itself, in the foreground (what `start` launches).
    #[command(hide = true)]
    Serve,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to lay out the example repository (default: a new temp dir).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
