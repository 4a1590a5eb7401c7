//! The traps the real CLIs set, with their messages and exit codes: flags
//! that need each other, root, trust, a missing prompt, unknown options.

use super::*;

#[test]
fn claude_stream_json_needs_verbose() {
    let work = repo();
    let r = stand_in(
        "claude",
        &words(&["-p", "hi", "--output-format", "stream-json"]),
        work.path(),
        SANDBOX,
    );
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "Error: When using --print, --output-format=stream-json requires --verbose\n"
    );
    assert!(r.stdout.is_empty());
}

#[test]
fn claude_refuses_to_skip_permissions_as_root() {
    let work = repo();
    let root = [("ZURDO_STAND_IN_EUID", "0")];
    let args = unattended("claude", "hi", "sonnet", work.path());
    let r = stand_in("claude", &args, work.path(), &root);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n");
    assert!(r.stdout.is_empty());
    let bypass = words(&[
        "-p",
        "hi",
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
    ]);
    assert_eq!(stand_in("claude", &bypass, work.path(), &root).code, 1);
    assert_eq!(
        stand_in(
            "claude",
            &args,
            work.path(),
            &[("ZURDO_STAND_IN_EUID", "0"), ("IS_SANDBOX", "1")]
        )
        .code,
        0
    );
    assert_eq!(
        stand_in(
            "claude",
            &args,
            work.path(),
            &[("ZURDO_STAND_IN_EUID", "1000")]
        )
        .code,
        0
    );
    // Without the override the real euid decides.
    let real = stand_in("claude", &args, work.path(), &[]);
    // SAFETY: geteuid has no preconditions.
    let root_here = unsafe { libc::geteuid() } == 0;
    assert_eq!(real.code, if root_here { 1 } else { 0 }, "{}", real.stderr);
}

