//! `# PRD: <title>` and `## Task: <id> — <title>` headings.

use std::sync::LazyLock;

use regex::Regex;

use crate::diagnostic::Diagnostic;

/// Task ids: `task-` then lowercase/digit words joined by single hyphens.
///
/// The spec prints `^task-[a-z0-9-]+$` and also says `task--` fails; both
/// hold only if hyphens separate non-empty words, so that is the rule.
static TASK_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^task-[a-z0-9]+(-[a-z0-9]+)*$").expect("static regex"));

/// The heading's text: the source line without the `#` marks.
pub(super) fn heading_text(line: &str) -> &str {
    let line = line.trim_end_matches(['\r', '\n']).trim();
    let text = line.trim_start_matches('#');
    // An ATX heading may end with a closing run of `#`s after a space.
    let text = match text.trim_end().rsplit_once(' ') {
        Some((head, tail)) if !tail.is_empty() && tail.chars().all(|c| c == '#') => head,
        _ => text,
    };
    text.trim()
}

/// The H1 title without a leading `PRD:`.
pub(super) fn title_text(text: &str) -> &str {
    text.strip_prefix("PRD:").unwrap_or(text).trim()
}

/// A task heading as far as it could be read.
pub(super) struct TaskHeading {
    /// The id, when the heading is shaped well enough to have one.
    pub id: Option<String>,
    /// The title after the separator (possibly empty on error).
    pub title: String,
}

const SHAPE: &str = "write `## Task: <id> — <title>`, e.g. `## Task: task-1 — Add the greeter`";

/// True when an H2's text is meant as a task heading.
pub(super) fn is_task_heading(text: &str) -> bool {
    text.get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("task:") || p.eq_ignore_ascii_case("task "))
}

