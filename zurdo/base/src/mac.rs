//! Records that prove who wrote them: an HMAC-SHA256 keyed by a secret that
//! lives outside every repository, in the user's state directory
//! (`$XDG_STATE_HOME/zurdo/key`, else `~/.local/state/zurdo/key`; 32 random
//! bytes, mode 0600, in a directory of mode 0700). A record zurdo writes
//! under `.zurdo/` (which anything working in the repository can write)
//! carries the MAC of its bytes; a record whose MAC does not check was not
//! written by zurdo as it stands, and is distrusted.
//!
//! What this does not stop: a process of the same user that reads the key
//! file can forge a MAC (the bubblewrap room hides the file from criteria;
//! an agent's own sandbox can hide it from the agent). Where no key can be
//! kept (no home directory, a key file with the wrong owner or mode), a key
//! for this process only is made up: records it writes check within the
//! process, and none from another process does ([`Key::is_ephemeral`]).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// The key's length in bytes.
pub const KEY_LEN: usize = 32;

/// The secret records are keyed by.
#[derive(Clone)]
pub struct Key {
    bytes: [u8; KEY_LEN],
    ephemeral: Option<String>,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("ephemeral", &self.ephemeral)
            .finish_non_exhaustive()
    }
}

impl Key {
    /// The user's key, read (or created) once per process.
    pub fn user() -> &'static Key {
        static KEY: OnceLock<Key> = OnceLock::new();
        KEY.get_or_init(|| match key_path() {
            Some(path) => Key::at(&path),
            None => Key::made_up("no home directory to keep a key in".into()),
        })
    }

    /// The key kept at `path`, created when there is none; a key for this
    /// process only when it cannot be read or created as it must be.
    pub fn at(path: &Path) -> Key {
        match read_or_create(path) {
            Ok(bytes) => Key {
                bytes,
                ephemeral: None,
            },
            Err(why) => Key::made_up(format!("{}: {why}", path.display())),
        }
    }

    /// A key from `bytes` (tests).
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Key {
        Key {
            bytes,
            ephemeral: None,
        }
    }

    fn made_up(why: String) -> Key {
        let mut bytes = [0u8; KEY_LEN];
        if random(&mut bytes).is_err() {
            // No randomness at all: a key nobody else can guess is still
            // better than none; the time and pid make it this process's.
            let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
            bytes.copy_from_slice(&Sha256::digest(seed.as_bytes()));
        }
        Key {
            bytes,
            ephemeral: Some(why),
        }
    }

    /// Why the key is this process's own (records from other processes
    /// never check), or `None` for the user's kept key.
    pub fn is_ephemeral(&self) -> Option<&str> {
        self.ephemeral.as_deref()
    }

    /// HMAC-SHA256 of `data`, hex.
    pub fn mac(&self, data: &[u8]) -> String {
        hex(&hmac_sha256(&self.bytes, data))
    }

    /// True when `mac` is the MAC of `data` (compared in constant time).
    pub fn checks(&self, data: &[u8], mac: &str) -> bool {
        let want = self.mac(data);
        want.len() == mac.len()
            && want
                .bytes()
                .zip(mac.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// `$XDG_STATE_HOME/zurdo/key`, else `$HOME/.local/state/zurdo/key`.
pub fn key_path() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_STATE_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/state"))
        })?;
    Some(base.join("zurdo").join("key"))
}

/// HMAC-SHA256 (RFC 2104) of `data` under `key`.
pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| {
        let mut p = [0u8; BLOCK];
        for (out, k) in p.iter_mut().zip(block.iter()) {
            *out = k ^ byte;
        }
        p
    };
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(data)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn random(buf: &mut [u8]) -> std::io::Result<()> {
    std::fs::File::open("/dev/urandom")?.read_exact(buf)
}

/// The key at `path`: read when it is a regular file of this user, of mode
/// 0600 and [`KEY_LEN`] bytes; created (with its directory, mode 0700) when
/// there is none.
fn read_or_create(path: &Path) -> Result<[u8; KEY_LEN], String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
    let dir = path.parent().ok_or("no directory")?;
    if !dir.exists() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the directory: {e}"))?;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    let nofollow = |o: &mut std::fs::OpenOptions| {
        o.custom_flags(libc::O_NOFOLLOW);
    };
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    nofollow(&mut open);
    match open.open(path) {
        Ok(mut file) => {
            let meta = file.metadata().map_err(|e| e.to_string())?;
            // SAFETY: geteuid has no preconditions.
            let me = unsafe { libc::geteuid() };
            if !meta.is_file() {
                return Err("not a regular file".into());
            }
            if meta.uid() != me {
                return Err("owned by another user".into());
            }
            if meta.mode() & 0o077 != 0 {
                return Err(format!(
                    "mode {:o}: others may read it; chmod 600 it",
                    meta.mode() & 0o777
                ));
            }
            let mut bytes = [0u8; KEY_LEN];
            file.read_exact(&mut bytes)
                .map_err(|e| format!("not a key: {e}"))?;
            if meta.len() != KEY_LEN as u64 {
                return Err(format!("{} bytes, not {KEY_LEN}", meta.len()));
            }
            Ok(bytes)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut bytes = [0u8; KEY_LEN];
            random(&mut bytes).map_err(|e| format!("no randomness: {e}"))?;
            let mut create = std::fs::OpenOptions::new();
            create.write(true).create_new(true).mode(0o600);
            nofollow(&mut create);
            match create.open(path) {
                Ok(mut file) => {
                    file.write_all(&bytes)
                        .and_then(|_| file.sync_all())
                        .map_err(|e| format!("cannot write: {e}"))?;
                    Ok(bytes)
                }
                // Another process created it first: use theirs.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read_or_create(path),
                Err(e) => Err(format!("cannot create: {e}")),
            }
        }
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test cases 1, 2 and 6 (a key longer than the block).
        let cases = [
            (
                vec![0x0b; 20],
                b"Hi There".to_vec(),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
            ),
            (
                b"Jefe".to_vec(),
                b"what do ya want for nothing?".to_vec(),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                vec![0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (key, data, want) in cases {
            assert_eq!(hex(&hmac_sha256(&key, &data)), want);
        }
    }

    #[test]
    fn a_key_is_created_private_kept_and_checked() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("zurdo/key");
        let key = Key::at(&path);
        assert!(key.is_ephemeral().is_none(), "{key:?}");
        let mode = std::fs::metadata(&path).expect("made").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = Key::at(&path);
        let mac = key.mac(b"record");
        assert!(again.checks(b"record", &mac), "the same key, read back");
        assert!(!again.checks(b"record!", &mac));
        assert!(!again.checks(b"record", &mac[1..]));
        // A key others can read is not used.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let loose = Key::at(&path);
        assert!(
            loose
                .is_ephemeral()
                .is_some_and(|w| w.contains("chmod 600")),
            "{loose:?}"
        );
        assert!(!loose.checks(b"record", &mac));
        // A symlink in its place is not followed.
        std::fs::remove_file(&path).expect("rm");
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &path).expect("symlink");
        assert!(Key::at(&path).is_ephemeral().is_some());
        assert!(!dir.path().join("elsewhere").exists());
    }
}
