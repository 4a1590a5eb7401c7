//! The bundled skills: zurdo-specific know-how for the agent CLIs (how to
//! write a PRD evidence-first, how to debug a failing hint, how to read a
//! run's state), compiled into the binary and installed into each
//! provider's skill discovery path (`.claude/skills/<name>/` for
//! Anthropic, `.agents/skills/<name>/` for OpenAI and GitHub,
//! `.gemini/skills/<name>/` for Google), each a `SKILL.md` with `name` and
//! `description` front matter plus reference files.
//!
//! An installed skill holds a `.zurdo-managed` sentinel with the SHA-256 of
//! the content zurdo wrote. Installing again is idempotent: an up-to-date
//! install is left alone, an outdated one (an older zurdo's) is replaced,
//! and one whose files no longer hash to its sentinel (the user edited it)
//! is never overwritten unless forced. A directory without a sentinel is
//! the user's own and is never touched.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::agent::Provider;

/// The sentinel file in every skill zurdo installed.
pub const SENTINEL: &str = ".zurdo-managed";

/// One bundled skill: its name and its files (relative path, content).
#[derive(Debug, Clone, Copy)]
pub struct Skill {
    /// The skill's name (its directory's name and its front matter's).
    pub name: &'static str,
    /// Its files, `SKILL.md` first.
    pub files: &'static [(&'static str, &'static str)],
}

/// Every bundled skill.
pub const BUNDLED: [Skill; 3] = [
    Skill {
        name: "zurdo-prd-author",
        files: &[
            (
                "SKILL.md",
                include_str!("../skills/zurdo-prd-author/SKILL.md"),
            ),
            (
                "references/grammar.md",
                include_str!("../skills/zurdo-prd-author/references/grammar.md"),
            ),
            (
                "references/hints.md",
                include_str!("../skills/zurdo-prd-author/references/hints.md"),
            ),
        ],
    },
    Skill {
        name: "zurdo-hint-debugger",
        files: &[(
            "SKILL.md",
            include_str!("../skills/zurdo-hint-debugger/SKILL.md"),
        )],
    },
    Skill {
        name: "zurdo-state-summary",
        files: &[(
            "SKILL.md",
            include_str!("../skills/zurdo-state-summary/SKILL.md"),
        )],
    },
];

impl Skill {
    /// The bundled skill named `name`.
    pub fn named(name: &str) -> Option<Skill> {
        BUNDLED.iter().copied().find(|s| s.name == name)
    }

    /// SHA-256 of the skill's files (each path and content), hex.
    pub fn hash(&self) -> String {
        hash_files(
            self.files
                .iter()
                .map(|(p, c)| (p.to_string(), c.as_bytes().to_vec())),
        )
    }
}

fn hash_files(files: impl Iterator<Item = (String, Vec<u8>)>) -> String {
    let mut files: Vec<(String, Vec<u8>)> = files.collect();
    files.sort();
    let mut hasher = Sha256::new();
    for (path, content) in files {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update((content.len() as u64).to_le_bytes());
        hasher.update(&content);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where `provider`'s CLI discovers skills, relative to a repository (or a
/// home directory).
pub fn discovery_dir(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => ".claude/skills",
        Provider::OpenAi | Provider::GitHub => ".agents/skills",
        Provider::Google => ".gemini/skills",
    }
}

/// The state of one install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallState {
    /// Nothing there.
    Absent,
    /// zurdo's current content.
    UpToDate,
    /// An older zurdo's content, untouched since.
    Outdated,
    /// zurdo installed it and someone edited it since.
    Edited,
    /// A directory of that name zurdo did not install (no sentinel).
    Foreign,
}

impl InstallState {
    /// The word `zurdo skills list` prints.
    pub fn name(self) -> &'static str {
        match self {
            InstallState::Absent => "not installed",
            InstallState::UpToDate => "up to date",
            InstallState::Outdated => "outdated",
            InstallState::Edited => "edited",
            InstallState::Foreign => "not zurdo's",
        }
    }
}

/// What is at `dir` (a skill's install directory) against `skill`.
pub fn state_of(skill: &Skill, dir: &Path) -> InstallState {
    if !dir.is_dir() {
        return InstallState::Absent;
    }
    let Ok(sentinel) = std::fs::read_to_string(dir.join(SENTINEL)) else {
        return InstallState::Foreign;
    };
    let recorded = sentinel.trim();
    let on_disk = hash_files(files_under(dir).into_iter());
    if on_disk != recorded {
        InstallState::Edited
    } else if recorded == skill.hash() {
        InstallState::UpToDate
    } else {
        InstallState::Outdated
    }
}