/// Reads `Task: <id> — <title>`, pushing one error per problem.
pub(super) fn task_heading(text: &str, line: usize, errors: &mut Vec<Diagnostic>) -> TaskHeading {
    let Some(rest) = text.strip_prefix("Task:") else {
        errors.push(
            Diagnostic::new(
                line,
                format!("task heading `## {text}` must start with `Task:`"),
            )
            .with_fix(SHAPE),
        );
        return TaskHeading {
            id: None,
            title: String::new(),
        };
    };
    let rest = rest.trim_start();
    let (id_token, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let after = after.trim_start();

    // `task-1—Title`: an em-dash glued to the id.
    if let Some((id, title)) = id_token.split_once('\u{2014}') {
        errors.push(
            Diagnostic::new(
                line,
                "task heading needs a space on each side of the em-dash (U+2014)",
            )
            .with_fix(format!("write `## Task: {id} — {}`", join(title, after))),
        );
        return TaskHeading {
            id: check_id(id, line, errors),
            title: join(title, after),
        };
    }

    let (separator, title) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
    let title = title.trim().to_string();
    let id = check_id(id_token, line, errors);
    match separator {
        "\u{2014}" => {}
        "-" | "--" | "---" => errors.push(
            Diagnostic::new(
                line,
                "task heading uses hyphen-minus (U+002D) where an em-dash (U+2014) is required",
            )
            .with_fix(format!(
                "write `## Task: {id_token} — {title}` (the em-dash is U+2014)"
            )),
        ),
        "\u{2013}" => errors.push(
            Diagnostic::new(
                line,
                "task heading uses en-dash (U+2013) where an em-dash (U+2014) is required",
            )
            .with_fix(format!(
                "write `## Task: {id_token} — {title}` (the em-dash is U+2014)"
            )),
        ),
        "" => {
            errors.push(
                Diagnostic::new(line, "task heading has no ` — <title>` after the id")
                    .with_fix(SHAPE),
            );
            return TaskHeading { id, title };
        }
        other => {
            errors.push(
                Diagnostic::new(line, format!("task heading has `{other}` where ` — ` (em-dash, U+2014) must separate id and title"))
                    .with_fix(SHAPE),
            );
            return TaskHeading { id, title };
        }
    }
    if title.is_empty() {
        errors.push(
            Diagnostic::new(line, "task heading has an empty title after the em-dash")
                .with_fix(SHAPE),
        );
    }
    TaskHeading { id, title }
}

fn join(a: &str, b: &str) -> String {
    format!("{} {}", a.trim(), b.trim()).trim().to_string()
}

fn check_id(id: &str, line: usize, errors: &mut Vec<Diagnostic>) -> Option<String> {
    if TASK_ID.is_match(id) {
        return Some(id.to_string());
    }
    let message = if id.is_empty() {
        "task heading has no id after `Task:`".to_string()
    } else {
        format!("invalid task id `{id}`: ids match ^task-[a-z0-9-]+$ (lowercase letters, digits and single hyphens, `task-` prefix)")
    };
    let diagnostic = Diagnostic::new(line, message);
    errors.push(match suggest_id(id) {
        Some(s) => diagnostic.with_fix(format!("rename it `{s}`")),
        None => diagnostic.with_fix(SHAPE),
    });
    None
}

/// A valid id close to what was written, if one is obvious.
fn suggest_id(id: &str) -> Option<String> {
    let mut s: String = id
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s = s.trim_matches('-');
    let s = if s.starts_with("task-") {
        s.to_string()
    } else {
        format!("task-{s}")
    };
    (TASK_ID.is_match(&s)).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Option<String>, Vec<String>) {
        let mut errors = Vec::new();
        let h = task_heading(text, 7, &mut errors);
        (h.id, errors.into_iter().map(|e| e.message).collect())
    }

    #[test]
    fn spec_ids_parse() {
        for id in ["task-1", "task-auth-rotate", "task-3a"] {
            let (got, errors) = read(&format!("Task: {id} — Title"));
            assert_eq!(got.as_deref(), Some(id));
            assert!(errors.is_empty(), "{errors:?}");
        }
    }

    #[test]
    fn spec_bad_ids_fail() {
        for id in [
            "Task-1",
            "auth_rotate",
            "task--",
            "task-",
            "task-a--b",
            "task-a-",
        ] {
            let (got, errors) = read(&format!("Task: {id} — Title"));
            assert_eq!(got, None, "{id}");
            assert!(errors[0].starts_with("invalid task id"), "{id}: {errors:?}");
        }
    }

    #[test]
    fn suggests_a_valid_id() {
        assert_eq!(suggest_id("Task-1").as_deref(), Some("task-1"));
        assert_eq!(
            suggest_id("auth_rotate").as_deref(),
            Some("task-auth-rotate")
        );
        assert_eq!(suggest_id("--"), None);
    }

    #[test]
    fn hyphen_and_en_dash_get_their_own_messages() {
        let (_, e) = read("Task: task-1 - Title");
        assert_eq!(
            e,
            ["task heading uses hyphen-minus (U+002D) where an em-dash (U+2014) is required"]
        );
        let (_, e) = read("Task: task-1 – Title");
        assert_eq!(
            e,
            ["task heading uses en-dash (U+2013) where an em-dash (U+2014) is required"]
        );
    }

    #[test]
    fn glued_em_dash_and_missing_title_are_errors() {
        let (id, e) = read("Task: task-1—Title");
        assert_eq!(id.as_deref(), Some("task-1"));
        assert!(e[0].contains("space on each side"));
        let (_, e) = read("Task: task-1 —");
        assert!(e[0].contains("empty title"), "{e:?}");
        let (_, e) = read("Task: task-1");
        assert!(e[0].contains("no ` — <title>`"), "{e:?}");
    }

    #[test]
    fn heading_text_strips_marks_and_closing_hashes() {
        assert_eq!(
            heading_text("## Task: task-1 — Hi ##\n"),
            "Task: task-1 — Hi"
        );
        assert_eq!(heading_text("# PRD: x"), "PRD: x");
        assert_eq!(title_text("PRD: Greeter"), "Greeter");
    }
}
