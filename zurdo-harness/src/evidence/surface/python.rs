//! pytest's surface: its settings (`pytest.ini`, `pyproject.toml`,
//! `setup.cfg`, `tox.ini`), coverage's threshold, and `conftest.py`'s
//! module-level hooks.
//!
//! `conftest.py` is read without a Python parser: its lines are split into
//! module-level statements (tracking brackets, strings, triple quotes,
//! comments and backslash continuations), decorators kept with what they
//! decorate. A statement that defines, assigns, imports or mentions a
//! `pytest_*` name, `collect_ignore`, `collect_ignore_glob` or
//! `pytest_plugins`, and every `import *`, is a part; fixtures, helpers,
//! classes and constants are not, so a new fixture is free.

use std::collections::BTreeMap;

use super::ini::{self, Section};
use super::{value_part, Part, Parts, WHOLE};

/// The part labels of a pytest section: its keys, bare (`addopts`), and
/// `the [<name>] section` for its presence (pytest takes the first file
/// with one, so an empty section added elsewhere can hide the real one).
fn pytest_section(parts: &mut Parts, section: &Section, shown: &str) {
    parts.insert(format!("the {shown} section"), Part::of("present"));
    for (key, value) in &section.keys {
        parts.insert(key.clone(), Part::of(value));
    }
}

/// `pytest.ini` (and `.pytest.ini`): all of it. Its mere presence decides
/// which config pytest reads.
pub fn pytest_ini(text: &str) -> Parts {
    let mut parts = Parts::from([(WHOLE.to_string(), Part::of("present"))]);
    for section in ini::sections(text) {
        if section.name == "pytest" {
            pytest_section(&mut parts, &section, "[pytest]");
        } else {
            for (key, value) in &section.keys {
                parts.insert(format!("[{}] {key}", section.name), Part::of(value));
            }
        }
    }
    parts
}

fn fail_under(parts: &mut Parts, sections: &[Section], name: &str) {
    for section in sections.iter().filter(|s| s.name == name) {
        for (key, value) in section.keys.iter().filter(|(k, _)| k == "fail_under") {
            parts.insert(format!("[{name}] {key}"), Part::of(value));
        }
    }
}

/// `setup.cfg`: `[tool:pytest]` and `[coverage:report] fail_under`.
pub fn setup_cfg(text: &str) -> Parts {
    let sections = ini::sections(text);
    let mut parts = Parts::new();
    for section in sections.iter().filter(|s| s.name == "tool:pytest") {
        pytest_section(&mut parts, section, "[tool:pytest]");
    }
    fail_under(&mut parts, &sections, "coverage:report");
    parts
}

/// `tox.ini`: `[pytest]` and `[coverage:report] fail_under`.
pub fn tox_ini(text: &str) -> Parts {
    let sections = ini::sections(text);
    let mut parts = Parts::new();
    for section in sections.iter().filter(|s| s.name == "pytest") {
        pytest_section(&mut parts, section, "[pytest]");
    }
    fail_under(&mut parts, &sections, "coverage:report");
    parts
}

/// `.coveragerc`: `[report] fail_under`.
pub fn coveragerc(text: &str) -> Parts {
    let mut parts = Parts::new();
    fail_under(&mut parts, &ini::sections(text), "report");
    parts
}

