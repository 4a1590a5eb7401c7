//! Text cut to a budget without splitting a character, and cleaned for one
//! line of a terminal or a report, or made safe to show on a terminal.

use std::borrow::Cow;

/// The largest character boundary of `text` at or below `at` (`text.len()`
/// when `at` is past the end).
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut at = at;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest character boundary of `text` at or above `at`.
pub fn ceil_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// `text` with every run of whitespace (newlines included) made one space,
/// and none at either end.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of `text` as it is (empty for empty text).
pub fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// The first line of `text` that is not blank, trimmed.
pub fn first_nonblank_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// The last `n` characters of `text`.
pub fn last_chars(text: &str, n: usize) -> String {
    let count = text.chars().count();
    text.chars().skip(count.saturating_sub(n)).collect()
}

/// At most `max_chars` characters of `text`, the last one `…` when cut.
pub fn cut_chars(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The first `max` bytes of `text` (on a character boundary), the `…` that
/// marks a cut counted in them.
pub fn head_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let end = floor_char_boundary(text, max.saturating_sub('…'.len_utf8()));
    format!("{}…", &text[..end])
}

/// The last `max` bytes of `text` (on a character boundary), the `…` that
/// marks a cut counted in them.
pub fn tail_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let start = ceil_char_boundary(text, text.len() - max.saturating_sub('…'.len_utf8()));
    format!("…{}", &text[start..])
}

/// `line` without terminal escape sequences (colours, titles), borrowed
/// when it has none.
pub fn strip_ansi(line: &str) -> Cow<'_, str> {
    if !line.contains('\x1b') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates, then one final byte.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or the string terminator ESC \.
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// True for a character a terminal or a text viewer may obey rather than
/// show: a control character (C0, DEL, C1) or a bidirectional formatting
/// character (which can reorder what a reader sees).
fn unsafe_to_show(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

fn escape(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let escaped = |at: usize, c: char| {
        let kept = keep_lines
            && (c == '\n' || c == '\t' || (c == '\r' && bytes.get(at + 1) == Some(&b'\n')));
        unsafe_to_show(c) && !kept
    };
    let Some(first) = text
        .char_indices()
        .find(|&(at, c)| escaped(at, c))
        .map(|(at, _)| at)
    else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for (at, c) in text[first..].char_indices() {
        if escaped(first + at, c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` safe to show on a terminal, lines kept: every control character
/// but a line feed and a tab (ESC, BEL, a carriage return not before a
/// line feed, DEL, the C1 controls) and every bidirectional formatting
/// character is written as its Rust escape (`\u{1b}`, `\r`), so escape
/// sequences in text zurdo shows (a command's output, a file's line, a file
/// name) are seen, never obeyed. Borrowed when there is nothing to escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// Like [`escape_controls`], for text shown on one line: line feeds and
/// tabs are escaped too (`\n`, `\t`).
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_never_split_a_character() {
        let s = "aé€b"; // 1 + 2 + 3 + 1 bytes
        assert_eq!(floor_char_boundary(s, 2), 1);
        assert_eq!(ceil_char_boundary(s, 2), 3);
        assert_eq!(floor_char_boundary(s, 99), s.len());
        for max in 0..=s.len() + 1 {
            let h = head_bytes(s, max.max(3));
            let t = tail_bytes(s, max.max(3));
            assert!(
                h.len() <= max.max(3) && t.len() <= max.max(3),
                "{max}: {h} {t}"
            );
        }
        assert_eq!(head_bytes("hello world", 8), "hello…");
        assert_eq!(tail_bytes("hello world", 8), "…world");
        assert_eq!(head_bytes("short", 8), "short");
    }

    #[test]
    fn lines_and_chars() {
        assert_eq!(collapse_whitespace("  a \n\t b  "), "a b");
        assert_eq!(first_line("one\ntwo"), "one");
        assert_eq!(first_line(""), "");
        assert_eq!(first_nonblank_line("\n  \n  two \nthree"), "two");
        assert_eq!(last_chars("añb", 2), "ñb");
        assert_eq!(cut_chars("abcdef", 4), "abc…");
        assert_eq!(cut_chars("abcd", 4), "abcd");
    }

    #[test]
    fn escapes_are_removed() {
        assert!(matches!(strip_ansi("plain"), Cow::Borrowed("plain")));
        assert_eq!(strip_ansi("\x1b[1;31merror\x1b[0m: x"), "error: x");
        assert_eq!(strip_ansi("\x1b]0;title\x07ok"), "ok");
        assert_eq!(strip_ansi("\x1b]8;;http://x\x1b\\link"), "link");
    }

    #[test]
    fn controls_are_escaped_not_obeyed() {
        assert!(matches!(
            escape_controls("plain\ttext\r\nok\n"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            escape_controls("\x1b]0;pwned\x07red \x1b[31mx\x1b[0m\n"),
            "\\u{1b}]0;pwned\\u{7}red \\u{1b}[31mx\\u{1b}[0m\n"
        );
        assert_eq!(
            escape_controls("a\rb\u{9b}2J\u{7f}"),
            "a\\rb\\u{9b}2J\\u{7f}"
        );
        assert_eq!(escape_controls("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape_controls("añ€\x1b"), "añ€\\u{1b}");
        assert_eq!(escape_line("a\tb\nc\x1b"), "a\\tb\\nc\\u{1b}");
        assert!(matches!(escape_line("one line: é"), Cow::Borrowed(_)));
    }
}
