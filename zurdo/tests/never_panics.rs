//! The parser never panics, whatever it is fed, and what it returns is
//! well-formed: errors sorted by line with lines inside the file, or a model
//! whose run order is a topological order and whose criteria all carry a hint.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::Config;

use zurdo::{Diagnostic, Prd};

/// A realistic valid PRD: four tasks with dependencies, requirements, every
/// hint kind and `[proves:]` modifiers.
const BASE: &str = "\
# PRD: Token authentication for the greeter service

Some preamble prose that zurdo ignores.

## Task: task-scaffold — Scaffold the service crate
**Effort**: low
**Depends-on**: []
**Category**: Backend

### Description
Create the `greeter` crate with a `main.rs` that starts an HTTP server.
Keep the layout conventional.

### Acceptance Criteria
- [ ] the crate builds [shell: cargo build -p greeter]
- [ ] the binary's entry point exists [file-exists: greeter/src/main.rs]
- [ ] no leftover template file [file-absent: greeter/src/template.rs]

## Task: task-auth — Add token-based authentication
**Effort**: medium
**Depends-on**: [task-scaffold]
**Max-Attempts**: 5          # optional, falls back to config default
**Skills**: rust-style, testing
**Agent-timeout**: 30m
**Frozen**: docs/adr/*.md, greeter/Cargo.lock

### Requirements
- req-auth-1: Tokens must expire after 24 hours
- req-auth-2: Expired tokens must be rejected with HTTP 401

### Description
Add JWT-based authentication. Tokens expire after 24 hours. Requests with
expired tokens must receive a 401 response.

#### Notes
Use the `jsonwebtoken` crate.

### Acceptance Criteria
- [ ] token expiry is enforced [shell: cargo test auth::token_expiry] [proves:req-auth-1]
- [ ] expired token rejected [http: GET http://localhost:8080/protected -> 401] [proves:req-auth-2]
- [ ] the validator is defined [symbol: auth::validate_token]
- [ ] the validator is used [references: auth::validate_token] [callers: auth::validate_token >= 1]
- [ ] the handler calls it [callers: auth::validate_token from handlers::protected]
- [ ] handles [edge] cases [grep: fn validate_token\\( in greeter/src/**/*.rs]

