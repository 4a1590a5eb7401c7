//! Stops. Ctrl-C once lets the current iteration finish, prints the
//! summary and leaves a cleanly resumable run. A stop **now** — a second
//! Ctrl-C (exit 130), SIGTERM (143: CI cancellation, systemd, `docker
//! stop`) or SIGHUP (129: a closed terminal) — kills the running agent and
//! every process zurdo started (criteria included), and the loop drops the
//! interrupted attempt (it is not counted and nothing of it is recorded),
//! writes the state, releases the lock and exits with that code. Should the
//! loop not get there within [`STOP_NOW_GRACE`] (busy in something that
//! cannot be cut short), the watcher releases the lock and exits itself; a
//! further signal in the meantime exits at once. The dropped attempt is
//! reconciled from progress.log on resume either way. The model probes of
//! a run's pre-flight run at once, each in a process group of its own: a
//! stop now kills every one of them.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::agent::invoke::Groups;
use crate::event::{Event, Events};
use crate::state::lock::Releaser;

/// How long a stop now waits for the loop to write its state and release
/// the lock before the watcher does it and exits.
pub const STOP_NOW_GRACE: Duration = Duration::from_secs(3);

/// Shared interrupt state.
#[derive(Debug, Clone, Default)]
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    /// The exit code of a stop now (0: none asked).
    now: Arc<AtomicI32>,
    groups: Groups,
}

/// The exit code and name of a signal that stops a run.
fn stop_of(signal: i32) -> Option<(i32, &'static str)> {
    match signal {
        signal_hook::consts::SIGINT => Some((130, "SIGINT")),
        signal_hook::consts::SIGTERM => Some((143, "SIGTERM")),
        signal_hook::consts::SIGHUP => Some((129, "SIGHUP")),
        _ => None,
    }
}

impl Interrupt {
    /// Installs the handling of SIGINT, SIGTERM and SIGHUP, reporting each
    /// stop to `events`; `release` releases the run's lock should the
    /// watcher have to end the process itself. Failing to install it only
    /// costs the graceful stop, so errors are reported and ignored.
    pub fn install(events: Events, release: Option<Releaser>) -> Interrupt {
        let interrupt = Interrupt::default();
        let watched = interrupt.clone();
        match signal_hook::iterator::Signals::new([
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ]) {
            Ok(mut signals) => {
                std::thread::spawn(move || {
                    for signal in signals.forever() {
                        let Some((code, name)) = stop_of(signal) else {
                            continue;
                        };
                        if signal == signal_hook::consts::SIGINT
                            && !watched.stop.swap(true, Ordering::SeqCst)
                        {
                            events.emit(Event::StopRequested);
                            continue;
                        }
                        watched.stop.store(true, Ordering::SeqCst);
                        if watched.now.swap(code, Ordering::SeqCst) != 0 {
                            // Asked again while stopping: no more waiting.
                            end(release.as_ref(), code);
                        }
                        // Said before the kill: once its agent dies the loop
                        // may end the process.
                        events.emit(Event::StoppedNow {
                            signal: Some(name.to_string()),
                        });
                        watched.kill_all();
                        let release = release.clone();
                        std::thread::spawn(move || {
                            std::thread::sleep(STOP_NOW_GRACE);
                            end(release.as_ref(), code);
                        });
                    }
                });
            }
            Err(e) => events.emit(Event::SignalsUnhandled {
                error: e.to_string(),
            }),
        }
        interrupt
    }

    /// Kills the running agent's process group and every process zurdo
    /// started, however detached (reaping none: the loop reaps its own
    /// children as they die).
    fn kill_all(&self) {
        self.groups.kill_all();
        zurdo::exec::reap::signal_descendants();
    }

    /// True once a stop was asked for (now or after this iteration).
    pub fn requested(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// The exit code of a stop now, once one was asked for: the loop
    /// records nothing more of the attempt under way and ends.
    pub fn now(&self) -> Option<i32> {
        Some(self.now.load(Ordering::SeqCst)).filter(|&c| c != 0)
    }

    /// Records the running agent's process group, alone (0: none).
    pub fn set_agent_group(&self, group: u32) {
        self.groups.set(group);
    }

    /// The process groups a stop now kills (several at once while the
    /// model probes run).
    pub fn groups(&self) -> &Groups {
        &self.groups
    }
}

/// Releases the lock and exits with `code` (the watcher's last resort).
fn end(release: Option<&Releaser>, code: i32) -> ! {
    if let Some(release) = release {
        release.release();
    }
    std::process::exit(code)
}
