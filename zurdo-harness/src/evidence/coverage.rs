//! The coverage gate: of the lines a task changed, the share its tests
//! executed. The criteria's own commands write coverage reports (lcov,
//! Cobertura XML, coverage.py JSON, Go cover profiles: `[verification.
//! coverage] sources`); after a task's criteria pass, zurdo reads them,
//! takes the lines the task added or changed since its baseline (the git
//! diff from its rollback point to the verified tree), and keeps those a
//! report instruments (a comment or a blank line is not code). Executed
//! over instrumented below `threshold` fails the iteration
//! (`coverage_below_threshold`, naming the lines). A source that is missing,
//! unreadable, or older than this verification is its own failure, never
//! a pass: it would be a report of another tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::SystemTime;

/// The most bytes of one coverage report read.
pub const REPORT_LIMIT: u64 = 256 * 1024 * 1024;

/// What the reports say of one file: the lines they instrument and those
/// executed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileCoverage {
    /// Lines that are code (a report has a count for them).
    pub instrumented: BTreeSet<u32>,
    /// Lines executed at least once.
    pub executed: BTreeSet<u32>,
}

/// Coverage by repository-relative path, merged over every report read.
pub type Coverage = BTreeMap<String, FileCoverage>;

/// Why the gate could not measure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceProblem {
    /// No file matches the source.
    Missing(String),
    /// A report was written before this verification began: it describes
    /// another tree.
    Stale(String),
    /// A report that cannot be read or parsed.
    Unreadable(String, String),
}

/// The gate's finding on one verification.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Changed, instrumented lines.
    pub instrumented: usize,
    /// Of those, executed.
    pub executed: usize,
    /// Changed lines no test executed, by file.
    pub missed: BTreeMap<String, Vec<u32>>,
}

impl Measured {
    /// Executed over instrumented; 1 when the change has no code line.
    pub fn share(&self) -> f64 {
        if self.instrumented == 0 {
            1.0
        } else {
            self.executed as f64 / self.instrumented as f64
        }
    }

    /// `src/a.rs: 12-14, 20; src/b.rs: 3`, bounded to `limit` files.
    pub fn missed_text(&self, limit: usize) -> String {
        let mut parts: Vec<String> = self
            .missed
            .iter()
            .take(limit)
            .map(|(path, lines)| format!("{path}: {}", ranges(lines)))
            .collect();
        if self.missed.len() > limit {
            parts.push(format!("and {} more file(s)", self.missed.len() - limit));
        }
        parts.join("; ")
    }
}

/// `1-3, 7`.
fn ranges(lines: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let start = lines[i];
        let mut end = start;
        while i + 1 < lines.len() && lines[i + 1] == end + 1 {
            i += 1;
            end = lines[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(", ")
}

/// Reads every report `sources` (repository-relative paths or globs)
/// names under `root`, each written no earlier than `since`.
pub fn read_sources(
    root: &Path,
    sources: &[String],
    since: SystemTime,
) -> Result<Coverage, SourceProblem> {
    let mut coverage = Coverage::new();
    for source in sources {
        let paths = matching(root, source);
        if paths.is_empty() {
            return Err(SourceProblem::Missing(source.clone()));
        }
        for relative in paths {
            let path = root.join(&relative);
            let modified = std::fs::symlink_metadata(&path)
                .and_then(|m| m.modified())
                .map_err(|e| SourceProblem::Unreadable(relative.clone(), e.to_string()))?;
            if modified < since {
                return Err(SourceProblem::Stale(relative));
            }
            let bytes = zurdo_base::files::read_bounded_nofollow(&path, REPORT_LIMIT)
                .map_err(|e| SourceProblem::Unreadable(relative.clone(), e.to_string()))?;
            let text = String::from_utf8_lossy(&bytes);
            let parsed =
                parse(&text, root).map_err(|e| SourceProblem::Unreadable(relative.clone(), e))?;
            for (file, c) in parsed {
                let into = coverage.entry(file).or_default();
                into.instrumented.extend(c.instrumented);
                into.executed.extend(c.executed);
            }
        }
    }
    Ok(coverage)
}

/// The files under `root` a source names: the path itself, or what the
/// glob matches (never under `.git/` or `.zurdo/`, never through a
/// symlink).
fn matching(root: &Path, source: &str) -> Vec<String> {
    if !zurdo::paths::has_glob_meta(source) {
        return if std::fs::symlink_metadata(root.join(source)).is_ok_and(|m| m.is_file()) {
            vec![source.to_string()]
        } else {
            Vec::new()
        };
    }
    let Ok(glob) = globset::GlobBuilder::new(source)
        .literal_separator(true)
        .build()
    else {
        return Vec::new();
    };
    let glob = glob.compile_matcher();
    let mut found = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if dir.is_empty() && (name == ".git" || name == ".zurdo") {
                continue;
            }
            let relative = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(relative),
                Ok(t) if t.is_file() && glob.is_match(&relative) => found.push(relative),
                _ => {}
            }
        }
    }
    found.sort();
    found
}