## Task: task-health — Expose a health endpoint
**Effort**: low
**Depends-on**: [\"task-scaffold\"]

### Requirements

- req-health: The service exposes a working /health endpoint

### Description

Add `GET /health` returning 200 with an empty body.

### Acceptance Criteria

- [ ] /health returns 200 [http: GET http://localhost:8080/health -> 200] [proves:req-health]
- [ ] no todo!() left [no-grep: todo!\\( in greeter/src/**/*.rs]
- [ ] full test suite passes [shell: [ -d greeter ] && cargo test --workspace]

## Task: task-review — Review and sign off
**Effort**: high
**Depends-on**: [task-auth, task-health]
**Agent-timeout**: 15m

### Description
Walk through the changes with a reviewer.

### Acceptance Criteria
- [ ] design review signed off [manual]
- [ ] changelog mentions auth [grep: authentication in CHANGELOG.md] [manual]
";

/// Characters a mutation likes to insert: the ones the grammar cares about.
const SPECIAL: [char; 9] = ['[', ']', '\\', '\u{2014}', '\u{2013}', '-', '*', '#', ':'];

/// Number of lines as the parser counts them (a final line without `\n`
/// counts; an empty file has one line).
fn line_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count() + 1
}

/// Checks the shape of a result for the given input, returning a
/// description of the first violation.
fn check_result(input: &[u8], result: &Result<Prd, Vec<Diagnostic>>) -> Result<(), String> {
    match result {
        Ok(prd) => check_model(prd),
        Err(errors) => check_errors(input, errors),
    }
}

fn check_errors(input: &[u8], errors: &[Diagnostic]) -> Result<(), String> {
    if errors.is_empty() {
        return Err("Err(vec![]): an error result must hold at least one diagnostic".into());
    }
    let max = line_count(input) + 1;
    for d in errors {
        if d.line < 1 || d.line > max {
            return Err(format!(
                "diagnostic line {} outside 1..={max}: {d:?}",
                d.line
            ));
        }
    }
    if let Some(w) = errors.windows(2).find(|w| w[0].line > w[1].line) {
        return Err(format!(
            "diagnostics not sorted by line: {:?} before {:?}",
            w[0], w[1]
        ));
    }
    Ok(())
}

fn check_model(prd: &Prd) -> Result<(), String> {
    let n = prd.tasks.len();
    if n == 0 {
        return Err("Ok with no tasks".into());
    }
    let mut position = vec![usize::MAX; n];
    if prd.run_order.len() != n {
        return Err(format!("run_order {:?} has not {n} entries", prd.run_order));
    }
    for (at, &i) in prd.run_order.iter().enumerate() {
        if i >= n || position[i] != usize::MAX {
            return Err(format!(
                "run_order {:?} is not a permutation of 0..{n}",
                prd.run_order
            ));
        }
        position[i] = at;
    }
    for (i, task) in prd.tasks.iter().enumerate() {
        for dep in &task.metadata.depends_on {
            let Some(d) = prd.tasks.iter().position(|t| &t.id == dep) else {
                return Err(format!("task `{}` depends on unknown `{dep}`", task.id));
            };
            if position[d] >= position[i] {
                return Err(format!(
                    "task `{}` runs before its dependency `{dep}` ({:?})",
                    task.id, prd.run_order
                ));
            }
        }
        for c in &task.criteria {
            if c.hints.is_empty() {
                return Err(format!(
                    "criterion at line {} of task `{}` has no hint",
                    c.line, task.id
                ));
            }
        }
    }
    Ok(())
}

/// One edit of the source.
#[derive(Debug, Clone)]
enum Mutation {
    /// Delete the char at this (scaled) position.
    DeleteChar(usize),
    /// Insert a char at this position.
    InsertChar(usize, char),
    /// Replace the char at this position.
    ReplaceChar(usize, char),
    /// Replace the char at this position with one of [`SPECIAL`].
    ReplaceSpecial(usize, usize),
    /// Insert one of [`SPECIAL`] at this position.
    InsertSpecial(usize, usize),
    /// Delete the byte at this position (may break UTF-8).
    DeleteByte(usize),
    /// Insert a byte at this position.
    InsertByte(usize, u8),
    /// Replace the byte at this position.
    ReplaceByte(usize, u8),
    /// Duplicate a line.
    DuplicateLine(usize),
    /// Delete a line.
    DeleteLine(usize),
    /// Swap two lines.
    SwapLines(usize, usize),
    /// Insert a blank line before a line.
    InsertBlankLine(usize),
    /// Turn a `\n` into `\r\n` (or add a stray `\r`).
    InsertCr(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let pos = any::<usize>();
    let interesting_char = prop_oneof![
        any::<char>(),
        prop::sample::select(vec![
            '[',
            ']',
            '\\',
            '\u{2014}',
            '\u{2013}',
            '-',
            '*',
            '#',
            ':',
            '\n',
            ' ',
            '`',
            '>',
            '!',
            '<',
            '|',
            '\t',
            '\r',
            'x',
            '0',
            'é',
            '\u{1F980}',
        ]),
    ];
    prop_oneof![
        pos.prop_map(Mutation::DeleteChar),
        (pos, interesting_char.clone()).prop_map(|(p, c)| Mutation::InsertChar(p, c)),
        (pos, interesting_char).prop_map(|(p, c)| Mutation::ReplaceChar(p, c)),
        (pos, 0..SPECIAL.len()).prop_map(|(p, s)| Mutation::ReplaceSpecial(p, s)),
        (pos, 0..SPECIAL.len()).prop_map(|(p, s)| Mutation::InsertSpecial(p, s)),
        pos.prop_map(Mutation::DeleteByte),
        (pos, any::<u8>()).prop_map(|(p, b)| Mutation::InsertByte(p, b)),
        (pos, any::<u8>()).prop_map(|(p, b)| Mutation::ReplaceByte(p, b)),
        pos.prop_map(Mutation::DuplicateLine),
        pos.prop_map(Mutation::DeleteLine),
        (pos, pos).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        pos.prop_map(Mutation::InsertBlankLine),
        pos.prop_map(Mutation::InsertCr),
    ]
}

/// Byte offsets of char boundaries of `bytes` read as lossy text; for
/// non-UTF-8 input every byte counts as a boundary.
fn char_starts(bytes: &[u8]) -> Vec<usize> {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.char_indices().map(|(i, _)| i).collect(),
        Err(_) => (0..bytes.len()).collect(),
    }
}

/// Splits into lines keeping each line's `\n`.
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

fn encode(c: char) -> Vec<u8> {
    c.to_string().into_bytes()
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let byte_at = |p: usize, len: usize| if len == 0 { 0 } else { p % len };
    match *m {
        Mutation::DeleteChar(p) | Mutation::ReplaceChar(p, _) | Mutation::ReplaceSpecial(p, _) => {
            let starts = char_starts(bytes);
            if starts.is_empty() {
                return;
            }
            let start = starts[p % starts.len()];
            let end = starts
                .iter()
                .copied()
                .find(|&s| s > start)
                .unwrap_or(bytes.len());
            let with = match *m {
                Mutation::ReplaceChar(_, c) => encode(c),
                Mutation::ReplaceSpecial(_, s) => encode(SPECIAL[s]),
                _ => Vec::new(),
            };
            bytes.splice(start..end, with);
        }
        Mutation::InsertChar(p, _) | Mutation::InsertSpecial(p, _) => {
            let mut starts = char_starts(bytes);
            starts.push(bytes.len());
            let at = starts[p % starts.len()];
            let with = match *m {
                Mutation::InsertChar(_, c) => encode(c),
                Mutation::InsertSpecial(_, s) => encode(SPECIAL[s]),
                _ => unreachable!(),
            };
            bytes.splice(at..at, with);
        }
        Mutation::DeleteByte(p) => {
            if !bytes.is_empty() {
                let at = byte_at(p, bytes.len());
                bytes.remove(at);
            }
        }
        Mutation::InsertByte(p, b) => {
            let at = p % (bytes.len() + 1);
            bytes.insert(at, b);
        }
        Mutation::ReplaceByte(p, b) => {
            if !bytes.is_empty() {
                let at = byte_at(p, bytes.len());
                bytes[at] = b;
            }
        }
        Mutation::DuplicateLine(p)
        | Mutation::DeleteLine(p)
        | Mutation::InsertBlankLine(p)
        | Mutation::SwapLines(p, _) => {
            let mut lines = split_lines(bytes);
            if lines.is_empty() {
                return;
            }
            // A last line without `\n` would merge with a moved line.
            if let Some(last) = lines.last_mut() {
                if last.last() != Some(&b'\n') {
                    last.push(b'\n');
                }
            }
            let i = p % lines.len();
            match *m {
                Mutation::DuplicateLine(_) => {
                    let copy = lines[i].clone();
                    lines.insert(i, copy);
                }
                Mutation::DeleteLine(_) => {
                    lines.remove(i);
                }
                Mutation::InsertBlankLine(_) => lines.insert(i, b"\n".to_vec()),
                Mutation::SwapLines(_, q) => {
                    let j = q % lines.len();
                    lines.swap(i, j);
                }
                _ => unreachable!(),
            }
            *bytes = lines.concat();
        }
        Mutation::InsertCr(p) => {
            let newlines: Vec<usize> = bytes
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(i, _)| i)
                .collect();
            let at = if newlines.is_empty() {
                p % (bytes.len() + 1)
            } else {
                newlines[p % newlines.len()]
            };
            bytes.insert(at, b'\r');
        }
    }
}

/// Parses bytes the way a caller would: through `parse` when the input is
/// UTF-8 (also cross-checking `parse_bytes` agrees), else `parse_bytes`.
fn parse_any(bytes: &[u8]) -> Result<Prd, Vec<Diagnostic>> {
    let via_bytes = zurdo::parse_bytes(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let via_str = zurdo::parse(text);
        assert_eq!(via_str, via_bytes, "parse and parse_bytes disagree");
    }
    via_bytes
}

/// Fragments that steer random strings toward PRD-shaped text.
fn fragment() -> impl Strategy<Value = String> {
    let tokens: Vec<&'static str> = vec![
        "# PRD: ",
        "# ",
        "## Task: ",
        "## Task: task-1 — T\n",
        "## ",
        "### ",
        "### Requirements\n",
        "### Description\n",
        "### Acceptance Criteria\n",
        "#### ",
        "task-1",
        "task-2",
        "req-a",
        " — ",
        " – ",
        " - ",
        "\u{2014}",
        "\u{2013}",
        "\n",
        "\r\n",
        "\r",
        "\n\n",
        "- [ ] ",
        "- [x] ",
        "- [X]",
        "- ",
        "* ",
        "1. ",
        "  - ",
        "    ",
        "\t",
        "> ",
        "**Effort**: low\n",
        "**Depends-on**: [",
        "**Depends-on**: []\n",
        "**Max-Attempts**: ",
        "**Agent-timeout**: ",
        "**Frozen**: ",
        "**Skills**: ",
        "**",
        "**:",
        ":",
        "[",
        "]",
        "[[",
        "]]",
        "\\",
        "\\[",
        "\\]",
        "[shell: ",
        "[manual]",
        "[proves:req-a]",
        "[proves:",
        "[http: GET http://h:1/ -> 200]",
        "[grep: x in a.rs]",
        "[no-grep: (",
        "[file-exists: ",
        "[callers: a::b >= ",
        "[symbol: a.b]",
        "`",
        "```\n",
        "~~~",
        "<!-- ",
        "-->",
        "<div>",
        "|a|b|\n|-|-|\n",
        "---\n",
        "===\n",
        "é",
        "日本語",
        "\u{1F980}",
        "\u{0}",
        "\u{FEFF}",
        "\u{200B}",
        " ",
    ];
    prop_oneof![
        6 => prop::sample::select(tokens).prop_map(str::to_string),
        2 => any::<char>().prop_map(|c| c.to_string()),
        1 => "[a-z0-9 ]{1,8}",
        1 => any::<String>(),
    ]
}

