//! Waiting for a child without threads: one `poll(2)` over a pidfd (which
//! becomes readable when the child exits) and the child's stdout and stderr.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::{Child, ChildStderr, ChildStdout};
use std::time::{Duration, Instant};

use super::capture::{Capture, Keep};
use super::{ending_of, kill_group, Ending, Finished, Stream, Wait, DRAIN_GRACE};

/// A pidfd for `pid`, or `None` where the kernel has no `pidfd_open` (before
/// Linux 5.3) or a sandbox forbids it.
pub(super) fn pidfd(pid: u32) -> Option<OwnedFd> {
    let pid = libc::pid_t::try_from(pid).ok()?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1; no memory is passed.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    let fd = RawFd::try_from(fd).ok().filter(|&fd| fd >= 0)?;
    // SAFETY: `fd` was just returned by the kernel and is owned by no one else.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// One of the child's output pipes and what has been kept of it.
struct Pipe<R> {
    stream: Stream,
    reader: Option<R>,
    capture: Capture,
}

impl<R: Read + AsRawFd> Pipe<R> {
    fn new(stream: Stream, reader: Option<R>, keep: Keep) -> Pipe<R> {
        Pipe {
            stream,
            reader,
            capture: Capture::new(keep),
        }
    }

    fn fd(&self) -> Option<RawFd> {
        self.reader.as_ref().map(AsRawFd::as_raw_fd)
    }

    /// Reads what is available after `poll` said so, shows it to
    /// `observe` and keeps it; closes on EOF or error.
    fn read(&mut self, observe: &mut dyn FnMut(Stream, &[u8])) {
        let mut chunk = [0u8; 16 * 1024];
        if let Some(reader) = self.reader.as_mut() {
            match reader.read(&mut chunk) {
                Ok(0) | Err(_) => self.reader = None,
                Ok(n) => {
                    observe(self.stream, &chunk[..n]);
                    self.capture.push(&chunk[..n]);
                }
            }
        }
    }
}

/// Waits for `child` (already in its own process group) until it exits or
/// `timeout` passes, reading its output meanwhile (each chunk shown to
/// `observe`, `keep` of it kept). After an exit (the group then treated as
/// `at_exit` says) or a kill
/// the pipes are read to EOF, for at most [`DRAIN_GRACE`] (a process that
/// left the group may hold them open).
pub(super) fn wait(
    mut child: Child,
    pidfd: &OwnedFd,
    how: Wait,
    observe: &mut dyn FnMut(Stream, &[u8]),
) -> std::io::Result<Finished> {
    let Wait {
        start,
        timeout,
        keep,
        ..
    } = how;
    let group = child.id() as i32;
    let mut out: Pipe<ChildStdout> = Pipe::new(Stream::Stdout, child.stdout.take(), keep);
    let mut err: Pipe<ChildStderr> = Pipe::new(Stream::Stderr, child.stderr.take(), keep);
    let deadline = super::deadline(start, timeout);
    let mut ending: Option<Ending> = None;
    let mut elapsed = Duration::ZERO;
    let mut drain_until = deadline;
    loop {
        if ending.is_some() && out.reader.is_none() && err.reader.is_none() {
            break;
        }
        let now = Instant::now();
        let limit = if ending.is_some() {
            drain_until
        } else {
            deadline
        };
        if now >= limit {
            if ending.is_some() {
                break;
            }
            kill_group(group);
            child.wait()?;
            elapsed = start.elapsed();
            ending = Some(Ending::TimedOut);
            drain_until = Instant::now() + DRAIN_GRACE;
            continue;
        }
        let wait_ms = (limit - now).as_millis().clamp(1, i32::MAX as u128) as i32;
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(3);
        for fd in [out.fd(), err.fd()].into_iter().flatten() {
            fds.push(libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            });
        }
        if ending.is_none() {
            fds.push(libc::pollfd {
                fd: pidfd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        // SAFETY: `fds` is a valid, initialised array of `fds.len()` pollfd
        // structs that outlives the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
        if ready < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            kill_group(group);
            let _ = child.wait();
            return Err(e);
        }
        for p in &fds {
            if p.revents == 0 {
                continue;
            }
            if Some(p.fd) == out.fd() {
                out.read(observe);
            } else if Some(p.fd) == err.fd() {
                err.read(observe);
            } else if p.fd == pidfd.as_raw_fd() {
                let status = child.wait()?;
                elapsed = start.elapsed();
                how.exited(group);
                ending = Some(ending_of(status));
                drain_until = Instant::now() + DRAIN_GRACE;
            }
        }
    }
    Ok(Finished {
        ending: ending.unwrap_or(Ending::TimedOut),
        stdout_total: out.capture.total(),
        stderr_total: err.capture.total(),
        stdout: out.capture.into_bytes(),
        stderr: err.capture.into_bytes(),
        elapsed,
    })
}