/// Parses one report of any supported format (told apart by its content),
/// with paths made relative to `root` when they are under it.
pub fn parse(text: &str, root: &Path) -> Result<Coverage, String> {
    let trimmed = text.trim_start();
    let raw = if trimmed.starts_with('{') {
        coverage_py(trimmed)?
    } else if trimmed.starts_with("<?xml") || trimmed.starts_with("<coverage") {
        cobertura(trimmed)
    } else if trimmed.starts_with("mode:") {
        go_profile(trimmed, root)
    } else if trimmed.lines().any(|l| l.starts_with("SF:")) {
        lcov(trimmed)
    } else {
        return Err("not a coverage report zurdo reads (lcov, Cobertura XML, coverage.py JSON, a Go cover profile)".into());
    };
    let root_text = root.display().to_string();
    Ok(raw
        .into_iter()
        .map(|(path, c)| {
            let relative = path
                .strip_prefix(&format!("{root_text}/"))
                .map(str::to_string)
                .unwrap_or_else(|| path.trim_start_matches("./").to_string());
            (relative, c)
        })
        .collect())
}

/// lcov: `SF:<path>`, `DA:<line>,<count>`, `end_of_record`.
fn lcov(text: &str) -> Coverage {
    let mut out = Coverage::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("SF:") {
            current = Some(path.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("DA:") {
            let mut parts = rest.split(',');
            let (Some(n), Some(count)) = (parts.next(), parts.next()) else {
                continue;
            };
            let (Ok(n), Some(file)) = (n.trim().parse::<u32>(), current.as_ref()) else {
                continue;
            };
            let c = out.entry(file.clone()).or_default();
            c.instrumented.insert(n);
            if count.trim().parse::<u64>().is_ok_and(|c| c > 0) {
                c.executed.insert(n);
            }
        } else if line.trim() == "end_of_record" {
            current = None;
        }
    }
    out
}

/// coverage.py's JSON (`coverage json`): `files.<path>.executed_lines` and
/// `missing_lines`.
fn coverage_py(text: &str) -> Result<Coverage, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let files = value["files"]
        .as_object()
        .ok_or("a JSON report without `files` (coverage.py's `coverage json` writes one)")?;
    let lines = |v: &serde_json::Value| -> BTreeSet<u32> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n.as_u64().and_then(|n| u32::try_from(n).ok()))
            .collect()
    };
    Ok(files
        .iter()
        .map(|(path, f)| {
            let executed = lines(&f["executed_lines"]);
            let mut instrumented = lines(&f["missing_lines"]);
            instrumented.extend(executed.iter().copied());
            (
                path.clone(),
                FileCoverage {
                    instrumented,
                    executed,
                },
            )
        })
        .collect())
}

/// Cobertura XML: `<class filename="…">` holding `<line number="N"
/// hits="H"/>` (read by attribute, not by a full XML parser: the format's
/// elements are flat and regular).
fn cobertura(text: &str) -> Coverage {
    let mut out = Coverage::new();
    let mut current: Option<String> = None;
    for tag in text.split('<').skip(1) {
        let attr = |name: &str| -> Option<String> {
            let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
            let end = tag[at..].find('"')?;
            Some(tag[at..at + end].to_string())
        };
        if tag.starts_with("class ") {
            current = attr("filename");
        } else if tag.starts_with("/class") {
            current = None;
        } else if tag.starts_with("line ") {
            let (Some(file), Some(n), Some(hits)) =
                (current.as_ref(), attr("number"), attr("hits"))
            else {
                continue;
            };
            let Ok(n) = n.parse::<u32>() else { continue };
            let c = out.entry(file.clone()).or_default();
            c.instrumented.insert(n);
            if hits.parse::<u64>().is_ok_and(|h| h > 0) {
                c.executed.insert(n);
            }
        }
    }
    out
}

