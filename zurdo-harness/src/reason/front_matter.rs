//! The strict YAML front-matter subset a lesson file is written in: a
//! `---` line, `key: value` lines, a closing `---` line, then the body.
//!
//! A top-level key holds either a scalar or (when the [`Schema`] says so) a
//! block of nested keys indented by at least two spaces, each holding a
//! list: a flow sequence `[a, "b c"]` or `- item` lines below it. A scalar
//! is empty, plain (refused where YAML would read it as something other
//! than that string) or double-quoted with JSON escapes. `# comment` and
//! blank lines are allowed anywhere; tabs in indentation, single quotes,
//! anchors, flow maps and multi-line scalars are not. Keys the schema does
//! not name are errors, and so are repeated keys: every [`Error`] names what
//! is wrong and the line where it is.
//!
//! [`FrontMatter::render`] writes the canonical form, which [`parse`] reads
//! back unchanged.

use std::fmt;

/// The keys a front matter may hold, in no particular order.
pub type Schema = [Key];

/// One key a front matter may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The key's name.
    pub name: &'static str,
    /// What it holds.
    pub shape: Shape,
}

/// What a top-level key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A scalar on the key's own line.
    Scalar,
    /// Nested keys on the following indented lines, each holding a list;
    /// these are their names.
    Block(&'static [&'static str]),
}

/// A value in a front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A string.
    Scalar(String),
    /// A list of strings, in the order written.
    List(Vec<String>),
    /// Nested keys, in the order written.
    Block(Vec<Entry>),
}

/// One key and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// The file line number (from 1) the key is on; 0 for an entry built
    /// to be rendered.
    pub line: usize,
    /// The value.
    pub value: Value,
}

impl Entry {
    /// An entry to render (line 0).
    pub fn new(key: &str, value: Value) -> Entry {
        Entry {
            key: key.to_string(),
            line: 0,
            value,
        }
    }

    /// The entry in canonical form: `key: value` (lists as flow sequences),
    /// or `key:` and its nested entries indented by two spaces.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.write("", &mut out);
        out
    }

    fn write(&self, indent: &str, out: &mut String) {
        out.push_str(indent);
        out.push_str(&self.key);
        out.push(':');
        match &self.value {
            Value::Scalar(s) => {
                out.push(' ');
                out.push_str(&quote(s));
            }
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(|s| quote(s)).collect();
                out.push_str(&format!(" [{}]", items.join(", ")));
            }
            Value::Block(entries) => {
                out.push('\n');
                let deeper = format!("{indent}  ");
                for entry in entries {
                    entry.write(&deeper, out);
                }
                return;
            }
        }
        out.push('\n');
    }
}

/// A parsed front matter and the body after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatter {
    /// The top-level entries, in the order written.
    pub entries: Vec<Entry>,
    /// The body: the lines after the closing `---`, joined by `\n`.
    pub body: String,
    /// The file line number of the closing `---` (0 for a front matter
    /// built to be rendered).
    pub end: usize,
}

impl FrontMatter {
    /// A front matter to render.
    pub fn new(entries: Vec<Entry>, body: &str) -> FrontMatter {
        FrontMatter {
            entries,
            body: body.to_string(),
            end: 0,
        }
    }

    /// The value of a top-level key.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|e| e.key == key).map(|e| &e.value)
    }

    /// The error for a required key that is absent.
    pub fn missing(&self, key: &str) -> Error {
        Error {
            line: self.end,
            kind: ErrorKind::Missing(key.to_string()),
        }
    }

    /// The file's text: `---`, the entries, `---`, then the body and a
    /// final newline when the body is not empty. [`parse`] reads it back.
    pub fn render(&self) -> String {
        let mut out = String::from("---\n");
        for entry in &self.entries {
            out.push_str(&entry.render());
        }
        out.push_str("---\n");
        if !self.body.is_empty() {
            out.push_str(&self.body);
            out.push('\n');
        }
        out
    }
}

