//! The reason subsystem: failure fingerprints and stall detection (always
//! on, free), diagnosis of a stall by one reasoner call, and the lesson
//! library distilled from recoveries. Everything the reasoner produces is
//! advisory or subtractive: it can guide the agent, stop spending, or route
//! a criterion to heal, never mark a criterion passed or weaken a hint.

pub mod bundle;
pub mod challenge;
pub mod diagnosis;
pub mod extract;
pub mod fingerprint;
pub mod front_matter;
pub mod inject;
pub mod library;
pub mod surface;

/// Every reasoner prompt starts with this, so a log (or the stand-in) can
/// tell a reasoner call from an executor attempt.
pub const REASON_PREFIX: &str = "zurdo-reason:";
