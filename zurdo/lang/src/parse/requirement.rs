//! `### Requirements` entries: `- req-<id>: <text>`.

use std::sync::LazyLock;

use regex::Regex;

use crate::diagnostic::Diagnostic;
use crate::model::Requirement;

/// Requirement ids: `req-` then words joined by single hyphens (the same
/// reading of the spec's `^req-[a-z0-9-]+$` as task ids).
static REQ_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^req-[a-z0-9]+(-[a-z0-9]+)*$").expect("static regex"));

/// True when `id` is a well-formed requirement id.
pub(crate) fn is_req_id(id: &str) -> bool {
    REQ_ID.is_match(id)
}

/// Reads one entry's text (bullet removed).
pub(super) fn read(text: &str, line: usize, errors: &mut Vec<Diagnostic>) -> Option<Requirement> {
    let Some((id, body)) = text.split_once(':') else {
        errors.push(
            Diagnostic::new(
                line,
                format!("requirement `{text}` has no `req-<id>:` prefix"),
            )
            .with_fix("write `- req-<id>: <what the task must achieve>`"),
        );
        return None;
    };
    let id = id.trim();
    if !is_req_id(id) {
        errors.push(
            Diagnostic::new(
                line,
                format!("invalid requirement id `{id}`: ids match ^req-[a-z0-9-]+$ (lowercase letters, digits and single hyphens)"),
            )
            .with_fix("write e.g. `- req-auth-1: Tokens expire after 24 hours`"),
        );
        return None;
    }
    let body = body.trim();
    if body.is_empty() {
        errors.push(
            Diagnostic::new(line, format!("requirement `{id}` has no text"))
                .with_fix("say what it requires after the colon"),
        );
        return None;
    }
    Some(Requirement {
        id: id.to_string(),
        text: body.to_string(),
        line,
    })
}
