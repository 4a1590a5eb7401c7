//! `zurdo review <prd>`: sign off the `[manual]` criteria of tasks that
//! await review, interactively or with `--approve`/`--reject`, each
//! decision appended to `.zurdo/<slug>/review-log.jsonl` (a hash chain,
//! [`crate::state::review_log`]) and applied to prd.json through
//! [`RunState`]; `--verify` checks the chain. docs/review.md is the
//! user's description.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use zurdo::verify::CriterionVerdict;
use zurdo::{naming, source, Prd};

use crate::cli::{Format, ReviewArgs};
use crate::error::{Error, ErrorKind, Exit, Outcome};
use crate::event::{DroppedApproval, Event, Events, Log, Reporter};
use crate::state::lock::LockError;
use crate::state::review::{self, Anchor, Awaiting, Manual, ManualCriterion};
use crate::state::review_log::{self, sha256_hex, Chain, ChainHead, Decision, Entry, LogLine};
use crate::state::run_state::{Rejection, RunState, Status, TaskState};
use crate::state::{self, StateDir};

/// Most lines of a task's diff shown in the interactive session.
const DIFF_LINES: usize = 400;

/// Runs the command and returns its exit status.
pub fn run(args: &ReviewArgs) -> Outcome {
    let shown = args.prd.display().to_string();
    let (bytes, prd) = Error::read_prd(&args.prd, &shown)?;
    let root = source::repo_root(&args.prd);
    let relative = source::relative_to(&root, &args.prd).unwrap_or_else(|| shown.clone());
    let dir = StateDir::new(&root, &relative);
    let manual = Manual::of_prd(&prd);
    let prd_sha256 = sha256_hex(&bytes);
    if args.verify {
        return verify_chain(args.format, &dir, &manual, &prd_sha256);
    }
    if let Some(reason) = &args.reason {
        if reason.trim().is_empty() {
            return Err(Error::invalid(
                "--reason is empty: say why (a rejection's reason goes into the task's next prompt)",
            ));
        }
    }
    let no_state = || {
        Error::invalid(format!(
            "{shown} has no run state yet (.zurdo/{}/prd.json); `zurdo run {shown}` makes one, and a task whose automated criteria pass awaits review",
            dir.slug
        ))
    };
    // Nothing is created for a PRD that never ran (the lock would make
    // its state directory).
    if !dir.prd_json().is_file() {
        return Err(no_state());
    }
    let mut stale = None;
    let lock = dir.lock(|s| stale = Some(s.holder)).map_err(|e| match e {
        LockError::Held { .. } => Error::new(
            ErrorKind::LockHeld,
            format!("{shown}: {e}; review it once the run ends"),
        ),
        LockError::Io(_) => Error::new(
            ErrorKind::Io,
            format!("{}: {e}", dir.dir.join("lock").display()),
        ),
    })?;
    let loaded = dir.load()?.ok_or_else(no_state)?;
    if let Some(why) = &loaded.distrusted {
        return Err(Error::invalid(format!(
            "{}: {why}; a review records nothing on a run state zurdo cannot vouch for: `zurdo run {shown}` verifies every task again first",
            dir.prd_json().display()
        )));
    }
    let state = loaded.state;
    if state.prd_sha1 != state::sha1_hex(&bytes) {
        return Err(Error::new(
            ErrorKind::Drift,
            format!("{shown} changed since its run state was written (.zurdo/{}/prd.json): the results awaiting review are of the PRD as it was; `zurdo run --reset {shown}` starts over", dir.slug),
        ));
    }
    if let Err(why) = state.check(&prd) {
        return Err(Error::invalid(format!(
            "{}: the run state does not add up ({why}): it was edited or damaged; `zurdo run --reset {shown}` archives it and starts over",
            dir.prd_json().display()
        )));
    }
    let events = Events::new(Reporter::stderr());
    // Only the lock holder writes the log.
    events.log_to(Log::new(&dir));
    if let Some(holder) = stale {
        events.emit(Event::LockTakenOver { holder });
    }
    let unreadable = dir.read_review_log().err();
    let anchor = Anchor::of(Some(&state), None);
    let chain = review::read_chain(&dir, &manual, Some(&prd_sha256), &anchor);
    let mut session = Session {
        shown,
        prd_text: String::from_utf8_lossy(&bytes).into_owned(),
        prd,
        prd_sha256,
        reviewer: reviewer(&root),
        root,
        dir,
        state,
        manual,
        chain,
        unreadable,
        events,
        tree_now: None,
        recorded: Vec::new(),
        _lock: lock,
    };
    session.reconcile()?;
    if !args.approve.is_empty() || args.reject.is_some() {
        session.decide(args)?;
        session.list(args.format, false);
        return Ok(Exit::Ok);
    }
    let terminal = std::io::stdin().is_terminal();
    if args.format == Format::Json || !(terminal || args.interactive) {
        session.list(args.format, args.format == Format::Human);
        return Ok(Exit::Ok);
    }
    session.interactive()
}

