//! Every grammar rule of the spec, each with its own error.

use zurdo::hint::Check;

/// `line <n>: <message>` for every error of `source`.
fn errors(source: &str) -> Vec<String> {
    match zurdo::parse(source) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(ToString::to_string).collect(),
    }
}

fn ok(source: &str) -> zurdo::Prd {
    match zurdo::parse(source) {
        Ok(prd) => prd,
        Err(e) => panic!("expected a valid PRD, got {e:#?}"),
    }
}

/// A one-task PRD whose task heading line, metadata and criteria are given.
fn prd(heading: &str, metadata: &str, criteria: &str) -> String {
    format!("# PRD: Test\n\n{heading}\n{metadata}\n\n### Description\nDo it.\n\n### Acceptance Criteria\n{criteria}\n")
}

const META: &str = "**Effort**: low\n**Depends-on**: []";
const HEAD: &str = "## Task: task-1 — Title";
const CRIT: &str = "- [ ] works [shell: cargo test]";

#[test]
fn the_tour_validates_exactly_as_printed() {
    let tour = include_str!("../../tests/fixtures/spec/tour.md");
    let prd = ok(tour);
    let task = &prd.tasks[0];
    assert_eq!(prd.title, "<free-form title>");
    assert_eq!(
        (task.id.as_str(), task.title.as_str()),
        ("task-1", "<task title>")
    );
    assert_eq!(task.metadata.max_attempts, Some(5));
    assert_eq!(task.metadata.skills, ["rust-style"]);
    assert_eq!(task.metadata.agent_timeout.map(|t| t.seconds), Some(1800));
    assert_eq!(task.metadata.category.as_deref(), Some("Backend"));
    assert_eq!(task.metadata.frozen, ["docs/adr/*.md"]);
    assert_eq!(task.requirements.len(), 2);
    assert_eq!(
        task.description,
        "Free-form prose. Passed verbatim to the executor agent."
    );
    let kinds: Vec<Vec<&str>> = task
        .criteria
        .iter()
        .map(|c| c.hints.iter().map(|h| h.kind()).collect())
        .collect();
    assert_eq!(
        kinds,
        [
            vec!["shell"],
            vec!["file-exists"],
            vec!["http"],
            vec!["manual"]
        ]
    );
    assert_eq!(task.criteria[0].proves, ["req-tests-green"]);
    assert_eq!(task.criteria[2].proves, ["req-health-endpoint"]);
}

#[test]
fn the_traceability_example_validates() {
    let prd = ok(include_str!("../../tests/fixtures/spec/traceability.md"));
    assert_eq!(prd.tasks[0].id, "task-auth");
    assert_eq!(prd.tasks[0].requirements[1].id, "req-auth-2");
}

#[test]
fn rule_1_hyphen_message_matches_the_spec() {
    // The spec's example error is on line 12; put the heading there.
    let source = format!(
        "# PRD: x\n{}## Task: task-1 - Title\n{META}\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n",
        "\n".repeat(10)
    );
    assert_eq!(
        errors(&source),
        ["line 12: task heading uses hyphen-minus (U+002D) where an em-dash (U+2014) is required"]
    );
}

#[test]
fn rule_1_en_dash_has_its_own_message() {
    assert_eq!(
        errors(&prd("## Task: task-1 – Title", META, CRIT)),
        ["line 3: task heading uses en-dash (U+2013) where an em-dash (U+2014) is required"]
    );
}

#[test]
fn rule_1_ids() {
    for id in ["task-1", "task-auth-rotate", "task-3a"] {
        ok(&prd(&format!("## Task: {id} — T"), META, CRIT));
    }
    for id in ["Task-1", "auth_rotate", "task--"] {
        let e = errors(&prd(&format!("## Task: {id} — T"), META, CRIT));
        assert_eq!(e.len(), 1, "{id}: {e:?}");
        assert!(
            e[0].starts_with(&format!("line 3: invalid task id `{id}`")),
            "{e:?}"
        );
    }
}