/// What is wrong with a front matter, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The file line number (from 1); for [`ErrorKind::Missing`], the line
    /// of the closing `---`.
    pub line: usize,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong with a front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The first line is not `---`.
    NoOpening,
    /// No `---` line closes the front matter.
    NotClosed,
    /// A required key is absent.
    Missing(String),
    /// A tab in a line's indentation.
    Tab,
    /// An indented line where no block is open; the keys that take blocks.
    UnexpectedIndent(Vec<&'static str>),
    /// A block key with a value on its own line.
    BlockOnSameLine(String),
    /// A top-level key the schema does not name.
    UnknownKey(String),
    /// A nested key the schema does not name: the block, the key, and the
    /// keys it may hold.
    UnknownNestedKey {
        /// The block's key.
        block: String,
        /// The nested key.
        key: String,
        /// The keys the block may hold.
        expected: &'static [&'static str],
    },
    /// A key written twice (`block.key` for a nested one).
    Duplicate(String),
    /// A nested key indented by less than two spaces, under this block.
    ShallowIndent(String),
    /// Nested keys indented differently, under this block.
    InconsistentIndent(String),
    /// A list item with nothing in it.
    EmptyItem,
    /// A line that is not `key: value`.
    Malformed,
    /// Text after a double-quoted value.
    TextAfterQuote,
    /// A single-quoted value.
    SingleQuoted,
    /// A plain value YAML would read as something else.
    MustQuote(String),
    /// A double-quoted string with no closing quote.
    Unterminated,
    /// A double-quoted string that is not valid JSON, and why.
    InvalidQuoted(String),
    /// A nested key's value that is not a list.
    NotAList,
    /// List items not separated by a comma.
    MissingComma,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let no = self.line;
        match &self.kind {
            ErrorKind::NoOpening => {
                write!(f, "expected `---` opening the front matter at line {no}")
            }
            ErrorKind::NotClosed => write!(
                f,
                "the front matter opened at line 1 is never closed by a `---` line"
            ),
            ErrorKind::Missing(key) => write!(
                f,
                "missing front-matter key `{key}` (front matter at lines 1-{no})"
            ),
            ErrorKind::Tab => write!(
                f,
                "a tab in the indentation at line {no}; indent with spaces"
            ),
            ErrorKind::UnexpectedIndent(blocks) => {
                let names: Vec<String> = blocks.iter().map(|b| format!("`{b}:`")).collect();
                match names.len() {
                    0 => write!(f, "unexpected indented line {no}: no key has nested keys"),
                    1 => write!(
                        f,
                        "unexpected indented line {no}: only {} has nested keys",
                        names[0]
                    ),
                    _ => write!(
                        f,
                        "unexpected indented line {no}: only {} have nested keys",
                        one_of(&names, "and")
                    ),
                }
            }
            ErrorKind::BlockOnSameLine(key) => write!(
                f,
                "`{key}:` takes its keys on the following indented lines, at line {no}"
            ),
            ErrorKind::UnknownKey(key) => {
                write!(f, "unknown front-matter key `{key}` at line {no}")
            }
            ErrorKind::UnknownNestedKey {
                block,
                key,
                expected,
            } => {
                let expected: Vec<String> = expected.iter().map(|e| e.to_string()).collect();
                write!(
                    f,
                    "unknown front-matter key `{block}.{key}` at line {no} (expected {})",
                    one_of(&expected, "or")
                )
            }
            ErrorKind::Duplicate(key) => {
                write!(f, "duplicate front-matter key `{key}` at line {no}")
            }
            ErrorKind::ShallowIndent(block) => write!(
                f,
                "indent the keys under `{block}:` by at least two spaces, at line {no}"
            ),
            ErrorKind::InconsistentIndent(block) => {
                write!(f, "inconsistent indentation under `{block}:` at line {no}")
            }
            ErrorKind::EmptyItem => write!(f, "an empty list item at line {no}"),
            ErrorKind::Malformed => {
                write!(f, "malformed front-matter line {no}: expected `key: value`")
            }
            ErrorKind::TextAfterQuote => {
                write!(f, "unexpected text after the closing quote at line {no}")
            }
            ErrorKind::SingleQuoted => write!(
                f,
                "single-quoted values are not supported at line {no}; use double quotes"
            ),
            ErrorKind::MustQuote(value) => {
                write!(f, "the value `{value}` at line {no} must be double-quoted")
            }
            ErrorKind::Unterminated => {
                write!(f, "an unterminated double-quoted string at line {no}")
            }
            ErrorKind::InvalidQuoted(why) => {
                write!(f, "an invalid double-quoted string at line {no}: {why}")
            }
            ErrorKind::NotAList => write!(
                f,
                "expected a list, `[a, b]` or `- item` lines below the key, at line {no}"
            ),
            ErrorKind::MissingComma => {
                write!(f, "expected `,` between list items at line {no}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// `a, b or c`.
fn one_of(items: &[String], last: &str) -> String {
    match items.split_last() {
        None => String::new(),
        Some((only, [])) => only.clone(),
        Some((tail, rest)) => format!("{} {last} {tail}", rest.join(", ")),
    }
}

/// Reads a front matter (after an optional byte-order mark) and the body
/// after it, checking every key against `schema`. Stops at the first
/// problem, in line order.
pub fn parse(text: &str, schema: &Schema) -> Result<FrontMatter, Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return Err(at(1, ErrorKind::NoOpening));
    }
    let close = lines
        .iter()
        .skip(1)
        .position(|l| l.trim_end() == "---")
        .map(|i| i + 1)
        .ok_or(at(1, ErrorKind::NotClosed))?;
    let entries = Parser {
        lines: &lines[1..close],
        first: 2,
        i: 0,
        schema,
    }
    .top()?;
    Ok(FrontMatter {
        entries,
        body: lines[close + 1..].join("\n"),
        end: close + 1,
    })
}

fn at(line: usize, kind: ErrorKind) -> Error {
    Error { line, kind }
}

/// The lines between the fences and the position in them.
struct Parser<'a> {
    lines: &'a [&'a str],
    /// The file line number of `lines[0]`.
    first: usize,
    i: usize,
    schema: &'a Schema,
}

