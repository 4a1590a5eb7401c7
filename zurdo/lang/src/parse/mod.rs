//! The PRD parser and validator.
//!
//! [`parse`] reads the whole file and reports every error it finds, sorted
//! by line; a PRD with no errors comes back as a [`Prd`] whose tasks are in
//! run order.

mod blocks;
mod criterion;
mod heading;
pub(crate) mod metadata;
mod requirement;

use crate::diagnostic::{self, Diagnostic};
use crate::graph;
use crate::lines::LineIndex;
use crate::model::{Metadata, Prd, Task};
pub use blocks::OPTIONS as MARKDOWN_OPTIONS;
use blocks::{Block, BlockKind, Item};

/// Parses and validates a PRD.
///
/// Returns the model, or every error in the file sorted by line. Never
/// panics, whatever the input.
pub fn parse(source: &str) -> Result<Prd, Vec<Diagnostic>> {
    // A UTF-8 byte order mark is accepted and dropped, as most editors and
    // tools do; it holds no newline, so line numbers are unchanged.
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    if let Some(error) = unreadable_text(source) {
        return Err(vec![error]);
    }
    let mut parser = Parser::new(source);
    for block in blocks::top_level_blocks(source) {
        parser.block(&block);
    }
    let result = parser.finish();
    crate::hint::forget_patterns();
    result
}

/// Parses a PRD from raw bytes, rejecting input that is not UTF-8 with the
/// line and column of the first bad byte.
pub fn parse_bytes(bytes: &[u8]) -> Result<Prd, Vec<Diagnostic>> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            let (line, column) = line_and_column(bytes, e.valid_up_to());
            Err(vec![Diagnostic::new(
                line,
                format!(
                    "the file is not valid UTF-8 (bad byte 0x{:02x} at column {column})",
                    bytes[e.valid_up_to()]
                ),
            )
            .with_fix("save the PRD as UTF-8")])
        }
    }
}

/// The 1-based line and column (in bytes) of byte `at`.
fn line_and_column(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    (line, before.len() - line_start + 1)
}

