//! The property the hostile-input work rests on: whatever the repository
//! holds (symlinks out of it at any depth, in the state directory, in the
//! lessons; FIFOs; hints naming all of these through plain paths, globs and
//! directories) and whatever the agent plants while it works, `zurdo
//! verify` and `zurdo run` neither read a file outside the repository nor
//! write one, and neither hangs.
//!
//! Outside the repository sits a directory of sentinels: a file holding a
//! marker that must never appear in anything zurdo prints or records, a
//! victim file that must keep its bytes, and a FIFO. Every link points
//! there. (`[shell:]` hints are left out: a command the PRD's author wrote
//! runs as the user and may read what the user can; docs/security.md says
//! so.)

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

use crate::common::run_repo;

/// Where a symlink to the outside is planted (relative to the root), and
/// what it points at (relative to the outside directory; "" for the
/// directory itself).
const PLANTS: [(&str, &str); 10] = [
    ("escape", ""),
    ("docs/deep/escape", ""),
    ("secret.txt", "secret"),
    ("src/victim.rs", "victim"),
    ("fifo-link", "fifo"),
    ("lessons", ""),
    (".zurdo/reason", ""),
    (".zurdo/lumen", ""),
    ("zero", "/dev/zero"),
    ("docs/up", ".."),
];

/// Hints that read through the plants, every path form.
const HINTS: [&str; 11] = [
    "[grep: SENTINEL in escape/secret]",
    "[no-grep: SENTINEL in escape/*]",
    "[no-grep: SENTINEL in escape/**]",
    "[grep: SENTINEL in docs/**/secret]",
    "[no-grep: SENTINEL in docs]",
    "[grep: SENTINEL in secret.txt]",
    "[file-exists: secret.txt]",
    "[grep: x in fifo-link]",
    "[file-exists: fifo-link]",
    "[grep: x in zero]",
    "[no-grep: SENTINEL in .]",
];

const MARKER: &str = "SENTINEL-5ec2e7-do-not-leak";

fn prd(hints: &[&str]) -> String {
    let mut out = String::from(
        "# PRD: c\n\n## Task: task-1 — Confined\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n### Description\nNothing.\n\n### Acceptance Criteria\n",
    );
    for (i, h) in hints.iter().enumerate() {
        out.push_str(&format!("- [ ] check {i} {h}\n"));
    }
    out
}

/// Every byte under `dir` (files only, symlinks not followed).
fn contents(dir: &Path, out: &mut Vec<u8>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if meta.is_dir() {
            contents(&entry.path(), out);
        } else if meta.is_file() {
            out.extend(std::fs::read(entry.path()).unwrap_or_default());
        }
    }
}

/// Runs zurdo with `args` in `root`, killed after 60 s; (finished in time,
/// stdout and stderr).
fn run(root: &Path, args: &[&str]) -> (bool, Vec<u8>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(args)
        .current_dir(root)
        .env("ZURDO_STAND_IN_SCRIPT", root.join(".zurdo/script.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zurdo runs");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return (false, Vec::new());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    let mut bytes = out.stdout;
    bytes.extend(out.stderr);
    (true, bytes)
}

fn check(plants: &[usize], hints: &[usize], agent_plants: bool) -> Result<(), TestCaseError> {
    let outside = tempfile::tempdir().expect("temp");
    let o = outside.path();
    std::fs::write(o.join("secret"), format!("{MARKER}\n")).expect("secret");
    std::fs::write(o.join("victim"), "precious\n").expect("victim");
    crate::common::mkfifo(&o.join("fifo"));
    let chosen: Vec<&str> = hints.iter().map(|&i| HINTS[i]).collect();
    // The agent writes an honest file and (sometimes) plants more links,
    // in the state directory too, while it works (idempotently: an agent is
    // not confined by zurdo, so a second `ln -s` through its own link would
    // write outside by itself).
    let plant_more = format!(
        "ln -sfn {o} agent-escape; for d in .zurdo/c-* .zurdo/p-*; do [ -d $d ] && ln -sfn {o}/victim $d/run-diff.patch && rm -rf $d/reports && ln -sfn {o} $d/reports; done; true",
        o = o.display()
    );
    let attempt = if agent_plants {
        serde_json::json!({"write": {"work.txt": "done\n"}, "run": plant_more})
    } else {
        serde_json::json!({"write": {"work.txt": "done\n"}})
    };
    let script = serde_json::json!({"attempts": [attempt]}).to_string();
    let r = run_repo(&prd(&chosen), "", &[], &script, true);
    let root = r.path();
    for &i in plants {
        let (at, to) = PLANTS[i];
        let link = root.join(at);
        if let Some(parent) = link.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        let _ = std::fs::remove_dir_all(&link);
        let target = if to.starts_with('/') {
            std::path::PathBuf::from(to)
        } else if to.is_empty() {
            o.to_path_buf()
        } else {
            o.join(to)
        };
        std::os::unix::fs::symlink(&target, &link).expect("plant");
    }
    let mut printed = Vec::new();
    for args in [
        &["verify", "prds/p.md"][..],
        &["run", "--no-prompt", "--skip-model-check", "prds/p.md"][..],
        &["report", "prds/p.md"][..],
    ] {
        let (finished, out) = run(root, args);
        prop_assert!(
            finished,
            "zurdo {args:?} hung (plants {plants:?}, hints {chosen:?})"
        );
        printed.extend(out);
    }
    // Nothing read outside: the marker is in no output and no file zurdo wrote.
    let mut written = Vec::new();
    contents(&root.join(".zurdo"), &mut written);
    for (what, bytes) in [("printed", &printed), ("recorded", &written)] {
        let text = String::from_utf8_lossy(bytes);
        prop_assert!(
            !text.contains(MARKER),
            "{what}: the marker leaked (plants {plants:?}, hints {chosen:?})"
        );
    }
    // Nothing written outside: the victim keeps its bytes, nothing new appeared.
    prop_assert_eq!(
        std::fs::read_to_string(o.join("victim")).expect("victim"),
        "precious\n"
    );
    let mut names: Vec<String> = std::fs::read_dir(o)
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    prop_assert_eq!(names, ["fifo", "secret", "victim"]);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 12,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn nothing_outside_the_repository_is_read_or_written(
        plants in proptest::sample::subsequence((0..PLANTS.len()).collect::<Vec<_>>(), 1..=PLANTS.len()),
        hints in proptest::sample::subsequence((0..HINTS.len()).collect::<Vec<_>>(), 1..=HINTS.len()),
        agent_plants in any::<bool>(),
    ) {
        check(&plants, &hints, agent_plants)?;
    }
}

#[test]
fn every_plant_and_every_hint_at_once() {
    let all_plants: Vec<usize> = (0..PLANTS.len()).collect();
    let all_hints: Vec<usize> = (0..HINTS.len()).collect();
    if let Err(e) = check(&all_plants, &all_hints, true) {
        panic!("{e}");
    }
}
