//! The live side of the event stream: each [`Event`] rendered on stderr as
//! it happens, coloured when stderr is a terminal (not `TERM=dumb`) and
//! `NO_COLOR` is not set, and, on a terminal, a spinner line refreshed in
//! place while an agent works (elapsed time, tool calls so far, the last
//! one) or while a rate limit is waited out (the time left). Elsewhere only
//! plain lines, so logs and pipes stay readable: the heartbeat's
//! once-a-minute `still working` and `still waiting` lines stand in for the
//! spinner there, and are not printed on a terminal.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::render::{self, Line, Style};
use super::Event;
use crate::agent::invoke::Progress;

/// Where rendered lines go.
enum Output {
    Stderr,
    /// A buffer (tests).
    Buffer(Arc<Mutex<Vec<u8>>>),
}

/// Renders events live.
pub struct Reporter {
    output: Output,
    colour: bool,
    spinner: Option<Spinner>,
    /// Whether a spinner may run (stderr is a terminal).
    animate: bool,
    /// What the running agent has done so far, for the spinner line.
    watched: Arc<Mutex<Option<Progress>>>,
}

impl std::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reporter")
            .field("colour", &self.colour)
            .field("animate", &self.animate)
            .finish()
    }
}

/// True when colour is unwanted: `NO_COLOR` set to anything but the empty
/// string (<https://no-color.org>), or a terminal that says it is dumb.
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
        || std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

impl Reporter {
    /// The reporter for this process's stderr.
    pub fn stderr() -> Reporter {
        let terminal = std::io::stderr().is_terminal();
        Reporter {
            output: Output::Stderr,
            colour: terminal && !no_color(),
            spinner: None,
            animate: terminal,
            watched: Arc::default(),
        }
    }

    /// A reporter writing into `buffer`, coloured when `colour` (no spinner).
    pub fn buffer(buffer: Arc<Mutex<Vec<u8>>>, colour: bool) -> Reporter {
        Reporter {
            output: Output::Buffer(buffer),
            colour,
            spinner: None,
            animate: false,
            watched: Arc::default(),
        }
    }

    /// From now on the spinner line shows what `progress` says the running
    /// agent has done (`None`: nothing).
    pub fn watch(&mut self, progress: Option<Progress>) {
        *self.watched.lock().unwrap_or_else(PoisonError::into_inner) = progress;
    }

    /// Renders `event`.
    pub fn report(&mut self, event: &Event) {
        if matches!(
            event,
            Event::AgentFinished { .. }
                | Event::AgentNotStarted { .. }
                | Event::AttemptDropped { .. }
                | Event::RateLimitWait { .. }
                | Event::StoppedNow { .. }
                | Event::RunFinished { .. }
        ) {
            self.spinner = None;
        }
        // On a terminal the spinner line says these, refreshed in place.
        let shown_by_spinner = matches!(
            event,
            Event::AgentProgress { .. } | Event::StillWaiting { .. }
        );
        if !(self.animate && shown_by_spinner) {
            for line in render::lines(event) {
                self.write(&line);
            }
        }
        if !self.animate {
            return;
        }
        match event {
            Event::AttemptStarted {
                attempt,
                max,
                model,
                ..
            } => {
                self.spinner = Some(Spinner::start(
                    format!("  attempt {attempt}/{max} ({model})"),
                    Tick::Agent(Arc::clone(&self.watched)),
                ));
            }
            Event::RateLimitWait { seconds, .. } => {
                self.spinner = Some(Spinner::start(
                    "    waiting out the rate limit".to_string(),
                    Tick::Until(Instant::now() + Duration::from_secs(*seconds)),
                ));
            }
            _ => {}
        }
    }

    /// Writes one plain line that is not an event (a failure to log one).
    pub fn note(&mut self, text: &str) {
        self.write(&Line {
            style: Style::Warn,
            text: text.to_string(),
        });
    }

