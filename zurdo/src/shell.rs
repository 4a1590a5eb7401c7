//! A small, quote-aware reader for `[shell:]` commands.
//!
//! This is not a shell parser. It splits a command line at the top-level
//! list operators — `;`, `&`, newline, `&&`, `||` and `|` — and each command
//! into words, honouring single and double quotes, backslash escapes,
//! comments, `$(…)`, backticks and `( … )` groups, so an operator inside
//! any of those stays inside one word. That is enough to tell what a
//! command's exit status depends on; anything cleverer (functions, `if`,
//! loops, here-documents) is read as ordinary words.

/// How two pipelines of an and-or list are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Connector {
    /// `&&`: run the right side when the left side passed.
    And,
    /// `||`: run the right side when the left side failed.
    Or,
}

/// One word of a simple command, with quotes and escapes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word's value.
    pub text: String,
    /// True when any part of the word was quoted or escaped.
    pub quoted: bool,
}

/// One simple command: words up to the next operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Simple {
    /// The words, redirections and assignments included.
    pub words: Vec<Word>,
}

/// Commands joined by `|`, optionally negated with a leading `!`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pipeline {
    /// True for `! cmd`.
    pub negated: bool,
    /// The stages, left to right.
    pub stages: Vec<Simple>,
    /// The pipeline as written.
    pub raw: String,
}

/// Pipelines joined by `&&` and `||`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// The following pipelines with the connector before each.
    pub rest: Vec<(Connector, Pipeline)>,
    /// True when the list ends with `&` (runs in the background).
    pub background: bool,
}

impl AndOr {
    /// The pipelines in order, with the connector before each (none for the first).
    pub fn pipelines(&self) -> impl Iterator<Item = (Option<Connector>, &Pipeline)> {
        std::iter::once((None, &self.first)).chain(self.rest.iter().map(|(c, p)| (Some(*c), p)))
    }
}

/// A whole command line: and-or lists separated by `;`, `&` or newlines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script {
    /// The lists, in order.
    pub lists: Vec<AndOr>,
}

impl Script {
    /// Every simple command, left to right.
    pub fn simples(&self) -> impl Iterator<Item = &Simple> {
        self.lists
            .iter()
            .flat_map(|l| l.pipelines().flat_map(|(_, p)| p.stages.iter()))
    }
}

/// How deep `sh -c '…'` nesting is followed.
const MAX_NESTING: usize = 6;

/// Every simple command of `command`, including those inside `sh -c '…'`
/// (and `bash`, `zsh`, … `-c`) arguments, outer command first.
pub(crate) fn all_simples(command: &str) -> Vec<Simple> {
    let mut out = Vec::new();
    collect_simples(command, 0, &mut out);
    out
}

fn collect_simples(command: &str, depth: usize, out: &mut Vec<Simple>) {
    for simple in parse(command).simples() {
        out.push(simple.clone());
        if depth < MAX_NESTING {
            if let Some(inner) = simple.inner_shell() {
                collect_simples(&inner.command, depth + 1, out);
            }
        }
    }
}

/// The command run by `sh -c '…'`, and how that shell was started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InnerShell {
    /// The `-c` argument.
    pub command: String,
    /// True when the shell was started with `-o pipefail`.
    pub pipefail: bool,
}

const SHELLS: [&str; 6] = ["sh", "bash", "zsh", "dash", "ksh", "ash"];

impl Simple {
    /// The command and its arguments: leading `NAME=value` assignments,
    /// redirections, and wrappers such as `env`, `time`, `timeout 60`,
    /// `nohup` and `exec` removed.
    pub fn argv(&self) -> Vec<&str> {
        let mut words: Vec<&str> = Vec::with_capacity(self.words.len());
        let mut skip_next = false;
        for word in &self.words {
            if skip_next {
                skip_next = false;
                continue;
            }
            if !word.quoted {
                if let Some(attached) = redirection(&word.text) {
                    skip_next = !attached;
                    continue;
                }
            }
            words.push(word.text.as_str());
        }
        let mut start = 0;
        while words.get(start).is_some_and(|w| is_assignment(w)) {
            start += 1;
        }
        strip_wrappers(&words[start..]).to_vec()
    }

    /// The command's name without its directory (`/bin/true` is `true`).
    pub fn program(&self) -> Option<String> {
        self.argv().first().map(|w| basename(w).to_string())
    }