#[test]
fn duplicate_task_ids_fail() {
    let source = format!(
        "# PRD: x\n\n{HEAD}\n{META}\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n\n\
         ## Task: task-1 — Again\n{META}\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n"
    );
    assert_eq!(
        errors(&source),
        ["line 13: duplicate task id `task-1` (first at line 3)"]
    );
}

#[test]
fn rule_2_blank_line_before_the_metadata_block() {
    let source = "# PRD: x\n\n## Task: task-1 — Write the greeter\n\n**Effort**: low\n**Depends-on**: []\n\n\
                  ### Description\nd\n\n### Acceptance Criteria\n- [ ] ok [shell: true]\n";
    assert_eq!(
        errors(source),
        ["line 5: blank line between the task heading (line 3) and its metadata block"]
    );
}

#[test]
fn rule_2_key_after_the_block_ended() {
    let source = prd(
        HEAD,
        "**Effort**: low\n**Depends-on**: []\n\n**Category**: x",
        CRIT,
    );
    assert_eq!(
        errors(&source),
        ["line 7: metadata line after the metadata block ended"]
    );
}

#[test]
fn rule_2_no_metadata_at_all() {
    let source = "# PRD: x\n\n## Task: task-1 — T\n### Description\nd\n\n### Acceptance Criteria\n- [ ] ok [shell: true]\n";
    assert_eq!(
        errors(source),
        ["line 3: task has no metadata block under its heading"]
    );
}

#[test]
fn rule_3_closed_keys_and_values() {
    let cases = [
        ("**Owner**: me", "line 6: unknown metadata key `Owner`; the keys are Effort, Depends-on, Max-Attempts, Max-Cost, Skills, Agent-timeout, Category, Frozen"),
        ("**Max-Attempts**: 0", "line 6: **Max-Attempts** `0` is not a positive integer"),
        ("**Max-Cost**: 2 dollars", "line 6: **Max-Cost** `2 dollars` is not an amount of US dollars like $2.50"),
        ("**Max-Cost**: $0", "line 6: **Max-Cost** `$0` is not a positive amount like $2.50"),
        ("**Agent-timeout**: 90", "line 6: **Agent-timeout** `90` has no unit; durations need s, m or h (30s, 15m, 1h)"),
        (" **Category**: x", "line 6: metadata line has leading whitespace"),
        ("Category: x", "line 6: metadata key `Category` must be bold-wrapped"),
    ];
    for (line, expected) in cases {
        let source = prd(HEAD, &format!("{META}\n{line}"), CRIT);
        assert_eq!(errors(&source), [expected], "{line}");
    }
}

#[test]
fn rule_3_required_keys() {
    let source = prd(HEAD, "**Effort**: low", CRIT);
    assert_eq!(
        errors(&source),
        ["line 3: task is missing the required **Depends-on** metadata"]
    );
}

#[test]
fn rule_4_every_criterion_needs_a_hint() {
    assert_eq!(
        errors(&prd(HEAD, META, "- [ ] looks good")),
        ["line 11: acceptance criterion has no hint"]
    );
    assert_eq!(
        errors(&prd(HEAD, META, "- [ ] bad [sh: ls]")),
        ["line 11: unknown hint kind `sh`"]
    );
    assert_eq!(
        errors(&prd(HEAD, META, "- [ ] bad [grep:]")),
        ["line 11: [grep:] has an empty payload"]
    );
    assert_eq!(
        errors(&prd(HEAD, META, "- [x] done [shell: true]")).len(),
        1
    );
    assert_eq!(
        errors(&prd(HEAD, META, "- done [shell: true]")),
        ["line 11: acceptance criterion must be a task-list item `- [ ] …`"]
    );
}

