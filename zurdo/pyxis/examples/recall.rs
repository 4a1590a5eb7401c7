//! Pyxis's recall on real history (`benches/pyxis-recall.sh` runs it).
//!
//! For the newest `--commits` qualifying commits reachable from `--head`
//! in the git directory `--git-dir` (after skipping the newest `--skip`):
//! the tree *before* the commit is checked out into `--work` (a scratch
//! index file there, so the repository itself is only read), both indexes
//! are refreshed (in memory: each commit after the first re-reads only what
//! changed), and the commit's message is the query. Its targets are the
//! files the commit modified, deleted or renamed away from (files it added
//! did not exist to be found). recall@k is the share of the targets among
//! the first k files; it is computed for Pyxis (BM25F, pins) and for plain
//! BM25 over contents with the same tokenizer.
//!
//! A commit qualifies when it is not a merge, was not authored by a bot
//! (`[bot]`, dependabot, renovate), has a message left after trailers
//! (`Signed-off-by:` …) are dropped, and has between 1 and `--max-targets`
//! targets.
//!
//! Prints one JSON line per commit, then one summary line.
//! `--weights k1,wp,bp,wd,bd,wc,bc` scores with other BM25F weights.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use zurdo_pyxis::rank::{Field, Weights};
use zurdo_pyxis::{Index, Query, Scoring};

type Error = Box<dyn std::error::Error>;

struct Args {
    git_dir: PathBuf,
    head: String,
    work: PathBuf,
    commits: usize,
    skip: usize,
    max_targets: usize,
    weights: Weights,
    label: String,
}

