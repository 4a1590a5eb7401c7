//! The policy identifier: which verdict-changing rules were in force for a
//! run. A canonical JSON document of the effective `[verification]`
//! settings (defaults made explicit) and, when any is set, the `[budget]`
//! limits, hashed with SHA-256, recorded as `policy` in prd.json and
//! written beside it as `policy.json`, so two runs' rules can be compared
//! with `sha256sum policy.json`. With `[escalation]` on, the ladder its
//! tasks climb is in the document too (`escalation`: who may work on a
//! task, never what passes it), and with `[roles.challenger]` configured,
//! the challenger (`challenger`: it can fail an attempt, never pass one);
//! without them the document is what it was.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use zurdo::verify::env::DEFAULT_ALLOWLIST;
use zurdo::verify::VerificationConfig;

use crate::budget::Budget;
use crate::config::{ChallengerConfig, Config};
use crate::escalation::Escalation;

/// The rules a run's policy id covers: what decides a verdict
/// (`[verification]`, the challenger, which can fail an attempt) and what
/// bounds who works on a task and at what cost (`[budget]`,
/// `[escalation]`). A resume puts the run-start rules back in force, so
/// a config edited while zurdo was stopped changes none of them.
#[derive(Debug, Clone)]
pub struct Rules {
    /// `[verification]`.
    pub verification: VerificationConfig,
    /// `[budget]`.
    pub budget: Budget,
    /// `[escalation]`, when on.
    pub escalation: Option<Escalation>,
    /// `[roles.challenger]`, when configured.
    pub challenger: Option<ChallengerConfig>,
}

impl Rules {
    /// The rules `config` holds.
    pub fn of(config: &Config) -> Rules {
        Rules {
            verification: config.verification.clone(),
            budget: config.budget,
            escalation: config.escalation.clone(),
            challenger: config.challenger.clone(),
        }
    }

    /// Puts these rules in force in `config`.
    pub fn apply(self, config: &mut Config) {
        config.verification = self.verification;
        config.budget = self.budget;
        config.escalation = self.escalation;
        config.challenger = self.challenger;
    }

    /// The canonical document: [`document`], with the ladder (`escalation`)
    /// when one is on and the challenger (`challenger`) when one is
    /// configured; without either it is what it was before they existed.
    pub fn document(&self) -> Value {
        let mut doc = document(&self.verification, &self.budget);
        if let Some(fields) = doc.as_object_mut() {
            if let Some(e) = &self.escalation {
                fields.insert("escalation".into(), e.document());
            }
            if let Some(c) = &self.challenger {
                fields.insert("challenger".into(), c.document());
            }
        }
        doc
    }

    /// The document as canonical bytes (serde_json's maps are sorted).
    pub fn canonical(&self) -> String {
        self.document().to_string()
    }

    /// SHA-256 of the canonical document, hex: the policy id.
    pub fn id(&self) -> String {
        id_of(&self.canonical())
    }

    /// The rules a policy document records, when it records them whole
    /// (`None` when a part cannot be read back).
    pub fn from_document(doc: &Value) -> Option<Rules> {
        let verification: VerificationConfig =
            serde_json::from_value(doc.get("verification")?.clone()).ok()?;
        let budget: Budget = match doc.get("budget") {
            Some(b) => serde_json::from_value(b.clone()).ok()?,
            None => Budget::default(),
        };
        let challenger = match doc.get("challenger") {
            Some(c) => Some(ChallengerConfig::from_document(c)?),
            None => None,
        };
        Some(Rules {
            verification,
            budget,
            escalation: doc.get("escalation").and_then(Escalation::from_document),
            challenger,
        })
    }
}