/// `pyproject.toml`: `[tool.pytest.ini_options]` (keys bare, as pytest
/// names them), `[tool.pytest]` (pytest 9's native table) and
/// `[tool.coverage.report] fail_under`. Unreadable TOML is compared whole.
pub fn pyproject(text: &str) -> Parts {
    let Ok(doc) = toml::from_str::<toml::Table>(text) else {
        return Parts::from([(WHOLE.to_string(), Part::opaque(text.as_bytes()))]);
    };
    let mut parts = Parts::new();
    let json = |v: &toml::Value| serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    let tool = doc.get("tool").and_then(toml::Value::as_table);
    if let Some(pytest) = tool
        .and_then(|t| t.get("pytest"))
        .and_then(toml::Value::as_table)
    {
        for (key, value) in pytest {
            if key == "ini_options" {
                let Some(options) = value.as_table() else {
                    parts.insert("[tool.pytest] ini_options".into(), value_part(&json(value)));
                    continue;
                };
                parts.insert(
                    "the [tool.pytest.ini_options] section".into(),
                    Part::of("present"),
                );
                for (key, value) in options {
                    parts.insert(key.clone(), value_part(&json(value)));
                }
            } else {
                parts.insert(format!("[tool.pytest] {key}"), value_part(&json(value)));
            }
        }
    }
    let report = tool
        .and_then(|t| t.get("coverage"))
        .and_then(|c| c.get("report"))
        .and_then(|r| r.get("fail_under"));
    if let Some(value) = report {
        parts.insert(
            "[tool.coverage.report] fail_under".into(),
            value_part(&json(value)),
        );
    }
    parts
}

/// Names whose module-level statements are parts of a `conftest.py`.
const NAMES: [&str; 3] = ["collect_ignore", "collect_ignore_glob", "pytest_plugins"];

