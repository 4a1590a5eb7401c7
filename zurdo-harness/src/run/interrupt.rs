//! Ctrl-C: the first press lets the current iteration finish, prints the
//! summary and leaves a cleanly resumable run; the second kills the running
//! agent's process group and stops at once (the dropped iteration is
//! reconciled from progress.log on resume, without counting an attempt).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

use crate::event::{Event, Events};

/// Shared interrupt state.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    agent_group: Arc<AtomicI32>,
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
                            let group = watched.agent_group.load(Ordering::SeqCst);
                            if group > 0 {
                                zurdo::exec::kill_group(group);
                            }
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

    /// Records the running agent's process group (0: none).
    pub fn set_agent_group(&self, group: u32) {
        self.agent_group
            .store(i32::try_from(group).unwrap_or(0), Ordering::SeqCst);
    }
}
