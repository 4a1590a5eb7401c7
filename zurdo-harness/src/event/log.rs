//! `progress.log`: the append-only JSONL record of a run's events. Each
//! line is `{"ts": …, "event": …, …}`, synced as it is written; reading it
//! back skips lines that do not parse (a crash can leave a torn last line)
//! and events this zurdo does not know.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Event;

/// One logged event with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamped {
    /// When it was logged (RFC 3339).
    pub ts: String,
    /// The event.
    #[serde(flatten)]
    pub event: Event,
}

/// An open progress log.
#[derive(Debug)]
pub struct Log {
    path: PathBuf,
}

impl Log {
    /// The log at `path` (created on first write).
    pub fn new(path: &Path) -> Log {
        Log {
            path: path.to_path_buf(),
        }
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `event`, stamped now, and syncs it.
    pub fn append(&self, event: &Event) -> std::io::Result<()> {
        let stamped = Stamped {
            ts: zurdo_base::time::now(),
            event: event.clone(),
        };
        let mut line = serde_json::to_vec(&stamped).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        file.write_all(&line)?;
        file.sync_data()
    }
}

/// Every event in the log at `path` that reads back (none when there is
/// no log).
pub fn read(path: &Path) -> Vec<Stamped> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Settled;
    use crate::state::run_state::Status;

    #[test]
    fn events_round_trip_and_keep_their_field_names() {
        let dir = tempfile::tempdir().expect("temp");
        let log = Log::new(&dir.path().join("progress.log"));
        let events = [
            Event::AttemptStarted {
                task: "task-1".into(),
                attempt: 2,
                max: 3,
                model: "haiku".into(),
            },
            Event::TaskSettled {
                task: "task-1".into(),
                status: Status::Failed,
                settled: Some(Settled::BudgetSpent { max: 3 }),
            },
            Event::TaskSettled {
                task: "task-2".into(),
                status: Status::Passed,
                settled: None,
            },
            Event::StopRequested,
        ];
        for e in &events {
            log.append(e).expect("append");
        }
        std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .and_then(|mut f| f.write_all(b"{\"ts\":\"x\",\"event\":\"from_the_future\"}\n{\"torn"))
            .expect("append junk");
        let back: Vec<Event> = read(log.path()).into_iter().map(|s| s.event).collect();
        assert_eq!(back, events);
        let text = std::fs::read_to_string(log.path()).expect("read");
        let first: serde_json::Value =
            serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
        assert_eq!(first["event"], "attempt_started");
        assert_eq!(
            (&first["task"], &first["attempt"], &first["model"]),
            (&"task-1".into(), &2.into(), &"haiku".into())
        );
        let second: serde_json::Value =
            serde_json::from_str(text.lines().nth(1).expect("a line")).expect("JSON");
        assert_eq!(
            (&second["status"], &second["why"], &second["max"]),
            (&"failed".into(), &"budget_spent".into(), &3.into())
        );
    }

    #[test]
    fn an_old_log_still_reads() {
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("progress.log");
        std::fs::write(
            &path,
            "{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"attempt_started\",\"task\":\"task-1\",\"attempt\":1,\"model\":\"haiku\"}\n\
             {\"ts\":\"2026-01-01T00:00:01Z\",\"event\":\"agent_started\",\"task\":\"task-1\",\"attempt\":1,\"process_group\":42,\"group_start\":7,\"boot_id\":\"b\"}\n\
             {\"ts\":\"2026-01-01T00:00:02Z\",\"event\":\"task_settled\",\"task\":\"task-1\",\"status\":\"passed\"}\n",
        )
        .expect("write");
        let back = read(&path);
        assert_eq!(back.len(), 3);
        assert!(matches!(
            &back[0].event,
            Event::AttemptStarted { max: 0, .. }
        ));
        assert!(matches!(
            &back[2].event,
            Event::TaskSettled { settled: None, .. }
        ));
    }
}