    /// When this is `sh -c '…'` (or `bash`, `zsh`, …), the inner command.
    pub fn inner_shell(&self) -> Option<InnerShell> {
        let argv = self.argv();
        let (program, args) = argv.split_first()?;
        if !SHELLS.contains(&basename(program)) {
            return None;
        }
        let mut pipefail = false;
        let mut command_mode = false;
        let mut i = 0;
        while let Some(&arg) = args.get(i) {
            i += 1;
            if arg == "--" || arg == "-" {
                break;
            }
            let Some(flags) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) else {
                // The first operand: the command string in -c mode.
                return command_mode.then(|| InnerShell {
                    command: arg.to_string(),
                    pipefail,
                });
            };
            if flags.starts_with('-') {
                continue; // --login, --norc, …
            }
            if flags.contains('c') {
                command_mode = true;
            }
            if flags.contains('o') {
                let name = args.get(i).copied().unwrap_or("");
                i += 1;
                if name == "pipefail" {
                    pipefail = arg.starts_with('-');
                }
            }
        }
        let operand = args.get(i)?;
        command_mode.then(|| InnerShell {
            command: operand.to_string(),
            pipefail,
        })
    }

    /// True for `set -o pipefail` (also `set -euo pipefail` and the like).
    pub fn sets_pipefail(&self) -> bool {
        let argv = self.argv();
        if argv.first() != Some(&"set") {
            return false;
        }
        argv.windows(2)
            .any(|w| w[0].starts_with('-') && w[0].contains('o') && w[1] == "pipefail")
    }
}

/// The last `/`-separated component of a command word.
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// When `word` is a redirection (`>`, `2>&1`, `>>log`, `&>/dev/null`, …),
/// whether its target is attached to it (`false` means the next word is
/// the target).
fn redirection(word: &str) -> Option<bool> {
    const OPERATORS: [&str; 12] = [
        "&>>", "&>", "<<<", "<<", ">>", ">&", "<&", ">|", "<>", ">", "<", "&<",
    ];
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    OPERATORS
        .iter()
        .find(|op| rest.starts_with(*op))
        .map(|op| rest.len() > op.len())
}

/// Drops command wrappers that run the rest of the words as a command.
fn strip_wrappers<'w, 'a>(mut words: &'w [&'a str]) -> &'w [&'a str] {
    while let Some((first, rest)) = words.split_first() {
        let skip_with_value: &[&str] = match basename(first) {
            "env" => &["-u", "-C", "-S", "--unset", "--chdir"],
            "time" | "command" | "nohup" => &[],
            "exec" => &["-a"],
            "nice" => &["-n", "--adjustment"],
            "timeout" => &["-s", "-k", "--signal", "--kill-after"],
            _ => break,
        };
        let is_timeout = basename(first) == "timeout";
        let mut i = 0;
        while let Some(word) = rest.get(i) {
            if skip_with_value.contains(word) {
                i += 2;
            } else if (word.starts_with('-') && *word != "-")
                || (basename(first) == "env" && is_assignment(word))
            {
                i += 1;
            } else {
                break;
            }
        }
        if is_timeout {
            i += 1; // the duration
        }
        words = rest.get(i..).unwrap_or(&[]);
    }
    words
}

/// Splits `command` into lists, pipelines and simple commands.
pub(crate) fn parse(command: &str) -> Script {
    let mut builder = Builder::new(command);
    for token in tokens(command) {
        match token {
            Token::Word(word, span) => builder.word(word, span),
            Token::Op(op) => builder.op(op),
        }
    }
    builder.finish()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `;` or a newline.
    Seq,
    /// `&`.
    Background,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `|` or `|&`.
    Pipe,
}

#[derive(Debug)]
enum Token {
    /// A word and its byte span in the source.
    Word(Word, (usize, usize)),
    Op(Op),
}

/// Assembles tokens into a [`Script`].
struct Builder<'s> {
    source: &'s str,
    lists: Vec<AndOr>,
    /// Pipelines of the open and-or list, each with the connector before it.
    pipelines: Vec<(Option<Connector>, PipelineParts)>,
    /// The connector waiting for its right-hand pipeline.
    pending: Option<Connector>,
    pipeline: PipelineParts,
    simple: Vec<Word>,
    /// Byte span of the open simple command.
    span: Option<(usize, usize)>,
}

