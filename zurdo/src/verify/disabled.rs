//! Stand-ins for the checks whose cargo feature is off. The hints still
//! parse and validate (the language does not change with features); checking
//! one fails with [`Reason::NeedsFeature`], never a pass.

use super::outcome::{Evidence, Reason, Verdict};

/// The failing verdict for a hint of `kind` that `feature` checks.
fn needs(kind: &str, feature: &str) -> (Verdict, Evidence) {
    let reason = Reason::NeedsFeature {
        kind: kind.to_string(),
        feature: feature.to_string(),
    };
    (Verdict::Fail(reason), Evidence::default())
}

/// `[symbol:]`, `[references:]` and `[callers:]` without the `lumen` feature.
#[cfg(not(feature = "lumen"))]
pub(crate) mod structural {
    use std::path::Path;

    use super::super::outcome::{Evidence, Verdict};
    use crate::hint::Check;

    /// No index to share: nothing is loaded without the `lumen` feature.
    #[derive(Debug, Clone, Default)]
    pub struct Shared;

    /// Fails with [`super::Reason::NeedsFeature`] naming `lumen`.
    pub fn check(_root: &Path, _shared: &Shared, check: &Check) -> (Verdict, Evidence) {
        super::needs(check.kind(), "lumen")
    }
}

/// `[http:]` without the `http` feature.
#[cfg(not(feature = "http"))]
pub(crate) mod http {
    use std::time::Duration;

    use zurdo_lang::hint::HttpCheck;

    use super::super::outcome::{Evidence, Verdict};

    /// Fails with [`super::Reason::NeedsFeature`] naming `http`; no request
    /// is sent.
    pub(crate) fn check(
        _check: &HttpCheck,
        _timeout: Duration,
        _read_limit: u64,
    ) -> (Verdict, Evidence) {
        super::needs("http", "http")
    }
}