#[test]
fn rule_4_hints_are_anded_and_brackets_balance() {
    let p = ok(&prd(HEAD, META, "- [ ] [edge] cases build [shell: [ -f x ] && cargo build] [file-exists: target/debug/zurdo]"));
    let c = &p.tasks[0].criteria[0];
    assert_eq!(c.title, "[edge] cases build");
    assert_eq!(
        c.hints[0].check,
        Check::Shell {
            command: "[ -f x ] && cargo build".into()
        }
    );
    assert_eq!(c.hints.len(), 2);
}

#[test]
fn criteria_may_wrap_onto_a_second_line() {
    let p = ok(&prd(
        HEAD,
        META,
        "- [ ] a long criterion\n  that wraps [shell: true]",
    ));
    assert_eq!(p.tasks[0].criteria[0].title, "a long criterion that wraps");
}

#[test]
fn typed_payloads_are_checked_at_validate_time() {
    let cases = [
        (
            "[http: GET localhost:8080 -> 200]",
            "must start with http:// or https://",
        ),
        (
            "[http: GET http://localhost:8080/health]",
            "has no `-> STATUS`",
        ),
        (
            "[http: get http://localhost/ -> 200]",
            "unknown method `get`",
        ),
        (
            "[http: GET http://localhost/ -> 2000]",
            "is not an HTTP status code",
        ),
        ("[grep: fn main]", "has no ` in PATH-OR-GLOB`"),
        ("[grep: fn main( in src/main.rs]", "is not a valid regex"),
        ("[no-grep: x in /etc/passwd]", "is absolute"),
        ("[file-exists: ../x]", "leaves the repository"),
        ("[file-exists: src/*.rs]", "takes one path, not a glob"),
        ("[symbol: Config.load]", "must use `::` between segments"),
        ("[callers: Config::load >= 0]", "is not a positive integer"),
        ("[manual: ask Bob]", "[manual] takes no payload"),
    ];
    for (hint, expected) in cases {
        let e = errors(&prd(HEAD, META, &format!("- [ ] c {hint}")));
        assert_eq!(e.len(), 1, "{hint}: {e:?}");
        assert!(e[0].contains(expected), "{hint}: {e:?}");
    }
}

#[test]
fn every_hint_kind_parses() {
    let criteria = "- [ ] a [shell: cargo test]\n- [ ] b [http: POST https://127.0.0.1:9/x -> 201]\n\
                    - [ ] c [file-exists: ./src/lib.rs]\n- [ ] d [file-absent: old.rs]\n\
                    - [ ] e [grep: fn (main|run) in src/**/*.rs]\n- [ ] f [no-grep: x in y in z.txt]\n\
                    - [ ] g [symbol: Config::load]\n- [ ] h [references: pkg::Type::method]\n\
                    - [ ] i [callers: run >= 2]\n- [ ] j [callers: run from main]\n- [ ] k [manual]";
    let p = ok(&prd(HEAD, META, criteria));
    let c = &p.tasks[0].criteria;
    match &c[1].hints[0].check {
        Check::Http(h) => assert_eq!(
            (h.method.as_str(), h.host.as_str(), h.port, h.status),
            ("POST", "127.0.0.1", Some(9), 201)
        ),
        other => panic!("{other:?}"),
    }
    match &c[4].hints[0].check {
        Check::Grep(g) => assert!(g.target_is_glob && g.target.as_str() == "src/**/*.rs"),
        other => panic!("{other:?}"),
    }
    match &c[5].hints[0].check {
        Check::NoGrep(g) => {
            assert_eq!((g.pattern.as_str(), g.target.as_str()), ("x in y", "z.txt"))
        }
        other => panic!("{other:?}"),
    }
    match &c[8].hints[0].check {
        Check::Callers(k) => assert_eq!((k.name.to_string(), k.min), ("run".to_string(), 2)),
        other => panic!("{other:?}"),
    }
    assert!(c[10].is_manual_only());
}

