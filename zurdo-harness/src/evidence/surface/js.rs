//! `vite.config.*`: vitest reads its `test: { … }` block, which is the
//! surface; plugins, aliases and the build settings around it are free.
//!
//! A JavaScript/TypeScript tokenizer just good enough for config files:
//! comments, strings, template literals (with `${…}`), regular expression
//! literals (told from division by the token before them) and brackets.
//! The block is the value of the shallowest `test:` property; it is
//! compared token by token, so layout and comments do not matter. A file
//! it cannot tokenize is compared whole. A block held in a variable
//! (`test: shared`) is compared as that name only.

use super::{Part, Parts, WHOLE};

/// The label of the block.
pub const LABEL: &str = "the test block";

#[derive(Debug)]
struct Token {
    text: String,
    depth: usize,
}

/// The tokens of `text`, each with its bracket depth; `None` when a
/// string, comment or bracket is left open.
fn tokens(text: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut depth = 0usize;
    // Brace depths at which a template literal's `${` opened.
    let mut templates: Vec<usize> = Vec::new();
    let mut i = 0;
    let regex_may_follow = |out: &Vec<Token>| match out.last() {
        None => true,
        Some(t) => {
            let last = t.text.chars().last().unwrap_or(' ');
            (t.text.len() == 1 && "(,=:[!&|?{};+-*%<>~^".contains(last))
                || matches!(
                    t.text.as_str(),
                    "return" | "typeof" | "in" | "of" | "case" | "=>"
                )
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            let end = (i + 2..chars.len().saturating_sub(1))
                .find(|&j| chars[j] == '*' && chars[j + 1] == '/')?;
            i = end + 2;
            continue;
        }
        let start = i;
        if c == '\'' || c == '"' || c == '`' || (c == '}' && templates.last() == Some(&depth)) {
            // A string, or a template literal (resumed after `${…}`).
            let quote = if c == '}' {
                templates.pop();
                depth -= 1;
                '`'
            } else {
                c
            };
            i += 1;
            loop {
                let ch = *chars.get(i)?;
                if ch == '\\' {
                    i += 2;
                    continue;
                }
                if quote != '`' && ch == '\n' {
                    return None;
                }
                if ch == quote {
                    i += 1;
                    break;
                }
                if quote == '`' && ch == '$' && chars.get(i + 1) == Some(&'{') {
                    i += 2;
                    depth += 1;
                    templates.push(depth);
                    break;
                }
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            out.push(Token { text, depth });
            continue;
        }
        if c == '/' && regex_may_follow(&out) {
            i += 1;
            let mut class = false;
            loop {
                let ch = *chars.get(i)?;
                match ch {
                    '\\' => i += 1,
                    '\n' => return None,
                    '[' => class = true,
                    ']' => class = false,
                    '/' if !class => break,
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            while chars.get(i).is_some_and(|c| c.is_alphabetic()) {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                depth,
            });
            continue;
        }
        if c.is_alphanumeric() || c == '_' || c == '$' {
            while chars
                .get(i)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '$' || *c == '.')
            {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                depth,
            });
            continue;
        }
        if c == '=' && chars.get(i + 1) == Some(&'>') {
            out.push(Token {
                text: "=>".into(),
                depth,
            });
            i += 2;
            continue;
        }
        match c {
            '(' | '[' | '{' => {
                out.push(Token {
                    text: c.to_string(),
                    depth,
                });
                depth += 1;
            }
            ')' | ']' | '}' => {
                depth = depth.checked_sub(1)?;
                out.push(Token {
                    text: c.to_string(),
                    depth,
                });
            }
            _ => out.push(Token {
                text: c.to_string(),
                depth,
            }),
        }
        i += 1;
    }
    (depth == 0 && templates.is_empty()).then_some(out)
}

/// The parts of a `vite.config.*`: its `test` block, if it has one.
pub fn vite(text: &str) -> Parts {
    let Some(tokens) = tokens(text) else {
        return Parts::from([(WHOLE.to_string(), Part::opaque(text.as_bytes()))]);
    };
    let key = |t: &Token| matches!(t.text.as_str(), "test" | "'test'" | "\"test\"");
    let found = tokens
        .windows(2)
        .enumerate()
        .filter(|(_, w)| key(&w[0]) && w[1].text == ":" && w[0].depth > 0)
        .min_by_key(|(_, w)| w[0].depth)
        .map(|(i, _)| i + 2);
    let Some(start) = found else {
        return Parts::new();
    };
    // The value runs to the `,` or closing bracket of the object holding it.
    let mut open = 0usize;
    let mut block: Vec<&str> = Vec::new();
    for t in &tokens[start..] {
        match t.text.as_str() {
            "(" | "[" | "{" => open += 1,
            ")" | "]" | "}" if open == 0 => break,
            ")" | "]" | "}" => open -= 1,
            "," if open == 0 => break,
            _ => {}
        }
        block.push(&t.text);
    }
    Parts::from([(LABEL.to_string(), Part::of(&block.join(" ")))])
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// https://vitejs.dev/config/
export default defineConfig(({ mode }) => ({
  plugins: [react()],
  resolve: { alias: { '@': '/src' } },
  define: { PATTERN: /\/test:\s*[}]/g, URL: `http://${host}:${port}/test` },
  test: {
    environment: 'jsdom', /* the DOM */
    exclude: ['**/node_modules/**'],
    setupFiles: './setup.ts',
  },
  build: { test: { nope: true } },
}))
"#;

    #[test]
    fn the_test_block_is_the_part() {
        let parts = vite(CONFIG);
        assert_eq!(
            parts[LABEL].text.as_deref(),
            Some("{ environment : 'jsdom' , exclude : [ '**/node_modules/**' ] , setupFiles : './setup.ts' , }")
        );
        let plugin = CONFIG.replace("plugins: [react()]", "plugins: [react(), legacy()]");
        let layout = plugin.replace(
            "    environment: 'jsdom', /* the DOM */",
            "    environment:   'jsdom',",
        );
        assert_eq!(
            vite(&layout),
            parts,
            "plugins, layout and comments are free"
        );
        let cheat = CONFIG.replace(
            "exclude: ['**/node_modules/**']",
            "exclude: ['**/node_modules/**', 'src/**']",
        );
        assert_ne!(vite(&cheat), parts);
        assert_eq!(
            vite("export default { test: { include: ['a'] } }")[LABEL]
                .text
                .as_deref(),
            Some("{ include : [ 'a' ] }")
        );
        assert!(vite("export default { plugins: [] }").is_empty());
        assert_eq!(
            vite("export default { test: { a: `x ${ }")
                .keys()
                .collect::<Vec<_>>(),
            ["the file"]
        );
    }
}
