//! PRD parse-and-validate throughput on a generated 10,000-task PRD,
//! against the floor of a bare pulldown-cmark pass over the same text.
//!
//! `cargo bench -p zurdo --bench parse` runs the full measurement. Without
//! `--bench` (as under `cargo test --all-targets`) it runs a 100-task smoke
//! version once, so test runs stay fast. `ZURDO_BENCH_TASKS=<n>` overrides
//! the task count (used for profiling).
//!
//! std only: no benchmarking crate.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A small deterministic PRNG (SplitMix64), so every run parses the same text.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability 1/n.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const WORDS: [&str; 40] = [
    "service",
    "token",
    "config",
    "parser",
    "cache",
    "request",
    "handler",
    "retry",
    "limit",
    "session",
    "endpoint",
    "metrics",
    "schema",
    "migration",
    "queue",
    "worker",
    "client",
    "server",
    "index",
    "report",
    "user",
    "account",
    "backup",
    "logging",
    "timeout",
    "build",
    "release",
    "storage",
    "upload",
    "download",
    "search",
    "filter",
    "export",
    "import",
    "audit",
    "policy",
    "header",
    "payload",
    "router",
    "health",
];

const VERBS: [&str; 12] = [
    "Add",
    "Rework",
    "Harden",
    "Document",
    "Expose",
    "Refactor",
    "Fix",
    "Test",
    "Remove",
    "Cache",
    "Validate",
    "Instrument",
];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(&WORDS));
    }
    out
}

/// One criterion hint, valid by construction.
fn hint(rng: &mut Rng, i: usize, w: &str) -> String {
    match rng.below(6) {
        0 => format!("[shell: cargo test -p app {w}_{i}]"),
        1 => format!("[file-exists: src/{w}/mod_{i}.rs]"),
        2 => format!("[grep: fn {w}_{i}\\( in src/{w}/*.rs]"),
        3 => format!("[no-grep: todo!\\( in src/{w}/**/*.rs]"),
        4 => format!(
            "[http: GET http://localhost:{}/{w}/{i} -> {}]",
            8000 + rng.below(100),
            rng.pick(&["200", "201", "204", "401", "404"])
        ),
        _ => "[manual]".to_string(),
    }
}