#[derive(Default)]
struct PipelineParts {
    negated: bool,
    stages: Vec<Simple>,
    span: Option<(usize, usize)>,
}

impl<'s> Builder<'s> {
    fn new(source: &'s str) -> Self {
        Builder {
            source,
            lists: Vec::new(),
            pipelines: Vec::new(),
            pending: None,
            pipeline: PipelineParts::default(),
            simple: Vec::new(),
            span: None,
        }
    }

    fn word(&mut self, word: Word, span: (usize, usize)) {
        if self.simple.is_empty()
            && self.pipeline.stages.is_empty()
            && !word.quoted
            && word.text == "!"
        {
            self.pipeline.negated = !self.pipeline.negated;
            self.extend_span(span);
            return;
        }
        self.simple.push(word);
        self.extend_span(span);
    }

    fn extend_span(&mut self, (start, end): (usize, usize)) {
        self.span = Some(match self.span {
            Some((s, _)) => (s, end),
            None => (start, end),
        });
        self.pipeline.span = Some(match self.pipeline.span {
            Some((s, _)) => (s, end),
            None => (start, end),
        });
    }

    fn end_simple(&mut self) {
        if !self.simple.is_empty() {
            let words = std::mem::take(&mut self.simple);
            self.pipeline.stages.push(Simple { words });
        }
        self.span = None;
    }

    fn end_pipeline(&mut self) {
        self.end_simple();
        let parts = std::mem::take(&mut self.pipeline);
        if parts.stages.is_empty() {
            return;
        }
        let connector = if self.pipelines.is_empty() {
            None
        } else {
            self.pending.or(Some(Connector::And))
        };
        self.pending = None;
        self.pipelines.push((connector, parts));
    }

    fn end_list(&mut self, background: bool) {
        let source = self.source;
        self.end_pipeline();
        self.pending = None;
        let mut parts = std::mem::take(&mut self.pipelines).into_iter();
        let Some((_, first)) = parts.next() else {
            return;
        };
        let rest = parts
            .map(|(c, p)| (c.unwrap_or(Connector::And), p.build(source)))
            .collect();
        self.lists.push(AndOr {
            first: first.build(source),
            rest,
            background,
        });
    }

    fn op(&mut self, op: Op) {
        match op {
            Op::Pipe => self.end_simple(),
            Op::And | Op::Or => {
                self.end_pipeline();
                if !self.pipelines.is_empty() {
                    self.pending = Some(if op == Op::And {
                        Connector::And
                    } else {
                        Connector::Or
                    });
                }
            }
            Op::Seq => self.end_list(false),
            Op::Background => self.end_list(true),
        }
    }

    fn finish(mut self) -> Script {
        self.end_list(false);
        Script { lists: self.lists }
    }
}

impl PipelineParts {
    fn build(self, source: &str) -> Pipeline {
        let raw = self
            .span
            .and_then(|(s, e)| source.get(s..e))
            .unwrap_or("")
            .trim()
            .to_string();
        Pipeline {
            negated: self.negated,
            stages: self.stages,
            raw,
        }
    }
}

/// Splits `source` into words and operators.
fn tokens(source: &str) -> Vec<Token> {
    Lexer::new(source).run()
}

struct Lexer<'s> {
    source: &'s str,
    chars: Vec<(usize, char)>,
    i: usize,
    out: Vec<Token>,
    word: Option<(Word, usize)>,
}

impl<'s> Lexer<'s> {
    fn new(source: &'s str) -> Self {
        Lexer {
            source,
            chars: source.char_indices().collect(),
            i: 0,
            out: Vec::new(),
            word: None,
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.i + ahead).map(|&(_, c)| c)
    }

    fn offset(&self, i: usize) -> usize {
        self.chars.get(i).map_or(self.source.len(), |&(b, _)| b)
    }

    fn word_mut(&mut self) -> &mut Word {
        let start = self.offset(self.i);
        &mut self
            .word
            .get_or_insert_with(|| {
                (
                    Word {
                        text: String::new(),
                        quoted: false,
                    },
                    start,
                )
            })
            .0
    }

    fn push(&mut self, c: char) {
        self.word_mut().text.push(c);
    }

