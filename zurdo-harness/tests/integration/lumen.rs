//! `zurdo lumen index` and `zurdo lumen query` through the binary.

use crate::common::{repo, text, zurdo};

const CONFIG: &str = "pub struct Config {\n    port: u16,\n}\n\nimpl Config {\n    pub fn load() -> Config {\n        Config { port: 1 }\n    }\n}\n";
const LIB: &str = "pub mod config;\n\npub fn start() {\n    config::Config::load();\n}\n";

#[test]
fn index_parses_only_what_changed_and_publishes_generations() {
    let r = repo(&[("src/config.rs", CONFIG), ("src/lib.rs", LIB)]);
    let out = zurdo(&["lumen", "index"], r.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("2 source files: 2 parsed, 0 unchanged, 0 removed"),
        "{stdout}"
    );
    assert!(stdout.contains("published generation 1"), "{stdout}");
    let again = text(&zurdo(&["lumen", "index"], r.path()).stdout);
    assert!(again.contains("0 parsed, 2 unchanged"), "{again}");
    assert!(again.contains("generation 1 is current"), "{again}");
    std::fs::write(
        r.path().join("src/lib.rs"),
        format!("{LIB}pub fn stop() {{}}\n"),
    )
    .expect("edit");
    let edited = text(&zurdo(&["lumen", "index"], r.path()).stdout);
    assert!(edited.contains("1 parsed, 1 unchanged"), "{edited}");
    assert!(edited.contains("published generation 2"), "{edited}");
}

#[test]
fn query_lists_definitions_references_and_callers_with_file_and_line() {
    let r = repo(&[("src/config.rs", CONFIG), ("src/lib.rs", LIB)]);
    let out = zurdo(&["lumen", "query", "Config::load"], r.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("src/config.rs:6  method config::Config::load"),
        "{stdout}"
    );
    assert!(
        stdout.contains("references (1):\n  src/lib.rs:4  in start"),
        "{stdout}"
    );
    assert!(
        stdout.contains("callers (1):\n  start  (src/lib.rs:4)"),
        "{stdout}"
    );

    let field = text(&zurdo(&["lumen", "query", "Config::port"], r.path()).stdout);
    assert!(
        field.contains("field config::Config::port (query only)"),
        "{field}"
    );

    let json = zurdo(
        &["lumen", "query", "Config::load", "--format", "json"],
        r.path(),
    );
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(doc["definitions"][0]["kind"], "method");
    assert_eq!(doc["definitions"][0]["line"], 6);
    assert_eq!(doc["callers"][0]["caller"], "start");

    let missing = zurdo(&["lumen", "query", "Config::save"], r.path());
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stdout).contains("not found (2 source files indexed)"));
    let bad = zurdo(&["lumen", "query", "Config::"], r.path());
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("is not a `::` name"));
}

/// Bytes under `dir`, recursively.
fn size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => size(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

#[test]
fn a_deeply_nested_file_indexes_in_space_linear_in_its_size() {
    // The 71 KB file: 4,000 nested functions, each calling the next.
    let depth = 4000;
    let mut js = String::new();
    for i in 0..depth {
        js.push_str(&format!("function f{i}() {{ f{}();\n", i + 1));
    }
    js.push_str(&"}\n".repeat(depth));
    let r = repo(&[("app.js", js.as_str())]);
    let out = zurdo(&["lumen", "index"], r.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let index = size(&r.path().join(".zurdo/lumen"));
    // Quadratic storage wrote about 60 MB here; linear is a few hundred KB.
    assert!(
        index < 20 * js.len() as u64,
        "{index} bytes of index for {} bytes of source",
        js.len()
    );
    let query = zurdo(&["lumen", "query", "f3999"], r.path());
    assert!(
        text(&query.stdout).contains("app.js:4000"),
        "{}",
        text(&query.stdout)
    );
}