fn fast_config(cases: u32) -> Config {
    Config {
        cases,
        // Shrinking a failure to a minimal input is worth the time; keep it bounded.
        max_shrink_iters: 4096,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(fast_config(512))]

    /// (a) Arbitrary bytes, UTF-8 or not.
    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let result = zurdo::parse_bytes(&bytes);
        if let Err(m) = check_result(&bytes, &result) {
            prop_assert!(false, "{}", m);
        }
    }

    /// (a') Bytes that are mostly PRD-shaped text with stray invalid bytes.
    #[test]
    fn shaped_bytes_with_invalid_utf8(
        parts in prop::collection::vec(
            prop_oneof![
                4 => fragment().prop_map(String::into_bytes),
                1 => prop::collection::vec(any::<u8>(), 1..3),
            ],
            0..80,
        )
    ) {
        let bytes = parts.concat();
        let result = zurdo::parse_bytes(&bytes);
        if let Err(m) = check_result(&bytes, &result) {
            prop_assert!(false, "{}", m);
        }
    }

    /// (b) Arbitrary strings, fully random.
    #[test]
    fn arbitrary_strings(text in any::<String>()) {
        let result = parse_any(text.as_bytes());
        if let Err(m) = check_result(text.as_bytes(), &result) {
            prop_assert!(false, "{}", m);
        }
    }

    /// (b') Strings built from PRD-ish fragments: headings, brackets, `**`,
    /// `#`, `- [ ]`, em/en-dashes, CRLF, unicode.
    #[test]
    fn prd_shaped_strings(parts in prop::collection::vec(fragment(), 0..120)) {
        let text = parts.concat();
        let result = parse_any(text.as_bytes());
        if let Err(m) = check_result(text.as_bytes(), &result) {
            prop_assert!(false, "{}", m);
        }
    }

    /// (c) The valid base PRD with a few random edits.
    #[test]
    fn mutated_valid_prd(mutations in prop::collection::vec(mutation(), 1..6)) {
        let mut bytes = BASE.as_bytes().to_vec();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let result = parse_any(&bytes);
        if let Err(m) = check_result(&bytes, &result) {
            prop_assert!(false, "{}\ninput:\n{}", m, String::from_utf8_lossy(&bytes));
        }
    }

    /// (c') The base PRD with CRLF line endings and a few random edits.
    #[test]
    fn mutated_valid_prd_crlf(mutations in prop::collection::vec(mutation(), 0..4)) {
        let mut bytes = BASE.replace('\n', "\r\n").into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        let result = parse_any(&bytes);
        if let Err(m) = check_result(&bytes, &result) {
            prop_assert!(false, "{}\ninput:\n{}", m, String::from_utf8_lossy(&bytes));
        }
    }
}