impl Parser<'_> {
    /// The top-level entries.
    fn top(mut self) -> Result<Vec<Entry>, Error> {
        let mut entries: Vec<Entry> = Vec::new();
        while self.i < self.lines.len() {
            let (line, no) = (self.lines[self.i], self.first + self.i);
            self.i += 1;
            if is_filler(line) {
                continue;
            }
            if indentation(line, no)? > 0 {
                let blocks = self
                    .schema
                    .iter()
                    .filter(|k| matches!(k.shape, Shape::Block(_)))
                    .map(|k| k.name)
                    .collect();
                return Err(at(no, ErrorKind::UnexpectedIndent(blocks)));
            }
            let (key, value) = split_key(line, no)?;
            let Some(spec) = self.schema.iter().find(|k| k.name == key) else {
                return Err(at(no, ErrorKind::UnknownKey(key.to_string())));
            };
            if entries.iter().any(|e| e.key == key) {
                return Err(at(no, ErrorKind::Duplicate(key.to_string())));
            }
            let value = match spec.shape {
                Shape::Scalar => Value::Scalar(scalar(value, no)?),
                Shape::Block(names) => {
                    if !value.is_empty() {
                        return Err(at(no, ErrorKind::BlockOnSameLine(key.to_string())));
                    }
                    Value::Block(self.block(key, names)?)
                }
            };
            entries.push(Entry {
                key: key.to_string(),
                line: no,
                value,
            });
        }
        Ok(entries)
    }

    /// The indented keys under `block:`, from the current line on; stops at
    /// the first line that is not part of the block.
    fn block(&mut self, block: &str, names: &'static [&'static str]) -> Result<Vec<Entry>, Error> {
        let mut entries: Vec<Entry> = Vec::new();
        let mut indent = None;
        while self.i < self.lines.len() {
            let (line, no) = (self.lines[self.i], self.first + self.i);
            if is_filler(line) {
                self.i += 1;
                continue;
            }
            let depth = indentation(line, no)?;
            if depth == 0 {
                break;
            }
            self.i += 1;
            if depth < 2 {
                return Err(at(no, ErrorKind::ShallowIndent(block.to_string())));
            }
            if *indent.get_or_insert(depth) != depth {
                return Err(at(no, ErrorKind::InconsistentIndent(block.to_string())));
            }
            let (key, value) = split_key(line.trim_start(), no)?;
            if !names.contains(&key) {
                return Err(at(
                    no,
                    ErrorKind::UnknownNestedKey {
                        block: block.to_string(),
                        key: key.to_string(),
                        expected: names,
                    },
                ));
            }
            if entries.iter().any(|e| e.key == key) {
                return Err(at(no, ErrorKind::Duplicate(format!("{block}.{key}"))));
            }
            let items = if value.is_empty() {
                self.block_sequence(depth)?
            } else {
                flow_sequence(value, no)?
            };
            entries.push(Entry {
                key: key.to_string(),
                line: no,
                value: Value::List(items),
            });
        }
        Ok(entries)
    }

    /// `- item` lines at `depth` or deeper, from the current line on.
    fn block_sequence(&mut self, depth: usize) -> Result<Vec<String>, Error> {
        let mut items = Vec::new();
        while self.i < self.lines.len() {
            let (line, no) = (self.lines[self.i], self.first + self.i);
            if is_filler(line) {
                self.i += 1;
                continue;
            }
            let rest = line.trim_start();
            let item = if rest == "-" {
                Some("")
            } else {
                rest.strip_prefix("- ")
            };
            let Some(item) = item.filter(|_| indentation(line, no).is_ok_and(|d| d >= depth))
            else {
                break;
            };
            self.i += 1;
            let item = item.trim();
            if item.is_empty() {
                return Err(at(no, ErrorKind::EmptyItem));
            }
            items.push(scalar(item, no)?);
        }
        Ok(items)
    }
}

