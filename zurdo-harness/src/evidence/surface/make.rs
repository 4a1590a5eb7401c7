//! Makefiles: the goals a hint runs (`make test`, or the default goal of a
//! bare `make`), followed through their prerequisites and the `$(MAKE) x`
//! lines of their recipes; for each, its recipe and prerequisites, and the
//! variables those use (followed through the variables' own values), with
//! `SHELL`, `.SHELLFLAGS`, `.ONESHELL` and the `include` lines. A new
//! target, or a change to a target no hint reaches, is free.
//!
//! A GNU make reading, without running make: rules (`a b: c | d`, `::`,
//! `; recipe`), tab-indented recipes, assignments (`=`, `:=`, `::=`, `?=`,
//! `+=`, `!=`, with `override`/`export`), `define … endef`, target-specific
//! variables, backslash continuations and comments. Conditionals are read
//! through (both branches count), included files are not read (their
//! `include` lines are a part) and pattern rules are not followed.

use std::collections::{BTreeMap, BTreeSet};

use super::{Part, Parts};
use crate::evidence::commands::{make_goals_of, MakeGoals};

/// A target's rules, merged.
#[derive(Debug, Default)]
struct Rule {
    prerequisites: Vec<String>,
    recipe: Vec<String>,
}

/// A Makefile as read.
#[derive(Debug, Default)]
struct Makefile {
    rules: BTreeMap<String, Rule>,
    variables: BTreeMap<String, Vec<String>>,
    includes: Vec<String>,
    default_goal: Option<String>,
}

const DIRECTIVES: [&str; 8] = [
    "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "vpath", "unexport",
];

/// Logical lines: backslash continuations joined (a recipe line keeps its
/// tab and its continuations as written).
fn logical_lines(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r');
        let mut current = match pending.take() {
            Some(mut p) => {
                p.push('\n');
                p.push_str(line);
                p
            }
            None => line.to_string(),
        };
        let trailing = current.chars().rev().take_while(|c| *c == '\\').count();
        if trailing % 2 == 1 {
            current.pop();
            pending = Some(current);
        } else {
            out.push(current);
        }
    }
    out.extend(pending);
    out
}

/// Where the first top-level `=` or `:` of a line is (not inside `$(…)`).
fn separator(line: &str) -> Option<(usize, char)> {
    let mut depth = 0usize;
    let bytes: Vec<char> = line.chars().collect();
    let mut at = 0;
    for (i, c) in bytes.iter().enumerate() {
        match c {
            '$' if matches!(bytes.get(i + 1), Some('(' | '{')) => {}
            '(' | '{' if i > 0 && bytes[i - 1] == '$' => depth += 1,
            ')' | '}' if depth > 0 => depth -= 1,
            '=' | ':' if depth == 0 => return Some((at, *c)),
            '#' if depth == 0 => return None,
            _ => {}
        }
        at += c.len_utf8();
    }
    None
}

fn strip_comment(line: &str) -> &str {
    match line.find('#') {
        Some(i) if !line[..i].ends_with('\\') => &line[..i],
        _ => line,
    }
}

/// Reads an assignment `name op value`, with `op` starting at `at` (the
/// first `=` or the `:` of `:=`/`::=`).
fn assignment(line: &str, at: usize) -> Option<(String, String)> {
    let (left, right) = line.split_at(at);
    let right = right
        .trim_start_matches(':')
        .trim_start_matches(':')
        .strip_prefix('=')?;
    let name = left.trim_end_matches(['?', '+', '!']).trim();
    let name = name
        .strip_prefix("override ")
        .or_else(|| name.strip_prefix("export "))
        .unwrap_or(name)
        .trim();
    (!name.is_empty() && !name.contains(char::is_whitespace))
        .then(|| (name.to_string(), strip_comment(right).trim().to_string()))
}