/// A Go cover profile: `mode: …`, then `<import path>/<file>.go:<l0>.<c0>,
/// <l1>.<c1> <statements> <count>`; the import path is mapped to the
/// repository through `go.mod`'s `module` line.
fn go_profile(text: &str, root: &Path) -> Coverage {
    let module = std::fs::read_to_string(root.join("go.mod"))
        .ok()
        .and_then(|m| {
            m.lines().find_map(|l| {
                l.trim()
                    .strip_prefix("module ")
                    .map(|m| m.trim().to_string())
            })
        });
    let mut out = Coverage::new();
    for line in text.lines().skip(1) {
        let Some((file, rest)) = line.split_once(':') else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let (Some(span), Some(_), Some(count)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let Some((start, end)) = span.split_once(',') else {
            continue;
        };
        let line_of = |p: &str| p.split('.').next().and_then(|l| l.parse::<u32>().ok());
        let (Some(start), Some(end)) = (line_of(start), line_of(end)) else {
            continue;
        };
        let file = match &module {
            Some(m) => file
                .strip_prefix(&format!("{m}/"))
                .unwrap_or(file)
                .to_string(),
            None => file.to_string(),
        };
        let c = out.entry(file).or_default();
        let ran = count.parse::<u64>().is_ok_and(|c| c > 0);
        for n in start..=end.max(start) {
            c.instrumented.insert(n);
            if ran {
                c.executed.insert(n);
            }
        }
    }
    out
}

/// The changed lines (`changed`, by repository-relative path) that
/// `coverage` instruments, and of those the executed ones.
pub fn measure(changed: &BTreeMap<String, BTreeSet<u32>>, coverage: &Coverage) -> Measured {
    let mut m = Measured {
        instrumented: 0,
        executed: 0,
        missed: BTreeMap::new(),
    };
    for (path, lines) in changed {
        let Some(c) = coverage.get(path) else {
            continue;
        };
        for n in lines.intersection(&c.instrumented) {
            m.instrumented += 1;
            if c.executed.contains(n) {
                m.executed += 1;
            } else {
                m.missed.entry(path.clone()).or_default().push(*n);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> &'static Path {
        Path::new("/repo")
    }

    #[test]
    fn every_format_reads_the_same_coverage() {
        let lcov_text = "TN:\nSF:/repo/src/calc.py\nDA:1,1\nDA:2,0\nDA:4,3\nend_of_record\n";
        let json = r#"{"meta": {}, "files": {"src/calc.py": {"executed_lines": [1, 4], "missing_lines": [2]}}}"#;
        let xml = r#"<?xml version="1.0" ?><coverage><packages><package><classes>
            <class name="calc" filename="src/calc.py"><lines>
            <line number="1" hits="1"/><line number="2" hits="0"/><line number="4" hits="3"/>
            </lines></class></classes></package></packages></coverage>"#;
        let want = FileCoverage {
            instrumented: [1, 2, 4].into(),
            executed: [1, 4].into(),
        };
        for text in [lcov_text, json, xml] {
            let c = parse(text, root()).expect("parses");
            assert_eq!(c.get("src/calc.py"), Some(&want), "{text}");
        }
        let dir = tempfile::tempdir().expect("temp");
        std::fs::write(
            dir.path().join("go.mod"),
            "module example.com/calc\n\ngo 1.22\n",
        )
        .expect("go.mod");
        let go = "mode: set\nexample.com/calc/calc.go:3.20,5.2 2 1\nexample.com/calc/calc.go:7.1,7.9 1 0\n";
        let c = parse(go, dir.path()).expect("parses");
        assert_eq!(
            c.get("calc.go"),
            Some(&FileCoverage {
                instrumented: [3, 4, 5, 7].into(),
                executed: [3, 4, 5].into(),
            })
        );
        assert!(parse("hello", root()).is_err());
    }

    #[test]
    fn the_share_counts_changed_code_lines_only() {
        let coverage = parse(
            "SF:src/a.py\nDA:1,1\nDA:2,0\nDA:3,0\nDA:10,1\nend_of_record\n",
            root(),
        )
        .expect("lcov");
        // Lines 2, 3 and 5 changed (5 is a comment: not instrumented); 7 in a
        // file no report knows.
        let changed = BTreeMap::from([
            ("src/a.py".to_string(), BTreeSet::from([1, 2, 3, 5])),
            ("README.md".to_string(), BTreeSet::from([7])),
        ]);
        let m = measure(&changed, &coverage);
        assert_eq!((m.instrumented, m.executed), (3, 1));
        assert!((m.share() - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(m.missed_text(5), "src/a.py: 2-3");
        let nothing = measure(&BTreeMap::new(), &coverage);
        assert_eq!(nothing.share(), 1.0);
    }

    #[test]
    fn a_missing_or_stale_source_is_not_a_pass() {
        let dir = tempfile::tempdir().expect("temp");
        let sources = vec!["cov/lcov.info".to_string()];
        assert_eq!(
            read_sources(dir.path(), &sources, SystemTime::UNIX_EPOCH),
            Err(SourceProblem::Missing("cov/lcov.info".into()))
        );
        std::fs::create_dir(dir.path().join("cov")).expect("mkdir");
        std::fs::write(
            dir.path().join("cov/lcov.info"),
            "SF:a\nDA:1,1\nend_of_record\n",
        )
        .expect("w");
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        assert_eq!(
            read_sources(dir.path(), &sources, later),
            Err(SourceProblem::Stale("cov/lcov.info".into()))
        );
        let c = read_sources(
            dir.path(),
            &["cov/*.info".to_string()],
            SystemTime::UNIX_EPOCH,
        )
        .expect("fresh");
        assert!(c.contains_key("a"));
    }
}
