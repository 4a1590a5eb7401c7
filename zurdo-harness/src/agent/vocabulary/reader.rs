//! The reader: one generic pass that applies a CLI's table to a captured
//! stdout/stderr pair and yields an [`AgentReport`].

use std::collections::HashMap;

use serde_json::Value;

use super::rules::{
    Fold, Input, Is, Items, Level, ModelAt, On, Path, Test, Text, TextMode, ToolRule, UsageRule,
    Verdict, Vocabulary,
};
use super::text::{head, one_line, tail, text_error};
use super::{MAX_ERROR_BYTES, MAX_FINAL_TEXT_BYTES, MAX_INPUT_CHARS, MAX_OUTPUT_BYTES};
use crate::agent::{AgentReport, ToolCall, Usage};

/// Applies a vocabulary to a captured stdout/stderr pair (see
/// [`super::read_with`]).
pub(super) fn apply(vocab: &Vocabulary, stdout: &str, stderr: &str) -> AgentReport {
    let out = parse(stdout);
    let mut reader = Reader::new(vocab);
    for event in &out.events {
        reader.event(event);
    }
    let err = parse(stderr);
    for event in &err.events {
        reader.errors(event);
    }

    let final_text = reader
        .result_text
        .take()
        .filter(|t| !t.trim().is_empty())
        .or_else(|| reader.message_text.take().filter(|t| !t.trim().is_empty()))
        .map(|t| tail(&t, MAX_FINAL_TEXT_BYTES));

    let mut error = reader
        .fatal
        .take()
        .or(reader.pending.take())
        .or(reader.fallback.take());
    if error.is_none() {
        error = if out.events.is_empty() {
            text_error(&err.text, vocab.stderr_noise, true)
                .or_else(|| text_error(&out.text, vocab.stderr_noise, true))
        } else if !reader.ended {
            text_error(&err.text, vocab.stderr_noise, false)
        } else {
            None
        };
    }

    AgentReport {
        final_text,
        tool_calls: reader.calls,
        usage: reader.usage,
        cost_usd: reader.cost,
        error: error.map(|e| head(e.trim(), MAX_ERROR_BYTES)),
        model: reader.model,
        events: out.events.len(),
        non_json_lines: out.text.iter().filter(|l| !l.trim().is_empty()).count(),
    }
}

/// A stream read as it arrives, one line at a time: what the agent has done
/// so far (tool calls, the last one, its latest text), for a heartbeat.
/// It reads with the same table and rules as [`apply`]; a pretty-printed
/// object spread over lines is not read here (no stream zurdo asks for
/// is printed that way).
pub struct Live {
    reader: Reader<'static>,
    events: usize,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("events", &self.events)
            .field("tool_calls", &self.reader.calls.len())
            .finish()
    }
}

impl Live {
    /// A reader of a stream in `vocab`.
    pub fn new(vocab: &'static Vocabulary) -> Live {
        Live {
            reader: Reader::new(vocab),
            events: 0,
        }
    }

    /// Reads one line of stdout (without its newline); the event it held,
    /// when it was one.
    pub fn line(&mut self, line: &str) -> Option<Value> {
        let event = event_of(line)?;
        self.events += 1;
        self.reader.event(&event);
        Some(event)
    }

    /// JSON events read so far.
    pub fn events(&self) -> usize {
        self.events
    }

    /// The tool calls so far.
    pub fn tool_calls(&self) -> &[ToolCall] {
        &self.reader.calls
    }

    /// The latest assistant text.
    pub fn last_text(&self) -> Option<&str> {
        self.reader
            .result_text
            .as_deref()
            .or(self.reader.message_text.as_deref())
            .filter(|t| !t.trim().is_empty())
    }
}

/// One line as an event: a JSON object on that line, else `None`.
pub(crate) fn event_of(line: &str) -> Option<Value> {
    let trimmed = line.trim();
    if !trimmed.starts_with('{') {
        return None;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value @ Value::Object(_)) => Some(value),
        _ => None,
    }
}

/// Whether `on` picks `event` out, reading its kind where `vocab` says.
pub(crate) fn picks(vocab: &Vocabulary, on: &On, event: &Value) -> bool {
    let kind = get(event, vocab.kind).and_then(Value::as_str).unwrap_or("");
    on.kinds.contains(&kind) && passes(event, on.tests)
}

/// A captured output split into JSON objects and the other lines (blank
/// ones included, in order).
struct Parsed<'a> {
    events: Vec<Value>,
    text: Vec<&'a str>,
}

