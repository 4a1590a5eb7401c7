//! `zurdo_harness::evidence::baseline` against real repositories. The `git` CLI sets the
//! repositories up and cross-checks every result: trees against
//! `GIT_INDEX_FILE=<scratch> git add -A && git write-tree`, patches against `git apply`, refs
//! against `git gc --prune=now` and `git for-each-ref`.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};
use zurdo_harness::evidence::baseline::{
    capture, changed_paths, delete_refs, diff_patch, diff_patch_bytes, record_ref, BaselineError,
};

/// The empty tree's object id.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Runs `git` in `dir` with extra environment, asserting success; stdout as text.
fn git_env(dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> String {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(dir);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed in {}:\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Runs `git` in `dir`, asserting success; stdout as text.
fn git(dir: &Path, args: &[&str]) -> String {
    git_env(dir, &[], args)
}

/// An empty repository with a local identity, branch `main`.
fn init() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["config", "user.name", "Zurdo Test"]);
    git(dir.path(), &["config", "user.email", "test@zurdo.invalid"]);
    dir
}

/// Writes `bytes` at `rel` under `dir`, creating parent directories.
fn write(dir: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    fs::write(path, bytes).expect("write");
}

fn chmod(dir: &Path, rel: &str, mode: u32) {
    fs::set_permissions(dir.join(rel), fs::Permissions::from_mode(mode)).expect("chmod");
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

fn git_dir(dir: &Path) -> PathBuf {
    PathBuf::from(git(dir, &["rev-parse", "--absolute-git-dir"]).trim())
}

/// What the git CLI writes for the work tree through a scratch index: a copy of the real
/// index when `seed` (as the capture does, for its stat cache), else a fresh one; the paths
/// in `exclude` (top-level relative) are left out like `.zurdo/`, and dropped if tracked.
fn cli_tree(dir: &Path, seed: bool, exclude: &[&str]) -> String {
    let scratch = tempfile::tempdir().expect("temp dir");
    let index = scratch.path().join("index");
    let real = git_dir(dir).join("index");
    if seed && real.exists() {
        fs::copy(&real, &index).expect("copy index");
    }
    let top = PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"]).trim());
    let specs: Vec<String> = exclude.iter().map(|p| format!(":(exclude){p}")).collect();
    let mut args = vec!["add", "-A", "--", "."];
    args.extend(specs.iter().map(String::as_str));
    let env = [("GIT_INDEX_FILE", index.as_path())];
    git_env(&top, &env, &args);
    // Excluded paths that the copied index tracked are dropped too.
    for path in exclude {
        git_env(
            &top,
            &env,
            &["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", path],
        );
    }
    git_env(&top, &env, &["write-tree"]).trim().to_owned()
}

/// How many entries `tree` holds, recursively (files, symlinks, submodules).
fn tree_entries(dir: &Path, tree: &str) -> usize {
    git(dir, &["ls-tree", "-r", "-z", "--name-only", tree])
        .split('\0')
        .filter(|s| !s.is_empty())
        .count()
}

/// SHA-256 over every file below `dir` (relative path and bytes), `None` if it is absent.
fn hash_tree_of_files(dir: &Path) -> Option<String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("below base");
                out.insert(rel.display().to_string(), fs::read(&path).expect("read"));
            }
        }
    }
    if !dir.exists() {
        return None;
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    let mut hasher = Sha256::new();
    for (rel, bytes) in &files {
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    Some(format!("{:x}", hasher.finalize()))
}

fn sha256_file(path: &Path) -> String {
    format!("{:x}", Sha256::digest(fs::read(path).expect("read")))
}

/// A repository with history and a varied, partly dirty work tree: nested `.gitignore`s,
/// names with spaces and non-ASCII characters, a symlink, an executable, a deleted tracked
/// file, a staged change the work tree has moved past, untracked and ignored files, and a
/// `.zurdo/` state directory that is not ignored.
fn varied_repo() -> tempfile::TempDir {
    let dir = init();
    let d = dir.path();
    write(d, ".gitignore", "*.log\n/build/\n");
    write(d, "src/.gitignore", "generated/\n!keep.log\n");
    write(d, "README.md", "readme\n");
    write(d, "src/lib.rs", "pub fn a() {}\n");
    write(d, "src/old.rs", "// to be deleted\n");
    write(d, "src/keep.log", "kept despite *.log\n");
    write(d, "dir with spaces/file name.txt", "spaces\n");
    write(d, "ünïcödé/日本語.md", "unicode\n");
    write(d, "bin/run.sh", "#!/bin/sh\necho run\n");
    chmod(d, "bin/run.sh", 0o755);
    symlink("../README.md", d.join("src/readme-link")).expect("symlink");
    commit_all(d, "initial");
    write(d, "src/lib.rs", "pub fn a() {}\npub fn b() {}\n");
    commit_all(d, "second");

    // Dirty it.
    write(d, "README.md", "readme, edited\n");
    fs::remove_file(d.join("src/old.rs")).expect("rm");
    write(d, "src/lib.rs", "staged\n");
    git(d, &["add", "src/lib.rs"]);
    write(d, "src/lib.rs", "staged, then edited again\n");
    write(d, "new file ✓.txt", "untracked\n");
    write(d, "src/nested/deep/untracked.rs", "fn deep() {}\n");
    write(d, "debug.log", "ignored\n");
    write(d, "build/out.o", "ignored dir\n");
    write(
        d,
        "src/generated/gen.rs",
        "ignored by the nested .gitignore\n",
    );
    write(d, "src/new.log", "ignored by the top .gitignore\n");
    write(d, "src/keep2.log", "still ignored\n");
    write(d, ".zurdo/slug-1a2b/prd.json", "{}\n");
    write(d, ".zurdo/config.toml", "[executor]\n");
    chmod(d, "README.md", 0o755);
    dir
}

#[test]
fn capture_leaves_index_reflogs_and_status_byte_for_byte_unchanged() {
    let dir = varied_repo();
    let d = dir.path();
    let gd = git_dir(d);
    // Let git settle its own index (a status may refresh and rewrite it) before measuring.
    git(d, &["update-index", "-q", "--really-refresh"]);
    let status_before = git(
        d,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    );
    let index_before = sha256_file(&gd.join("index"));
    let index_mtime_before = fs::metadata(gd.join("index")).unwrap().modified().unwrap();
    let logs_before = hash_tree_of_files(&gd.join("logs"));
    let refs_before = git(d, &["for-each-ref"]);
    assert!(
        logs_before.is_some(),
        "the repository has reflogs to protect"
    );

    let baseline = capture(d).expect("capture");
    capture(d).expect("a second capture");

    assert_eq!(
        sha256_file(&gd.join("index")),
        index_before,
        ".git/index changed"
    );
    assert_eq!(
        fs::metadata(gd.join("index")).unwrap().modified().unwrap(),
        index_mtime_before,
        ".git/index was rewritten"
    );
    assert_eq!(
        hash_tree_of_files(&gd.join("logs")),
        logs_before,
        ".git/logs changed"
    );
    assert_eq!(git(d, &["for-each-ref"]), refs_before, "refs changed");
    assert!(!gd.join("index.lock").exists());
    let status_after = git(
        d,
        &["status", "--porcelain=v1", "-z", "--untracked-files=all"],
    );
    assert_eq!(status_after, status_before, "git status changed");
    assert!(baseline.dirty);
}

#[test]
fn tree_equals_git_add_all_and_write_tree_through_a_scratch_index() {
    let dir = varied_repo();
    let d = dir.path();
    let baseline = capture(d).expect("capture");

    let seeded = cli_tree(d, true, &[".zurdo"]);
    let fresh = cli_tree(d, false, &[".zurdo"]);
    assert_eq!(baseline.tree, seeded, "vs a copy of .git/index");
    assert_eq!(baseline.tree, fresh, "vs a fresh index");
    assert_eq!(baseline.files, tree_entries(d, &baseline.tree));
    assert!(baseline.dirty);
    assert!(
        baseline.captured_at.ends_with('Z') && baseline.captured_at.len() == 20,
        "{}",
        baseline.captured_at
    );

    // What is in it, seen through git.
    let listing = git(d, &["ls-tree", "-r", &baseline.tree]);
    let modes: BTreeMap<&str, &str> = listing
        .lines()
        .map(|line| {
            let (meta, path) = line.split_once('\t').expect("tab");
            (path, meta.split(' ').next().expect("mode"))
        })
        .collect();
    assert_eq!(modes.get("bin/run.sh"), Some(&"100755"));
    assert_eq!(
        modes.get("README.md"),
        Some(&"100755"),
        "the exec bit change"
    );
    assert_eq!(modes.get("src/readme-link"), Some(&"120000"));
    assert_eq!(modes.get("src/keep.log"), Some(&"100644"));
    let names = git(d, &["ls-tree", "-r", "-z", "--name-only", &baseline.tree]);
    let names: Vec<&str> = names.split('\0').filter(|s| !s.is_empty()).collect();
    for present in [
        "new file ✓.txt",
        "dir with spaces/file name.txt",
        "ünïcödé/日本語.md",
        "src/nested/deep/untracked.rs",
    ] {
        assert!(names.contains(&present), "{present} missing: {names:?}");
    }
    for absent in [
        "src/old.rs",
        "debug.log",
        "build/out.o",
        "src/generated/gen.rs",
        "src/new.log",
        "src/keep2.log",
        ".zurdo/config.toml",
        ".zurdo/slug-1a2b/prd.json",
    ] {
        assert!(!names.contains(&absent), "{absent} present: {names:?}");
    }
    let lib = git(d, &["show", &format!("{}:src/lib.rs", baseline.tree)]);
    assert_eq!(
        lib, "staged, then edited again\n",
        "the work tree wins over the index"
    );
}

#[test]
fn tracked_files_that_an_ignore_rule_matches_stay_in() {
    let dir = init();
    let d = dir.path();
    write(d, "tracked.log", "tracked\n");
    write(d, "a.txt", "a\n");
    commit_all(d, "initial");
    write(d, ".gitignore", "*.log\n");
    write(d, "tracked.log", "tracked, edited\n");
    write(d, "untracked.log", "ignored\n");
    let baseline = capture(d).expect("capture");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
    let content = git(d, &["show", &format!("{}:tracked.log", baseline.tree)]);
    assert_eq!(content, "tracked, edited\n");
}

#[test]
fn untracked_files_change_the_tree_and_ignored_ones_do_not() {
    let dir = varied_repo();
    let d = dir.path();
    let first = capture(d).expect("capture");
    assert_eq!(capture(d).expect("again").tree, first.tree, "deterministic");

    write(d, "another.log", "ignored\n");
    write(d, "src/generated/more.rs", "ignored\n");
    write(d, ".zurdo/slug-1a2b/progress.log", "{\"event\":1}\n");
    write(
        d,
        ".zurdo/slug-1a2b/iterations/task-1-1.out",
        "agent output\n",
    );
    assert_eq!(
        capture(d).expect("capture").tree,
        first.tree,
        "ignored files"
    );

    // Rewriting an untracked file with the same bytes (new mtime) is no change either.
    let path = d.join("new file ✓.txt");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes).unwrap();
    assert_eq!(capture(d).expect("capture").tree, first.tree, "same bytes");

    write(d, "src/brand-new.rs", "fn new() {}\n");
    let second = capture(d).expect("capture");
    assert_ne!(second.tree, first.tree, "an untracked file");
    assert_eq!(second.files, first.files + 1);
    assert_eq!(second.tree, cli_tree(d, true, &[".zurdo"]));
}