fn args() -> Result<Args, Error> {
    let mut a = Args {
        git_dir: PathBuf::new(),
        head: "HEAD".into(),
        work: PathBuf::new(),
        commits: 100,
        skip: 0,
        max_targets: 10,
        weights: Weights::DEFAULT,
        label: String::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--git-dir" => a.git_dir = value()?.into(),
            "--head" => a.head = value()?,
            "--work" => a.work = value()?.into(),
            "--commits" => a.commits = value()?.parse()?,
            "--skip" => a.skip = value()?.parse()?,
            "--max-targets" => a.max_targets = value()?.parse()?,
            "--label" => a.label = value()?,
            "--weights" => {
                let v: Vec<f64> = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
                let [k1, wp, bp, wd, bd, wc, bc] = v[..] else {
                    return Err("--weights needs k1,wp,bp,wd,bd,wc,bc".into());
                };
                let f = |weight, b| Field { weight, b };
                a.weights = Weights {
                    k1,
                    path: f(wp, bp),
                    defs: f(wd, bd),
                    content: f(wc, bc),
                };
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if a.git_dir.as_os_str().is_empty() || a.work.as_os_str().is_empty() {
        return Err("usage: recall --git-dir DIR --work DIR [--head REV] [--commits N] [--skip N] [--max-targets N] [--label NAME] [--weights …]".into());
    }
    if a.label.is_empty() {
        a.label = a.git_dir.display().to_string();
    }
    Ok(a)
}

/// `git --git-dir=<dir> <args>`'s stdout, with the scratch index of `work`.
fn git(a: &Args, args: &[&str]) -> Result<String, Error> {
    let out = Command::new("git")
        .arg(format!("--git-dir={}", a.git_dir.display()))
        .arg(format!("--work-tree={}", a.work.display()))
        .args(args)
        .env("GIT_INDEX_FILE", a.work.with_extension("git-index"))
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A commit to query with.
struct Case {
    sha: String,
    message: String,
    targets: BTreeSet<String>,
}

/// The message without trailers (`Key: value` lines of a last paragraph
/// made only of them, and `Signed-off-by:`/`Co-authored-by:` anywhere).
fn message_of(raw: &str) -> String {
    let drop = |l: &str| {
        let l = l.trim().to_ascii_lowercase();
        l.starts_with("signed-off-by:")
            || l.starts_with("co-authored-by:")
            || l.starts_with("reviewed-by:")
            || l.starts_with("change-id:")
    };
    raw.lines()
        .filter(|l| !drop(l))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

fn cases(a: &Args) -> Result<Vec<Case>, Error> {
    let log = git(
        a,
        &[
            "log",
            "--no-merges",
            "--format=%x1e%H%x1f%P%x1f%an%x1f%ae%x1f%B",
            &a.head,
        ],
    )?;
    let mut out = Vec::new();
    let mut skipped = 0;
    for record in log.split('\u{1e}').filter(|r| !r.trim().is_empty()) {
        let fields: Vec<&str> = record.splitn(5, '\u{1f}').collect();
        let [sha, parents, name, email, body] = fields[..] else {
            continue;
        };
        if parents.trim().is_empty() {
            continue; // a root commit
        }
        let who = format!("{name} {email}").to_ascii_lowercase();
        if who.contains("[bot]") || who.contains("dependabot") || who.contains("renovate") {
            continue;
        }
        let message = message_of(body);
        if message.is_empty() {
            continue;
        }
        let parent = format!("{sha}^");
        let diff = git(
            a,
            &["diff-tree", "-r", "-M", "--name-status", "-z", &parent, sha],
        )?;
        let mut targets = BTreeSet::new();
        let mut parts = diff.split('\0').filter(|p| !p.is_empty());
        while let Some(status) = parts.next() {
            let Some(path) = parts.next() else { break };
            match status.chars().next() {
                Some('M' | 'D' | 'T') => {
                    targets.insert(path.to_string());
                }
                Some('R') => {
                    targets.insert(path.to_string());
                    parts.next(); // the new name
                }
                Some('C') => {
                    parts.next();
                }
                _ => {}
            }
        }
        if targets.is_empty() || targets.len() > a.max_targets {
            continue;
        }
        if skipped < a.skip {
            skipped += 1;
            continue;
        }
        out.push(Case {
            sha: sha.to_string(),
            message,
            targets,
        });
        if out.len() == a.commits {
            break;
        }
    }
    out.reverse(); // oldest first: each checkout changes little
    Ok(out)
}

fn recall(hits: &[String], targets: &BTreeSet<String>, k: usize) -> f64 {
    let found = hits.iter().take(k).filter(|h| targets.contains(*h)).count();
    found as f64 / targets.len() as f64
}

fn main() -> Result<(), Error> {
    let a = args()?;
    std::fs::create_dir_all(&a.work)?;
    // The scratch tree is a repository root for the walk (its `.git`
    // marks it), and nothing of the real repository's is written.
    std::fs::create_dir_all(a.work.join(".git"))?;
    let cases = cases(&a)?;
    let mut lumen = zurdo_lumen::Index::default();
    let mut index = Index::default();
    let mut totals = [[0.0f64; 3]; 2];
    let (mut indexable, mut all_targets) = (0usize, 0usize);
    for case in &cases {
        git(
            &a,
            &["read-tree", "-u", "--reset", &format!("{}^", case.sha)],
        )?;
        lumen.refresh(&a.work);
        index.refresh(&a.work, &lumen);
        let query = Query::parse(&case.message);
        let mut line = format!(
            "{{\"repo\":{:?},\"commit\":{:?},\"targets\":{},\"indexed_targets\":{}",
            a.label,
            case.sha,
            case.targets.len(),
            case.targets
                .iter()
                .filter(|t| index.files.contains_key(*t))
                .count()
        );
        all_targets += case.targets.len();
        indexable += case
            .targets
            .iter()
            .filter(|t| index.files.contains_key(*t))
            .count();
        for (i, scoring) in [Scoring::Fields, Scoring::Contents].into_iter().enumerate() {
            let hits: Vec<String> = index
                .search_with(&query, scoring, &a.weights, 10)
                .into_iter()
                .map(|h| h.path)
                .collect();
            let r = [1, 5, 10].map(|k| recall(&hits, &case.targets, k));
            for (t, v) in totals[i].iter_mut().zip(r) {
                *t += v;
            }
            let name = if i == 0 { "pyxis" } else { "bm25" };
            let missed: Vec<&String> = case.targets.iter().filter(|t| !hits.contains(*t)).collect();
            line.push_str(&format!(
                ",\"{name}\":{{\"r1\":{:.3},\"r5\":{:.3},\"r10\":{:.3},\"missed\":{missed:?}}}",
                r[0], r[1], r[2]
            ));
        }
        line.push('}');
        println!("{line}");
    }
    let n = cases.len().max(1) as f64;
    let avg = |t: [f64; 3]| t.map(|v| v / n);
    let [p, b] = [avg(totals[0]), avg(totals[1])];
    println!(
        "{{\"summary\":true,\"repo\":{:?},\"commits\":{},\"files\":{},\"targets\":{},\"indexed_targets\":{},\"pyxis\":{{\"r1\":{:.4},\"r5\":{:.4},\"r10\":{:.4}}},\"bm25\":{{\"r1\":{:.4},\"r5\":{:.4},\"r10\":{:.4}}}}}",
        a.label,
        cases.len(),
        index.files.len(),
        all_targets,
        indexable,
        p[0],
        p[1],
        p[2],
        b[0],
        b[1],
        b[2]
    );
    Ok(())
}
