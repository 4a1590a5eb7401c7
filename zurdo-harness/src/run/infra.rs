//! An attempt whose agent CLI could not work (`agent::failure`): it was
//! dropped, not counted. A rate limit is waited out when the wait is short
//! enough (then the same attempt runs again); anything else stops the run
//! with the cause, what to do, and exit 5, leaving the task `pending` for
//! the next `zurdo run`.

use std::time::{Duration, Instant, SystemTime};

use zurdo::Task;

use super::Run;
use crate::agent::failure::{FailureKind, InfraFailure};
use crate::error::{Error, ErrorKind};
use crate::event::Event;

/// The most rate-limit waits for one attempt: a CLI still limited after
/// them stops the run.
pub(super) const MAX_WAITS: u32 = 3;

/// The first wait when the CLI did not say when its limit resets; each
/// next one doubles, always within `[defaults] rate_limit_wait`.
pub(super) const BACKOFF: Duration = Duration::from_secs(30);

/// Waited past the reset the CLI gave, so its clock and ours need not agree
/// to the second.
const MARGIN: Duration = Duration::from_secs(1);

/// How often a wait says it is still waiting (off a terminal).
const EVERY: Duration = Duration::from_secs(60);

/// How long to wait before trying again after the `round`-th rate limit of
/// an attempt (0-based), given the cap: `Some((wait, known))`, or `None`
/// when the run must stop (the reset is past the cap, or waits ran out).
pub(super) fn rate_limit_wait(
    failure: &InfraFailure,
    round: u32,
    cap: Duration,
    now: SystemTime,
) -> Option<(Duration, bool)> {
    if failure.kind != FailureKind::RateLimited || round >= MAX_WAITS {
        return None;
    }
    match failure.retry_in(now) {
        Some(wait) => (wait <= cap).then_some((wait + MARGIN, true)),
        None => Some((BACKOFF.saturating_mul(1 << round).min(cap), false)),
    }
}

/// A duration as the config writes it: `15m`, `1h`, `90s`.
fn setting(d: Duration) -> String {
    match d.as_secs() {
        s if s > 0 && s % 3600 == 0 => format!("{}h", s / 3600),
        s if s > 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

impl Run {
    /// After an attempt whose agent CLI could not work: waits out a rate
    /// limit and returns true (the same attempt runs again), or sets the
    /// run's stop and returns false. `waits` counts this attempt's waits.
    pub(super) fn agent_unavailable(
        &mut self,
        task: &Task,
        attempt: u32,
        failure: &InfraFailure,
        waits: &mut u32,
    ) -> bool {
        let cap = self.ctx.config.rate_limit_wait;
        let now = SystemTime::now();
        if let Some((wait, known)) = rate_limit_wait(failure, *waits, cap, now) {
            *waits += 1;
            self.events.emit(Event::RateLimitWait {
                task: task.id.clone(),
                attempt,
                cli: failure.cli().to_string(),
                seconds: wait.as_secs(),
                until: zurdo_base::time::format(now + wait),
                known,
                round: *waits,
                rounds: MAX_WAITS,
            });
            // Ctrl-C ends the wait: the run stops as after any attempt.
            return self.wait_out(task, wait);
        }
        let mut message = failure.stop_message(&self.ctx.display);
        if failure.kind == FailureKind::RateLimited {
            let cap_text = format!("[defaults] rate_limit_wait is {}", setting(cap));
            message.push_str(&match failure.retry_in(now) {
                _ if *waits >= MAX_WAITS => {
                    format!("; it was still rate limited after {MAX_WAITS} waits")
                }
                Some(_) => format!("; that is a longer wait than zurdo makes ({cap_text})"),
                None => String::new(),
            });
        }
        self.stop = Some(Error::new(ErrorKind::Agent, message));
        false
    }

    /// Sleeps `wait` in short slices (Ctrl-C is seen at once), saying once
    /// a minute how long is left; false when a stop was asked for.
    fn wait_out(&self, task: &Task, wait: Duration) -> bool {
        let until = Instant::now() + wait;
        let mut next_note = Instant::now() + EVERY;
        loop {
            if self.interrupt.requested() {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            if now >= next_note {
                next_note += EVERY;
                self.events.emit(Event::StillWaiting {
                    task: task.id.clone(),
                    seconds_left: (until - now).as_secs(),
                });
            }
            std::thread::sleep((until - now).min(Duration::from_millis(200)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Provider;

    #[test]
    fn a_short_known_reset_is_waited_a_long_one_stops_and_unknown_ones_back_off() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let cap = Duration::from_secs(900);
        let limited = |at: Option<u64>| InfraFailure {
            retry_after: at.map(|s| now + Duration::from_secs(s)),
            ..InfraFailure::new(FailureKind::RateLimited, Provider::Anthropic, "limit")
        };
        assert_eq!(
            rate_limit_wait(&limited(Some(120)), 0, cap, now),
            Some((Duration::from_secs(121), true))
        );
        assert_eq!(rate_limit_wait(&limited(Some(901)), 0, cap, now), None);
        // A reset already past: try again a moment later.
        let past = InfraFailure {
            retry_after: Some(now - Duration::from_secs(5)),
            ..limited(None)
        };
        assert_eq!(rate_limit_wait(&past, 0, cap, now), Some((MARGIN, true)));
        let backoffs: Vec<_> = (0..4)
            .map(|round| rate_limit_wait(&limited(None), round, cap, now))
            .collect();
        assert_eq!(
            backoffs,
            [
                Some((Duration::from_secs(30), false)),
                Some((Duration::from_secs(60), false)),
                Some((Duration::from_secs(120), false)),
                None,
            ]
        );
        assert_eq!(
            rate_limit_wait(&limited(None), 2, Duration::from_secs(45), now),
            Some((Duration::from_secs(45), false)),
            "within the cap"
        );
        assert_eq!(setting(Duration::from_secs(900)), "15m");
        assert_eq!(setting(Duration::from_secs(7200)), "2h");
        assert_eq!(setting(Duration::from_secs(90)), "90s");
        for kind in [
            FailureKind::AuthFailed,
            FailureKind::QuotaExhausted,
            FailureKind::Network,
        ] {
            let f = InfraFailure::new(kind, Provider::OpenAi, "x");
            assert_eq!(rate_limit_wait(&f, 0, cap, now), None, "{kind:?} stops");
        }
    }
}
