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
    /// The id as written, when it is invalid: its error waits for the whole
    /// PRD to be read, so the rename it suggests is one no task has.
    pub bad_id: Option<BadId>,
}

/// An invalid task id, its error still without a fix.
pub(super) struct BadId {
    /// The error, naming what is wrong.
    pub diagnostic: Diagnostic,
    /// The id as written (may be empty).
    pub written: String,
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
            bad_id: None,
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
        let (id, bad_id) = check_id(id, line);
        return TaskHeading {
            id,
            title: join(title, after),
            bad_id,
        };
    }

    let (separator, title) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
    let title = title.trim().to_string();
    let (id, bad_id) = check_id(id_token, line);
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
            return TaskHeading { id, title, bad_id };
        }
        other => {
            errors.push(
                Diagnostic::new(line, format!("task heading has `{other}` where ` — ` (em-dash, U+2014) must separate id and title"))
                    .with_fix(SHAPE),
            );
            return TaskHeading { id, title, bad_id };
        }
    }
    if title.is_empty() {
        errors.push(
            Diagnostic::new(line, "task heading has an empty title after the em-dash")
                .with_fix(SHAPE),
        );
    }
    TaskHeading { id, title, bad_id }
}

fn join(a: &str, b: &str) -> String {
    format!("{} {}", a.trim(), b.trim()).trim().to_string()
}

fn check_id(id: &str, line: usize) -> (Option<String>, Option<BadId>) {
    if TASK_ID.is_match(id) {
        return (Some(id.to_string()), None);
    }
    let message = if id.is_empty() {
        "task heading has no id after `Task:`".to_string()
    } else {
        format!(
            "invalid task id `{id}`: {}; ids match ^task-[a-z0-9-]+$ (lowercase letters, digits and single hyphens, `task-` prefix)",
            id_problem(id)
        )
    };
    let bad = BadId {
        diagnostic: Diagnostic::new(line, message),
        written: id.to_string(),
    };
    (None, Some(bad))
}

/// What is wrong with an id that is not valid, first thing first.
fn id_problem(id: &str) -> String {
    if let Some(c) = id.chars().find(|c| !c.is_ascii()) {
        return format!("`{c}` is not an ASCII letter or digit");
    }
    if id.chars().any(|c| c.is_ascii_uppercase()) {
        return "it has upper-case letters".to_string();
    }
    if let Some(c) = id
        .chars()
        .find(|&c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
    {
        return format!("`{c}` is not allowed");
    }
    if !id.starts_with("task-") {
        return "it does not start with `task-`".to_string();
    }
    if id == "task-" {
        return "nothing follows `task-`".to_string();
    }
    if id.contains("--") {
        return "it has two hyphens in a row".to_string();
    }
    "it ends with a hyphen".to_string()
}

/// Completes the error of an invalid id with a rename no task in the PRD
/// has taken (`taken` holds every id in use; the rename is added to it).
/// `ordinal` is the heading's position among task headings, for an id with
/// nothing usable in it (`task-3`).
pub(super) fn rename_fix(
    bad: BadId,
    ordinal: usize,
    title: &str,
    taken: &mut std::collections::HashSet<String>,
) -> Diagnostic {
    let base = suggest_id(&bad.written).unwrap_or_else(|| format!("task-{ordinal}"));
    let mut id = base.clone();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    taken.insert(id.clone());
    let fix = if bad.written.is_empty() {
        let title = if title.is_empty() { "<title>" } else { title };
        format!("write `## Task: {id} — {title}`")
    } else {
        format!("rename it `{id}`")
    };
    bad.diagnostic.with_fix(fix)
}

/// A valid id close to what was written: lower case, accents dropped from
/// Latin letters, anything else a hyphen, `task-` in front. `None` when
/// nothing usable is left (`task-任务`, `--`).
fn suggest_id(id: &str) -> Option<String> {
    let mut s = String::with_capacity(id.len());
    for c in id.to_lowercase().chars() {
        match c {
            'a'..='z' | '0'..='9' => s.push(c),
            _ => match ascii_letters(c) {
                Some(letters) => s.push_str(letters),
                None => s.push('-'),
            },
        }
    }
    let words: Vec<&str> = s.split('-').filter(|w| !w.is_empty()).collect();
    let words = match words.split_first() {
        Some((&"task", rest)) => rest,
        _ => &words[..],
    };
    if words.is_empty() {
        return None;
    }
    let s = format!("task-{}", words.join("-"));
    TASK_ID.is_match(&s).then_some(s)
}

/// The ASCII letters of a lower-case Latin letter with a diacritic.
fn ascii_letters(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => "e",
        'ğ' => "g",
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => "i",
        'ł' | 'ľ' => "l",
        'ñ' | 'ń' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ř' => "r",
        'ś' | 'š' | 'ş' => "s",
        'ß' => "ss",
        'ť' | 'ţ' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'ų' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Option<String>, Vec<String>) {
        let mut errors = Vec::new();
        let h = task_heading(text, 7, &mut errors);
        errors.extend(h.bad_id.map(|b| b.diagnostic));
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
        assert_eq!(suggest_id("tâche-1").as_deref(), Some("task-tache-1"));
        assert_eq!(suggest_id("task-é").as_deref(), Some("task-e"));
        assert_eq!(suggest_id("task-任务"), None);
        assert_eq!(suggest_id("Task"), None);
        assert_eq!(suggest_id("任务-2").as_deref(), Some("task-2"));
    }

    #[test]
    fn renames_are_free_ids() {
        let bad = |written: &str| BadId {
            diagnostic: Diagnostic::new(1, "x"),
            written: written.to_string(),
        };
        let mut taken: std::collections::HashSet<String> =
            ["task-a".to_string(), "task-a-2".to_string()].into();
        let fix = |d: Diagnostic| d.fix.unwrap_or_default();
        assert_eq!(
            fix(rename_fix(bad("Task-A"), 1, "T", &mut taken)),
            "rename it `task-a-3`"
        );
        assert_eq!(
            fix(rename_fix(bad("Task-A"), 2, "T", &mut taken)),
            "rename it `task-a-4`"
        );
        assert_eq!(
            fix(rename_fix(bad("task-任务"), 5, "T", &mut taken)),
            "rename it `task-5`"
        );
        assert_eq!(
            fix(rename_fix(bad(""), 6, "Title", &mut taken)),
            "write `## Task: task-6 — Title`"
        );
    }

    #[test]
    fn each_invalid_id_says_what_is_wrong() {
        for (id, problem) in [
            ("Task-1", "it has upper-case letters"),
            ("task_1", "`_` is not allowed"),
            ("tâche", "`â` is not an ASCII letter or digit"),
            ("auth", "it does not start with `task-`"),
            ("task-", "nothing follows `task-`"),
            ("task-a--b", "it has two hyphens in a row"),
            ("task-a-", "it ends with a hyphen"),
        ] {
            assert_eq!(id_problem(id), problem, "{id}");
        }
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
