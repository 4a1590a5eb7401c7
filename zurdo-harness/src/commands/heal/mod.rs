//! `zurdo heal <prd>`: criteria whose hints, not the work, made a run fail.
//!
//! It lists the candidates from the run state (heal routings the reasoner
//! recorded, criteria that failed for hint-side reasons) and the lessons
//! that match their tasks prospectively, with or without an analyzer. With
//! `[roles.analyzer]`, it asks for a corrected criterion line for each
//! candidate (or takes one from `--line N --with '…'`); a proposal is
//! applied to a copy and checked ([`crate::edit::check`]: it validates and
//! weakens nothing), the old and the new criterion are run on the working
//! tree, the one-line diff is shown, and on `--yes` or confirmation the PRD
//! line is replaced. An accepted heal moves the PRD's hash in prd.json
//! (through zurdo, so its MAC stays valid) and is appended to
//! `heal-log.jsonl`: the next `zurdo run` resumes instead of refusing with
//! drift. See docs/analyze.md.

mod candidates;

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;
use zurdo::verify::{CriterionResult, CriterionVerdict, Reason as HintReason, Verdict, Verifier};
use zurdo::{source, Criterion, Prd};

use super::proposals::{indent, write_prd, Acceptance, Analyzer};
use crate::cli::{Format, HealArgs};
use crate::config::Config;
use crate::edit::{self, Checks, Edit, Place};
use crate::error::{Error, ErrorKind, Exit, Outcome};
use crate::event::{Event, Log};
use crate::reason::heal::{self as prompts, Case};
use crate::reason::library::{Lesson, Library, Usage};
use crate::state::run_state::{RunState, Status, TaskState};
use crate::state::{sha1_hex, StateDir};
use candidates::{candidates, test_name, Candidate, Why};

/// A criterion's verdict on the working tree, as shown.
#[derive(Debug, Clone, Serialize)]
struct Shown {
    verdict: CriterionVerdict,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failures: Vec<String>,
}

impl Shown {
    fn of(result: &CriterionResult) -> Shown {
        Shown {
            verdict: result.verdict,
            failures: result
                .failures()
                .map(|h| match &h.verdict {
                    Verdict::Fail(reason) => format!("{}: {reason}", h.hint),
                    Verdict::Pass => h.hint.clone(),
                })
                .collect(),
        }
    }

    fn line(&self) -> String {
        let name = match self.verdict {
            CriterionVerdict::Passed => "passed",
            CriterionVerdict::PendingReview => "passed, [manual] awaits review",
            CriterionVerdict::Failed => "failed",
        };
        if self.failures.is_empty() {
            name.to_string()
        } else {
            format!("{name}: {}", self.failures.join("; "))
        }
    }
}

/// What became of one proposal.
#[derive(Debug, Clone, Serialize)]
struct Heal {
    task: String,
    line: usize,
    /// `<provider>/<model>`, or `human` for `--with`.
    proposed_by: String,
    /// `healed`, `refused`, `declined`, `not_written`, `no_proposal` (the
    /// analyzer says the hint is right) or `failed` (the call gave nothing
    /// usable).
    outcome: &'static str,
    why: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    refused: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<Checks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    before: Option<Shown>,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<Shown>,
}

/// One line of `heal-log.jsonl`.
#[derive(Serialize)]
struct LogEntry<'a> {
    ts: String,
    prd: &'a str,
    task: &'a str,
    line: usize,
    criterion: &'a str,
    old: &'a str,
    new: &'a str,
    why: &'a str,
    who: Who<'a>,
    /// Why it was a candidate.
    candidate: &'a [Why],
    before: &'a Shown,
    after: &'a Shown,
    prd_sha1_before: &'a str,
    prd_sha1_after: &'a str,
}

#[derive(Serialize)]
struct Who<'a> {
    /// The analyzer (`<provider>/<model>`) or `human`.
    proposed_by: &'a str,
    /// `--yes` or `confirmed at the terminal`.
    accepted_by: &'a str,
    /// The login that ran `zurdo heal`, when the environment says.
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<String>,
}

