//! The tokenizer: one set of rules for file contents, paths, definitions'
//! names and queries, so a word in a task and the same word in code meet.
//!
//! A *word* is a maximal run of letters, digits, `_` and `-`. Each word is
//! split into *parts* at `_` and `-` and at case changes (`parseConfig`,
//! `HTTPServer` → `http`, `server`; a digit stays with what precedes it:
//! `utf8`, `http2`). The terms of a word are its parts, lowercased, and,
//! when it has more than one part, the parts joined (`parse_config`,
//! `parseConfig` and `ParseConfig` all give `parseconfig`), so a query
//! naming an identifier in either case style meets the definition.
//! A part shorter than [`MIN_TERM`] characters or longer than [`MAX_TERM`],
//! made only of digits, or an English stop word is dropped (a joined term
//! is never a stop word, and is dropped only when too long). Then each
//! term is [`stem`]med.

/// Shortest term kept, in characters.
pub const MIN_TERM: usize = 2;

/// Longest term kept, in characters (longer runs are data, not names).
pub const MAX_TERM: usize = 40;

/// English words too common to say where to look (a small list: code's
/// own keywords are left to the inverse document frequency).
const STOP: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "before", "but", "by", "can", "could", "did", "do", "does", "each", "either", "for", "from",
    "had", "has", "have", "he", "her", "here", "his", "how", "i", "if", "in", "into", "is", "it",
    "its", "just", "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now",
    "of", "on", "once", "only", "or", "other", "our", "out", "over", "same", "she", "should", "so",
    "some", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "us", "very", "was", "we",
    "were", "what", "when", "where", "whether", "which", "while", "who", "why", "will", "with",
    "would", "yet", "you", "your",
];

/// True for a stop word (given lowercased).
pub fn is_stop(word: &str) -> bool {
    STOP.binary_search(&word).is_ok()
}

/// The terms of `text`, in order, repeats kept.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_term(text, |t| out.push(t));
    out
}

/// Calls `f` with each term of `text`, in order.
pub fn each_term(text: &str, mut f: impl FnMut(String)) {
    for word in words(text) {
        word_terms(word, &mut |term, _| f(term));
    }
}

/// Calls `f` with each term of `text` and the lowercased form it was
/// stemmed from (`pars`, `parsing`), in order.
pub fn each_term_with_form(text: &str, mut f: impl FnMut(String, &str)) {
    for word in words(text) {
        word_terms(word, &mut f);
    }
}

/// The terms of a path: its components' words (`zurdo-harness/src/run/attempt.rs`
/// → `zurdo`, `harness`, `zurdoharness`, `src`, `run`, `attempt`, `rs`).
pub fn path_terms(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for component in path.split(['/', '.']) {
        each_term(component, |t| out.push(t));
    }
    out
}

/// Maximal runs of letters, digits, `_` and `-` (leading and trailing `-`
/// trimmed).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map(|w| w.trim_matches('-'))
        .filter(|w| !w.is_empty())
}