#[test]
fn sections_are_ordered_and_required() {
    let body = |sections: &str| format!("# PRD: x\n\n{HEAD}\n{META}\n{sections}");
    let e = errors(&body("\n### Description\nd\n\n### Requirements\n- req-a: x\n\n### Acceptance Criteria\n- [ ] c [shell: true] [proves:req-a]\n"));
    assert_eq!(
        e,
        ["line 10: ### Requirements must come before ### Description"]
    );
    let e = errors(&body(
        "\n### Acceptance Criteria\n- [ ] c [shell: true]\n\n### Description\nd\n",
    ));
    assert_eq!(
        e,
        ["line 10: ### Description must come before ### Acceptance Criteria"]
    );
    let e = errors(&body("\n### Acceptance Criteria\n- [ ] c [shell: true]\n"));
    assert_eq!(e, ["line 3: task `task-1` has no ### Description section"]);
    let e = errors(&body("\n### Description\nd\n"));
    assert_eq!(
        e,
        ["line 3: task `task-1` has no ### Acceptance Criteria section"]
    );
    let e = errors(&body(
        "\n### Description\nd\n\n### Notes\nx\n\n### Acceptance Criteria\n- [ ] c [shell: true]\n",
    ));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].starts_with("line 10: unknown section `### Notes`"),
        "{e:?}"
    );
}

#[test]
fn requirements_ids_unique_and_proves_resolves() {
    let body = |reqs: &str, crit: &str| {
        format!("# PRD: x\n\n{HEAD}\n{META}\n\n### Requirements\n{reqs}\n\n### Description\nd\n\n### Acceptance Criteria\n{crit}\n")
    };
    ok(&body(
        "- req-a: x\n- req-b: y",
        "- [ ] c [shell: true] [proves:req-a] [proves:req-b]",
    ));
    let e = errors(&body("- req-a: x\n- req-a: y", "- [ ] c [shell: true]"));
    assert_eq!(
        e,
        ["line 9: duplicate requirement id `req-a` (first at line 8)"]
    );
    let e = errors(&body("- Req_A: x", "- [ ] c [shell: true]"));
    assert!(
        e[0].starts_with("line 8: invalid requirement id `Req_A`"),
        "{e:?}"
    );
    let e = errors(&body("- req-a: x", "- [ ] c [shell: true] [proves:req-b]"));
    assert_eq!(
        e,
        ["line 14: [proves:req-b] names no requirement of task `task-1`"]
    );
    let e = errors(&body("- req-a: x", "- [ ] c [proves:req-a] [shell: true]"));
    assert_eq!(
        e,
        ["line 14: [proves:] must come after all hints on the line"]
    );
}

fn graph(deps: &[(&str, &str)]) -> Vec<String> {
    let mut source = String::from("# PRD: g\n");
    for (id, on) in deps {
        source.push_str(&format!(
            "\n## Task: {id} — t\n**Effort**: low\n**Depends-on**: [{on}]\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] c [shell: true]\n"
        ));
    }
    errors(&source)
}

#[test]
fn dependency_errors() {
    assert_eq!(
        graph(&[("task-a", "task-b")]),
        ["line 5: task `task-a` depends on unknown task `task-b`"]
    );
    assert_eq!(
        graph(&[("task-a", "task-a")]),
        ["line 5: task `task-a` depends on itself"]
    );
    assert_eq!(
        graph(&[("task-a", "task-c"), ("task-b", "task-a"), ("task-c", "task-b")]),
        ["line 5: dependency cycle: task-a -> task-c -> task-b -> task-a (each depends on the next)"]
    );
    // A task downstream of a cycle is not reported as a cycle of its own.
    assert_eq!(
        graph(&[
            ("task-x", "task-a"),
            ("task-a", "task-b"),
            ("task-b", "task-a")
        ])
        .len(),
        1
    );
}

