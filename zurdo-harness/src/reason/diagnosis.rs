//! One diagnosis: the reasoner prompt for a stalled task and its reply,
//! verified structurally before anything acts on it. A reply that does not
//! hold up (no JSON, a value outside the closed sets, a citation of a step
//! the log does not have) is discarded whole, never repaired; the loop then
//! proceeds as if the reasoner had not been asked.

use std::fmt::{self, Write};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::bundle::{cut, fenced, window, Bundle};
use super::REASON_PREFIX;

/// Most bytes kept of a block's hypothesis and of its guidance.
const FIELD_BUDGET: usize = 4 * 1024;
/// Most bytes of the task description a reasoner prompt carries.
const DESCRIPTION_BUDGET: usize = 4 * 1024;
/// Most bytes of an offending value quoted in a discard.
const QUOTE_BUDGET: usize = 80;

/// The instruction every reasoner prompt carries: it reads, it does not act.
pub(crate) const READ_ONLY: &str = "Do not use tools, do not run commands, and do not edit files: \
     answer from the evidence in this prompt alone.";

/// What a diagnosis decides. A closed set: nothing here passes, skips or
/// weakens a criterion; zurdo's verification stays the only grader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The agent can fix it with better guidance: the next prompt opens with
    /// the block's `# Diagnosis` section.
    RetryWithGuidance,
    /// The criterion or its hint looks wrong or unreachable: a heal routing
    /// is recorded for a human, and the loop continues.
    SuggestHeal,
    /// Further attempts will not help: the task stops spending now.
    HaltTask,
}

impl Verdict {
    /// Every verdict, in the order prompts list them.
    pub const ALL: [Verdict; 3] = [
        Verdict::RetryWithGuidance,
        Verdict::SuggestHeal,
        Verdict::HaltTask,
    ];

    /// The name as written in a reply and in records (`retry_with_guidance`, …).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::RetryWithGuidance => "retry_with_guidance",
            Verdict::SuggestHeal => "suggest_heal",
            Verdict::HaltTask => "halt_task",
        }
    }

    /// Looks a verdict up by its name (surrounding whitespace and ASCII case
    /// ignored).
    pub fn from_name(name: &str) -> Option<Verdict> {
        let name = name.trim();
        Verdict::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(name))
    }

    /// What the verdict means, as the prompt explains it.
    fn meaning(self) -> &'static str {
        match self {
            Verdict::RetryWithGuidance => {
                "the agent can fix this itself with better guidance; your guidance opens its next prompt."
            }
            Verdict::SuggestHeal => {
                "the criterion or its hint itself looks wrong or unreachable (a wrong path, a command that cannot pass \
                 in this repository); a human should heal it. The loop continues meanwhile."
            }
            Verdict::HaltTask => {
                "further attempts will not help (the blocker is outside the agent's reach: credentials, a service, \
                 a contradiction in the task); stop spending on this task now."
            }
        }
    }
}

/// How sure the reasoner says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// A guess.
    Low,
    /// Plausible from the evidence.
    Medium,
    /// Supported by cited tool-call steps.
    High,
}

impl Confidence {
    /// Every confidence, lowest first.
    pub const ALL: [Confidence; 3] = [Confidence::Low, Confidence::Medium, Confidence::High];

    /// The name as written in a reply and in records (`low`, `medium`, `high`).
    pub fn name(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }

