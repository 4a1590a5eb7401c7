//! Civil dates and time zones: what turns "resets 7pm (America/Los_Angeles)"
//! or "try again at Apr 28th, 2026 10:03 PM" (a local time) into an instant.
//!
//! A [`Zone`] is read from the system's zoneinfo (`$TZDIR`, else
//! `/usr/share/zoneinfo`): a TZif file (RFC 8536) whose transitions give the
//! UTC offset up to the last one, and whose footer (a POSIX `TZ` rule such as
//! `PST8PDT,M3.2.0,M11.1.0`) gives it after. [`Zone::local`] is `TZ` when set,
//! else `/etc/localtime`. A zone that cannot be read is `None`: the caller
//! then does not know the instant, and says so. No zurdo concept lives here.

use std::path::PathBuf;

/// Days since 1970-01-01 of the civil date `y-m-d` (proleptic Gregorian;
/// Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(y, m, d)` of `days` since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A time zone: the UTC offset (seconds east) at any instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    /// Transitions: from this UTC second on, this offset.
    transitions: Vec<(i64, i32)>,
    /// The offset before the first transition.
    initial: i32,
    /// The rule after the last transition (the TZif footer).
    rule: Option<Rule>,
}

/// Most bytes of a zoneinfo file read (real ones are a few KiB).
const ZONE_FILE_LIMIT: u64 = 1024 * 1024;

impl Zone {
    /// UTC.
    pub fn utc() -> Zone {
        Zone {
            transitions: Vec::new(),
            initial: 0,
            rule: None,
        }
    }

