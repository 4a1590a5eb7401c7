//! `zurdo reason status|match|clear`: the lesson library of the repository
//! holding the current directory (or the PRD).
//!
//! `status` and `match` only read: a preview never counts as a use, so it
//! cannot shield a lesson nobody consumed from eviction. Per-run diagnosis
//! blocks are not browsed here: they are in `zurdo report` and progress.log.

use std::path::Path;

use zurdo::source;

use crate::cli::ReasonCommand;
use crate::error::{Error, Exit, Outcome};
use crate::reason::fingerprint;
use crate::reason::library::{self, Library, Usage};
use crate::reason::surface::Surface;

/// Runs the command and returns its exit status.
pub fn run(command: &ReasonCommand) -> Outcome {
    match command {
        ReasonCommand::Status => status(&super::repo_here()?),
        ReasonCommand::Match { prd, task } => preview(prd, task.as_deref()),
        ReasonCommand::Clear => clear(&super::repo_here()?),
    }
}

fn status(root: &Path) -> Outcome {
    let lib = Library::load(root);
    let usage = Usage::load(root);
    println!(
        "{} lesson(s) in {}/ (use counts in {})",
        lib.lessons.len(),
        root.join(library::DIR).display(),
        library::USAGE_PATH
    );
    for lesson in &lib.lessons {
        println!(
            "\n{}  uses {}{}  from {} in {}, {}",
            lesson.path.display(),
            usage.uses(&lesson.id),
            usage
                .last_used(&lesson.id)
                .map_or(String::new(), |t| format!(" (last {t})")),
            lesson.task,
            lesson.prd,
            lesson.created
        );
        println!("  match: {}", components(&lesson.surface));
        println!("  {}", zurdo_base::text::first_nonblank_line(&lesson.body));
    }
    if !lib.skipped.is_empty() {
        println!("\nskipped ({}):", lib.skipped.len());
        for s in &lib.skipped {
            println!("  {}: {}", s.path.display(), s.why);
        }
    }
    Ok(Exit::Ok)
}

fn preview(prd_path: &Path, only: Option<&str>) -> Outcome {
    let prd = match source::load(prd_path) {
        Ok(Ok(prd)) => prd,
        Ok(Err(errors)) => {
            let display = prd_path.display().to_string();
            for e in &errors {
                eprintln!("{}", e.render(&display));
            }
            return Ok(Exit::Invalid);
        }
        Err(e) => return Err(Error::invalid(e.to_string())),
    };
    if let Some(id) = only.filter(|id| prd.tasks.iter().all(|t| t.id != *id)) {
        return Err(Error::invalid(format!(
            "{} has no task `{id}`; it has: {}",
            prd_path.display(),
            prd.tasks
                .iter()
                .map(|t| t.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let root = source::repo_root(prd_path);
    let lib = Library::load(&root);
    let usage = Usage::load(&root);
    for s in &lib.skipped {
        eprintln!("warning: lesson {} skipped: {}", s.path.display(), s.why);
    }
    for task in prd
        .tasks
        .iter()
        .filter(|t| only.is_none_or(|id| t.id == id))
    {
        let surface = fingerprint::declared(task);
        let found = lib.matches(&surface, &usage);
        println!("{} — {}", task.id, task.title);
        println!("  declares: {}", components(&surface));
        if found.is_empty() {
            println!("  no lesson surfaces (a lesson needs 2 overlapping components)");
        }
        for (lesson, score) in found.iter().take(crate::run::reasoning::MAX_INJECTED) {
            println!(
                "  {} (score {score}, from {} in {}): {}",
                lesson.path.display(),
                lesson.task,
                lesson.prd,
                zurdo_base::text::first_nonblank_line(&lesson.body)
            );
        }
    }
    Ok(Exit::Ok)
}

fn clear(root: &Path) -> Outcome {
    match library::clear(root) {
        Ok(removed) => {
            for path in &removed {
                println!("removed {}", path.display());
            }
            println!(
                "{} file(s) removed; lessons are tracked files: commit the deletion, or `git restore lessons/` to undo",
                removed.len()
            );
            Ok(Exit::Ok)
        }
        Err(e) => Err(Error::new(
            crate::error::ErrorKind::Io,
            format!("cannot clear the lesson library: {e}"),
        )),
    }
}

/// `hints shell · reasons exit_code · commands cargo · paths tests/`.
fn components(s: &Surface) -> String {
    let parts: Vec<String> = [
        ("hints", &s.hints),
        ("reasons", &s.reasons),
        ("commands", &s.commands),
        ("paths", &s.paths),
    ]
    .iter()
    .filter(|(_, set)| !set.is_empty())
    .map(|(name, set)| {
        format!(
            "{name} {}",
            set.iter().cloned().collect::<Vec<_>>().join(", ")
        )
    })
    .collect();
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(" · ")
    }
}
