//! Ranking: BM25F over three fields of each file (its path, its
//! definitions' names, its contents), files a query names pinned first,
//! and for each file found, why: the terms that matched where, and the
//! definitions that matched.
//!
//! For a query term `t` and a file `d`, each field `f` contributes its
//! term frequency normalized by the field's length against the average,
//! weighted: `tf~ = Σ_f w_f · tf_f / (1 − b_f + b_f · len_f / avg_f)`. The
//! term then adds `q_t · idf(t) · tf~ · (k1 + 1) / (k1 + tf~)`, where `q_t`
//! is how often the query has it (at most 3) and `idf(t) = ln(1 + (N − df +
//! 0.5) / (df + 0.5))`, `df` counting the files that have `t` in any field.
//! A term more than half the files have ([`COMMON_SHARE`]) still counts,
//! but cannot alone get a file into a [`Scoring::Fields`] ranking: a file
//! must match some rarer term (or be pinned), so `src` and `rs` in a Rust
//! repository do not list every file.
//! [`Scoring::Contents`] is plain BM25 over the contents alone (the same
//! tokenizer; `df` over contents; nothing pinned): the baseline the
//! benchmark compares with.
//!
//! Every sum runs in a fixed order (terms sorted, files by path) and ties
//! are broken by path, so the same index and query give the same ranking.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::index::{Def, Doc, Index};
use crate::query::Query;

/// A field's weight and length normalization.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    /// How much one occurrence counts against one in the contents.
    pub weight: f64,
    /// How much a longer field than the average dilutes it (0 none, 1 fully).
    pub b: f64,
}

/// The parameters of the scoring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// BM25's term-frequency saturation.
    pub k1: f64,
    /// The path: few terms, each a strong signal.
    pub path: Field,
    /// The names a file defines (Lumen's definitions).
    pub defs: Field,
    /// The contents.
    pub content: Field,
}

impl Weights {
    /// The weights Pyxis ranks with.
    pub const DEFAULT: Weights = Weights {
        k1: 1.2,
        path: Field {
            weight: 3.0,
            b: 0.3,
        },
        defs: Field {
            weight: 2.0,
            b: 0.5,
        },
        content: Field {
            weight: 1.0,
            b: 0.75,
        },
    };
}

impl Default for Weights {
    fn default() -> Self {
        Weights::DEFAULT
    }
}

/// A term in more than this share of the files says nothing about where to
/// look (`src`, `rs` in a Rust repository): a file that matches only such
/// terms is left out of a [`Scoring::Fields`] ranking.
pub const COMMON_SHARE: f64 = 0.5;

/// Definitions shown per file at most.
pub const MAX_DEFS_PER_HIT: usize = 3;

/// A file named by a bare file name (`config.rs`) is pinned only when at
/// most this many files have that name.
pub const MAX_SAME_NAME: usize = 3;

/// How to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoring {
    /// BM25F over path, definitions and contents, named files pinned first.
    Fields,
    /// Plain BM25 over the contents (the baseline).
    Contents,
}

/// Why a file is pinned to the top.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// The query names its path (as written).
    Named(String),
    /// It defines a qualified name the query mentions.
    Defines(Def),
}

/// One query term's match in a file.
#[derive(Debug, Clone, PartialEq)]
pub struct TermMatch {
    /// The term.
    pub term: String,
    /// How often it is in the path.
    pub path: u32,
    /// How often in the definitions' names.
    pub defs: u32,
    /// How often in the contents.
    pub content: u32,
    /// What it added to the score.
    pub score: f64,
}

/// A definition whose name matched the query.
#[derive(Debug, Clone, PartialEq)]
pub struct DefMatch {
    /// The definition.
    pub def: Def,
    /// The query terms its name has, sorted.
    pub terms: Vec<String>,
}

