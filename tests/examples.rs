//! The PRDs this repository ships (examples, dogfood, the spec's own
//! examples) stay valid and lint-clean.

use std::path::{Path, PathBuf};

use zurdo::lint::{self, LintContext};

fn shipped_prds() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut dirs = vec![
        root.join("prds"),
        root.join("examples"),
        root.join("tests/fixtures/spec"),
    ];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("target") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md")
                && path
                    .components()
                    .any(|c| c.as_os_str() == "prds" || c.as_os_str() == "spec")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_shipped_prd_is_valid_and_lint_clean() {
    let prds = shipped_prds();
    assert!(
        prds.len() >= 4,
        "expected the example, dogfood and spec PRDs, found {prds:?}"
    );
    for path in prds {
        let prd = match zurdo::source::load(&path) {
            Ok(Ok(prd)) => prd,
            Ok(Err(errors)) => panic!("{}: {errors:#?}", path.display()),
            Err(e) => panic!("{e}"),
        };
        let root = zurdo::source::repo_root(&path);
        let relative = zurdo::source::relative_to(&root, &path);
        let ctx = LintContext {
            root: Some(&root),
            prd_path: relative.as_deref(),
            ..Default::default()
        };
        let warnings = lint::lint(&prd, &ctx);
        assert!(warnings.is_empty(), "{}: {warnings:#?}", path.display());
    }
}