/// One review session: the PRD, its state (under the lock), the chain.
struct Session {
    shown: String,
    prd: Prd,
    prd_text: String,
    prd_sha256: String,
    reviewer: String,
    root: PathBuf,
    dir: StateDir,
    state: RunState,
    manual: Manual,
    chain: Chain,
    /// Why review-log.jsonl cannot be read (nothing can be appended).
    unreadable: Option<String>,
    events: Events,
    /// The working tree, captured once when a review needs it (a task that
    /// passed at pre-flight has no verified tree); `Some(None)` outside git.
    tree_now: Option<Option<String>>,
    /// The decisions recorded in this session, with their lines.
    recorded: Vec<Recorded>,
    _lock: crate::state::lock::Lock,
}

/// A decision as `--format json` lists it: the entry and its line.
#[derive(Serialize)]
struct Recorded {
    line: usize,
    #[serde(flatten)]
    entry: Entry,
}

/// What awaits review, as `--format json` lists it.
#[derive(Serialize)]
struct Listed {
    task: String,
    task_title: String,
    criterion: String,
    title: String,
    line: usize,
    attempt: u32,
    tree: Option<String>,
}

#[derive(Serialize)]
struct Listing<'a> {
    prd: &'a str,
    awaiting: Vec<Listed>,
    decisions: &'a [Recorded],
}

/// How one question was answered.
enum Answer {
    Approve,
    Reject(String),
    Skip,
    Quit,
}

impl Session {
    /// Holds the state to the chain before anything is shown or decided:
    /// a broken chain is said loudly, and approvals that do not count are
    /// dropped (a task that had passed on them awaits review again).
    fn reconcile(&mut self) -> Result<(), Error> {
        warn_broken(&self.events, &self.dir, &self.chain);
        let changed = review::reconcile(&mut self.state, &self.manual, &self.chain);
        if changed.is_empty() {
            return Ok(());
        }
        self.save()?;
        for u in changed {
            self.events.emit(Event::ReviewUnvouched {
                task: u.task,
                dropped: u
                    .dropped
                    .into_iter()
                    .map(|(criterion, why)| DroppedApproval { criterion, why })
                    .collect(),
                status: u.status,
            });
        }
        Ok(())
    }

    fn save(&mut self) -> Result<(), Error> {
        self.dir
            .save(&mut self.state)
            .map_err(|e| Error::io(&e.path, "cannot write", e.source))
    }

    fn awaiting(&self) -> Vec<Awaiting> {
        review::awaiting(&self.state, &self.manual, &self.chain)
    }

    /// The tree a decision on `task` is about: its verified tree, else the
    /// working tree now (captured once), none outside git.
    fn tree_of(&mut self, task: &str) -> Option<String> {
        if let Some(tree) = self.state.task(task).and_then(review::verified_tree) {
            return Some(tree);
        }
        if self.tree_now.is_none() {
            self.tree_now = Some(crate::evidence::capture(&self.root).ok().map(|b| b.tree));
        }
        self.tree_now.clone().flatten()
    }

    /// `--approve`/`--reject`: every name resolved and checked first, then
    /// each decision recorded in order.
    fn decide(&mut self, args: &ReviewArgs) -> Result<(), Error> {
        let mut approvals: Vec<(String, ManualCriterion)> = Vec::new();
        for spec in &args.approve {
            let found = self.resolve(spec)?;
            if approvals
                .iter()
                .any(|(t, c)| *t == found.0 && c.name == found.1.name)
            {
                return Err(Error::invalid(format!(
                    "--approve names `{}` twice",
                    found.1.name
                )));
            }
            approvals.push(found);
        }
        let rejection = match &args.reject {
            Some(spec) => Some(self.resolve(spec)?),
            None => None,
        };
        for (task, criterion) in approvals {
            self.record(&task, &criterion, Decision::Approved, args.reason.clone())?;
        }
        if let Some((task, criterion)) = rejection {
            self.record(&task, &criterion, Decision::Rejected, args.reason.clone())?;
        }
        Ok(())
    }