/// One file of a ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Repository-relative path.
    pub path: String,
    /// Its score (pinned files come first whatever it is).
    pub score: f64,
    /// Why it is pinned first (empty: ranked by score alone).
    pub pins: Vec<Pin>,
    /// The terms that matched, the largest contribution first.
    pub terms: Vec<TermMatch>,
    /// The definitions whose names matched, best first (at most
    /// [`MAX_DEFS_PER_HIT`]).
    pub defs: Vec<DefMatch>,
}

/// Corpus statistics for one query.
struct Stats {
    /// idf of each query term (terms no file has are left out).
    idf: BTreeMap<String, f64>,
    /// The query terms at most [`COMMON_SHARE`] of the files have.
    telling: std::collections::BTreeSet<String>,
    avg_path: f64,
    avg_defs: f64,
    avg_content: f64,
}

impl Stats {
    fn of(index: &Index, query: &Query, scoring: Scoring) -> Stats {
        let n = index.files.len() as f64;
        let mut df: BTreeMap<&str, u32> = BTreeMap::new();
        let (mut path, mut defs, mut content) = (0u64, 0u64, 0u64);
        for doc in index.files.values() {
            path += u64::from(doc.path_length());
            defs += u64::from(doc.def_length());
            content += u64::from(doc.length);
            for term in query.terms.keys() {
                let t = term.as_str();
                let has = match scoring {
                    Scoring::Fields => {
                        doc.terms.contains_key(t)
                            || doc.path_terms.contains_key(t)
                            || doc.def_terms.contains_key(t)
                    }
                    Scoring::Contents => doc.terms.contains_key(t),
                };
                if has {
                    *df.entry(t).or_insert(0) += 1;
                }
            }
        }
        let telling = df
            .iter()
            .filter(|&(_, &df)| f64::from(df) <= COMMON_SHARE * n)
            .map(|(t, _)| t.to_string())
            .collect();
        let idf = df
            .into_iter()
            .map(|(t, df)| {
                let df = f64::from(df);
                (t.to_string(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
            })
            .collect();
        let avg = |total: u64| if n > 0.0 { total as f64 / n } else { 0.0 };
        Stats {
            idf,
            telling,
            avg_path: avg(path),
            avg_defs: avg(defs),
            avg_content: avg(content),
        }
    }
}

/// A field's normalized term frequency.
fn normalized(field: Field, tf: u32, len: u32, avg: f64) -> f64 {
    if tf == 0 {
        return 0.0;
    }
    let ratio = if avg > 0.0 { f64::from(len) / avg } else { 1.0 };
    field.weight * f64::from(tf) / (1.0 - field.b + field.b * ratio)
}

/// Scores one file: its score and the terms that matched.
fn score(
    doc: &Doc,
    query: &Query,
    stats: &Stats,
    scoring: Scoring,
    w: &Weights,
) -> (f64, Vec<TermMatch>) {
    let mut total = 0.0;
    let mut matched = Vec::new();
    for (term, &repeats) in &query.terms {
        let Some(&idf) = stats.idf.get(term) else {
            continue;
        };
        let content = doc.terms.get(term).copied().unwrap_or(0);
        let (path, defs) = match scoring {
            Scoring::Fields => (
                doc.path_terms.get(term).copied().unwrap_or(0),
                doc.def_terms.get(term).copied().unwrap_or(0),
            ),
            Scoring::Contents => (0, 0),
        };
        let tf = normalized(w.path, path, doc.path_length(), stats.avg_path)
            + normalized(w.defs, defs, doc.def_length(), stats.avg_defs)
            + normalized(w.content, content, doc.length, stats.avg_content);
        if tf <= 0.0 {
            continue;
        }
        let s = f64::from(repeats) * idf * tf * (w.k1 + 1.0) / (w.k1 + tf);
        total += s;
        matched.push(TermMatch {
            term: term.clone(),
            path,
            defs,
            content,
            score: s,
        });
    }
    matched.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.term.cmp(&b.term))
    });
    (total, matched)
}

