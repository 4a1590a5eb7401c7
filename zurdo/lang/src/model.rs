//! The parsed PRD: what zurdo holds in memory and treats as the authority.
//!
//! Every node carries the 1-based line it came from, so errors, lints and
//! reports can point back into the Markdown.

use serde::Serialize;

use crate::hint::Hint;

/// A whole PRD: one title and its tasks, in document order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prd {
    /// The H1 text, without a leading `PRD:` prefix.
    pub title: String,
    /// Line of the H1 heading.
    pub title_line: usize,
    /// Tasks in document order. See [`Prd::run_order`] for execution order.
    pub tasks: Vec<Task>,
    /// Indices into `tasks` in run order: a topological order of the
    /// dependency graph with ties broken by document order.
    pub run_order: Vec<usize>,
}

impl Prd {
    /// The tasks in run order.
    pub fn tasks_in_run_order(&self) -> impl Iterator<Item = &Task> {
        self.run_order.iter().map(move |&i| &self.tasks[i])
    }

    /// Looks a task up by its id.
    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Number of acceptance criteria over all tasks.
    pub fn criterion_count(&self) -> usize {
        self.tasks.iter().map(|t| t.criteria.len()).sum()
    }
}

/// One `## Task: <id> — <title>` block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    /// The task id, e.g. `task-auth-rotate`.
    pub id: String,
    /// The heading text after the em-dash.
    pub title: String,
    /// Line of the `## Task:` heading.
    pub line: usize,
    /// The metadata block.
    pub metadata: Metadata,
    /// The `### Requirements` entries (empty when the section is absent).
    pub requirements: Vec<Requirement>,
    /// The `### Description` body, verbatim (trimmed of surrounding blank lines).
    pub description: String,
    /// Line of the `### Description` heading.
    pub description_line: usize,
    /// The acceptance criteria, in document order.
    pub criteria: Vec<Criterion>,
}

/// The `**Key**: value` block under a task heading.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Metadata {
    /// `**Effort**`: a key of the executor's effort map (checked at pre-flight).
    pub effort: String,
    /// `**Depends-on**`: ids of tasks that must pass first.
    pub depends_on: Vec<String>,
    /// `**Max-Attempts**`: overrides `defaults.max_attempts`.
    pub max_attempts: Option<u32>,
    /// `**Max-Cost**`: the most this task may spend, in US dollars;
    /// overrides `[budget] max_task_cost_usd`.
    pub max_cost: Option<crate::money::Usd>,
    /// `**Skills**`: bare skill names.
    pub skills: Vec<String>,
    /// `**Agent-timeout**`: how long one agent attempt may run.
    pub agent_timeout: Option<AgentTimeout>,
    /// `**Category**`: report grouping label.
    pub category: Option<String>,
    /// `**Frozen**`: root-anchored globs the agent must not modify.
    pub frozen: Vec<String>,
    /// Line of each key as written, for diagnostics.
    pub lines: MetadataLines,
}

/// Where each metadata key was written (0 when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MetadataLines {
    /// Line of `**Effort**`.
    pub effort: usize,
    /// Line of `**Depends-on**`.
    pub depends_on: usize,
    /// Line of `**Max-Attempts**`.
    pub max_attempts: usize,
    /// Line of `**Max-Cost**`.
    pub max_cost: usize,
    /// Line of `**Skills**`.
    pub skills: usize,
    /// Line of `**Agent-timeout**`.
    pub agent_timeout: usize,
    /// Line of `**Category**`.
    pub category: usize,
    /// Line of `**Frozen**`.
    pub frozen: usize,
}

/// A duration with an explicit unit, as written in `**Agent-timeout**`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AgentTimeout {
    /// The duration in seconds.
    pub seconds: u64,
}

impl AgentTimeout {
    /// The timeout as a [`std::time::Duration`].
    pub fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.seconds)
    }
}

/// One `- req-id: text` entry of `### Requirements`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirement {
    /// The requirement id, e.g. `req-auth-1`.
    pub id: String,
    /// What the task must achieve.
    pub text: String,
    /// Line of the entry.
    pub line: usize,
}

/// One `- [ ] …` acceptance criterion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Criterion {
    /// The text before the trailing hint blocks.
    pub title: String,
    /// Line of the list item.
    pub line: usize,
    /// The hints, in the order written. All must pass (AND).
    pub hints: Vec<Hint>,
    /// Requirement ids named by trailing `[proves:<req-id>]` modifiers.
    pub proves: Vec<String>,
    /// True with the `[removes-tests]` modifier: its `[shell:]` runners may
    /// run fewer tests than at pre-flight (the task removes tests on
    /// purpose), so `tests_vanished` does not apply to it.
    #[serde(default)]
    pub removes_tests: bool,
}

impl Criterion {
    /// True when every hint is `[manual]`.
    pub fn is_manual_only(&self) -> bool {
        self.hints.iter().all(Hint::is_manual)
    }
}
