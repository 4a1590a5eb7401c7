//! `zurdo pyxis index` and `zurdo pyxis query "<text>"`, for the
//! repository holding the current directory. Both work whether or not
//! `[pyxis] enabled`: they build or refresh the index themselves.

use std::path::Path;

use serde_json::json;
use zurdo_pyxis::{Hit, Loaded, Pin, Query, Retriever, Scoring};

use crate::cli::{Format, PyxisCommand};
use crate::error::{Error, Exit, Outcome};

/// Runs the command and returns its exit status.
pub fn run(command: &PyxisCommand) -> Outcome {
    let root = super::repo_here()?;
    match command {
        PyxisCommand::Index => index(&root),
        PyxisCommand::Query {
            text,
            limit,
            format,
        } => query(&root, text, usize::from(*limit), *format),
    }
}

/// Refreshes the index, saying on stderr when `index.json` was not believed
/// or could not be saved (the index in memory is fresh either way).
fn refreshed(root: &Path) -> (Retriever, zurdo_pyxis::Refresh) {
    let mut retriever = Retriever::new();
    let refreshed = retriever.refresh(root);
    if let Loaded::Distrusted(why) = &refreshed.loaded {
        eprintln!(
            "note: {} was not believed ({why}); rebuilt from the files",
            zurdo_pyxis::index::PATH
        );
    }
    if let Some(e) = &refreshed.save_error {
        eprintln!(
            "warning: cannot write {}: {e}; the answer is fresh, the next command reads every file again",
            zurdo_pyxis::index::PATH
        );
    }
    (retriever, refreshed.refresh)
}

fn index(root: &Path) -> Outcome {
    let (_, stats) = refreshed(root);
    println!(
        "{} files: {} read, {} unchanged, {} removed in {:.1} ms",
        stats.files,
        stats.read,
        stats.reused,
        stats.removed,
        stats.elapsed.as_secs_f64() * 1000.0
    );
    if stats.skipped > 0 {
        println!(
            "{} more files left out (at most {} are indexed)",
            stats.skipped,
            zurdo_pyxis::index::MAX_FILES
        );
    }
    Ok(Exit::Ok)
}

fn query(root: &Path, text: &str, limit: usize, format: Format) -> Outcome {
    let query = Query::parse(text);
    if query.is_empty() {
        return Err(Error::invalid(format!(
            "`{text}` has nothing to search for: no words of two letters or more besides stop words and numbers, no paths and no `::` names"
        )));
    }
    let (retriever, _) = refreshed(root);
    let index = retriever.index();
    let hits = index.search(&query, Scoring::Fields, limit);
    if format == Format::Json {
        let doc = json!({
            "query": text,
            "terms": query.terms.keys().map(|t| json!({"term": t, "as_written": query.form(t), "count": query.terms[t]})).collect::<Vec<_>>(),
            "paths": query.paths,
            "names": query.symbols.iter().map(|s| s.join("::")).collect::<Vec<_>>(),
            "files": index.files.len(),
            "hits": hits.iter().enumerate().map(|(i, h)| hit_json(i + 1, h, &query)).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return Ok(Exit::ok_if(!hits.is_empty()));
    }
    let words: Vec<&str> = query.terms.keys().map(|t| query.form(t)).collect();
    println!(
        "{} files indexed; searched for: {}",
        index.files.len(),
        words.join(", ")
    );
    if !query.paths.is_empty() {
        println!("paths named: {}", query.paths.join(", "));
    }
    if !query.symbols.is_empty() {
        let names: Vec<String> = query.symbols.iter().map(|s| s.join("::")).collect();
        println!("names mentioned: {}", names.join(", "));
    }
    if hits.is_empty() {
        println!("no file matches");
        return Ok(Exit::Failed);
    }
    for (i, hit) in hits.iter().enumerate() {
        println!("{:>3}. {}  {:.3}", i + 1, hit.path, hit.score);
        println!("     {}", hit.why(&query));
    }
    Ok(Exit::Ok)
}

/// Rounded to three decimals, as the human output shows it.
fn rounded(score: f64) -> f64 {
    (score * 1000.0).round() / 1000.0
}

fn hit_json(rank: usize, hit: &Hit, query: &Query) -> serde_json::Value {
    json!({
        "rank": rank,
        "path": hit.path,
        "score": rounded(hit.score),
        "pinned": hit.pins.iter().map(|p| match p {
            Pin::Named(path) => json!({"named": path}),
            Pin::Defines(d) => json!({"defines": d.display(), "kind": d.kind, "line": d.line}),
        }).collect::<Vec<_>>(),
        "terms": hit.terms.iter().map(|m| json!({
            "term": m.term,
            "as_written": query.form(&m.term),
            "path": m.path,
            "names": m.defs,
            "text": m.content,
            "score": rounded(m.score),
        })).collect::<Vec<_>>(),
        "definitions": hit.defs.iter().map(|m| json!({
            "name": m.def.display(),
            "kind": m.def.kind,
            "line": m.def.line,
            "terms": m.terms,
        })).collect::<Vec<_>>(),
        "why": hit.why(query),
    })
}
