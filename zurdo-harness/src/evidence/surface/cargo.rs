//! `Cargo.toml`'s test switches: which targets exist and whether cargo
//! tests them. Dependencies, features, metadata and everything else are
//! free to change.

use super::{value_part, Part, Parts, WHOLE};

/// The `[lib]` keys that decide whether and how the library is tested.
const LIB_KEYS: [&str; 5] = ["test", "doctest", "bench", "harness", "path"];

/// The keys of a target table that decide whether and how it is tested.
const TARGET_SWITCHES: [&str; 5] = ["test", "harness", "doctest", "bench", "required-features"];

/// The `[package]` keys that turn target discovery off.
const AUTO_KEYS: [&str; 5] = [
    "autotests",
    "autobins",
    "autoexamples",
    "autobenches",
    "autolib",
];

/// The parts of a `Cargo.toml`; unreadable TOML is compared whole.
pub fn parts(text: &str) -> Parts {
    let Ok(doc) = toml::from_str::<toml::Table>(text) else {
        return Parts::from([(WHOLE.to_string(), Part::opaque(text.as_bytes()))]);
    };
    let json = |v: &toml::Value| serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    let mut parts = Parts::new();
    // Each target table by its name (else its path), compared by digest
    // (quoting one would not read). A new target is free unless it carries
    // a test switch: one declared over an auto-discovered test with
    // `test = false` hides that test.
    for kind in ["test", "bench", "bin", "example"] {
        let Some(tables) = doc.get(kind) else {
            continue;
        };
        let Some(tables) = tables.as_array() else {
            parts.insert(
                format!("the [[{kind}]] tables"),
                Part::opaque(super::canonical_json(&json(tables)).as_bytes()),
            );
            continue;
        };
        for (i, table) in tables.iter().enumerate() {
            let id = ["name", "path"]
                .iter()
                .find_map(|k| table.get(k).and_then(toml::Value::as_str))
                .map_or_else(|| format!("#{}", i + 1), |n| format!("\"{n}\""));
            let switched = table
                .as_table()
                .is_some_and(|t| t.keys().any(|k| TARGET_SWITCHES.contains(&k.as_str())));
            parts.insert(
                format!("the [[{kind}]] table {id}"),
                Part {
                    grows: !switched,
                    ..Part::opaque(super::canonical_json(&json(table)).as_bytes())
                },
            );
        }
    }
    let keys = |parts: &mut Parts, table: &str, keys: &[&str]| {
        let mut at = Some(&doc);
        for segment in table.split('.') {
            at = at
                .and_then(|t| t.get(segment))
                .and_then(toml::Value::as_table);
        }
        for (key, value) in at.into_iter().flatten() {
            if keys.is_empty() || keys.contains(&key.as_str()) {
                parts.insert(format!("[{table}] {key}"), value_part(&json(value)));
            }
        }
    };
    keys(&mut parts, "lib", &LIB_KEYS);
    keys(&mut parts, "package", &AUTO_KEYS);
    keys(&mut parts, "profile.test", &[]);
    keys(
        &mut parts,
        "profile.dev",
        &["debug-assertions", "overflow-checks"],
    );
    keys(&mut parts, "workspace", &["exclude", "default-members"]);
    let members = doc
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array);
    for member in members
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
    {
        parts.insert(
            format!("[workspace] member \"{member}\""),
            Part {
                grows: true,
                ..Part::of("listed")
            },
        );
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[package]\nname = \"a\"\nversion = \"0.1.0\"\n\n[dependencies]\nserde = \"1\"\n\n[[test]]\nname = \"it\"\npath = \"tests/it.rs\"\n\n[workspace]\nmembers = [\"x\", \"y\"]\n";

    fn labels(text: &str) -> Vec<String> {
        parts(text).into_keys().collect()
    }

    #[test]
    fn test_switches_are_parts_and_dependencies_are_not() {
        assert_eq!(
            labels(BASE),
            [
                "[workspace] member \"x\"",
                "[workspace] member \"y\"",
                "the [[test]] table \"it\"",
            ]
        );
        let with_dep = BASE.replace("serde = \"1\"\n", "serde = \"1\"\nrand = \"0.9\"\n");
        assert_eq!(parts(&with_dep), parts(BASE));
        let off = BASE.replace(
            "path = \"tests/it.rs\"\n",
            "path = \"tests/it.rs\"\ntest = false\n",
        );
        assert_ne!(
            parts(&off)["the [[test]] table \"it\""],
            parts(BASE)["the [[test]] table \"it\""]
        );
        // A new target is free; one with a test switch is not.
        let more = format!("{BASE}\n[[bin]]\nname = \"tool\"\npath = \"src/tool.rs\"\n\n[[test]]\npath = \"tests/b.rs\"\nharness = false\n");
        let more = parts(&more);
        assert!(more["the [[bin]] table \"tool\""].grows);
        assert!(!more["the [[test]] table \"tests/b.rs\""].grows);
        let lib = format!("{BASE}\n[lib]\ntest = false\ncrate-type = [\"cdylib\"]\n\n[profile.test]\nopt-level = 1\n\n[profile.dev]\nopt-level = 1\ndebug-assertions = false\n");
        let lib_parts = parts(&lib);
        assert_eq!(lib_parts["[lib] test"].text.as_deref(), Some("false"));
        assert!(lib_parts.contains_key("[profile.test] opt-level"));
        assert!(lib_parts.contains_key("[profile.dev] debug-assertions"));
        assert!(!lib_parts.contains_key("[lib] crate-type"));
        assert!(!lib_parts.contains_key("[profile.dev] opt-level"));
        let auto = BASE.replace(
            "version = \"0.1.0\"\n",
            "version = \"0.1.0\"\nautotests = false\n",
        );
        assert_eq!(
            parts(&auto)["[package] autotests"].text.as_deref(),
            Some("false")
        );
        assert_eq!(labels("[package\n"), ["the file"]);
    }
}
