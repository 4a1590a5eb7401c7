//! `zurdo analyze <prd>…` (also `zurdo --analyze <prd>…`): everything
//! `zurdo validate` does, plus `unaddressed-lesson`, plus the analyzer's
//! critique (through `[roles.analyzer]`'s CLI, fail-open), whose findings
//! are checked in code before they are shown. With `--fix`, the analyzer's
//! edits are applied to a copy, checked ([`crate::edit::check`]), shown as
//! diffs and written on `--yes` or confirmation; every round is kept under
//! `.zurdo/<slug>/analyze-iterations/`.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use zurdo::lint::{self, Lint, LintContext, FAMILIES};
use zurdo::{source, Diagnostic, Prd};

use super::proposals::{indent, write_prd, Acceptance, Analyzer};
use crate::cli::{AnalyzeArgs, Format};
use crate::config::Config;
use crate::edit::{self, Checks, Edit, Place};
use crate::error::{Error, Exit, Outcome};
use crate::reason::critique::{self, Dropped, Finding};
use crate::reason::library::{Library, Usage};
use crate::reason::unaddressed;
use crate::state::{sha1_hex, StateDir};

/// What analyzing one file found.
#[derive(Serialize)]
struct FileReport {
    path: String,
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    unreadable: Option<String>,
    errors: Vec<Diagnostic>,
    /// Validate's lint warnings and `unaddressed-lesson`, by line.
    warnings: Vec<Lint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    critique: Option<CritiqueReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<FixReport>,
}

/// The critique's part.
#[derive(Serialize)]
struct CritiqueReport {
    /// `done`, `skipped` (no analyzer) or `failed` (fail-open).
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    findings: Vec<Finding>,
    /// Findings dropped unread: the line each cited and why, never its text.
    dropped: Vec<Dropped>,
}

/// The `--fix` part.
#[derive(Serialize)]
struct FixReport {
    /// `.zurdo/<slug>/analyze-iterations/<session>/`, when rounds ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    trail: Option<String>,
    rounds: Vec<Round>,
    /// Edits written to the PRD.
    written: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

/// One round: what was asked, and what became of each proposal. Also the
/// round's `round-<n>.json` in the trail.
#[derive(Serialize)]
struct Round {
    round: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    /// Why the call gave nothing usable.
    #[serde(skip_serializing_if = "Option::is_none")]
    failed: Option<String>,
    proposals: Vec<Proposal>,
}

/// One proposed edit and its fate.
#[derive(Serialize, Clone)]
struct Proposal {
    /// The edit as proposed (its fields at the top level of the JSON).
    #[serde(flatten)]
    edit: Edit,
    /// `applied`, `declined`, `not_written` or `refused`.
    outcome: &'static str,
    /// Why it was refused.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    refused: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    checks: Option<Checks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

/// Runs the command and returns its exit status: 0 clean, 1 findings
/// (warnings or critique findings), 2 an invalid PRD.
pub fn run(args: &AnalyzeArgs) -> Outcome {
    let human = args.format == Format::Human;
    let mut reports = Vec::new();
    for path in &args.prds {
        reports.push(analyze(path, args, human)?);
    }
    if !human {
        #[derive(Serialize)]
        struct Document<'a> {
            files: &'a [FileReport],
        }
        match serde_json::to_string_pretty(&Document { files: &reports }) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("zurdo: cannot encode the report as JSON: {e}"),
        }
    }
    let invalid = reports.iter().any(|r| !r.valid);
    let found = reports.iter().any(|r| {
        !r.warnings.is_empty() || r.critique.as_ref().is_some_and(|c| !c.findings.is_empty())
    });
    Ok(if invalid {
        Exit::Invalid
    } else if found {
        Exit::Failed
    } else {
        Exit::Ok
    })
}

