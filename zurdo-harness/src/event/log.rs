//! `progress.log`: the append-only JSONL record of a run's events. Each
//! line is `{"ts": …, "event": …, …}`, synced as it is written; reading it
//! back skips lines that do not parse (a crash can leave a torn last line)
//! and events this zurdo does not know.

use serde::{Deserialize, Serialize};

use super::Event;
use crate::state::StateDir;

/// One logged event with its time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamped {
    /// When it was logged (RFC 3339).
    pub ts: String,
    /// The event.
    #[serde(flatten)]
    pub event: Event,
}

/// The progress log of one state directory (created on first write).
#[derive(Debug)]
pub struct Log {
    dir: StateDir,
}

impl Log {
    /// The log of `dir`.
    pub fn new(dir: &StateDir) -> Log {
        Log { dir: dir.clone() }
    }

    /// The log's path.
    pub fn path(&self) -> std::path::PathBuf {
        self.dir.progress_log()
    }

    /// Appends `event`, stamped now, and syncs it, never through a symlink
    /// (`Ok(true)`: a symlink in the log's place was removed and a new log
    /// began).
    pub fn append(&self, event: &Event) -> std::io::Result<bool> {
        let stamped = Stamped {
            ts: zurdo_base::time::now(),
            event: event.clone(),
        };
        let mut line = serde_json::to_vec(&stamped).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.dir.append_log(&line).map_err(|e| e.source)
    }
}

/// Every event in the log of `dir` that reads back (none when there is no
/// log, or it is not a regular file within the state's limit).
pub fn read(dir: &StateDir) -> Vec<Stamped> {
    parse(&dir.read_log())
}

/// The events in log `bytes` (lines that do not parse are skipped).
pub fn parse(bytes: &[u8]) -> Vec<Stamped> {
    String::from_utf8_lossy(bytes)
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
        let tmp = tempfile::tempdir().expect("temp");
        let dir = StateDir::new(tmp.path(), "prds/p.md");
        let log = Log::new(&dir);
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
        dir.append_log(b"{\"ts\":\"x\",\"event\":\"from_the_future\"}\n{\"torn")
            .expect("append junk");
        let back: Vec<Event> = read(&dir).into_iter().map(|s| s.event).collect();
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
        let bytes = "{\"ts\":\"2026-01-01T00:00:00Z\",\"event\":\"attempt_started\",\"task\":\"task-1\",\"attempt\":1,\"model\":\"haiku\"}\n\
             {\"ts\":\"2026-01-01T00:00:01Z\",\"event\":\"agent_started\",\"task\":\"task-1\",\"attempt\":1,\"process_group\":42,\"group_start\":7,\"boot_id\":\"b\"}\n\
             {\"ts\":\"2026-01-01T00:00:02Z\",\"event\":\"task_settled\",\"task\":\"task-1\",\"status\":\"passed\"}\n";
        let back = parse(bytes.as_bytes());
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