fn parse(input: &str) -> Parsed<'_> {
    let mut parsed = Parsed {
        events: Vec::new(),
        text: Vec::new(),
    };
    let mut pos = 0;
    while pos < input.len() {
        let end = input[pos..].find('\n').map_or(input.len(), |i| pos + i);
        let line = input[pos..end].trim_end_matches('\r');
        let next = (end + 1).min(input.len());
        let trimmed = line.trim();
        if trimmed.starts_with('{') {
            if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
                parsed.events.push(value);
                pos = next;
                continue;
            }
            // An object spread over several lines (pretty-printed output).
            let mut stream = serde_json::Deserializer::from_str(&input[pos..]).into_iter::<Value>();
            if let Some(Ok(value @ Value::Object(_))) = stream.next() {
                let stop = pos + stream.byte_offset();
                let line_end = input[stop..].find('\n').map_or(input.len(), |i| stop + i);
                if input[stop..line_end].trim().is_empty() {
                    parsed.events.push(value);
                    pos = (line_end + 1).min(input.len());
                    continue;
                }
            }
        }
        parsed.text.push(line);
        pos = next;
    }
    parsed
}

/// The reading state of one stream.
struct Reader<'v> {
    vocab: &'v Vocabulary,
    result_text: Option<String>,
    message_text: Option<String>,
    delta_open: bool,
    calls: Vec<ToolCall>,
    ids: HashMap<String, usize>,
    usage: Option<Usage>,
    cost: Option<f64>,
    model: Option<String>,
    fatal: Option<String>,
    pending: Option<String>,
    fallback: Option<String>,
    ended: bool,
}

impl<'v> Reader<'v> {
    fn new(vocab: &'v Vocabulary) -> Self {
        Reader {
            vocab,
            result_text: None,
            message_text: None,
            delta_open: false,
            calls: Vec::new(),
            ids: HashMap::new(),
            usage: None,
            cost: None,
            model: None,
            fatal: None,
            pending: None,
            fallback: None,
            ended: false,
        }
    }

    fn event(&mut self, event: &Value) {
        let vocab = self.vocab;
        self.text(event);
        for rule in vocab.tools {
            if picks(self.vocab, &rule.on, event) {
                self.tools(rule, event);
            }
        }
        for rule in vocab.usage {
            if picks(self.vocab, &rule.on, event) {
                if let Some(u) = usage_at(rule, event) {
                    self.usage = Some(match (rule.fold, self.usage) {
                        (Fold::Add, Some(prev)) => Usage {
                            input_tokens: prev.input_tokens + u.input_tokens,
                            output_tokens: prev.output_tokens + u.output_tokens,
                            cached_input_tokens: prev.cached_input_tokens + u.cached_input_tokens,
                        },
                        _ => u,
                    });
                }
            }
        }
        for rule in vocab.cost {
            if picks(self.vocab, &rule.on, event) {
                if let Some(c) = get(event, rule.at).and_then(Value::as_f64) {
                    self.cost = Some(match (rule.fold, self.cost) {
                        (Fold::Add, Some(prev)) => prev + c,
                        _ => c,
                    });
                }
            }
        }
        if self.model.is_none() {
            for rule in vocab.model {
                if picks(self.vocab, &rule.on, event) {
                    let name = match rule.at {
                        ModelAt::Field(p) => get(event, p).and_then(Value::as_str),
                        ModelAt::FirstKey(p) => get(event, p)
                            .and_then(Value::as_object)
                            .and_then(|m| m.keys().next())
                            .map(String::as_str),
                    };
                    if let Some(name) = name.filter(|n| !n.is_empty() && !rule.skip.contains(n)) {
                        self.model = Some(name.to_string());
                        break;
                    }
                }
            }
        }
        self.errors(event);
        for rule in vocab.ends {
            if picks(self.vocab, &rule.on, event) {
                self.ended = true;
                // Ids are scoped to a run: a later run may reuse them.
                self.ids.clear();
                if rule.success {
                    self.pending = None;
                    self.fallback = None;
                }
            }
        }
    }

    fn text(&mut self, event: &Value) {
        let mut delta = false;
        for rule in self.vocab.text {
            if !picks(self.vocab, &rule.on, event) {
                continue;
            }
            let Some(text) = text_at(&rule.at, event) else {
                continue;
            };
            match rule.mode {
                TextMode::Result => self.result_text = Some(text),
                TextMode::Message => self.message_text = Some(text),
                TextMode::Delta => {
                    delta = true;
                    match (&mut self.message_text, self.delta_open) {
                        (Some(acc), true) => {
                            acc.push_str(&text);
                            if acc.len() > 2 * MAX_FINAL_TEXT_BYTES {
                                *acc = tail(acc, MAX_FINAL_TEXT_BYTES);
                            }
                        }
                        _ => self.message_text = Some(text),
                    }
                }
            }
        }
        self.delta_open = delta;
    }