#[test]
fn run_order_is_topological_with_document_order_ties() {
    let source = ["task-d:task-b", "task-b:", "task-c:", "task-a:task-c, task-b"]
        .iter()
        .map(|s| {
            let (id, on) = s.split_once(':').unwrap();
            format!("\n## Task: {id} — t\n**Effort**: low\n**Depends-on**: [{on}]\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] c [shell: true]\n")
        })
        .collect::<String>();
    let p = ok(&format!("# PRD: g\n{source}"));
    let order: Vec<&str> = p.tasks_in_run_order().map(|t| t.id.as_str()).collect();
    assert_eq!(order, ["task-b", "task-d", "task-c", "task-a"]);
}

#[test]
fn every_error_is_reported_sorted_by_line() {
    let source = "# PRD: x\n\n## Task: task-1 - T\n**Effort**: low\n**Depends-on**: [task-9]\n**Owner**: me\n\n\
                  ### Description\nd\n\n### Acceptance Criteria\n- [ ] a [nope: x]\n- [ ] b\n";
    let e = errors(source);
    let lines: Vec<&str> = e.iter().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(
        lines,
        ["line 3", "line 5", "line 6", "line 12", "line 13"],
        "{e:#?}"
    );
}

#[test]
fn title_and_task_presence() {
    assert_eq!(errors("## Task: task-1 — T\n**Effort**: low\n**Depends-on**: []\n\n### Description\nd\n\n### Acceptance Criteria\n- [ ] c [shell: true]\n"),
        ["line 1: the PRD has no H1 title"]);
    assert_eq!(
        errors("# PRD: x\n\nJust prose.\n"),
        ["line 1: the PRD has no tasks"]
    );
    let e = errors(&format!("# PRD: a\n# PRD: b\n\n{HEAD}\n{META}\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n"));
    assert_eq!(
        e,
        ["line 2: second H1 title (the first is at line 1); a PRD has exactly one"]
    );
    let e = errors(&format!("# PRD: a\n\n## Overview\ntext\n\n{HEAD}\n{META}\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n"));
    assert_eq!(
        e,
        ["line 3: unexpected H2 heading `## Overview`: H2 headings are task headings"]
    );
}

#[test]
fn non_utf8_input_is_a_clear_error() {
    let e = zurdo::parse_bytes(b"# PRD: x\nab\xffcd\n").unwrap_err();
    assert_eq!(
        e[0].to_string(),
        "line 2: the file is not valid UTF-8 (bad byte 0xff at column 3)"
    );
}

#[test]
fn description_is_verbatim_including_code_and_subheadings() {
    let source = "# PRD: x\n\n## Task: task-1 — T\n**Effort**: low\n**Depends-on**: []\n\n### Description\n\n\
                  Do *this*.\n\n#### Detail\n\n```sh\n### not a heading\n```\n\n### Acceptance Criteria\n- [ ] c [shell: true]\n";
    let p = ok(source);
    assert_eq!(
        p.tasks[0].description,
        "Do *this*.\n\n#### Detail\n\n```sh\n### not a heading\n```"
    );
    assert_eq!(p.tasks[0].description_line, 7);
}

#[test]
fn crlf_line_endings_parse() {
    let source = prd(HEAD, META, CRIT).replace('\n', "\r\n");
    let p = ok(&source);
    assert_eq!(p.tasks[0].metadata.effort, "low");
    assert_eq!(
        p.tasks[0].criteria[0].hints[0].check,
        Check::Shell {
            command: "cargo test".into()
        }
    );
}

/// `line <n>: <message>` and the fix of every error of `source`.
fn with_fixes(source: &str) -> Vec<(String, String)> {
    match zurdo::parse(source) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .iter()
            .map(|d| (d.to_string(), d.fix.clone().unwrap_or_default()))
            .collect(),
    }
}