/// The whole answer (`--format json`).
#[derive(Serialize)]
struct Report {
    prd: String,
    /// `.zurdo/<slug>/`, when the PRD has run state.
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<String>,
    candidates: Vec<Candidate>,
    heals: Vec<Heal>,
    healed: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    /// What to run next.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next: Vec<String>,
}

/// Runs the command: 0 when nothing is left to heal, 1 when candidates (or
/// the `--line` given) remain unhealed.
pub fn run(args: &HealArgs) -> Outcome {
    let shown = args.prd.display().to_string();
    let root = source::repo_root(&args.prd);
    let config = Config::load(&root)?;
    let (bytes, prd) = Error::read_prd(&args.prd, &shown)?;
    if let Some(id) = args.task.as_deref().filter(|id| prd.task(id).is_none()) {
        return Err(Error::invalid(format!("{shown} has no task `{id}`")));
    }
    let relative = source::relative_to(&root, &args.prd).ok_or_else(|| {
        Error::invalid(format!(
            "{shown} is outside the repository at {}",
            root.display()
        ))
    })?;
    let dir = StateDir::new(&root, &relative);
    // Held for the whole session: no run may start on a PRD being healed.
    let _lock = super::proposals::lock(&dir, &shown)?;
    let sha1 = sha1_hex(&bytes);
    let state = match dir.load()? {
        None => None,
        Some(loaded) => {
            if let Some(why) = loaded.distrusted {
                return Err(Error::invalid(format!(
                    "{}: {why}; heal will not vouch for a record zurdo cannot: `zurdo run {shown}` re-verifies everything when it resumes, or `zurdo run --reset {shown}` starts over",
                    dir.prd_json().display()
                )));
            }
            if loaded.state.prd_sha1 != sha1 {
                return Err(Error::new(
                    ErrorKind::Drift,
                    format!(
                        "{shown} changed since its run state was written ({}): heal moves that record only for its own edits; `zurdo run --reset {shown}` archives the state and starts over",
                        dir.prd_json().display()
                    ),
                ));
            }
            if let Err(why) = loaded.state.check(&prd) {
                return Err(Error::invalid(format!(
                    "{}: the run state does not add up ({why}): it was edited or damaged",
                    dir.prd_json().display()
                )));
            }
            Some(loaded.state)
        }
    };
    let library = Library::load(&root);
    for s in &library.skipped {
        eprintln!("warning: lesson {} skipped: {}", s.path.display(), s.why);
    }
    let usage = Usage::load(&root);
    let src = String::from_utf8_lossy(&bytes).into_owned();
    let mut found = candidates(&prd, &src, state.as_ref(), &library, &usage);
    found.retain(|c| args.task.as_deref().is_none_or(|id| c.task == id));

    let human = args.format == Format::Human;
    let mut healer = Healer {
        args,
        human,
        shown: &shown,
        relative: &relative,
        root: &root,
        config: &config,
        dir,
        state,
        src,
        prd,
        sha1,
        verifier: None,
        library: &library,
        report: Report {
            prd: shown.clone(),
            state: None,
            candidates: Vec::new(),
            heals: Vec::new(),
            healed: 0,
            notes: Vec::new(),
            next: Vec::new(),
        },
    };
    if healer.state.is_some() {
        healer.report.state = Some(format!(".zurdo/{}/", healer.dir.slug));
    }
    healer.list(&found);
    let exit = healer.heal(&found)?;
    healer.finish();
    Ok(exit)
}

/// The session: the PRD as it stands (healed lines included), its state,
/// and what was done.
struct Healer<'a> {
    args: &'a HealArgs,
    human: bool,
    shown: &'a str,
    relative: &'a str,
    root: &'a Path,
    config: &'a Config,
    dir: StateDir,
    state: Option<RunState>,
    src: String,
    prd: Prd,
    /// The SHA-1 of the PRD's bytes now.
    sha1: String,
    verifier: Option<Verifier>,
    library: &'a Library,
    report: Report,
}