    /// `<task>::<criterion>` as a `[manual]` criterion awaiting review, or
    /// an error naming what is wrong (with the closest name).
    fn resolve(&self, spec: &str) -> Result<(String, ManualCriterion), Error> {
        let shown = &self.shown;
        let Some((task_part, criterion_part)) = spec.split_once("::") else {
            return Err(Error::invalid(format!(
                "`{spec}`: name a criterion as <task>::<criterion>, as its cargo test is named (`zurdo review {shown} --format json` lists what awaits review)"
            )));
        };
        let everything: Vec<String> = self
            .prd
            .tasks
            .iter()
            .flat_map(|t| {
                let module = naming::task_module(t);
                naming::criterion_fns(t)
                    .into_iter()
                    .map(move |f| format!("{module}::{f}"))
            })
            .collect();
        let Some(task) = self
            .prd
            .tasks
            .iter()
            .find(|t| t.id == task_part || naming::task_module(t) == task_part)
        else {
            return Err(Error::invalid(format!(
                "{shown} has no task `{task_part}`{}",
                did_you_mean(spec, &everything)
            )));
        };
        let module = naming::task_module(task);
        let fns = naming::criterion_fns(task);
        let Some(index) = fns.iter().position(|f| f == criterion_part) else {
            return Err(Error::invalid(format!(
                "{shown} has no criterion `{module}::{criterion_part}`{}",
                did_you_mean(&format!("{module}::{criterion_part}"), &everything)
            )));
        };
        let name = format!("{module}::{}", fns[index]);
        let criterion = &task.criteria[index];
        if !criterion.hints.iter().any(|h| h.is_manual()) {
            let hints: Vec<&str> = criterion.hints.iter().map(|h| h.source.as_str()).collect();
            return Err(Error::invalid(format!(
                "`{name}` ({shown}:{}) is not a [manual] criterion: zurdo checks it itself ({})",
                criterion.line,
                hints.join(" ")
            )));
        }
        let t = self
            .state
            .task(&task.id)
            .ok_or_else(|| Error::invalid(format!("no state for {}", task.id)))?;
        if let Some((line, entry)) = review::approved(t, &name, &self.chain) {
            return Err(Error::invalid(format!(
                "`{name}` is not awaiting review: {} approved it at {} (review-log.jsonl line {line})",
                entry.reviewer, entry.at
            )));
        }
        if t.status != Status::PassedPendingReview {
            let why = match t.status {
                Status::Pending => "its automated criteria have not passed yet (`zurdo run` first)",
                Status::Passed => "every [manual] criterion of it is approved",
                Status::Failed => "it failed",
                Status::BlockedByDependency => "a task it depends on failed",
                Status::Unproven => "every criterion held before any agent ran (require_red_first)",
                Status::PassedPendingReview => "",
            };
            return Err(Error::invalid(format!(
                "`{name}` is not awaiting review: {} is {}: {why}",
                task.id,
                t.status.name()
            )));
        }
        let found = self
            .manual
            .of(&task.id)
            .iter()
            .find(|c| c.name == name)
            .cloned()
            .ok_or_else(|| Error::invalid(format!("`{name}` is not a [manual] criterion")))?;
        Ok((task.id.clone(), found))
    }