/// A realistic PRD of `tasks` tasks: metadata (Effort, Depends-on naming
/// 0-2 earlier tasks, sometimes Max-Attempts/Skills/Agent-timeout/Category/
/// Frozen), sometimes Requirements, a 2-4 line description and 3-5 criteria
/// mixing shell/file-exists/grep/no-grep/http/manual hints and `[proves:]`.
fn generate(tasks: usize) -> String {
    let mut rng = Rng(0x5EED_2024);
    let mut out = String::with_capacity(tasks * 900);
    out.push_str("# PRD: Generated benchmark PRD\n\n");
    out.push_str("A generated PRD used to measure the parser.\n\n");
    for i in 0..tasks {
        let w = rng.pick(&WORDS);
        let _ = writeln!(
            out,
            "## Task: task-{i} — {} the {} {}",
            rng.pick(&VERBS),
            w,
            words(&mut rng, 2)
        );
        let _ = writeln!(out, "**Effort**: {}", rng.pick(&["low", "medium", "high"]));
        let ndeps = if i == 0 { 0 } else { rng.below(3).min(i) };
        let mut deps: Vec<usize> = Vec::with_capacity(2);
        while deps.len() < ndeps {
            // Mostly recent tasks, sometimes any earlier one.
            let d = if rng.one_in(3) {
                rng.below(i)
            } else {
                i - 1 - rng.below(i.min(20))
            };
            if !deps.contains(&d) {
                deps.push(d);
            }
        }
        let deps: Vec<String> = deps.iter().map(|d| format!("task-{d}")).collect();
        let _ = writeln!(out, "**Depends-on**: [{}]", deps.join(", "));
        if rng.one_in(4) {
            let _ = writeln!(out, "**Max-Attempts**: {}", 1 + rng.below(8));
        }
        if rng.one_in(5) {
            let _ = writeln!(out, "**Skills**: rust-style, {w}-testing");
        }
        if rng.one_in(4) {
            let _ = writeln!(
                out,
                "**Agent-timeout**: {}{}",
                1 + rng.below(59),
                rng.pick(&["s", "m", "h"])
            );
        }
        if rng.one_in(3) {
            let _ = writeln!(
                out,
                "**Category**: {}",
                rng.pick(&["Backend", "Frontend", "Infra", "Docs"])
            );
        }
        if rng.one_in(6) {
            let _ = writeln!(out, "**Frozen**: docs/adr/*.md, src/{w}/api.rs");
        }
        out.push('\n');

        let nreq = if rng.one_in(3) { 1 + rng.below(3) } else { 0 };
        if nreq > 0 {
            out.push_str("### Requirements\n");
            for r in 0..nreq {
                let _ = writeln!(
                    out,
                    "- req-{w}-{r}: The {} must {} {}",
                    w,
                    rng.pick(&["handle", "reject", "report", "persist"]),
                    words(&mut rng, 3)
                );
            }
            out.push('\n');
        }

        out.push_str("### Description\n");
        for _ in 0..2 + rng.below(3) {
            let n = 8 + rng.below(8);
            let _ = writeln!(
                out,
                "{} `{w}_{i}` {}.",
                words(&mut rng, n),
                words(&mut rng, 3)
            );
        }
        out.push('\n');

        out.push_str("### Acceptance Criteria\n");
        let ncrit = 3 + rng.below(3);
        for c in 0..ncrit {
            let n = 3 + rng.below(5);
            let _ = write!(out, "- [ ] the {} {}", w, words(&mut rng, n));
            let nhints = if rng.one_in(4) { 2 } else { 1 };
            for _ in 0..nhints {
                let _ = write!(out, " {}", hint(&mut rng, i, w));
            }
            // Every requirement is proven by some criterion; a few twice.
            if c < nreq {
                let _ = write!(out, " [proves:req-{w}-{c}]");
            } else if nreq > 0 && rng.one_in(4) {
                let _ = write!(out, " [proves:req-{w}-{}]", rng.below(nreq));
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `f` `warmups` times untimed then `runs` times timed; returns the
/// sorted timings.
fn measure(warmups: usize, runs: usize, mut f: impl FnMut()) -> Vec<Duration> {
    for _ in 0..warmups {
        f();
    }
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn median(sorted: &[Duration]) -> Duration {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let default_tasks = if full { 10_000 } else { 100 };
    let tasks = std::env::var("ZURDO_BENCH_TASKS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_tasks);
    let (warmups, runs) = if full { (3, 10) } else { (0, 1) };
    // `ZURDO_BENCH_ONLY=parse|floor` runs one side only (for profilers).
    let only = std::env::var("ZURDO_BENCH_ONLY").unwrap_or_default();

    let t = Instant::now();
    let src = generate(tasks);
    let generated = t.elapsed();

    let prd = match zurdo::parse(&src) {
        Ok(prd) => prd,
        Err(errors) => {
            for e in errors.iter().take(20) {
                eprintln!("{e}");
            }
            panic!("the generated PRD must be valid ({} errors)", errors.len());
        }
    };
    assert_eq!(prd.tasks.len(), tasks);
    let criteria = prd.criterion_count();
    let lines = src.lines().count();
    drop(prd);

    println!(
        "PRD parse and validate ({} mode): {tasks} tasks, {criteria} criteria, {lines} lines, {:.2} MB (generated in {:.1} ms)",
        if full { "bench" } else { "smoke" },
        src.len() as f64 / 1e6,
        ms(generated),
    );
    println!("runs: {warmups} warm-up + {runs} timed each");

    let mut floor_median = None;
    if only != "parse" {
        let floor = measure(warmups, runs, || {
            let n = pulldown_cmark::Parser::new_ext(black_box(&src), zurdo::MARKDOWN_OPTIONS)
                .into_offset_iter()
                .count();
            black_box(n);
        });
        let m = median(&floor);
        floor_median = Some(m);
        println!(
            "floor  (pulldown-cmark pass):  min {:8.2} ms  median {:8.2} ms  {:7.1} MB/s",
            ms(floor[0]),
            ms(m),
            src.len() as f64 / 1e6 / m.as_secs_f64()
        );
    }
    if only != "floor" {
        let parse = measure(warmups, runs, || {
            let result = zurdo::parse(black_box(&src));
            assert!(result.is_ok());
            black_box(result).ok();
        });
        let m = median(&parse);
        println!(
            "zurdo::parse (parse+validate): min {:8.2} ms  median {:8.2} ms  {:7.1} MB/s",
            ms(parse[0]),
            ms(m),
            src.len() as f64 / 1e6 / m.as_secs_f64()
        );
        if let Some(floor) = floor_median {
            let ratio = m.as_secs_f64() / floor.as_secs_f64();
            println!(
                "ratio parse/floor (median): {ratio:.2}x (target < 3x: {})",
                if ratio < 3.0 { "met" } else { "NOT met" }
            );
        }
    }
}
