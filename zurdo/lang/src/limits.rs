//! The largest durations and counts zurdo accepts from a PRD or its config.
//!
//! Every duration and count a user writes is checked against these bounds
//! where it is read, so no later arithmetic on it (a deadline computed as
//! `Instant + Duration`, a count of attempts) can overflow. The bounds are
//! generous: a demanding user never meets them, a typo or hostile input does.

/// The longest duration anywhere: 7 days (`168h`, `10080m`, `604800s`).
/// Bounds `**Agent-timeout**`, `[defaults] agent_timeout`,
/// `[reason] timeout`, `[verification] criterion_seconds` and
/// `standing_budget_seconds`, and `[vela] idle_minutes`.
pub const MAX_DURATION_SECONDS: u64 = 7 * 24 * 60 * 60;

/// The most attempts a task may have: `**Max-Attempts**` and
/// `[defaults] max_attempts`. Also bounds the other per-task counts of the
/// config (`[reason] stall_attempts`, `max_diagnoses_per_task`).
pub const MAX_ATTEMPTS: u32 = 1_000;

/// The most of a run-wide count in config: `[reason]
/// max_reasoner_calls_per_run` and `max_lessons`.
pub const MAX_PER_RUN: u32 = 100_000;

/// The longest `[shell:]` command, in bytes: the command is one argument of
/// `sh -c`, and Linux refuses an argument of 128 KiB or more
/// (`MAX_ARG_STRLEN`, counting its terminating NUL).
pub const MAX_SHELL_COMMAND_BYTES: usize = 128 * 1024 - 1;

/// [`MAX_DURATION_SECONDS`] as people write it.
pub const MAX_DURATION_TEXT: &str = "7 days (168h)";

/// Why a duration like `30s`, `15m` or `1h` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationError {
    /// Digits with no unit (`30`).
    NoUnit,
    /// Not digits and a unit `s`, `m` or `h` (`soon`, `30d`, `1.5h`).
    NotADuration,
    /// Zero (`0s`).
    Zero,
    /// More than [`MAX_DURATION_SECONDS`], or too many digits to count.
    TooLong,
}

impl DurationError {
    /// What is wrong with `value` written as `what` (`**Agent-timeout**`,
    /// `[defaults] agent_timeout`); the fix is [`DurationError::fix`].
    pub fn message(self, what: &str, value: &str) -> String {
        match self {
            DurationError::NoUnit => format!(
                "{what} `{value}` has no unit; durations need s, m or h (30s, 15m, 1h)"
            ),
            DurationError::NotADuration => {
                format!("{what} `{value}` is not a duration like 30s, 15m or 1h")
            }
            DurationError::Zero => {
                format!("{what} `{value}` is not a positive duration like 30s, 15m or 1h")
            }
            DurationError::TooLong => format!(
                "{what} `{value}` is longer than {MAX_DURATION_TEXT}, the longest duration zurdo accepts"
            ),
        }
    }

    /// A valid value to write instead, in the unit `value` used.
    pub fn fix(self, value: &str) -> String {
        match self {
            DurationError::TooLong => format!("write at most `{}`", max_in_unit(value)),
            _ => "write a positive integer and a unit: `30s`, `15m` or `1h`".to_string(),
        }
    }
}

/// [`MAX_DURATION_SECONDS`] in the unit `value` ends with (`168h`,
/// `10080m`, `604800s`; hours when it has none of them).
pub fn max_in_unit(value: &str) -> String {
    match value.chars().last() {
        Some('s') => format!("{MAX_DURATION_SECONDS}s"),
        Some('m') => format!("{}m", MAX_DURATION_SECONDS / 60),
        _ => format!("{}h", MAX_DURATION_SECONDS / 3600),
    }
}

/// Reads `30s`, `15m`, `1h` (a positive integer and an explicit unit) as
/// seconds, at most [`MAX_DURATION_SECONDS`].
pub fn parse_duration(value: &str) -> Result<u64, DurationError> {
    let split = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    let (digits, unit) = value.split_at(split);
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "" if !digits.is_empty() => return Err(DurationError::NoUnit),
        _ => return Err(DurationError::NotADuration),
    };
    if digits.is_empty() {
        return Err(DurationError::NotADuration);
    }
    if digits.bytes().all(|b| b == b'0') {
        return Err(DurationError::Zero);
    }
    // Too many digits for a u64 is too long, not malformed.
    let n: u64 = digits.parse().map_err(|_| DurationError::TooLong)?;
    match n.checked_mul(scale) {
        Some(seconds) if seconds <= MAX_DURATION_SECONDS => Ok(seconds),
        _ => Err(DurationError::TooLong),
    }
}

