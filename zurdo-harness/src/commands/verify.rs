//! `zurdo verify <prd>`: run every criterion now, with the same verifier the
//! cargo-test harness and the run loop use.

use std::collections::BTreeMap;

use serde::Serialize;
use zurdo::verify::{self, CriterionResult, CriterionVerdict, VerificationConfig, Verifier};
use zurdo::{naming, source, Prd};

use crate::cli::{Format, VerifyArgs};
use crate::error::{Error, Exit, Outcome};

/// One criterion's outcome, as reported.
#[derive(Serialize)]
struct Row<'a> {
    task: &'a str,
    name: String,
    title: &'a str,
    line: usize,
    #[serde(flatten)]
    result: CriterionResult,
    /// A `[manual]` criterion's approval in `zurdo review`, when one counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    approved: Option<Approved>,
    /// A criterion of the sealed file (`--sealed`), its line that file's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    sealed: bool,
}

/// An approval recorded by `zurdo review` that counts (its review-log.jsonl
/// entry checks and prd.json records it for the task's current result).
#[derive(Debug, Clone, Serialize)]
struct Approved {
    by: String,
    at: String,
    /// The entry's line in review-log.jsonl.
    line: usize,
    /// The tree reviewed.
    tree: Option<String>,
}

/// The approvals that count for the PRD's run, by criterion name, and a
/// note when some cannot be shown (read-only: nothing is created or
/// written, no lock is taken).
fn approvals(prd_path: &std::path::Path) -> (BTreeMap<String, Approved>, Option<String>) {
    use crate::state::review::{self, Anchor, Manual};
    let mut out = BTreeMap::new();
    let root = source::repo_root(prd_path);
    let Some(relative) = source::relative_to(&root, prd_path) else {
        return (out, None);
    };
    let dir = crate::state::StateDir::new(&root, &relative);
    if !dir.prd_json().is_file() {
        return (out, None);
    }
    let (Ok(Some(loaded)), Ok(bytes)) = (dir.load(), source::read(prd_path)) else {
        return (out, None);
    };
    if let Some(why) = &loaded.distrusted {
        return (
            out,
            Some(format!(
                "{}: {why}: the approvals it records are not shown",
                dir.prd_json().display()
            )),
        );
    }
    let Ok(prd) = zurdo::parse_bytes(&bytes) else {
        return (out, None);
    };
    let manual = Manual::of_prd(&prd);
    let sha = crate::state::review_log::sha256_hex(&bytes);
    let chain = review::read_chain(
        &dir,
        &manual,
        Some(&sha),
        &Anchor::of(Some(&loaded.state), None),
    );
    for t in &loaded.state.tasks {
        for c in manual.of(&t.id) {
            if let Some((line, e)) = review::approved(t, &c.name, &chain) {
                out.insert(
                    c.name.clone(),
                    Approved {
                        by: e.reviewer.clone(),
                        at: e.at.clone(),
                        line,
                        tree: e.tree.clone(),
                    },
                );
            }
        }
    }
    let note = chain.first_break().map(|(line, what)| {
        format!(
            ".zurdo/{}/review-log.jsonl does not check at line {line} ({what}): an approval whose entry does not check is not shown (`zurdo review --verify {}`)",
            dir.slug,
            prd_path.display()
        )
    });
    (out, note)
}

#[derive(Serialize, Default)]
struct Tally {
    passed: usize,
    failed: usize,
    pending_review: usize,
}

#[derive(Serialize)]
struct Report<'a> {
    prd: String,
    root: String,
    /// The sealed file whose criteria were checked too.
    #[serde(skip_serializing_if = "Option::is_none")]
    sealed: Option<String>,
    criteria: Vec<Row<'a>>,
    standing: Vec<StandingRow>,
    summary: Tally,
}

/// One standing rule's outcome.
#[derive(Serialize)]
struct StandingRow {
    hint: String,
    why: String,
    #[serde(flatten)]
    result: zurdo::verify::HintResult,
}

