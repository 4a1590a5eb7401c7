//! `package.json`: the scripts a hint runs (and `test`, which `npm test`
//! runs), their `pre` and `post` scripts, the scripts those run in turn,
//! and the `jest` key. Dependencies and every other script are free to
//! change.

use std::collections::BTreeSet;

use super::{canonical_json, Part, Parts, WHOLE};
use crate::evidence::commands::npm_scripts_of;

/// How many scripts deep `npm run a` → `npm run b` is followed.
const MAX_FOLLOW: usize = 64;

/// The parts of a `package.json`, given the scripts the hints run;
/// unreadable JSON is compared whole.
pub fn parts(text: &str, hinted: &BTreeSet<String>) -> Parts {
    let Ok(serde_json::Value::Object(doc)) = serde_json::from_str::<serde_json::Value>(text) else {
        return Parts::from([(WHOLE.to_string(), Part::opaque(text.as_bytes()))]);
    };
    let mut parts = Parts::new();
    let scripts = doc.get("scripts").and_then(serde_json::Value::as_object);
    let mut wanted: Vec<String> = std::iter::once("test".to_string())
        .chain(hinted.iter().cloned())
        .collect();
    let mut seen = BTreeSet::new();
    let mut followed = 0;
    while let Some(pattern) = wanted.pop() {
        let names: Vec<String> = match pattern.strip_suffix('*') {
            // `run-s test:*`: every script under the prefix.
            Some(prefix) => scripts
                .into_iter()
                .flat_map(|s| s.keys())
                .filter(|k| k.starts_with(prefix))
                .cloned()
                .collect(),
            None => vec![pattern],
        };
        for name in names {
            for name in [format!("pre{name}"), format!("post{name}"), name] {
                if !seen.insert(name.clone()) {
                    continue;
                }
                let Some(value) = scripts.and_then(|s| s.get(&name)) else {
                    continue;
                };
                let command = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                parts.insert(format!("scripts.{name}"), Part::of(&command));
                followed += 1;
                if followed <= MAX_FOLLOW {
                    wanted.extend(npm_scripts_of(&zurdo::verify::command_argvs(&command)));
                }
            }
        }
    }
    if let Some(jest) = doc.get("jest") {
        parts.insert("the \"jest\" key".into(), Part::of(&canonical_json(jest)));
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(parts: &Parts) -> Vec<&str> {
        parts.keys().map(String::as_str).collect()
    }

    #[test]
    fn the_scripts_a_hint_runs_and_what_they_run() {
        let text = r#"{
  "name": "x",
  "scripts": {
    "test": "npm run unit && run-s lint:*",
    "pretest": "tsc",
    "unit": "jest",
    "lint:js": "eslint .",
    "lint:css": "stylelint .",
    "check": "node check.js",
    "build": "vite build",
    "postcheck": "echo done"
  },
  "dependencies": {"left-pad": "1.3.0"},
  "jest": {"testPathIgnorePatterns": ["/fixtures/"], "bail": true}
}"#;
        let hinted = BTreeSet::from(["check".to_string()]);
        let parts = parts(text, &hinted);
        assert_eq!(
            labels(&parts),
            [
                "scripts.check",
                "scripts.lint:css",
                "scripts.lint:js",
                "scripts.postcheck",
                "scripts.pretest",
                "scripts.test",
                "scripts.unit",
                "the \"jest\" key",
            ]
        );
        assert_eq!(parts["scripts.unit"].text.as_deref(), Some("jest"));
        let dep = text.replace(
            "\"left-pad\": \"1.3.0\"",
            "\"left-pad\": \"1.3.0\", \"chalk\": \"5\"",
        );
        let reordered = dep.replace(
            "{\"testPathIgnorePatterns\": [\"/fixtures/\"], \"bail\": true}",
            "{\"bail\": true, \"testPathIgnorePatterns\": [\"/fixtures/\"]}",
        );
        let build = reordered.replace("vite build", "vite build --minify");
        assert_eq!(
            super::parts(&build, &hinted),
            parts,
            "dependencies, key order and other scripts are free"
        );
        assert_eq!(
            labels(&super::parts("{\"scripts\": ", &hinted)),
            ["the file"]
        );
        assert!(super::parts("{\"dependencies\": {}}", &hinted).is_empty());
    }
}