    fn flush(&mut self) {
        if let Some((word, start)) = self.word.take() {
            let end = self.offset(self.i);
            self.out.push(Token::Word(word, (start, end)));
        }
    }

    fn op(&mut self, op: Op, len: usize) {
        self.flush();
        self.out.push(Token::Op(op));
        self.i += len;
    }

    fn run(mut self) -> Vec<Token> {
        while let Some(c) = self.peek(0) {
            match c {
                ' ' | '\t' | '\r' => {
                    self.flush();
                    self.i += 1;
                }
                '\n' => self.op(Op::Seq, 1),
                ';' => self.op(Op::Seq, 1),
                '#' if self.word.is_none() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\'' => self.single_quoted(),
                '"' => self.double_quoted(),
                '\\' => self.escape(),
                '`' => self.backticks(),
                '$' if self.peek(1) == Some('(') => {
                    self.push('$');
                    self.i += 1;
                    self.balanced();
                }
                '(' => self.balanced(),
                '&' => {
                    let after_redirect = self
                        .word
                        .as_ref()
                        .is_some_and(|(w, _)| !w.quoted && w.text.ends_with(['>', '<']));
                    if self.peek(1) == Some('&') {
                        self.op(Op::And, 2);
                    } else if after_redirect || self.peek(1) == Some('>') {
                        self.push('&');
                        self.i += 1;
                    } else {
                        self.op(Op::Background, 1);
                    }
                }
                '|' => {
                    let after_redirect = self
                        .word
                        .as_ref()
                        .is_some_and(|(w, _)| !w.quoted && w.text.ends_with('>'));
                    if after_redirect {
                        self.push('|');
                        self.i += 1;
                    } else if self.peek(1) == Some('|') {
                        self.op(Op::Or, 2);
                    } else if self.peek(1) == Some('&') {
                        self.op(Op::Pipe, 2);
                    } else {
                        self.op(Op::Pipe, 1);
                    }
                }
                _ => {
                    self.push(c);
                    self.i += 1;
                }
            }
        }
        self.flush();
        self.out
    }

    fn single_quoted(&mut self) {
        self.word_mut().quoted = true;
        self.i += 1;
        while let Some(c) = self.peek(0) {
            self.i += 1;
            if c == '\'' {
                return;
            }
            self.push(c);
        }
    }