/// Every regular file under `dir` but the sentinel, with its bytes
/// (bounded: a skill is a few small files).
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(relative) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(dir.join(&relative)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = relative.join(entry.file_name());
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(t) if t.is_file() => {
                    let shown = path.to_string_lossy().replace('\\', "/");
                    if shown == SENTINEL {
                        continue;
                    }
                    if let Ok(bytes) =
                        zurdo_base::files::read_bounded_nofollow(&dir.join(&path), 1 << 20)
                    {
                        out.push((shown, bytes));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// What an install did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// Written where nothing was.
    New,
    /// An outdated install replaced (or an edited one, forced).
    Replaced,
    /// Already up to date: nothing written.
    Kept,
    /// Edited by someone (or not zurdo's): left alone.
    Refused(InstallState),
}

/// Installs `skill` into `base` (a discovery directory), as the module
/// docs say; `force` replaces an edited install (never a foreign one).
pub fn install(skill: &Skill, base: &Path, force: bool) -> std::io::Result<Installed> {
    let dir = base.join(skill.name);
    let before = state_of(skill, &dir);
    match before {
        InstallState::UpToDate => return Ok(Installed::Kept),
        InstallState::Foreign => return Ok(Installed::Refused(before)),
        InstallState::Edited if !force => return Ok(Installed::Refused(before)),
        _ => {}
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    for (path, content) in skill.files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        zurdo_base::files::write_atomic(&target, content.as_bytes())?;
    }
    zurdo_base::files::write_atomic(
        &dir.join(SENTINEL),
        format!("{}\n", skill.hash()).as_bytes(),
    )?;
    Ok(if before == InstallState::Absent {
        Installed::New
    } else {
        Installed::Replaced
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_skill_has_front_matter_naming_it_and_a_description() {
        for skill in BUNDLED {
            let (first, text) = skill.files[0];
            assert_eq!(first, "SKILL.md");
            let front = text
                .strip_prefix("---\n")
                .and_then(|t| t.split_once("\n---\n"))
                .map(|(f, _)| f)
                .unwrap_or_else(|| panic!("{}: no front matter", skill.name));
            assert!(
                front.lines().any(|l| l == format!("name: {}", skill.name)),
                "{front}"
            );
            let description = front
                .lines()
                .find_map(|l| l.strip_prefix("description: "))
                .unwrap_or_default();
            assert!(description.len() > 80, "{}: {description}", skill.name);
            assert!(Skill::named(skill.name).is_some());
        }
    }

    #[test]
    fn every_prd_example_in_a_skill_is_valid() {
        let mut checked = 0;
        for skill in BUNDLED {
            for (path, text) in skill.files {
                for block in text.split("```markdown\n").skip(1) {
                    let Some((body, _)) = block.split_once("```") else {
                        continue;
                    };
                    if !body.starts_with("# PRD:") {
                        continue;
                    }
                    checked += 1;
                    if let Err(errors) = zurdo::parse(body) {
                        panic!("{}/{path}: {errors:?}\n{body}", skill.name);
                    }
                }
            }
        }
        assert!(checked >= 2, "{checked} examples");
    }

    #[test]
    fn installs_are_idempotent_and_an_edited_one_is_never_overwritten() {
        let base = tempfile::tempdir().expect("temp");
        let skill = BUNDLED[0];
        let dir = base.path().join(skill.name);
        assert_eq!(state_of(&skill, &dir), InstallState::Absent);
        assert_eq!(
            install(&skill, base.path(), false).expect("install"),
            Installed::New
        );
        assert_eq!(state_of(&skill, &dir), InstallState::UpToDate);
        assert!(dir.join("references/grammar.md").is_file());
        assert_eq!(
            install(&skill, base.path(), false).expect("again"),
            Installed::Kept
        );
        // The user edits it: left alone unless forced.
        std::fs::write(dir.join("SKILL.md"), "mine\n").expect("edit");
        assert_eq!(state_of(&skill, &dir), InstallState::Edited);
        assert_eq!(
            install(&skill, base.path(), false).expect("refused"),
            Installed::Refused(InstallState::Edited)
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("SKILL.md")).expect("kept"),
            "mine\n"
        );
        assert_eq!(
            install(&skill, base.path(), true).expect("forced"),
            Installed::Replaced
        );
        assert_eq!(state_of(&skill, &dir), InstallState::UpToDate);
        // An older zurdo's install, untouched: outdated, replaced.
        std::fs::write(dir.join("SKILL.md"), "old\n").expect("old");
        let old = hash_files(files_under(&dir).into_iter());
        std::fs::write(dir.join(SENTINEL), format!("{old}\n")).expect("sentinel");
        assert_eq!(state_of(&skill, &dir), InstallState::Outdated);
        assert_eq!(
            install(&skill, base.path(), false).expect("update"),
            Installed::Replaced
        );
        // A directory zurdo did not make is never touched.
        let other = base.path().join(BUNDLED[1].name);
        std::fs::create_dir_all(&other).expect("mkdir");
        std::fs::write(other.join("SKILL.md"), "theirs\n").expect("theirs");
        assert_eq!(
            install(&BUNDLED[1], base.path(), true).expect("foreign"),
            Installed::Refused(InstallState::Foreign)
        );
    }
}