impl Makefile {
    fn read(text: &str) -> Makefile {
        let mut m = Makefile::default();
        let mut targets: Vec<String> = Vec::new();
        let mut define: Option<(String, Vec<String>)> = None;
        for line in logical_lines(text) {
            if let Some((name, body)) = define.as_mut() {
                if line.trim() == "endef" {
                    let value = body.join("\n");
                    let name = std::mem::take(name);
                    m.variables.entry(name).or_default().push(value);
                    define = None;
                } else {
                    body.push(line);
                }
                continue;
            }
            if let Some(recipe) = line.strip_prefix('\t') {
                for t in &targets {
                    m.rules
                        .entry(t.clone())
                        .or_default()
                        .recipe
                        .push(recipe.to_string());
                }
                continue;
            }
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let word = trimmed.split_whitespace().next().unwrap_or("");
            if DIRECTIVES.contains(&word) {
                continue;
            }
            let bare = trimmed
                .strip_prefix("override ")
                .or_else(|| trimmed.strip_prefix("export "))
                .unwrap_or(trimmed);
            if let Some(rest) = bare.strip_prefix("define ") {
                let name = rest
                    .trim()
                    .trim_end_matches(['=', ':', '?', '+', '!'])
                    .trim()
                    .to_string();
                define = Some((name, Vec::new()));
                targets.clear();
                continue;
            }
            if matches!(word, "include" | "-include" | "sinclude") {
                m.includes.push(trimmed.to_string());
                continue;
            }
            let Some((at, c)) = separator(trimmed) else {
                continue;
            };
            let after = &trimmed[at..];
            if c == '=' || after.starts_with(":=") || after.starts_with("::=") {
                if let Some((name, value)) = assignment(trimmed, at) {
                    m.variables.entry(name).or_default().push(value);
                }
                targets.clear();
                continue;
            }
            // A rule: targets, then prerequisites (or a target-specific
            // variable), then perhaps `; recipe`.
            targets = trimmed[..at]
                .split_whitespace()
                .map(str::to_string)
                .collect();
            let rest = after.trim_start_matches(':');
            let (prerequisites, inline) = match rest.split_once(';') {
                Some((p, r)) => (p, Some(r.trim().to_string())),
                None => (rest, None),
            };
            if let Some((at, _)) = separator(prerequisites).filter(|(_, c)| *c == '=') {
                if let Some((name, value)) = assignment(prerequisites, at) {
                    m.variables.entry(name).or_default().push(value);
                }
                targets.clear();
                continue;
            }
            let prerequisites: Vec<String> = strip_comment(prerequisites)
                .split_whitespace()
                .filter(|p| *p != "|")
                .map(str::to_string)
                .collect();
            if m.default_goal.is_none() {
                m.default_goal = targets
                    .iter()
                    .find(|t| !t.starts_with('.') && !t.contains('%'))
                    .cloned();
            }
            for t in &targets {
                let rule = m.rules.entry(t.clone()).or_default();
                rule.prerequisites.extend(prerequisites.iter().cloned());
                rule.recipe.extend(inline.iter().cloned());
            }
        }
        m
    }
}

/// The variables `text` references: `$(NAME)`, `${NAME}`, `$(NAME:a=b)`,
/// `$N`; function calls (`$(shell …)`) are looked into, not taken.
fn references(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' {
            i += 1;
            continue;
        }
        match chars.get(i + 1) {
            Some('$') => i += 2,
            Some('(' | '{') => {
                let name: String = chars[i + 2..]
                    .iter()
                    .take_while(|c| !matches!(c, ')' | '}' | ':' | ' ' | '\t' | ',' | '$' | '('))
                    .collect();
                let end = chars.get(i + 2 + name.chars().count());
                if !name.is_empty() && matches!(end, Some(')' | '}' | ':')) {
                    out.push(name);
                }
                i += 2;
            }
            Some(c) if c.is_ascii_alphanumeric() || *c == '_' => {
                out.push(c.to_string());
                i += 2;
            }
            _ => i += 1,
        }
    }
    out
}

