//! When a CLI says to come back: the reset time of a rate limit, read from
//! its own words. Each form is one the CLIs (or the APIs behind them) are
//! seen printing; the sources are beside each pattern.

use std::sync::OnceLock;

use regex::Regex;
use zurdo_base::zone::{civil_from_days, days_from_civil, Zone};

/// The instant (Unix seconds) `text` says to come back at, reading relative
/// forms against `now` (Unix seconds); `None` when it says no time this
/// knows how to read (or names a zone this machine does not have).
pub fn come_back_at(text: &str, now: i64) -> Option<i64> {
    epoch_suffix(text)
        .or_else(|| json_reset(text, now))
        .or_else(|| zoned_clock(text, now))
        .or_else(|| dated_clock(text, now))
        .or_else(|| relative(text, now))
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("a valid pattern"))
}

/// `Claude AI usage limit reached|1755615600`: Claude Code's limit text
/// with the reset as Unix seconds (anthropics/claude-code#6119, #2490).
fn epoch_suffix(text: &str) -> Option<i64> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let caps = re(&RE, r"(?i)limit reached\|(\d{9,11})\b").captures(text)?;
    caps[1].parse().ok()
}

/// Codex's `usage_limit_reached` error body: `"resets_at":1777936568` or
/// `"resets_in_seconds":13872` (earendil-works/pi#4172).
fn json_reset(text: &str, now: i64) -> Option<i64> {
    static AT: OnceLock<Regex> = OnceLock::new();
    static IN: OnceLock<Regex> = OnceLock::new();
    if let Some(c) = re(&AT, r#""resets_at"\s*:\s*(\d{9,11})"#).captures(text) {
        return c[1].parse().ok();
    }
    let c = re(&IN, r#""resets_in_seconds"\s*:\s*(\d+)"#).captures(text)?;
    Some(now + c[1].parse::<i64>().ok()?)
}

fn month(name: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let lower = name.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| lower.starts_with(m))
        .map(|i| i as u32 + 1)
}

fn hour24(hour: u32, meridiem: &str) -> Option<u32> {
    if !(1..=12).contains(&hour) {
        return None;
    }
    let pm = meridiem.eq_ignore_ascii_case("pm");
    Some(match (hour, pm) {
        (12, false) => 0,
        (12, true) => 12,
        (h, true) => h + 12,
        (h, false) => h,
    })
}

/// Claude Code's usage-window text: `resets 7pm (America/Los_Angeles)`,
/// `resets 4:50am (Europe/Rome)`, `resets Feb 7, 11am (Asia/Seoul)`,
/// `resets Apr 23 at 4pm (America/Recife)`, `reset at 5pm (Europe/Warsaw)`
/// (anthropics/claude-code#23236, #52575, #22976, #51981, #6119): the
/// next such wall-clock time in that zone.
fn zoned_clock(text: &str, now: i64) -> Option<i64> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let caps = re(
        &RE,
        r"(?i)\bresets?\s+(?:at\s+|on\s+)?(?:([a-z]{3,9})\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)\s*\(([A-Za-z0-9_+\-/]+)\)",
    )
    .captures(text)?;
    let zone = Zone::named(&caps[6])?;
    let hour = hour24(caps[3].parse().ok()?, &caps[5])?;
    let minute: u32 = caps.get(4).map_or(Some(0), |m| m.as_str().parse().ok())?;
    let clock = i64::from(hour * 3600 + minute * 60);
    let local_now = zone.local_of_utc(now);
    let today = local_now.div_euclid(86_400);
    match (caps.get(1), caps.get(2)) {
        (Some(m), Some(d)) => {
            let m = month(m.as_str())?;
            let d: u32 = d.as_str().parse().ok()?;
            let (year, _, _) = civil_from_days(today);
            // The next such date: this year's, unless it is well past.
            [year, year + 1].into_iter().find_map(|y| {
                let at = zone.utc_of_local(days_from_civil(y, m, d) * 86_400 + clock);
                (at > now - 86_400).then_some(at)
            })
        }
        _ => {
            let at = zone.utc_of_local(today * 86_400 + clock);
            Some(if at <= now {
                zone.utc_of_local((today + 1) * 86_400 + clock)
            } else {
                at
            })
        }
    }
}

/// A date and a clock in the machine's zone: Codex's `try again at Apr
/// 28th, 2026 10:03 PM` (Th0rgal/sandboxed.sh PR #394) and the Copilot
/// CLI's `reset on April 20, 2026 at 2:00 AM` (github/copilot-cli#2828).
fn dated_clock(text: &str, _now: i64) -> Option<i64> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let caps = re(
        &RE,
        r"(?i)\b(?:try again at|reset on|resets on|reset at)\s+([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}),?\s+(?:at\s+)?(\d{1,2}):(\d{2})\s*(am|pm)",
    )
    .captures(text)?;
    let m = month(&caps[1])?;
    let d: u32 = caps[2].parse().ok()?;
    let y: i64 = caps[3].parse().ok()?;
    let hour = hour24(caps[4].parse().ok()?, &caps[6])?;
    let minute: u32 = caps[5].parse().ok()?;
    let local = days_from_civil(y, m, d) * 86_400 + i64::from(hour * 3600 + minute * 60);
    Some(Zone::local().utc_of_local(local))
}