    /// Appends the decision to review-log.jsonl, applies it to prd.json,
    /// and reports it.
    fn record(
        &mut self,
        task: &str,
        criterion: &ManualCriterion,
        decision: Decision,
        reason: Option<String>,
    ) -> Result<(), Error> {
        if let Some(why) = &self.unreadable {
            return Err(Error::invalid(format!(
                "{why}: nothing can be appended to it (move it aside to start a new log; its approvals stop counting)"
            )));
        }
        let tree = self.tree_of(task);
        let attempt = self.state.task(task).map_or(0, TaskState::current_attempt);
        let entry = Entry {
            v: review_log::VERSION,
            at: zurdo_base::time::now(),
            reviewer: self.reviewer.clone(),
            task: task.to_string(),
            criterion: criterion.name.clone(),
            decision,
            reason: reason.map(|r| r.trim().to_string()),
            attempt,
            tree,
            prd_sha256: self.prd_sha256.clone(),
            prev: self.chain.next_prev(),
        };
        let line = entry.to_line(zurdo_base::mac::Key::user());
        self.dir
            .append_review(&line)
            .map_err(|e| Error::io(&e.path, "cannot append to", e.source))?;
        let number = self.chain.lines.len() + 1;
        let sha = sha256_hex(line.as_bytes());
        self.chain.lines.push(LogLine {
            number,
            sha256: sha.clone(),
            entry: Some(entry.clone()),
            problem: None,
        });
        self.state.review_chain = Some(ChainHead {
            entries: number,
            head: sha.clone(),
        });
        let manual = self.manual.of(task).to_vec();
        let shown = self.shown.clone();
        let Some(t) = self.state.task_mut(task) else {
            return Err(Error::invalid(format!("no state for {task}")));
        };
        let status = match decision {
            Decision::Approved => review::approve(t, &manual, &criterion.name, number, &sha),
            Decision::Rejected => {
                let reason = entry.reason.clone().unwrap_or_default();
                let context = crate::prompt::review_section(
                    &shown,
                    &criterion.name,
                    criterion.line,
                    &criterion.title,
                    &reason,
                );
                review::reject(
                    t,
                    Rejection {
                        criterion: criterion.name.clone(),
                        reason,
                        reviewer: entry.reviewer.clone(),
                        at: entry.at.clone(),
                        attempt,
                        line: number,
                    },
                    context,
                );
                t.status
            }
        };
        if let Err(e) = self.dir.save(&mut self.state) {
            return Err(Error::io(
                &e.path,
                &format!("the decision is review-log.jsonl line {number}, but it took no effect: cannot write"),
                e.source,
            ));
        }
        let awaiting = self.awaiting().iter().filter(|a| a.task == task).count();
        self.events.emit(Event::Reviewed {
            task: task.to_string(),
            criterion: criterion.name.clone(),
            decision,
            reviewer: entry.reviewer.clone(),
            reason: entry.reason.clone(),
            line: number,
            status,
            awaiting: if decision == Decision::Approved {
                awaiting
            } else {
                0
            },
        });
        self.recorded.push(Recorded {
            line: number,
            entry,
        });
        Ok(())
    }

    /// Lists what awaits review (`note`: say that nothing was asked).
    fn list(&mut self, format: Format, note: bool) {
        let awaiting = self.awaiting();
        let mut listed = Vec::new();
        for a in &awaiting {
            let tree = self.tree_of(&a.task);
            listed.push(Listed {
                task: a.task.clone(),
                task_title: self
                    .prd
                    .task(&a.task)
                    .map(|t| t.title.clone())
                    .unwrap_or_default(),
                criterion: a.criterion.name.clone(),
                title: a.criterion.title.clone(),
                line: a.criterion.line,
                attempt: self
                    .state
                    .task(&a.task)
                    .map_or(0, TaskState::current_attempt),
                tree,
            });
        }
        if format == Format::Json {
            let doc = Listing {
                prd: &self.shown,
                awaiting: listed,
                decisions: &self.recorded,
            };
            match serde_json::to_string_pretty(&doc) {
                Ok(text) => println!("{text}"),
                Err(e) => eprintln!("zurdo: cannot encode the listing as JSON: {e}"),
            }
            return;
        }
        if listed.is_empty() {
            println!("{}: nothing awaits review", self.shown);
            return;
        }
        println!(
            "{}: {} [manual] criteri{} await{} review",
            self.shown,
            listed.len(),
            if listed.len() == 1 { "on" } else { "a" },
            if listed.len() == 1 { "s" } else { "" }
        );
        let mut last_task = "";
        for l in &listed {
            if l.task != last_task {
                println!(
                    "  {} — {} (attempt {}, tree {})",
                    l.task,
                    l.task_title,
                    l.attempt,
                    l.tree
                        .as_deref()
                        .map_or("none: not a git repository", |t| &t[..12.min(t.len())])
                );
                last_task = &l.task;
            }
            println!(
                "    {}  {}:{}  {}",
                l.criterion, self.shown, l.line, l.title
            );
        }
        if note {
            eprintln!(
                "zurdo: stdin is not a terminal, so nothing was asked; decide with `zurdo review {0} --approve <task>::<criterion>` or `zurdo review {0} --reject <task>::<criterion> --reason \"…\"`",
                self.shown
            );
        }
    }

