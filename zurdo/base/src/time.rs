//! Timestamps.

/// Now, as RFC 3339 UTC with seconds (`2026-11-30T09:58:00Z`).
pub fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// An RFC 3339 timestamp read back (`None` when it does not parse).
pub fn parse(text: &str) -> Option<std::time::SystemTime> {
    humantime::parse_rfc3339(text).ok()
}

/// `at` as RFC 3339 UTC with seconds.
pub fn format(at: std::time::SystemTime) -> String {
    humantime::format_rfc3339_seconds(at).to_string()
}

/// Now, made safe for a file name (`2026-11-30T09-58-00Z`).
pub fn now_for_file_name() -> String {
    now().replace(':', "-")
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_seconds_in_utc() {
        let now = super::now();
        assert_eq!(now.len(), 20, "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
        assert!(!super::now_for_file_name().contains(':'));
        assert!(super::parse(&now).is_some() && super::parse("yesterday").is_none());
    }
}
