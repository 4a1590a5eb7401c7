//! The `**Key**: value` block under a task heading.

use crate::diagnostic::Diagnostic;
use crate::limits;
use crate::model::{AgentTimeout, Metadata, MetadataLines};
use crate::money::{self, Usd, UsdError};
use crate::paths;
use crate::suggest::closest;

/// The closed set of metadata keys, in the spec's order.
pub const KEYS: [&str; 8] = [
    "Effort",
    "Depends-on",
    "Max-Attempts",
    "Max-Cost",
    "Skills",
    "Agent-timeout",
    "Category",
    "Frozen",
];

/// True when a line is shaped like a metadata line (`**Key**:` or
/// `**Key:**`, possibly indented), used to spot metadata where it does not
/// belong.
pub(super) fn looks_like_metadata(line: &str) -> bool {
    let t = line.trim_start();
    let Some(rest) = t.strip_prefix("**") else {
        return false;
    };
    match rest.find("**") {
        Some(end) => {
            let key = &rest[..end];
            let key = key.strip_suffix(':').unwrap_or(key);
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                && (rest[end..].starts_with("**:") || rest[..end].ends_with(':'))
        }
        None => false,
    }
}

/// Strips a trailing `# remark` (a `#` preceded by whitespace), as in the
/// spec's tour: `**Max-Attempts**: 5          # optional`.
fn strip_remark(value: &str) -> &str {
    let bytes = value.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && i > 0 && (bytes[i - 1] == b' ' || bytes[i - 1] == b'\t') {
            return value[..i].trim();
        }
    }
    value.trim()
}

/// Builds [`Metadata`] from the raw lines of the block, pushing errors.
/// `heading_line` is where the task heading is, for missing-key errors.
pub(super) fn read<'a>(
    lines: impl Iterator<Item = (usize, &'a str)>,
    heading_line: usize,
    errors: &mut Vec<Diagnostic>,
) -> Metadata {
    let mut meta = Metadata::default();
    for (line, raw) in lines {
        let raw = raw.trim_end_matches('\r');
        if raw.trim().is_empty() {
            continue;
        }
        let Some((key, value)) = split_line(raw, line, errors) else {
            continue;
        };
        let value = strip_remark(value);
        let Some(slot) = key_slot(&mut meta.lines, key) else {
            let diagnostic = Diagnostic::new(
                line,
                format!(
                    "unknown metadata key `{key}`; the keys are {}",
                    KEYS.join(", ")
                ),
            );
            let guess = KEYS
                .iter()
                .find(|k| k.eq_ignore_ascii_case(key))
                .copied()
                .or_else(|| closest(key, KEYS.iter().copied()));
            errors.push(match guess {
                Some(k) => {
                    diagnostic.with_fix(format!("did you mean **{k}**? (keys are case-sensitive)"))
                }
                None => diagnostic,
            });
            continue;
        };
        if *slot != 0 {
            errors.push(
                Diagnostic::new(
                    line,
                    format!("duplicate **{key}** (first at line {})", *slot),
                )
                .with_fix("keep one"),
            );
            continue;
        }
        *slot = line;
        if value.is_empty() {
            errors.push(
                Diagnostic::new(line, format!("**{key}** has no value"))
                    .with_fix(format!("write `{}`", example(key))),
            );
            continue;
        }
        apply(&mut meta, key, value, line, errors);
    }
    for (key, at) in [
        ("Effort", meta.lines.effort),
        ("Depends-on", meta.lines.depends_on),
    ] {
        if at == 0 {
            errors.push(
                Diagnostic::new(
                    heading_line,
                    format!("task is missing the required **{key}** metadata"),
                )
                .with_fix(format!(
                    "add `{}` to the block under the heading",
                    example(key)
                )),
            );
        }
    }
    meta
}

fn example(key: &str) -> &'static str {
    match key {
        "Effort" => "**Effort**: medium",
        "Depends-on" => "**Depends-on**: []",
        "Max-Attempts" => "**Max-Attempts**: 5",
        "Max-Cost" => "**Max-Cost**: $2.50",
        "Skills" => "**Skills**: rust-style, testing",
        "Agent-timeout" => "**Agent-timeout**: 30m",
        "Category" => "**Category**: Backend",
        _ => "**Frozen**: docs/adr/*.md",
    }
}

/// Splits `**Key**: value`, reporting the common near-misses.
fn split_line<'a>(
    raw: &'a str,
    line: usize,
    errors: &mut Vec<Diagnostic>,
) -> Option<(&'a str, &'a str)> {
    if raw.starts_with([' ', '\t']) {
        errors.push(
            Diagnostic::new(line, "metadata line has leading whitespace")
                .with_fix("start the line with `**` (no indentation)"),
        );
        return None;
    }
    if let Some(rest) = raw.strip_prefix("**") {
        if let Some(end) = rest.find("**") {
            let key = &rest[..end];
            let after = &rest[end + 2..];
            if let Some(value) = after.strip_prefix(':') {
                return Some((key, value));
            }
            if let Some(bare) = key.strip_suffix(':') {
                errors.push(
                    Diagnostic::new(
                        line,
                        format!("metadata key `**{key}**` has its colon inside the bold"),
                    )
                    .with_fix(format!("write `**{bare}**:{after}`")),
                );
                return None;
            }
        }
    } else if let Some((key, value)) = raw.split_once(':') {
        let key = key.trim().trim_matches(['_', '*']);
        if KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) {
            errors.push(
                Diagnostic::new(line, format!("metadata key `{key}` must be bold-wrapped"))
                    .with_fix(format!("write `**{key}**: {}`", value.trim())),
            );
            return None;
        }
    }
    errors.push(
        Diagnostic::new(line, format!("`{}` is not a metadata line", raw.trim()))
            .with_fix("metadata lines are `**Key**: value`; put prose under ### Description"),
    );
    None
}