/// `conftest.py`: its module-level hooks, `import *` and the collection
/// names, each a part whose value is the statements' text.
pub fn conftest(text: &str) -> Parts {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for statement in statements(text) {
        let body = normalized(&statement);
        let head = statement
            .lines()
            .map(str::trim)
            .find(|l| !l.starts_with('@') && !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if let Some(name) = defined(head) {
            if name.starts_with("pytest_") {
                found.entry(format!("hook {name}")).or_default().push(body);
            }
            // Other functions are fixtures or helpers; classes are not
            // module-level hooks.
            continue;
        }
        if head.starts_with("class ") {
            continue;
        }
        // `import m` binds a module (pluggy takes functions only); `from m
        // import pytest_x` binds a hook, `from m import *` perhaps many.
        if head.starts_with("import ") {
            continue;
        }
        if head.starts_with("from ") {
            let code = code_only(&statement);
            let names = code.split_once(" import ").map_or("", |(_, n)| n);
            let mut labels = Vec::new();
            for name in names.split(',') {
                let bound = name
                    .trim_matches(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '\\')
                    .rsplit(" as ")
                    .next()
                    .unwrap_or("")
                    .trim();
                if bound == "*" {
                    labels.push("import *".to_string());
                } else if NAMES.contains(&bound) {
                    labels.push(bound.to_string());
                } else if bound.starts_with("pytest_") {
                    labels.push(format!("hook {bound}"));
                }
            }
            for label in labels {
                found.entry(label).or_default().push(body.clone());
            }
            continue;
        }
        for name in identifiers(&code_only(&statement)) {
            let label = if NAMES.contains(&name.as_str()) {
                name
            } else if name.starts_with("pytest_") && name.len() > "pytest_".len() {
                format!("hook {name}")
            } else {
                continue;
            };
            let entry = found.entry(label).or_default();
            if entry.last() != Some(&body) {
                entry.push(body.clone());
            }
        }
    }
    found
        .into_iter()
        .map(|(label, bodies)| {
            let value = bodies.join("\n");
            let part = if label.starts_with("hook ") {
                Part::opaque(value.as_bytes())
            } else {
                Part::of(&value)
            };
            (label, part)
        })
        .collect()
}

/// The function a statement's first line defines (`def f(`, `async def f(`).
fn defined(head: &str) -> Option<String> {
    let rest = head
        .strip_prefix("async ")
        .map(str::trim_start)
        .unwrap_or(head)
        .strip_prefix("def ")?;
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// A statement's text without comment-only lines or trailing spaces (a
/// reworded comment is not a change).
fn normalized(statement: &str) -> String {
    statement
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Python's lexical state across lines.
#[derive(Default)]
struct Lexer {
    depth: usize,
    /// Inside a string: its quote and whether it is triple.
    string: Option<(char, bool)>,
    continued: bool,
}

impl Lexer {
    /// True when the next line starts a new logical line.
    fn at_start(&self) -> bool {
        self.depth == 0 && self.string.is_none() && !self.continued
    }

    /// Reads one line (without its newline), pushing onto `code` each
    /// character outside strings and comments (a space for the others).
    fn line(&mut self, line: &str, code: &mut String) {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        self.continued = false;
        while i < chars.len() {
            let c = chars[i];
            let mut width = 1;
            let mut kept = false;
            match self.string {
                Some((q, triple)) => {
                    if c == '\\' {
                        width = 2;
                    } else if c == q && !triple {
                        self.string = None;
                    } else if c == q && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q)
                    {
                        self.string = None;
                        width = 3;
                    }
                }
                None => match c {
                    '#' => break,
                    '\'' | '"' => {
                        let triple = chars.get(i + 1) == Some(&c) && chars.get(i + 2) == Some(&c);
                        self.string = Some((c, triple));
                        if triple {
                            width = 3;
                        }
                    }
                    '(' | '[' | '{' => {
                        self.depth += 1;
                        kept = true;
                    }
                    ')' | ']' | '}' => {
                        self.depth = self.depth.saturating_sub(1);
                        kept = true;
                    }
                    '\\' if i + 1 == chars.len() => self.continued = true,
                    _ => kept = true,
                },
            }
            for _ in 0..width.min(chars.len() - i) {
                code.push(if kept { c } else { ' ' });
            }
            i += width;
        }
        // A one-quote string does not cross a line (unless escaped).
        if let Some((_, false)) = self.string {
            if !line.ends_with('\\') {
                self.string = None;
            }
        }
    }
}

/// The module-level statements of `text`, each with its decorators and
/// every line up to the next module-level statement.
pub fn statements(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut lexer = Lexer::default();
    // True while the current statement is a run of decorators, which joins
    // the definition after it.
    let mut decorating = false;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let starts = lexer.at_start()
            && line.starts_with(|c: char| !c.is_whitespace())
            && !line.starts_with('#');
        if starts {
            if decorating {
                let last = out.last_mut().expect("a decorator was pushed");
                last.push('\n');
                last.push_str(line);
            } else {
                out.push(line.to_string());
            }
            decorating = line.starts_with('@');
        } else if let Some(last) = out.last_mut() {
            last.push('\n');
            last.push_str(line);
        }
        lexer.line(line, &mut String::new());
    }
    out
}

/// `statement` with comments and string contents blanked (so a docstring
/// mentioning `collect_ignore` is not a part).
fn code_only(statement: &str) -> String {
    let mut code = String::with_capacity(statement.len());
    let mut lexer = Lexer::default();
    for line in statement.lines() {
        lexer.line(line, &mut code);
        code.push('\n');
    }
    code
}

/// The identifiers in `code`.
fn identifiers(code: &str) -> Vec<String> {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(parts: &Parts) -> Vec<&str> {
        parts.keys().map(String::as_str).collect()
    }

    #[test]
    fn conftest_hooks_and_collection_names_are_parts_and_fixtures_are_not() {
        let text = r#""""Shared fixtures; see collect_ignore below."""
import os
import pytest
import pytest_asyncio
from plugin import pytest_runtest_setup
from other import (helper, pytest_fake_impl as pytest_report_header)
from helpers import *

collect_ignore = [
    "setup.py",
]
if os.name == "nt":
    collect_ignore_glob = ["*_posix.py"]

pytest_plugins = ("a",
"b")

@pytest.fixture
def db():
    """collect_ignore is not this"""
    return {}

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    config,
    items,
):
    text = """
def pytest_fake():
"""
    items[:] = [i for i in items if "slow" not in i.keywords]

async def pytest_fixture_setup(fixturedef):
    pass

class Helper:
    def pytest_configure(self):
        pass

THRESHOLD = 3  # pytest_report_header? no
"#;
        let parts = conftest(text);
        assert_eq!(
            labels(&parts),
            [
                "collect_ignore",
                "collect_ignore_glob",
                "hook pytest_collection_modifyitems",
                "hook pytest_fixture_setup",
                "hook pytest_report_header",
                "hook pytest_runtest_setup",
                "import *",
                "pytest_plugins",
            ]
        );
        assert_eq!(
            parts["pytest_plugins"].text, None,
            "two lines: compared by digest"
        );
        assert_eq!(
            parts["collect_ignore_glob"].text, None,
            "the if block is the statement"
        );
        // A new fixture and a reworded comment change nothing.
        let more = text.replace(
            "THRESHOLD = 3",
            "@pytest.fixture\ndef extra():\n    return 1\n\nTHRESHOLD = 3",
        );
        let more = more.replace("    items[:] =", "    # drop slow ones\n    items[:] =");
        assert_eq!(conftest(&more), parts);
        // A changed hook body does.
        let changed = text.replace("\"slow\" not in", "\"fast\" in");
        assert_ne!(
            conftest(&changed)["hook pytest_collection_modifyitems"],
            parts["hook pytest_collection_modifyitems"]
        );
    }

    #[test]
    fn statements_keep_brackets_strings_and_decorators_together() {
        let text =
            "@a\n@b(\n  1)\ndef f():\n    pass\nx = [\n1,\n]\ny = '''\nz = 1\n'''\nw = 1 \\\n+ 2\n";
        assert_eq!(
            statements(text),
            [
                "@a\n@b(\n  1)\ndef f():\n    pass",
                "x = [\n1,\n]",
                "y = '''\nz = 1\n'''",
                "w = 1 \\\n+ 2",
            ]
        );
    }

    #[test]
    fn pytest_settings_in_every_file_pytest_reads() {
        let parts = pytest_ini("[pytest]\naddopts = -q\n    -k 'not slow'\n[other]\nx = 1\n");
        assert_eq!(
            labels(&parts),
            ["[other] x", "addopts", "the [pytest] section", "the file"]
        );
        assert_eq!(parts["addopts"].text.as_deref(), Some("-q -k 'not slow'"));
        let parts = setup_cfg(
            "[metadata]\nname = x\n[flake8]\nmax-line-length = 99\n[tool:pytest]\ntestpaths = tests\n[coverage:report]\nfail_under = 90\n",
        );
        assert_eq!(
            labels(&parts),
            [
                "[coverage:report] fail_under",
                "testpaths",
                "the [tool:pytest] section"
            ]
        );
        assert!(tox_ini("[tox]\nenvlist = py3\n[testenv]\ncommands = pytest\n").is_empty());
        assert_eq!(
            labels(&coveragerc("[report]\nfail_under = 80\n")),
            ["[report] fail_under"]
        );
        let parts = pyproject(
            "[project]\nname = \"x\"\ndependencies = [\"requests\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\ntestpaths = [\"tests\"]\n\n[tool.coverage.report]\nfail_under = 90\n",
        );
        assert_eq!(
            labels(&parts),
            [
                "[tool.coverage.report] fail_under",
                "addopts",
                "testpaths",
                "the [tool.pytest.ini_options] section"
            ]
        );
        assert_eq!(parts["addopts"].text.as_deref(), Some("-q"));
        assert_eq!(parts["testpaths"].text.as_deref(), Some("[\"tests\"]"));
        let with_dep = pyproject(
            "[project]\nname = \"x\"\ndependencies = [\"requests\", \"rich\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\ntestpaths = [\"tests\"]\n\n[tool.coverage.report]\nfail_under = 90\n",
        );
        assert_eq!(with_dep, parts, "a new dependency is not surface");
        assert_eq!(labels(&pyproject("not = [toml")), ["the file"]);
    }
}
