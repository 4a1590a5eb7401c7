//! How a command ends: its [`Exit`] status, or an [`Error`] whose
//! [`ErrorKind`] decides the status. This is the one place exit codes are
//! defined; `main` prints an error once, as `zurdo: <message>`.

use std::fmt;
use std::path::Path;

/// A command's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything checked out (for `run`: every task passed or awaits review).
    Ok,
    /// The command did its job and the answer is no: a criterion failed, a
    /// task failed or is blocked, a name was not found, vela did not start.
    Failed,
    /// Bad input: a PRD, config, argument or file that cannot be used.
    Invalid,
    /// Refused: another run holds the PRD's lock, or a standing rule is red
    /// before the run or ran over its budget.
    Refused,
    /// Drift: the PRD changed since its run state was written, or a model
    /// probe found the model unknown or outside the plan.
    Drift,
    /// The agent's CLI cannot work (not logged in, out of quota, rate
    /// limited past the wait, no network, not installed, a model it cannot
    /// use in an attempt, crashed): no attempt was charged, and the next
    /// `zurdo run` resumes once the cause is fixed.
    AgentUnavailable,
    /// Stopped now by a signal: `128 + signal` (130 a second Ctrl-C, 143
    /// SIGTERM, 129 SIGHUP).
    Signaled(u8),
}

impl Exit {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Failed => 1,
            Exit::Invalid => 2,
            Exit::Refused => 3,
            Exit::Drift => 4,
            Exit::AgentUnavailable => 5,
            Exit::Signaled(code) => code,
        }
    }

    /// [`Exit::Ok`] when `ok`, else [`Exit::Failed`].
    pub fn ok_if(ok: bool) -> Exit {
        if ok {
            Exit::Ok
        } else {
            Exit::Failed
        }
    }
}

/// What kind of thing went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A PRD, config or argument that cannot be used.
    Invalid,
    /// A file or directory that cannot be read or written.
    Io,
    /// Another zurdo holds the PRD's lock.
    LockHeld,
    /// A standing rule is red before the run, or the set ran over its
    /// budget.
    Standing,
    /// The PRD changed since its run state was written.
    Drift,
    /// A model probe failed: the CLI cannot answer with that model.
    Probe,
    /// The agent's CLI cannot work: it could not be started, or it said it
    /// is not logged in, out of quota, rate limited, offline, crashed
    /// (`agent::failure`).
    Agent,
    /// An operation did not succeed (vela could not start or stop).
    Failed,
    /// A run stopped now by a signal; the exit code is `128 + signal`.
    Stopped(u8),
}

impl ErrorKind {
    /// The exit status an error of this kind ends the command with.
    pub fn exit(self) -> Exit {
        match self {
            ErrorKind::Invalid | ErrorKind::Io => Exit::Invalid,
            ErrorKind::LockHeld | ErrorKind::Standing => Exit::Refused,
            ErrorKind::Drift | ErrorKind::Probe => Exit::Drift,
            ErrorKind::Agent => Exit::AgentUnavailable,
            ErrorKind::Failed => Exit::Failed,
            ErrorKind::Stopped(code) => Exit::Signaled(code),
        }
    }
}

/// An error that ends a command: what went wrong, where, and (in the
/// message) what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// An error of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// Bad input (a PRD, config or argument).
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Invalid, message)
    }

    /// Reads the PRD at `path` and parses it: its bytes and model, or the
    /// error that names `shown` and every grammar error as `file:line`.
    pub fn read_prd(path: &Path, shown: &str) -> Result<(Vec<u8>, zurdo::Prd), Error> {
        let bytes = zurdo::source::read(path).map_err(|e| Error::invalid(e.to_string()))?;
        let prd = zurdo::parse_bytes(&bytes).map_err(|errors| {
            let lines: Vec<String> = errors.iter().map(|e| e.render(shown)).collect();
            Error::invalid(format!("{shown} is not a valid PRD:\n{}", lines.join("\n")))
        })?;
        Ok((bytes, prd))
    }

    /// `path` could not be read or written: `<path>: <what>: <error>`.
    pub fn io(path: &Path, what: &str, error: impl fmt::Display) -> Error {
        Error::new(ErrorKind::Io, format!("{what} {}: {error}", path.display()))
    }

    /// An operation that did not succeed.
    pub fn failed(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Failed, message)
    }

    /// Its kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The exit status it ends the command with.
    pub fn exit(&self) -> Exit {
        self.kind.exit()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// What a command returns.
pub type Outcome = Result<Exit, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_documented_code() {
        let code = |k: ErrorKind| Error::new(k, "x").exit().code();
        assert_eq!(code(ErrorKind::Invalid), 2);
        assert_eq!(code(ErrorKind::Io), 2);
        assert_eq!(code(ErrorKind::LockHeld), 3);
        assert_eq!(code(ErrorKind::Standing), 3);
        assert_eq!(code(ErrorKind::Drift), 4);
        assert_eq!(code(ErrorKind::Probe), 4);
        assert_eq!(code(ErrorKind::Agent), 5);
        assert_eq!(code(ErrorKind::Failed), 1);
        assert_eq!(code(ErrorKind::Stopped(143)), 143);
        assert_eq!((Exit::Ok.code(), Exit::ok_if(false).code()), (0, 1));
        let e = Error::io(Path::new("/x/y"), "cannot write", "denied");
        assert_eq!(e.to_string(), "cannot write /x/y: denied");
    }
}