    fn tools(&mut self, rule: &ToolRule, event: &Value) {
        let items: Vec<&Value> = match rule.items {
            Items::One(p) => get(event, p).into_iter().collect(),
            Items::Each { list, tests } => get(event, list)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter(|b| passes(b, tests)).collect())
                .unwrap_or_default(),
        };
        for item in items {
            let id = get(item, rule.id).and_then(|v| match v {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
            let index = match id.as_ref().and_then(|id| self.ids.get(id)) {
                Some(&i) => i,
                None if rule.opens => {
                    self.calls.push(ToolCall {
                        step: self.calls.len() + 1,
                        ..ToolCall::default()
                    });
                    if let Some(id) = id {
                        self.ids.insert(id, self.calls.len() - 1);
                    }
                    self.calls.len() - 1
                }
                None => continue,
            };
            let call = &mut self.calls[index];
            if let Some(name) = rule
                .name
                .and_then(|p| get(item, p))
                .map(value_text)
                .filter(|n| !n.is_empty())
            {
                call.name = name;
            }
            if let Some(input) = &rule.input {
                let summary = input_summary(item, input, self.vocab.input_keys);
                if !summary.is_empty() {
                    call.input = summary;
                }
            }
            if let Some(ok) = rule.ok.iter().find_map(|v| verdict(v, item)) {
                call.ok = Some(ok);
            }
            if let Some(output) = rule
                .output
                .iter()
                .filter_map(|p| get(item, p))
                .map(value_text)
                .find(|t| !t.trim().is_empty())
            {
                call.output = tail(&output, MAX_OUTPUT_BYTES);
            }
        }
    }

    fn errors(&mut self, event: &Value) {
        for rule in self.vocab.errors {
            if !picks(self.vocab, &rule.on, event) {
                continue;
            }
            let Some(text) = rule.text.iter().find_map(|t| text_at(t, event)) else {
                continue;
            };
            match rule.level {
                Level::Fatal => self.fatal = Some(text),
                Level::Pending => self.pending = Some(text),
                Level::Fallback => self.fallback = Some(text),
            }
        }
    }
}

/// The value at `path` in `value`.
pub(crate) fn get(value: &Value, path: Path) -> Option<&Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

fn passes(value: &Value, tests: &[Test]) -> bool {
    tests.iter().all(|(path, is)| holds(get(value, path), *is))
}

fn holds(value: Option<&Value>, is: Is) -> bool {
    let value = value.filter(|v| !v.is_null());
    match is {
        Is::Str(s) => value.and_then(Value::as_str) == Some(s),
        Is::Not(s) => value.and_then(Value::as_str) != Some(s),
        Is::Prefix(p) => value
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with(p)),
        Is::Contains(p) => value.and_then(Value::as_str).is_some_and(|v| v.contains(p)),
        Is::True => value == Some(&Value::Bool(true)),
        Is::NotTrue => value != Some(&Value::Bool(true)),
        Is::Absent => value.is_none(),
        Is::Present => match value {
            None => false,
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(o)) => !o.is_empty(),
            Some(_) => true,
        },
        Is::Zero => value.and_then(Value::as_f64) == Some(0.0),
        Is::NonZero => value.and_then(Value::as_f64).is_some_and(|n| n != 0.0),
    }
}

/// The text of a value: strings as they are, content blocks by their `text`,
/// arrays one element per line, anything else as compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(value_text)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => match o.get("text") {
            Some(Value::String(t)) => t.clone(),
            _ => value.to_string(),
        },
        _ => value.to_string(),
    }
}

/// The text `at` finds in `event`.
pub(crate) fn text_at(at: &Text, event: &Value) -> Option<String> {
    let text = match *at {
        Text::Field(p) => get(event, p).map(value_text)?,
        Text::Blocks { list, tests, field } => get(event, list)?
            .as_array()?
            .iter()
            .filter(|b| passes(b, tests))
            .filter_map(|b| get(b, field))
            .map(value_text)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Text::Prefixed(prefix, p) => {
            let v = get(event, p).map(value_text)?;
            if v.is_empty() {
                return None;
            }
            format!("{prefix}{v}")
        }
    };
    (!text.trim().is_empty()).then_some(text)
}

fn verdict(v: &Verdict, item: &Value) -> Option<bool> {
    match *v {
        Verdict::Flag(p) => get(item, p).and_then(Value::as_bool),
        Verdict::Fault(p) => get(item, p).and_then(Value::as_bool).map(|f| !f),
        Verdict::ExitCode(p) => get(item, p).and_then(Value::as_i64).map(|c| c == 0),
        Verdict::Status { at, ok, failed } => {
            let s = get(item, at).and_then(Value::as_str)?;
            if ok.contains(&s) {
                Some(true)
            } else if failed.contains(&s) {
                Some(false)
            } else {
                None
            }
        }
    }
}

