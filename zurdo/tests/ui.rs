//! The compile errors of `zurdo::prd!`, pinned with trybuild.
//!
//! trybuild compiles each case in a generated package under
//! `<target>/tests/trybuild/zurdo`, so `CARGO_MANIFEST_DIR` is that
//! directory, not this crate's: the cases name their PRDs relative to the
//! `.rs` file (`tests/ui/prds/…`), which the macro tries when nothing is at
//! the manifest-relative path. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p zurdo --test ui`.

use std::path::Path;

#[test]
fn prd_macro_compile_errors() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/hyphen_heading.rs");
    cases.compile_fail("tests/ui/three_errors.rs");
    cases.compile_fail("tests/ui/not_a_string.rs");
    // The missing-file message names the manifest-relative path it tried,
    // which lies in trybuild's generated package inside the target dir;
    // trybuild rewrites it to `$WORKSPACE/target/…` only when the target dir
    // is the workspace's own `target/`.
    if target_dir_is_default() {
        cases.compile_fail("tests/ui/missing_file.rs");
    } else {
        eprintln!(
            "note: skipping tests/ui/missing_file.rs: CARGO_TARGET_DIR is not the workspace's \
             target/, so its expected message (which names a path inside it) cannot match"
        );
    }
}

fn target_dir_is_default() -> bool {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent();
    let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    match (target.map(Path::canonicalize), default.canonicalize()) {
        (Some(Ok(target)), Ok(default)) => target == default,
        _ => false,
    }
}
