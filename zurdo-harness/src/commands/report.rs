//! `zurdo report <prd> [--format markdown|json]`: the run report, rendered
//! from `.zurdo/<slug>/prd.json`. Read-only on the state: it never takes the
//! lock nor writes `prd.json`; it writes `reports/<timestamp>.{md,json}`.

use zurdo::source;

use crate::cli::{ReportArgs, ReportFormat};
use crate::error::{Error, Exit, Outcome};
use crate::report;
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
    let loaded = match dir.load()? {
        Some(loaded) => loaded,
        None => {
            return Err(Error::invalid(format!(
                "{} has no run state yet (.zurdo/{}/prd.json); `zurdo run {}` makes one",
                prd.display(),
                dir.slug,
                prd.display()
            )))
        }
    };
    if let Some(why) = &loaded.distrusted {
        eprintln!(
            "warning: {}: {why}; this report rests on a record zurdo cannot vouch for",
            dir.prd_json().display()
        );
    }
    let state = loaded.state;
    let written = report::write(&dir, &state)
        .map_err(|e| Error::io(&e.path, "cannot write the report", e.source))?;
    // Print what was written, so stdout and the file never differ.
    match args.format {
        ReportFormat::Markdown => print!("{}", written.markdown),
        ReportFormat::Json => print!("{}", String::from_utf8_lossy(&written.json)),
    }
    eprintln!("zurdo: wrote {}", written.markdown_path.display());
    Ok(Exit::Ok)
}