/// A NUL byte or a lone carriage return: text zurdo cannot read line by
/// line as an editor shows it. Either makes the PRD's other errors
/// unreliable, so it is the only error reported.
fn unreadable_text(source: &str) -> Option<Diagnostic> {
    let position = |at: usize| line_and_column(source.as_bytes(), at);
    if let Some(at) = source.find('\0') {
        let (line, column) = position(at);
        return Some(
            Diagnostic::new(
                line,
                format!("the file has a NUL byte (U+0000) at column {column}; a PRD is text, and no command, path or prompt can carry one"),
            )
            .with_fix("remove the NUL byte (a [shell:] command that must print one can run `printf '\\0'`)"),
        );
    }
    let bytes = source.as_bytes();
    let mut from = 0;
    while let Some(i) = source[from..].find('\r') {
        let at = from + i;
        if bytes.get(at + 1) != Some(&b'\n') {
            let (line, column) = position(at);
            return Some(
                Diagnostic::new(
                    line,
                    format!("the file has a lone carriage return (CR, U+000D) at column {column}; zurdo reads LF or CRLF line endings, and a lone CR (old Mac line endings) would make every line number wrong"),
                )
                .with_fix("save the PRD with LF (or CRLF) line endings; `tr '\\r' '\\n' < old.md > new.md` converts a file that uses CR throughout"),
            );
        }
        from = at + 1;
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Section {
    /// Between the task heading and its first `###` section.
    Head,
    Requirements,
    Description,
    Criteria,
    /// After an unknown `###` heading: content is not read.
    Unknown,
}

#[derive(PartialEq, Eq)]
enum Region {
    BeforeTitle,
    Preamble,
    Task,
    /// After a non-task H2: skipped until the next H1/H2.
    Skipped,
}

/// The task being read.
struct Open {
    task: Task,
    id_ok: bool,
    blocks_seen: usize,
    metadata_read: bool,
    section: Section,
    /// Line of each section heading seen (Requirements, Description, Criteria).
    seen: [usize; 3],
    description_start: Option<usize>,
    /// List items read under ### Acceptance Criteria, well-formed or not.
    criteria_items: usize,
}

struct Parser<'s> {
    src: &'s str,
    lines: LineIndex,
    errors: Vec<Diagnostic>,
    title: Option<(String, usize)>,
    first_before_title: Option<usize>,
    region: Region,
    tasks: Vec<Task>,
    /// Ids written in task headings that failed validation, so dependencies
    /// on them do not add "unknown id" noise.
    invalid_ids: Vec<String>,
    /// Invalid ids whose error gets its rename once every id is known, with
    /// the heading's position among task headings and its title.
    renames: Vec<(heading::BadId, usize, String)>,
    /// Task headings read so far.
    headings: usize,
    open: Option<Open>,
}

impl<'s> Parser<'s> {
    fn new(src: &'s str) -> Self {
        Parser {
            src,
            lines: LineIndex::new(src),
            errors: Vec::new(),
            title: None,
            first_before_title: None,
            region: Region::BeforeTitle,
            tasks: Vec::new(),
            invalid_ids: Vec::new(),
            renames: Vec::new(),
            headings: 0,
            open: None,
        }
    }

    fn line(&self, offset: usize) -> usize {
        self.lines.line(offset)
    }

    /// The raw source lines a block spans, with their numbers.
    fn block_lines(&self, start: usize, end: usize) -> impl Iterator<Item = (usize, &'s str)> {
        let first = self.line(start);
        let from = self.lines.start(first);
        let text = self.src[from..end.max(from)].trim_end();
        text.lines().enumerate().map(move |(i, l)| (first + i, l))
    }

    fn error(&mut self, line: usize, message: impl Into<String>, fix: impl Into<String>) {
        self.errors
            .push(Diagnostic::new(line, message).with_fix(fix));
    }

    fn block(&mut self, block: &Block) {
        let line = self.line(block.start);
        match block.kind {
            BlockKind::Heading(1) => self.h1(block, line),
            BlockKind::Heading(2) => {
                self.finish_task(block.start);
                self.h2(block, line);
            }
            BlockKind::Heading(3) if self.open.is_some() => {
                self.close_description(block.start);
                self.section(block, line);
            }
            _ => match self.region {
                Region::BeforeTitle => {
                    if !matches!(block.kind, BlockKind::Html) {
                        self.first_before_title.get_or_insert(line);
                    }
                }
                Region::Preamble | Region::Skipped => {}
                Region::Task => self.task_block(block, line),
            },
        }
    }

    fn h1(&mut self, block: &Block, line: usize) {
        let text = heading::heading_text(self.raw_line(block.start));
        if let Some((_, first)) = &self.title {
            let first = *first;
            self.error(
                line,
                format!("second H1 title (the first is at line {first}); a PRD has exactly one"),
                "make it a `## Task:` heading, or a `####` heading inside a description",
            );
            return;
        }
        if let Some(before) = self.first_before_title.take() {
            self.error(
                before,
                "text before the H1 title",
                "start the file with the title, `# PRD: <title>`",
            );
        }
        if !self.tasks.is_empty() || self.open.is_some() {
            self.error(
                line,
                "the H1 title must come before the first task",
                "move the `#` title to the top of the file",
            );
        }
        let title = heading::title_text(text).to_string();
        if title.is_empty() {
            self.error(line, "the H1 title is empty", "write `# PRD: <title>`");
        }
        self.title = Some((title, line));
        if self.open.is_none() {
            self.region = Region::Preamble;
        }
    }

    fn h2(&mut self, block: &Block, line: usize) {
        let text = heading::heading_text(self.raw_line(block.start));
        if !heading::is_task_heading(text) {
            self.error(
                line,
                format!("unexpected H2 heading `## {text}`: H2 headings are task headings"),
                "write `## Task: <id> — <title>`, or use `###` for a heading in the preamble",
            );
            self.region = Region::Skipped;
            return;
        }
        let mut errors = Vec::new();
        let mut h = heading::task_heading(text, line, &mut errors);
        self.errors.append(&mut errors);
        self.headings += 1;
        if let Some(bad) = h.bad_id.take() {
            self.renames.push((bad, self.headings, h.title.clone()));
        }
        let id_ok = h.id.is_some();
        let id = h.id.unwrap_or_else(|| {
            let written = text
                .get(5..)
                .unwrap_or("")
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            self.invalid_ids.push(written.clone());
            written
        });
        self.region = Region::Task;
        self.open = Some(Open {
            task: Task {
                id,
                title: h.title,
                line,
                metadata: Metadata::default(),
                requirements: Vec::new(),
                description: String::new(),
                description_line: 0,
                criteria: Vec::new(),
            },
            id_ok,
            blocks_seen: 0,
            metadata_read: false,
            section: Section::Head,
            seen: [0; 3],
            description_start: None,
            criteria_items: 0,
        });
    }

    fn raw_line(&self, offset: usize) -> &'s str {
        let start = self.lines.start(self.line(offset));
        let rest = &self.src[start..];
        rest.split('\n').next().unwrap_or("")
    }

    fn section(&mut self, block: &Block, line: usize) {
        let text = heading::heading_text(self.raw_line(block.start)).to_string();
        let Some(open) = self.open.as_mut() else {
            return;
        };
        const NAMES: [(&str, Section); 3] = [
            ("Requirements", Section::Requirements),
            ("Description", Section::Description),
            ("Acceptance Criteria", Section::Criteria),
        ];
        let found = NAMES.iter().position(|(n, _)| *n == text);
        let found = match found {
            Some(i) => Some(i),
            None => {
                let i = NAMES
                    .iter()
                    .position(|(n, _)| n.eq_ignore_ascii_case(&text));
                let (message, fix) = match i {
                    Some(i) => (
                        format!("section heading `### {text}` must be written `### {}`", NAMES[i].0),
                        format!("write `### {}`", NAMES[i].0),
                    ),
                    None => (
                        format!("unknown section `### {text}`; a task's sections are ### Requirements, ### Description and ### Acceptance Criteria"),
                        "use `####` for a sub-heading inside the description".to_string(),
                    ),
                };
                self.errors
                    .push(Diagnostic::new(line, message).with_fix(fix));
                i
            }
        };
        let Some(i) = found else {
            open.section = Section::Unknown;
            return;
        };
        let name = NAMES[i].0;
        if open.seen[i] != 0 {
            let first = open.seen[i];
            self.errors.push(
                Diagnostic::new(
                    line,
                    format!("duplicate ### {name} section (first at line {first})"),
                )
                .with_fix("merge the two sections"),
            );
        } else if let Some(later) = (i + 1..3).find(|&j| open.seen[j] != 0) {
            self.errors.push(
                Diagnostic::new(
                    line,
                    format!("### {name} must come before ### {}", NAMES[later].0),
                )
                .with_fix(
                    "order the sections Requirements (optional), Description, Acceptance Criteria",
                ),
            );
        }
        if open.seen[i] == 0 {
            open.seen[i] = line;
        }
        open.section = NAMES[i].1;
        if open.section == Section::Description && open.description_start.is_none() {
            open.description_start = Some(block.end);
            open.task.description_line = line;
        }
    }

    fn close_description(&mut self, at: usize) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        if open.section != Section::Description {
            return;
        }
        if let Some(start) = open.description_start {
            if open.task.description.is_empty() && start <= at {
                open.task.description = trim_blank_lines(&self.src[start..at]).to_string();
            }
        }
    }

    fn task_block(&mut self, block: &Block, line: usize) {
        let Some(open) = self.open.as_mut() else {
            return;
        };
        if matches!(block.kind, BlockKind::Html) {
            return;
        }
        let first = open.blocks_seen == 0;
        open.blocks_seen += 1;
        match open.section {
            Section::Head => self.head_block(block, line, first),
            Section::Requirements => self.requirements_block(block, line),
            Section::Criteria => self.criteria_block(block, line),
            Section::Description | Section::Unknown => {}
        }
    }

    /// A block between the task heading and its first section.
    fn head_block(&mut self, block: &Block, line: usize, first: bool) {
        let Some(open) = self.open.as_ref() else {
            return;
        };
        let heading_line = open.task.line;
        let first_text = self.raw_line(block.start);
        let metadata_shaped = match &block.kind {
            BlockKind::Paragraph => metadata::looks_like_metadata(first_text),
            BlockKind::List { items, .. } => items
                .first()
                .is_some_and(|i| metadata::looks_like_metadata(item_text_first_line(self.src, i))),
            _ => false,
        };
        if first
            && matches!(block.kind, BlockKind::Paragraph)
            && (line == heading_line + 1 || metadata_shaped)
        {
            if line != heading_line + 1 {
                self.error(
                    line,
                    format!("blank line between the task heading (line {heading_line}) and its metadata block"),
                    "remove the blank line: the metadata block starts on the line right after `## Task:`",
                );
            }
            let mut errors = Vec::new();
            let meta = metadata::read(
                self.block_lines(block.start, block.end),
                heading_line,
                &mut errors,
            );
            self.errors.append(&mut errors);
            if let Some(open) = self.open.as_mut() {
                open.task.metadata = meta;
                open.metadata_read = true;
            }
            return;
        }
        if first {
            if let Some(open) = self.open.as_mut() {
                open.metadata_read = true;
            }
            let message = if metadata_shaped && matches!(block.kind, BlockKind::List { .. }) {
                "metadata lines must not be list items"
            } else {
                "task has no metadata block under its heading"
            };
            self.error(
                heading_line,
                message,
                "put `**Effort**: <effort>` and `**Depends-on**: []` on the lines right after `## Task:`",
            );
            return;
        }
        if metadata_shaped {
            let shaped: Vec<usize> = self
                .block_lines(block.start, block.end)
                .filter(|(_, l)| metadata::looks_like_metadata(l))
                .map(|(n, _)| n)
                .collect();
            for n in shaped {
                self.error(
                    n,
                    "metadata line after the metadata block ended",
                    format!(
                        "remove the blank line at line {} so the block is contiguous",
                        line - 1
                    ),
                );
            }
        } else {
            self.error(
                line,
                "text between the metadata block and the first section",
                "put prose under ### Description",
            );
        }
    }

    fn requirements_block(&mut self, block: &Block, line: usize) {
        let BlockKind::List { items, .. } = &block.kind else {
            self.error(
                line,
                "### Requirements holds only `- req-<id>: text` items",
                "move prose to ### Description",
            );
            return;
        };
        for item in items {
            let item_line = self.line(item.start);
            let text = item_text(self.src, item);
            let mut errors = Vec::new();
            if item.task.is_some() || item.nested {
                errors.push(
                    Diagnostic::new(
                        item_line,
                        "a requirement is a plain `- req-<id>: text` item",
                    )
                    .with_fix("remove the checkbox or nested list"),
                );
            } else if let Some(req) = requirement::read(&text, item_line, &mut errors) {
                if let Some(open) = self.open.as_mut() {
                    if let Some(first) = open.task.requirements.iter().find(|r| r.id == req.id) {
                        errors.push(
                            Diagnostic::new(
                                item_line,
                                format!(
                                    "duplicate requirement id `{}` (first at line {})",
                                    req.id, first.line
                                ),
                            )
                            .with_fix("give each requirement of a task its own id"),
                        );
                    } else {
                        open.task.requirements.push(req);
                    }
                }
            }
            self.errors.append(&mut errors);
        }
    }

    fn criteria_block(&mut self, block: &Block, line: usize) {
        let BlockKind::List { items, ordered } = &block.kind else {
            self.error(
                line,
                "### Acceptance Criteria holds only `- [ ] …` criteria",
                "move prose to ### Description",
            );
            return;
        };
        if *ordered {
            self.error(
                line,
                "acceptance criteria are `- [ ]` items, not a numbered list",
                "write `- [ ] <text> [hint]`",
            );
            return;
        }
        if let Some(open) = self.open.as_mut() {
            open.criteria_items += items.len();
        }
        for item in items {
            let item_line = self.line(item.start);
            match item.task {
                None => {
                    self.error(
                        item_line,
                        "acceptance criterion must be a task-list item `- [ ] …`",
                        "write `- [ ] <text> [hint]`",
                    );
                    continue;
                }
                Some(true) => {
                    self.error(
                        item_line,
                        "acceptance criterion is checked (`- [x]`); criteria are written unchecked",
                        "write `- [ ]`: zurdo records verdicts in its state, not in the PRD",
                    );
                }
                Some(false) => {}
            }
            if item.nested {
                self.error(
                    item_line,
                    "acceptance criterion has a nested list",
                    "write each criterion as its own `- [ ]` item",
                );
            }
            let text = item_text(self.src, item);
            let mut errors = Vec::new();
            let c = criterion::read(&text, item_line, &mut errors);
            self.errors.append(&mut errors);
            if let Some(open) = self.open.as_mut() {
                open.task.criteria.push(c);
            }
        }
    }

    fn finish_task(&mut self, at: usize) {
        self.close_description(at);
        let Some(open) = self.open.take() else { return };
        let Open {
            mut task,
            id_ok,
            metadata_read,
            seen,
            criteria_items,
            ..
        } = open;
        let line = task.line;
        if !metadata_read {
            self.error(
                line,
                "task has no metadata block under its heading",
                "put `**Effort**: <effort>` and `**Depends-on**: []` on the lines right after `## Task:`",
            );
        }
        if seen[1] == 0 {
            self.error(
                line,
                format!("task `{}` has no ### Description section", task.id),
                "add `### Description` with what the agent must do",
            );
        } else if task.description.is_empty() {
            self.error(
                seen[1],
                "### Description is empty",
                "describe the work: it is sent verbatim to the agent",
            );
        }
        if seen[2] == 0 {
            self.error(
                line,
                format!("task `{}` has no ### Acceptance Criteria section", task.id),
                "add `### Acceptance Criteria` with `- [ ] <text> [hint]` items",
            );
        } else if criteria_items == 0 {
            self.error(
                seen[2],
                "### Acceptance Criteria lists no criteria",
                "add `- [ ] <text> [hint]` items",
            );
        }
        for c in &task.criteria {
            for id in &c.proves {
                if !task.requirements.iter().any(|r| &r.id == id) {
                    let d = Diagnostic::new(
                        c.line,
                        format!("[proves:{id}] names no requirement of task `{}`", task.id),
                    );
                    let known: Vec<&str> =
                        task.requirements.iter().map(|r| r.id.as_str()).collect();
                    self.errors
                        .push(match crate::suggest::closest(id, known.iter().copied()) {
                            Some(k) => d.with_fix(format!("did you mean [proves:{k}]?")),
                            None if known.is_empty() => d.with_fix(format!(
                                "declare it under ### Requirements: `- {id}: <what it means>`"
                            )),
                            None => d.with_fix(format!("the task declares {}", known.join(", "))),
                        });
                }
            }
        }
        if id_ok {
            task.description_line = seen[1];
            self.tasks.push(task);
        }
    }

    fn finish(mut self) -> Result<Prd, Vec<Diagnostic>> {
        self.finish_task(self.src.len());
        let (title, title_line) = match self.title.take() {
            Some(t) => t,
            None => {
                self.error(
                    1,
                    "the PRD has no H1 title",
                    "start the file with `# PRD: <title>`",
                );
                (String::new(), 0)
            }
        };
        if self.tasks.is_empty() && self.invalid_ids.is_empty() {
            self.error(
                title_line.max(1),
                "the PRD has no tasks",
                "add a `## Task: task-1 — <title>` block",
            );
        }
        let mut first_line: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(self.tasks.len());
        let mut duplicates = Vec::new();
        for task in &self.tasks {
            if let Some(&first) = first_line.get(task.id.as_str()) {
                duplicates.push((task.line, task.id.as_str(), first));
            } else {
                first_line.insert(&task.id, task.line);
            }
        }
        // Every rename offered (of an invalid id, of a duplicate) is an id no
        // task has, nor another rename.
        let mut taken: std::collections::HashSet<String> =
            if self.renames.is_empty() && duplicates.is_empty() {
                std::collections::HashSet::new()
            } else {
                first_line.keys().map(|id| id.to_string()).collect()
            };
        for (bad, ordinal, title) in std::mem::take(&mut self.renames) {
            self.errors
                .push(heading::rename_fix(bad, ordinal, &title, &mut taken));
        }
        for (line, id, first) in duplicates {
            let mut free = format!("{id}-2");
            let mut n = 3;
            while taken.contains(&free) {
                free = format!("{id}-{n}");
                n += 1;
            }
            taken.insert(free.clone());
            self.errors.push(
                Diagnostic::new(
                    line,
                    format!("duplicate task id `{id}` (first at line {first})"),
                )
                .with_fix(format!("give each task its own id, e.g. `{free}`")),
            );
        }
        let order = graph::run_order(&self.tasks, &self.invalid_ids, &mut self.errors);
        if self.errors.is_empty() {
            Ok(Prd {
                title,
                title_line,
                tasks: self.tasks,
                run_order: order,
            })
        } else {
            diagnostic::sort(&mut self.errors);
            Err(self.errors)
        }
    }
}

