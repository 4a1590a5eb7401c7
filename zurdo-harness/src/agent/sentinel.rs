//! The sentinel: the agent CLI's parent, so that nothing the agent starts
//! outlives zurdo, even a `kill -9` of zurdo.
//!
//! zurdo does not spawn an agent CLI itself: it spawns `zurdo __sentinel --
//! <cli> <args>…`, which becomes the reaper of its descendants
//! (`PR_SET_CHILD_SUBREAPER`), starts the CLI in its own process group
//! (zurdo's: a timeout still kills both) with the same stdin, stdout,
//! stderr and environment, and exits as the CLI did. It also holds the read
//! end of a pipe whose write end only zurdo holds. When zurdo dies, however
//! it dies, the kernel closes that end; the sentinel reads end-of-file and
//! kills every process descending from it — the CLI, what the CLI started,
//! and whatever detached from them (`setsid`, a double fork), which the
//! kernel re-parented to the sentinel — then exits. `PR_SET_PDEATHSIG` on
//! the CLI alone reached only the CLI's first process (a Node.js launcher
//! whose native binary lived on).
//!
//! While zurdo lives, the sentinel changes nothing: when the CLI exits, the
//! sentinel exits with its status, and what the CLI left running is
//! re-parented to zurdo, which kills and records it before verifying.

use std::ffi::OsString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::Command;

/// The hidden subcommand that runs the sentinel.
pub const SUBCOMMAND: &str = "__sentinel";

/// The file descriptor the sentinel watches (the read end of zurdo's pipe).
pub const WATCH_FD: RawFd = 3;

/// What zurdo holds while a sentinel runs: the write end of its pipe. Drop
/// it once the sentinel has exited (the sentinel then sees end-of-file,
/// but it is gone already).
#[derive(Debug)]
pub struct Watch {
    _write: OwnedFd,
}

static SENTINEL: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Runs every agent CLI this process starts under a sentinel, the program
/// at `exe` (a `zurdo` binary: `/proc/self/exe` from `zurdo`'s own
/// `main`). Without it (a library caller, a test binary) CLIs are spawned
/// directly, dying with this process (`PR_SET_PDEATHSIG`) but not what
/// they start.
pub fn enable(exe: impl Into<std::path::PathBuf>) {
    let _ = SENTINEL.set(exe.into());
}

/// A command that runs `program` with `args`, under a sentinel when one is
/// enabled (and the pipe end zurdo keeps while it runs), else directly
/// with `PR_SET_PDEATHSIG`. The caller sets the environment, working
/// directory and stdio on the returned command as it would on the CLI's
/// own (the sentinel passes them on), and starts it in its own process
/// group.
pub fn wrap(program: &str, args: &[String]) -> std::io::Result<(Command, Option<Watch>)> {
    let Some(exe) = SENTINEL.get() else {
        let mut command = Command::new(program);
        command.args(args);
        // SAFETY: the closure runs between fork and exec and only calls
        // prctl, which is async-signal-safe.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        return Ok((command, None));
    };
    let (read, write) = pipe()?;
    let mut command = Command::new(exe);
    command.arg(SUBCOMMAND).arg("--").arg(program).args(args);
    let read_fd = read.as_raw_fd();
    // SAFETY: the closure runs between fork and exec and only calls dup2,
    // which is async-signal-safe; `read` outlives the spawn (it is moved
    // into the closure and dropped with the command).
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(move || {
            let _keep = &read;
            if libc::dup2(read_fd, WATCH_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok((command, Some(Watch { _write: write })))
}

/// A pipe, both ends close-on-exec (the read end is duplicated onto
/// [`WATCH_FD`] for the sentinel alone).
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by no one else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The sentinel itself (`zurdo __sentinel -- <program> <args>…`): runs the
/// program and ends as it ended; if zurdo goes away first, kills
/// everything descending from it and exits 137. Never returns.
pub fn main(program: &OsString, args: &[OsString]) -> ! {
    zurdo::exec::reap::become_subreaper();
    let mut command = Command::new(program);
    command.args(args);
    // The CLI dies with its sentinel.
    // SAFETY: the closure runs between fork and exec and only calls prctl,
    // which is async-signal-safe.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            eprintln!("zurdo: cannot start `{}`: {e}", program.to_string_lossy());
            std::process::exit(127);
        }
    };
    std::thread::spawn(|| {
        watch_zurdo();
        // zurdo is gone: nothing it started may go on unsupervised.
        ZURDO_GONE.store(true, std::sync::atomic::Ordering::SeqCst);
        zurdo::exec::reap::kill_descendants();
        std::process::exit(137);
    });
    let status = child.wait();
    // The CLI ended. If that is because zurdo went away (the watcher is
    // killing everything), the watcher ends this process once the rest is
    // dead too; exiting now would orphan it.
    if ZURDO_GONE.load(std::sync::atomic::Ordering::SeqCst) || zurdo_gone_now() {
        ZURDO_GONE.store(true, std::sync::atomic::Ordering::SeqCst);
        zurdo::exec::reap::kill_descendants();
        std::process::exit(137);
    }
    match status {
        Ok(status) => end_as(status),
        Err(_) => std::process::exit(1),
    }
}

/// Set once zurdo's end of the pipe closed.
static ZURDO_GONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// True when zurdo's end of the pipe is closed now (without waiting).
fn zurdo_gone_now() -> bool {
    let mut fd = libc::pollfd {
        fd: WATCH_FD,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll(2) on one valid pollfd that outlives the call, no wait.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready > 0 && fd.revents & (libc::POLLHUP | libc::POLLIN) != 0 && {
        let mut byte = [0u8; 1];
        // SAFETY: a one-byte read into a live buffer; poll said it will not block.
        unsafe { libc::read(WATCH_FD, byte.as_mut_ptr().cast(), 1) == 0 }
    }
}

/// Blocks until zurdo's end of the pipe closes (or the pipe is not there:
/// then zurdo cannot be watched, and this never returns).
fn watch_zurdo() {
    let mut byte = [0u8; 1];
    loop {
        // SAFETY: read(2) into a one-byte buffer that outlives the call.
        let n = unsafe { libc::read(WATCH_FD, byte.as_mut_ptr().cast(), 1) };
        if n == 0 {
            return;
        }
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // No pipe to watch (run by hand): wait for the CLI only.
            loop {
                std::thread::park();
            }
        }
    }
}

/// Exits as `status` says the CLI ended: its code, or its signal (raised on
/// this process, without a core dump).
fn end_as(status: std::process::ExitStatus) -> ! {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        std::process::exit(code);
    }
    if let Some(signal) = status.signal() {
        // SAFETY: resetting a signal's disposition, turning core dumps off
        // and raising the signal on this process take no pointers (the
        // rlimit struct outlives the call).
        unsafe {
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
        std::process::exit(128 + signal);
    }
    std::process::exit(1)
}
