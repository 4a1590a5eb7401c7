//! The clean room: a fresh checkout of exactly the verified tree, outside
//! the agent's working directory, where the criteria run again. A criterion
//! green in place but red in the room is a `clean_room_mismatch`: the pass
//! depended on something that is not in the tree (a build cache, a file the
//! agent left untracked and ignored, a process still running).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use git2::{ObjectType, Oid, Repository, TreeWalkMode, TreeWalkResult};

/// Writes every file of `tree` (an object id in the repository at `root`)
/// under `dest`, with executable bits and symlinks; submodules are skipped.
/// Returns the number of files written.
pub fn materialize(root: &Path, tree: &str, dest: &Path) -> Result<usize, String> {
    let repo =
        Repository::discover(root).map_err(|e| format!("cannot open the repository: {e}"))?;
    let oid = Oid::from_str(tree).map_err(|e| format!("bad tree id {tree}: {e}"))?;
    let tree = repo
        .find_tree(oid)
        .map_err(|e| format!("tree {oid} not found: {e}"))?;
    let mut written = 0usize;
    let mut failure: Option<String> = None;
    tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() != Some(ObjectType::Blob) {
            return TreeWalkResult::Ok;
        }
        let name = String::from_utf8_lossy(entry.name_bytes()).into_owned();
        let path = dest.join(dir).join(&name);
        let result = (|| -> Result<(), String> {
            let blob = repo.find_blob(entry.id()).map_err(|e| e.to_string())?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            match entry.filemode() {
                0o120000 => {
                    let target = String::from_utf8_lossy(blob.content()).into_owned();
                    std::os::unix::fs::symlink(target, &path).map_err(|e| e.to_string())?;
                }
                mode => {
                    std::fs::write(&path, blob.content()).map_err(|e| e.to_string())?;
                    if mode == 0o100755 {
                        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
            Ok(())
        })();
        match result {
            Ok(()) => {
                written += 1;
                TreeWalkResult::Ok
            }
            Err(e) => {
                failure = Some(format!("{}: {e}", path.display()));
                TreeWalkResult::Abort
            }
        }
    })
    .map_err(|e| failure.clone().unwrap_or_else(|| e.to_string()))?;
    match failure {
        Some(f) => Err(f),
        None => Ok(written),
    }
}

/// The `bwrap` command line the room's `[shell:]` hints run under: the
/// whole system read-only, the room writable, a private `/tmp`, `/dev` and
/// `/proc`, and the agent's working tree hidden behind an empty tmpfs, so a
/// criterion cannot lean on anything that is only in the working tree.
pub fn bubblewrap(working_tree: &Path, room: &Path) -> Vec<String> {
    let room = room.display().to_string();
    let mut args: Vec<String> = [
        "bwrap",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(["--tmpfs".to_string(), working_tree.display().to_string()]);
    args.extend(["--bind".to_string(), room.clone(), room.clone()]);
    args.extend(
        [
            "--unshare-pid",
            "--unshare-ipc",
            "--die-with-parent",
            "--chdir",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.push(room);
    args
}

/// True when `bwrap` is on `PATH`.
pub fn bubblewrap_installed() -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("bwrap").is_file()))
}