#[test]
fn durations_and_attempts_are_bounded() {
    let limit = zurdo::limits::MAX_DURATION_SECONDS;
    for (value, seconds) in [("168h", limit), ("10080m", limit), ("604800s", limit)] {
        let p = ok(&prd(
            HEAD,
            &format!("{META}\n**Agent-timeout**: {value}"),
            CRIT,
        ));
        assert_eq!(
            p.tasks[0].metadata.agent_timeout.map(|t| t.seconds),
            Some(seconds)
        );
    }
    for (value, fix) in [
        (
            "18446744073709551615s",
            "write `**Agent-timeout**: 604800s` or less",
        ),
        (
            "99999999999999999999999999h",
            "write `**Agent-timeout**: 168h` or less",
        ),
        ("169h", "write `**Agent-timeout**: 168h` or less"),
        ("10081m", "write `**Agent-timeout**: 10080m` or less"),
    ] {
        let e = with_fixes(&prd(
            HEAD,
            &format!("{META}\n**Agent-timeout**: {value}"),
            CRIT,
        ));
        assert_eq!(
            e,
            [(
                format!("line 6: **Agent-timeout** `{value}` is longer than 7 days (168h), the longest duration zurdo accepts"),
                fix.to_string()
            )]
        );
    }
    let p = ok(&prd(HEAD, &format!("{META}\n**Max-Attempts**: 1000"), CRIT));
    assert_eq!(
        p.tasks[0].metadata.max_attempts,
        Some(zurdo::limits::MAX_ATTEMPTS)
    );
    for value in [
        "1001",
        "4294967295",
        "4294967296",
        "99999999999999999999999",
    ] {
        let e = with_fixes(&prd(
            HEAD,
            &format!("{META}\n**Max-Attempts**: {value}"),
            CRIT,
        ));
        assert_eq!(
            e,
            [(
                format!("line 6: **Max-Attempts** `{value}` is more than 1000, the most attempts a task may have"),
                "write `**Max-Attempts**: 1000` or less".to_string()
            )]
        );
    }
    for value in ["0", "-1", "+5", "five"] {
        let e = errors(&prd(
            HEAD,
            &format!("{META}\n**Max-Attempts**: {value}"),
            CRIT,
        ));
        assert_eq!(
            e,
            [format!(
                "line 6: **Max-Attempts** `{value}` is not a positive integer"
            )]
        );
    }
}

#[test]
fn a_grep_pattern_is_built_as_the_verifier_builds_it() {
    // Parses, but its compiled form is over the size limit: refused now,
    // not when the hint runs.
    for pattern in ["a{1000}{1000}", "(a{1000}){1000}", "\\w{1000}{100}"] {
        let e = with_fixes(&prd(
            HEAD,
            META,
            &format!("- [ ] c [grep: {pattern} in a.txt]"),
        ));
        assert_eq!(e.len(), 1, "{pattern}: {e:?}");
        assert!(
            e[0].0.starts_with(&format!(
                "line 11: [grep:] pattern `{pattern}` is too large to build: its compiled form exceeds the regex size limit"
            )),
            "{e:?}"
        );
        assert!(e[0].1.contains("smaller repetition counts"), "{e:?}");
    }
    // Bytes that are not UTF-8 are searchable, as the verifier allows.
    ok(&prd(
        HEAD,
        META,
        "- [ ] c [no-grep: (?-u:\\xFF) in data.bin]",
    ));
    // The same pattern in many tasks is fine (built once).
    let e = errors(&prd(
        HEAD,
        META,
        "- [ ] c [no-grep: a{1000}{1000} in a.txt] [grep: a{1000}{1000} in b.txt]",
    ));
    assert_eq!(e.len(), 2, "{e:?}");
}

