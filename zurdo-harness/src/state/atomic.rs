//! Atomic file replacement: write a temp file beside the target, fsync it,
//! rename it over the target, fsync the directory. A crash at any point
//! leaves either the old file or the new one, never a torn one.

use std::io::Write;
use std::path::Path;

/// Replaces `path` with `bytes` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    std::fs::rename(&temp, path)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("prd.json");
        super::write(&path, b"one").expect("write");
        super::write(&path, b"two").expect("write");
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 1);
    }
}