/// The canonical policy document (keys sorted; every default spelled out).
/// The budget is in it only when a limit is set, so a run without one
/// keeps the id it had before budgets existed.
pub fn document(v: &VerificationConfig, budget: &Budget) -> Value {
    let mut allowlist: Vec<String> = DEFAULT_ALLOWLIST.iter().map(|s| s.to_string()).collect();
    allowlist.extend(v.env_allowlist.iter().cloned());
    allowlist.sort();
    allowlist.dedup();
    let mut protected = v.protected_paths.clone();
    protected.sort();
    let sorted = |list: &[String]| {
        let mut list = list.to_vec();
        list.sort();
        list.dedup();
        list
    };
    let mut doc = json!({
        "version": 1,
        "criterion_seconds": v.criterion_seconds,
        "http_read_limit": v.http_read_limit,
        "env_allowlist": allowlist,
        "protected_paths": protected,
        // Frozen in every task besides protected_paths (a change of them
        // between versions changes the policy).
        "protected_defaults": crate::evidence::frozen::TOOLCHAIN_DEFAULTS,
        "standing": v.standing.iter().map(|r| json!({"hint": r.hint, "why": r.why})).collect::<Vec<_>>(),
        "standing_budget_seconds": v.standing_budget_seconds,
        "clean_room": v.clean_room,
        "clean_room_image": clean_room_image(&v.clean_room),
        "coverage": json!({
            "sources": sorted(&v.coverage.sources),
            "threshold": v.coverage.threshold,
        }),
        "verdict_surface": v.verdict_surface,
        "verdict_surface_extra": sorted(&v.verdict_surface_extra),
        "environment_surface": v.environment_surface,
        "surface_exempt": sorted(&v.surface_exempt),
        // The sealed criteria are rules too: their file's bytes are part
        // of the policy (the path alone would let them change unseen).
        "sealed": v.sealed.as_ref().map(|path| json!({
            "path": path,
            "sha256": zurdo::sealed::sha256_of(path),
        })),
        // Where the agent runs: as the user, or under bwrap with what the
        // sandbox hides and protects (the paths as placeholders).
        "agent_sandbox": v.agent_sandbox,
        "agent_sandbox_args": (v.agent_sandbox == "bubblewrap").then(|| {
            crate::agent::sandbox::Sandbox {
                hidden: vec!["<sealed file>".into(), "<zurdo key>".into()],
                read_only: vec!["<root>/.zurdo".into(), "<root>/.git".into()],
            }
            .bwrap_args()
        }),
        "verification": serde_json::to_value(v).unwrap_or(Value::Null),
    });
    if budget.is_set() {
        doc["budget"] = serde_json::to_value(budget).unwrap_or(Value::Null);
    }
    doc
}

/// What the clean room re-verifies in, for the policy: nothing (`off`), a
/// fresh checkout of the verified tree, or that checkout under the
/// `bwrap` command line (the paths as placeholders).
fn clean_room_image(backend: &str) -> Value {
    match backend {
        "checkout" => {
            json!({"checkout": "a fresh checkout of the verified git tree in a temporary directory"})
        }
        "bubblewrap" => json!({
            "checkout": "a fresh checkout of the verified git tree in a temporary directory",
            "bwrap": crate::evidence::room::bubblewrap(
                std::path::Path::new("<working tree>"),
                std::path::Path::new("<room>"),
            ),
        }),
        _ => Value::Null,
    }
}

/// The document as canonical bytes (serde_json's maps are sorted).
pub fn canonical(v: &VerificationConfig, budget: &Budget) -> String {
    document(v, budget).to_string()
}

/// SHA-256 of the canonical document, hex.
pub fn id(v: &VerificationConfig, budget: &Budget) -> String {
    hex(canonical(v, budget).as_bytes())
}

/// The policy id of a canonical document already built ([`Rules::id`]
/// without building it again).
pub fn id_of(canonical: &str) -> String {
    hex(canonical.as_bytes())
}