fn key_slot<'a>(lines: &'a mut MetadataLines, key: &str) -> Option<&'a mut usize> {
    Some(match key {
        "Effort" => &mut lines.effort,
        "Depends-on" => &mut lines.depends_on,
        "Max-Attempts" => &mut lines.max_attempts,
        "Max-Cost" => &mut lines.max_cost,
        "Skills" => &mut lines.skills,
        "Agent-timeout" => &mut lines.agent_timeout,
        "Category" => &mut lines.category,
        "Frozen" => &mut lines.frozen,
        _ => return None,
    })
}

fn apply(meta: &mut Metadata, key: &str, value: &str, line: usize, errors: &mut Vec<Diagnostic>) {
    let shape = |message: String| (message, format!("write `{}`", example(key)));
    let result = match key {
        "Effort" => {
            meta.effort = value.to_string();
            Ok(())
        }
        "Depends-on" => depends_on(value)
            .map(|ids| meta.depends_on = ids)
            .map_err(shape),
        "Max-Attempts" => max_attempts(value).map(|n| meta.max_attempts = Some(n)),
        "Max-Cost" => max_cost(value).map(|usd| meta.max_cost = Some(usd)),
        "Agent-timeout" => duration(value).map(|t| meta.agent_timeout = Some(t)),
        "Category" => {
            meta.category = Some(value.to_string());
            Ok(())
        }
        "Skills" => skills(value).map(|s| meta.skills = s).map_err(shape),
        _ => frozen(value).map(|g| meta.frozen = g).map_err(shape),
    };
    if let Err((message, fix)) = result {
        errors.push(Diagnostic::new(line, message).with_fix(fix));
    }
}

/// A positive integer, at most [`limits::MAX_ATTEMPTS`].
fn max_attempts(value: &str) -> Result<u32, (String, String)> {
    let max = limits::MAX_ATTEMPTS;
    let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    if !digits || value.bytes().all(|b| b == b'0') {
        return Err((
            format!("**Max-Attempts** `{value}` is not a positive integer"),
            format!("write `{}`", example("Max-Attempts")),
        ));
    }
    match value.parse::<u32>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err((
            format!(
                "**Max-Attempts** `{value}` is more than {max}, the most attempts a task may have"
            ),
            format!("write `**Max-Attempts**: {max}` or less"),
        )),
    }
}

/// `$2.50`: a positive amount of US dollars, at most [`money::MAX_USD`].
fn max_cost(value: &str) -> Result<Usd, (String, String)> {
    money::parse_usd(value).map_err(|e| {
        let fix = match e {
            UsdError::TooLarge => format!("write `**Max-Cost**: {}` or less", money::MAX_USD),
            UsdError::TooPrecise => "round it to at most 6 decimal places".to_string(),
            _ => format!("write `{}`", example("Max-Cost")),
        };
        (e.message("**Max-Cost**", value), fix)
    })
}

/// `[task-1, task-2]`, `[]`; entries may be quoted as in YAML.
fn depends_on(value: &str) -> Result<Vec<String>, String> {
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .ok_or_else(|| {
            format!(
                "**Depends-on** `{value}` is not a YAML-style array like [task-1, task-2] or []"
            )
        })?;
    if inner.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut ids: Vec<String> = Vec::new();
    for entry in inner.split(',') {
        let entry = entry.trim();
        let unquoted = entry
            .strip_prefix('"')
            .and_then(|e| e.strip_suffix('"'))
            .or_else(|| entry.strip_prefix('\'').and_then(|e| e.strip_suffix('\'')))
            .unwrap_or(entry);
        if unquoted.is_empty() {
            return Err(format!("**Depends-on** `{value}` has an empty entry"));
        }
        if ids.iter().any(|i| i == unquoted) {
            return Err(format!("**Depends-on** lists `{unquoted}` twice"));
        }
        ids.push(unquoted.to_string());
    }
    Ok(ids)
}

/// `30s`, `15m`, `1h`: a positive integer and an explicit unit, at most
/// [`limits::MAX_DURATION_SECONDS`].
fn duration(value: &str) -> Result<AgentTimeout, (String, String)> {
    limits::parse_duration(value)
        .map(|seconds| AgentTimeout { seconds })
        .map_err(|e| {
            let fix = match e {
                limits::DurationError::TooLong => format!(
                    "write `**Agent-timeout**: {}` or less",
                    limits::max_in_unit(value)
                ),
                _ => format!("write `{}`", example("Agent-timeout")),
            };
            (e.message("**Agent-timeout**", value), fix)
        })
}

