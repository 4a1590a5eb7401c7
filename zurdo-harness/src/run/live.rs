//! Live progress while an agent works: on a terminal, a spinner with the
//! elapsed time on the attempt's line; otherwise nothing until the attempt
//! ends (plain lines only, so logs stay readable).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// A spinner running while it lives; stopped (and its line cleared) on drop.
pub struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Starts a spinner after `label` when stderr is a terminal.
    pub fn start(label: String) -> Spinner {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let started = Instant::now();
                let mut frame = 0;
                while !stop.load(Ordering::Relaxed) {
                    let secs = started.elapsed().as_secs();
                    eprint!(
                        "\r{label} {} {}:{:02}",
                        FRAMES[frame % FRAMES.len()],
                        secs / 60,
                        secs % 60
                    );
                    let _ = std::io::stderr().flush();
                    frame += 1;
                    std::thread::sleep(Duration::from_millis(100));
                }
                eprint!("\r\x1b[2K");
                let _ = std::io::stderr().flush();
            })
        });
        Spinner { stop, thread }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