/// Why `path` (whose file is `doc`) is pinned by `query`; `same_name`
/// counts the files of each file name.
fn pins(path: &str, doc: &Doc, query: &Query, same_name: &BTreeMap<&str, usize>) -> Vec<Pin> {
    let mut out = Vec::new();
    let file_name = path.rsplit('/').next().unwrap_or(path);
    for named in &query.paths {
        let hit = if named.contains('/') {
            path == named
                || path
                    .strip_suffix(named.as_str())
                    .is_some_and(|rest| rest.ends_with('/'))
        } else {
            path == named
                || (file_name == named
                    && same_name.get(file_name).copied().unwrap_or(0) <= MAX_SAME_NAME)
        };
        if hit {
            out.push(Pin::Named(named.clone()));
        }
    }
    for segments in &query.symbols {
        let Some((last, before)) = segments.split_last() else {
            continue;
        };
        let scope = before.last();
        for def in &doc.defs {
            if def.name == *last && scope.is_none_or(|s| *s == def.scope) {
                out.push(Pin::Defines(def.clone()));
                break;
            }
        }
    }
    out
}

/// The definitions of `doc` whose names hold query terms, best first: by
/// the idf their matched terms sum to, then by line.
fn matching_defs(doc: &Doc, query: &Query, stats: &Stats, pins: &[Pin]) -> Vec<DefMatch> {
    let mut scored: Vec<(f64, DefMatch)> = Vec::new();
    for def in &doc.defs {
        let mut terms: Vec<String> = crate::tokens::terms(&def.name)
            .into_iter()
            .filter(|t| query.terms.contains_key(t))
            .collect();
        terms.sort();
        terms.dedup();
        let pinned = pins
            .iter()
            .any(|p| matches!(p, Pin::Defines(d) if d == def));
        if terms.is_empty() && !pinned {
            continue;
        }
        let weight: f64 = terms.iter().filter_map(|t| stats.idf.get(t)).sum();
        let weight = if pinned { f64::INFINITY } else { weight };
        scored.push((
            weight,
            DefMatch {
                def: def.clone(),
                terms,
            },
        ));
    }
    scored.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(Ordering::Equal)
            .then_with(|| a.1.def.line.cmp(&b.1.def.line))
            .then_with(|| a.1.def.name.cmp(&b.1.def.name))
    });
    scored
        .into_iter()
        .map(|(_, m)| m)
        .take(MAX_DEFS_PER_HIT)
        .collect()
}

impl Index {
    /// The `limit` files that best match `query`, best first (see the
    /// module's documentation), each with why; files that match nothing
    /// are left out.
    pub fn search(&self, query: &Query, scoring: Scoring, limit: usize) -> Vec<Hit> {
        self.search_with(query, scoring, &Weights::DEFAULT, limit)
    }

    /// [`Index::search`] with other weights (for the benchmark's
    /// sensitivity table; [`Scoring::Contents`] uses only `k1` and the
    /// content field's `b`, at weight 1).
    pub fn search_with(
        &self,
        query: &Query,
        scoring: Scoring,
        weights: &Weights,
        limit: usize,
    ) -> Vec<Hit> {
        let contents_only = Weights {
            content: Field {
                weight: 1.0,
                ..weights.content
            },
            ..*weights
        };
        let weights = match scoring {
            Scoring::Fields => weights,
            Scoring::Contents => &contents_only,
        };
        if limit == 0 || self.files.is_empty() || query.is_empty() {
            return Vec::new();
        }
        let stats = Stats::of(self, query, scoring);
        let mut same_name: BTreeMap<&str, usize> = BTreeMap::new();
        if scoring == Scoring::Fields && !query.paths.is_empty() {
            for path in self.files.keys() {
                *same_name
                    .entry(path.rsplit('/').next().unwrap_or(path))
                    .or_insert(0) += 1;
            }
        }
        let mut hits: Vec<(Hit, &Doc)> = Vec::new();
        for (path, doc) in &self.files {
            let (score, terms) = score(doc, query, &stats, scoring, weights);
            let pins = match scoring {
                Scoring::Fields => pins(path, doc, query, &same_name),
                Scoring::Contents => Vec::new(),
            };
            let telling = match scoring {
                Scoring::Fields => terms.iter().any(|m| stats.telling.contains(&m.term)),
                Scoring::Contents => score > 0.0,
            };
            if !telling && pins.is_empty() {
                continue;
            }
            hits.push((
                Hit {
                    path: path.clone(),
                    score,
                    pins,
                    terms,
                    defs: Vec::new(),
                },
                doc,
            ));
        }
        hits.sort_by(|(a, _), (b, _)| {
            a.pins
                .is_empty()
                .cmp(&b.pins.is_empty())
                .then_with(|| b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal))
                .then_with(|| a.path.cmp(&b.path))
        });
        hits.truncate(limit);
        hits.into_iter()
            .map(|(mut hit, doc)| {
                if scoring == Scoring::Fields {
                    hit.defs = matching_defs(doc, query, &stats, &hit.pins);
                }
                hit
            })
            .collect()
    }
}