    /// The zone named `name` (`America/Los_Angeles`, `UTC`, `Europe/Rome`),
    /// read from the system's zoneinfo; `None` when the name is not a plain
    /// zone name or no such zone can be read.
    pub fn named(name: &str) -> Option<Zone> {
        let plain = !name.is_empty()
            && name.len() <= 64
            && !name.starts_with('/')
            && name
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..")
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
        if !plain {
            return None;
        }
        if matches!(name, "UTC" | "Etc/UTC" | "GMT" | "Etc/GMT" | "Z") {
            return Some(Zone::utc());
        }
        let dir = std::env::var_os("TZDIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/share/zoneinfo"));
        Zone::read(&dir.join(name))
    }

    /// The machine's zone: `TZ` (a zone name, `:name`, or a POSIX rule)
    /// when set, else `/etc/localtime`, else UTC.
    pub fn local() -> Zone {
        if let Some(tz) = std::env::var_os("TZ") {
            let tz = tz.to_string_lossy().into_owned();
            let name = tz.strip_prefix(':').unwrap_or(&tz);
            if name.is_empty() {
                return Zone::utc();
            }
            if let Some(zone) = Zone::named(name) {
                return zone;
            }
            if let Some(rule) = Rule::parse(name) {
                return Zone {
                    transitions: Vec::new(),
                    initial: rule.std,
                    rule: Some(rule),
                };
            }
        }
        Zone::read(std::path::Path::new("/etc/localtime")).unwrap_or_else(Zone::utc)
    }

    fn read(path: &std::path::Path) -> Option<Zone> {
        use std::io::Read;
        let file = std::fs::File::open(path).ok()?;
        let mut bytes = Vec::new();
        file.take(ZONE_FILE_LIMIT).read_to_end(&mut bytes).ok()?;
        Zone::parse_tzif(&bytes)
    }

    /// A zone from TZif bytes (RFC 8536, versions 1 to 4).
    pub fn parse_tzif(bytes: &[u8]) -> Option<Zone> {
        let header = |at: usize| -> Option<(u8, [usize; 6])> {
            if bytes.get(at..at + 4)? != b"TZif" {
                return None;
            }
            let version = *bytes.get(at + 4)?;
            let mut counts = [0usize; 6];
            for (i, c) in counts.iter_mut().enumerate() {
                let b = bytes.get(at + 20 + 4 * i..at + 24 + 4 * i)?;
                *c = u32::from_be_bytes(b.try_into().ok()?) as usize;
            }
            Some((version, counts))
        };
        // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
        let size = |c: [usize; 6], time: usize| {
            c[3] * time + c[3] + c[4] * 6 + c[5] + c[2] * (time + 4) + c[1] + c[0]
        };
        let (version, counts) = header(0)?;
        let (at, counts, time) = if version >= b'2' {
            let second = 44 + size(counts, 4);
            let (_, c2) = header(second)?;
            (second + 44, c2, 8)
        } else {
            (44, counts, 4)
        };
        let [_, _, _, timecnt, typecnt, _] = counts;
        if typecnt == 0 {
            return None;
        }
        let times_at = at;
        let idx_at = times_at + timecnt * time;
        let types_at = idx_at + timecnt;
        let read_time = |i: usize| -> Option<i64> {
            let b = bytes.get(times_at + i * time..times_at + (i + 1) * time)?;
            Some(if time == 8 {
                i64::from_be_bytes(b.try_into().ok()?)
            } else {
                i64::from(i32::from_be_bytes(b.try_into().ok()?))
            })
        };
        let offset_of = |t: usize| -> Option<i32> {
            let b = bytes.get(types_at + t * 6..types_at + t * 6 + 4)?;
            Some(i32::from_be_bytes(b.try_into().ok()?))
        };
        let mut transitions = Vec::with_capacity(timecnt);
        for i in 0..timecnt {
            let t = usize::from(*bytes.get(idx_at + i)?);
            if t >= typecnt {
                return None;
            }
            transitions.push((read_time(i)?, offset_of(t)?));
        }
        let initial = offset_of(0)?;
        let rule = if version >= b'2' {
            let end = at + size(counts, time);
            let footer = bytes.get(end..).unwrap_or_default();
            let text = std::str::from_utf8(footer).ok().unwrap_or("");
            text.trim_matches('\n').lines().next().and_then(Rule::parse)
        } else {
            None
        };
        Some(Zone {
            transitions,
            initial,
            rule,
        })
    }

    /// The UTC offset, in seconds east, at the UTC instant `utc` (seconds
    /// since the epoch).
    pub fn offset_at(&self, utc: i64) -> i32 {
        match self.transitions.iter().rposition(|(t, _)| *t <= utc) {
            Some(i) if i + 1 < self.transitions.len() || self.rule.is_none() => {
                self.transitions[i].1
            }
            Some(_) => self
                .rule
                .as_ref()
                .map_or(self.transitions[self.transitions.len() - 1].1, |r| {
                    r.offset_at(utc)
                }),
            None if self.transitions.is_empty() => self
                .rule
                .as_ref()
                .map_or(self.initial, |r| r.offset_at(utc)),
            None => self.initial,
        }
    }

    /// The UTC instant at which clocks in this zone read `local` (seconds
    /// since the epoch as a wall clock); in a gap or an overlap, one of the
    /// instants nearby.
    pub fn utc_of_local(&self, local: i64) -> i64 {
        let guess = local - i64::from(self.offset_at(local));
        local - i64::from(self.offset_at(guess))
    }

    /// The wall-clock seconds (since the epoch) in this zone at `utc`.
    pub fn local_of_utc(&self, utc: i64) -> i64 {
        utc + i64::from(self.offset_at(utc))
    }
}

/// A POSIX `TZ` rule: a standard offset and, optionally, daylight time
/// with its start and end.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    /// Standard time, seconds east of UTC.
    std: i32,
    /// Daylight time: its offset east and when it starts and ends.
    dst: Option<(i32, When, When)>,
}

/// A day of the year and a time of day (local, seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct When {
    day: Day,
    secs: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Day {
    /// `Jn`: day 1 to 365, February 29 never counted.
    Julian(u32),
    /// `n`: day 0 to 365, February 29 counted.
    Zero(u32),
    /// `Mm.w.d`: day `d` (0 Sunday) of week `w` (5: the last) of month `m`.
    Month(u32, u32, u32),
}