/// Whether a front-matter line carries nothing.
fn is_filler(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The number of leading spaces; an error for a tab in the indentation.
fn indentation(line: &str, no: usize) -> Result<usize, Error> {
    let lead = &line[..line.len() - line.trim_start().len()];
    if lead.contains('\t') {
        return Err(at(no, ErrorKind::Tab));
    }
    Ok(lead.len())
}

/// `key: value` (or `key:`) → the key and the trimmed value.
fn split_key(line: &str, no: usize) -> Result<(&str, &str), Error> {
    let malformed = || at(no, ErrorKind::Malformed);
    let (key, rest) = line.split_once(':').ok_or_else(malformed)?;
    let key_ok = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.starts_with('-');
    if !key_ok || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return Err(malformed());
    }
    Ok((key, rest.trim()))
}

/// A scalar value: empty, double-quoted (JSON escapes), or plain.
fn scalar(value: &str, no: usize) -> Result<String, Error> {
    if value.starts_with('"') {
        let (text, end) = quoted(value, no)?;
        if !value[end..].trim().is_empty() {
            return Err(at(no, ErrorKind::TextAfterQuote));
        }
        return Ok(text);
    }
    plain(value, no, false)
}

/// A plain (unquoted) value, refused where YAML would read it as something
/// other than this string.
fn plain(value: &str, no: usize, in_list: bool) -> Result<String, Error> {
    if value.starts_with('\'') {
        return Err(at(no, ErrorKind::SingleQuoted));
    }
    let indicator = value.starts_with([
        '[', ']', '{', '}', '&', '*', '!', '|', '>', '%', '@', '`', ',', '#', '"',
    ]) || value.starts_with("- ")
        || value == "-";
    let ambiguous = value.contains(": ")
        || value.contains(" #")
        || value.ends_with(':')
        || (in_list && value.contains(['[', ']', '{', '}', ',', '"']));
    if indicator || ambiguous {
        return Err(at(no, ErrorKind::MustQuote(value.to_string())));
    }
    Ok(value.to_string())
}

/// The double-quoted string at the start of `s`, and the byte offset just
/// past its closing quote.
fn quoted(s: &str, no: usize) -> Result<(String, usize), Error> {
    let mut escaped = false;
    let mut end = None;
    for (at, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            end = Some(at + 1);
            break;
        }
    }
    let end = end.ok_or_else(|| at(no, ErrorKind::Unterminated))?;
    let text = serde_json::from_str::<String>(&s[..end])
        .map_err(|e| at(no, ErrorKind::InvalidQuoted(e.to_string())))?;
    Ok((text, end))
}

