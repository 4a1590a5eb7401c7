//! Small helpers every CLI's stream uses: JSON lines with `type` first,
//! deterministic ids, timestamps, the environment as the real CLIs read it,
//! shell quoting.

use std::io::Write;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::script::*;

/// Prints one JSON line on stdout, `type` first as the real CLIs do, and
/// flushes it.
pub(crate) fn emit(v: &Value) {
    emit_raw(&json_line(v));
}

/// `v` on one line with a top-level `type` first.
pub(crate) fn json_line(v: &Value) -> String {
    match v {
        Value::Object(m) if m.contains_key("type") => {
            let mut rest = m.clone();
            let kind = rest.remove("type").unwrap_or(Value::Null);
            let tail = Value::Object(rest).to_string();
            match tail.strip_prefix('{') {
                Some("}") | None => format!("{{\"type\":{kind}}}"),
                Some(tail) => format!("{{\"type\":{kind},{tail}"),
            }
        }
        _ => v.to_string(),
    }
}

/// Prints one raw line on stdout and flushes it.
pub(crate) fn emit_raw(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Deterministic ids (seeded from the invocation), shaped like the real ones.
pub(crate) struct Ids(u64);

impl Ids {
    /// Seeds from `parts`.
    pub fn new(parts: &[&str]) -> Ids {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for p in parts {
            for b in p.bytes().chain([0xff]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        Ids(h)
    }

    /// The next 64 pseudo-random bits (splitmix64).
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A UUID of the given version.
    pub fn uuid(&mut self, version: u8) -> String {
        let a = self.next();
        let b = self.next();
        format!(
            "{:08x}-{:04x}-{:x}{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            version & 0xf,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }

    /// `n` hex digits (n ≤ 16).
    pub fn hex(&mut self, n: usize) -> String {
        let s = format!("{:016x}", self.next());
        s[..n.min(16)].to_string()
    }

    /// `n` base-62 characters.
    pub fn alnum(&mut self, n: usize) -> String {
        const ABC: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n)
            .map(|_| ABC[(self.next() % 62) as usize] as char)
            .collect()
    }
}

/// Now, as `2026-11-30T02:37:26.212Z`.
pub(crate) fn now_iso() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    iso(d.as_secs(), d.subsec_millis())
}

/// The UTC clock time of Unix second `at` as Claude Code writes a reset:
/// `7pm`, `4:50am`.
pub(crate) fn clock12(at: u64) -> String {
    let secs = at % 86_400;
    let (h, m) = (secs / 3600, secs / 60 % 60);
    let (h12, meridiem) = match h {
        0 => (12, "am"),
        1..=11 => (h, "am"),
        12 => (12, "pm"),
        _ => (h - 12, "pm"),
    };
    if m == 0 {
        format!("{h12}{meridiem}")
    } else {
        format!("{h12}:{m:02}{meridiem}")
    }
}

/// A wait spelled as Codex spells one (`2 days 17 hours 14 minutes`),
/// rounded up to whole minutes.
pub(crate) fn spelled_wait(secs: u64) -> String {
    let minutes = secs.div_ceil(60).max(1);
    let (d, h, m) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    let unit = |n: u64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if d > 0 {
        parts.push(unit(d, "day"));
    }
    if h > 0 {
        parts.push(unit(h, "hour"));
    }
    if m > 0 {
        parts.push(unit(m, "minute"));
    }
    parts.join(" ")
}

/// Milliseconds since the epoch.
pub(crate) fn now_ms() -> u64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn iso(secs: u64, ms: u32) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The effective uid, or `ZURDO_STAND_IN_EUID` when set.
pub(crate) fn euid() -> u32 {
    if let Some(v) = std::env::var("ZURDO_STAND_IN_EUID")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return v;
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether an environment variable is set to exactly `value`.
pub(crate) fn env_is(name: &str, value: &str) -> bool {
    std::env::var(name).is_ok_and(|v| v == value)
}

/// Whether stdin is a terminal.
pub(crate) fn stdin_is_tty() -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(0) == 1 }
}

/// Everything on stdin when it is not a terminal (empty otherwise, or when
/// it cannot be read), as the real CLIs read a piped prompt.
pub(crate) fn piped_stdin() -> String {
    use std::io::Read;
    if stdin_is_tty() {
        return String::new();
    }
    let mut bytes = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `share` of `total` split over `parts`, the remainder on the last.
pub(crate) fn share(total: u64, parts: usize, index: usize) -> u64 {
    let parts = parts.max(1) as u64;
    let each = total / parts;
    if index as u64 + 1 >= parts {
        total - each * (parts - 1)
    } else {
        each
    }
}

/// Quotes `s` for a POSIX shell.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The current directory, or `.`.
pub(crate) fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// A `-C` directory: absolute and normalised, or `None` when it is not a
/// directory.
pub(crate) fn dir_arg(d: &str) -> Option<PathBuf> {
    let d = cwd().join(d);
    d.is_dir().then(|| std::fs::canonicalize(&d).unwrap_or(d))
}

/// The default text for an error of `kind` when the script gives none.
pub(crate) fn error_text(e: &ErrorSpec, auth_text: &str) -> String {
    if let Some(m) = e.message() {
        return m.to_string();
    }
    match e.kind() {
        ErrorKind::Auth => auth_text.to_string(),
        ErrorKind::RateLimit => "Rate limit reached. Please try again later.".into(),
        ErrorKind::Quota => {
            "You have exceeded your quota. Check your plan and billing details.".into()
        }
        ErrorKind::Server => "Internal server error".into(),
        ErrorKind::Model => "The requested model is not available.".into(),
        ErrorKind::Other => "An unexpected error occurred.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reset_clocks_and_spelled_waits() {
        assert_eq!(clock12(19 * 3600), "7pm");
        assert_eq!(clock12(86_400 + 4 * 3600 + 50 * 60), "4:50am");
        assert_eq!(clock12(0), "12am");
        assert_eq!(clock12(12 * 3600 + 5 * 60), "12:05pm");
        assert_eq!(spelled_wait(1), "1 minute");
        assert_eq!(spelled_wait(120), "2 minutes");
        assert_eq!(
            spelled_wait((2 * 1440 + 17 * 60 + 14) * 60),
            "2 days 17 hours 14 minutes"
        );
        assert_eq!(spelled_wait(3600), "1 hour");
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_796_006_246, 212), "2026-11-30T02:37:26.212Z");
        assert_eq!(iso(951_782_400, 5), "2000-02-29T00:00:00.005Z");
    }

    #[test]
    fn ids_are_deterministic_and_uuid_shaped() {
        let a = Ids::new(&["claude", "p"]).uuid(4);
        assert_eq!(a, Ids::new(&["claude", "p"]).uuid(4));
        assert_ne!(a, Ids::new(&["claude", "q"]).uuid(4));
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
    }

    #[test]
    fn shares_sum_to_the_total() {
        let total: u64 = (0..3).map(|i| share(100, 3, i)).sum();
        assert_eq!(total, 100);
        assert_eq!(share(7, 0, 0), 7);
    }

    #[test]
    fn type_comes_first() {
        assert_eq!(
            json_line(&json!({"z": 1, "type": "a"})),
            r#"{"type":"a","z":1}"#
        );
        assert_eq!(json_line(&json!({"type": "a"})), r#"{"type":"a"}"#);
        assert_eq!(json_line(&json!({"b": 1})), r#"{"b":1}"#);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("ls"), "ls");
        assert_eq!(shell_quote("echo 'a b'"), r"'echo '\''a b'\'''");
    }
}