/// The parts of a Makefile for `goals`.
pub fn parts(text: &str, goals: &MakeGoals) -> Parts {
    let m = Makefile::read(text);
    let mut parts = Parts::new();
    let mut wanted: Vec<String> = goals.targets.iter().cloned().collect();
    let mut used: Vec<String> = vec!["SHELL".into(), ".SHELLFLAGS".into()];
    if goals.default {
        used.push(".DEFAULT_GOAL".into());
        let set = m.variables.get(".DEFAULT_GOAL").and_then(|v| v.last());
        if let Some(goal) = set.or(m.default_goal.as_ref()) {
            parts.insert("the default goal".into(), Part::of(goal));
            wanted.push(goal.clone());
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(target) = wanted.pop() {
        if !seen.insert(target.clone()) {
            continue;
        }
        let Some(rule) = m.rules.get(&target) else {
            continue;
        };
        if !rule.prerequisites.is_empty() {
            let joined = rule.prerequisites.join(" ");
            parts.insert(
                format!("the prerequisites of make target {target}"),
                Part::of(&joined),
            );
            used.extend(references(&joined));
            wanted.extend(rule.prerequisites.iter().cloned());
        }
        if !rule.recipe.is_empty() {
            let recipe = rule
                .recipe
                .iter()
                .map(|l| l.trim())
                .collect::<Vec<_>>()
                .join("\n");
            parts.insert(
                format!("the recipe of make target {target}"),
                Part::of(&recipe),
            );
            used.extend(references(&recipe));
            for line in &rule.recipe {
                wanted.extend(make_goals_of(&zurdo::verify::command_argvs(line)).targets);
            }
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(name) = used.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(values) = m.variables.get(&name) {
            let value = values.join("\n");
            used.extend(references(&value));
            parts.insert(format!("make variable {name}"), Part::of(&value));
        }
    }
    if m.rules.contains_key(".ONESHELL") {
        parts.insert(".ONESHELL".into(), Part::of("present"));
    }
    if !m.includes.is_empty() {
        parts.insert("the include lines".into(), Part::of(&m.includes.join("\n")));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAKEFILE: &str = "# build\nPY ?= python3\nPYTEST = $(PY) -m pytest $(FLAGS)\nFLAGS := -q\nDOCS = mkdocs\n\nall: build\n\nbuild:\n\tcargo build\n\ntest: build unit | dirs\n\t$(MAKE) lint\n\nunit:\n\t$(PYTEST) tests \\\n\t  --strict\n\nlint: ; ruff check .\n\ndocs:\n\t$(DOCS) build\n\n.PHONY: all build test unit lint docs\n";

    fn goals(targets: &[&str], default: bool) -> MakeGoals {
        MakeGoals {
            targets: targets.iter().map(|t| t.to_string()).collect(),
            default,
        }
    }

    fn labels(parts: &Parts) -> Vec<&str> {
        parts.keys().map(String::as_str).collect()
    }

    #[test]
    fn the_goals_recipes_prerequisites_and_variables() {
        let parts = parts(MAKEFILE, &goals(&["test"], false));
        assert_eq!(
            labels(&parts),
            [
                "make variable FLAGS",
                "make variable PY",
                "make variable PYTEST",
                "the prerequisites of make target test",
                "the recipe of make target build",
                "the recipe of make target lint",
                "the recipe of make target test",
                "the recipe of make target unit",
            ]
        );
        assert_eq!(
            parts["the recipe of make target lint"].text.as_deref(),
            Some("ruff check .")
        );
        assert_eq!(
            parts["the prerequisites of make target test"]
                .text
                .as_deref(),
            Some("build unit dirs")
        );
        assert_eq!(parts["make variable PY"].text.as_deref(), Some("python3"));
        // A new target, and a change to one no hint reaches, are free.
        let more = MAKEFILE.replace(
            "docs:\n\t$(DOCS) build",
            "docs:\n\t$(DOCS) serve\n\nfmt:\n\tcargo fmt",
        );
        assert_eq!(super::parts(&more, &goals(&["test"], false)), parts);
        let cheat = MAKEFILE.replace("\t$(PYTEST) tests \\\n\t  --strict", "\ttrue");
        let after = super::parts(&cheat, &goals(&["test"], false));
        assert_eq!(
            after["the recipe of make target unit"].text.as_deref(),
            Some("true")
        );
    }

    #[test]
    fn the_default_goal_and_special_lines() {
        let text = "include common.mk\n.DEFAULT_GOAL := check\nexport SHELL = /bin/bash\n.ONESHELL:\ncheck: X = 1\ncheck:\n\t./run.sh $X\n\ndefine BANNER\nhello\nendef\nifeq ($(CI),1)\nother:\n\techo ci\nendif\n";
        let parts = parts(text, &goals(&[], true));
        assert_eq!(
            labels(&parts),
            [
                ".ONESHELL",
                "make variable .DEFAULT_GOAL",
                "make variable SHELL",
                "make variable X",
                "the default goal",
                "the include lines",
                "the recipe of make target check",
            ]
        );
        assert_eq!(parts["the default goal"].text.as_deref(), Some("check"));
        let m = Makefile::read(text);
        assert_eq!(m.variables["BANNER"], ["hello"]);
        assert!(
            m.rules.contains_key("other"),
            "conditionals are read through"
        );
    }

    #[test]
    fn references_skip_functions_and_escapes() {
        assert_eq!(
            references(
                "$(CC) $${HOME} $(shell $(TOOL) x) ${OBJ:.o=.c} $@ $V $(patsubst %,%,$(SRC))"
            ),
            ["CC", "TOOL", "OBJ", "V", "SRC"]
        );
    }
}
