//! The heartbeat of a running attempt: once every [`HEARTBEAT`] an
//! [`Event::AgentProgress`] (elapsed time, tool calls so far, the last one),
//! so a log or a pipe shows the agent is alive. On a terminal the spinner
//! line shows the same, refreshed in place, and the reporter does not print
//! these; `progress.log` keeps them either way.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Event, Events};
use crate::agent::invoke::Progress;

/// How often a running attempt reports its progress.
pub const HEARTBEAT: Duration = Duration::from_secs(60);

/// A running heartbeat; it stops when dropped.
#[derive(Debug)]
pub struct Heartbeat {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    /// Emits `task`'s attempt's progress into `events` every `every`, until
    /// dropped.
    pub fn start(
        events: Events,
        task: &str,
        attempt: u32,
        progress: Progress,
        every: Duration,
    ) -> Heartbeat {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = Arc::clone(&stop);
        let task = task.to_string();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let (lock, wake) = &*flag;
            let mut stopped = lock.lock().unwrap_or_else(PoisonError::into_inner);
            loop {
                let (guard, timeout) = wake
                    .wait_timeout_while(stopped, every, |s| !*s)
                    .unwrap_or_else(PoisonError::into_inner);
                stopped = guard;
                if *stopped {
                    return;
                }
                if timeout.timed_out() {
                    let now = progress.get();
                    events.emit(Event::AgentProgress {
                        task: task.clone(),
                        attempt,
                        elapsed_s: started.elapsed().as_secs(),
                        tool_calls: now.tool_calls,
                        last: now.last,
                    });
                }
            }
        });
        Heartbeat {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        let (lock, wake) = &*self.stop;
        *lock.lock().unwrap_or_else(PoisonError::into_inner) = true;
        wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Reporter;

    #[test]
    fn it_beats_until_dropped_and_stops_at_once() {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let events = Events::new(Reporter::buffer(Arc::clone(&buffer), false));
        let progress = Progress::default();
        let beat = Heartbeat::start(events, "task-1", 2, progress, Duration::from_millis(40));
        std::thread::sleep(Duration::from_millis(150));
        drop(beat);
        let text = String::from_utf8_lossy(&buffer.lock().expect("buffer")).into_owned();
        let beats = text.matches("still working:").count();
        assert!((1..=4).contains(&beats), "{text}");
        assert!(text.contains("0 tool calls"), "{text}");
        // Dropped, it stops at once: no waiting out the interval.
        let quiet = Events::new(Reporter::buffer(Arc::new(Mutex::new(Vec::new())), false));
        let slow = Heartbeat::start(
            quiet,
            "task-1",
            1,
            Progress::default(),
            Duration::from_secs(60),
        );
        let dropped = Instant::now();
        drop(slow);
        assert!(
            dropped.elapsed() < Duration::from_secs(5),
            "no wait for the next beat"
        );
    }
}
