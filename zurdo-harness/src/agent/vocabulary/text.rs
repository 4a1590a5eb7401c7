//! Text helpers of the reader: finding the error a CLI printed as plain
//! text (noise, stack frames and ANSI colours dropped), and the reader's
//! names for the shared cuts of [`zurdo_base::text`].

use zurdo_base::text::{collapse_whitespace, cut_chars, strip_ansi};

pub(super) use zurdo_base::text::{head_bytes as head, tail_bytes as tail};

/// `text` on one line (whitespace runs become one space), at most
/// `max_chars` characters, marked with `…` when cut.
pub(super) fn one_line(text: &str, max_chars: usize) -> String {
    cut_chars(&collapse_whitespace(text), max_chars)
}

/// The error a CLI printed as text: the last `Error:`-like line with its
/// continuation lines, else (with `any`) the last meaningful line or
/// (without) the last error-looking one.
pub(super) fn text_error(lines: &[&str], noise: &[&str], any: bool) -> Option<String> {
    let clean: Vec<Option<String>> = lines
        .iter()
        .map(|line| {
            let line = strip_ansi(line);
            let t = line.trim();
            (!t.is_empty() && !is_noise(t, noise)).then(|| t.to_string())
        })
        .collect();
    let marker = (0..clean.len())
        .rev()
        .find(|&i| clean[i].as_deref().is_some_and(is_error_marker));
    if let Some(i) = marker {
        let mut parts: Vec<&str> = vec![clean[i].as_deref().unwrap_or_default()];
        for line in clean[i + 1..].iter().take(3) {
            match line.as_deref() {
                Some(t) if !is_error_marker(t) => parts.push(t),
                _ => break,
            }
        }
        return Some(parts.join(" "));
    }
    clean
        .iter()
        .rev()
        .flatten()
        .find(|t| any || looks_like_error(t))
        .cloned()
}

fn is_noise(line: &str, noise: &[&str]) -> bool {
    let stack_frame = line.starts_with("at ")
        && (line.contains("file://") || line.contains("node:") || line.ends_with(')'));
    stack_frame || noise.iter().any(|n| line.starts_with(n))
}

fn is_error_marker(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.starts_with("error") || lower.starts_with("fatal") || line.contains(" ERROR ")
}

fn looks_like_error(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    is_error_marker(line)
        || lower.contains("error")
        || lower.contains("failed")
        || lower.contains("exception")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_respect_character_boundaries() {
        let s = "é".repeat(3000);
        let t = tail(&s, 101);
        assert!(t.len() <= 101 && t.starts_with('…'));
        let h = head(&s, 101);
        assert!(h.len() <= 101 && h.ends_with('…'));
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(strip_ansi("\u{1b}[31mred\u{1b}[0m"), "red");
    }
}