    fn double_quoted(&mut self) {
        self.word_mut().quoted = true;
        self.i += 1;
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return;
                }
                '\\' => match self.peek(1) {
                    Some(n @ ('"' | '\\' | '$' | '`')) => {
                        self.push(n);
                        self.i += 2;
                    }
                    Some('\n') => self.i += 2,
                    _ => {
                        self.push('\\');
                        self.i += 1;
                    }
                },
                _ => {
                    self.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn escape(&mut self) {
        match self.peek(1) {
            Some('\n') => self.i += 2,
            Some(n) => {
                self.word_mut().quoted = true;
                self.push(n);
                self.i += 2;
            }
            None => {
                self.push('\\');
                self.i += 1;
            }
        }
    }

    fn backticks(&mut self) {
        self.push('`');
        self.i += 1;
        while let Some(c) = self.peek(0) {
            self.push(c);
            self.i += 1;
            match c {
                '`' => return,
                '\\' => {
                    if let Some(n) = self.peek(0) {
                        self.push(n);
                        self.i += 1;
                    }
                }
                _ => {}
            }
        }
    }

    /// Copies a `( … )` group verbatim into the current word, quotes inside
    /// it respected, up to the matching `)` (or the end of the input).
    fn balanced(&mut self) {
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek(0) {
            self.push(c);
            self.i += 1;
            match (quote, c) {
                (Some('\''), '\'') => quote = None,
                (Some('\''), _) => {}
                (_, '\\') => {
                    if let Some(n) = self.peek(0) {
                        self.push(n);
                        self.i += 1;
                    }
                }
                (Some('"'), '"') => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(') => depth += 1,
                (None, ')') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(simple: &Simple) -> Vec<&str> {
        simple.words.iter().map(|w| w.text.as_str()).collect()
    }

    #[test]
    fn quotes_and_escapes_keep_operators_inside_words() {
        let script = parse(r#"echo "a; b" 'c | d' e\;f "x\"y" && z"#);
        assert_eq!(script.lists.len(), 1);
        let list = &script.lists[0];
        assert_eq!(list.rest.len(), 1);
        assert_eq!(
            words(&list.first.stages[0]),
            ["echo", "a; b", "c | d", "e;f", "x\"y"]
        );
        assert_eq!(list.rest[0].0, Connector::And);
    }

    #[test]
    fn splits_lists_pipelines_and_connectors() {
        let script = parse("a && b || c; d & e\nf | g |& h");
        let shapes: Vec<(usize, bool)> = script
            .lists
            .iter()
            .map(|l| (l.rest.len() + 1, l.background))
            .collect();
        assert_eq!(shapes, [(3, false), (1, true), (1, false), (1, false)]);
        assert_eq!(script.lists[0].rest[1].0, Connector::Or);
        assert_eq!(script.lists[3].first.stages.len(), 3);
        assert_eq!(script.lists[3].first.raw, "f | g |& h");
    }

    #[test]
    fn groups_substitutions_and_redirections_stay_whole() {
        let script = parse("(cd x && make) || true");
        assert_eq!(words(&script.lists[0].first.stages[0]), ["(cd x && make)"]);
        let script = parse("echo $(a; b | c) `d; e` | wc -l");
        assert_eq!(script.lists.len(), 1);
        assert_eq!(script.lists[0].first.stages.len(), 2);
        let script = parse("cargo test 2>&1 >out.log &>/dev/null > x | tail");
        let stages = &script.lists[0].first.stages;
        assert_eq!(stages.len(), 2);
        assert_eq!(stages[0].argv(), ["cargo", "test"]);
    }

    #[test]
    fn negation_comments_and_continuations() {
        let script = parse("! grep -q x f # trailing && comment");
        let pipeline = &script.lists[0].first;
        assert!(pipeline.negated);
        assert_eq!(words(&pipeline.stages[0]), ["grep", "-q", "x", "f"]);
        let script = parse("cargo \\\n test");
        assert_eq!(script.lists[0].first.stages[0].argv(), ["cargo", "test"]);
    }

    #[test]
    fn argv_drops_assignments_and_wrappers() {
        let script = parse("FOO=1 env -u X BAR=2 time timeout -s KILL 60 nice -n 5 cargo test");
        assert_eq!(script.lists[0].first.stages[0].argv(), ["cargo", "test"]);
        let script = parse("/usr/bin/true");
        assert_eq!(
            script.lists[0].first.stages[0].program().as_deref(),
            Some("true")
        );
    }

    #[test]
    fn reads_inner_shells_and_pipefail() {
        let simple = |c: &str| parse(c).lists[0].first.stages[0].clone();
        assert_eq!(
            simple("bash -o pipefail -c 'cargo test | tail'").inner_shell(),
            Some(InnerShell {
                command: "cargo test | tail".into(),
                pipefail: true
            })
        );
        assert_eq!(
            simple("sh -ec \"make\" arg0").inner_shell(),
            Some(InnerShell {
                command: "make".into(),
                pipefail: false
            })
        );
        assert_eq!(simple("bash script.sh").inner_shell(), None);
        assert_eq!(simple("sh -c").inner_shell(), None);
        assert!(simple("set -euo pipefail").sets_pipefail());
        assert!(simple("set -o pipefail").sets_pipefail());
        assert!(!simple("set +o pipefail").sets_pipefail());
        assert!(!simple("echo -o pipefail").sets_pipefail());
        assert_eq!(all_simples("sh -c 'a; bash -c \"b | c\"'").len(), 5);
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for command in [
            "echo \"abc",
            "echo 'abc",
            "echo $(abc",
            "echo `abc",
            "a \\",
            "(",
            ")",
            "&&",
            "||",
            "|",
            ";",
            "&",
            "!",
            "2>",
            "é ü | ñ",
            "$(",
            "\"\\",
        ] {
            let _ = parse(command);
            let _ = all_simples(command);
        }
    }

    proptest::proptest! {
        #[test]
        fn never_panics(command in "\\PC{0,80}") {
            let script = parse(&command);
            for simple in script.simples() {
                let _ = simple.argv();
                let _ = simple.inner_shell();
            }
            let _ = all_simples(&command);
        }

        #[test]
        fn never_panics_on_shell_alphabet(command in "[a-z \\-|&;()'\"\\\\$`<>!#0-9\n]{0,60}") {
            let _ = all_simples(&command);
        }
    }
}