/// Drops whole blank lines at both ends, keeping indentation of the first
/// non-blank line.
fn trim_blank_lines(text: &str) -> &str {
    let start = match text.find(|c: char| !c.is_whitespace()) {
        Some(first) => text[..first].rfind('\n').map_or(0, |nl| nl + 1),
        None => return "",
    };
    text[start..].trim_end()
}

/// The first source line of a list item, without its bullet.
fn item_text_first_line<'a>(src: &'a str, item: &Item) -> &'a str {
    let text = &src[item.start..item.end.max(item.start)];
    let first = text.split('\n').next().unwrap_or("");
    strip_bullet(first)
}

fn strip_bullet(line: &str) -> &str {
    let t = line.trim_start();
    let t = t.strip_prefix(['-', '*', '+']).unwrap_or_else(|| {
        let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
        t[digits..].strip_prefix(['.', ')']).unwrap_or(t)
    });
    t.trim_start()
}

/// A list item's text: the bullet and checkbox removed, lines joined by a
/// space (a criterion may wrap).
fn item_text(src: &str, item: &Item) -> String {
    let text = &src[item.start..item.end.max(item.start)];
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        let line = if i == 0 {
            let rest = strip_bullet(line);
            match rest.get(..3) {
                Some("[ ]" | "[x]" | "[X]") if item.task.is_some() => rest[3..].trim(),
                _ => rest.trim(),
            }
        } else {
            line.trim()
        };
        if line.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}
