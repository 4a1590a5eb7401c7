//! Ctrl-C: the first press lets the current iteration finish, prints the
//! summary and leaves a cleanly resumable run; the second kills the running
//! agent's process group and stops at once (the dropped iteration is
//! reconciled from progress.log on resume, without counting an attempt).
//! The model probes of a run's pre-flight run at once, each in a process
//! group of its own: the second press kills every one of them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::agent::invoke::Groups;
use crate::event::{Event, Events};

/// Shared interrupt state.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    groups: Groups,
}

impl Interrupt {
    /// Installs the SIGINT/SIGTERM handling, reporting each stop to
    /// `events`. Failing to install it only costs the graceful stop, so
    /// errors are reported and ignored.
    pub fn install(events: Events) -> Interrupt {
        let interrupt = Interrupt::default();
        let watched = interrupt.clone();
        match signal_hook::iterator::Signals::new([
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
        ]) {
            Ok(mut signals) => {
                std::thread::spawn(move || {
                    for _ in signals.forever() {
                        if watched.stop.swap(true, Ordering::SeqCst) {
                            watched.groups.kill_all();
                            events.emit(Event::StoppedNow);
                            std::process::exit(130);
                        }
                        events.emit(Event::StopRequested);
                    }
                });
            }
            Err(e) => events.emit(Event::SignalsUnhandled {
                error: e.to_string(),
            }),
        }
        interrupt
    }

    /// True once a stop was asked for.
    pub fn requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Records the running agent's process group, alone (0: none).
    pub fn set_agent_group(&self, group: u32) {
        self.groups.set(group);
    }

    /// The process groups a second stop kills (several at once while the
    /// model probes run).
    pub fn groups(&self) -> &Groups {
        &self.groups
    }
}