#[test]
fn a_nul_byte_is_an_error_with_its_line_and_column() {
    let e = with_fixes(&prd(HEAD, META, "- [ ] c [shell: printf 'a\0b']"));
    assert_eq!(
        e,
        [(
            "line 11: the file has a NUL byte (U+0000) at column 26; a PRD is text, and no command, path or prompt can carry one".to_string(),
            "remove the NUL byte (a [shell:] command that must print one can run `printf '\\0'`)".to_string()
        )]
    );
    // Its relatives: a path, a URL, a title, a description.
    for criterion in [
        "- [ ] c [file-exists: a\0b]",
        "- [ ] c [http: GET http://localhost/\0 -> 200]",
        "- [ ] c\0 [shell: true]",
    ] {
        let e = errors(&prd(HEAD, META, criterion));
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].starts_with("line 11: the file has a NUL byte"),
            "{e:?}"
        );
    }
    let e = errors(&prd(HEAD, META, CRIT).replace("Do it.", "Do\0 it."));
    assert!(
        e[0].starts_with("line 8: the file has a NUL byte (U+0000) at column 3"),
        "{e:?}"
    );
    // A standing rule is a hint read outside a PRD: the payload check.
    let e = zurdo::hint::parse_hint("[shell: a\0b]").unwrap_err();
    assert!(
        e.message
            .starts_with("[shell:] payload has a NUL byte (U+0000) at byte 2"),
        "{e:?}"
    );
}

#[test]
fn a_shell_command_is_at_most_one_argument_long() {
    let max = zurdo::limits::MAX_SHELL_COMMAND_BYTES;
    let fits = format!("true {}", "x".repeat(max - 5));
    ok(&prd(HEAD, META, &format!("- [ ] c [shell: {fits}]")));
    let long = format!("true {}", "x".repeat(max - 4));
    let e = with_fixes(&prd(HEAD, META, &format!("- [ ] c [shell: {long}]")));
    assert_eq!(
        e,
        [(
            format!("line 11: [shell:] command is {} bytes long, more than {max}, the longest argument `sh -c` can be given", max + 1),
            "put the commands in a script in the repository and run it: [shell: sh scripts/check.sh]".to_string()
        )]
    );
}

#[test]
fn an_http_url_the_client_cannot_send_is_an_error() {
    for url in [
        "http://localhost/a<b",
        "http://localhost/\x01",
        "http://local host/",
    ] {
        let e = errors(&prd(
            HEAD,
            META,
            &format!("- [ ] c [http: GET {url} -> 200]"),
        ));
        assert_eq!(e.len(), 1, "{url}: {e:?}");
        assert!(e[0].starts_with("line 11: [http:]"), "{url}: {e:?}");
    }
    let e = errors(&prd(
        HEAD,
        META,
        "- [ ] c [http: GET http://localhost/a<b -> 200]",
    ));
    assert!(
        e[0].contains("URL `http://localhost/a<b` cannot be sent"),
        "{e:?}"
    );
    for url in [
        "http://localhost:8080/health",
        "https://[::1]:8443/a?b=c&d=%20#frag",
        "http://user@example.com/path/é",
        "http://localhost/{\"json\":1}",
    ] {
        ok(&prd(
            HEAD,
            META,
            &format!("- [ ] c [http: GET {url} -> 200]"),
        ));
    }
}

#[test]
fn a_byte_order_mark_is_accepted_and_dropped() {
    let source = format!("\u{feff}{}", prd(HEAD, META, CRIT));
    let p = ok(&source);
    assert_eq!(p.title, "Test");
    assert_eq!(p.title_line, 1);
    let p = zurdo::parse_bytes(source.as_bytes()).expect("valid through bytes too");
    assert_eq!(p.tasks[0].line, 3);
    // Line numbers of errors are unchanged by it.
    let e = errors(&format!(
        "\u{feff}{}",
        prd("## Task: task-1 - T", META, CRIT)
    ));
    assert!(
        e[0].starts_with("line 3: task heading uses hyphen-minus"),
        "{e:?}"
    );
}