    fn write(&mut self, line: &Line) {
        // What an agent, a PRD or a command wrote reaches the terminal seen,
        // never obeyed (a title with an escape sequence, say).
        let line = Line {
            style: line.style,
            text: zurdo_base::text::escape_controls(&line.text).into_owned(),
        };
        let line = &line;
        let text = if self.colour {
            paint(line)
        } else {
            line.text.clone()
        };
        match &self.output {
            Output::Stderr => eprintln!("{text}"),
            Output::Buffer(buffer) => {
                let mut b = buffer.lock().unwrap_or_else(PoisonError::into_inner);
                let _ = writeln!(b, "{text}");
            }
        }
    }
}

/// `line` in ANSI colour.
fn paint(line: &Line) -> String {
    let code = match line.style {
        Style::Plain => return line.text.clone(),
        Style::Heading => "1",
        Style::Good => "32",
        Style::Bad => "31",
        Style::Warn => "33",
    };
    // Keep a leading newline outside the colour.
    let (lead, rest) = match line.text.strip_prefix('\n') {
        Some(rest) => ("\n", rest),
        None => ("", line.text.as_str()),
    };
    format!("{lead}\x1b[{code}m{rest}\x1b[0m")
}

const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// What a spinner line shows after its label.
enum Tick {
    /// The time since it started and what the agent has done so far.
    Agent(Arc<Mutex<Option<Progress>>>),
    /// The time left until then.
    Until(Instant),
}

impl Tick {
    fn text(&self, started: Instant) -> String {
        match self {
            Tick::Agent(watched) => {
                let mut text = render::clock(started.elapsed().as_secs());
                let progress = watched
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .as_ref()
                    .map(Progress::get);
                if let Some(now) = progress {
                    text.push_str(&format!(
                        " · {} tool call{}",
                        now.tool_calls,
                        if now.tool_calls == 1 { "" } else { "s" }
                    ));
                    if let Some(last) = now.last {
                        text.push_str(" · ");
                        text.push_str(&zurdo_base::text::escape_controls(&last));
                    }
                }
                text
            }
            Tick::Until(until) => format!(
                "{} left",
                render::clock(until.saturating_duration_since(Instant::now()).as_secs())
            ),
        }
    }
}

/// The terminal's width in columns (80 when it cannot be asked).
fn columns() -> usize {
    // SAFETY: an all-zero winsize is a valid value for ioctl to fill.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: TIOCGWINSZ on stderr's descriptor writes one winsize into
    // `size`, which outlives the call.
    let ok = unsafe { libc::ioctl(2, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        80
    }
}

/// A spinner line under the attempt's line (the elapsed time and the
/// agent's progress, or a countdown), refreshed in place while it lives;
/// stopped (and its line cleared) on drop.
struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    fn start(label: String, tick: Tick) -> Spinner {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let mut frame = 0;
            while !flag.load(Ordering::Relaxed) {
                let line = format!(
                    "{label} {} {}",
                    FRAMES[frame % FRAMES.len()],
                    tick.text(started)
                );
                // One line, never wrapped: a wrapped line could not be
                // redrawn in place.
                let line = zurdo_base::text::cut_chars(&line, columns().saturating_sub(1));
                eprint!("\r\x1b[2K{line}");
                let _ = std::io::stderr().flush();
                frame += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            eprint!("\r\x1b[2K");
            let _ = std::io::stderr().flush();
        });
        Spinner {
            stop,
            thread: Some(thread),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_when_asked_and_the_text_is_the_same() {
        let event = Event::FrozenViolation {
            task: "task-1".into(),
            attempt: 1,
            paths: vec!["tests/a.rs".into()],
        };
        let plain = Arc::new(Mutex::new(Vec::new()));
        Reporter::buffer(Arc::clone(&plain), false).report(&event);
        let coloured = Arc::new(Mutex::new(Vec::new()));
        Reporter::buffer(Arc::clone(&coloured), true).report(&event);
        let text = |b: &Arc<Mutex<Vec<u8>>>| {
            String::from_utf8_lossy(&b.lock().expect("buffer")).into_owned()
        };
        assert_eq!(text(&plain), "      FROZEN tests/a.rs was modified\n");
        assert_eq!(
            text(&coloured),
            "\x1b[31m      FROZEN tests/a.rs was modified\x1b[0m\n"
        );
        assert_eq!(zurdo_base::text::strip_ansi(&text(&coloured)), text(&plain));
    }
}
