//! zurdo's own capabilities, verified by zurdo: `cargo test --test prd`.
zurdo::prd!("prds/zurdo.md");
