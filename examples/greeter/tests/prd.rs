//! The greeter's PRD as cargo tests: `cargo test -p greeter --test prd`.
zurdo::prd!("prds/greeter.md");
