//! `zurdo lumen index` and `zurdo lumen query <name>`, for the repository
//! holding the current directory.

use std::path::Path;

use serde_json::json;
use zurdo_lumen::query::{Definition, Use};
use zurdo_lumen::Index;

use crate::cli::{Format, LumenCommand};
use crate::error::{Error, Exit, Outcome};

/// Runs the command and returns its exit status.
pub fn run(command: &LumenCommand) -> Outcome {
    let root = super::repo_here()?;
    match command {
        LumenCommand::Index => index(&root),
        LumenCommand::Query { name, format } => query(&root, name, *format),
    }
}

fn index(root: &Path) -> Outcome {
    let (stats, published, current) = Index::update(root).map_err(|e| {
        Error::failed(format!(
            "cannot publish a new generation under {}: {e}; the previous one stays",
            root.join(zurdo_lumen::index::DIR).display()
        ))
    })?;
    println!(
        "{} source files: {} parsed, {} unchanged, {} removed in {:.1} ms",
        stats.files,
        stats.parsed,
        stats.reused,
        stats.removed,
        stats.elapsed.as_secs_f64() * 1000.0
    );
    match published {
        Some(generation) => println!("published generation {generation}"),
        None => println!("generation {current} is current"),
    }
    Ok(Exit::Ok)
}

fn query(root: &Path, name: &str, format: Format) -> Outcome {
    let segments: Vec<String> = name.split("::").map(str::to_string).collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(Error::invalid(format!(
            "`{name}` is not a `::` name (e.g. Config::load)"
        )));
    }
    let (index, _) = Index::open(root);
    // The hints' own resolution: what this prints is what they see.
    let answer = index.answer(&segments);
    let defs: Vec<&Definition<'_>> = answer
        .definitions
        .iter()
        .chain(answer.query_only.iter())
        .collect();
    if format == Format::Json {
        let site = |u: &Use<'_>| json!({"file": u.file.path, "line": u.reference.line, "caller": u.reference.caller.join("::"), "call": u.call});
        let def = |d: &&Definition<'_>| json!({"name": d.symbol.path.join("::"), "kind": d.symbol.kind.name(), "file": d.file.path, "line": d.symbol.line, "query_only": !d.symbol.kind.hint_target()});
        let out = json!({
            "name": name,
            "definitions": defs.iter().map(def).collect::<Vec<_>>(),
            "references": answer.references.iter().map(site).collect::<Vec<_>>(),
            "ambiguous": answer.ambiguous.iter().map(site).collect::<Vec<_>>(),
            "callers": answer.callers.iter().map(site).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return Ok(Exit::ok_if(!defs.is_empty()));
    }
    if defs.is_empty() {
        println!(
            "`{name}`: not found ({} source files indexed)",
            index.files.len()
        );
        return Ok(Exit::Failed);
    }
    println!("definitions ({}):", defs.len());
    for d in &defs {
        let note = if d.symbol.kind.hint_target() {
            ""
        } else {
            " (query only)"
        };
        println!(
            "  {}:{}  {} {}{note}",
            d.file.path,
            d.symbol.line,
            d.symbol.kind.name(),
            d.symbol.path.join("::")
        );
    }
    println!("references ({}):", answer.references.len());
    for u in &answer.references {
        println!("  {}:{}{}", u.file.path, u.reference.line, in_caller(u));
    }
    if !answer.ambiguous.is_empty() {
        println!(
            "ambiguous, not counted ({}): a member of a value whose type syntax does not tell",
            answer.ambiguous.len()
        );
        for u in &answer.ambiguous {
            println!("  {}:{}{}", u.file.path, u.reference.line, in_caller(u));
        }
    }
    println!("callers ({}):", answer.callers.len());
    for u in &answer.callers {
        println!(
            "  {}  ({}:{})",
            u.reference.caller.join("::"),
            u.file.path,
            u.reference.line
        );
    }
    Ok(Exit::Ok)
}

fn in_caller(u: &Use<'_>) -> String {
    if u.reference.caller.is_empty() {
        String::new()
    } else {
        format!("  in {}", u.reference.caller.join("::"))
    }
}
