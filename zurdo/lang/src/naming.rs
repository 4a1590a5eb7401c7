//! Test names for criteria: `task_module::criterion_fn`, stable, unique and
//! usable as Rust identifiers, so the cargo-test harness, IDE test explorers
//! and `zurdo verify` all call a criterion the same thing.

use crate::model::{Prd, Task};

/// Longest identifier kept from a criterion's title.
const MAX_LEN: usize = 60;

const KEYWORDS: [&str; 51] = [
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

/// `text` as a snake_case identifier: ASCII letters and digits, runs of
/// anything else collapsed to one `_`, never empty, never a keyword, never
/// starting with a digit.
pub fn identifier(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_LEN));
    let mut gap = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
            if out.len() >= MAX_LEN {
                break;
            }
        } else {
            gap = true;
        }
    }
    if out.is_empty() {
        out.push_str("criterion");
    }
    if out.as_bytes()[0].is_ascii_digit() {
        out.insert_str(0, "c_");
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// The module name of a task: its id with `-` as `_` (`task-auth` →
/// `task_auth`).
pub fn task_module(task: &Task) -> String {
    task.id.replace('-', "_")
}

/// The function name of every criterion of `task`, in order, made unique
/// within the task by a `_2`, `_3`… suffix on repeats.
pub fn criterion_fns(task: &Task) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(task.criteria.len());
    for criterion in &task.criteria {
        let base = identifier(&criterion.title);
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        names.push(name);
    }
    names
}

/// Every criterion's full test name, `task_module::criterion_fn`, per task
/// in document order.
pub fn test_names(prd: &Prd) -> Vec<Vec<String>> {
    prd.tasks
        .iter()
        .map(|t| {
            let module = task_module(t);
            criterion_fns(t)
                .into_iter()
                .map(|f| format!("{module}::{f}"))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_snake_case_and_safe() {
        assert_eq!(identifier("cargo tests pass"), "cargo_tests_pass");
        assert_eq!(identifier("/health returns 200!"), "health_returns_200");
        assert_eq!(identifier("`greet()` is defined"), "greet_is_defined");
        assert_eq!(identifier("2 binaries build"), "c_2_binaries_build");
        assert_eq!(identifier("type"), "type_");
        assert_eq!(identifier("—"), "criterion");
        assert_eq!(identifier("Über naïve"), "ber_na_ve");
        assert_eq!(identifier(&"x".repeat(100)).len(), MAX_LEN);
    }

    #[test]
    fn repeats_get_numbered() {
        let src = "# PRD: x\n\n## Task: task-a — t\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
                   ### Acceptance Criteria\n- [ ] works [shell: true]\n- [ ] Works! [shell: true]\n- [ ] works [manual]\n";
        let prd = crate::parse(src).expect("valid");
        assert_eq!(
            test_names(&prd),
            [["task_a::works", "task_a::works_2", "task_a::works_3"]]
        );
    }
}
