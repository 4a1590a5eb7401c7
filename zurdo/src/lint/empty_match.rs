//! `empty-match-regex`: a `[grep:]` or `[no-grep:]` whose regex matches the
//! empty string. Every file contains the empty string, so such a `[grep:]`
//! passes on any file that exists and such a `[no-grep:]` can never pass.

use super::{Lint, EMPTY_MATCH_REGEX};
use crate::hint::Check;
use crate::model::Prd;

/// Reports every grep-like hint whose pattern matches the empty string.
pub(crate) fn check(prd: &Prd, out: &mut Vec<Lint>) {
    for criterion in prd.tasks.iter().flat_map(|t| &t.criteria) {
        for hint in &criterion.hints {
            let (grep, no_grep) = match &hint.check {
                Check::Grep(g) => (g, false),
                Check::NoGrep(g) => (g, true),
                _ => continue,
            };
            if !matches_empty(&grep.pattern) {
                continue;
            }
            let (pattern, target) = (&grep.pattern, &grep.target);
            let message = if no_grep {
                format!(
                    "`{}` can't pass: its pattern `{pattern}` matches the empty string, which \
                     every file contains, so it fails on any file that exists",
                    hint.source
                )
            } else {
                format!(
                    "`{}` can't fail on content: its pattern `{pattern}` matches the empty \
                     string, which every file contains, so it passes whenever `{target}` exists",
                    hint.source
                )
            };
            out.push(Lint::new(
                EMPTY_MATCH_REGEX,
                criterion.line,
                message,
                "make the pattern require at least one character: name the text that must \
                 (or must not) appear, e.g. `fn main` instead of `.*`, or `x+` instead of `x*`",
            ));
        }
    }
}

/// True when `pattern` compiles and matches the empty string.
pub(crate) fn matches_empty(pattern: &str) -> bool {
    regex::Regex::new(pattern).is_ok_and(|re| re.is_match(""))
}

#[cfg(test)]
mod tests {
    use super::matches_empty;

    #[test]
    fn empty_matching_patterns() {
        for p in [".*", "a*", "x?", "()", "^", "$", "^$", "foo|", "(?m)^"] {
            assert!(matches_empty(p), "{p}");
        }
        for p in ["a", "a+", ".", "fn main", "^fn", "\\bfoo\\b", "(", "x{1,}"] {
            assert!(!matches_empty(p), "{p}");
        }
    }
}