#[test]
fn dirty_is_against_heads_tree_and_true_without_a_head() {
    let dir = init();
    let d = dir.path();

    // No HEAD, no files.
    let empty = capture(d).expect("capture");
    assert_eq!(empty.tree, EMPTY_TREE);
    assert!(empty.dirty);
    assert_eq!(empty.files, 0);

    // No HEAD, files.
    write(d, "a.txt", "a\n");
    write(d, "sub/b.txt", "b\n");
    let unborn = capture(d).expect("capture");
    assert!(unborn.dirty);
    assert_eq!(unborn.files, 2);
    assert_eq!(unborn.tree, cli_tree(d, false, &[".zurdo"]));

    // Clean, with zurdo's state and an ignored file beside it.
    commit_all(d, "initial");
    write(d, ".gitignore", "*.tmp\n");
    commit_all(d, "ignore");
    write(d, ".zurdo/config.toml", "x\n");
    write(d, "scratch.tmp", "ignored\n");
    let clean = capture(d).expect("capture");
    assert!(!clean.dirty, "{clean:?}");
    assert_eq!(clean.tree, git(d, &["rev-parse", "HEAD^{tree}"]).trim());

    write(d, "a.txt", "changed\n");
    assert!(capture(d).expect("capture").dirty);
}

#[test]
fn changed_paths_lists_added_modified_and_deleted_files() {
    let dir = varied_repo();
    let d = dir.path();
    let before = capture(d).expect("capture").tree;

    write(d, "added dir/added ✓.txt", "new\n");
    write(d, "src/lib.rs", "modified\n");
    fs::remove_file(d.join("dir with spaces/file name.txt")).unwrap();
    chmod(d, "bin/run.sh", 0o644);
    fs::remove_file(d.join("src/readme-link")).unwrap();
    symlink("lib.rs", d.join("src/readme-link")).unwrap();
    write(d, "ignored-now.log", "ignored\n");
    write(d, ".zurdo/slug-1a2b/prd.json", "{\"changed\":true}\n");
    let after = capture(d).expect("capture").tree;

    let paths = changed_paths(d, &before, &after).expect("changed_paths");
    assert_eq!(
        paths,
        [
            "added dir/added ✓.txt",
            "bin/run.sh",
            "dir with spaces/file name.txt",
            "src/lib.rs",
            "src/readme-link",
        ]
    );
    let mut cli: Vec<String> = git(d, &["diff", "--name-only", "-z", &before, &after])
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    cli.sort();
    assert_eq!(paths, cli);

    assert!(changed_paths(d, &after, &after).unwrap().is_empty());
    let reverse = changed_paths(d, &after, &before).unwrap();
    assert_eq!(reverse, paths, "the same paths either way");
}