    /// Looks a confidence up by its name (surrounding whitespace and ASCII
    /// case ignored).
    pub fn from_name(name: &str) -> Option<Confidence> {
        let name = name.trim();
        Confidence::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// A structurally verified diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Why the loop is stuck (non-empty, at most 4 KB).
    pub hypothesis: String,
    /// What the next attempt should do differently (at most 4 KB; empty
    /// only for `halt_task`).
    pub guidance: String,
    /// What to do about the stall.
    pub verdict: Verdict,
    /// How sure the reasoner is, after clamping.
    pub confidence: Confidence,
    /// The tool-call steps (1-based, within the bundle) the hypothesis rests
    /// on, ascending, without duplicates.
    pub cited_steps: Vec<usize>,
    /// True when the reply said `high` but cited no step, so zurdo lowered
    /// it to `medium`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub confidence_clamped: bool,
}

/// The reasoner prompt for a task whose last `repeats` attempts failed the
/// same way. Its first line is `zurdo-reason: diagnosis`.
pub fn prompt(task: &zurdo::Task, bundle: &Bundle, repeats: u32) -> String {
    let mut out = format!("{REASON_PREFIX} diagnosis\n\n");
    let _ = writeln!(
        out,
        "You are zurdo's reasoner. zurdo drives a coding agent through a task and then checks the work itself, \
         by running each acceptance criterion's hints. The last {repeats} attempts at this task failed the same way \
         (the same failure, {repeats} attempts in a row): the retry loop is stalled. Read the evidence, say why the \
         agent keeps failing, and decide whether another attempt is worth it.\n"
    );
    let _ = writeln!(out, "{READ_ONLY}\n");

    task_section(&mut out, task, true);

    out.push_str("# Evidence\n\n");
    out.push_str(
        "zurdo assembled this from its own verification records and the agent's event stream. ",
    );
    let _ = match bundle.steps {
        0 => write!(out, "No tool calls were recorded, so there is no step to cite."),
        n => write!(
            out,
            "Tool-call steps are numbered [1] to [{n}] across all the attempts shown; cite them by number."
        ),
    };
    out.push_str(" Where a section was too long, its middle is elided and marked.\n\n");
    out.push_str(&fenced(&bundle.text, "text"));

    out.push_str("\n# Verdicts\n\nChoose exactly one:\n\n");
    for verdict in Verdict::ALL {
        let _ = writeln!(out, "- `{}`: {}", verdict.name(), verdict.meaning());
    }
    out.push_str(
        "\nNo verdict passes, skips or weakens a criterion, and none edits the task: zurdo's own verification \
         stays the only grader, whatever you answer.\n",
    );

    out.push_str("\n# Reply\n\nReply with ONE JSON object and nothing else:\n\n");
    out.push_str(
        "{\"hypothesis\": \"...\", \"guidance\": \"...\", \"verdict\": \"retry_with_guidance|suggest_heal|halt_task\", \
         \"confidence\": \"low|medium|high\", \"cited_steps\": [3, 7]}\n\n",
    );
    let _ = writeln!(
        out,
        "- `hypothesis`: why the attempts keep failing, in a few sentences.\n\
         - `guidance`: what the next attempt should do differently, concretely (commands, files). It may be empty \
         only for `halt_task`.\n\
         - `verdict`: one of the names above.\n\
         - `confidence`: `low`, `medium` or `high`. `high` needs cited steps; uncited `high` is lowered to `medium`.\n\
         - `cited_steps`: the numbers of the tool-call steps in the log that support the hypothesis ({}). \
         Citing a step the log does not have discards the whole reply.",
        match bundle.steps {
            0 => "the log has none, so `[]`".to_string(),
            n => format!("each between 1 and {n}"),
        }
    );
    out
}

/// Appends the task's heading, its description (when `description`), and
/// its criteria with their hints.
pub(crate) fn task_section(out: &mut String, task: &zurdo::Task, description: bool) {
    let _ = writeln!(out, "# Task {} — {}\n", task.id, task.title);
    if description && !task.description.trim().is_empty() {
        out.push_str("## Description\n\n");
        let _ = writeln!(
            out,
            "{}\n",
            window(task.description.trim(), DESCRIPTION_BUDGET).trim_end()
        );
    }
    out.push_str("## Acceptance criteria\n\n");
    if task.criteria.is_empty() {
        out.push_str("(none)\n");
    }
    for criterion in &task.criteria {
        let hints: Vec<&str> = criterion.hints.iter().map(|h| h.source.as_str()).collect();
        let _ = writeln!(out, "- {} {}", criterion.title, hints.join(" "));
    }
    out.push('\n');
}

/// Why a reply was discarded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discard {
    /// No JSON object with a `verdict` key anywhere in the reply.
    NoJson,
    /// A field is missing, of the wrong type, empty, or outside its closed set.
    Field {
        /// The field's name.
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A cited step is 0 or past the end of the bundle's log.
    CitesMissingStep {
        /// The cited step.
        step: usize,
        /// How many steps the log has.
        steps: usize,
    },
}

impl fmt::Display for Discard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Discard::NoJson => f.write_str("no JSON object with a \"verdict\" key in the reply"),
            Discard::Field { field, problem } => write!(f, "field \"{field}\": {problem}"),
            Discard::CitesMissingStep { step, steps } => write!(
                f,
                "cites tool-call step {step}, but the log has {steps} step{}",
                if *steps == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for Discard {}

/// Finds the first JSON object in `reply` that has `key`, wherever it sits
/// (in ```json fences, after prose): each `{` is tried as the start of a
/// JSON value, and the first object holding `key` wins.
pub(crate) fn find_object(reply: &str, key: &str) -> Option<Map<String, Value>> {
    reply
        .char_indices()
        .filter(|&(_, c)| c == '{')
        .find_map(|(at, _)| {
            let mut values = serde_json::Deserializer::from_str(&reply[at..]).into_iter::<Value>();
            match values.next() {
                Some(Ok(Value::Object(map))) if map.contains_key(key) => Some(map),
                _ => None,
            }
        })
}

/// What kind of JSON value `value` is, for a one-line complaint.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` as compact JSON, bounded for quoting in a discard.
fn quote(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= QUOTE_BUDGET {
        text
    } else {
        format!("{}…", cut(&text, QUOTE_BUDGET))
    }
}

/// Reads the reasoner's reply into a [`Block`], checking it structurally
/// against a bundle of `steps` numbered tool calls. See [`Discard`] for
/// what rejects a reply; an uncited `high` confidence is lowered to
/// `medium` and marked, not rejected.
pub fn parse(reply: &str, steps: usize) -> Result<Block, Discard> {
    let map = find_object(reply, "verdict").ok_or(Discard::NoJson)?;

    let verdict = closed(&map, "verdict", Verdict::from_name, || {
        either(Verdict::ALL.map(Verdict::name))
    })?;
    let hypothesis = text_field(&map, "hypothesis", false)?;
    let guidance = text_field(&map, "guidance", verdict == Verdict::HaltTask)?;
    let mut confidence = closed(&map, "confidence", Confidence::from_name, || {
        either(Confidence::ALL.map(Confidence::name))
    })?;
    let cited_steps = citations(map.get("cited_steps"), steps)?;

    let confidence_clamped = confidence == Confidence::High && cited_steps.is_empty();
    if confidence_clamped {
        confidence = Confidence::Medium;
    }
    Ok(Block {
        hypothesis,
        guidance,
        verdict,
        confidence,
        cited_steps,
        confidence_clamped,
    })
}

/// "a, b or c".
fn either<const N: usize>(list: [&str; N]) -> String {
    match list.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => (*last).to_string(),
        None => String::new(),
    }
}

/// A string field whose value must come from a closed set.
fn closed<T>(
    map: &Map<String, Value>,
    field: &'static str,
    lookup: fn(&str) -> Option<T>,
    allowed: impl Fn() -> String,
) -> Result<T, Discard> {
    let problem = match map.get(field) {
        None => "missing".to_string(),
        Some(Value::String(s)) => match lookup(s) {
            Some(value) => return Ok(value),
            None => format!(
                "{} is not one of {}",
                quote(&Value::String(s.clone())),
                allowed()
            ),
        },
        Some(other) => format!(
            "expected a string ({}), got {}",
            allowed(),
            json_kind(other)
        ),
    };
    Err(Discard::Field { field, problem })
}

/// A free-text field: trimmed, bounded, non-empty unless `may_be_empty`
/// (then missing or null reads as empty).
fn text_field(
    map: &Map<String, Value>,
    field: &'static str,
    may_be_empty: bool,
) -> Result<String, Discard> {
    let text = match map.get(field) {
        Some(Value::String(s)) => cut(s.trim(), FIELD_BUDGET).trim_end().to_string(),
        None | Some(Value::Null) if may_be_empty => String::new(),
        None => {
            return Err(Discard::Field {
                field,
                problem: "missing".to_string(),
            })
        }
        Some(other) => {
            return Err(Discard::Field {
                field,
                problem: format!("expected a string, got {}", json_kind(other)),
            })
        }
    };
    if text.is_empty() && !may_be_empty {
        return Err(Discard::Field {
            field,
            problem: "is empty".to_string(),
        });
    }
    Ok(text)
}

/// The cited steps: missing or null is none; otherwise an array of positive
/// integers, each within `1..=steps`. Returned ascending, deduplicated.
fn citations(value: Option<&Value>, steps: usize) -> Result<Vec<usize>, Discard> {
    let items = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(Discard::Field {
                field: "cited_steps",
                problem: format!(
                    "expected an array of step numbers, got {}",
                    json_kind(other)
                ),
            })
        }
    };
    let mut cited = Vec::with_capacity(items.len());
    for item in items {
        let Some(step) = item.as_u64() else {
            return Err(Discard::Field {
                field: "cited_steps",
                problem: format!("{} is not a positive integer", quote(item)),
            });
        };
        let step = usize::try_from(step).unwrap_or(usize::MAX);
        if step == 0 || step > steps {
            return Err(Discard::CitesMissingStep { step, steps });
        }
        cited.push(step);
    }
    cited.sort_unstable();
    cited.dedup();
    Ok(cited)
}