fn analyze(path: &Path, args: &AnalyzeArgs, human: bool) -> Result<FileReport, Error> {
    let shown = path.display().to_string();
    let mut report = FileReport {
        path: shown.clone(),
        valid: false,
        unreadable: None,
        errors: Vec::new(),
        warnings: Vec::new(),
        critique: None,
        fix: None,
    };
    let bytes = match source::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("zurdo: {shown}: cannot read the PRD: {}", e.reason);
            report.unreadable = Some(e.reason);
            return Ok(report);
        }
    };
    let prd = match zurdo::parse_bytes(&bytes) {
        Ok(prd) => prd,
        Err(errors) => {
            if human {
                for e in &errors {
                    println!("{}", e.render(&shown));
                }
                println!(
                    "{shown}: invalid: {} error(s); nothing else is analyzed",
                    errors.len()
                );
            }
            report.errors = errors;
            return Ok(report);
        }
    };
    report.valid = true;
    let src = String::from_utf8_lossy(&bytes).into_owned();
    let root = source::repo_root(path);
    let relative = source::relative_to(&root, path);
    let config = Config::load(&root)?;

    // The deterministic part: validate's lints and the lessons.
    report.warnings = warnings(&prd, &root, relative.as_deref());
    if human {
        for w in &report.warnings {
            println!("{}", w.render(&shown));
        }
    }

    // With --fix, the PRD is held (as a run holds it) from before the
    // critique until anything is written.
    let state = relative.as_deref().map(|r| StateDir::new(&root, r));
    let _lock = match (&state, args.fix && config.analyzer.is_some()) {
        (Some(dir), true) => Some(super::proposals::lock(dir, &shown)?),
        _ => None,
    };

    let analyzer = Analyzer::of(&config);
    let Some(analyzer) = analyzer else {
        let critique = CritiqueReport {
            status: "skipped",
            why: Some("no [roles.analyzer] is configured in .zurdo/config.toml".into()),
            model: None,
            findings: Vec::new(),
            dropped: Vec::new(),
        };
        if human {
            println!(
                "critique skipped: no [roles.analyzer] is configured in .zurdo/config.toml (the checks above ran without it)"
            );
        }
        report.critique = Some(critique);
        if args.fix {
            let note = "--fix needs an analyzer to propose edits: add [roles.analyzer] to .zurdo/config.toml".to_string();
            if human {
                println!("{note}");
            }
            report.fix = Some(FixReport {
                trail: None,
                rounds: Vec::new(),
                written: 0,
                notes: vec![note],
            });
        }
        summary(&report, human);
        return Ok(report);
    };

    let prompt = critique::prompt(&shown, &src, &report.warnings, args.fix);
    let called = analyzer.ask(&prompt);
    let reply_text = called.reply.as_ref().map(|r| r.text.clone()).ok();
    let mut edits = Vec::new();
    let mut critique = CritiqueReport {
        status: "failed",
        why: None,
        model: called.reply.as_ref().ok().map(|r| r.model.clone()),
        findings: Vec::new(),
        dropped: Vec::new(),
    };
    match called
        .reply
        .and_then(|r| critique::parse(&r.text, &src, &prd, &root))
    {
        Ok(parsed) => {
            critique.status = "done";
            critique.findings = parsed.findings;
            critique.dropped = parsed.dropped;
            edits = parsed.edits;
        }
        Err(why) => critique.why = Some(why),
    }
    if human {
        print_critique(&shown, &critique, &analyzer.name());
    }
    let failed = critique.why.clone();
    report.critique = Some(critique);

    if args.fix {
        let Some(dir) = state else {
            return Err(Error::invalid(format!(
                "{shown} is outside the repository at {}: --fix keeps its trail in the repository's .zurdo/",
                root.display()
            )));
        };
        let mut fixer = Fixer {
            args,
            human,
            shown: &shown,
            path,
            root: &root,
            relative: relative.as_deref(),
            read_sha1: sha1_hex(&bytes),
            session: dir.new_analyze_session().unwrap_or_else(|e| {
                eprintln!(
                    "warning: could not create {}: {}",
                    e.path.display(),
                    e.source
                );
                zurdo_base::time::now_for_file_name()
            }),
            dir,
            analyzer: &analyzer,
            original: (src.clone(), prd.clone()),
            working: (src, prd),
        };
        report.fix = Some(fixer.fix(prompt, reply_text, failed, edits));
    }
    summary(&report, human);
    Ok(report)
}

/// Validate's lints and `unaddressed-lesson`, sorted by line, then family.
fn warnings(prd: &Prd, root: &Path, relative: Option<&str>) -> Vec<Lint> {
    let ctx = LintContext {
        root: Some(root),
        prd_path: relative,
        ..Default::default()
    };
    let mut out = lint::lint(prd, &ctx);
    let library = Library::load(root);
    for s in &library.skipped {
        eprintln!("warning: lesson {} skipped: {}", s.path.display(), s.why);
    }
    let usage = Usage::load(root);
    out.extend(
        unaddressed::check(prd, &library, &usage)
            .iter()
            .map(unaddressed::Unaddressed::lint),
    );
    let rank = |family: &str| FAMILIES.iter().position(|f| *f == family);
    out.sort_by_key(|l| (l.line, rank(l.family)));
    out
}