#[test]
fn diff_patch_has_the_header_and_applies_to_the_baseline_tree() {
    let dir = varied_repo();
    let d = dir.path();
    write(d, "data.bin", [0u8, 1, 2, 3, 255, 0, 10, 13]);
    write(d, "no-newline.txt", "one\ntwo");
    let before = capture(d).expect("capture").tree;

    write(d, "added file ✓.txt", "hello\n");
    write(d, "src/lib.rs", "staged, then edited again\nplus a line\n");
    fs::remove_file(d.join("ünïcödé/日本語.md")).unwrap();
    write(d, "data.bin", [9u8, 0, 8, 7, 255, 254]);
    write(d, "no-newline.txt", "one\ntwo\nthree");
    chmod(d, "bin/run.sh", 0o644);
    fs::remove_file(d.join("src/readme-link")).unwrap();
    symlink("lib.rs", d.join("src/readme-link")).unwrap();
    let after = capture(d).expect("capture").tree;

    let patch = diff_patch(d, &before, &after, "run start").expect("diff_patch");
    let first = patch.lines().next().expect("a first line");
    assert_eq!(first, format!("# baseline {before} (run start)"));
    for expected in [
        "+plus a line",
        // Quoted as git quotes it (core.quotePath); `git apply` reads it back.
        "diff --git \"a/added file \\342\\234\\223.txt\" \"b/added file \\342\\234\\223.txt\"",
        "new file mode 100644",
        "+hello",
        "deleted file mode 100644",
        "-unicode",
        "GIT binary patch",
        "old mode 100755",
        "new mode 100644",
        "\\ No newline at end of file",
        "+lib.rs",
    ] {
        assert!(patch.contains(expected), "missing {expected:?} in\n{patch}");
    }
    assert_eq!(
        patch.as_bytes(),
        diff_patch_bytes(d, &before, &after, "run start").unwrap(),
        "the text and byte forms agree on UTF-8 content"
    );

    // Applied to the baseline tree in a scratch index, the patch reproduces the later tree.
    let scratch = tempfile::tempdir().unwrap();
    let patch_file = scratch.path().join("run-diff.patch");
    fs::write(&patch_file, &patch).unwrap();
    let index = scratch.path().join("index");
    let env = [("GIT_INDEX_FILE", index.as_path())];
    git_env(d, &env, &["read-tree", &before]);
    git_env(
        d,
        &env,
        &["apply", "--cached", "--check", patch_file.to_str().unwrap()],
    );
    git_env(
        d,
        &env,
        &["apply", "--cached", patch_file.to_str().unwrap()],
    );
    assert_eq!(git_env(d, &env, &["write-tree"]).trim(), after);

    // An empty diff is the header alone; a label cannot break the header line.
    let empty = diff_patch(d, &after, &after, "resume\nat 10:00").unwrap();
    assert_eq!(empty, format!("# baseline {after} (resume at 10:00)\n"));
}

