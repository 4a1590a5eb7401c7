//! The reason subsystem: failure fingerprints and stall detection (always
//! on, free), diagnosis of a stall by one reasoner call, the lesson library
//! distilled from recoveries and the `unaddressed-lesson` rule over it, and
//! the analyzer's prompts and replies for `zurdo analyze` ([`critique`]) and
//! `zurdo heal` ([`heal`]). Everything the reasoner produces is advisory or
//! subtractive: it can guide the agent, stop spending, or route a criterion
//! to heal, never mark a criterion passed or weaken a hint; what the
//! analyzer proposes is checked in code and written only when a person
//! accepts it.

pub mod bundle;
pub mod challenge;
pub mod critique;
pub mod diagnosis;
pub mod extract;
pub mod fingerprint;
pub mod front_matter;
pub mod heal;
pub mod inject;
pub mod library;
pub mod surface;
pub mod unaddressed;

/// Every reasoner and analyzer prompt starts with this, so a log (or the
/// stand-in) can tell a side call from an executor attempt.
pub const REASON_PREFIX: &str = "zurdo-reason:";