impl Healer<'_> {
    fn list(&mut self, found: &[Candidate]) {
        if self.human {
            println!(
                "{}: {} heal candidate(s){}",
                self.shown,
                found.len(),
                if self.state.is_none() {
                    " (no run state yet: only lessons can make one)"
                } else {
                    ""
                }
            );
            for c in found {
                println!("{}:{}: {}: {}", self.shown, c.line, c.task, c.text.trim());
                for why in &c.why {
                    println!("  why: {}", why.detail);
                }
                for l in &c.lessons {
                    println!(
                        "  lesson-{} (score {}{}): {}",
                        l.id,
                        l.score,
                        if l.addressed { "" } else { ", not addressed" },
                        l.rule
                    );
                }
            }
        }
        self.report.candidates = found.to_vec();
    }

    /// Proposes (or takes `--with`'s) heals and considers each; the exit.
    fn heal(&mut self, found: &[Candidate]) -> Result<Exit, Error> {
        if let (Some(line), Some(with)) = (self.args.line, self.args.with.as_deref()) {
            let at = edit::locate(&self.src, &self.prd, line).ok_or_else(|| {
                Error::invalid(format!(
                    "{}: line {line} is not an acceptance criterion",
                    self.shown
                ))
            })?;
            let candidate = found
                .iter()
                .find(|c| c.line == at.first)
                .cloned()
                .unwrap_or_else(|| self.by_hand(&at));
            let proposal = Edit {
                line: at.first,
                quote: at.text.clone(),
                replacement: with.to_string(),
                why: "written by hand (--with)".into(),
            };
            let heal = self.consider(&candidate, proposal, "human");
            let healed = heal.outcome == "healed";
            self.report.heals.push(heal);
            return Ok(Exit::ok_if(healed));
        }
        if found.is_empty() {
            return Ok(Exit::Ok);
        }
        let analyzer = if self.args.list {
            None
        } else {
            Analyzer::of(self.config)
        };
        let Some(analyzer) = analyzer else {
            let note = if self.args.list {
                "listed only (--list): nothing proposed".to_string()
            } else {
                format!(
                    "no [roles.analyzer] is configured: nothing proposed. Heal a line yourself with `zurdo heal {} --line <N> --with '- [ ] …'` (the same checks apply), or add [roles.analyzer] to .zurdo/config.toml",
                    self.shown
                )
            };
            if self.human {
                println!("{note}");
            }
            self.report.notes.push(note);
            return Ok(Exit::Failed);
        };
        let files = repo_files(self.root);
        for candidate in found {
            let heal = self.propose(&analyzer, candidate, &files);
            self.report.heals.push(heal);
        }
        let healed: BTreeSet<usize> = self
            .report
            .heals
            .iter()
            .filter(|h| h.outcome == "healed")
            .map(|h| h.line)
            .collect();
        Ok(Exit::ok_if(found.iter().all(|c| healed.contains(&c.line))))
    }

    /// A criterion named with `--line` that is not a candidate.
    fn by_hand(&self, at: &edit::Located) -> Candidate {
        let task = self.prd.task(&at.task);
        Candidate {
            task: at.task.clone(),
            line: at.first,
            criterion: task.map_or(String::new(), |t| test_name(t, at.index)),
            text: at.text.clone(),
            why: vec![Why {
                kind: "by_hand",
                detail: "named with --line".into(),
                attempt: None,
            }],
            lessons: Vec::new(),
            evidence: String::new(),
        }
    }

    /// Asks the analyzer for one candidate and considers its answer.
    fn propose(&mut self, analyzer: &Analyzer<'_>, c: &Candidate, files: &str) -> Heal {
        let Some(task) = self.prd.task(&c.task).cloned() else {
            return self.outcome(c, "failed", "its task is gone".into(), "");
        };
        let lessons: Vec<&Lesson> = c
            .lessons
            .iter()
            .filter_map(|l| self.library.lessons.iter().find(|x| x.id == l.id))
            .collect();
        let reasons: Vec<String> = c.why.iter().map(|w| w.detail.clone()).collect();
        let prompt = prompts::prompt(&Case {
            display: self.shown,
            task: &task,
            line: c.line,
            text: &c.text,
            reasons: &reasons,
            evidence: &c.evidence,
            lessons: &lessons,
            files,
        });
        let name = format!(
            "heal-{}-line{}-{}",
            c.task,
            c.line,
            zurdo_base::time::now_for_file_name()
        );
        if let Err(e) = self
            .dir
            .write_reason_file(&name, "prompt", prompt.as_bytes())
        {
            eprintln!(
                "warning: could not write {}: {}",
                e.path.display(),
                e.source
            );
        }
        let called = analyzer.ask(&prompt);
        if called.started {
            if let Err(e) = self.dir.write_reason_file(&name, "out", &called.stdout) {
                eprintln!(
                    "warning: could not write {}: {}",
                    e.path.display(),
                    e.source
                );
            }
        }
        let by = analyzer.name();
        let proposal = called.reply.and_then(|r| prompts::parse(&r.text, c.line));
        match proposal {
            Err(why) => {
                if self.human {
                    println!("  line {}: the analyzer gave nothing usable: {why}", c.line);
                }
                self.outcome(c, "failed", why, &by)
            }
            Ok(p) => match p.edit {
                None => {
                    if self.human {
                        println!("  line {}: {by} proposes no heal: {}", c.line, p.why);
                    }
                    self.outcome(c, "no_proposal", p.why, &by)
                }
                Some(edit) => self.consider(c, edit, &by),
            },
        }
    }

    fn outcome(&self, c: &Candidate, outcome: &'static str, why: String, by: &str) -> Heal {
        Heal {
            task: c.task.clone(),
            line: c.line,
            proposed_by: by.to_string(),
            outcome,
            why,
            old: None,
            new: None,
            refused: Vec::new(),
            checks: None,
            diff: None,
            before: None,
            after: None,
        }
    }

    /// Applies, checks, runs and (on acceptance) writes one proposal.
    fn consider(&mut self, c: &Candidate, proposal: Edit, by: &str) -> Heal {
        let mut heal = self.outcome(c, "refused", proposal.why.clone(), by);
        heal.old = Some(c.text.clone());
        heal.new = Some(proposal.replacement.trim().to_string());
        if self.human {
            println!("  line {}: proposed by {by}: {}", c.line, proposal.why);
        }
        let refuse = |mut heal: Heal, why: Vec<String>, human: bool| {
            if human {
                for w in &why {
                    println!("  refused: {w}");
                }
            }
            heal.refused = why;
            heal
        };
        let lines = proposal
            .replacement
            .lines()
            .filter(|l| !l.trim().is_empty())
            .count();
        if lines != 1 {
            return refuse(
                heal,
                vec![format!(
                    "a heal replaces one criterion line with one line; this has {lines}"
                )],
                self.human,
            );
        }
        let applied = match edit::apply(&self.src, &self.prd, &proposal) {
            Ok(applied) => applied,
            Err(why) => return refuse(heal, vec![why], self.human),
        };
        if applied.at.first != c.line {
            return refuse(
                heal,
                vec![format!(
                    "it names the criterion on line {}, not line {}",
                    applied.at.first, c.line
                )],
                self.human,
            );
        }
        let place = Place {
            root: self.root,
            prd_path: Some(self.relative),
        };
        let (checks, new_prd) = edit::check(place, &self.prd, &applied.text);
        let diff = edit::diff(&self.src, &applied.text, self.relative);
        if self.human {
            println!("{}", indent(diff.trim_end(), "    "));
        }
        heal.diff = Some(diff);
        let Some(new_prd) = new_prd.filter(|_| checks.passed()) else {
            let why = checks.reasons();
            heal.checks = Some(checks);
            return refuse(heal, why, self.human);
        };
        heal.checks = Some(checks);
        let old = self.criterion(&self.prd, &applied.at);
        let new = self.criterion(&new_prd, &applied.at);
        let (Some(old), Some(new)) = (old, new) else {
            return refuse(
                heal,
                vec!["the criterion cannot be found again".into()],
                self.human,
            );
        };
        let (before, after) = match (self.verify(&old), self.verify(&new)) {
            (Ok(before), Ok(after)) => (before, after),
            (Err(why), _) | (_, Err(why)) => return refuse(heal, vec![why], self.human),
        };
        let (before_shown, after_shown) = (Shown::of(&before), Shown::of(&after));
        if self.human {
            println!("    before: {}", before_shown.line());
            println!("    after:  {}", after_shown.line());
        }
        heal.before = Some(before_shown.clone());
        heal.after = Some(after_shown.clone());
        if let Some(broken) = still_broken(&after) {
            return refuse(
                heal,
                vec![format!("the healed criterion still cannot run: {broken}")],
                self.human,
            );
        }
        let acceptance = Acceptance::decide(
            self.args.yes,
            &format!("heal line {} of {}?", c.line, self.shown),
        );
        if !acceptance.accepted() {
            heal.outcome = acceptance.outcome();
            if self.human {
                println!(
                    "  {}",
                    if acceptance == Acceptance::Declined {
                        "declined"
                    } else {
                        "not written: re-run with --yes (or at a terminal) to accept it"
                    }
                );
            }
            return heal;
        }
        match self.write(
            c,
            &applied.text,
            new_prd,
            &heal,
            &before_shown,
            &after_shown,
            by,
            acceptance,
        ) {
            Ok(()) => {
                heal.outcome = "healed";
                self.report.healed += 1;
                if self.human {
                    println!(
                        "  healed: {}:{} (recorded in .zurdo/{}/heal-log.jsonl)",
                        self.shown, c.line, self.dir.slug
                    );
                }
                heal
            }
            Err(why) => refuse(heal, vec![why], self.human),
        }
    }

    fn criterion(&self, prd: &Prd, at: &edit::Located) -> Option<Criterion> {
        prd.task(&at.task)?.criteria.get(at.index).cloned()
    }

    /// Runs `criterion` on the working tree now (as `zurdo verify` would);
    /// whatever it left running is killed after.
    fn verify(&mut self, criterion: &Criterion) -> Result<CriterionResult, String> {
        let verifier = match &mut self.verifier {
            Some(verifier) => verifier,
            None => {
                zurdo::exec::reap::become_subreaper();
                let verifier = Verifier::new(self.root, self.config.verification.clone())
                    .map_err(|e| format!("cannot open {}: {e}", self.root.display()))?
                    .in_passes();
                self.verifier.insert(
                    match self.state.as_ref().and_then(|s| s.ignore_rules.clone()) {
                        Some(rules) => verifier.with_ignore_rules(rules),
                        None => verifier,
                    },
                )
            }
        };
        let result = verifier.criterion(criterion);
        zurdo::exec::reap::kill_descendants();
        Ok(result)
    }

    /// Writes the healed PRD, moves prd.json's hash, logs the heal.
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        c: &Candidate,
        text: &str,
        new_prd: Prd,
        heal: &Heal,
        before: &Shown,
        after: &Shown,
        by: &str,
        acceptance: Acceptance,
    ) -> Result<(), String> {
        write_prd(&self.args.prd, &self.sha1, text)?;
        let old_sha1 = std::mem::replace(&mut self.sha1, sha1_hex(text.as_bytes()));
        self.src = text.to_string();
        self.prd = new_prd;
        if let Some(state) = &mut self.state {
            state.prd_sha1 = self.sha1.clone();
            if let Err(e) = self.dir.save(state) {
                return Err(format!(
                    "the PRD was healed, but {} could not be written ({}): the next `zurdo run` stops with drift",
                    e.path.display(),
                    e.source
                ));
            }
        }
        let entry = LogEntry {
            ts: zurdo_base::time::now(),
            prd: self.relative,
            task: &c.task,
            line: c.line,
            criterion: &c.criterion,
            old: heal.old.as_deref().unwrap_or(""),
            new: heal.new.as_deref().unwrap_or(""),
            why: &heal.why,
            who: Who {
                proposed_by: by,
                accepted_by: acceptance.by(),
                user: std::env::var("USER")
                    .ok()
                    .or_else(|| std::env::var("LOGNAME").ok()),
            },
            candidate: &c.why,
            before,
            after,
            prd_sha1_before: &old_sha1,
            prd_sha1_after: &self.sha1,
        };
        let mut line = serde_json::to_vec(&entry).unwrap_or_default();
        line.push(b'\n');
        match self.dir.append_heal_log(&line) {
            Ok(false) => {}
            Ok(true) => eprintln!(
                "warning: {} was not a regular file; it was removed, not followed, and a new log begins",
                self.dir.heal_log().display()
            ),
            Err(e) => eprintln!(
                "warning: cannot append to {}: {}",
                e.path.display(),
                e.source
            ),
        }
        if self.state.is_some() {
            let event = Event::PrdHealed {
                task: c.task.clone(),
                line: c.line,
                old: entry.old.to_string(),
                new: entry.new.to_string(),
            };
            if let Err(e) = Log::new(&self.dir).append(&event) {
                eprintln!(
                    "warning: cannot append to {}: {e}",
                    self.dir.progress_log().display()
                );
            }
        }
        Ok(())
    }

    /// Says what to run next, and prints the JSON document.
    fn finish(&mut self) {
        let healed: Vec<&Heal> = self
            .report
            .heals
            .iter()
            .filter(|h| h.outcome == "healed")
            .collect();
        let mut tasks: Vec<&str> = Vec::new();
        for h in &healed {
            if !tasks.contains(&h.task.as_str()) {
                tasks.push(&h.task);
            }
        }
        let shown = self.shown;
        for task in tasks {
            let status = self
                .state
                .as_ref()
                .and_then(|s| s.task(task))
                .map(|t: &TaskState| t.status);
            let next = match status {
                None => format!(
                    "{shown} has no run state yet: the next `zurdo run {shown}` starts with the healed PRD"
                ),
                Some(Status::Failed | Status::BlockedByDependency) => format!(
                    "{task} is {}: `zurdo run {shown}` resumes without drift but keeps failed tasks (and the tasks they block) settled; `zurdo run --retry-failed {shown}` retries it with the healed criterion, or `zurdo run --reset {shown}` starts the whole run over",
                    status.map_or("", Status::name)
                ),
                Some(Status::Pending) => format!(
                    "{task} is pending: `zurdo run {shown}` resumes and runs it with the healed criterion"
                ),
                Some(Status::Unproven) => format!(
                    "{task} is unproven (every criterion held before any agent ran): a resumed run keeps it settled; `zurdo run --reset {shown}` runs the whole PRD again with the healed criterion"
                ),
                Some(Status::Passed | Status::PassedPendingReview) => format!(
                    "{task} had passed: `zurdo run {shown}` re-verifies it with the healed criterion when it resumes (and runs it again if it no longer holds)"
                ),
            };
            self.report.next.push(next);
        }
        if self.human {
            println!(
                "{}: {} candidate(s), {} healed",
                self.shown,
                self.report.candidates.len(),
                self.report.healed
            );
            for next in &self.report.next {
                println!("next: {next}");
            }
        } else {
            match serde_json::to_string_pretty(&self.report) {
                Ok(text) => println!("{text}"),
                Err(e) => eprintln!("zurdo: cannot encode the report as JSON: {e}"),
            }
        }
    }
}