#[test]
fn record_ref_points_at_the_tree_and_survives_gc_prune_now() {
    let dir = varied_repo();
    let d = dir.path();
    commit_all(d, "third");
    // Content that exists only in the captured tree: no commit, no index entry.
    write(d, "only-in-baseline.txt", "only here 7f3a\n");
    let baseline = capture(d).expect("capture");
    let blob = git(d, &["hash-object", "only-in-baseline.txt"])
        .trim()
        .to_owned();
    record_ref(d, "feature-1a2b", "task-1", &baseline.tree).expect("record_ref");
    assert_eq!(
        git(d, &["rev-parse", "refs/zurdo/feature-1a2b/task-1"]).trim(),
        baseline.tree
    );
    assert_eq!(
        git(d, &["cat-file", "-t", "refs/zurdo/feature-1a2b/task-1"]).trim(),
        "tree",
        "the ref names the tree itself"
    );
    assert!(
        !git_dir(d).join("logs/refs/zurdo").exists(),
        "no reflog for zurdo's refs"
    );

    // A control: a second capture's tree, with content of its own and no ref.
    fs::remove_file(d.join("only-in-baseline.txt")).unwrap();
    write(d, "unreferenced.txt", "nobody keeps me 91c2\n");
    let unreferenced = capture(d).expect("capture").tree;
    let unreferenced_blob = git(d, &["hash-object", "unreferenced.txt"])
        .trim()
        .to_owned();
    fs::remove_file(d.join("unreferenced.txt")).unwrap();

    let gc = Command::new("git")
        .args(["gc", "--prune=now", "--quiet"])
        .current_dir(d)
        .output()
        .expect("git gc runs");
    assert!(
        gc.status.success(),
        "{}",
        String::from_utf8_lossy(&gc.stderr)
    );
    assert!(
        !String::from_utf8_lossy(&gc.stderr).contains("error"),
        "{}",
        String::from_utf8_lossy(&gc.stderr)
    );

    git(d, &["cat-file", "-e", &baseline.tree]);
    git(d, &["cat-file", "-e", &blob]);
    assert_eq!(
        git(
            d,
            &[
                "show",
                "refs/zurdo/feature-1a2b/task-1:only-in-baseline.txt"
            ]
        ),
        "only here 7f3a\n"
    );
    let gone = |oid: &str| {
        !Command::new("git")
            .args(["cat-file", "-e", oid])
            .current_dir(d)
            .output()
            .unwrap()
            .status
            .success()
    };
    assert!(gone(&unreferenced), "gc did not prune the control tree");
    assert!(
        gone(&unreferenced_blob),
        "gc did not prune the control blob"
    );

    // Re-recording replaces the value; a commit is recorded as its tree.
    record_ref(d, "feature-1a2b", "task-1", "HEAD").expect("record_ref HEAD");
    assert_eq!(
        git(d, &["rev-parse", "refs/zurdo/feature-1a2b/task-1"]).trim(),
        git(d, &["rev-parse", "HEAD^{tree}"]).trim()
    );
}

