//! SHA-256 of files the guards watch, without holding them in memory: a
//! streaming read of a regular file (a FIFO, a device or a socket planted
//! where a tool or a config was is refused, never read), opened without
//! blocking.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};
use zurdo_base::files::ReadError;

/// Lowercase hex of `bytes`' SHA-256.
pub fn hex(bytes: &[u8]) -> String {
    to_hex(&Sha256::digest(bytes))
}

fn to_hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The most bytes [`file`] reads of a tool: past it, the rest of a file is
/// stood for by its size (no real tool is that large; a planted one cannot
/// make every verification read gigabytes).
pub const TOOL_CAP: u64 = 1024 * 1024 * 1024;

/// SHA-256 of the regular file at `path` (symlinks followed), read in
/// chunks (a file of any size costs a fixed buffer), at most [`TOOL_CAP`]
/// bytes of it.
pub fn file(path: &Path) -> Result<String, ReadError> {
    file_capped(path, TOOL_CAP)
}

/// SHA-256 of the first `cap` bytes of the regular file at `path`, and of
/// its size when it is larger.
pub fn file_capped(path: &Path, cap: u64) -> Result<String, ReadError> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            kind: zurdo_base::files::kind_of(&meta),
        });
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut left = cap;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        match file.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
                left -= n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
    }
    if meta.len() > cap {
        hasher.update(format!("\0and {} bytes in all", meta.len()).as_bytes());
    }
    Ok(to_hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_regular_files_and_refuses_the_rest() {
        let dir = tempfile::tempdir().expect("temp");
        let f = dir.path().join("f");
        std::fs::write(&f, vec![7u8; 200_000]).expect("write");
        assert_eq!(file(&f).expect("hash"), hex(&vec![7u8; 200_000]));
        assert!(matches!(
            file(dir.path()),
            Err(ReadError::NotRegular {
                kind: "a directory"
            })
        ));
        let fifo = dir.path().join("fifo");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            assert!(matches!(
                file(&fifo),
                Err(ReadError::NotRegular { kind: "a FIFO" })
            ));
        }
        let capped = file_capped(&f, 100).expect("hash");
        assert_ne!(capped, hex(&[7u8; 100]), "the size stands for the rest");
        std::fs::write(&f, [vec![7u8; 100], vec![8u8; 199_900]].concat()).expect("write");
        assert_eq!(
            file_capped(&f, 100).expect("hash"),
            capped,
            "past the cap, only the size counts"
        );
        assert!(file(&dir.path().join("missing"))
            .unwrap_err()
            .is_not_found());
    }
}