fn print_critique(shown: &str, c: &CritiqueReport, analyzer: &str) {
    for f in &c.findings {
        println!(
            "{shown}:{}: finding[{}]: {}\n  quote: \"{}\"",
            f.line, f.kind, f.message, f.quote
        );
        if let Some(fix) = &f.fix {
            println!("  fix: {fix}");
        }
        if !f.files.is_empty() {
            println!("  files: {}", f.files.join(", "));
        }
    }
    match (c.status, &c.why) {
        ("done", _) => {
            let mut line = format!(
                "critique by {}: {} finding(s)",
                c.model.as_deref().unwrap_or(analyzer),
                c.findings.len()
            );
            if !c.dropped.is_empty() {
                let _ = write!(
                    line,
                    "; {} dropped unread: {}",
                    c.dropped.len(),
                    c.dropped
                        .iter()
                        .map(|d| d.why.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                );
            }
            println!("{line}");
        }
        (_, why) => println!(
            "critique failed: {} (the checks above ran without it)",
            why.as_deref().unwrap_or("no reply")
        ),
    }
}

fn summary(r: &FileReport, human: bool) {
    if !human {
        return;
    }
    let findings = r.critique.as_ref().map_or(0, |c| c.findings.len());
    println!(
        "{}: {} warning(s), {} finding(s)",
        r.path,
        r.warnings.len(),
        findings
    );
}

/// One `--fix` session on one PRD.
struct Fixer<'a> {
    args: &'a AnalyzeArgs,
    human: bool,
    shown: &'a str,
    path: &'a Path,
    root: &'a Path,
    relative: Option<&'a str>,
    /// The PRD's SHA-1 when it was read (it is written back only if still so).
    read_sha1: String,
    dir: StateDir,
    session: String,
    analyzer: &'a Analyzer<'a>,
    original: (String, Prd),
    /// The text with the edits accepted so far.
    working: (String, Prd),
}