impl Rule {
    fn parse(text: &str) -> Option<Rule> {
        let mut s = Scan(text.as_bytes(), 0);
        s.name()?;
        let std = -s.offset()?;
        if s.done() {
            return Some(Rule { std, dst: None });
        }
        s.name()?;
        let dst_offset = if s.peek().is_some_and(|c| c != b',') {
            -s.offset()?
        } else {
            std + 3600
        };
        // No rule given: the US rule of 2007 (what POSIX leaves to the
        // implementation and glibc uses).
        let (start, end) = if s.eat(b',') {
            let start = s.when()?;
            if !s.eat(b',') {
                return None;
            }
            (start, s.when()?)
        } else {
            (
                When {
                    day: Day::Month(3, 2, 0),
                    secs: 7200,
                },
                When {
                    day: Day::Month(11, 1, 0),
                    secs: 7200,
                },
            )
        };
        s.done().then_some(Rule {
            std,
            dst: Some((dst_offset, start, end)),
        })
    }

    fn offset_at(&self, utc: i64) -> i32 {
        let Some((dst, start, end)) = self.dst else {
            return self.std;
        };
        let (year, _, _) = civil_from_days((utc + i64::from(self.std)).div_euclid(86_400));
        // Start is given in standard time, end in daylight time.
        let begins = start.local(year) - i64::from(self.std);
        let ends = end.local(year) - i64::from(dst);
        let in_dst = if begins < ends {
            begins <= utc && utc < ends
        } else {
            !(ends <= utc && utc < begins)
        };
        if in_dst {
            dst
        } else {
            self.std
        }
    }
}

impl When {
    /// Local seconds since the epoch of this moment in `year`.
    fn local(self, year: i64) -> i64 {
        let jan1 = days_from_civil(year, 1, 1);
        let day = match self.day {
            Day::Julian(n) => {
                let n = i64::from(n.clamp(1, 365)) - 1;
                jan1 + n + i64::from(is_leap(year) && n >= 59)
            }
            Day::Zero(n) => jan1 + i64::from(n.min(365)),
            Day::Month(m, w, d) => {
                let m = m.clamp(1, 12);
                let first = days_from_civil(year, m, 1);
                // 1970-01-01 was a Thursday (4).
                let dow = (first + 4).rem_euclid(7) as u32;
                let mut date = 1 + (d % 7 + 7 - dow) % 7 + (w.clamp(1, 5) - 1) * 7;
                while date > days_in_month(year, m) {
                    date -= 7;
                }
                first + i64::from(date) - 1
            }
        };
        day * 86_400 + self.secs
    }
}

