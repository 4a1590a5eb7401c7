//! `zurdo report <prd> [--format markdown|json]`: the run report, rendered
//! from `.zurdo/<slug>/prd.json`. Read-only on the state: it never takes the
//! lock nor writes `prd.json`; it writes `reports/<timestamp>.{md,json}`.

use zurdo::source;

use crate::cli::{ReportArgs, ReportFormat};
use crate::error::{Error, Exit, Outcome};
use crate::report;
use crate::state::run_state::RunState;
use crate::state::StateDir;

/// Runs the command and returns its exit status.
pub fn run(args: &ReportArgs) -> Outcome {
    let prd = &args.prd;
    if !prd.is_file() {
        return Err(Error::invalid(format!(
            "{}: no such PRD file",
            prd.display()
        )));
    }
    let root = source::repo_root(prd);
    let relative = source::relative_to(&root, prd).unwrap_or_else(|| prd.display().to_string());
    let dir = StateDir::new(&root, &relative);
    let state = match RunState::load(&dir.prd_json()) {
        Ok(Some(state)) => state,
        Ok(None) => {
            return Err(Error::invalid(format!(
                "{} has no run state yet (.zurdo/{}/prd.json); `zurdo run {}` makes one",
                prd.display(),
                dir.slug,
                prd.display()
            )))
        }
        Err(e) => return Err(e),
    };
    let (md, json) = report::write(&dir, &state);
    // Print what was written, so stdout and the file never differ.
    let shown = match args.format {
        ReportFormat::Markdown => &md,
        ReportFormat::Json => &json,
    };
    match std::fs::read_to_string(shown) {
        Ok(text) => print!("{text}"),
        Err(e) => return Err(Error::io(shown, "cannot write the report", e)),
    }
    eprintln!("zurdo: wrote {}", md.display());
    Ok(Exit::Ok)
}
