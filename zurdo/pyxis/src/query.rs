//! What a text asks for: its terms, the paths it names and the qualified
//! names (`Config::load`) it mentions.

use std::collections::BTreeMap;

use crate::tokens;

/// Bytes of a query's text read at most (the rest is ignored).
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

/// Distinct terms, named paths and named symbols kept at most, each.
pub const MAX_QUERY_ITEMS: usize = 256;

/// How often one term counts at most, however often the text repeats it.
pub const MAX_TERM_REPEATS: u32 = 3;

/// A query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// Each term and how often the text has it (at most [`MAX_TERM_REPEATS`]).
    pub terms: BTreeMap<String, u32>,
    /// Paths (or file names) the text names, as written, in order.
    pub paths: Vec<String>,
    /// Qualified names the text mentions, as segments (`["Config", "load"]`).
    pub symbols: Vec<Vec<String>>,
    /// The first form each term was seen in (`pars` → `parsing`), to show
    /// a match in the words of the text.
    pub forms: BTreeMap<String, String>,
}

impl Query {
    /// The query of `text` (its first [`MAX_QUERY_BYTES`]): its terms, the
    /// paths it names (a word with a `/`, or a file name with an extension:
    /// `src/lib.rs`, `Cargo.toml`; URLs are not paths) and the qualified
    /// names it mentions (`Config::load`).
    pub fn parse(text: &str) -> Query {
        let mut query = Query::default();
        query.add_text(text);
        query
    }

    /// Adds the terms, paths and names of `text`.
    pub fn add_text(&mut self, text: &str) {
        let text = &text[..zurdo_base::text::floor_char_boundary(text, MAX_QUERY_BYTES)];
        tokens::each_term_with_form(text, |term, form| {
            if self.add_term(term.clone()) {
                self.forms.entry(term).or_insert_with(|| form.to_string());
            }
        });
        for chunk in text.split(|c: char| c.is_whitespace()) {
            let chunk = chunk.trim_matches(|c: char| {
                matches!(
                    c,
                    '`' | '\''
                        | '"'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '{'
                        | '}'
                        | '<'
                        | '>'
                        | ','
                        | ';'
                        | ':'
                        | '!'
                        | '?'
                        | '*'
                        | '.'
                )
            });
            if let Some(segments) = qualified(chunk) {
                self.add_symbol(segments);
            } else if looks_like_path(chunk) {
                self.add_path(chunk);
            }
        }
    }

    /// Counts `term` once more (up to [`MAX_TERM_REPEATS`]); false when
    /// the query holds [`MAX_QUERY_ITEMS`] other terms already.
    pub fn add_term(&mut self, term: String) -> bool {
        if self.terms.len() >= MAX_QUERY_ITEMS && !self.terms.contains_key(&term) {
            return false;
        }
        let n = self.terms.entry(term).or_insert(0);
        *n = (*n + 1).min(MAX_TERM_REPEATS);
        true
    }

    /// The term as the text wrote it (the term itself when it came from
    /// elsewhere).
    pub fn form<'a>(&'a self, term: &'a str) -> &'a str {
        self.forms.get(term).map_or(term, String::as_str)
    }

    /// Names a path (a hint's target, say); its words count as terms too.
    pub fn add_path(&mut self, path: &str) {
        let path = path.trim_start_matches("./").trim_end_matches('/');
        if path.is_empty()
            || self.paths.iter().any(|p| p == path)
            || self.paths.len() >= MAX_QUERY_ITEMS
        {
            return;
        }
        self.paths.push(path.to_string());
    }

    /// Mentions a qualified name (a hint's symbol, say).
    pub fn add_symbol(&mut self, segments: Vec<String>) {
        if segments.is_empty()
            || self.symbols.contains(&segments)
            || self.symbols.len() >= MAX_QUERY_ITEMS
        {
            return;
        }
        self.symbols.push(segments);
    }

    /// True when the query can match nothing.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.paths.is_empty() && self.symbols.is_empty()
    }
}

/// `a::b::c` (identifiers joined by `::`, a trailing `()` allowed) as its
/// segments.
fn qualified(chunk: &str) -> Option<Vec<String>> {
    let chunk = chunk.strip_suffix("()").unwrap_or(chunk);
    if !chunk.contains("::") {
        return None;
    }
    let segments: Vec<String> = chunk.split("::").map(str::to_string).collect();
    let ident = |s: &String| {
        !s.is_empty()
            && !s.starts_with(|c: char| c.is_ascii_digit())
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    segments.iter().all(ident).then_some(segments)
}

/// A word made of path characters with a `/` in it, or a name with an
/// extension of one to eight letters or digits (`Cargo.toml`); never a
/// URL, a version number or a `..` path.
fn looks_like_path(chunk: &str) -> bool {
    if chunk.is_empty()
        || chunk.len() > 512
        || chunk.contains("..")
        || chunk.contains("//")
        || chunk.starts_with('/')
        || !chunk
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
    {
        return false;
    }
    if chunk.contains('/') {
        return chunk.chars().any(char::is_alphabetic);
    }
    match chunk.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=8).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
                && stem.chars().any(char::is_alphabetic)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_gives_terms_paths_and_qualified_names() {
        let q = Query::parse(
            "Make `Config::load()` read src/config.rs and Cargo.toml (see https://x.io/a, v1.2.3).",
        );
        assert_eq!(q.paths, ["src/config.rs", "Cargo.toml"]);
        assert_eq!(q.symbols, [vec!["Config".to_string(), "load".to_string()]]);
        assert!(q.terms.contains_key("config") && q.terms.contains_key("load"));
        assert!(!q.terms.contains_key("the"));
    }

    #[test]
    fn a_term_counts_at_most_three_times() {
        let q = Query::parse("parse parse parse parse parse");
        assert_eq!(q.terms.get("pars"), Some(&MAX_TERM_REPEATS));
    }

    #[test]
    fn what_is_not_a_path() {
        for chunk in ["1.2.3", "../etc/passwd", "/etc/passwd", "a//b", "http://x"] {
            assert!(!looks_like_path(chunk), "{chunk}");
        }
        for chunk in [
            "src/lib.rs",
            "Cargo.toml",
            "docs/",
            "a-b/c_d.py",
            "Makefile.am",
        ] {
            assert!(looks_like_path(chunk), "{chunk}");
        }
    }
}