    /// The session on a terminal: each criterion awaiting review with the
    /// task's diff and evidence, and a question.
    fn interactive(&mut self) -> Outcome {
        let awaiting = self.awaiting();
        if awaiting.is_empty() {
            println!("{}: nothing awaits review", self.shown);
            return Ok(Exit::Ok);
        }
        println!(
            "{}: {} [manual] criteri{} to review, as {}",
            self.shown,
            awaiting.len(),
            if awaiting.len() == 1 { "on" } else { "a" },
            self.reviewer
        );
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let (mut approved, mut rejected, mut skipped) = (0usize, 0usize, 0usize);
        let mut rejected_task: Option<String> = None;
        let mut shown_task: Option<String> = None;
        'session: for a in &awaiting {
            if rejected_task.as_deref() == Some(a.task.as_str()) {
                skipped += 1;
                continue;
            }
            if shown_task.as_deref() != Some(a.task.as_str()) {
                self.show_task(&a.task);
                shown_task = Some(a.task.clone());
            }
            println!(
                "\n  {}:{}: {}",
                self.shown,
                a.criterion.line,
                self.prd_line(a.criterion.line)
            );
            println!("  criterion: {}", a.criterion.name);
            match ask(&mut input) {
                Answer::Quit => break 'session,
                Answer::Skip => skipped += 1,
                Answer::Approve => {
                    self.record(&a.task, &a.criterion, Decision::Approved, None)?;
                    approved += 1;
                }
                Answer::Reject(reason) => {
                    self.record(&a.task, &a.criterion, Decision::Rejected, Some(reason))?;
                    rejected += 1;
                    rejected_task = Some(a.task.clone());
                    println!(
                        "  {} is pending again: its other [manual] criteria are reviewed after its next attempt",
                        a.task
                    );
                }
            }
        }
        let left = self.awaiting().len();
        println!(
            "\n{}: {approved} approved, {rejected} rejected, {skipped} skipped; {left} still await{} review",
            self.shown,
            if left == 1 { "s" } else { "" }
        );
        Ok(Exit::Ok)
    }

    /// Line `n` of the PRD (the criterion as written).
    fn prd_line(&self, n: usize) -> String {
        self.prd_text
            .lines()
            .nth(n.saturating_sub(1))
            .unwrap_or("")
            .trim()
            .to_string()
    }

    /// A task's heading, its diff since its rollback point, and the
    /// automated evidence of its current result.
    fn show_task(&mut self, id: &str) {
        let title = self
            .prd
            .task(id)
            .map(|t| t.title.clone())
            .unwrap_or_default();
        let Some(t) = self.state.task(id).cloned() else {
            return;
        };
        let attempt = t.current_attempt();
        println!(
            "\n== {id} — {title} ({}, {})",
            t.status.name(),
            if attempt == 0 {
                "passed at pre-flight, no agent ran".to_string()
            } else {
                format!("attempt {attempt} of {}", t.max_attempts)
            }
        );
        let tree = self.tree_of(id);
        for line in self.diff_lines(&t, tree.as_deref()) {
            println!("{line}");
        }
        let when = if attempt == 0 {
            "pre-flight".to_string()
        } else {
            format!("attempt {attempt}")
        };
        println!("\n  automated evidence ({when}):");
        for r in t.current_records() {
            let label = match r.verdict {
                CriterionVerdict::Passed => "PASS",
                CriterionVerdict::Failed => "FAIL",
                CriterionVerdict::PendingReview => "REVIEW",
            };
            println!("    {label:<6}  {}  ({}:{})", r.name, self.shown, r.line);
        }
        if !t.flaky.is_empty() {
            println!(
                "    flaky (two verdicts on one tree): {}",
                t.flaky.join(", ")
            );
        }
        if let Some(w) = t.witness.as_ref().filter(|w| !w.unwitnessed.is_empty()) {
            println!(
                "    changed files no criterion reads: {}",
                w.unwitnessed.join(", ")
            );
        }
    }

    /// The task's diff since its rollback point, bounded, or why there is
    /// none.
    fn diff_lines(&self, t: &TaskState, tree: Option<&str>) -> Vec<String> {
        let slug = &self.dir.slug;
        let Some(tree) = tree else {
            return vec![
                "  no diff: not a git repository (zurdo keeps no trees outside git)".into(),
            ];
        };
        let Some(from) = &t.rollback_point else {
            return vec![if t.current_attempt() == 0 {
                "  no diff: the task passed at pre-flight, so no agent changed anything for it (no rollback point)".into()
            } else {
                "  no diff: no rollback point is recorded for it".into()
            }];
        };
        let label = format!("rollback point of {}, refs/zurdo/{slug}/{}", t.id, t.id);
        let patch = match crate::evidence::diff_patch(&self.root, from, tree, &label) {
            Ok(p) => p,
            Err(e) => return vec![format!("  no diff: {e}")],
        };
        let mut out = vec![format!(
            "\n  diff since its rollback point (refs/zurdo/{slug}/{}, tree {}) to the tree reviewed ({}):",
            t.id,
            &from[..12.min(from.len())],
            &tree[..12.min(tree.len())]
        )];
        let lines: Vec<&str> = patch.lines().skip(1).collect();
        if lines.is_empty() {
            out.push("  (no changes)".into());
            return out;
        }
        out.extend(lines.iter().take(DIFF_LINES).map(|l| l.to_string()));
        if lines.len() > DIFF_LINES {
            out.push(format!(
                "  … {} more lines: `git diff {from} {tree}` shows them all",
                lines.len() - DIFF_LINES
            ));
        }
        out
    }
}