#[test]
fn base_prd_parses() {
    let prd = zurdo::parse(BASE).unwrap_or_else(|errors| {
        panic!(
            "the base PRD must be valid:\n{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    check_model(&prd).unwrap();
    assert_eq!(prd.tasks.len(), 4);
    let ids: Vec<&str> = prd.tasks_in_run_order().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        ["task-scaffold", "task-auth", "task-health", "task-review"]
    );
    let mut kinds: Vec<&str> = prd
        .tasks
        .iter()
        .flat_map(|t| &t.criteria)
        .flat_map(|c| &c.hints)
        .map(|h| h.kind())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut all = zurdo::hint::HINT_KINDS.to_vec();
    all.sort_unstable();
    assert_eq!(kinds, all, "the base PRD should use every hint kind");
    assert!(prd
        .tasks
        .iter()
        .flat_map(|t| &t.criteria)
        .any(|c| !c.proves.is_empty()));
}

#[test]
fn base_prd_parses_with_crlf() {
    let crlf = BASE.replace('\n', "\r\n");
    let prd = zurdo::parse(&crlf).expect("CRLF base PRD is valid");
    check_model(&prd).unwrap();
}

/// Runs `f` on a thread with the default 2 MiB test stack, failing if it
/// overflows (the process aborts) or takes longer than `limit`.
fn within(name: &str, limit: Duration, input: String) -> Result<Prd, Vec<Diagnostic>> {
    let started = Instant::now();
    let bytes = input.into_bytes();
    let handle = std::thread::Builder::new()
        .name(name.to_string())
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let result = zurdo::parse_bytes(&bytes);
            if let Err(m) = check_result(&bytes, &result) {
                panic!("{m}");
            }
            result
        })
        .expect("spawn");
    let result = handle
        .join()
        .unwrap_or_else(|_| panic!("{name}: the parser panicked"));
    let took = started.elapsed();
    assert!(took < limit, "{name}: took {took:?} (limit {limit:?})");
    result
}