impl Hit {
    /// Why it was chosen, in one line: what pinned it, the definitions that
    /// matched, and the terms that matched where (in the query's words).
    pub fn why(&self, query: &Query) -> String {
        let mut parts = Vec::new();
        for pin in &self.pins {
            parts.push(match pin {
                Pin::Named(p) => format!("named in the text as `{p}`"),
                Pin::Defines(d) => format!("defines `{}` (line {})", d.display(), d.line),
            });
        }
        let shown: Vec<String> = self
            .defs
            .iter()
            .filter(|m| {
                !self
                    .pins
                    .iter()
                    .any(|p| matches!(p, Pin::Defines(d) if *d == m.def))
            })
            .map(|m| format!("`{}` (line {})", m.def.display(), m.def.line))
            .collect();
        if !shown.is_empty() {
            parts.push(format!("defines {}", shown.join(", ")));
        }
        let terms: Vec<String> = self
            .terms
            .iter()
            .take(6)
            .map(|m| {
                let mut r#where = Vec::new();
                if m.path > 0 {
                    r#where.push("path".to_string());
                }
                if m.defs > 0 {
                    r#where.push("names".to_string());
                }
                if m.content > 0 {
                    r#where.push(format!("{}× in text", m.content));
                }
                format!("{} ({})", query.form(&m.term), r#where.join(", "))
            })
            .collect();
        if !terms.is_empty() {
            parts.push(format!("matched {}", terms.join(", ")));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Index;

    fn indexed(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().expect("temp");
        std::fs::create_dir_all(dir.path().join(".git")).expect("git");
        for (path, body) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(full, body).expect("write");
        }
        let mut lumen = zurdo_lumen::Index::default();
        lumen.refresh(dir.path());
        let mut index = Index::default();
        index.refresh(dir.path(), &lumen);
        (dir, index)
    }

    const FILES: &[(&str, &str)] = &[
        (
            "src/settings.rs",
            "/// Loaded once.\npub struct Settings;\nimpl Settings {\n    pub fn parse_toml(text: &str) -> Settings { Settings }\n}\n",
        ),
        (
            "src/server.rs",
            "use crate::settings::Settings;\npub fn serve() {\n    let s = Settings::parse_toml(\"\");\n    // parse the toml, then parse the toml again\n}\n",
        ),
        (
            "src/retry.rs",
            "pub fn backoff(attempt: u32) -> u64 { 2u64.pow(attempt) }\n",
        ),
        (
            "docs/retry.md",
            "# Retries\nEach attempt waits twice as long as the one before.\n",
        ),
        ("README.md", "A server. Settings come from a TOML file.\n"),
    ];

    fn paths(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|h| h.path.as_str()).collect()
    }

    #[test]
    fn a_query_naming_an_identifier_ranks_its_defining_file_first() {
        let (_dir, index) = indexed(FILES);
        for text in ["fix parseToml", "parse_toml is slow", "ParseToml"] {
            let hits = index.search(&Query::parse(text), Scoring::Fields, 10);
            assert_eq!(
                hits[0].path,
                "src/settings.rs",
                "{text}: {:?}",
                paths(&hits)
            );
            assert_eq!(hits[0].defs[0].def.display(), "Settings::parse_toml");
        }
        // Contents alone rank the file that says it most often first.
        let plain = index.search(&Query::parse("parse the toml"), Scoring::Contents, 10);
        assert_eq!(plain[0].path, "src/server.rs", "{:?}", paths(&plain));
    }

    #[test]
    fn path_terms_count() {
        let (_dir, index) = indexed(FILES);
        let hits = index.search(&Query::parse("retry"), Scoring::Fields, 10);
        assert_eq!(paths(&hits)[..2], ["docs/retry.md", "src/retry.rs"]);
        assert_eq!(hits[0].terms[0].path, 1);
        // Without the path field, `retry` is in no file's words but the doc's heading.
        let plain = index.search(&Query::parse("retry"), Scoring::Contents, 10);
        assert_eq!(paths(&plain), ["docs/retry.md"]);
    }

    #[test]
    fn named_paths_and_symbols_are_pinned_first_and_say_why() {
        let (_dir, index) = indexed(FILES);
        let q = Query::parse("Change README.md and `Settings::parse_toml`; the retry backoff too");
        let hits = index.search(&q, Scoring::Fields, 10);
        // Both pinned above the files that only match words (`retry`,
        // `backoff`), in the order of their scores.
        assert_eq!(
            paths(&hits)[..2],
            ["README.md", "src/settings.rs"],
            "{hits:?}"
        );
        assert_eq!(hits[0].pins, [Pin::Named("README.md".into())]);
        assert!(matches!(&hits[1].pins[0], Pin::Defines(d) if d.line == 4));
        assert!(hits[2..].iter().all(|h| h.pins.is_empty()));
        let why = hits[1].why(&q);
        assert!(
            why.starts_with("defines `Settings::parse_toml` (line 4); defines `settings::Settings` (line 2); matched parse (names, 1× in text)"),
            "{why}"
        );
        assert!(hits[0]
            .why(&q)
            .starts_with("named in the text as `README.md`"));
    }

    #[test]
    fn a_pin_outranks_any_score() {
        let (_dir, index) = indexed(FILES);
        // `retry` and `backoff` score src/retry.rs far above README.md,
        // which only the name pins.
        let q = Query::parse("retry backoff retry backoff, see README.md");
        let hits = index.search(&q, Scoring::Fields, 10);
        assert_eq!(paths(&hits)[..2], ["README.md", "src/retry.rs"], "{hits:?}");
        assert!(hits[0].score < hits[1].score);
    }

    #[test]
    fn a_ranking_is_deterministic_and_ties_go_by_path() {
        let (_dir, index) = indexed(&[
            ("b/same.txt", "widget\n"),
            ("a/same.txt", "widget\n"),
            ("c/other.txt", "gadget\n"),
            ("d/other.txt", "gizmo\n"),
        ]);
        let q = Query::parse("widget");
        let first = index.search(&q, Scoring::Fields, 10);
        assert_eq!(paths(&first), ["a/same.txt", "b/same.txt"]);
        assert_eq!(first[0].score, first[1].score);
        for _ in 0..5 {
            assert_eq!(index.search(&q, Scoring::Fields, 10), first);
        }
        assert_eq!(index.search(&q, Scoring::Fields, 1).len(), 1);
        assert!(index
            .search(&Query::parse("the of"), Scoring::Fields, 10)
            .is_empty());
    }

    #[test]
    fn why_speaks_the_query_s_words() {
        let (_dir, index) = indexed(FILES);
        let q = Query::parse("retries");
        let hits = index.search(&q, Scoring::Fields, 10);
        let why = hits[0].why(&q);
        assert!(why.contains("retries (path, 1× in text)"), "{why}");
    }
}
