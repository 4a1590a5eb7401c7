//! The agent's sandbox (`[verification] agent_sandbox = "bubblewrap"`): the agent
//! CLI runs under `bwrap` with the machine as it is (its home, its config,
//! its tools, the network: it needs its API) except what decides its
//! verdict and is zurdo's:
//!
//! - the sealed criteria's file and zurdo's MAC key are unreadable
//!   (`/dev/null` is bound over each, without its device: reading fails);
//! - `.zurdo/` and `.git/` are read-only (zurdo's state and the baselines
//!   and rollback refs it keeps in git);
//! - the agent sees only its own processes (`--unshare-pid` with a fresh
//!   `/proc`), so it cannot read zurdo's memory, environment or open files
//!   through `/proc/<zurdo>/`;
//! - it dies with zurdo (`--die-with-parent`), besides the sentinel.
//!
//! Everything else is as outside: the agent writes the working tree, its
//! CLI's own state under `$HOME`, temporary files.

use std::path::{Path, PathBuf};

/// The sandbox's program.
pub const BWRAP: &str = "bwrap";

/// What the agent must not read or must not write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sandbox {
    /// Files bound over with `/dev/null` (they exist; absent ones are left
    /// out, bwrap needs a target).
    pub hidden: Vec<PathBuf>,
    /// Directories (or files) bound read-only.
    pub read_only: Vec<PathBuf>,
}

impl Sandbox {
    /// The sandbox of a run in `root`: `.zurdo/` and `.git/` read-only,
    /// `sealed` (the sealed file, when there is one) and zurdo's key
    /// hidden.
    pub fn for_run(root: &Path, sealed: Option<&Path>) -> Sandbox {
        let hidden = sealed
            .map(Path::to_path_buf)
            .into_iter()
            .chain(zurdo_base::mac::key_path())
            .filter(|p| p.is_file())
            .collect();
        let read_only = [".zurdo", ".git"]
            .iter()
            .map(|d| root.join(d))
            .filter(|p| p.exists())
            .collect();
        Sandbox { hidden, read_only }
    }