/// Checks a whole number of seconds written in config as `key` of
/// `section` (`[verification]`, `criterion_seconds`): at least 1 and at most
/// [`MAX_DURATION_SECONDS`]. The error says what is wrong and the fix.
pub fn check_seconds(section: &str, key: &str, seconds: u64) -> Result<u64, String> {
    check_count(
        section,
        key,
        seconds,
        1,
        MAX_DURATION_SECONDS,
        Some("7 days"),
    )
}

/// Checks a count written in config as `key` of `section` against
/// `min..=max`; `words` names the maximum in words when it is a duration.
/// The error says what is wrong and the fix.
pub fn check_count(
    section: &str,
    key: &str,
    value: u64,
    min: u64,
    max: u64,
    words: Option<&str>,
) -> Result<u64, String> {
    if value < min {
        return Err(format!(
            "{section} {key} must be at least {min}; write {key} = {min} or more"
        ));
    }
    if value > max {
        let words = words.map(|t| format!(" ({t})")).unwrap_or_default();
        return Err(format!(
            "{section} {key} = {value} is more than {max}{words}, the most zurdo accepts; write {key} = {max} or less"
        ));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit_and_a_bound() {
        assert_eq!(parse_duration("30s"), Ok(30));
        assert_eq!(parse_duration("15m"), Ok(900));
        assert_eq!(parse_duration("168h"), Ok(MAX_DURATION_SECONDS));
        assert_eq!(parse_duration("10080m"), Ok(MAX_DURATION_SECONDS));
        assert_eq!(parse_duration("604800s"), Ok(MAX_DURATION_SECONDS));
        assert_eq!(parse_duration("30"), Err(DurationError::NoUnit));
        assert_eq!(parse_duration("m"), Err(DurationError::NotADuration));
        assert_eq!(parse_duration(""), Err(DurationError::NotADuration));
        assert_eq!(parse_duration("30d"), Err(DurationError::NotADuration));
        assert_eq!(parse_duration("-1s"), Err(DurationError::NotADuration));
        assert_eq!(parse_duration("0m"), Err(DurationError::Zero));
        assert_eq!(parse_duration("169h"), Err(DurationError::TooLong));
        assert_eq!(parse_duration("604801s"), Err(DurationError::TooLong));
        assert_eq!(
            parse_duration("18446744073709551615s"),
            Err(DurationError::TooLong)
        );
        assert_eq!(
            parse_duration("99999999999999999999999h"),
            Err(DurationError::TooLong)
        );
        assert_eq!(
            parse_duration("5124095576030431h"),
            Err(DurationError::TooLong)
        );
    }

    #[test]
    fn the_fix_is_the_maximum_in_the_unit_written() {
        assert_eq!(DurationError::TooLong.fix("200h"), "write at most `168h`");
        assert_eq!(
            DurationError::TooLong.fix("99999m"),
            "write at most `10080m`"
        );
        assert_eq!(
            DurationError::TooLong.fix("18446744073709551615s"),
            "write at most `604800s`"
        );
        for fix in [
            DurationError::TooLong.fix("200h"),
            DurationError::TooLong.fix("99999m"),
            DurationError::TooLong.fix("9999999s"),
        ] {
            let value = fix
                .trim_start_matches("write at most `")
                .trim_end_matches('`');
            assert_eq!(parse_duration(value), Ok(MAX_DURATION_SECONDS), "{fix}");
        }
    }

    #[test]
    fn counts_are_bounded_both_ways() {
        assert_eq!(check_count("[s]", "n", 5, 1, 10, None), Ok(5));
        let e = check_count("[s]", "n", 0, 1, 10, None).unwrap_err();
        assert_eq!(e, "[s] n must be at least 1; write n = 1 or more");
        let e = check_seconds("[verification]", "criterion_seconds", u64::MAX).unwrap_err();
        assert_eq!(
            e,
            format!("[verification] criterion_seconds = {} is more than 604800 (7 days), the most zurdo accepts; write criterion_seconds = 604800 or less", u64::MAX)
        );
    }
}