/// Runs the command and returns its exit status.
pub fn run(args: &VerifyArgs) -> Outcome {
    let shown = args.prd.display().to_string();
    let prd = match source::load(&args.prd) {
        Err(e) => return Err(Error::invalid(e.to_string())),
        Ok(Err(errors)) => {
            for e in &errors {
                eprintln!("{}", e.render(&shown));
            }
            return Err(Error::invalid(format!(
                "{shown} is not a valid PRD; `zurdo validate {shown}` shows the same errors"
            )));
        }
        Ok(Ok(prd)) => prd,
    };
    let root = source::repo_root(&args.prd);
    let config = VerificationConfig::load(&root).map_err(|e| Error::invalid(e.to_string()))?;
    // The sealed criteria (`--sealed`, else the config's): checked beside
    // the PRD's, their file and line shown (the human who runs verify owns
    // them; no agent reads this output).
    let sealed_path = match &args.sealed {
        Some(path) => Some(path.clone()),
        None => config.sealed.as_deref().map(zurdo::sealed::resolve),
    };
    let sealed = match &sealed_path {
        Some(path) => Some(zurdo::sealed::load(path, &prd, &root).map_err(Error::invalid)?),
        None => None,
    };
    // One pass: what a criterion leaves running (a server for a later
    // `[http:]` criterion) lives until the pass ends, then is killed
    // however it detached.
    zurdo::exec::reap::become_subreaper();
    let verifier = Verifier::new(&root, config)
        .map_err(|e| {
            Error::invalid(format!(
                "{}: cannot open the repository root: {e}",
                root.display()
            ))
        })?
        .in_passes();
    if let Some(unknown) = args.tasks.iter().find(|id| prd.task(id).is_none()) {
        return Err(Error::invalid(format!("{shown} has no task `{unknown}`")));
    }
    let human = args.format == Format::Human;
    if human {
        println!("verifying {shown} in {}", verifier.root().display());
    }
    let (approved, review_note) = approvals(&args.prd);
    let rows = verify_all(
        &prd,
        sealed.as_ref(),
        &verifier,
        &args.tasks,
        &approved,
        human,
    );
    let mut summary = Tally::default();
    for row in &rows {
        match row.result.verdict {
            CriterionVerdict::Passed => summary.passed += 1,
            CriterionVerdict::Failed => summary.failed += 1,
            CriterionVerdict::PendingReview => summary.pending_review += 1,
        }
    }
    let standing = check_standing(&verifier, human);
    let leftovers = zurdo::exec::reap::kill_descendants();
    if human && !leftovers.is_empty() {
        println!(
            "\nnote: stopped {} process(es) the criteria left running: {}",
            leftovers.len(),
            leftovers
                .iter()
                .map(|k| format!("`{}`", k.command))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let broken = standing
        .iter()
        .filter(|r| !r.result.verdict.passed())
        .count();
    summary.failed += broken;
    let exit = Exit::ok_if(summary.failed == 0);
    let report = Report {
        prd: shown,
        root: verifier.root().display().to_string(),
        sealed: sealed_path.map(|p| p.display().to_string()),
        criteria: rows,
        standing,
        summary,
    };
    match args.format {
        Format::Human => {
            print_failures(&prd, sealed.as_ref(), &report);
            if let Some(note) = review_note {
                println!("  note: {note}");
            }
        }
        Format::Json => match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("zurdo: cannot encode the report as JSON: {e}"),
        },
    }
    Ok(exit)
}

/// Checks `[[verification.standing]]` (config was validated when loaded).
fn check_standing(verifier: &Verifier, live: bool) -> Vec<StandingRow> {
    let rules = verifier.config().standing_rules().unwrap_or_default();
    if live && !rules.is_empty() {
        println!("\nstanding rules (hold for every task)");
    }
    rules
        .into_iter()
        .map(|rule| {
            let result = verifier.check(&rule.hint);
            if live {
                let status = if result.verdict.passed() {
                    "PASS"
                } else {
                    "FAIL"
                };
                println!("  {status:<6}  {} — {}", rule.hint.source, rule.why);
                if let zurdo::verify::Verdict::Fail(reason) = &result.verdict {
                    println!("          {reason}");
                }
            }
            StandingRow {
                hint: rule.hint.source.clone(),
                why: rule.why,
                result,
            }
        })
        .collect()
}

/// Checks the criteria task by task in run order, printing each row as it
/// completes when `live`.
fn verify_all<'a>(
    prd: &'a Prd,
    sealed: Option<&'a zurdo::sealed::Sealed>,
    verifier: &Verifier,
    only: &[String],
    approved: &BTreeMap<String, Approved>,
    live: bool,
) -> Vec<Row<'a>> {
    let mut rows = Vec::new();
    let sealed_titles = sealed
        .into_iter()
        .flat_map(|s| s.by_task.values().flatten())
        .map(|c| c.title.chars().count() + "(sealed) ".len());
    let width = prd
        .tasks
        .iter()
        .flat_map(|t| &t.criteria)
        .map(|c| c.title.chars().count())
        .chain(sealed_titles)
        .max()
        .unwrap_or(0)
        .min(60);
    for task in prd.tasks_in_run_order() {
        if !only.is_empty() && !only.contains(&task.id) {
            continue;
        }
        if live {
            println!("\n{} — {}", task.id, task.title);
        }
        let module = naming::task_module(task);
        let hidden = sealed.map_or(&[][..], |s| s.of(&task.id));
        let names = naming::criterion_fns(task)
            .into_iter()
            .map(|name| (name, false))
            .chain((1..=hidden.len()).map(|n| (format!("sealed_{n}"), true)));
        for (criterion, (name, is_sealed)) in task.criteria.iter().chain(hidden).zip(names) {
            let result = verifier.criterion(criterion);
            let full = format!("{module}::{name}");
            let approval = (result.verdict == CriterionVerdict::PendingReview)
                .then(|| approved.get(&full).cloned())
                .flatten();
            if live {
                let kinds: Vec<&str> = criterion.hints.iter().map(|h| h.kind()).collect();
                let ms: u128 = result.hints.iter().map(|h| h.elapsed.as_millis()).sum();
                let title = if is_sealed {
                    format!("(sealed) {}", criterion.title)
                } else {
                    criterion.title.clone()
                };
                println!(
                    "  {:<6}  {:<width$}  {:<14} {:>7}",
                    label(result.verdict),
                    clip(&title, width),
                    kinds.join("+"),
                    format!("{ms}ms"),
                );
                if let Some(a) = &approval {
                    println!(
                        "          approved by {} at {} (review-log.jsonl line {})",
                        a.by, a.at, a.line
                    );
                }
            }
            rows.push(Row {
                task: &task.id,
                name: full,
                title: &criterion.title,
                line: criterion.line,
                result,
                approved: approval,
                sealed: is_sealed,
            });
        }
    }
    rows
}

