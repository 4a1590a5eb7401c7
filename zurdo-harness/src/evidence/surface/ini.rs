//! A small INI reader, as pytest's iniconfig reads `pytest.ini`,
//! `setup.cfg` and `tox.ini`: `[section]` headers, `key = value` or
//! `key: value`, continuation lines indented under their key, whole-line
//! comments starting with `#` or `;`.

/// One section: its name and its keys in order (a repeated key: the last).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The name between the brackets, trimmed.
    pub name: String,
    /// `(key, value)`, the value's lines trimmed and joined with one space.
    pub keys: Vec<(String, String)>,
}

/// The sections of `text`; lines before the first header are ignored.
pub fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    // The key a continuation line extends.
    let mut open: Option<usize> = None;
    for raw in text.lines() {
        let line = raw.trim_end_matches('\r');
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if indented {
            if let (Some(section), Some(i)) = (out.last_mut(), open) {
                let value = &mut section.keys[i].1;
                if !value.is_empty() {
                    value.push(' ');
                }
                value.push_str(trimmed);
            }
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            out.push(Section {
                name: name.trim().to_string(),
                keys: Vec::new(),
            });
            open = None;
            continue;
        }
        let Some(section) = out.last_mut() else {
            continue;
        };
        let split = trimmed.find(['=', ':']).unwrap_or(trimmed.len());
        let key = trimmed[..split].trim().to_string();
        let value = trimmed.get(split + 1..).unwrap_or("").trim().to_string();
        section.keys.retain(|(k, _)| *k != key);
        section.keys.push((key, value));
        open = Some(section.keys.len() - 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sections_keys_and_continuations() {
        let text = "top = ignored\n[pytest]\n# a comment\naddopts = -q\n    -k 'not slow'\n\ntestpaths: tests\n; also a comment\n[flake8]\nmax-line-length=100\naddopts = again\nmax-line-length = 120\n";
        assert_eq!(
            sections(text),
            [
                Section {
                    name: "pytest".into(),
                    keys: vec![
                        ("addopts".into(), "-q -k 'not slow'".into()),
                        ("testpaths".into(), "tests".into()),
                    ],
                },
                Section {
                    name: "flake8".into(),
                    keys: vec![
                        ("addopts".into(), "again".into()),
                        ("max-line-length".into(), "120".into()),
                    ],
                },
            ]
        );
    }
}
