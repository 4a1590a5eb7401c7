//! Amounts of US dollars as a PRD and the config write them: a task's
//! `**Max-Cost**` and the `[budget]` limits. Held as whole micro-dollars
//! (millionths of a dollar), so amounts compare exactly and a model that
//! holds one stays `Eq`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest amount zurdo accepts: $1,000,000.
pub const MAX_USD: Usd = Usd(1_000_000 * MICROS);

/// Micro-dollars in a dollar.
const MICROS: u64 = 1_000_000;

/// The most decimal places an amount may be written with.
pub const MAX_DECIMALS: usize = 6;

/// An amount of US dollars, in micro-dollars. Serialized as a number of
/// dollars (`2.5`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Usd(pub u64);

impl Serialize for Usd {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.dollars())
    }
}

impl<'de> Deserialize<'de> for Usd {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Usd, D::Error> {
        let dollars = f64::deserialize(deserializer)?;
        Usd::from_dollars(dollars).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{dollars} is not an amount of US dollars from 0 to {}",
                MAX_USD.show()
            ))
        })
    }
}

impl Usd {
    /// The amount in dollars.
    pub fn dollars(self) -> f64 {
        self.0 as f64 / MICROS as f64
    }

    /// `dollars` as an amount, rounded to the micro-dollar; `None` for a
    /// negative, infinite or NaN amount or one above [`MAX_USD`].
    pub fn from_dollars(dollars: f64) -> Option<Usd> {
        if !dollars.is_finite() || dollars < 0.0 || dollars > MAX_USD.dollars() {
            return None;
        }
        Some(Usd((dollars * MICROS as f64).round() as u64))
    }

    /// The amount as people write it: `$2.50`, `$0.0125` (two decimals at
    /// least, more only when they are not zero).
    pub fn show(self) -> String {
        let whole = self.0 / MICROS;
        let fraction = format!("{:06}", self.0 % MICROS);
        let kept = fraction.trim_end_matches('0');
        let kept = if kept.len() < 2 { &fraction[..2] } else { kept };
        format!("${whole}.{kept}")
    }
}

impl std::fmt::Display for Usd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.show())
    }
}

/// Why an amount was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsdError {
    /// Not a decimal number of dollars (`abc`, `1,5`, `-2`, `$`).
    NotAnAmount,
    /// More than [`MAX_DECIMALS`] decimal places.
    TooPrecise,
    /// Zero.
    Zero,
    /// More than [`MAX_USD`].
    TooLarge,
}

impl UsdError {
    /// What is wrong with `value` written as `what` (`**Max-Cost**`).
    pub fn message(self, what: &str, value: &str) -> String {
        match self {
            UsdError::NotAnAmount => {
                format!("{what} `{value}` is not an amount of US dollars like $2.50")
            }
            UsdError::TooPrecise => format!(
                "{what} `{value}` has more than {MAX_DECIMALS} decimal places (a micro-dollar is the smallest amount)"
            ),
            UsdError::Zero => format!("{what} `{value}` is not a positive amount like $2.50"),
            UsdError::TooLarge => format!(
                "{what} `{value}` is more than {}, the most zurdo accepts",
                MAX_USD.show()
            ),
        }
    }
}

/// Reads `$2.50`, `2.50`, `3` or `0.005` (a positive decimal number of US
/// dollars with an optional leading `$` and at most [`MAX_DECIMALS`]
/// decimal places), at most [`MAX_USD`].
pub fn parse_usd(value: &str) -> Result<Usd, UsdError> {
    let number = value.strip_prefix('$').unwrap_or(value);
    let (whole, fraction) = match number.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (number, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || fraction.is_some_and(|f| !digits(f)) {
        return Err(UsdError::NotAnAmount);
    }
    let fraction = fraction.unwrap_or("");
    if fraction.len() > MAX_DECIMALS {
        return Err(UsdError::TooPrecise);
    }
    // More digits than a u64 holds is too large, not malformed.
    let whole: u64 = match whole.trim_start_matches('0') {
        "" => 0,
        w if w.len() > 7 => return Err(UsdError::TooLarge),
        w => w.parse().map_err(|_| UsdError::TooLarge)?,
    };
    let mut micros_text = fraction.to_string();
    while micros_text.len() < MAX_DECIMALS {
        micros_text.push('0');
    }
    let micros: u64 = micros_text.parse().map_err(|_| UsdError::NotAnAmount)?;
    let amount = whole
        .checked_mul(MICROS)
        .and_then(|w| w.checked_add(micros))
        .ok_or(UsdError::TooLarge)?;
    if amount == 0 {
        return Err(UsdError::Zero);
    }
    if amount > MAX_USD.0 {
        return Err(UsdError::TooLarge);
    }
    Ok(Usd(amount))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_written() {
        assert_eq!(parse_usd("$2.50"), Ok(Usd(2_500_000)));
        assert_eq!(parse_usd("2.5"), Ok(Usd(2_500_000)));
        assert_eq!(parse_usd("3"), Ok(Usd(3_000_000)));
        assert_eq!(parse_usd("0.000001"), Ok(Usd(1)));
        assert_eq!(parse_usd("$1000000"), Ok(MAX_USD));
        assert_eq!(parse_usd("007.10"), Ok(Usd(7_100_000)));
    }

    #[test]
    fn bad_amounts_say_why() {
        for bad in [
            "", "$", "abc", "-2", "1,5", "2.", ".5", "$ 2", "2 USD", "1e3", "$$2",
        ] {
            assert_eq!(parse_usd(bad), Err(UsdError::NotAnAmount), "{bad}");
        }
        assert_eq!(parse_usd("0.0000001"), Err(UsdError::TooPrecise));
        assert_eq!(parse_usd("0"), Err(UsdError::Zero));
        assert_eq!(parse_usd("$0.00"), Err(UsdError::Zero));
        assert_eq!(parse_usd("1000000.01"), Err(UsdError::TooLarge));
        assert_eq!(
            parse_usd("99999999999999999999999"),
            Err(UsdError::TooLarge)
        );
    }

    #[test]
    fn amounts_show_with_two_decimals_or_more() {
        assert_eq!(Usd(2_500_000).show(), "$2.50");
        assert_eq!(Usd(12_500).show(), "$0.0125");
        assert_eq!(Usd(0).show(), "$0.00");
        assert_eq!(Usd(1).show(), "$0.000001");
        assert_eq!(Usd::from_dollars(0.0181), Some(Usd(18_100)));
        assert_eq!(Usd::from_dollars(-1.0), None);
        assert_eq!(Usd::from_dollars(f64::NAN), None);
        assert_eq!(Usd::from_dollars(2e6), None);
    }
}