/// The `# Diagnosis` section the next executor prompt opens with after a
/// `retry_with_guidance` verdict: zurdo's reading of the stall, framed as
/// advice, with its hypothesis and guidance.
pub fn section(block: &Block) -> String {
    let mut out = String::from("# Diagnosis\n\n");
    out.push_str(
        "This is zurdo's reading of why the last attempts failed the same way. It is advice: \
         the acceptance criteria below still decide whether the task passes.\n\n",
    );
    let _ = writeln!(out, "## Hypothesis\n\n{}\n", block.hypothesis.trim());
    if !block.guidance.trim().is_empty() {
        let _ = writeln!(out, "## Guidance\n\n{}\n", block.guidance.trim());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRD: &str =
        "# PRD: x\n\n## Task: task-build — Make it build\n**Effort**: low\n**Depends-on**: []\n\n\
                       ### Description\nFix the import in src/lib.rs.\n\n### Acceptance Criteria\n\
                       - [ ] the tests pass [shell: cargo test]\n";

    fn bundle(steps: usize) -> Bundle {
        Bundle {
            text: "## Attempt 1\n\n[1] Bash: cargo test → failed\n    error[E0432]\n".to_string(),
            steps,
        }
    }

    fn reply(fields: &str) -> String {
        format!("{{{fields}}}")
    }

    const GOOD: &str = r#""hypothesis": "The import path is wrong.", "guidance": "Use crate::util.", "verdict": "retry_with_guidance", "confidence": "medium", "cited_steps": [1]"#;

    #[test]
    fn prompt_opens_with_the_prefix_and_carries_task_bundle_and_verdicts() {
        let prd = zurdo::parse(PRD).expect("valid");
        let p = prompt(&prd.tasks[0], &bundle(4), 3);
        assert_eq!(p.lines().next(), Some("zurdo-reason: diagnosis"));
        assert!(p.contains("# Task task-build — Make it build"), "{p}");
        assert!(p.contains("Fix the import in src/lib.rs."), "{p}");
        assert!(p.contains("- the tests pass [shell: cargo test]"), "{p}");
        assert!(p.contains(&bundle(4).text), "{p}");
        assert!(p.contains("3 attempts in a row"), "{p}");
        assert!(p.contains("[1] to [4]"), "{p}");
        assert!(p.contains("each between 1 and 4"), "{p}");
        assert!(prompt(&prd.tasks[0], &bundle(0), 2).contains("no step to cite"));
        for v in Verdict::ALL {
            assert!(p.contains(&format!("`{}`", v.name())), "{p}");
        }
        assert!(p.contains("Do not use tools"), "{p}");
        assert!(p.contains("\"cited_steps\""), "{p}");
    }

    #[test]
    fn parse_accepts_a_fenced_reply_with_prose_around_it() {
        let text = format!(
            "Looking at step {{1}}, the build fails.\n\n```json\n{}\n```\nHope that helps {{ :) }}",
            reply(GOOD)
        );
        let block = parse(&text, 4).expect("accepted");
        assert_eq!(block.verdict, Verdict::RetryWithGuidance);
        assert_eq!(block.confidence, Confidence::Medium);
        assert_eq!(block.hypothesis, "The import path is wrong.");
        assert_eq!(block.guidance, "Use crate::util.");
        assert_eq!(block.cited_steps, vec![1]);
        assert!(!block.confidence_clamped);
    }

    #[test]
    fn no_json_is_discarded() {
        assert_eq!(
            parse("I think the import is wrong.", 3),
            Err(Discard::NoJson)
        );
        assert_eq!(parse("{\"hypothesis\": \"x\"}", 3), Err(Discard::NoJson));
        assert_eq!(parse("{\"verdict\": ", 3), Err(Discard::NoJson));
    }

    #[test]
    fn values_outside_the_closed_sets_are_discarded() {
        let unknown_verdict = GOOD.replace("retry_with_guidance", "pass_criterion");
        match parse(&reply(&unknown_verdict), 4) {
            Err(Discard::Field {
                field: "verdict",
                problem,
            }) => {
                assert!(problem.contains("\"pass_criterion\""), "{problem}")
            }
            other => panic!("{other:?}"),
        }
        let unknown_confidence = GOOD.replace("\"medium\"", "\"certain\"");
        match parse(&reply(&unknown_confidence), 4) {
            Err(Discard::Field {
                field: "confidence",
                problem,
            }) => {
                assert!(problem.contains("\"certain\""), "{problem}")
            }
            other => panic!("{other:?}"),
        }
        let wrong_type = GOOD.replace("\"medium\"", "3");
        assert!(matches!(
            parse(&reply(&wrong_type), 4),
            Err(Discard::Field {
                field: "confidence",
                ..
            })
        ));
    }

    #[test]
    fn empty_hypothesis_and_guidance_are_discarded_except_guidance_for_halt() {
        let empty = GOOD.replace("The import path is wrong.", "  ");
        let err = parse(&reply(&empty), 4).expect_err("discarded");
        assert!(
            matches!(
                err,
                Discard::Field {
                    field: "hypothesis",
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(err.to_string(), "field \"hypothesis\": is empty");

        let no_guidance = GOOD.replace("Use crate::util.", "");
        assert!(matches!(
            parse(&reply(&no_guidance), 4),
            Err(Discard::Field {
                field: "guidance",
                ..
            })
        ));
        let halt = no_guidance.replace("retry_with_guidance", "halt_task");
        let block = parse(&reply(&halt), 4).expect("halt may have no guidance");
        assert_eq!(block.verdict, Verdict::HaltTask);
        assert_eq!(block.guidance, "");
    }

    #[test]
    fn citations_outside_the_log_discard_the_block() {
        let zero = GOOD.replace("[1]", "[0]");
        assert_eq!(
            parse(&reply(&zero), 4),
            Err(Discard::CitesMissingStep { step: 0, steps: 4 })
        );
        let past = GOOD.replace("[1]", "[2, 9]");
        let err = parse(&reply(&past), 4).expect_err("discarded");
        assert_eq!(err, Discard::CitesMissingStep { step: 9, steps: 4 });
        assert_eq!(
            err.to_string(),
            "cites tool-call step 9, but the log has 4 steps"
        );
        let negative = GOOD.replace("[1]", "[-1]");
        assert!(matches!(
            parse(&reply(&negative), 4),
            Err(Discard::Field {
                field: "cited_steps",
                ..
            })
        ));
        let missing = GOOD.replace(", \"cited_steps\": [1]", "");
        assert_eq!(
            parse(&reply(&missing), 4).map(|b| b.cited_steps),
            Ok(vec![])
        );
    }

    #[test]
    fn uncited_high_confidence_is_clamped_cited_high_stays() {
        let uncited = GOOD.replace("\"medium\"", "\"high\"").replace("[1]", "[]");
        let block = parse(&reply(&uncited), 4).expect("accepted");
        assert_eq!(block.confidence, Confidence::Medium);
        assert!(block.confidence_clamped);
        let json = serde_json::to_string(&block).expect("json");
        assert!(json.contains("\"confidence_clamped\":true"), "{json}");

        let cited = GOOD
            .replace("\"medium\"", "\"high\"")
            .replace("[1]", "[3, 1, 3]");
        let block = parse(&reply(&cited), 4).expect("accepted");
        assert_eq!(block.confidence, Confidence::High);
        assert!(!block.confidence_clamped);
        assert_eq!(block.cited_steps, vec![1, 3]);
        let json = serde_json::to_string(&block).expect("json");
        assert!(!json.contains("confidence_clamped"), "{json}");
    }

    #[test]
    fn runaway_fields_are_bounded() {
        let long = "é".repeat(5000);
        let runaway = GOOD.replace("The import path is wrong.", &long);
        let block = parse(&reply(&runaway), 4).expect("accepted");
        assert!(block.hypothesis.len() <= FIELD_BUDGET);
        assert!(block.hypothesis.len() > FIELD_BUDGET - 4);
    }

    #[test]
    fn names_round_trip_through_serde() {
        for v in Verdict::ALL {
            assert_eq!(
                serde_json::to_value(v).expect("json"),
                Value::String(v.name().to_string())
            );
            assert_eq!(Verdict::from_name(v.name()), Some(v));
        }
        for c in Confidence::ALL {
            assert_eq!(
                serde_json::to_value(c).expect("json"),
                Value::String(c.name().to_string())
            );
        }
        assert!(Confidence::Low < Confidence::High);
    }

    #[test]
    fn the_section_frames_the_block_as_advice() {
        let block = parse(&reply(GOOD), 4).expect("accepted");
        let s = section(&block);
        assert!(s.starts_with("# Diagnosis\n\n"), "{s}");
        assert!(s.contains("advice"), "{s}");
        assert!(s.contains("acceptance criteria"), "{s}");
        assert!(s.contains("The import path is wrong."), "{s}");
        assert!(s.contains("Use crate::util."), "{s}");
    }
}
