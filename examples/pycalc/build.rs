//! One harness over every PRD in prds/: add a PRD file and `cargo test --test prd` runs it.
fn main() {
    zurdo::build::prds("prds");
}