/// SHA-256 of `bytes`, hex.
fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: Budget = Budget {
        max_cost_usd: None,
        max_task_cost_usd: None,
        max_tokens: None,
        max_task_tokens: None,
    };

    #[test]
    fn the_id_changes_with_any_verdict_changing_setting_and_only_then() {
        let base = VerificationConfig::default();
        assert_eq!(id(&base, &NONE), id(&VerificationConfig::default(), &NONE));
        let changes = [
            VerificationConfig {
                agent_sandbox: "bubblewrap".into(),
                ..Default::default()
            },
            VerificationConfig {
                criterion_seconds: 1,
                ..Default::default()
            },
            VerificationConfig {
                http_read_limit: 1,
                ..Default::default()
            },
            VerificationConfig {
                env_allowlist: vec!["X".into()],
                ..Default::default()
            },
            VerificationConfig {
                protected_paths: vec!["a".into()],
                ..Default::default()
            },
            VerificationConfig {
                standing_budget_seconds: 5,
                ..Default::default()
            },
            VerificationConfig {
                clean_room: "checkout".into(),
                ..Default::default()
            },
            VerificationConfig {
                verdict_surface: false,
                ..Default::default()
            },
            VerificationConfig {
                verdict_surface_extra: vec!["ci/*.toml".into()],
                ..Default::default()
            },
            VerificationConfig {
                environment_surface: false,
                ..Default::default()
            },
            VerificationConfig {
                surface_exempt: vec!["web/package.json".into()],
                ..Default::default()
            },
        ];
        // The surfaces are spelled out, defaults included.
        let doc = document(&base, &NONE);
        assert_eq!(doc["verdict_surface"], true);
        assert_eq!(doc["environment_surface"], true);
        assert_eq!(doc["verdict_surface_extra"], serde_json::json!([]));
        assert_eq!(doc["surface_exempt"], serde_json::json!([]));
        // The defaults frozen in every task and what the clean room is.
        assert_eq!(doc["protected_defaults"][0], "rust-toolchain.toml");
        assert_eq!(doc["clean_room_image"], Value::Null);
        let room = document(
            &VerificationConfig {
                clean_room: "bubblewrap".into(),
                ..Default::default()
            },
            &NONE,
        );
        assert_eq!(room["clean_room_image"]["bwrap"][0], "bwrap");
        assert!(room["clean_room_image"]["bwrap"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x == "<room>")));
        for changed in changes {
            assert_ne!(id(&base, &NONE), id(&changed, &NONE), "{changed:?}");
        }
        // The sealed file is in the policy by path and by its bytes.
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join("sealed.md");
        std::fs::write(&file, "one").expect("write");
        let sealed = VerificationConfig {
            sealed: Some(file.display().to_string()),
            ..Default::default()
        };
        let first = id(&sealed, &NONE);
        assert_ne!(first, id(&base, &NONE));
        assert_eq!(
            document(&sealed, &NONE)["sealed"]["sha256"]
                .as_str()
                .map(str::len),
            Some(64)
        );
        std::fs::write(&file, "two").expect("write");
        assert_ne!(first, id(&sealed, &NONE), "the sealed bytes changed");
        // Order of a set-like list does not matter.
        let a = VerificationConfig {
            protected_paths: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        let b = VerificationConfig {
            protected_paths: vec!["b".into(), "a".into()],
            ..Default::default()
        };
        assert_eq!(
            document(&a, &NONE)["protected_paths"],
            document(&b, &NONE)["protected_paths"]
        );
        assert_eq!(id(&base, &NONE).len(), 64);
    }

    #[test]
    fn the_budget_is_in_the_policy_only_when_one_is_set() {
        let v = VerificationConfig::default();
        assert!(document(&v, &NONE).get("budget").is_none());
        let budget = Budget {
            max_task_cost_usd: Some(zurdo::money::Usd(2_500_000)),
            ..NONE
        };
        let doc = document(&v, &budget);
        assert_eq!(doc["budget"], serde_json::json!({"max_task_cost_usd": 2.5}));
        assert_ne!(id(&v, &budget), id(&v, &NONE));
        let other = Budget {
            max_tokens: Some(10),
            ..budget
        };
        assert_ne!(id(&v, &budget), id(&v, &other));
        // What policy.json holds reads back as the budget it was.
        let back: Budget = serde_json::from_value(doc["budget"].clone()).expect("reads");
        assert_eq!(back, budget);
    }

    fn rules(escalation: Option<Escalation>, challenger: Option<ChallengerConfig>) -> Rules {
        Rules {
            verification: VerificationConfig::default(),
            budget: NONE,
            escalation,
            challenger,
        }
    }

    #[test]
    fn the_ladder_is_in_the_policy_only_when_on_and_reads_back() {
        use crate::escalation::{Rung, Trigger};
        let base = VerificationConfig::default();
        assert_eq!(rules(None, None).document(), document(&base, &NONE));
        assert_eq!(rules(None, None).id(), id(&base, &NONE));
        let e = Escalation {
            ladder: vec![
                Rung::Retry,
                Rung::Effort("high".into()),
                Rung::Provider(crate::agent::Provider::OpenAi),
                Rung::Halt,
            ],
            climb_on: Trigger::Stall,
        };
        let doc = rules(Some(e.clone()), None).document();
        assert_eq!(
            doc["escalation"]["ladder"],
            serde_json::json!(["retry", "effort:high", "provider:openai", "halt"])
        );
        assert_eq!(doc["escalation"]["climb_on"], "stall");
        assert_ne!(rules(Some(e.clone()), None).id(), id(&base, &NONE));
        let escalation_of = |doc: &Value| doc.get("escalation").and_then(Escalation::from_document);
        assert_eq!(escalation_of(&doc), Some(e));
        assert_eq!(escalation_of(&document(&base, &NONE)), None);
    }

    #[test]
    fn the_challenger_is_in_the_policy_only_when_configured_and_reads_back() {
        let config = Config::parse(
            "[effort_map.openai]\nhigh = \"o-high\"\n[effort_map.google]\nhigh = \"g-high\"\n[roles.challenger]\nfallback = [\"google\"]\ntimeout = \"90s\"\nprobe_seconds = 7\n",
        )
        .expect("parses");
        let challenger = config.challenger.clone().expect("configured");
        let with = Rules::of(&config);
        let doc = with.document();
        assert_eq!(doc["challenger"]["provider"], "openai");
        assert_eq!(doc["challenger"]["model"], "o-high");
        assert_eq!(doc["challenger"]["probe_seconds"], 7);
        assert_ne!(with.id(), rules(None, None).id());
        // Without one, the id is what it was before challengers existed.
        assert!(rules(None, None).document().get("challenger").is_none());
        // Every field the document holds reads back, and so does the id.
        let back = Rules::from_document(&doc).expect("reads back");
        let restored = back.challenger.clone().expect("the challenger");
        assert_eq!(restored.role, challenger.role);
        assert_eq!(restored.timeout, challenger.timeout);
        assert_eq!(restored.probe_seconds, 7);
        assert_eq!(back.id(), with.id());
        // Each limit changes the id.
        for change in [
            |c: &mut ChallengerConfig| c.max_calls_per_run += 1,
            |c: &mut ChallengerConfig| c.max_calls_per_task += 1,
            |c: &mut ChallengerConfig| c.probe_seconds += 1,
            |c: &mut ChallengerConfig| c.unsandboxed_probes = true,
            |c: &mut ChallengerConfig| c.role.model.push('x'),
            |c: &mut ChallengerConfig| c.role.fallback.clear(),
        ] {
            let mut changed = challenger.clone();
            change(&mut changed);
            assert_ne!(rules(None, Some(changed)).id(), with.id());
        }
        // A document whose challenger lost a field is not read back.
        let mut broken = doc.clone();
        broken["challenger"]["probe_seconds"] = serde_json::json!("seven");
        assert!(Rules::from_document(&broken).is_none());
    }
}
