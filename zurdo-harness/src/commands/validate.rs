//! `zurdo validate <prd>…`.

use std::path::Path;

use serde::Serialize;
use zurdo::lint::{self, Lint, LintContext};
use zurdo::{source, Diagnostic, Prd, Task};

use crate::cli::{Format, ValidateArgs};
use crate::error::{Exit, Outcome};

/// What validating one file found.
#[derive(Serialize)]
struct FileReport<'a> {
    path: String,
    valid: bool,
    /// Why the file could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    unreadable: Option<String>,
    errors: Vec<Diagnostic>,
    warnings: Vec<Lint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prd: Option<PrdView<'a>>,
}

/// The model as tools see it: tasks listed in run order.
#[derive(Serialize)]
struct PrdView<'a> {
    title: &'a str,
    title_line: usize,
    tasks: Vec<&'a Task>,
}

impl<'a> PrdView<'a> {
    fn new(prd: &'a Prd) -> Self {
        PrdView {
            title: &prd.title,
            title_line: prd.title_line,
            tasks: prd.tasks_in_run_order().collect(),
        }
    }
}

/// Runs the command and returns its exit status.
pub fn run(args: &ValidateArgs) -> Outcome {
    let loaded: Vec<source::Loaded> = args.prds.iter().map(|p| source::load(p)).collect();
    let reports: Vec<FileReport<'_>> = args
        .prds
        .iter()
        .zip(&loaded)
        .map(|(path, outcome)| report(path, outcome))
        .collect();
    let all_valid = reports.iter().all(|r| r.valid);
    match args.format {
        Format::Json => print_json(&reports),
        Format::Human => reports.iter().for_each(print_human),
    }
    Ok(if all_valid { Exit::Ok } else { Exit::Invalid })
}

fn report<'a>(path: &Path, outcome: &'a source::Loaded) -> FileReport<'a> {
    let mut r = FileReport {
        path: path.display().to_string(),
        valid: false,
        unreadable: None,
        errors: Vec::new(),
        warnings: Vec::new(),
        prd: None,
    };
    match outcome {
        Err(e) => r.unreadable = Some(e.reason.clone()),
        Ok(Err(errors)) => r.errors = errors.clone(),
        Ok(Ok(prd)) => {
            let root = source::repo_root(path);
            let relative = source::relative_to(&root, path);
            let ctx = LintContext {
                root: Some(&root),
                prd_path: relative.as_deref(),
                ..Default::default()
            };
            r.warnings = lint::lint(prd, &ctx);
            r.valid = true;
            r.prd = Some(PrdView::new(prd));
        }
    }
    r
}

fn print_human(r: &FileReport<'_>) {
    if let Some(reason) = &r.unreadable {
        eprintln!("zurdo: {}: cannot read the PRD: {reason}", r.path);
        return;
    }
    for e in &r.errors {
        println!("{}", e.render(&r.path));
    }
    for w in &r.warnings {
        println!("{}", w.render(&r.path));
    }
    match &r.prd {
        Some(prd) => {
            let criteria: usize = prd.tasks.iter().map(|t| t.criteria.len()).sum();
            println!(
                "{}: valid: {} {}, {} {}, {} {}",
                r.path,
                prd.tasks.len(),
                plural(prd.tasks.len(), "task", "tasks"),
                criteria,
                plural(criteria, "criterion", "criteria"),
                r.warnings.len(),
                plural(r.warnings.len(), "warning", "warnings"),
            );
        }
        None => println!(
            "{}: invalid: {} {}",
            r.path,
            r.errors.len(),
            plural(r.errors.len(), "error", "errors")
        ),
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn print_json(reports: &[FileReport<'_>]) {
    #[derive(Serialize)]
    struct Document<'a> {
        files: &'a [FileReport<'a>],
    }
    match serde_json::to_string_pretty(&Document { files: reports }) {
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("zurdo: cannot encode the report as JSON: {e}"),
    }
}