fn skills(value: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for name in value.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(format!("**Skills** `{value}` has an empty entry"));
        }
        if name.starts_with(['/', '$']) {
            return Err(format!(
                "skill `{name}` has a prefix; list bare names (zurdo adds `/` or `$` for the provider)"
            ));
        }
        if name.contains(char::is_whitespace) {
            return Err(format!(
                "skill `{name}` contains whitespace; separate skills with commas"
            ));
        }
        out.push(name.to_string());
    }
    Ok(out)
}

fn frozen(value: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for glob in value.split(',').map(str::trim) {
        if glob.is_empty() {
            return Err(format!("**Frozen** `{value}` has an empty entry"));
        }
        let path = paths::frozen_glob(glob).map_err(|e| format!("**Frozen** {e}"))?;
        out.push(path.as_str().to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(text: &str) -> (Metadata, Vec<String>) {
        let mut errors = Vec::new();
        let m = read(
            text.lines().enumerate().map(|(i, l)| (i + 2, l)),
            1,
            &mut errors,
        );
        (m, errors.into_iter().map(|e| e.message).collect())
    }

    #[test]
    fn reads_all_eight_keys_with_remarks() {
        let (m, e) = meta(
            "**Effort**: medium\n**Depends-on**: [task-1, \"task-2\"]\n**Max-Attempts**: 5          # optional\n\
             **Max-Cost**: $2.50  # optional\n**Skills**: rust-style       # optional, comma-separated\n**Agent-timeout**: 30m       # units\n\
             **Category**: Backend        # optional\n**Frozen**: docs/adr/*.md    # optional",
        );
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(m.effort, "medium");
        assert_eq!(m.depends_on, ["task-1", "task-2"]);
        assert_eq!(m.max_attempts, Some(5));
        assert_eq!(m.skills, ["rust-style"]);
        assert_eq!(m.agent_timeout, Some(AgentTimeout { seconds: 1800 }));
        assert_eq!(m.category.as_deref(), Some("Backend"));
        assert_eq!(m.frozen, ["docs/adr/*.md"]);
        assert_eq!(m.max_cost, Some(Usd(2_500_000)));
        assert_eq!(m.lines.max_cost, 5);
        assert_eq!(m.lines.frozen, 9);
    }

    #[test]
    fn required_keys_are_required() {
        let (_, e) = meta("**Category**: x");
        assert_eq!(e.len(), 2);
        assert!(e[0].contains("**Effort**") && e[1].contains("**Depends-on**"));
    }

    #[test]
    fn bad_values_are_rejected() {
        let cases = [
            ("**Max-Attempts**: 0", "not a positive integer"),
            ("**Max-Attempts**: three", "not a positive integer"),
            (
                "**Max-Cost**: cheap",
                "not an amount of US dollars like $2.50",
            ),
            ("**Max-Cost**: -1", "not an amount of US dollars"),
            ("**Max-Cost**: $0", "not a positive amount"),
            ("**Max-Cost**: 0.0000001", "more than 6 decimal places"),
            ("**Max-Cost**: $2000000", "more than $1000000.00"),
            ("**Agent-timeout**: 30", "has no unit"),
            ("**Agent-timeout**: 30d", "not a duration"),
            ("**Agent-timeout**: 0s", "not a positive duration"),
            ("**Depends-on**: task-1", "YAML-style array"),
            ("**Depends-on**: [task-1, task-1]", "twice"),
            ("**Depends-on**: [task-1,]", "empty entry"),
            ("**Skills**: /rust-style", "bare names"),
            ("**Skills**: a,,b", "empty entry"),
            ("**Frozen**: !docs/*.md", "negation"),
            ("**Frozen**: ../x", "leaves the repository"),
            ("**Frozen**: src/[a", "invalid"),
            ("**Effort**:", "has no value"),
            ("**Owner**: me", "unknown metadata key `Owner`"),
            ("**effort**: low", "unknown metadata key `effort`"),
            ("**Effort:** low", "colon inside the bold"),
            ("Effort: low", "must be bold-wrapped"),
            (" **Effort**: low", "leading whitespace"),
            ("Some prose here", "is not a metadata line"),
        ];
        for (line, expected) in cases {
            let (_, e) = meta(line);
            assert!(e.iter().any(|m| m.contains(expected)), "{line}: {e:?}");
        }
    }

    #[test]
    fn duplicate_key_names_the_first() {
        let (_, e) = meta("**Effort**: low\n**Depends-on**: []\n**Effort**: high");
        assert_eq!(e, ["duplicate **Effort** (first at line 2)"]);
    }

    #[test]
    fn spots_metadata_shaped_lines() {
        assert!(looks_like_metadata("**Effort**: low"));
        assert!(looks_like_metadata("  **Effort:** low"));
        assert!(!looks_like_metadata("**bold** text: here"));
        assert!(!looks_like_metadata("plain"));
    }
}