#[test]
fn record_ref_refuses_bad_names_and_bad_trees() {
    let dir = varied_repo();
    let d = dir.path();
    let tree = capture(d).unwrap().tree;
    // A slug is encoded into one valid component (any PRD file name works);
    // a task id git refuses is still refused.
    for (slug, task) in [("s", "t..x"), ("s", "t/x"), ("", "task-1")] {
        assert!(
            matches!(
                record_ref(d, slug, task, &tree),
                Err(BaselineError::InvalidRefName(_))
            ),
            "{slug} {task}"
        );
    }
    let blob = git(d, &["rev-parse", "HEAD:README.md"]).trim().to_owned();
    for spec in [
        "0123456789012345678901234567890123456789",
        "no-such-ref",
        blob.as_str(),
    ] {
        let err = record_ref(d, "s", "task-1", spec).unwrap_err();
        assert!(
            matches!(err, BaselineError::BadTree { .. }),
            "{spec}: {err}"
        );
        let err = changed_paths(d, spec, &tree).unwrap_err();
        assert!(
            matches!(err, BaselineError::BadTree { .. }),
            "{spec}: {err}"
        );
    }
    assert_eq!(git(d, &["for-each-ref", "refs/zurdo"]), "");
}

#[test]
fn delete_refs_removes_only_that_slugs_refs_loose_and_packed() {
    let dir = varied_repo();
    let d = dir.path();
    let tree = capture(d).unwrap().tree;
    record_ref(d, "feat-1a2b", "task-1", &tree).unwrap();
    record_ref(d, "feat-1a2b", "task-2", &tree).unwrap();
    record_ref(d, "feat-1a2b-x", "task-1", &tree).unwrap();
    record_ref(d, "feat", "task-1", &tree).unwrap();
    git(d, &["pack-refs", "--all"]);
    record_ref(d, "feat-1a2b", "task-3", &tree).unwrap(); // loose
    git(d, &["update-ref", "refs/heads/feat-1a2b", "HEAD"]);

    assert_eq!(delete_refs(d, "feat-1a2b").expect("delete_refs"), 3);
    let left = git(d, &["for-each-ref", "--format=%(refname)"]);
    let left: Vec<&str> = left.lines().collect();
    assert_eq!(
        left,
        [
            "refs/heads/feat-1a2b",
            "refs/heads/main",
            "refs/zurdo/feat-1a2b-x/task-1",
            "refs/zurdo/feat/task-1",
        ]
    );
    assert_eq!(delete_refs(d, "feat-1a2b").unwrap(), 0, "idempotent");
    assert_eq!(delete_refs(d, "no-such-slug").unwrap(), 0);
    assert!(matches!(
        delete_refs(d, ""),
        Err(BaselineError::InvalidRefName(_))
    ));
}