#[test]
fn lone_carriage_returns_are_a_clear_error() {
    let source = prd(HEAD, META, CRIT).replace('\n', "\r");
    assert_eq!(
        with_fixes(&source),
        [(
            "line 1: the file has a lone carriage return (CR, U+000D) at column 12; zurdo reads LF or CRLF line endings, and a lone CR (old Mac line endings) would make every line number wrong".to_string(),
            "save the PRD with LF (or CRLF) line endings; `tr '\\r' '\\n' < old.md > new.md` converts a file that uses CR throughout".to_string()
        )]
    );
    // One stray CR names its own line.
    let source = prd(HEAD, META, CRIT).replace("Do it.", "Do\rit.");
    let e = errors(&source);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("line 8: the file has a lone carriage return (CR, U+000D) at column 3"),
        "{e:?}"
    );
    // CRLF is fine, and so is a CR before CRLF's LF at the end.
    ok(&prd(HEAD, META, CRIT).replace('\n', "\r\n"));
}

#[test]
fn invalid_task_ids_say_what_is_wrong_and_a_free_rename() {
    let cases = [
        ("Task-1", "it has upper-case letters", "rename it `task-1`"),
        ("task_1", "`_` is not allowed", "rename it `task-1`"),
        (
            "tâche-1",
            "`â` is not an ASCII letter or digit",
            "rename it `task-tache-1`",
        ),
        (
            "task-é",
            "`é` is not an ASCII letter or digit",
            "rename it `task-e`",
        ),
        (
            "task-任务",
            "`任` is not an ASCII letter or digit",
            "rename it `task-1`",
        ),
        (
            "任务",
            "`任` is not an ASCII letter or digit",
            "rename it `task-1`",
        ),
        (
            "auth",
            "it does not start with `task-`",
            "rename it `task-auth`",
        ),
        (
            "task--",
            "it has two hyphens in a row",
            "rename it `task-1`",
        ),
    ];
    for (id, problem, fix) in cases {
        let e = with_fixes(&prd(&format!("## Task: {id} — T"), META, CRIT));
        assert_eq!(
            e,
            [(
                format!("line 3: invalid task id `{id}`: {problem}; ids match ^task-[a-z0-9-]+$ (lowercase letters, digits and single hyphens, `task-` prefix)"),
                fix.to_string()
            )],
            "{id}"
        );
        // The suggested id is itself valid.
        let renamed = fix.trim_start_matches("rename it `").trim_end_matches('`');
        ok(&prd(&format!("## Task: {renamed} — T"), META, CRIT));
    }
}

#[test]
fn a_rename_is_never_an_id_the_prd_already_has() {
    let task = |heading: &str| {
        format!("{heading}\n{META}\n\n### Description\nd\n\n### Acceptance Criteria\n{CRIT}\n\n")
    };
    // `Task-A` would become `task-a`, which the next task has; so would the
    // second `Task-A`'s rename and `task-a-2`'s.
    let source = format!(
        "# PRD: x\n\n{}{}{}{}",
        task("## Task: Task-A — One"),
        task("## Task: task-a — Two"),
        task("## Task: task-a-2 — Three"),
        task("## Task: TASK-A — Four"),
    );
    let fixes: Vec<String> = with_fixes(&source).into_iter().map(|(_, f)| f).collect();
    assert_eq!(fixes, ["rename it `task-a-3`", "rename it `task-a-4`"]);
    // A duplicate's suggestion is free too.
    let source = format!(
        "# PRD: x\n\n{}{}{}",
        task("## Task: task-1 — One"),
        task("## Task: task-1-2 — Two"),
        task("## Task: task-1 — Three"),
    );
    assert_eq!(
        with_fixes(&source),
        [(
            "line 23: duplicate task id `task-1` (first at line 3)".to_string(),
            "give each task its own id, e.g. `task-1-3`".to_string()
        )]
    );
    // An id with nothing usable in it is named by its position, if free.
    let source = format!(
        "# PRD: x\n\n{}{}",
        task("## Task: task-2 — One"),
        task("## Task: 任务 — Two"),
    );
    let fixes: Vec<String> = with_fixes(&source).into_iter().map(|(_, f)| f).collect();
    assert_eq!(fixes, ["rename it `task-2-2`"]);
}
