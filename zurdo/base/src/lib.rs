//! The bottom layer under zurdo's crates: what the state directory, the
//! lesson library, the reports and Lumen's index all need and none of them
//! owns. Nothing here knows what a PRD, a task or an agent is.
//!
//! - [`files`]: replacing a file atomically (a crash leaves the old bytes
//!   or the new ones, never a torn file), and reading only regular files
//!   within a size limit.
//! - [`dir`]: a directory held open, in which files are written and read
//!   without ever following a symlink (for directories another process can
//!   write into).
//! - [`mac`]: records that prove zurdo wrote them (an HMAC keyed by a
//!   secret kept outside every repository).
//! - [`process`]: a process's identity beyond its reusable pid.
//! - [`time`]: the RFC 3339 timestamps every record carries.
//! - [`zone`]: civil dates and the system's time zones (a local or zoned
//!   wall-clock time turned into an instant).
//! - [`text`]: cutting text to a budget on character boundaries, one-line
//!   summaries, terminal escapes removed.
//! - [`seq`]: a longest common subsequence of two sequences (the line diff
//!   of an edit, the criteria an edit kept).

pub mod dir;
pub mod files;
pub mod mac;
pub mod process;
pub mod seq;
pub mod text;
pub mod time;
pub mod zone;
