//! Acceptance-criterion lines: `- [ ] <title> [hint]… [proves:<req-id>]…`.

use crate::diagnostic::Diagnostic;
use crate::hint::{self, Block, Hint};
use crate::model::Criterion;

/// One trailing `[…]` block found by [`trailing_blocks`].
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Bracketed<'a> {
    /// Byte offset of the `[` in the scanned text.
    pub start: usize,
    /// The text between the brackets.
    pub inner: &'a str,
}

/// Scans `text` from its end for `[…]` blocks separated only by whitespace.
///
/// Brackets balance (`[shell: [ -f x ]]` is one block) and a bracket
/// preceded by an odd number of backslashes does not count. Returns the
/// blocks last-first, or an error when a closing bracket has no opener.
pub(super) fn trailing_blocks(text: &str) -> Result<Vec<Bracketed<'_>>, String> {
    let bytes = text.as_bytes();
    let mut blocks = Vec::new();
    let mut end = text.trim_end().len();
    while end > 0 && bytes[end - 1] == b']' && !escaped(bytes, end - 1) {
        let mut depth = 0usize;
        let mut i = end;
        let open = loop {
            if i == 0 {
                return Err("a hint's `]` has no matching `[`".to_string());
            }
            i -= 1;
            match bytes[i] {
                b']' if !escaped(bytes, i) => depth += 1,
                b'[' if !escaped(bytes, i) => {
                    depth -= 1;
                    if depth == 0 {
                        break i;
                    }
                }
                _ => {}
            }
        };
        blocks.push(Bracketed {
            start: open,
            inner: &text[open + 1..end - 1],
        });
        end = text[..open].trim_end().len();
    }
    Ok(blocks)
}

fn escaped(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b'\\')
        .count()
        % 2
        == 1
}

