//! `progress.log`: the append-only JSONL event stream of a run. Each event
//! is one line `{"ts": …, "event": …, …}`, flushed as it is written.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

/// An open progress log.
#[derive(Debug)]
pub struct Progress {
    path: PathBuf,
}

impl Progress {
    /// The log at `path` (created on first write).
    pub fn new(path: &Path) -> Progress {
        Progress {
            path: path.to_path_buf(),
        }
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event; `fields` must be a JSON object. Failures to write
    /// the log are reported on stderr but never stop a run.
    pub fn emit(&self, event: &str, fields: Value) {
        let mut line = Map::new();
        line.insert("ts".into(), json!(zurdo_base::time::now()));
        line.insert("event".into(), json!(event));
        if let Value::Object(extra) = fields {
            line.extend(extra);
        }
        let text = format!("{}\n", Value::Object(line));
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.sync_data()));
        if let Err(e) = written {
            eprintln!("warning: cannot append to {}: {e}", self.path.display());
        }
    }

    /// Every event read back (lines that do not parse are skipped: a crash
    /// can leave a torn last line).
    pub fn read(path: &Path) -> Vec<Value> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}