/// Asks about one criterion until the answer is one (end of input quits).
fn ask(input: &mut impl BufRead) -> Answer {
    loop {
        print!("  [a]pprove, [r]eject, [s]kip (default), [q]uit? ");
        let _ = std::io::stdout().flush();
        let Some(answer) = read_line(input) else {
            println!();
            return Answer::Quit;
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "a" | "approve" => return Answer::Approve,
            "s" | "skip" | "" => return Answer::Skip,
            "q" | "quit" => return Answer::Quit,
            "r" | "reject" => loop {
                print!("  reason (it goes into the task's next prompt): ");
                let _ = std::io::stdout().flush();
                let Some(reason) = read_line(input) else {
                    println!();
                    return Answer::Quit;
                };
                if !reason.trim().is_empty() {
                    return Answer::Reject(reason.trim().to_string());
                }
                println!("  a rejection needs a reason");
            },
            _ => println!("  answer a, r, s or q"),
        }
    }
}

/// One line of input; `None` at its end.
fn read_line(input: &mut impl BufRead) -> Option<String> {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
    }
}

/// Says loudly that the chain does not check (nothing when it does).
fn warn_broken(events: &Events, dir: &StateDir, chain: &Chain) {
    if let Some((line, what)) = chain.first_break() {
        events.emit(Event::ReviewChainBroken {
            path: format!(".zurdo/{}/{}", dir.slug, review_log::FILE),
            line,
            what: what.to_string(),
            broken: chain.broken().max(1),
        });
    }
}