/// Reads one criterion from its text (the item without `- [ ] `).
pub(super) fn read(text: &str, line: usize, errors: &mut Vec<Diagnostic>) -> Criterion {
    let mut criterion = Criterion {
        title: String::new(),
        line,
        hints: Vec::new(),
        proves: Vec::new(),
        removes_tests: false,
    };
    let blocks = match trailing_blocks(text) {
        Ok(b) => b,
        Err(message) => {
            errors.push(
                Diagnostic::new(line, message)
                    .with_fix("balance the brackets, or escape a literal one as `\\[` or `\\]`"),
            );
            criterion.title = text.trim().to_string();
            return criterion;
        }
    };
    let mut title_end = text.trim_end().len();
    // Blocks in document order once the scan stops at the first non-hint.
    let mut found: Vec<(usize, Block, &str)> = Vec::new();
    let mut failed = false;
    for block in &blocks {
        match hint::read_block(block.inner) {
            Ok(Block::Text) => break,
            Ok(b) => found.push((block.start, b, block.inner)),
            Err(e) => {
                let d = Diagnostic::new(line, e.message);
                errors.push(match e.fix {
                    Some(f) => d.with_fix(f),
                    None => d,
                });
                failed = true;
                found.push((block.start, Block::Text, block.inner));
            }
        }
        title_end = block.start;
    }
    found.reverse();
    criterion.title = text[..title_end].trim().to_string();

    let mut proves_seen = false;
    let mut modifier = "[proves:]";
    let mut misplaced = false;
    for (start, block, inner) in found {
        match block {
            Block::Hint(check) => {
                if proves_seen && !misplaced {
                    misplaced = true;
                    errors.push(
                        Diagnostic::new(
                            line,
                            format!("{modifier} must come after all hints on the line"),
                        )
                        .with_fix(format!(
                            "move every {} to the end of the line",
                            if modifier == "[proves:]" {
                                "[proves:<req-id>]"
                            } else {
                                modifier
                            }
                        )),
                    );
                }
                let end = start + inner.len() + 2;
                criterion.hints.push(Hint {
                    check,
                    source: text[start..end].to_string(),
                });
            }
            Block::Proves(id) => {
                proves_seen = true;
                modifier = "[proves:]";
                criterion.proves.push(id);
            }
            Block::RemovesTests => {
                proves_seen = true;
                modifier = "[removes-tests]";
                criterion.removes_tests = true;
            }
            Block::Text => {}
        }
    }
    if criterion.hints.is_empty() && !failed {
        errors.push(
            Diagnostic::new(line, "acceptance criterion has no hint")
                .with_fix("end the line with a hint such as [shell: cargo test], or [manual] if a human reviews it"),
        );
    }
    if criterion.title.is_empty() {
        errors.push(
            Diagnostic::new(line, "acceptance criterion has no text before its hints").with_fix(
                "say what the criterion checks, e.g. `- [ ] tests pass [shell: cargo test]`",
            ),
        );
    }
    criterion
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hint::Check;

    fn crit(text: &str) -> (Criterion, Vec<String>) {
        let mut errors = Vec::new();
        let c = read(text, 3, &mut errors);
        (c, errors.into_iter().map(|e| e.message).collect())
    }

    #[test]
    fn nested_brackets_make_one_shell_hint() {
        let (c, e) = crit("x exists [shell: [ -f x ]]");
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.title, "x exists");
        assert_eq!(c.hints.len(), 1);
        assert_eq!(
            c.hints[0].check,
            Check::Shell {
                command: "[ -f x ]".into()
            }
        );
        assert_eq!(c.hints[0].source, "[shell: [ -f x ]]");
    }

    #[test]
    fn removes_tests_is_a_modifier_after_the_hints() {
        let (c, e) = crit("old tests go [shell: cargo test] [removes-tests] [proves:req-a]");
        assert!(e.is_empty(), "{e:?}");
        assert!(c.removes_tests);
        assert_eq!(c.hints.len(), 1);
        assert_eq!(c.proves, ["req-a"]);
        let (c, _) = crit("tests pass [shell: cargo test]");
        assert!(!c.removes_tests);
        let (_, e) = crit("t [removes-tests] [shell: true]");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("[removes-tests] must come after all hints"),
            "{e:?}"
        );
        let (_, e) = crit("t [shell: true] [removes-tests: yes]");
        assert!(e.iter().any(|d| d.contains("takes no payload")), "{e:?}");
    }

    #[test]
    fn bracketed_words_in_the_title_stay_title() {
        let (c, e) = crit("handles [edge] cases [shell: cargo test edge]");
        assert!(e.is_empty());
        assert_eq!(c.title, "handles [edge] cases");
        let (c, e) = crit("handles cases [edge] [shell: cargo test edge]");
        assert!(e.is_empty());
        assert_eq!(c.title, "handles cases [edge]");
    }

    #[test]
    fn several_hints_then_proves() {
        let (c, e) = crit("builds [shell: cargo build] [file-exists: target/debug/zurdo] [proves:req-a] [proves:req-b]");
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(
            c.hints.iter().map(|h| h.kind()).collect::<Vec<_>>(),
            ["shell", "file-exists"]
        );
        assert_eq!(c.proves, ["req-a", "req-b"]);
    }

    #[test]
    fn proves_before_a_hint_is_an_error() {
        let (_, e) = crit("t [proves:req-a] [shell: true]");
        assert_eq!(e, ["[proves:] must come after all hints on the line"]);
    }

    #[test]
    fn no_hint_unknown_kind_and_empty_payload() {
        assert_eq!(crit("just words").1, ["acceptance criterion has no hint"]);
        assert_eq!(crit("words [edge]").1, ["acceptance criterion has no hint"]);
        assert_eq!(crit("w [shel: x]").1, ["unknown hint kind `shel`"]);
        assert_eq!(crit("w [shell:]").1, ["[shell:] has an empty payload"]);
        assert_eq!(crit("w [shell]").1, ["[shell:] has an empty payload"]);
        assert_eq!(
            crit("[shell: true]").1,
            ["acceptance criterion has no text before its hints"]
        );
    }

    #[test]
    fn escaped_brackets_do_not_count() {
        let (c, e) = crit(r"literal [grep: \[x in a.txt]");
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.hints.len(), 1);
        let (_, e) = crit("broken x]");
        assert_eq!(e, ["a hint's `]` has no matching `[`"]);
    }
}