/// A cursor over a POSIX `TZ` string.
struct Scan<'a>(&'a [u8], usize);

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.0.get(self.1).copied()
    }
    fn done(&self) -> bool {
        self.1 >= self.0.len()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.1 += 1;
            true
        } else {
            false
        }
    }
    /// A zone abbreviation: three or more letters, or `<…>`.
    fn name(&mut self) -> Option<()> {
        if self.eat(b'<') {
            while self.peek()? != b'>' {
                self.1 += 1;
            }
            self.1 += 1;
            return Some(());
        }
        let start = self.1;
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.1 += 1;
        }
        (self.1 - start >= 3).then_some(())
    }
    fn number(&mut self) -> Option<i64> {
        let start = self.1;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.1 += 1;
        }
        std::str::from_utf8(&self.0[start..self.1])
            .ok()?
            .parse()
            .ok()
    }
    /// `[+-]hh[:mm[:ss]]`, seconds west of UTC (POSIX's sign).
    fn offset(&mut self) -> Option<i32> {
        let sign = if self.eat(b'-') {
            -1
        } else {
            self.eat(b'+');
            1
        };
        let secs = self.hms()?;
        i32::try_from(sign * secs).ok()
    }
    fn hms(&mut self) -> Option<i64> {
        let mut secs = self.number()? * 3600;
        if self.eat(b':') {
            secs += self.number()? * 60;
            if self.eat(b':') {
                secs += self.number()?;
            }
        }
        Some(secs)
    }
    fn when(&mut self) -> Option<When> {
        let day = if self.eat(b'M') {
            let m = self.number()?;
            self.eat(b'.').then_some(())?;
            let w = self.number()?;
            self.eat(b'.').then_some(())?;
            let d = self.number()?;
            Day::Month(m as u32, w as u32, d as u32)
        } else if self.eat(b'J') {
            Day::Julian(self.number()? as u32)
        } else {
            Day::Zero(self.number()? as u32)
        };
        let secs = if self.eat(b'/') {
            let sign = if self.eat(b'-') { -1 } else { 1 };
            sign * self.hms()?
        } else {
            7200
        };
        Some(When { day, secs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for days in [-1000, 0, 59, 11_016, 20_000, 29_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(days_from_civil(2026, 4, 28)), (2026, 4, 28));
    }

    #[test]
    fn posix_rules_give_daylight_time() {
        let rule = Rule::parse("PST8PDT,M3.2.0,M11.1.0").expect("parses");
        assert_eq!(rule.std, -8 * 3600);
        // 2026-03-08 is the second Sunday of March: 02:00 PST = 10:00 UTC.
        let switch = days_from_civil(2026, 3, 8) * 86_400 + 10 * 3600;
        assert_eq!(rule.offset_at(switch - 1), -8 * 3600);
        assert_eq!(rule.offset_at(switch), -7 * 3600);
        // 2026-11-01, 02:00 PDT = 09:00 UTC.
        let back = days_from_civil(2026, 11, 1) * 86_400 + 9 * 3600;
        assert_eq!(rule.offset_at(back - 1), -7 * 3600);
        assert_eq!(rule.offset_at(back), -8 * 3600);
        // The southern hemisphere: daylight time spans the new year.
        let sydney = Rule::parse("AEST-10AEDT,M10.1.0,M4.1.0/3").expect("parses");
        let january = days_from_civil(2026, 1, 15) * 86_400;
        let july = days_from_civil(2026, 7, 15) * 86_400;
        assert_eq!(sydney.offset_at(january), 11 * 3600);
        assert_eq!(sydney.offset_at(july), 10 * 3600);
        assert_eq!(Rule::parse("<+03>-3").map(|r| r.std), Some(3 * 3600));
        assert_eq!(Rule::parse("UTC0").map(|r| r.std), Some(0));
        assert!(Rule::parse("nonsense,,").is_none());
    }

    #[test]
    fn names_are_plain_or_refused() {
        assert_eq!(Zone::named("UTC"), Some(Zone::utc()));
        assert!(Zone::named("../../etc/passwd").is_none());
        assert!(Zone::named("/etc/localtime").is_none());
        assert!(Zone::named("No/Such_Zone").is_none());
    }

    #[test]
    fn the_systems_zoneinfo_reads_when_it_is_there() {
        // Machines without tzdata skip this; the rule tests cover the logic.
        let Some(la) = Zone::named("America/Los_Angeles") else {
            return;
        };
        let january = days_from_civil(2026, 1, 15) * 86_400;
        let july = days_from_civil(2026, 7, 15) * 86_400;
        let far = days_from_civil(2090, 7, 15) * 86_400;
        assert_eq!(la.offset_at(january), -8 * 3600);
        assert_eq!(la.offset_at(july), -7 * 3600);
        assert_eq!(la.offset_at(far), -7 * 3600, "the footer rule");
        let seven_pm = days_from_civil(2026, 7, 15) * 86_400 + 19 * 3600;
        assert_eq!(la.utc_of_local(seven_pm), seven_pm + 7 * 3600);
        assert_eq!(la.local_of_utc(seven_pm + 7 * 3600), seven_pm);
    }
}