/// The reviewer: git's `user.name <user.email>` from the repository's
/// config (with the global and system files git layers under it), else
/// `$USER`.
pub fn reviewer(root: &Path) -> String {
    let config = git2::Repository::discover(root)
        .ok()
        .filter(|r| !r.is_bare())
        .and_then(|r| r.config().ok());
    let get = |key: &str| {
        config
            .as_ref()
            .and_then(|c| c.get_string(key).ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    match (get("user.name"), get("user.email")) {
        (Some(name), Some(email)) => format!("{name} <{email}>"),
        (Some(name), None) => name,
        (None, Some(email)) => format!("<{email}>"),
        (None, None) => std::env::var("USER")
            .ok()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| "unknown".to_string()),
    }
}

/// `, did you mean `x`?` for the name in `candidates` closest to `wanted`,
/// or nothing when none is close.
fn did_you_mean(wanted: &str, candidates: &[String]) -> String {
    let best = candidates
        .iter()
        .map(|c| (distance(wanted, c), c))
        .min_by_key(|(d, _)| *d);
    match best {
        Some((d, c)) if d <= (wanted.chars().count() / 2).max(3) => {
            format!("; did you mean `{c}`?")
        }
        _ => String::new(),
    }
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// One broken line, as `--verify --format json` lists it.
#[derive(Serialize)]
struct BrokenLine {
    line: usize,
    what: String,
}

#[derive(Serialize)]
struct ChainReport {
    log: String,
    entries: usize,
    intact: bool,
    first_break: Option<BrokenLine>,
    broken: Vec<BrokenLine>,
    unrecorded: Vec<usize>,
    unanchored: Option<String>,
}

/// `--verify`: the chain checked, the first entry that does not check
/// named; exit 0 intact, 1 broken. Read-only: no lock, nothing written.
fn verify_chain(format: Format, dir: &StateDir, manual: &Manual, prd_sha256: &str) -> Outcome {
    let loaded = dir.load()?;
    let anchor = Anchor::of(
        loaded.as_ref().map(|l| &l.state),
        loaded.as_ref().and_then(|l| l.distrusted.as_deref()),
    );
    let chain = review::read_chain(dir, manual, Some(prd_sha256), &anchor);
    let log = format!(".zurdo/{}/{}", dir.slug, review_log::FILE);
    let mut broken: Vec<BrokenLine> = chain
        .lines
        .iter()
        .filter_map(|l| {
            l.problem.as_ref().map(|p| BrokenLine {
                line: l.number,
                what: p.clone(),
            })
        })
        .collect();
    if let Some(missing) = &chain.missing {
        broken.push(BrokenLine {
            line: chain.lines.len() + 1,
            what: missing.clone(),
        });
    }
    let report = ChainReport {
        entries: chain.lines.len(),
        intact: chain.intact(),
        first_break: chain.first_break().map(|(line, what)| BrokenLine {
            line,
            what: what.to_string(),
        }),
        broken,
        unrecorded: chain.unrecorded.clone(),
        unanchored: chain.unanchored.clone().filter(|_| !chain.lines.is_empty()),
        log,
    };
    match format {
        Format::Json => match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("zurdo: cannot encode the check as JSON: {e}"),
        },
        Format::Human => print_chain(&report),
    }
    Ok(Exit::ok_if(report.intact))
}

fn print_chain(r: &ChainReport) {
    if r.entries == 0 && r.intact {
        println!("{}: no entries yet; nothing to check", r.log);
        return;
    }
    match &r.first_break {
        None => println!(
            "{}: {} entr{}, the chain checks",
            r.log,
            r.entries,
            if r.entries == 1 { "y" } else { "ies" }
        ),
        Some(first) => {
            println!("{}: broken at line {}: {}", r.log, first.line, first.what);
            for b in r.broken.iter().skip(1) {
                println!("  also line {}: {}", b.line, b.what);
            }
            println!(
                "{} of {} entr{} do{} not check; an entry that does not check counts for nothing (its approval is not counted)",
                r.broken.len(),
                r.entries,
                if r.entries == 1 { "y" } else { "ies" },
                if r.broken.len() == 1 { "es" } else { "" }
            );
        }
    }
    if !r.unrecorded.is_empty() {
        println!(
            "note: line{} {} {} not recorded in prd.json (a review stopped before saving its state): no effect",
            if r.unrecorded.len() == 1 { "" } else { "s" },
            r.unrecorded
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if r.unrecorded.len() == 1 { "is" } else { "are" }
        );
    }
    if let Some(why) = &r.unanchored {
        println!("note: {why}: entries removed from the end of the log cannot be found");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn did_you_mean_suggests_only_close_names() {
        let names = vec![
            "task_2::the_wording_reads_well".to_string(),
            "task_2::the_greeting_exists".to_string(),
        ];
        assert_eq!(
            did_you_mean("task_2::the_wording_read_well", &names),
            "; did you mean `task_2::the_wording_reads_well`?"
        );
        assert_eq!(did_you_mean("task_9::zzz", &names), "");
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn answers() {
        let mut input = std::io::Cursor::new("x\nr\n\n  too terse \n");
        assert!(matches!(ask(&mut input), Answer::Reject(r) if r == "too terse"));
        let mut input = std::io::Cursor::new("A\n");
        assert!(matches!(ask(&mut input), Answer::Approve));
        let mut input = std::io::Cursor::new("\n");
        assert!(matches!(ask(&mut input), Answer::Skip));
        let mut input = std::io::Cursor::new("");
        assert!(matches!(ask(&mut input), Answer::Quit));
        let mut input = std::io::Cursor::new("r\n");
        assert!(
            matches!(ask(&mut input), Answer::Quit),
            "no reason, no rejection"
        );
    }
}