/// The failing hint of `result` that shows the hint itself cannot run (it
/// could not start, or `sh` could not find or execute its command).
fn still_broken(result: &CriterionResult) -> Option<String> {
    result.failures().find_map(|h| match &h.verdict {
        Verdict::Fail(
            reason @ (HintReason::SpawnFailed { .. } | HintReason::ExitCode { code: 126 | 127 }),
        ) => Some(format!("{}: {reason}", h.hint)),
        _ => None,
    })
}

/// The repository's files, repository-relative, one per line: breadth
/// first, `.git`, `.zurdo`, `target` and `node_modules` left out, at most
/// 400 names (the heal prompt's view of what paths exist).
fn repo_files(root: &Path) -> String {
    const SKIP: [&str; 4] = [".git", ".zurdo", "target", "node_modules"];
    const MAX: usize = 400;
    let mut out = Vec::new();
    let mut queue = std::collections::VecDeque::from([std::path::PathBuf::new()]);
    let mut visited = 0;
    while let Some(rel) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        let mut names: Vec<(String, bool)> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let dir = e.file_type().ok()?.is_dir();
                Some((name, dir))
            })
            .collect();
        names.sort();
        for (name, dir) in names {
            visited += 1;
            if visited > 20_000 || out.len() >= MAX {
                return out.join("\n");
            }
            if SKIP.contains(&name.as_str()) {
                continue;
            }
            let path = rel.join(&name);
            if dir {
                queue.push_back(path);
            } else {
                out.push(path.display().to_string());
            }
        }
    }
    out.join("\n")
}