fn task(id: &str, criterion: &str) -> String {
    format!(
        "## Task: {id} — T\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\nD.\n\n### Acceptance Criteria\n- [ ] {criterion}\n\n"
    )
}

#[test]
fn pathological_inputs_return() {
    // Generous: debug builds on a slow 2-core machine.
    let limit = Duration::from_secs(20);
    let header = "# PRD: Pathological\n\n";

    // 10,000-deep nested brackets as a trailing hint.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let input = format!("{header}{}", task("task-1", &format!("deep {deep}")));
    let result = within("nested brackets in a criterion", limit, input);
    assert!(result.is_err(), "deeply nested brackets are not a hint");

    // The same nesting wrapping a real hint.
    let wrapped = format!("{}shell: true{}", "[".repeat(10_000), "]".repeat(10_000));
    let input = format!("{header}{}", task("task-1", &format!("deep {wrapped}")));
    within("nested brackets around a hint", limit, input).ok();

    // Nested brackets everywhere: heading, metadata, description, title.
    let input = format!(
        "# PRD: {deep}\n\n## Task: task-1 — {deep}\n**Effort**: {deep}\n**Depends-on**: {deep}\n\n\
         ### Requirements\n- req-a: {deep}\n\n### Description\n{deep}\n\n\
         ### Acceptance Criteria\n- [ ] {deep} [manual]\n"
    );
    within("nested brackets in every section", limit, input).ok();

    // 100,000 closing brackets.
    let closers = "]".repeat(100_000);
    let input = format!("{header}{}", task("task-1", &format!("x {closers}")));
    let errors = within("100k closing brackets", limit, input).unwrap_err();
    assert!(errors.iter().any(|e| e.message.contains("no matching `[`")));
    let input = format!("{header}{}", task("task-1", &closers));
    within("100k closing brackets alone", limit, input).ok();
    within("100k closing brackets as a file", limit, closers.clone()).ok();

    // 100,000 opening brackets and a lone closer.
    let openers = format!("{}]", "[".repeat(100_000));
    let input = format!("{header}{}", task("task-1", &format!("x {openers}")));
    within("100k opening brackets", limit, input).ok();

    // Escapes: long backslash runs before brackets.
    let escapes = format!("x {}] [manual]", "\\".repeat(100_000));
    let input = format!("{header}{}", task("task-1", &escapes));
    within("100k backslashes", limit, input).ok();
    let escapes = format!("x {}[manual]", "\\]".repeat(50_000));
    let input = format!("{header}{}", task("task-1", &escapes));
    within("50k escaped closers", limit, input).ok();

    // A 1 MB single line: as a criterion, as a description and as the file.
    let long = "a".repeat(1 << 20);
    let input = format!(
        "{header}{}",
        task("task-1", &format!("{long} [shell: true]"))
    );
    let prd = within("1 MB criterion", limit, input).expect("a long criterion is valid");
    assert_eq!(prd.tasks[0].criteria[0].title.len(), 1 << 20);
    let input = format!(
        "{header}## Task: task-1 — T\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\n{long}\n\n### Acceptance Criteria\n- [ ] ok [manual]\n"
    );
    within("1 MB description", limit, input).expect("a long description is valid");
    within("1 MB file of one line", limit, long.clone()).unwrap_err();
    let words = "word ".repeat(200_000);
    within("1 MB line of words", limit, words).unwrap_err();
    let hints = "[manual] ".repeat(100_000);
    let input = format!("{header}{}", task("task-1", &format!("x {hints}")));
    let prd = within("100k hints on one line", limit, input).expect("many hints are valid");
    assert_eq!(prd.tasks[0].criteria[0].hints.len(), 100_000);

    // Many task headings with no body.
    let mut input = String::from(header);
    for i in 0..10_000 {
        input.push_str(&format!("## Task: task-{i} — Empty\n"));
    }
    let errors = within("10k empty tasks", limit, input).unwrap_err();
    assert!(errors.len() >= 10_000);
    let input = format!("{header}{}", "## Task:\n".repeat(10_000));
    within("10k bare task headings", limit, input).unwrap_err();

    // Many tasks, each depending on the previous: a long dependency chain.
    let mut input = String::from(header);
    for i in 0..2_000 {
        let deps = if i == 0 {
            String::new()
        } else {
            format!("task-{}", i - 1)
        };
        input.push_str(&format!(
            "## Task: task-{i} — T\n**Effort**: low\n**Depends-on**: [{deps}]\n\n\
             ### Description\nD.\n\n### Acceptance Criteria\n- [ ] c [manual]\n\n"
        ));
    }
    let prd = within("2k-task chain", limit, input).expect("a chain is valid");
    assert_eq!(prd.run_order, (0..2_000).collect::<Vec<_>>());

    // A 2,000-task dependency cycle.
    let mut input = String::from(header);
    for i in 0..2_000 {
        input.push_str(&format!(
            "## Task: task-{i} — T\n**Effort**: low\n**Depends-on**: [task-{}]\n\n\
             ### Description\nD.\n\n### Acceptance Criteria\n- [ ] c [manual]\n\n",
            (i + 1) % 2_000
        ));
    }
    let errors = within("2k-task cycle", limit, input).unwrap_err();
    assert!(errors
        .iter()
        .any(|e| e.message.contains("dependency cycle")));

    // Deep Markdown nesting (block quotes and lists) handed to pulldown-cmark.
    let quotes = format!("{header}{}x\n", "> ".repeat(10_000));
    within("10k nested block quotes", limit, quotes).unwrap_err();
    let mut lists = String::from(header);
    for depth in 0..2_000 {
        lists.push_str(&"  ".repeat(depth));
        lists.push_str("- [ ] x\n");
    }
    within("2k nested list items", limit, lists).unwrap_err();
    let emphasis = format!("{header}{}x{}\n", "*".repeat(50_000), "*".repeat(50_000));
    within("50k emphasis markers", limit, emphasis).unwrap_err();
    let links = format!("{header}{}\n", "[a](".repeat(20_000));
    within("20k unclosed links", limit, links).unwrap_err();

    // Many lines: 100k blank lines, 100k CRs.
    within("100k newlines", limit, "\n".repeat(100_000)).unwrap_err();
    within("100k carriage returns", limit, "\r".repeat(100_000)).unwrap_err();
    within("empty input", limit, String::new()).unwrap_err();
}