fn label(verdict: CriterionVerdict) -> &'static str {
    match verdict {
        CriterionVerdict::Passed => "PASS",
        CriterionVerdict::Failed => "FAIL",
        CriterionVerdict::PendingReview => "REVIEW",
    }
}

fn clip(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

fn print_failures(prd: &Prd, sealed: Option<&zurdo::sealed::Sealed>, report: &Report<'_>) {
    let failed: Vec<&Row<'_>> = report
        .criteria
        .iter()
        .filter(|r| r.result.verdict == CriterionVerdict::Failed)
        .collect();
    if !failed.is_empty() {
        println!("\nfailures:");
        for row in &failed {
            let (file, criterion) = match (row.sealed, sealed) {
                (true, Some(sealed)) => (
                    sealed.path.display().to_string(),
                    sealed.of(row.task).iter().find(|c| c.line == row.line),
                ),
                _ => (
                    report.prd.clone(),
                    prd.task(row.task)
                        .and_then(|t| t.criteria.iter().find(|c| c.line == row.line)),
                ),
            };
            if let Some(criterion) = criterion {
                println!(
                    "\n{}",
                    indent(&verify::render::failure(&file, criterion, &row.result))
                );
            }
        }
    }
    let s = &report.summary;
    println!(
        "\n{}: {} passed, {} failed, {} awaiting review",
        report.prd, s.passed, s.failed, s.pending_review
    );
    if s.pending_review > 0 {
        println!(
            "  [manual] criteria never pass automatically; a human signs them off: `zurdo review {}`",
            report.prd
        );
        let approved = report
            .criteria
            .iter()
            .filter(|r| r.approved.is_some())
            .count();
        if approved > 0 {
            println!("  {approved} of them approved in `zurdo review` (noted above)");
        }
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