#[test]
fn outside_git_everything_is_not_a_repo() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "a.txt", "a\n");
    let is_not_a_repo = |r: Result<(), BaselineError>| matches!(r, Err(BaselineError::NotARepo(_)));
    assert!(is_not_a_repo(capture(d).map(drop)));
    assert!(is_not_a_repo(
        changed_paths(d, EMPTY_TREE, EMPTY_TREE).map(drop)
    ));
    assert!(is_not_a_repo(
        diff_patch(d, EMPTY_TREE, EMPTY_TREE, "x").map(drop)
    ));
    assert!(is_not_a_repo(record_ref(d, "s", "task-1", EMPTY_TREE)));
    assert!(is_not_a_repo(delete_refs(d, "s").map(drop)));

    // An empty `.git` directory is a marker, not a repository.
    fs::create_dir(d.join(".git")).unwrap();
    let err = capture(d).unwrap_err();
    assert!(matches!(err, BaselineError::NotARepo(_)), "{err}");
    assert!(
        err.to_string().contains("not inside a git work tree"),
        "{err}"
    );

    // A bare repository has no work tree to capture.
    let bare = tempfile::tempdir().unwrap();
    git(bare.path(), &["init", "-q", "--bare"]);
    assert!(is_not_a_repo(capture(bare.path()).map(drop)));
}

#[test]
fn a_root_below_the_top_level_captures_the_whole_work_tree() {
    let dir = init();
    let top = dir.path();
    write(top, "top.txt", "top\n");
    write(top, "pkg/app/main.rs", "fn main() {}\n");
    commit_all(top, "initial");
    let root = top.join("pkg/app");
    write(top, ".zurdo/config.toml", "top-level state\n");
    write(top, "pkg/app/.zurdo/slug/prd.json", "{}\n");
    write(top, "fixtures/.zurdo/config.toml", "a fixture, not state\n");

    let before = capture(&root).expect("capture from a subdirectory");
    // From the top level, `pkg/app/.zurdo` is ordinary content.
    let from_top = capture(top).expect("capture from the top level");
    assert_eq!(from_top.tree, cli_tree(top, true, &[".zurdo"]));
    assert_eq!(from_top.files, before.files + 1);
    assert_eq!(
        before.tree,
        cli_tree(top, true, &[".zurdo", "pkg/app/.zurdo"])
    );
    let names = git(top, &["ls-tree", "-r", "--name-only", &before.tree]);
    assert!(names.contains("fixtures/.zurdo/config.toml"), "{names}");
    assert!(!names.contains("pkg/app/.zurdo"), "{names}");

    write(top, "top.txt", "edited above the root\n");
    write(top, "pkg/app/main.rs", "fn main() { edited(); }\n");
    write(top, "pkg/app/.zurdo/slug/progress.log", "{}\n");
    let after = capture(&root).unwrap();
    assert_eq!(
        changed_paths(&root, &before.tree, &after.tree).unwrap(),
        ["pkg/app/main.rs", "top.txt"],
        "paths are relative to the top level"
    );
    let patch = diff_patch(&root, &before.tree, &after.tree, "task-1").unwrap();
    assert!(
        patch.contains("diff --git a/pkg/app/main.rs b/pkg/app/main.rs"),
        "{patch}"
    );
}

#[test]
fn an_index_libgit2_cannot_read_falls_back_to_heads_tree() {
    let dir = varied_repo();
    let d = dir.path();
    git(d, &["update-index", "--split-index"]);
    let gd = git_dir(d);
    let index_before = sha256_file(&gd.join("index"));
    let baseline = capture(d).expect("capture with a split index");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
    assert_eq!(sha256_file(&gd.join("index")), index_before);
}