#[test]
fn claude_variadic_options_swallow_the_prompt() {
    let work = repo();
    let args = words(&[
        "-p",
        "--add-dir",
        "/tmp",
        "do it",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let r = stand_in("claude", &args, work.path(), SANDBOX);
    assert_eq!(r.code, 1);
    assert_eq!(r.stderr, "Error: Input must be provided either through stdin or as a prompt argument when using --print\n");
}

#[test]
fn codex_refuses_to_run_outside_a_git_repo() {
    let plain = tempfile::tempdir().unwrap();
    let args = words(&["exec", "--json", "-C", plain.path().to_str().unwrap(), "hi"]);
    let r = stand_in("codex", &args, plain.path(), &[]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.ends_with(
            "Not inside a trusted directory and --skip-git-repo-check was not specified.\n"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    // The -C dir is what counts, not the process's cwd.
    let work = repo();
    std::fs::create_dir(work.path().join("sub")).unwrap();
    let inside = words(&[
        "exec",
        "--json",
        "-C",
        work.path().join("sub").to_str().unwrap(),
        "--dangerously-bypass-approvals-and-sandbox",
        "hi",
    ]);
    assert_eq!(stand_in("codex", &inside, plain.path(), &[]).code, 0);
    let skipped = words(&[
        "exec",
        "--json",
        "--skip-git-repo-check",
        "-C",
        plain.path().to_str().unwrap(),
        "hi",
    ]);
    assert_eq!(stand_in("codex", &skipped, plain.path(), &[]).code, 0);
}

#[test]
fn codex_without_a_prompt_reads_nothing_and_fails() {
    let work = repo();
    let r = stand_in(
        "codex",
        &words(&["exec", "--json", "--skip-git-repo-check"]),
        work.path(),
        &[],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("Reading prompt from stdin...\nNo prompt provided via stdin.\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn copilot_needs_allow_all_tools_in_prompt_mode() {
    let work = repo();
    let args = words(&[
        "-p",
        "hi",
        "--output-format",
        "json",
        "-C",
        work.path().to_str().unwrap(),
    ]);
    let r = stand_in("copilot", &args, work.path(), &[]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("Error: --allow-all-tools is required for non-interactive mode"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.is_empty());
    for allow in ["--allow-all-tools", "--allow-all", "--yolo"] {
        let mut with = args.clone();
        with.push(allow.into());
        assert_eq!(
            stand_in("copilot", &with, work.path(), &[]).code,
            0,
            "{allow}"
        );
    }
    assert_eq!(
        stand_in(
            "copilot",
            &args,
            work.path(),
            &[("COPILOT_ALLOW_ALL", "true")]
        )
        .code,
        0
    );
}

#[test]
fn gemini_refuses_an_untrusted_directory() {
    let work = repo();
    let args = words(&["-p", "hi", "-o", "stream-json", "--approval-mode", "yolo"]);
    let r = stand_in("gemini", &args, work.path(), &[]);
    assert_eq!(r.code, 55);
    assert!(r.stderr.contains(
        "Approval mode overridden to \"default\" because the current folder is not trusted."
    ));
    assert!(r.stderr.contains(
        "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode."
    ), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    assert_eq!(
        stand_in(
            "gemini",
            &args,
            work.path(),
            &[("GEMINI_CLI_TRUST_WORKSPACE", "true")]
        )
        .code,
        0
    );
}

#[test]
fn unknown_flags_are_usage_errors() {
    let work = repo();
    let cases: [(&str, Vec<String>, &str); 5] = [
        (
            "claude",
            words(&["-p", "hi", "--turbo"]),
            "error: unknown option '--turbo'",
        ),
        (
            "codex",
            words(&["exec", "--json", "--max-turns", "3", "hi"]),
            "error: unexpected argument '--max-turns' found",
        ),
        (
            "codex",
            words(&["exec", "-a", "never", "hi"]),
            "error: unexpected argument '-a' found",
        ),
        (
            "copilot",
            words(&["-p", "hi", "--allow-all", "--turbo"]),
            "error: unknown option '--turbo'",
        ),
        (
            "gemini",
            words(&["-p", "hi", "--skip-trust", "--turbo"]),
            "Unknown argument: turbo",
        ),
    ];
    for (cli, args, message) in cases {
        let r = stand_in(cli, &args, work.path(), SANDBOX);
        assert_eq!(r.code, 2, "{cli} {args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with(message), "{cli}: {}", r.stderr);
    }
    let r = stand_in(
        "codex",
        &words(&["exec", "--sandbox", "bogus", "hi"]),
        work.path(),
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("error: invalid value 'bogus' for '--sandbox <SANDBOX_MODE>'\n  [possible values: read-only, workspace-write, danger-full-access]"));
    let r = stand_in("nope", &words(&["-p", "hi"]), work.path(), &[]);
    assert_eq!(r.code, 2);
}

#[test]
fn versions_answer_like_the_real_ones() {
    // (Through `zurdo stand-in`, a leading `--version`/`-V`/`--help`/`-h`
    // is zurdo's own clap flag; the binary of its own passes them on.)
    let work = repo();
    for (cli, args, want) in [
        ("claude", &["-v"][..], "2.1.197 (Claude Code)\n"),
        ("claude", &["--version"][..], "2.1.197 (Claude Code)\n"),
        ("codex", &["exec", "--version"][..], "codex-cli 0.171.0\n"),
        ("codex", &["--version"][..], "codex-cli 0.171.0\n"),
        (
            "copilot",
            &["-v"][..],
            "GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n",
        ),
        ("gemini", &["-v"][..], "0.61.0\n"),
        ("gemini", &["--version"][..], "0.61.0\n"),
    ] {
        let r = stand_in(cli, &words(args), work.path(), &[]);
        assert_eq!((r.code, r.stdout.as_str()), (0, want), "{cli}");
    }
}

#[test]
fn the_binary_names_the_clis_it_imitates() {
    let work = repo();
    let r = stand_in("aider", &words(&["-p", "hi"]), work.path(), &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown CLI `aider`"), "{}", r.stderr);
    let out = Command::new(env!("CARGO_BIN_EXE_zurdo-standin"))
        .output()
        .expect("the zurdo-standin binary runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Usage: zurdo-standin <claude|codex|copilot|gemini> [ARGS]...\n"
    );
}