/// The parts of one word: split at `_`, `-` and case changes, lowercased.
pub fn parts(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in word.split(['_', '-']).filter(|p| !p.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (prev, cur) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            let boundary = (cur.is_uppercase() && (prev.is_lowercase() || prev.is_numeric()))
                || (cur.is_uppercase() && prev.is_uppercase() && next_lower);
            if boundary {
                out.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        out.push(chars[start..].iter().collect::<String>().to_lowercase());
    }
    out
}

/// The terms of one word (see the module's documentation), each with the
/// form it was stemmed from.
fn word_terms(word: &str, f: &mut impl FnMut(String, &str)) {
    let parts = parts(word);
    for part in &parts {
        let n = part.chars().count();
        if (MIN_TERM..=MAX_TERM).contains(&n)
            && !part.chars().all(|c| c.is_ascii_digit())
            && !is_stop(part)
        {
            f(stem(part), part);
        }
    }
    if parts.len() > 1 {
        let joined: String = parts.concat();
        let n = joined.chars().count();
        if n <= MAX_TERM && !joined.chars().all(|c| c.is_ascii_digit()) {
            f(stem(&joined), &joined);
        }
    }
}

/// A light English stemmer for lowercased words, so `tests`, `parsing`
/// and `handled` meet `test`, `parse` and `handle`: plurals (`-ies` →
/// `-y`, `-sses` → `-ss`, `-es` after `ch`, `sh`, `x` or `z`, `-s` unless
/// after `s`, `u` or `i`), then `-ing` or `-ed` when three letters with a
/// vowel remain (a doubled final consonant undone, `running` → `run`, but
/// not `ll`, `ss` or `zz`), then a final `e` when three letters remain
/// (`parse`, `parsed` and `parsing` all give `pars`). Words of three
/// letters or fewer are kept as they are, as is anything not ASCII
/// letters. It is deliberately small: it only has to map the forms a task
/// and a code base both use onto one term, the same way on both sides.
pub fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut w = word.to_string();
    if let Some(base) = w.strip_suffix("ies") {
        w = format!("{base}y");
    } else if ["sses", "ches", "shes", "xes", "zes"]
        .iter()
        .any(|s| w.ends_with(s))
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        let Some(base) = w.strip_suffix(suffix) else {
            continue;
        };
        if base.len() < 3 || !base.bytes().any(is_vowel) {
            continue;
        }
        let b = base.as_bytes();
        let (last, before) = (b[b.len() - 1], b[b.len() - 2]);
        let doubled = last == before && !is_vowel(last) && !matches!(last, b'l' | b's' | b'z');
        w = base[..base.len() - usize::from(doubled)].to_string();
        break;
    }
    if w.len() > 3 && w.ends_with('e') {
        w.pop();
    }
    w
}

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_list_is_sorted_for_binary_search() {
        let mut sorted = STOP.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOP);
    }

    #[test]
    fn identifiers_split_by_case_underscore_and_dash_and_keep_their_joined_form() {
        assert_eq!(parts("parseConfig"), ["parse", "config"]);
        assert_eq!(parts("HTTPServer"), ["http", "server"]);
        assert_eq!(parts("Http2Server_v2"), ["http2", "server", "v2"]);
        assert_eq!(parts("zurdo-harness"), ["zurdo", "harness"]);
        assert_eq!(parts("__init__"), ["init"]);
        for spelling in ["parse_config", "parseConfig", "ParseConfig", "PARSE_CONFIG"] {
            assert_eq!(
                terms(spelling),
                ["pars", "config", "parseconfig"],
                "{spelling}"
            );
        }
        assert_eq!(
            terms("x = 42; if a_b"),
            ["ab"],
            "short parts, numbers, stop words"
        );
    }

    #[test]
    fn paths_give_their_components_words() {
        assert_eq!(
            path_terms("zurdo-harness/src/run/attempt.rs"),
            [
                "zurdo",
                "harness",
                "zurdoharness",
                "src",
                "run",
                "attempt",
                "rs"
            ]
        );
        assert_eq!(path_terms("docs/lumen.md"), ["doc", "lumen", "md"]);
    }

    #[test]
    fn the_stemmer_maps_common_forms_onto_one_term() {
        let cases = [
            ("tests", "test"),
            ("queries", "query"),
            ("classes", "class"),
            ("matches", "match"),
            ("indexes", "index"),
            ("indexed", "index"),
            ("running", "run"),
            ("called", "call"),
            ("passed", "pass"),
            ("listening", "listen"),
            ("opened", "open"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("string", "string"),
            ("use", "use"),
            ("résumé", "résumé"),
        ];
        for (word, want) in cases {
            assert_eq!(stem(word), want, "{word}");
        }
        // One term for every form of a word, whatever it is.
        for family in [
            &["parse", "parses", "parsed", "parsing"][..],
            &["handle", "handles", "handled", "handling"],
            &["enable", "enabled", "enables"],
            &["create", "created", "creates", "creating"],
            &["file", "files"],
            &["cache", "caches", "cached"],
        ] {
            let stems: Vec<String> = family.iter().map(|w| stem(w)).collect();
            assert!(
                stems.iter().all(|s| *s == stems[0]),
                "{family:?}: {stems:?}"
            );
        }
    }
}