fn usage_at(rule: &UsageRule, event: &Value) -> Option<Usage> {
    let base = get(event, rule.at)?;
    let entries: Vec<&Value> = if rule.per_entry {
        base.as_object()?.values().collect()
    } else {
        vec![base]
    };
    let mut usage = Usage::default();
    let mut found = false;
    let mut sum = |entry: &Value, paths: &[Path], into: &mut u64| {
        for p in paths {
            if let Some(n) = get(entry, p).and_then(count) {
                *into += n;
                found = true;
            }
        }
    };
    for entry in entries {
        sum(entry, rule.input, &mut usage.input_tokens);
        sum(entry, rule.cached, &mut usage.cached_input_tokens);
        sum(entry, rule.output, &mut usage.output_tokens);
    }
    found.then_some(usage)
}

fn count(value: &Value) -> Option<u64> {
    value
        .as_u64()
        .or_else(|| value.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
}

fn input_summary(item: &Value, input: &Input, keys: &[&str]) -> String {
    let fields = |v: &Value| {
        input
            .fields
            .iter()
            .filter_map(|p| get(v, p))
            .map(|x| summarise(x, keys))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let text = match input.each {
        None => fields(item),
        Some(list) => get(item, list)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(fields)
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default(),
    };
    one_line(&text, MAX_INPUT_CHARS)
}

/// A tool input on one line: an object by its telling keys, else as JSON.
fn summarise(value: &Value, keys: &[&str]) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => {
            if s.trim_start().starts_with('{') {
                if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(s) {
                    return summarise(&object, keys);
                }
            }
            s.clone()
        }
        Value::Object(o) => {
            let picked: Vec<String> = keys
                .iter()
                .filter_map(|k| o.get(*k))
                .filter_map(|v| match v {
                    Value::String(s) if !s.is_empty() => Some(s.clone()),
                    Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
                    _ => None,
                })
                .collect();
            if picked.is_empty() {
                value.to_string()
            } else {
                picked.join(" ")
            }
        }
        _ => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::agent::vocabulary::{read, MAX_FINAL_TEXT_BYTES, MAX_INPUT_CHARS, MAX_OUTPUT_BYTES};
    use crate::agent::Provider;

    #[test]
    fn non_json_lines_are_skipped_and_counted() {
        let stream = "starting up\n\n{\"type\":\"turn.started\"}\n[1,2]\n{not json\n{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"hi\"}}\r\n42\n";
        let r = read(Provider::OpenAi, stream, "");
        assert_eq!(r.events, 2);
        assert_eq!(r.non_json_lines, 4); // blank lines are not counted
        assert_eq!(r.final_text.as_deref(), Some("hi"));
        assert_eq!(r.error, None);
    }

    #[test]
    fn a_stream_read_line_by_line_says_what_the_whole_read_says() {
        use crate::agent::vocabulary::{vocabulary, Live};
        for stream in [
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/public-codex-stream-output-2.jsonl"
            )),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/streams/public-codex-stream-output-3.jsonl"
            )),
        ] {
            let whole = read(Provider::OpenAi, stream, "");
            let mut live = Live::new(vocabulary(Provider::OpenAi));
            for line in stream.lines() {
                live.line(line);
            }
            assert_eq!(live.events(), whole.events);
            assert_eq!(live.tool_calls(), whole.tool_calls.as_slice());
            assert_eq!(live.last_text(), whole.final_text.as_deref());
        }
        let mut live = Live::new(vocabulary(Provider::OpenAi));
        assert!(live.line("not json").is_none() && live.line("[1]").is_none());
        assert_eq!(live.events(), 0);
    }

    #[test]
    fn bounds_input_output_and_final_text() {
        let long_command = format!("echo {}\nsecond line", "x".repeat(500));
        let long_output = format!("HEAD{}TAIL", "y".repeat(10_000));
        let long_text = format!("START{}END", "z".repeat(100_000));
        let stream = [
            serde_json::json!({"type":"tool_use","tool_id":"a","tool_name":"run_shell_command","parameters":{"command": long_command}}),
            serde_json::json!({"type":"tool_result","tool_id":"a","status":"success","output": long_output}),
            serde_json::json!({"type":"message","role":"assistant","content": long_text,"delta":true}),
        ]
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n");
        let r = read(Provider::Google, &stream, "");
        let call = &r.tool_calls[0];
        assert_eq!(call.input.chars().count(), MAX_INPUT_CHARS);
        assert!(call.input.starts_with("echo xxx"));
        assert!(call.input.ends_with('…'));
        assert!(!call.input.contains('\n'));
        assert!(call.output.len() <= MAX_OUTPUT_BYTES);
        assert!(call.output.starts_with('…') && call.output.ends_with("TAIL"));
        let text = r.final_text.unwrap();
        assert!(text.len() <= MAX_FINAL_TEXT_BYTES);
        assert!(text.starts_with('…') && text.ends_with("END"));
    }
}
