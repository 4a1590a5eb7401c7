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

/// SHA-256 of the regular file at `path` (symlinks followed), read in
/// chunks: a file of any size costs a fixed buffer.
pub fn file(path: &Path) -> Result<String, ReadError> {
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
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ReadError::Io(e)),
        }
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
        assert!(file(&dir.path().join("missing"))
            .unwrap_err()
            .is_not_found());
    }
}