    /// `bwrap`'s arguments up to (and with) the `--` before the command.
    pub fn bwrap_args(&self) -> Vec<String> {
        let mut args: Vec<String> = ["--dev-bind", "/", "/"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for dir in &self.read_only {
            let d = dir.display().to_string();
            args.extend(["--ro-bind".to_string(), d.clone(), d]);
        }
        for file in &self.hidden {
            args.extend([
                "--ro-bind".to_string(),
                "/dev/null".to_string(),
                file.display().to_string(),
            ]);
        }
        args.extend(
            [
                "--unshare-pid",
                "--proc",
                "/proc",
                "--die-with-parent",
                "--",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        args
    }

    /// The command line that runs `program args…` inside the sandbox.
    pub fn wrap(&self, program: &str, args: &[String]) -> (String, Vec<String>) {
        let mut all = self.bwrap_args();
        all.push(program.to_string());
        all.extend(args.iter().cloned());
        (BWRAP.to_string(), all)
    }
}

/// Whether the sandbox can run here: `bwrap` on PATH and able to make its
/// namespaces (a kernel or container without unprivileged user namespaces
/// refuses). Checked once at run start, so a run asked to sandbox its
/// agent never starts one unsandboxed; the error says what to do.
pub fn usable() -> Result<(), String> {
    let off = "or set [verification] agent_sandbox = \"off\" (the agent then runs as you, and can read what you can)";
    if !crate::evidence::room::bubblewrap_installed() {
        return Err(format!(
            "[verification] agent_sandbox = \"bubblewrap\" but `bwrap` is not on PATH; install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), {off}"
        ));
    }
    let probe = Sandbox::default();
    let (program, args) = probe.wrap("true", &[]);
    match std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "[verification] agent_sandbox = \"bubblewrap\" but bwrap cannot make its sandbox here ({}): unprivileged user namespaces may be off (sysctl kernel.unprivileged_userns_clone=1, or a container that allows them), {off}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!(
            "[verification] agent_sandbox = \"bubblewrap\" but bwrap cannot be started: {e}; {off}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sh -c script` in `dir` inside `sandbox`.
    fn sh(sandbox: &Sandbox, dir: &Path, script: &str) -> std::process::Output {
        let (program, args) = sandbox.wrap("sh", &["-c".to_string(), script.to_string()]);
        std::process::Command::new(program)
            .args(args)
            .current_dir(dir)
            .output()
            .expect("runs")
    }

    #[test]
    fn the_arguments_keep_the_machine_and_protect_zurdo_s_files() {
        let sandbox = Sandbox {
            hidden: vec!["/home/u/sealed.md".into()],
            read_only: vec!["/r/.zurdo".into(), "/r/.git".into()],
        };
        let args = sandbox.bwrap_args();
        let joined = args.join(" ");
        assert!(joined.starts_with("--dev-bind / / "), "{joined}");
        assert!(joined.contains("--ro-bind /r/.zurdo /r/.zurdo --ro-bind /r/.git /r/.git"));
        assert!(joined.contains("--ro-bind /dev/null /home/u/sealed.md"));
        assert!(joined.ends_with("--unshare-pid --proc /proc --die-with-parent --"));
        assert!(!joined.contains("--unshare-net"), "the agent needs its API");
        let (program, args) = sandbox.wrap("sh", &["-c".to_string(), "true".to_string()]);
        assert_eq!(program, "bwrap");
        assert_eq!(&args[args.len() - 4..], ["--", "sh", "-c", "true"]);
    }

    #[test]
    fn inside_bwrap_the_tree_is_writable_and_zurdo_s_files_are_not() {
        if !crate::evidence::room::bubblewrap_installed() {
            eprintln!("note: bwrap is not installed; the sandbox test did not run");
            return;
        }
        let root = tempfile::tempdir().expect("root");
        let outside = tempfile::tempdir().expect("outside");
        for d in [".zurdo", ".git"] {
            std::fs::create_dir(root.path().join(d)).expect("mkdir");
        }
        std::fs::write(root.path().join(".zurdo/prd.json"), "{}").expect("state");
        let sealed = outside.path().join("sealed.md");
        std::fs::write(&sealed, "SECRET CHECK").expect("sealed");
        let sandbox = Sandbox::for_run(root.path(), Some(&sealed));
        // Probe: bwrap itself may be refused here (no user namespaces).
        if let Err(e) = usable() {
            eprintln!("note: {e}; the sandbox test did not run");
            return;
        }
        let out = sh(
            &sandbox,
            root.path(),
            &format!(
                "echo work > src.txt && cat src.txt; \
                 cat '{}'; echo \"sealed:$?\"; \
                 echo x > .zurdo/prd.json; echo \"state:$?\"; \
                 touch .git/HEAD; echo \"git:$?\"; \
                 ls /proc | grep -c '^[0-9]'",
                sealed.display()
            ),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("work\n"), "{stdout}");
        assert!(
            !stdout.contains("SECRET"),
            "the sealed file is readable: {stdout}"
        );
        assert!(!stdout.contains("sealed:0"), "{stdout}");
        assert!(!stdout.contains("state:0"), "{stdout}");
        assert!(!stdout.contains("git:0"), "{stdout}");
        let processes: usize = stdout
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(usize::MAX);
        assert!(processes < 10, "the agent sees other processes: {stdout}");
        assert_eq!(
            std::fs::read_to_string(root.path().join("src.txt")).expect("written"),
            "work\n"
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join(".zurdo/prd.json")).expect("state"),
            "{}"
        );
        assert_eq!(
            std::fs::read_to_string(&sealed).expect("kept"),
            "SECRET CHECK"
        );
    }
}
