//! Times `zurdo_harness::evidence::baseline::capture` on an existing repository.
//!
//! ```sh
//! ZURDO_BENCH_REPO=/path/to/repo cargo bench -p zurdo-harness --bench baseline
//! ```
//!
//! `benches/baseline-capture.sh` at the workspace root generates the 50,000-file repository,
//! runs this binary under hyperfine against the git CLI, and prints the comparison.
//!
//! With `--bench`, the repository is the first argument that is not an option, else
//! `ZURDO_BENCH_REPO` (one of them is required). Settings (environment):
//! `ZURDO_BENCH_RUNS` (captures in this process, default 1; each is timed and printed).
//! Without `--bench` (under `cargo test --all-targets`) it captures a three-file repository
//! made in a temporary directory once, as a smoke test.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use zurdo_harness::evidence::baseline::capture;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let smoke;
    // Only in bench mode: under `cargo test`, free arguments are test-name filters.
    let path_arg = args
        .iter()
        .find(|a| bench && !a.starts_with('-'))
        .map(std::ffi::OsString::from);
    let repo: PathBuf = match path_arg.or_else(|| std::env::var_os("ZURDO_BENCH_REPO")) {
        Some(path) => PathBuf::from(path),
        None if bench => {
            eprintln!("name the repository to capture (argument or ZURDO_BENCH_REPO)");
            std::process::exit(2);
        }
        None => {
            smoke = tempfile::tempdir().expect("temp dir");
            small_repo(smoke.path());
            smoke.path().to_path_buf()
        }
    };
    let runs: usize = std::env::var("ZURDO_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    for _ in 0..runs {
        let start = Instant::now();
        let baseline = capture(&repo).expect("capture");
        let elapsed = start.elapsed();
        println!(
            "capture: {:9.2} ms  tree {}  files {}  dirty {}",
            elapsed.as_secs_f64() * 1e3,
            baseline.tree,
            baseline.files,
            baseline.dirty
        );
    }
}

/// A repository with one commit and an untracked file.
fn small_repo(dir: &Path) {
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@zurdo.invalid")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@zurdo.invalid")
            .output()
            .expect("git runs")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(dir.join("a.txt"), "a\n").expect("write");
    std::fs::write(dir.join("b.txt"), "b\n").expect("write");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "initial"]);
    std::fs::write(dir.join("c.txt"), "untracked\n").expect("write");
}
