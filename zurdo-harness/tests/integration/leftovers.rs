//! Issue 13, class 1: processes the agent leaves behind. zurdo is the
//! reaper of everything the agent starts: a server the agent detached
//! (`setsid`, a double fork) to answer an `[http:]` check is killed before
//! zurdo verifies, so the check fails on what the repository itself
//! starts; what was killed is recorded (`agent_leftovers`) and said live.
//! Beside it, in the same run, an honest task whose criteria start their
//! own server (an `&` background job, not detached) for a later `[http:]`
//! criterion passes: criteria's leftovers live until the pass ends, then
//! are killed too.

use std::net::TcpListener;

use crate::common::{run_repo, state, state_dir, text, zurdo_run};

/// A port free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Live processes whose command line holds `needle`.
fn running(needle: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let state = stat.rsplit_once(") ")?.1.split_whitespace().next()?;
            if state == "Z" {
                return None;
            }
            let cmd = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            cmd.contains(needle).then_some(cmd)
        })
        .collect()
}

/// A shell loop waiting (up to 5 s) until `url` answers.
fn wait_until_served(url: &str) -> String {
    format!(
        "i=0; until python3 -c \"import urllib.request; urllib.request.urlopen('{url}')\" 2>/dev/null; do i=$((i+1)); [ $i -gt 100 ] && break; sleep 0.05; done"
    )
}

#[test]
fn a_server_the_agent_detached_is_killed_before_verifying_and_an_honest_criterion_server_works() {
    let outside = tempfile::tempdir().expect("temp");
    std::fs::write(outside.path().join("ok.txt"), "ok\n").expect("write");
    let cheat_port = free_port();
    let honest_port = free_port();
    let cheat_url = format!("http://127.0.0.1:{cheat_port}/ok.txt");
    let honest_url = format!("http://127.0.0.1:{honest_port}/ok.txt");
    let prd = format!(
        "# PRD: leftovers\n\n\
         ## Task: task-serve — Serve the status page\n**Effort**: low\n**Depends-on**: []\n**Max-Attempts**: 2\n\n\
         ### Description\nMake the repository serve ok.txt.\n\n\
         ### Acceptance Criteria\n- [ ] the page is served [http: GET {cheat_url} -> 200]\n\n\
         ## Task: task-page — Write the page\n**Effort**: low\n**Depends-on**: []\n\n\
         ### Description\nWrite srv/ok.txt.\n\n\
         ### Acceptance Criteria\n\
         - [ ] the server starts [shell: python3 -m http.server {honest_port} --bind 127.0.0.1 --directory srv >/dev/null 2>&1 & {}]\n\
         - [ ] the page is served [http: GET {honest_url} -> 200]\n",
        wait_until_served(&format!("http://127.0.0.1:{honest_port}/"))
    );
    // The cheat: a server outside the repository, detached from the agent
    // (setsid, in the background), waited for so it is up when the agent
    // ends; without the reaper the [http:] check would pass on it.
    let cheat = format!(
        "setsid python3 -m http.server {cheat_port} --bind 127.0.0.1 --directory '{}' >/dev/null 2>&1 < /dev/null & {}",
        outside.path().display(),
        wait_until_served(&cheat_url)
    );
    let script = serde_json::json!({
        "on_prompt": [
            {"contains": "Task task-serve", "attempt": {"run": cheat, "text": "The page is served."}},
            {"contains": "Task task-page", "attempt": {"write": {"srv/ok.txt": "ok\n"}, "text": "Wrote it."}}
        ]
    })
    .to_string();
    let r = run_repo(&prd, "", &[], &script, false);
    let out = zurdo_run(r.path(), &["--skip-model-check"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");

    let state = state(r.path());
    let serve = &state["tasks"][0];
    assert_eq!(serve["id"], "task-serve");
    assert_eq!(serve["status"], "failed", "{serve:#}");
    for it in serve["iterations"].as_array().expect("iterations") {
        let leftovers = it["agent_leftovers"].as_array().expect("agent_leftovers");
        assert!(
            leftovers.iter().any(|c| c
                .as_str()
                .is_some_and(|c| c.contains(&format!("http.server {cheat_port}")))),
            "{it:#}"
        );
        let hint = &it["criteria"][0]["hints"][0];
        assert_eq!(hint["reason"], "connection_refused", "{hint:#}");
    }
    assert!(
        stderr.contains("zurdo: killed 1 process the agent left running (before verifying):"),
        "{stderr}"
    );
    let retry = std::fs::read_to_string(state_dir(r.path()).join("iterations/task-serve-2.prompt"))
        .expect("the second prompt");
    assert!(
        retry.contains("# Processes Left Running")
            && retry.contains(&format!("http.server {cheat_port}")),
        "{retry}"
    );

    // The honest control in the same run passed: its criterion's server
    // (an ordinary background job) lived for the later [http:] criterion.
    let page = &state["tasks"][1];
    assert_eq!(page["id"], "task-page");
    assert_eq!(page["status"], "passed", "{page:#}\n{stderr}");
    assert!(
        stderr.contains("note: stopped 1 process the criteria left running"),
        "{stderr}"
    );

    // Nothing either started is still running.
    assert!(running(&format!("http.server {cheat_port}")).is_empty());
    assert!(running(&format!("http.server {honest_port}")).is_empty());
}

#[test]
fn zurdo_verify_keeps_a_criterion_s_server_for_the_pass_and_stops_it_after() {
    let port = free_port();
    let prd = format!(
        "# PRD: v\n\n## Task: task-1 — Page\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n\
         ### Acceptance Criteria\n\
         - [ ] the server starts [shell: python3 -m http.server {port} --bind 127.0.0.1 --directory srv >/dev/null 2>&1 & {}]\n\
         - [ ] the page is served [http: GET http://127.0.0.1:{port}/ok.txt -> 200]\n",
        wait_until_served(&format!("http://127.0.0.1:{port}/"))
    );
    let r = crate::common::repo(&[("prds/p.md", prd.as_str()), ("srv/ok.txt", "ok\n")]);
    let out = crate::common::zurdo(&["verify", "prds/p.md"], r.path());
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("note: stopped 1 process(es) the criteria left running"),
        "{stdout}"
    );
    assert!(running(&format!("http.server {port}")).is_empty());
}