/// A wait: Codex's `try again in 2 days 17 hours 14 minutes`
/// (openai/codex#3124, #3899), the Copilot CLI's `Please try again in 51
/// hours` (github/copilot-cli#2769) and `Please wait 2 minutes before trying
/// again` (#2740), `Please retry after 2733 seconds` (microsoft/vscode
/// #325598), an API's `retry in 44.3s`, and a `Retry-After: 30` header.
fn relative(text: &str, now: i64) -> Option<i64> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static PART: OnceLock<Regex> = OnceLock::new();
    static HEADER: OnceLock<Regex> = OnceLock::new();
    if let Some(c) = re(&HEADER, r"(?i)\bretry-after:?\s*(\d+)\b").captures(text) {
        return Some(now + c[1].parse::<i64>().ok()?);
    }
    let unit = r"(?:days?|hours?|hrs?|minutes?|mins?|seconds?|secs?|[dhms])";
    let caps = re(
        &RE,
        &format!(
            r"(?i)\b(?:try again|retry|wait)\s+(?:in|after|for)?\s*((?:\d+(?:\.\d+)?\s*{unit}\b[\s,]*(?:and\s+)?)+)"
        ),
    )
    .captures(text)?;
    let part = re(
        &PART,
        r"(?i)(\d+(?:\.\d+)?)\s*(days?|hours?|hrs?|minutes?|mins?|seconds?|secs?|[dhms])\b",
    );
    let mut secs = 0f64;
    for p in part.captures_iter(&caps[1]) {
        let n: f64 = p[1].parse().ok()?;
        let unit = p[2].to_ascii_lowercase();
        secs += n * match unit.chars().next() {
            Some('d') => 86_400.0,
            Some('h') => 3600.0,
            Some('m') => 60.0,
            _ => 1.0,
        };
    }
    (secs > 0.0).then(|| now + secs.ceil() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-04-28T12:00:00Z.
    fn noon() -> i64 {
        days_from_civil(2026, 4, 28) * 86_400 + 12 * 3600
    }

    #[test]
    fn epochs_and_codex_json() {
        assert_eq!(
            come_back_at("Claude AI usage limit reached|1755615600", noon()),
            Some(1_755_615_600)
        );
        let body = r#"{"type":"error","error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1777936568,"eligible_promo":null,"resets_in_seconds":13872},"status_code":429}"#;
        assert_eq!(come_back_at(body, noon()), Some(1_777_936_568));
        assert_eq!(
            come_back_at(r#"{"resets_in_seconds":60}"#, noon()),
            Some(noon() + 60)
        );
    }

    #[test]
    fn relative_waits() {
        let n = noon();
        for (text, secs) in [
            ("You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 2 days 17 hours 14 minutes.", 2 * 86_400 + 17 * 3600 + 14 * 60),
            ("Sorry, you've hit a rate limit that restricts the number of Copilot model requests you can make within a specific time period. Please try again in 51 hours. Please review our Terms of Service", 51 * 3600),
            ("Sorry, you have been rate-limited. Please wait 2 minutes before trying again or consider switching to Auto.", 120),
            ("Sorry, you've exceeded your 5 hour session limits. Please retry after 2733 seconds.", 2733),
            ("Quota exceeded for metric. Please retry in 44.375104934s.", 45),
            ("HTTP 429, Retry-After: 30", 30),
        ] {
            assert_eq!(come_back_at(text, n), Some(n + secs), "{text}");
        }
        assert_eq!(come_back_at("Please wait and try again later.", n), None);
        assert_eq!(come_back_at("try again", n), None);
    }

    #[test]
    fn dated_clocks_read_in_the_machines_zone() {
        // The expected instant is computed through the same zone, so this
        // holds whatever zone the test machine is in.
        let zone = Zone::local();
        let local = days_from_civil(2026, 4, 28) * 86_400 + 22 * 3600 + 3 * 60;
        let codex = "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at Apr 28th, 2026 10:03 PM.";
        assert_eq!(come_back_at(codex, noon()), Some(zone.utc_of_local(local)));
        let copilot = "You've reached your weekly rate limit. Please wait for your limit to reset on April 20, 2026 at 2:00 AM or switch to auto model to continue.";
        let local = days_from_civil(2026, 4, 20) * 86_400 + 2 * 3600;
        assert_eq!(
            come_back_at(copilot, noon()),
            Some(zone.utc_of_local(local))
        );
    }

    #[test]
    fn zoned_clocks_are_the_next_such_time() {
        let n = noon();
        // In UTC: 7pm today is later than noon; 4:50am is tomorrow's.
        assert_eq!(
            come_back_at("You've hit your limit · resets 7pm (UTC)", n),
            Some(n + 7 * 3600)
        );
        assert_eq!(
            come_back_at("You've hit your limit · resets 4:50am (UTC)", n),
            Some(n + 16 * 3600 + 50 * 60)
        );
        assert_eq!(
            come_back_at(
                "Claude usage limit reached. Your limit will reset at 5pm (UTC).",
                n
            ),
            Some(n + 5 * 3600)
        );
        assert_eq!(
            come_back_at("You've hit your limit - resets Feb 7, 11am (UTC)", n),
            Some(days_from_civil(2027, 2, 7) * 86_400 + 11 * 3600),
            "a date already past is next year's"
        );
        assert_eq!(
            come_back_at("You've hit your limit · resets 7pm (Nowhere/Atlantis)", n),
            None,
            "an unknown zone is not guessed"
        );
        // With the system's tzdata: 7pm in Los Angeles (PDT, UTC-7) is 02:00
        // UTC the next day.
        if Zone::named("America/Los_Angeles").is_some() {
            assert_eq!(
                come_back_at(
                    "You've hit your limit · resets 7pm (America/Los_Angeles)",
                    n
                ),
                Some(n + 14 * 3600)
            );
        }
    }
}