impl Fixer<'_> {
    fn fix(
        &mut self,
        first_prompt: String,
        first_reply: Option<String>,
        first_failed: Option<String>,
        first_edits: Vec<Result<Edit, String>>,
    ) -> FixReport {
        let mut report = FixReport {
            trail: Some(format!(
                ".zurdo/{}/analyze-iterations/{}/",
                self.dir.slug, self.session
            )),
            rounds: Vec::new(),
            written: 0,
            notes: Vec::new(),
        };
        let (mut prompt, mut reply, mut failed, mut edits) =
            (first_prompt, first_reply, first_failed, first_edits);
        for round in 1..=self.args.rounds {
            if round > 1 {
                let called = self.analyzer.ask(&prompt);
                reply = called.reply.as_ref().ok().map(|r| r.text.clone());
                (edits, failed) = match called.reply.and_then(|r| critique::parse_edits(&r.text)) {
                    Ok(e) => (e, None),
                    Err(why) => (Vec::new(), Some(why)),
                };
            }
            let mut r = Round {
                round,
                model: Some(self.analyzer.name()),
                failed: failed.clone(),
                proposals: Vec::new(),
            };
            if self.human {
                match &failed {
                    Some(why) => println!("fix round {round}: nothing usable: {why}"),
                    None => println!("fix round {round}: {} edit(s) proposed", edits.len()),
                }
            }
            r.proposals = self.consider(std::mem::take(&mut edits));
            self.keep(round, &prompt, reply.as_deref().unwrap_or(""), &r);
            let refused: Vec<(Edit, Vec<String>)> = r
                .proposals
                .iter()
                // A reply entry that was no edit at all has nothing to ask again.
                .filter(|p| p.outcome == "refused" && p.edit.line > 0)
                .map(|p| (p.edit.clone(), p.refused.clone()))
                .collect();
            report.rounds.push(r);
            if refused.is_empty() || failed.is_some() || round == self.args.rounds {
                break;
            }
            prompt = critique::fix_prompt(self.shown, &self.working.0, round + 1, &refused);
        }
        self.write(&mut report);
        report
    }

    /// Applies, checks and (when they pass and are accepted) keeps each
    /// edit, bottom of the PRD first, so the lines above an edit keep their
    /// numbers for the next.
    fn consider(&mut self, edits: Vec<Result<Edit, String>>) -> Vec<Proposal> {
        let base = self.working.clone();
        let mut located: Vec<(Option<edit::Located>, Result<Edit, String>)> = edits
            .into_iter()
            .map(|e| {
                let at = e
                    .as_ref()
                    .ok()
                    .and_then(|e| edit::locate(&base.0, &base.1, e.line));
                (at, e)
            })
            .collect();
        located.sort_by_key(|(at, _)| std::cmp::Reverse(at.as_ref().map_or(0, |a| a.first)));
        let mut taken: Vec<(usize, usize)> = Vec::new();
        let mut out = Vec::new();
        for (at, edit) in located {
            let edit = match edit {
                Ok(edit) => edit,
                Err(why) => {
                    out.push(refused_unread(why));
                    continue;
                }
            };
            let mut p = Proposal {
                edit: edit.clone(),
                outcome: "refused",
                refused: Vec::new(),
                checks: None,
                diff: None,
            };
            if let Some(at) = &at {
                if taken.iter().any(|&(f, l)| at.first <= l && f <= at.last) {
                    p.refused
                        .push("another edit of this round names the same criterion".into());
                    self.say(&p);
                    out.push(p);
                    continue;
                }
                taken.push((at.first, at.last));
            }
            let applied = match edit::apply(&self.working.0, &self.working.1, &edit) {
                Ok(applied) => applied,
                Err(why) => {
                    p.refused.push(why);
                    self.say(&p);
                    out.push(p);
                    continue;
                }
            };
            let place = Place {
                root: self.root,
                prd_path: self.relative,
            };
            let (checks, new_prd) = edit::check(place, &self.working.1, &applied.text);
            p.diff = Some(edit::diff(
                &self.working.0,
                &applied.text,
                self.relative.unwrap_or(self.shown),
            ));
            if !checks.passed() {
                p.refused = checks.reasons();
                p.checks = Some(checks);
                self.say(&p);
                out.push(p);
                continue;
            }
            p.checks = Some(checks);
            self.say(&p);
            let acceptance = Acceptance::decide(
                self.args.yes,
                &format!("write this edit to {}?", self.shown),
            );
            p.outcome = acceptance.outcome();
            if acceptance.accepted() {
                if let Some(new_prd) = new_prd {
                    self.working = (applied.text, new_prd);
                }
            }
            if self.human {
                println!(
                    "  {}",
                    match acceptance {
                        Acceptance::Yes | Acceptance::Confirmed => "accepted",
                        Acceptance::Declined => "declined",
                        Acceptance::NotAsked =>
                            "not written: re-run with --yes (or at a terminal) to write it",
                    }
                );
            }
            out.push(p);
        }
        out
    }

    /// Says what became of a proposal (human output only).
    fn say(&self, p: &Proposal) {
        if !self.human {
            return;
        }
        println!("  line {}: {}", p.edit.line, p.edit.why);
        if let Some(diff) = &p.diff {
            println!("{}", indent(diff.trim_end(), "    "));
        }
        for why in &p.refused {
            println!("  refused: {why}");
        }
    }

    /// Keeps round `n`'s prompt, reply, diffs and verdicts in the trail.
    fn keep(&self, n: u32, prompt: &str, reply: &str, round: &Round) {
        let diffs: String = round
            .proposals
            .iter()
            .filter_map(|p| {
                p.diff
                    .as_ref()
                    .map(|d| format!("# line {}: {}\n{d}", p.edit.line, p.outcome))
            })
            .collect::<Vec<_>>()
            .join("\n");
        let verdict = serde_json::to_string_pretty(round).unwrap_or_default();
        for (ext, bytes) in [
            ("prompt", prompt.as_bytes()),
            ("reply", reply.as_bytes()),
            ("diff", diffs.as_bytes()),
            ("json", verdict.as_bytes()),
        ] {
            if let Err(e) =
                self.dir
                    .write_analyze_file(&self.session, &format!("round-{n}.{ext}"), bytes)
            {
                eprintln!(
                    "warning: could not write {}: {}",
                    e.path.display(),
                    e.source
                );
            }
        }
    }

    /// Writes the accepted edits, checked once more against the PRD as read.
    fn write(&self, report: &mut FixReport) {
        if self.working.0 == self.original.0 {
            if self.human {
                println!("{}: not changed", self.shown);
            }
            return;
        }
        let place = Place {
            root: self.root,
            prd_path: self.relative,
        };
        let (checks, _) = edit::check(place, &self.original.1, &self.working.0);
        let written = if checks.passed() {
            write_prd(self.path, &self.read_sha1, &self.working.0)
        } else {
            Err(format!(
                "the edits together do not pass the checks ({}); nothing was written",
                checks.reasons().join("; ")
            ))
        };
        match written {
            Ok(()) => {
                report.written = report
                    .rounds
                    .iter()
                    .flat_map(|r| &r.proposals)
                    .filter(|p| p.outcome == "applied")
                    .count();
                if self.human {
                    println!(
                        "wrote {} ({} edit(s)); the trail is in {}",
                        self.shown,
                        report.written,
                        report.trail.as_deref().unwrap_or("")
                    );
                }
                if self.dir.prd_json().exists() {
                    let note = format!(
                        "{} has run state ({}): its next `zurdo run` stops with drift (exit 4), since only `zurdo heal` moves the hash prd.json records; `zurdo run --reset {}` starts over",
                        self.shown,
                        self.dir.prd_json().display(),
                        self.shown
                    );
                    if self.human {
                        println!("note: {note}");
                    }
                    report.notes.push(note);
                }
            }
            Err(why) => {
                if self.human {
                    println!("{why}");
                }
                report.notes.push(why);
            }
        }
    }
}

fn refused_unread(why: String) -> Proposal {
    Proposal {
        edit: Edit {
            line: 0,
            quote: String::new(),
            replacement: String::new(),
            why: String::new(),
        },
        outcome: "refused",
        refused: vec![format!("not an edit: {why}")],
        checks: None,
        diff: None,
    }
}
