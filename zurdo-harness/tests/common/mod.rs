//! Helpers shared by the CLI tests: run the built binary in a scratch repository.

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs the `zurdo` binary with `args` in `dir`.
pub fn zurdo(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zurdo"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the zurdo binary runs")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A temp dir marked as a repository root (`.git/`) holding `files`.
pub fn repo<B: AsRef<[u8]>>(files: &[(&str, B)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join(".git")).expect("mark repo root");
    for (name, bytes) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
    dir
}