/// A flow sequence, `[a, b, "c d"]`.
fn flow_sequence(value: &str, no: usize) -> Result<Vec<String>, Error> {
    let inner = value
        .strip_prefix('[')
        .and_then(|v| v.strip_suffix(']'))
        .ok_or_else(|| at(no, ErrorKind::NotAList))?;
    let mut items = Vec::new();
    let mut rest = inner.trim();
    if rest.is_empty() {
        return Ok(items);
    }
    loop {
        let after = if rest.starts_with('"') {
            let (text, end) = quoted(rest, no)?;
            items.push(text);
            &rest[end..]
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            let item = rest[..end].trim();
            if item.is_empty() {
                return Err(at(no, ErrorKind::EmptyItem));
            }
            items.push(plain(item, no, true)?);
            &rest[end..]
        };
        let after = after.trim_start();
        if after.is_empty() {
            return Ok(items);
        }
        let Some(next) = after.strip_prefix(',') else {
            return Err(at(no, ErrorKind::MissingComma));
        };
        rest = next.trim_start();
        if rest.is_empty() {
            return Err(at(no, ErrorKind::EmptyItem));
        }
    }
}

/// A value as written: plain when it is made of `[A-Za-z0-9_./:-]` only
/// (and cannot be read as anything else), double-quoted JSON-style
/// otherwise.
pub fn quote(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./:-".contains(c))
        && !value.starts_with(['-', ':'])
        && !value.ends_with(':');
    if plain {
        value.to_string()
    } else {
        serde_json::Value::String(value.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::library::SCHEMA;

    fn parse_err(text: &str) -> Error {
        match parse(text, SCHEMA) {
            Ok(front) => panic!("parsed: {front:?}"),
            Err(e) => e,
        }
    }

    fn list(key: &str, line: usize, items: &[&str]) -> Entry {
        Entry {
            key: key.to_string(),
            line,
            value: Value::List(items.iter().map(|s| s.to_string()).collect()),
        }
    }

    fn scalar(key: &str, line: usize, value: &str) -> Entry {
        Entry {
            key: key.to_string(),
            line,
            value: Value::Scalar(value.to_string()),
        }
    }

    #[test]
    fn entries_keep_their_order_and_lines() {
        let text = "\u{feff}---\r\n# a comment\r\nprd: \"a b.md\"\r\nmatch:\r\n  paths:\r\n    - src/\r\n\r\n  hints: [b, \"a\"]\r\ntask:\r\n---\r\n\r\nbody\r\nmore\r\n";
        let front = parse(text, SCHEMA).expect("parses");
        assert_eq!(
            front.entries,
            vec![
                scalar("prd", 3, "a b.md"),
                Entry {
                    key: "match".into(),
                    line: 4,
                    value: Value::Block(vec![
                        list("paths", 5, &["src/"]),
                        list("hints", 8, &["b", "a"]),
                    ]),
                },
                scalar("task", 9, ""),
            ]
        );
        assert_eq!(front.end, 10);
        assert_eq!(front.body, "\nbody\nmore");
        assert_eq!(front.get("task"), Some(&Value::Scalar(String::new())));
        assert_eq!(front.get("created"), None);
        assert_eq!(
            front.missing("created").to_string(),
            "missing front-matter key `created` (front matter at lines 1-10)"
        );
    }

    #[test]
    fn renders_the_canonical_form_and_reads_it_back() {
        let front = FrontMatter::new(
            vec![
                Entry::new(
                    "match",
                    Value::Block(vec![
                        Entry::new("hints", Value::List(vec!["shell".into(), "no grep".into()])),
                        Entry::new("paths", Value::List(vec![])),
                    ]),
                ),
                Entry::new("task", Value::Scalar("T: 1".into())),
                Entry::new("prd", Value::Scalar(String::new())),
            ],
            "The rule.",
        );
        let text = front.render();
        assert_eq!(
            text,
            "---\nmatch:\n  hints: [shell, \"no grep\"]\n  paths: []\ntask: \"T: 1\"\nprd: \"\"\n---\nThe rule.\n"
        );
        let back = parse(&text, SCHEMA).expect("parses");
        let lines: Vec<usize> = back.entries.iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 5, 6]);
        assert_eq!(back.body, "The rule.");
        assert_eq!(back.render(), text);
        assert_eq!(FrontMatter::new(vec![], "").render(), "---\n---\n");
    }

    #[test]
    fn quotes_only_what_could_read_as_something_else() {
        for plain in ["shell", "tests/", "a.b_c-d", "2026-11-30T10:00:00Z", "x:y"] {
            assert_eq!(quote(plain), plain);
        }
        for (value, quoted) in [
            ("", "\"\""),
            ("-x/", "\"-x/\""),
            (":a", "\":a\""),
            ("a:", "\"a:\""),
            ("a b", "\"a b\""),
            ("say \"hi\"", "\"say \\\"hi\\\"\""),
            ("é", "\"é\""),
        ] {
            assert_eq!(quote(value), quoted);
        }
    }

    #[test]
    fn unknown_keys_are_named_with_their_line() {
        let top = "---\nmatch:\n  hints: [shell]\n  reasons: [exit_code]\ntask: T-1\nprd: p.md\nauthor: me\n---\nbody\n";
        let e = parse_err(top);
        assert_eq!(e.kind, ErrorKind::UnknownKey("author".into()));
        assert_eq!(e.to_string(), "unknown front-matter key `author` at line 7");

        let nested =
            "---\nmatch:\n  hints: [shell]\n  tags: [x]\ntask: T-1\nprd: p.md\n---\nbody\n";
        let e = parse_err(nested);
        assert_eq!(e.line, 4);
        assert_eq!(
            e.to_string(),
            "unknown front-matter key `match.tags` at line 4 (expected hints, reasons, commands or paths)"
        );
    }

    #[test]
    fn malformed_lines_are_errors_naming_the_line() {
        use ErrorKind::*;
        let cases = [
            ("match:\n---\n", 1, NoOpening),
            ("---\nmatch:\ntask: T\n", 1, NotClosed),
            (
                "---\nmatch:\n  hints: shell\ntask: T\nprd: p\n---\n",
                3,
                NotAList,
            ),
            (
                "---\nmatch:\n  hints: [shell,]\ntask: T\nprd: p\n---\n",
                3,
                EmptyItem,
            ),
            (
                "---\nmatch:\n  hints: [\"shell]\ntask: T\nprd: p\n---\n",
                3,
                Unterminated,
            ),
            (
                "---\nmatch:\n\thints: [shell]\ntask: T\nprd: p\n---\n",
                3,
                Tab,
            ),
            ("---\nmatch:\ntask: 'T'\nprd: p\n---\n", 3, SingleQuoted),
            ("---\nmatch:\ntask T\nprd: p\n---\n", 3, Malformed),
            (
                "---\nmatch:\ntask: T\ntask: U\nprd: p\n---\n",
                4,
                Duplicate("task".into()),
            ),
            (
                "---\nmatch:\ntask: a: b\nprd: p\n---\n",
                3,
                MustQuote("a: b".into()),
            ),
            (
                "---\nmatch:\n  hints: [a]\n    reasons: [b]\ntask: T\nprd: p\n---\n",
                4,
                InconsistentIndent("match".into()),
            ),
            (
                "---\nmatch:\ntask: T\n  prd: p\n---\n",
                4,
                UnexpectedIndent(vec!["match"]),
            ),
        ];
        for (text, line, kind) in cases {
            let e = parse_err(text);
            assert_eq!((e.line, &e.kind), (line, &kind), "{text:?}: {e}");
            assert!(e.to_string().contains(&format!("line {line}")), "{e}");
        }
    }

    #[test]
    fn every_message_says_what_and_where() {
        let cases = [
            (
                "---\nmatch: x\n---\n",
                "`match:` takes its keys on the following indented lines, at line 2",
            ),
            (
                "---\nmatch:\n  hints: [a]\n  hints: [b]\n---\n",
                "duplicate front-matter key `match.hints` at line 4",
            ),
            (
                "---\nmatch:\n hints: [a]\n---\n",
                "indent the keys under `match:` by at least two spaces, at line 3",
            ),
            (
                "---\nmatch:\n  hints:\n    -\n---\n",
                "an empty list item at line 4",
            ),
            (
                "---\ntask: \"T\" x\n---\n",
                "unexpected text after the closing quote at line 2",
            ),
            (
                "---\ntask: \"\\q\"\n---\n",
                "an invalid double-quoted string at line 2: invalid escape at line 1 column 3",
            ),
            (
                "---\nmatch:\n  hints: [a b c]\n  paths: [\"a\" \"b\"]\n---\n",
                "expected `,` between list items at line 4",
            ),
            (
                "---\nmatch:\n  hints: [a, [b]]\n---\n",
                "the value `[b]` at line 3 must be double-quoted",
            ),
            (
                "---\nmatch:\ntask: T\n  prd: p\n---\n",
                "unexpected indented line 4: only `match:` has nested keys",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_err(text).to_string(), want, "{text:?}");
        }
    }
}