#[test]
fn linked_worktrees_and_merge_conflicts_capture_like_the_cli() {
    let dir = varied_repo();
    let d = dir.path();
    commit_all(d, "third");

    // A linked worktree has its own index under .git/worktrees/<name>/.
    let wt_parent = tempfile::tempdir().unwrap();
    let wt = wt_parent.path().join("wt");
    git(
        d,
        &["worktree", "add", "-q", wt.to_str().unwrap(), "-b", "side"],
    );
    write(&wt, "side.txt", "only in the worktree\n");
    let in_wt = capture(&wt).expect("capture in a linked worktree");
    assert_eq!(in_wt.tree, cli_tree(&wt, true, &[".zurdo"]));
    assert!(in_wt.dirty);
    assert!(!capture(d).unwrap().tree.is_empty());

    // A conflicted merge: the work tree's file (with markers) is what gets captured.
    write(&wt, "README.md", "side's readme\n");
    commit_all(&wt, "side");
    write(d, "README.md", "main's readme\n");
    commit_all(d, "main");
    let merge = Command::new("git")
        .args(["merge", "-q", "side"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(!merge.status.success(), "the merge conflicts");
    let index_before = sha256_file(&git_dir(d).join("index"));
    let conflicted = capture(d).expect("capture during a conflict");
    assert_eq!(conflicted.tree, cli_tree(d, true, &[".zurdo"]));
    assert_eq!(sha256_file(&git_dir(d).join("index")), index_before);
    let readme = git(d, &["show", &format!("{}:README.md", conflicted.tree)]);
    assert!(readme.contains("<<<<<<<"), "{readme}");
}

#[test]
fn an_embedded_repository_is_captured_as_a_gitlink_like_the_cli() {
    let dir = init();
    let d = dir.path();
    write(d, "a.txt", "a\n");
    commit_all(d, "initial");
    let inner = d.join("vendor/inner");
    fs::create_dir_all(&inner).unwrap();
    git(&inner, &["init", "-q", "-b", "main"]);
    git(&inner, &["config", "user.name", "Zurdo Test"]);
    git(&inner, &["config", "user.email", "test@zurdo.invalid"]);
    write(&inner, "x.txt", "x\n");
    commit_all(&inner, "inner");
    let baseline = capture(d).expect("capture");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
    let listing = git(d, &["ls-tree", "-r", &baseline.tree]);
    assert!(listing.contains("160000 commit"), "{listing}");
}

#[test]
fn an_embedded_repository_without_a_commit_is_left_out() {
    let dir = init();
    let d = dir.path();
    write(d, "a.txt", "a\n");
    commit_all(d, "initial");
    let clean = capture(d).expect("capture");
    let inner = d.join("scratch/fresh");
    fs::create_dir_all(&inner).unwrap();
    git(&inner, &["init", "-q"]);
    write(&inner, "x.txt", "x\n");
    assert_eq!(capture(d).expect("capture").tree, clean.tree);
}

#[test]
fn a_submodule_is_captured_at_its_checked_out_commit() {
    let upstream = init();
    write(upstream.path(), "lib.txt", "v1\n");
    commit_all(upstream.path(), "v1");
    let dir = init();
    let d = dir.path();
    write(d, "a.txt", "a\n");
    commit_all(d, "initial");
    git(
        d,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            upstream.path().to_str().unwrap(),
            "deps/up",
        ],
    );
    commit_all(d, "submodule");
    let before = capture(d).expect("capture");
    assert!(!before.dirty, "{before:?}");

    let sub = d.join("deps/up");
    git(&sub, &["config", "user.name", "Zurdo Test"]);
    git(&sub, &["config", "user.email", "test@zurdo.invalid"]);
    write(&sub, "lib.txt", "v2\n");
    commit_all(&sub, "v2");
    let after = capture(d).expect("capture");
    assert_eq!(after.tree, cli_tree(d, true, &[".zurdo"]));
    assert_eq!(
        changed_paths(d, &before.tree, &after.tree).unwrap(),
        ["deps/up"]
    );
    let head = git(&sub, &["rev-parse", "HEAD"]);
    let patch = diff_patch(d, &before.tree, &after.tree, "x").unwrap();
    assert!(
        patch.contains(&format!("+Subproject commit {}", head.trim())),
        "{patch}"
    );
}

#[test]
fn fifos_and_sockets_are_skipped_like_the_cli() {
    let dir = init();
    let d = dir.path();
    write(d, "a.txt", "a\n");
    commit_all(d, "initial");
    let fifo = d.join("pipe");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    let _socket = std::os::unix::net::UnixListener::bind(d.join("sock")).expect("bind");
    let baseline = capture(d).expect("capture returns (a FIFO is never opened)");
    assert!(!baseline.dirty, "{baseline:?}");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
}

/// Forces the libgit2 route (an attributes file, even an empty one, rules out the direct
/// route) and captures.
fn capture_through_libgit2(d: &Path) -> String {
    let info = git_dir(d).join("info");
    fs::create_dir_all(&info).unwrap();
    fs::write(info.join("attributes"), "").unwrap();
    let tree = capture(d).expect("capture").tree;
    fs::remove_file(info.join("attributes")).unwrap();
    tree
}

#[test]
fn the_direct_and_libgit2_routes_give_the_same_tree() {
    let dir = varied_repo();
    let d = dir.path();
    // A directory replaced by a file and a file replaced by a directory.
    fs::remove_dir_all(d.join("ünïcödé")).unwrap();
    write(d, "ünïcödé", "now a file\n");
    fs::remove_file(d.join("README.md")).unwrap();
    write(d, "README.md/inside.md", "now a directory\n");
    // A large file, which the direct route leaves to libgit2.
    let big = fs::File::create(d.join("big.bin")).unwrap();
    big.set_len(33 << 20).unwrap();
    drop(big);
    write(d, "src/big-neighbour.rs", "fn n() {}\n");

    let direct = capture(d).expect("capture").tree;
    let libgit2 = capture_through_libgit2(d);
    assert_eq!(direct, libgit2);
    assert_eq!(direct, cli_tree(d, true, &[".zurdo"]));
    let names = git(d, &["ls-tree", "-r", "-z", "--name-only", &direct]);
    for present in ["ünïcödé", "README.md/inside.md", "big.bin"] {
        assert!(
            names.split('\0').any(|l| l == present),
            "{present}: {names}"
        );
    }
}

#[test]
fn gitattributes_and_autocrlf_are_applied_like_the_cli() {
    // A committed .gitattributes normalizing line endings.
    let dir = init();
    let d = dir.path();
    write(d, ".gitattributes", "*.txt text eol=lf\n*.bin binary\n");
    write(d, "a.txt", "one\r\ntwo\r\n");
    commit_all(d, "initial");
    write(d, "b.txt", "three\r\nfour\r\n");
    write(d, "c.bin", "five\r\n");
    write(d, "a.txt", "one\r\ntwo\r\nmore\r\n");
    let baseline = capture(d).expect("capture");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
    let b = git(d, &["show", &format!("{}:b.txt", baseline.tree)]);
    assert_eq!(b, "three\nfour\n", "normalized to LF in the blob");

    // An untracked .gitattributes, found only in the work-tree listing.
    let dir = init();
    let d = dir.path();
    write(d, "x.txt", "x\n");
    commit_all(d, "initial");
    write(d, "sub/.gitattributes", "*.txt text\n");
    write(d, "sub/y.txt", "y\r\n");
    let baseline = capture(d).expect("capture");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));

    // core.autocrlf=input, no attributes.
    let dir = init();
    let d = dir.path();
    git(d, &["config", "core.autocrlf", "input"]);
    write(d, "x.txt", "x\r\n");
    let baseline = capture(d).expect("capture");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
    assert_eq!(
        git(d, &["show", &format!("{}:x.txt", baseline.tree)]),
        "x\n"
    );
}

#[test]
fn core_filemode_false_keeps_the_recorded_modes_like_the_cli() {
    let dir = init();
    let d = dir.path();
    write(d, "script.sh", "#!/bin/sh\n");
    write(d, "tool.sh", "#!/bin/sh\n");
    chmod(d, "tool.sh", 0o755);
    commit_all(d, "initial");
    git(d, &["config", "core.filemode", "false"]);
    chmod(d, "script.sh", 0o755);
    chmod(d, "tool.sh", 0o644);
    write(d, "script.sh", "#!/bin/sh\necho changed\n");
    write(d, "new.sh", "#!/bin/sh\n");
    chmod(d, "new.sh", 0o755);
    let baseline = capture(d).expect("capture");
    assert_eq!(baseline.tree, cli_tree(d, true, &[".zurdo"]));
    let listing = git(d, &["ls-tree", &baseline.tree]);
    assert!(listing.contains("100644 blob"), "{listing}");
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("100755") && l.ends_with("tool.sh")),
        "{listing}"
    );
}
